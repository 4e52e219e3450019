/* doc.h — styled text for the screens: a document is a list of lines, each a
 * byte string with one style per byte.  Lessons, verdicts, hints, the chart
 * and the help screen are all built as documents by code that knows nothing
 * of curses, so they can be tested and dumped; the UI only paints them.
 *
 * Widths are counted in code points: every character the workbook prints
 * (ASCII, box drawing, "—", "µ", "×") takes one terminal column. */
#ifndef DOC_H
#define DOC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* The styles a document can ask for; the UI maps each to colours or, on a
 * monochrome terminal, to attributes. */
#define DOC_STYLE_TABLE(X)                                              \
    X(DOC_TEXT)     /* plain prose */                                   \
    X(DOC_H1)       /* a lesson's title */                              \
    X(DOC_H2)       /* a section heading */                             \
    X(DOC_H3)                                                           \
    X(DOC_STRONG)                                                       \
    X(DOC_EM)                                                           \
    X(DOC_CODE)     /* `inline code` */                                 \
    X(DOC_BLOCK)    /* a fenced code block or a table */                \
    X(DOC_LINK)                                                         \
    X(DOC_QUOTE)                                                        \
    X(DOC_DIM)      /* secondary: rules, gutters, units */              \
    X(DOC_GOOD)     /* passed, clean, met */                            \
    X(DOC_BAD)      /* failed, missing, an error */                     \
    X(DOC_WARN)     /* not run, not met yet */                          \
    X(DOC_MARK)     /* the student's line a diagnostic points at */     \
    X(DOC_BAR)      /* a chart bar */                                   \
    X(DOC_REF)      /* the reference's marker on a chart */

enum doc_style {
#define DOC_ENUM_(e) e,
    DOC_STYLE_TABLE(DOC_ENUM_)
#undef DOC_ENUM_
    DOC_STYLE_COUNT
};

struct doc_line {
    char *text;                 /* NUL-terminated */
    unsigned char *style;       /* one enum doc_style per byte of text */
    size_t len, cap;
};

struct doc {
    struct doc_line *lines;
    int nlines;
    size_t cap;
    int oom;                    /* an allocation failed; the document is cut short */
};

/* A paragraph being assembled before it is flowed into lines. */
struct doc_para {
    char *text;
    unsigned char *style;
    size_t len, cap;
};

void doc_init(struct doc *d);
void doc_free(struct doc *d);

/* Starts a new, empty line; later doc_add calls append to it. */
void doc_newline(struct doc *d);

/* Appends text in one style to the last line (starting one if there is none).
 * Newlines in text start new lines. */
void doc_add(struct doc *d, enum doc_style st, const char *text);
/* Appends n bytes (no newlines among them) in one style to the last line. */
void doc_addn(struct doc *d, enum doc_style st, const char *text, size_t n);
void doc_addf(struct doc *d, enum doc_style st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Appends text padded to exactly cols columns, or cut to cols - 1 and "…". */
void doc_addcell(struct doc *d, enum doc_style st, const char *text, int cols);

/* The number of columns text takes. */
int doc_width(const char *text, size_t len);

/* Appends styled text to a paragraph. */
void doc_para_add(struct doc_para *p, enum doc_style st, const char *text, size_t len);
void doc_para_free(struct doc_para *p);

/* Flows a paragraph into lines of at most width columns, breaking at spaces
 * (a word longer than a line is cut).  The first line starts with prefix (in
 * prefix_style); the following ones are indented by the prefix's width.
 * Leaves p empty for reuse. */
void doc_flow(struct doc *d, struct doc_para *p, int width, const char *prefix, enum doc_style prefix_style);

/* Writes the document's text to f, a line each, without its styles (the
 * command line's tables and texts). */
void doc_print(FILE *f, const struct doc *d);

/* Finds needle (case-insensitive) in lines after `from` (dir > 0) or before it
 * (dir < 0), wrapping around; returns the line, or -1 when it is nowhere. */
int doc_find(const struct doc *d, const char *needle, int from, int dir);

/* Replaces every non-ASCII character with an ASCII stand-in ("—" → "--",
 * "µ" → "u", "×" → "x", box drawing → "-" or "|"), for terminals without
 * UTF-8.  Styles follow their characters. */
void doc_ascii(struct doc *d);

#endif /* DOC_H */
