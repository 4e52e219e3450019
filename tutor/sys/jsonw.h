/* jsonw.h — JSON in one fixed layout: two-space indent, "key": value, []
 * and {} when empty, numbers in their shortest form that reads back the
 * same (1e+17, 1e-05, 0.30000000000000004), strings with only '"', '\\',
 * control characters and DEL escaped.  One layout for every report, so
 * that a report diffs meaningfully against any other and readers can rely
 * on it.  Also a number as text in that form (jsonw_number), and text for
 * XML (jsonw_xml) with the same rule for bytes that are not UTF-8. */
#ifndef JSONW_H
#define JSONW_H

#include <stddef.h>

/* A growing text and where the writer is in it.  Zero it to start. */
struct jsonw {
    char *buf;
    size_t len, cap;
    int depth;
    int pretty;                 /* 1: the indented layout; 0: one line */
    int first;                  /* nothing written yet at this depth */
    int after_key;              /* a key was written, its value is next */
    int oom;                    /* an allocation failed: buf is to be dropped */
};

/* Starts a writer; pretty as above. */
void jsonw_init(struct jsonw *w, int pretty);

/* The values.  Inside an object, each value follows a jsonw_key. */
void jsonw_object(struct jsonw *w);         /* { */
void jsonw_array(struct jsonw *w);          /* [ */
void jsonw_end_object(struct jsonw *w);     /* } */
void jsonw_end_array(struct jsonw *w);      /* ] */
void jsonw_key(struct jsonw *w, const char *key);
void jsonw_string(struct jsonw *w, const char *s);     /* NULL writes null */
void jsonw_double(struct jsonw *w, double x);          /* NaN writes null */
void jsonw_bool(struct jsonw *w, int b);
void jsonw_null(struct jsonw *w);

/* Writes a parsed cJSON value (a pass-through of what another program
 * wrote) in the same layout; keys in their order.  v is a const cJSON *,
 * taken as void so that users of this header need not include cJSON. */
void jsonw_cjson(struct jsonw *w, const void *v);

/* Raw text appended as it is (plain text, XML, CSV); jsonw_rawf formats
 * it as printf does. */
void jsonw_raw(struct jsonw *w, const char *s, size_t len);
void jsonw_rawf(struct jsonw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text for XML, between tags or inside an attribute's quotes: &<>'" as
 * entities, the control characters XML 1.0 forbids dropped, each sequence
 * that is not UTF-8 one U+FFFD as in a JSON string; NULL writes null. */
void jsonw_xml(struct jsonw *w, const char *s);

/* The text so far with a final newline (every report ends in one), handed
 * to the caller to free; the writer is empty again.  NULL when out of
 * memory. */
char *jsonw_take(struct jsonw *w);

/* Frees what a writer holds (after an error). */
void jsonw_free(struct jsonw *w);

/* A number as the reports print it, into buf (32 bytes is always enough): csv.h's
 * rule, and null for NaN. */
void jsonw_number(char *buf, size_t len, double x);

/* The length of the UTF-8 sequence at s (at most n bytes, n > 0); *valid
 * 0 when it is not one, and then the number of bytes that become one
 * U+FFFD: up to the first byte that does not continue it. */
size_t jsonw_utf8_next(const char *s, size_t n, int *valid);

#endif /* JSONW_H */
