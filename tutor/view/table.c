/* table.c — see table.h.  Widths are counted in code points, as the
 * documents count them: the workbook prints no wide characters. */
#include "view/table.h"

#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

void table_init(struct table *t, const struct table_col *cols, int ncols)
{
    memset(t, 0, sizeof *t);
    t->cols = cols;
    t->ncols = ncols;
}

void table_free(struct table *t)
{
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; t->rows[r].cells && c < t->ncols; c++)
            free(t->rows[r].cells[c]);
        free(t->rows[r].cells);
        free(t->rows[r].line);
    }
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* A fresh row at the end, or NULL (t->oom set) when out of memory. */
static struct table_row *grow(struct table *t)
{
    struct table_row *rows = util_grow(t->rows, &t->cap, (size_t)t->nrows + 1, sizeof *rows);
    if (!rows) {
        t->oom = 1;
        return NULL;
    }
    t->rows = rows;
    struct table_row *row = &t->rows[t->nrows];
    memset(row, 0, sizeof *row);
    return row;
}

void table_add(struct table *t, const char *const *cells)
{
    struct table_row *row = grow(t);
    if (!row)
        return;
    if (!(row->cells = calloc((size_t)t->ncols, sizeof *row->cells))) {
        t->oom = 1;
        return;
    }
    t->nrows++;
    for (int c = 0; c < t->ncols; c++)
        if (!(row->cells[c] = strdup(cells[c] ? cells[c] : "")))
            t->oom = 1;
}

void table_line(struct table *t, const char *text)
{
    struct table_row *row = grow(t);
    if (!row)
        return;
    if (!(row->line = strdup(text ? text : ""))) {
        t->oom = 1;
        return;
    }
    t->nrows++;
}

/* The columns s takes (NULL: none). */
static int cols_of(const char *s) { return s ? doc_width(s, strlen(s)) : 0; }

/* Whether the table has a heading row. */
static int has_heads(const struct table *t)
{
    for (int c = 0; c < t->ncols; c++)
        if (t->cols[c].head)
            return 1;
    return 0;
}

/* The width of a line of these column widths: every column but the last
 * as wide as it is, the last one as wide as its widest cell. */
static int line_width(const int *w, int n, int gap)
{
    int sum = 0;
    for (int c = 0; c < n; c++)
        sum += w[c] + (c + 1 < n ? gap : 0);
    return sum;
}

/* Appends text without its trailing blanks, cut to at most cols columns,
 * its last one a "…" when cut. */
static void add_cut(struct doc *d, char *text, int cols)
{
    size_t n = strlen(text);
    while (n && text[n - 1] == ' ')
        text[--n] = '\0';
    if (cols <= 0)
        return;
    if (cols_of(text) <= cols)
        doc_add(d, DOC_TEXT, text);
    else
        doc_addcell(d, DOC_TEXT, text, cols);
}

/* One row's cells into a line of its own, each column padded to its width or
 * cut to it (the last one only cut). */
static void row_text(const struct table *t, const char *const *cells, const int *w, int gap, struct doc *line)
{
    for (int c = 0; c < t->ncols; c++) {
        const char *s = cells[c] ? cells[c] : "";
        int have = cols_of(s), last = c + 1 == t->ncols;
        if (have > w[c]) {
            doc_addcell(line, DOC_TEXT, s, w[c]);
        } else if (t->cols[c].align == TABLE_RIGHT) {
            doc_addf(line, DOC_TEXT, "%*s%s", w[c] - have, "", s);
        } else {
            doc_add(line, DOC_TEXT, s);
            if (!last)
                doc_addf(line, DOC_TEXT, "%*s", w[c] - have, "");
        }
        if (!last)
            doc_addf(line, DOC_TEXT, "%*s", gap, "");
    }
}

void table_draw(const struct table *t, struct doc *d, int width, int gap)
{
    int *w = calloc((size_t)(t->ncols ? t->ncols : 1), sizeof *w);
    const char **heads = calloc((size_t)(t->ncols ? t->ncols : 1), sizeof *heads);
    if (!w || !heads) {
        free(w);
        free(heads);
        return;
    }
    for (int c = 0; c < t->ncols; c++) {
        heads[c] = t->cols[c].head ? t->cols[c].head : "";
        w[c] = cols_of(heads[c]);
    }
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; t->rows[r].cells && c < t->ncols; c++)
            if (cols_of(t->rows[r].cells[c]) > w[c])
                w[c] = cols_of(t->rows[r].cells[c]);
    /* Too wide: the columns that may give way do, the last first, each down
     * to its least; what is still too wide is cut at the edge below. */
    for (int c = t->ncols - 1; c >= 0 && line_width(w, t->ncols, gap) > width; c--) {
        int over = line_width(w, t->ncols, gap) - width;
        if (t->cols[c].least > 0 && w[c] > t->cols[c].least)
            w[c] -= over < w[c] - t->cols[c].least ? over : w[c] - t->cols[c].least;
    }
    for (int r = -1; r < t->nrows; r++) {
        struct doc line;
        if (r < 0 && !has_heads(t))
            continue;
        doc_init(&line);
        if (r >= 0 && !t->rows[r].cells)
            doc_add(&line, DOC_TEXT, t->rows[r].line);
        else
            row_text(t, r < 0 ? heads : (const char *const *)t->rows[r].cells, w, gap, &line);
        doc_newline(d);
        if (line.nlines)
            add_cut(d, line.lines[0].text, width);
        doc_free(&line);
    }
    free(w);
    free(heads);
}
