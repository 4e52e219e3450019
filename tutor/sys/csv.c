/* csv.c — see csv.h. */
#include "sys/csv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

/* A growing byte buffer for the field being read. */
struct buf {
    char *data;
    size_t len, cap;
};

static int buf_add(struct buf *b, char c)
{
    char *p = util_grow(b->data, &b->cap, b->len + 2, 1);
    if (!p)
        return -1;
    b->data = p;
    b->data[b->len++] = c;
    return 0;
}

/* Appends the field in b (then emptied) to row.  Returns 0 or -1. */
static int row_add(struct csv_row *row, struct buf *b)
{
    char **f = realloc(row->fields, sizeof *f * (size_t)(row->nfields + 1));
    if (!f)
        return -1;
    row->fields = f;
    char *s = malloc(b->len + 1);
    if (!s)
        return -1;
    if (b->len)
        memcpy(s, b->data, b->len);
    s[b->len] = '\0';
    f[row->nfields++] = s;
    b->len = 0;
    return 0;
}

/* Appends row (its fields then owned by the table, row emptied). */
static int rows_push(struct csv_table *t, struct csv_row *row)
{
    struct csv_row *r = realloc(t->rows, sizeof *r * (size_t)(t->nrows + 1));
    if (!r)
        return -1;
    t->rows = r;
    r[t->nrows++] = *row;
    memset(row, 0, sizeof *row);
    return 0;
}

static void row_free(struct csv_row *row)
{
    for (int i = 0; i < row->nfields; i++)
        free(row->fields[i]);
    free(row->fields);
    memset(row, 0, sizeof *row);
}

void csv_free(struct csv_table *t)
{
    for (int i = 0; i < t->nrows; i++)
        row_free(&t->rows[i]);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* A line break at p (CRLF or LF; a lone CR is data): its length, or 0. */
static size_t line_break(const char *p, const char *end)
{
    if (*p == '\n')
        return 1;
    if (*p == '\r' && p + 1 < end && p[1] == '\n')
        return 2;
    return 0;
}

int csv_parse(const char *text, size_t len, struct csv_table *t, char *err, size_t errlen)
{
    struct buf b = {0};
    struct csv_row row = {0};
    const char *p = text, *end = text + len;
    int line = 1, rc = -1;

    memset(t, 0, sizeof *t);
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    while (p < end) {
        /* One field, starting at p. */
        if (!row.nfields && !row.line)
            row.line = line;
        if (*p == '"') {
            int open_line = line;
            p++;
            for (;;) {
                if (p >= end) {
                    util_print(err, errlen, "line %d: a quoted field is not closed", open_line);
                    goto out;
                }
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        if (buf_add(&b, '"'))
                            goto oom;
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                if (*p == '\n')
                    line++;
                if (buf_add(&b, *p++))
                    goto oom;
            }
            if (p < end && *p != ',' && !line_break(p, end)) {
                util_print(err, errlen, "line %d: text after a quoted field", line);
                goto out;
            }
        } else {
            while (p < end && *p != ',' && !line_break(p, end))
                if (buf_add(&b, *p++))
                    goto oom;
        }
        if (row_add(&row, &b))
            goto oom;
        if (p < end && *p == ',') {
            p++;
            if (p == end && row_add(&row, &b))      /* "a," at the very end: a last empty field */
                goto oom;
            continue;
        }
        if (p < end) {
            p += line_break(p, end);
            line++;
        }
        if (rows_push(t, &row))
            goto oom;
    }
    if (row.nfields && rows_push(t, &row))
        goto oom;
    rc = 0;
    goto out;
oom:
    util_print(err, errlen, "out of memory");
out:
    free(b.data);
    row_free(&row);
    if (rc)
        csv_free(t);
    return rc;
}

int csv_is_formula(const char *s)
{
    return s[0] && strchr("=+-@\t\r\n", s[0]) != NULL;
}

int csv_put_field(FILE *f, const char *s)
{
    size_t n = strlen(s);
    if (!strpbrk(s, ",\"\r\n") && !(n && (s[0] == ' ' || s[n - 1] == ' ')) && !csv_is_formula(s))
        return fputs(s, f) < 0 ? -1 : 0;
    return csv_put_string(f, s);
}

int csv_put_string(FILE *f, const char *s)
{
    if (putc('"', f) == EOF)
        return -1;
    /* OWASP's remedy: the quote makes the spreadsheet take the cell as
     * text, and it sits inside the field's own quotes, where no separator
     * or quote of s can move it out of the cell. */
    if (csv_is_formula(s) && putc('\'', f) == EOF)
        return -1;
    for (; *s; s++) {
        if (*s == '"' && putc('"', f) == EOF)
            return -1;
        if (putc(*s, f) == EOF)
            return -1;
    }
    return putc('"', f) == EOF ? -1 : 0;
}

int csv_format_number(char *buf, size_t len, double x)
{
    char e[40], digits[24];
    int prec, exp10, nd = 0, neg;

    if (isnan(x))
        return util_print(buf, len, "%s", "");
    if (isinf(x))       /* an infinity prints as the largest double */
        x = x > 0 ? 1.7976931348623157e308 : -1.7976931348623157e308;
    /* The fewest significant digits that read back as x (the shortest
     * round trip). */
    for (prec = 0; prec < 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec, x);
        if (strtod(e, NULL) == x)
            break;
    }
    snprintf(e, sizeof e, "%.*e", prec, x);
    /* e is "-d.ddde+XX": split it into digits and a decimal exponent. */
    neg = e[0] == '-';
    const char *q = e + neg;
    for (; *q && *q != 'e'; q++)
        if (*q >= '0' && *q <= '9')
            digits[nd++] = *q;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    exp10 = atoi(q + 1);
    if (nd == 1 && digits[0] == '0')
        return util_print(buf, len, "%s0", neg ? "-" : "");

    /* decpt is where the point falls after the digits' first; an exponent
     * below 1e-4 and more than 15 places past them. */
    int decpt = exp10 + 1;
    char out[64];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    if (decpt <= -4 || decpt > nd + 15) {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            memcpy(out + o, digits + 1, (size_t)nd - 1);
            o += (size_t)nd - 1;
        }
        snprintf(out + o, sizeof out - o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
        return util_print(buf, len, "%s", out);
    }
    if (decpt <= 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = decpt; i < 0; i++)
            out[o++] = '0';
        memcpy(out + o, digits, (size_t)nd);
        o += (size_t)nd;
    } else {
        for (int i = 0; i < nd || i < decpt; i++) {
            if (i == decpt)
                out[o++] = '.';
            out[o++] = i < nd ? digits[i] : '0';
        }
    }
    out[o] = '\0';
    return util_print(buf, len, "%s", out);
}

int csv_put_number(FILE *f, double x)
{
    char s[40];
    if (csv_format_number(s, sizeof s, x))
        return -1;
    return fputs(s, f) < 0 ? -1 : 0;
}
