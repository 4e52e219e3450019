/* csv.h — comma-separated values as RFC 4180 has them: the reader the
 * grader's roster goes through, and the writer its grades.csv comes out of.
 * Knows nothing of rosters or grades; the one rule it applies to what it
 * writes is that no text cell is a formula for a spreadsheet. */
#ifndef CSV_H
#define CSV_H

#include <stddef.h>
#include <stdio.h>

struct csv_row {
    char **fields;              /* NUL-terminated; "" for an empty field */
    int nfields;
    int line;                   /* the line of the text the row starts on, from 1 */
};

struct csv_table {
    struct csv_row *rows;
    int nrows;
};

/* Parses text (len bytes; a NUL does not end it) into rows of fields.
 * Accepted: fields quoted with '"' holding commas, line breaks and '""' for
 * a quote; unquoted fields taken as they are (a stray quote inside one is
 * data); rows ended by CRLF, LF or the end of the text (a last newline adds
 * no row); a UTF-8 BOM at the very start dropped; an empty line is a row of
 * one empty field.  Returns 0, or -1 with one line in err: "line 3: a quoted
 * field is not closed" (the line its quote opened on), or "line 2: text
 * after a quoted field" for 'a,"b"c', or out of memory.  On error t
 * holds nothing that needs freeing. */
int csv_parse(const char *text, size_t len, struct csv_table *t, char *err, size_t errlen);

void csv_free(struct csv_table *t);

/* Whether a spreadsheet that opens the file would take text cell s for a
 * formula, or shift it (OWASP's CSV injection): s starts with '=', '+',
 * '-', '@', a tab, a carriage return or a line feed. */
int csv_is_formula(const char *s);

/* Writes one field, quoted only when it must be (a comma, a quote, CR or
 * LF inside, a space at either end, or a formula), quotes doubled; a
 * formula (csv_is_formula) behind a single quote, as csv_put_string
 * writes it.  The caller writes the commas and the "\n" between fields
 * and rows.  Returns 0, or -1 on a write error. */
int csv_put_field(FILE *f, const char *s);

/* Writes a text cell always quoted, quotes doubled, so that a reader never
 * takes a text for a number (grades.csv): "alice", "", "a ""b"""; and a
 * formula (csv_is_formula) with a single quote before its first character,
 * as OWASP recommends: "'=1+1" reads back as the text '=1+1, which a
 * spreadsheet shows as =1+1 and never evaluates.  Numbers go through
 * csv_put_number and stay numbers, a negative one too. */
int csv_put_string(FILE *f, const char *s);

/* Writes a number bare, in the one form every report uses: the shortest
 * digits that read back as x, "100", "0.5", "0.3333333333333333",
 * "1e-05", "1e+17" (an exponent when the point would sit more than 15
 * places past the digits or the number is below 1e-4); NaN as the empty
 * field, infinities as +-1.7976931348623157e+308. */
int csv_put_number(FILE *f, double x);

/* The same number into buf ("" for NaN); returns 0, or -1 when it did not
 * fit (25 bytes always do). */
int csv_format_number(char *buf, size_t len, double x);

#endif /* CSV_H */
