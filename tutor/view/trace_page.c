/* trace_page.c — a step of trace.h drawn as a page for a terminal of
 * 80x24: a heading, the step's rows (a lane a column), the source lines
 * they ran, the stop's sentence on the last step, and the legend or the
 * picked row's words; styled lines for the tutor, text with or without
 * ANSI colours for the command line. */
#include "view/trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/doc.h"

static int cmp_line(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* ---- the page ---------------------------------------------------------------------- */

/* A line of the page: its text in one style (a new line of D). */
static void put(struct doc *d, enum doc_style s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(struct doc *d, enum doc_style s, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    doc_newline(d);
    doc_add(d, s, line);
}

/* LEAD and TEXT flowed into at most MAX lines of TRACE_WIDTH - 1 columns,
 * broken at spaces; what does not fit is cut. */
static void put_wrapped(struct doc *d, enum doc_style s, const char *lead, const char *text, int max)
{
    const char *p = text;
    for (int i = 0; i < max && *p; i++) {
        size_t room = TRACE_WIDTH - 1 - (i ? 2 : strlen(lead)), n = strlen(p);
        if (n > room) {
            n = room;
            while (n > room / 2 && p[n] != ' ')
                n--;
            if (p[n] != ' ')
                n = room;
        }
        put(d, s, "%s%.*s", i ? "  " : lead, (int)n, p);
        p += n;
        while (*p == ' ')
            p++;
    }
}

/* Whether row R's source line is in the kernel LOOK shows. */
static int ours(const struct trace_row *r, const struct trace_look *look)
{
    return r->line && look->source && look->source_name && r->file && !strcmp(r->file, look->source_name);
}

int trace_page_doc(const struct trace *t, int k, const struct trace_look *look, struct doc *d)
{
    static const enum doc_style styles[] = {[TRACE_PLAIN] = DOC_TEXT, [TRACE_BAD] = DOC_BAD,
                                            [TRACE_WARN] = DOC_WARN};
    static struct trace_step st;
    unsigned lines[8];
    int nlines = 0, height = look->height > 0 ? look->height : TRACE_HEIGHT, start = d->nlines;
    if (trace_step(t, k, &st))
        return -1;
    int stop_lines = st.step == st.steps && look->stopped ? 3 : 0;
    int cursor = look->cursor > 0 && look->cursor <= st.nrows ? look->cursor : 0;
    const struct trace_row *picked = cursor ? &st.rows[cursor - 1] : NULL;

    put(d, DOC_STRONG, "trace %s: %.24s<<<%u,%u>>> n=%llu, launch %d of %d, block 0, step %d of %d", look->lab,
        st.kernel, st.blocks, st.threads, look->n, st.launch, st.launches, st.step, st.steps);
    char from[40], to[40];
    snprintf(from, sizeof from, st.open ? "after the barrier at line %u" : "from the start", st.open);
    snprintf(to, sizeof to, st.close ? "up to the next at line %u" : "to the end", st.close);
    put(d, DOC_TEXT, "%s, %s (%u warps)", from, to, (st.threads + 31) / 32);
    put(d, DOC_DIM, "line warps  op  0       8       16      24      31  what");
    for (int r = 0; r < st.nrows && nlines < 8; r++) {
        int j = 0;
        while (j < nlines && lines[j] != st.rows[r].line)
            j++;
        if (j == nlines && ours(&st.rows[r], look))
            lines[nlines++] = st.rows[r].line;
    }
    qsort(lines, (size_t)nlines, sizeof lines[0], cmp_line);
    int src_room = nlines < 4 ? nlines : 4;
    int room = height - 4 - stop_lines - src_room - 1;
    if (room < 1)
        room = 1;
    if (!st.nrows)
        put(d, DOC_DIM, "     (no shared or global access, divergent branch or barrier in block 0 here)");
    /* the rows in sight: from the top, or ending at the picked one */
    int first = cursor > room ? cursor - room : 0, shown = 0;
    for (int r = first; r < st.nrows && shown < room; r++, shown++) {
        const struct trace_row *row = &st.rows[r];
        enum doc_style s = row == picked ? DOC_MARK : DOC_TEXT;
        char head[64];
        snprintf(head, sizeof head, "%4u %-6s %-3s %s ", row->line, row->warps, row->op, row->lanes);
        if (row == picked)
            head[0] = '>';
        doc_newline(d);
        doc_add(d, s, head);
        doc_add(d, row == picked ? DOC_MARK : styles[row->mark], row->note);
    }
    int left = st.more + st.nrows - shown;
    if (left)
        put(d, DOC_DIM, "     ... %d more row%s in this step", left, left == 1 ? "" : "s");
    int src_left = height - 1 - stop_lines - (d->nlines - start);
    for (int i = 0; i < nlines && i < src_left; i++) {
        char text[80];
        trace_source_line(look->source, lines[i], text, sizeof text);
        doc_newline(d);
        doc_addf(d, picked && picked->line == lines[i] ? DOC_MARK : DOC_DIM, "%4u | ", lines[i]);
        doc_addf(d, picked && picked->line == lines[i] ? DOC_MARK : DOC_TEXT, "%.73s", text);
    }
    if (stop_lines)
        put_wrapped(d, DOC_BAD, "stopped here: ", look->stopped, stop_lines);
    if (picked) {
        int on = 0, idle = 0;
        char said[256], idled[24] = "";
        for (int i = 0; i < 32; i++) {
            on += picked->lanes[i] != '.' && picked->lanes[i] != '-';
            idle += picked->lanes[i] == '-';
        }
        if (idle)
            snprintf(idled, sizeof idled, ", %d idle", idle);
        /* a branch's note counts its lanes itself */
        if (picked->branch)
            snprintf(said, sizeof said, "> %u %s %s: %s", picked->line, picked->warps, picked->op, picked->note);
        else
            snprintf(said, sizeof said, "> %u %s %s, %d lanes%s: %s", picked->line, picked->warps, picked->op, on,
                     idled, picked->detail[0] ? picked->detail : picked->note);
        /* too long: the warps that fit, whole, and "..." */
        if (strlen(said) > TRACE_WIDTH - 1) {
            char *cut = said + TRACE_WIDTH - 6;
            while (cut > said && strncmp(cut, "; ", 2))
                cut--;
            snprintf(cut > said ? cut : said + TRACE_WIDTH - 6, 6, "; ...");
        }
        put(d, DOC_MARK, "%s", said);
    } else {
        put(d, DOC_DIM, "r w shared read/write  R W global  > jumps  | barrier  - idle at it  . elsewhere");
    }
    return 0;
}

char *trace_page(const struct trace *t, int k, const struct trace_look *look)
{
    static const char *const ansi[DOC_STYLE_COUNT] = {[DOC_BAD] = "\033[31m", [DOC_WARN] = "\033[33m",
                                                      [DOC_MARK] = "\033[7m"};
    struct doc d;
    size_t cap = 1, len = 0;
    char *out = NULL;
    doc_init(&d);
    if (trace_page_doc(t, k, look, &d) || d.oom)
        goto out;
    for (int i = 0; i < d.nlines; i++)
        cap += d.lines[i].len * 10 + 8;
    if (!(out = malloc(cap)))
        goto out;
    for (int i = 0; i < d.nlines; i++) {
        const struct doc_line *l = &d.lines[i];
        const char *on = NULL;
        for (size_t b = 0; b < l->len; b++) {
            const char *want = look->color ? ansi[l->style[b]] : NULL;
            if (want != on) {
                len += (size_t)sprintf(out + len, "%s%s", on ? "\033[0m" : "", want ? want : "");
                on = want;
            }
            out[len++] = l->text[b];
        }
        len += (size_t)sprintf(out + len, "%s\n", on ? "\033[0m" : "");
    }
    out[len] = '\0';
out:
    doc_free(&d);
    return out;
}
