/* ncu.c — see ncu.h. */
#include "sys/ncu.h"

#include <langinfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

/* Each kernel's duration: percentages and ratios are weighted by it. */
#define TIME_COLUMN "gpu__time_duration.sum"

/* One CSV line split into fields: the unquoted text of every field lies in
 * buf, NUL-terminated, and f[0..n-1] point into it.  Reused line to line. */
struct row {
    char *buf;
    size_t buf_cap;
    char **f;
    int n;
    size_t f_cap;
};

/* What one metric adds up to over the kernels that hold a number for it. */
struct tally {
    double sum;                         /* of the values */
    double weighted;                    /* of value x kernel time */
    double weight;                      /* of the kernel times */
    int count;                          /* kernels with a number */
};

/* Appends a field starting at text.  Returns 0, or -1 when out of memory. */
static int row_add(struct row *r, char *text)
{
    char **f = util_grow(r->f, &r->f_cap, (size_t)r->n + 1, sizeof *f);
    if (!f)
        return -1;
    r->f = f;
    r->f[r->n++] = text;
    return 0;
}

/* Splits line[0..len) into r's fields, RFC 4180 style: a quote opens and
 * closes quoting, "" inside quotes is one quote, a comma outside quotes ends
 * a field, and a quote still open at the end closes there.  The unquoted text
 * is never longer than the line, so buf needs len + 1 bytes.  Returns 0, or
 * -1 when out of memory. */
static int row_split(struct row *r, const char *line, size_t len)
{
    if (len + 1 > r->buf_cap) {
        char *buf = realloc(r->buf, len + 1);
        if (!buf)
            return -1;
        r->buf = buf;
        r->buf_cap = len + 1;
    }
    size_t k = 0;
    int quoted = 0;
    r->n = 0;
    if (row_add(r, r->buf))
        return -1;
    for (size_t i = 0; i < len; i++) {
        char c = line[i];
        if (quoted) {
            if (c != '"')
                r->buf[k++] = c;
            else if (i + 1 < len && line[i + 1] == '"')
                r->buf[k++] = line[i++];
            else
                quoted = 0;
        } else if (c == '"') {
            quoted = 1;
        } else if (c == ',') {
            r->buf[k++] = '\0';
            if (row_add(r, r->buf + k))
                return -1;
        } else {
            r->buf[k++] = c;
        }
    }
    r->buf[k] = '\0';
    return 0;
}

static void row_free(struct row *r)
{
    free(r->buf);
    free(r->f);
}

/* Reads one of ncu's numbers: digit groups ("2,229,952") and blanks are
 * dropped, and the point is read as a point whatever the locale's radix (the
 * UI sets the user's locale).  Returns 0 with *out set, or -1 when the text
 * is not one finite number ("", "n/a", a kernel name). */
static int ncu_number(const char *text, double *out)
{
    const char *radix = nl_langinfo(RADIXCHAR);
    size_t rlen = radix && *radix ? strlen(radix) : 0, k = 0;
    char buf[128], *end;
    if (!rlen) {
        radix = ".";
        rlen = 1;
    }
    for (const char *p = text; *p; p++) {
        if (*p == ',' || *p == ' ' || *p == '\t')
            continue;
        const char *piece = *p == '.' ? radix : p;
        size_t plen = *p == '.' ? rlen : 1;
        if (k + plen >= sizeof buf)
            return -1;
        memcpy(buf + k, piece, plen);
        k += plen;
    }
    buf[k] = '\0';
    double v = strtod(buf, &end);
    if (!k || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* A percentage or a ratio is averaged over the kernels: a sum means nothing. */
static int is_mean(const char *name)
{
    return strstr(name, ".pct") || strstr(name, ".ratio");
}

/* The field of column c as a number, or -1 when the row lacks one there. */
static int row_number(const struct row *r, int c, double *out)
{
    return c >= 0 && c < r->n ? ncu_number(r->f[c], out) : -1;
}

int ncu_parse(const char *csv, const char *const *names, int n, double *values, int *found)
{
    struct row r = {0};
    struct tally *t = NULL;
    int *col = NULL, tcol = -1, seen = 0, kernels = 0;
    if (n < 0)
        n = 0;
    for (int i = 0; i < n; i++) {
        values[i] = 0;
        found[i] = 0;
    }
    if (!csv)
        return -1;
    if (!(col = malloc((size_t)(n ? n : 1) * sizeof *col)) ||
        !(t = calloc((size_t)(n ? n : 1), sizeof *t)))
        goto fail;
    if (!strncmp(csv, "\xEF\xBB\xBF", 3))                   /* a UTF-8 byte-order mark */
        csv += 3;
    for (const char *p = csv; *p;) {
        size_t len = strcspn(p, "\n");
        const char *next = p + len + (p[len] == '\n');
        if (len && p[len - 1] == '\r')
            len--;
        if (p[0] != '"' || ++seen == 2) {                   /* not CSV, or the units row */
            p = next;
            continue;
        }
        if (row_split(&r, p, len))
            goto fail;
        p = next;
        if (seen == 1) {                                    /* the header */
            for (int i = 0; i < n; i++) {
                col[i] = -1;
                for (int c = 0; names[i] && c < r.n && col[i] < 0; c++)
                    if (!strcmp(r.f[c], names[i]))
                        col[i] = c;
            }
            for (int c = 0; c < r.n && tcol < 0; c++)
                if (!strcmp(r.f[c], TIME_COLUMN))
                    tcol = c;
            continue;
        }
        double w, v;
        if (row_number(&r, tcol, &w) || w < 0)
            w = 0;
        kernels++;
        for (int i = 0; i < n; i++) {
            if (row_number(&r, col[i], &v))
                continue;
            t[i].sum += v;
            t[i].weighted += v * w;
            t[i].weight += w;
            t[i].count++;
        }
    }
    if (!seen)
        goto fail;
    for (int i = 0; i < n; i++) {
        if (!t[i].count)
            continue;
        found[i] = 1;
        if (!is_mean(names[i]))
            values[i] = t[i].sum;
        else if (t[i].weight > 0)
            values[i] = t[i].weighted / t[i].weight;
        else
            values[i] = t[i].sum / t[i].count;
    }
    free(col);
    free(t);
    row_free(&r);
    return kernels;
fail:
    for (int i = 0; i < n; i++) {
        values[i] = 0;
        found[i] = 0;
    }
    free(col);
    free(t);
    row_free(&r);
    return -1;
}
