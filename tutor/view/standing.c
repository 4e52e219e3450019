/* standing.c — see standing.h.  The page is a table of fixed columns; the
 * date of the first pass is the one column that waits for a wide screen,
 * so that 80 columns hold the rest whole. */
#include "view/standing.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The table's columns: name, width. */
#define STANDING_COLS(X)          \
    X(COL_LAB, "lab", 3)          \
    X(COL_STATE, "state", 10)     \
    X(COL_CHECKS, "attempts", 8)  \
    X(COL_HINTS, "hints", 5)      \
    X(COL_BEST, "best", 24)       \
    X(COL_LAST, "last", 13)       \
    X(COL_FIRST, "first pass", 10)

enum standing_col {
#define STANDING_ENUM_(e, name, w) e,
    STANDING_COLS(STANDING_ENUM_)
#undef STANDING_ENUM_
    COL_COUNT
};

static const struct {
    const char *name;
    int width;
} cols[COL_COUNT] = {
#define STANDING_COL_(e, name, w) [e] = {name, w},
    STANDING_COLS(STANDING_COL_)
#undef STANDING_COL_
};

#define COL_GAP 2

void standing_summary(const struct catalog *cat, const struct progress *p, int unlock_all, const char *path,
                      char *buf, size_t len)
{
    /* The core labs are the workbook; the bonus ones are counted apart. */
    int passed[2] = {0, 0}, count[2] = {0, 0};
    for (int i = 0; i < cat->nlabs; i++) {
        int b = cat->labs[i].bonus != 0;
        count[b]++;
        passed[b] += progress_state(p, cat, i, unlock_all) >= LAB_PASSED;
    }
    int n = snprintf(buf, len, "%s: %d of %d labs passed", path, passed[0], count[0]);
    if (count[1] && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; bonus: %d of %d", passed[1], count[1]);
}

void standing_best(const struct progress_lab *pl, char *buf, size_t len)
{
    if (pl && pl->best.have && pl->best.gbps >= 0)
        snprintf(buf, len, "%.0f GB/s, %.2fx ref", pl->best.gbps, pl->best.ratio);
    else if (pl && pl->best.have)
        snprintf(buf, len, "%.4g %s, %.2fx ref", pl->best.rate, pl->best.rate_unit, pl->best.ratio);
    else
        snprintf(buf, len, "-");
}

/* Columns 0..last fit in width (with the row's two leading spaces). */
static int table_width(int last)
{
    int w = 0;
    for (int c = 0; c <= last; c++)
        w += COL_GAP + cols[c].width;
    return w;
}

static void cell(struct doc *d, enum doc_style st, const char *text, enum standing_col c, int right)
{
    int w = doc_width(text, strlen(text));
    doc_add(d, DOC_TEXT, "  ");
    if (right && w < cols[c].width)
        doc_addf(d, DOC_TEXT, "%*s", cols[c].width - w, "");
    doc_addcell(d, st, text, right && w < cols[c].width ? w : cols[c].width);
}

/* Appends to buf (of len > 0, holding n bytes) what fmt says, clipped;
 * returns the bytes it then holds. */
__attribute__((format(printf, 4, 5))) static size_t add(char *buf, size_t len, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = n < len ? vsnprintf(buf + n, len - n, fmt, ap) : 0;
    va_end(ap);
    n += k > 0 ? (size_t)k : 0;
    return n < len ? n : len - 1;
}

void standing_change(const struct catalog *cat, const struct progress_change *c, char *buf, size_t len)
{
    size_t n = 0;
    if (!len)
        return;
    buf[0] = '\0';
    if (!cat || c->lab < 0 || c->lab >= cat->nlabs)
        return;
    if (c->now > c->was && c->now >= LAB_PASSED)
        n = add(buf, len, n, "Lab %s %s.", cat->labs[c->lab].id,
                c->now == LAB_ON_TARGET ? "passed and on target" : "passed");
    if (c->nopened == 0)
        return;
    n = add(buf, len, n, "%s%s", n ? "  " : "", c->nopened > 1 ? "Labs " : "Lab ");
    /* Runs of labs next to each other in the catalog, of one kind (core or
     * bonus): "09", "11 to 15 (bonus)", joined by commas and a last "and". */
    int nruns = 0, run_start[PROGRESS_OPENED_MAX], run_end[PROGRESS_OPENED_MAX];
    for (int i = 0; i < c->nopened; i++) {
        int k = c->opened[i];
        if (nruns && k == c->opened[i - 1] + 1 && cat->labs[k].bonus == cat->labs[run_start[nruns - 1]].bonus)
            run_end[nruns - 1] = k;
        else {
            run_start[nruns] = run_end[nruns] = k;
            nruns++;
        }
    }
    for (int r = 0; r < nruns; r++) {
        const struct lab *a = &cat->labs[run_start[r]], *b = &cat->labs[run_end[r]];
        n = add(buf, len, n, "%s%s", r == 0 ? "" : r == nruns - 1 ? " and " : ", ", a->id);
        if (b != a)
            n = add(buf, len, n, " to %s", b->id);
        if (a->bonus)
            n = add(buf, len, n, " (bonus)");
    }
    add(buf, len, n, "%s", c->nopened > 1 ? " are open." : " is open.");
}

void standing_page(struct doc *d, const struct catalog *cat, const struct progress *p, int unlock_all,
                   const char *path, int width)
{
    char line[1200], num[32], best[64];
    struct doc_para para = {0};
    int last = table_width(COL_FIRST) <= width ? COL_FIRST : COL_LAST, hints = 0;

    doc_newline(d);
    doc_add(d, DOC_H1, "Your progress");
    doc_newline(d);
    standing_summary(cat, p, unlock_all, path, line, sizeof line);
    doc_para_add(&para, DOC_TEXT, line, strlen(line));
    doc_flow(d, &para, width, "", DOC_TEXT);
    doc_newline(d);
    doc_newline(d);
    for (int c = 0; c <= last; c++)
        cell(d, DOC_STRONG, cols[c].name, (enum standing_col)c, c == COL_CHECKS || c == COL_HINTS);
    for (int i = 0; i < cat->nlabs; i++) {
        const struct lab *l = &cat->labs[i];
        const struct progress_lab *pl = progress_find(p, l->id);
        enum lab_state st = progress_state(p, cat, i, unlock_all);
        enum doc_style sst = st >= LAB_PASSED ? DOC_GOOD : st == LAB_LOCKED ? DOC_DIM : DOC_TEXT;
        hints += pl ? pl->hints_used : 0;
        doc_newline(d);
        cell(d, DOC_STRONG, l->id, COL_LAB, 0);
        cell(d, sst, progress_state_label(pl, st), COL_STATE, 0);
        snprintf(num, sizeof num, "%d", pl ? pl->attempts : 0);
        cell(d, DOC_TEXT, num, COL_CHECKS, 1);
        snprintf(num, sizeof num, "%d", pl ? pl->hints_used : 0);
        cell(d, DOC_TEXT, num, COL_HINTS, 1);
        standing_best(pl, best, sizeof best);
        cell(d, DOC_TEXT, best, COL_BEST, 0);
        cell(d, DOC_TEXT, pl && pl->last_status[0] ? pl->last_status : "-", COL_LAST, 0);
        if (last == COL_FIRST) {
            /* The date is enough on a screen; the command prints the time. */
            snprintf(num, sizeof num, "%.10s", pl && pl->first_pass[0] ? pl->first_pass : "-");
            cell(d, DOC_TEXT, num, COL_FIRST, 0);
        }
    }
    doc_newline(d);
    doc_newline(d);
    snprintf(line, sizeof line, "Hints used: %d in all (recorded, never graded).  \"attempts\" counts the "
             "checks of each lab's own kernel.cu; \"best\" is its fastest timed pass, against the baseline.  "
             "cudatutor progress prints the same.", hints);
    doc_para_add(&para, DOC_TEXT, line, strlen(line));
    doc_flow(d, &para, width, "", DOC_TEXT);
    doc_para_free(&para);
}
