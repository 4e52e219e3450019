/* sheet.c — see sheet.h.  Section order follows a check's stages, so the
 * first thing that went wrong is the first thing a student reads. */
#include "view/sheet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/lesson.h"
#include "sys/util.h"
#include "view/verdict.h"

#define MAX_FAILED_SHOWN 8
#define MAX_LOG_LINES 20

static void heading(struct doc *d, const char *title)
{
    doc_newline(d);
    doc_newline(d);
    doc_add(d, DOC_H2, title);
}

/* A paragraph of Markdown-ish text flowed under a prefix. */
static void para(struct doc *d, const char *text, enum doc_style base, int width, const char *prefix)
{
    struct doc_para p = {0};
    lesson_inline(&p, text, strlen(text), base);
    if (p.len)
        doc_flow(d, &p, width, prefix, DOC_DIM);
    doc_para_free(&p);
}

static enum doc_style status_style(enum status s)
{
    return s == STATUS_PASS ? DOC_GOOD : s == STATUS_NO_GPU ? DOC_WARN : DOC_BAD;
}

/* "label value" on the current line after three spaces, or at the start of
 * a new one (first, or when the pair would not fit in width): a seed or a
 * path is never cut at the screen's edge, where a student would copy the
 * wrong value. */
static void field(struct doc *d, const char *label, const char *value, int width, int first)
{
    const struct doc_line *l = d->nlines ? &d->lines[d->nlines - 1] : NULL;
    int used = l ? doc_width(l->text, l->len) : 0;
    int need = 3 + doc_width(label, strlen(label)) + 1 + doc_width(value, strlen(value));
    if (need - 1 > width) {
        /* Longer than a line of its own (the emulator's device): flowed at
         * spaces, under its label. */
        char prefix[64];
        struct doc_para p = {0};
        snprintf(prefix, sizeof prefix, "  %s ", label);
        doc_para_add(&p, DOC_TEXT, value, strlen(value));
        doc_flow(d, &p, width, prefix, DOC_DIM);
        doc_para_free(&p);
        return;
    }
    if (first || !l || used + need > width) {
        if (l && l->len)
            doc_newline(d);
        doc_add(d, DOC_TEXT, "  ");
    } else {
        doc_add(d, DOC_TEXT, "   ");
    }
    doc_add(d, DOC_DIM, label);
    doc_add(d, DOC_DIM, " ");
    doc_add(d, DOC_TEXT, value);
}

/* Line n (1-based) of src, without its newline; len 0 when there is none. */
static const char *source_line(const char *src, int n, size_t *len)
{
    for (int i = 1; src && *src; i++) {
        const char *eol = strchr(src, '\n');
        if (i == n) {
            *len = eol ? (size_t)(eol - src) : strlen(src);
            return src;
        }
        if (!eol)
            break;
        src = eol + 1;
    }
    *len = 0;
    return NULL;
}

static void quote_line(struct doc *d, const char *src, int n, enum doc_style st)
{
    size_t len;
    const char *l = source_line(src, n, &len);
    if (!l)
        return;
    doc_newline(d);
    doc_addf(d, DOC_DIM, "  %5d │ ", n);
    /* Tabs would break the column count. */
    for (size_t i = 0; i < len; i++)
        doc_addn(d, st, l[i] == '\t' ? "    " : l + i, l[i] == '\t' ? 4 : 1);
}

/* How a line of C ends, for finding the statement around a diagnostic:
 * blank (or only a comment), a boundary (ends with ; { } or is a
 * preprocessor line: nothing before it belongs to what follows), or open
 * (the statement goes on below, or its ";" is missing). */
enum line_end { LINE_BLANK, LINE_BOUNDARY, LINE_OPEN };

static enum line_end line_end(const char *l, size_t len)
{
    size_t a = 0, z = len;
    while (a < z && (l[a] == ' ' || l[a] == '\t'))
        a++;
    /* A trailing // comment does not end the statement. */
    for (size_t i = a; i + 1 < z; i++)
        if (l[i] == '/' && l[i + 1] == '/') {
            z = i;
            break;
        }
    while (z > a && (l[z - 1] == ' ' || l[z - 1] == '\t' || l[z - 1] == '\r'))
        z--;
    if (z == a || l[a] == '*' || (z - a >= 2 && l[a] == '/' && l[a + 1] == '*'))
        return LINE_BLANK;
    if (l[a] == '#')
        return LINE_BOUNDARY;
    char c = l[z - 1];
    return c == ';' || c == '{' || c == '}' || (c == '/' && z - a >= 2 && l[z - 2] == '*') ? LINE_BOUNDARY : LINE_OPEN;
}

/* The lines [*first, *last] of the statement a diagnostic on line n is
 * about.  A compiler names the line where it noticed the mistake, which
 * is often below it: a missing ";" is reported on the next statement,
 * a bad argument on the last line of a call.  So the span reaches back
 * over blank and comment lines to every line that did not end its
 * statement, and down to the line that ends the one at n. */
#define SPAN_BACK 6
#define SPAN_DOWN 4

static void statement_span(const char *src, int n, int *first, int *last)
{
    size_t len;
    const char *l;
    *first = *last = n;
    for (int i = n - 1, code = 0; i >= 1 && code < SPAN_BACK; i--) {
        if (!(l = source_line(src, i, &len)))
            break;
        enum line_end e = line_end(l, len);
        if (e == LINE_BOUNDARY)
            break;
        if (e == LINE_OPEN) {
            *first = i;
            code++;
        }
    }
    for (int i = n; i < n + SPAN_DOWN && (l = source_line(src, i, &len)); i++) {
        *last = i;
        if (line_end(l, len) != LINE_OPEN)
            break;
    }
}

/* Quotes the statement around line n, n itself marked, with a line of
 * context either side. */
static void quote_statement(struct doc *d, const char *src, int n)
{
    int first, last;
    statement_span(src, n, &first, &last);
    quote_line(d, src, first - 1, DOC_DIM);
    for (int i = first; i <= last; i++)
        quote_line(d, src, i, i == n ? DOC_MARK : DOC_TEXT);
    quote_line(d, src, last + 1, DOC_DIM);
}

int sheet_same_file(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la < lb) {
        const char *t = a;
        a = b, b = t;
        la = strlen(a), lb = strlen(b);
    }
    /* nvcc names the file as given to it, often absolute; the verdict names
     * it relative to the workbook. */
    return lb && !strcmp(a + la - lb, b) && (la == lb || a[la - lb - 1] == '/');
}

/* The compiler's warnings about the student's file, right under the
 * verdict: one may be its cause.  A compile error lists them among its
 * errors instead (compile_section). */
static void warnings_beside(struct doc *d, const struct result *r, const char *src, int width)
{
    for (int i = 0; r->status != STATUS_COMPILE_ERROR && i < r->ndiags; i++) {
        const struct rdiag *g = &r->diags[i];
        char where[32];
        struct doc_para p = {0};
        if (strcmp(g->severity, "warning"))
            continue;
        snprintf(where, sizeof where, " line %d: ", g->line);
        doc_para_add(&p, DOC_WARN, "warning", 7);
        doc_para_add(&p, DOC_STRONG, where, strlen(where));
        doc_para_add(&p, DOC_TEXT, g->message, strlen(g->message));
        doc_flow(d, &p, width, "  ", DOC_TEXT);
        doc_para_free(&p);
        if (src && g->line > 0)
            quote_line(d, src, g->line, DOC_MARK);
    }
}

static void compile_section(struct doc *d, const struct result *r, const char *src, int width)
{
    if (r->status != STATUS_COMPILE_ERROR)
        return;
    heading(d, "Compile");
    for (int i = 0; i < r->ndiags; i++) {
        const struct rdiag *g = &r->diags[i];
        int is_error = strncmp(g->severity, "warning", 7) != 0;
        char where[600];
        struct doc_para p = {0};
        snprintf(where, sizeof where, "%s:%d", g->file, g->line);
        doc_para_add(&p, DOC_STRONG, where, strlen(where));
        doc_para_add(&p, DOC_TEXT, ": ", 2);
        doc_para_add(&p, is_error ? DOC_BAD : DOC_WARN, g->severity, strlen(g->severity));
        doc_para_add(&p, DOC_TEXT, ": ", 2);
        doc_para_add(&p, DOC_TEXT, g->message, strlen(g->message));
        doc_flow(d, &p, width, "  ", DOC_TEXT);
        doc_para_free(&p);
        if (src && sheet_same_file(g->file, r->file) && g->line > 0)
            quote_statement(d, src, g->line);
    }
    if (!r->ndiags && r->compile_log[0]) {
        int n = 0;
        for (const char *l = r->compile_log; *l && n < MAX_LOG_LINES; n++) {
            const char *eol = strchr(l, '\n');
            size_t len = eol ? (size_t)(eol - l) : strlen(l);
            doc_newline(d);
            doc_add(d, DOC_TEXT, "  ");
            doc_addn(d, DOC_DIM, l, len);
            l += len + (eol ? 1 : 0);
        }
    }
}

static void rules_section(struct doc *d, const struct result *r, int width)
{
    if (!r->nviol)
        return;
    heading(d, "Rules");
    for (int i = 0; i < r->nviol; i++) {
        doc_newline(d);
        doc_add(d, DOC_TEXT, "  ");
        doc_add(d, DOC_BAD, r->viol_symbols[i]);
        para(d, r->viol_rules[i], DOC_TEXT, width, "      ");
    }
}

static void tests_section(struct doc *d, const struct result *r, int width)
{
    int passed = 0, shown = 0;
    if (!r->ntests)
        return;
    for (int i = 0; i < r->ntests; i++)
        passed += r->tests[i].pass;
    heading(d, "Correctness");
    doc_newline(d);
    doc_addf(d, passed == r->ntests ? DOC_GOOD : DOC_BAD, "  %d/%d sizes passed", passed, r->ntests);
    /* After a crash or the time limit, the list is what ran before it. */
    int stopped = r->status == STATUS_RUNTIME_ERROR || r->status == STATUS_TIMEOUT;
    if (stopped)
        doc_add(d, DOC_TEXT, " before the run stopped");
    if (r->first_failing_n) {
        doc_add(d, DOC_TEXT, "; smallest failing n = ");
        doc_addf(d, DOC_STRONG, "%llu", r->first_failing_n);
    } else if (passed == r->ntests && !stopped) {
        doc_addf(d, DOC_DIM, " (n = %llu to %llu)", r->tests[0].n, r->tests[r->ntests - 1].n);
    }
    for (int i = 0; i < r->ntests && shown < MAX_FAILED_SHOWN; i++) {
        const struct rtest *t = &r->tests[i];
        if (t->pass)
            continue;
        shown++;
        doc_newline(d);
        doc_add(d, DOC_BAD, "  ✗ ");
        doc_addf(d, DOC_STRONG, "%-12s", t->name);
        if (t->expected[0]) {
            doc_add(d, DOC_TEXT, " expected ");
            doc_add(d, DOC_GOOD, t->expected);
            doc_add(d, DOC_TEXT, ", got ");
            doc_add(d, DOC_BAD, t->got);
        }
        if (t->message[0])
            para(d, t->message, DOC_TEXT, width, "      ");
    }
    if (passed + shown < r->ntests) {
        doc_newline(d);
        doc_addf(d, DOC_DIM, "    ... and %d more failing sizes", r->ntests - passed - shown);
    }
}

/* Whether the target is judged on this case as well as its first. */
static int target_also_has(const struct result *r, const char *label)
{
    for (int i = 0; i < r->ntarget_also; i++)
        if (!strcmp(r->target_also[i].case_label, label))
            return 1;
    return 0;
}

static void perf_section(struct doc *d, const struct result *r)
{
    const struct rperf *tp = result_target_perf(r);
    if (!r->nperf)
        return;
    heading(d, "Timing");
    doc_newline(d);
    if (r->perf[0].gbps >= 0)
        doc_addf(d, DOC_DIM, "  %-8s %10s %10s %8s %8s", "case", "ms", "GB/s", "% peak", "× ref");
    else    /* compute bound: a rate instead of a bandwidth */
        doc_addf(d, DOC_DIM, "  %-8s %10s %10s %8s %8s", "case", "ms", "rate", "", "× ref");
    for (int i = 0; i < r->nperf; i++) {
        const struct rperf *p = &r->perf[i];
        doc_newline(d);
        doc_addf(d, DOC_TEXT, "  %-8s %10.3f ", p->label, p->median_ms);
        if (p->gbps >= 0)
            doc_addf(d, DOC_STRONG, "%10.0f", p->gbps);
        else
            doc_addf(d, DOC_STRONG, "%10.4g", p->rate);
        if (p->pct_peak >= 0)
            doc_addf(d, DOC_TEXT, " %7.0f%%", p->pct_peak);
        else
            doc_addf(d, DOC_DIM, " %8s", p->rate_unit);
        doc_addf(d, DOC_STRONG, " %7.2fx", p->ratio);
        if (p == tp || target_also_has(r, p->label))
            doc_add(d, DOC_DIM, "  ← target");
        if (p->implausible)
            doc_addf(d, DOC_WARN, "  implausible: %s",
                     p->implausible_why[0] ? p->implausible_why : "faster than the measured peak");
    }
    doc_newline(d);
    doc_addf(d, DOC_DIM, "  median of %d runs (%d at the target); × ref = %s's time / yours",
             r->perf[0].samples, tp ? tp->samples : 0, r->perf[0].ref_name[0] ? r->perf[0].ref_name : "the baseline");
}

/* The threshold in verdict.c's words, and why it is not the catalog's. */
static void target_section(struct doc *d, const struct result *r, int width)
{
    const struct rperf *tp = result_target_perf(r);
    int pct = !strcmp(r->target_metric ? r->target_metric : "", "pct_peak");
    char what[256], note[512];
    if (!r->have_target || r->status != STATUS_PASS)
        return;
    heading(d, "Target");
    doc_newline(d);
    verdict_target(what, sizeof what, r);
    doc_addf(d, DOC_TEXT, "  %s: ", what);
    doc_add(d, tp && r->target_met ? DOC_GOOD : DOC_WARN, result_target_words(r));
    if (tp && r->ntarget_also) {
        /* Each case's figure: on a line of its own, wrapped. */
        char got[256], *line;
        verdict_target_measured(got, sizeof got, r);
        line = util_format("measured %s", got);
        if (line)
            para(d, line, DOC_TEXT, width, "  ");
        free(line);
    } else if (tp) {
        doc_addf(d, DOC_TEXT, pct ? " (%.0f%%)" : " (%.3g)", pct ? 100 * r->target_value : r->target_value);
    }
    verdict_target_note(note, sizeof note, r);
    if (note[0])
        para(d, note, DOC_TEXT, width, "  ");
}

static void checks_section(struct doc *d, const struct result *r, int width)
{
    if (r->ntech) {
        heading(d, "Technique");
        for (int i = 0; i < r->ntech; i++) {
            doc_newline(d);
            doc_add(d, r->tech[i].found ? DOC_GOOD : DOC_BAD, r->tech[i].found ? "  ✓ " : "  ✗ ");
            doc_add(d, DOC_STRONG, r->tech[i].name);
            doc_add(d, r->tech[i].found ? DOC_GOOD : DOC_BAD, r->tech[i].found ? ": found" : ": missing");
            if (!r->tech[i].found && r->tech[i].why[0])
                para(d, r->tech[i].why, DOC_TEXT, width, "      ");
        }
    }
    if (r->sanitizer_ran) {
        heading(d, "Race check");
        for (int i = 0; i < r->nsan; i++) {
            doc_newline(d);
            doc_add(d, r->san[i].clean ? DOC_GOOD : DOC_BAD, r->san[i].clean ? "  ✓ " : "  ✗ ");
            doc_addf(d, DOC_STRONG, "%-10s", r->san[i].tool);
            doc_add(d, r->san[i].clean ? DOC_GOOD : DOC_BAD, r->san[i].clean ? " clean" : " found problems");
            if (!r->san[i].clean && r->san[i].report[0]) {
                doc_newline(d);
                doc_add(d, DOC_DIM, r->san[i].report);
            }
        }
    } else if (r->sanitizer_note && r->sanitizer_note[0]) {
        heading(d, "Race check");
        para(d, r->sanitizer_note, DOC_DIM, width, "  ");
    }
}

static void notes_section(struct doc *d, const struct result *r, int width)
{
    if (r->nmsgs) {
        heading(d, "Notes");
        for (int i = 0; i < r->nmsgs; i++)
            para(d, r->messages[i], DOC_TEXT, width, "  • ");
    }
    if (r->output[0] &&
        (r->status == STATUS_FAIL || r->status == STATUS_RUNTIME_ERROR || r->status == STATUS_TIMEOUT)) {
        heading(d, "Output of the run");
        doc_newline(d);
        doc_add(d, DOC_BLOCK, r->output);
    }
}

void sheet_result(struct doc *d, const struct result *r, const struct lab *lab, const char *src, int width)
{
    char upper[32];
    size_t i;
    const char *name = status_name(r->status);
    for (i = 0; name[i] && i + 1 < sizeof upper; i++)
        upper[i] = name[i] == '_' ? ' ' : (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
    upper[i] = '\0';

    doc_newline(d);
    doc_addf(d, status_style(r->status), " %s ", upper);
    doc_add(d, DOC_TEXT, "  ");
    char head[512];
    result_headline(r, head, sizeof head);
    doc_add(d, DOC_STRONG, head);
    doc_newline(d);
    if (result_detail(r)[0])
        para(d, result_detail(r), DOC_TEXT, width, "  ");
    result_picture(r, lab, head, sizeof head);
    if (head[0])
        para(d, head, DOC_STRONG, width, "  ");
    if (r->status == STATUS_NO_GPU)
        para(d, "Your kernel compiled and follows the rules of `lab.h`, but this machine has no CUDA device, "
                "so nothing was run or timed.  Check it on a machine with an NVIDIA GPU.",
             DOC_TEXT, width, "  ");
    char text[1400];
    verdict_gpu_via(text, sizeof text, r);
    if (text[0])
        para(d, text, DOC_WARN, width, "  ");
    warnings_beside(d, r, src, width);
    doc_newline(d);
    doc_newline(d);
    snprintf(text, sizeof text, "%s (%s)", r->lab, r->family);
    field(d, "lab", text, width, 1);
    field(d, "file", r->file, width, 0);
    snprintf(text, sizeof text, "%llu", r->seed);
    field(d, "seed", text, width, 0);
    if (r->have_device) {
        verdict_device(text, sizeof text, r);
        field(d, "device", text, width, 1);
        verdict_peak(text, sizeof text, r);
        if (text[0])
            field(d, "measured peak", text, width, 0);
    }
    compile_section(d, r, src, width);
    rules_section(d, r, width);
    tests_section(d, r, width);
    perf_section(d, r);
    target_section(d, r, width);
    checks_section(d, r, width);
    notes_section(d, r, width);
    if (r->total_s > 0) {
        doc_newline(d);
        doc_newline(d);
        doc_addf(d, DOC_DIM, "  took %.1f s (compile %.1f s, run %.1f s, race check %.1f s)", r->total_s,
                 r->compile_s, r->run_s, r->sanitize_s);
    }
}

void sheet_hints(struct doc *d, const struct lab *lab, int shown, int fresh, int width)
{
    if (shown > CATALOG_HINTS)
        shown = CATALOG_HINTS;
    doc_newline(d);
    doc_addf(d, DOC_H1, "Hints for lab %s: %s", lab->id, lab->title);
    for (int k = 1; k <= shown; k++) {
        doc_newline(d);
        doc_newline(d);
        doc_addf(d, DOC_H2, "Hint %d of %d", k, CATALOG_HINTS);
        if (k == shown && fresh)
            doc_add(d, DOC_WARN, "  (new)");
        doc_newline(d);
        para(d, lab->hints[k - 1], DOC_TEXT, width, "  ");
    }
    doc_newline(d);
    if (shown < CATALOG_HINTS)
        para(d, "Press h again for the next hint (it asks first).  Hints never affect your grade; "
                "how many you used is recorded in progress.json.", DOC_DIM, width, "");
    else
        para(d, "That was the last hint.  The lesson's Pitfalls section may help too.", DOC_DIM, width, "");
}

/* ---- the chart ---------------------------------------------------------- */

static void bar(struct doc *d, double value, double ref, double scale, int cells)
{
    int fill2 = scale > 0 ? (int)(2 * cells * value / scale + 0.5) : 0;
    int mark = scale > 0 && ref > 0 ? (int)(cells * ref / scale) : -1;
    if (fill2 > 2 * cells)
        fill2 = 2 * cells;
    if (mark >= cells)
        mark = cells - 1;
    for (int i = 0; i < cells; i++) {
        if (i == mark)
            doc_add(d, DOC_REF, "│");
        else if (2 * i + 2 <= fill2)
            doc_add(d, DOC_BAR, "█");
        else if (2 * i + 1 == fill2)
            doc_add(d, DOC_BAR, "▌");
        else
            doc_add(d, DOC_DIM, "·");
    }
}

static void ladder_table(struct doc *d, const struct catalog *cat, const struct progress *p, int width)
{
    const struct progress_lab *first = NULL, *prev = NULL;
    int name_w = width - 56 < 12 ? 12 : width - 56 > 30 ? 30 : width - 56;  /* the rest is 56 columns */
    heading(d, "The ladder");
    doc_newline(d);
    doc_addf(d, DOC_DIM, "  %-3s ", "lab");
    doc_addcell(d, DOC_DIM, "kernel", name_w);
    doc_addf(d, DOC_DIM, " %9s %7s %7s %7s %7s %7s", "ms", "GB/s", "% peak", "× ref", "step", "total");
    for (int i = 0; i < cat->nlabs; i++) {
        const struct progress_lab *l = progress_find(p, cat->labs[i].id);
        if (!l || !l->best.have)
            continue;
        const struct progress_best *b = &l->best;
        /* Speed-ups compare like with like: the same case and size. */
        int comparable = first && !strcmp(first->best.case_label, b->case_label) && first->best.n == b->n;
        doc_newline(d);
        doc_addf(d, DOC_TEXT, "  %-3s ", l->id);
        doc_addcell(d, DOC_TEXT, cat->labs[i].title, name_w);
        doc_addf(d, DOC_TEXT, " %9.3f", b->ms);
        if (b->gbps >= 0)
            doc_addf(d, DOC_STRONG, " %7.0f %6.0f%%", b->gbps, b->pct_peak);
        else
            doc_addf(d, DOC_DIM, " %7s %7s", "-", "-");
        doc_addf(d, DOC_STRONG, " %6.2fx", b->ratio);
        if (comparable && prev && !strcmp(prev->best.case_label, b->case_label) && prev->best.n == b->n)
            doc_addf(d, DOC_TEXT, " %6.2fx", prev->best.ms / b->ms);
        else
            doc_addf(d, DOC_DIM, " %7s", "");
        if (comparable)
            doc_addf(d, DOC_TEXT, " %6.2fx", first->best.ms / b->ms);
        if (!first)
            first = l;
        prev = l;
    }
}

void sheet_chart(struct doc *d, const struct catalog *cat, const struct progress *p, int width)
{
    double scale = 0, peak = 0;
    const char *gpu = "";
    int any = 0, name_w = 28, num_w = 24;
    int cells = width - 2 - 3 - name_w - 1 - num_w;
    if (cells < 10)
        cells = 10;

    for (int i = 0; i < cat->nlabs; i++) {
        const struct progress_lab *l = progress_find(p, cat->labs[i].id);
        if (!l || !l->best.have)
            continue;
        any = 1;
        if (l->gpu[0])
            gpu = l->gpu;
        if (l->best.peak_gbps > peak)
            peak = l->best.peak_gbps;
        if (l->best.peak_gbps > scale)
            scale = l->best.peak_gbps;
        if (l->best.gbps > scale)
            scale = l->best.gbps;
        if (l->best.ref_gbps > scale)
            scale = l->best.ref_gbps;
    }
    doc_newline(d);
    doc_add(d, DOC_H1, "Your ladder: the best pass of each lab");
    if (!any) {
        doc_newline(d);
        doc_newline(d);
        para(d, "No timed passes yet.  Pass a lab on a machine with a GPU and its bandwidth appears here, "
                "against the peak the harness measures and against CUB.", DOC_TEXT, width, "");
        return;
    }
    char *about = util_format("On the %s.  A full bar is %.0f GB/s (the measured peak: %.0f GB/s); "
                              "│ marks the baseline (CUB).", gpu[0] ? gpu : "GPU", scale, peak);
    if (about)
        para(d, about, DOC_DIM, width, "");
    free(about);
    doc_newline(d);
    for (int i = 0; i < cat->nlabs; i++) {
        const struct lab *lab = &cat->labs[i];
        const struct progress_lab *l = progress_find(p, lab->id);
        int timed = l && l->best.have;
        if (lab->bonus && (i == 0 || !cat->labs[i - 1].bonus)) {
            doc_newline(d);
            doc_add(d, DOC_H2, "  Bonus");
        }
        doc_newline(d);
        doc_addf(d, DOC_TEXT, "  %s ", lab->id);
        doc_addcell(d, timed ? DOC_TEXT : DOC_DIM, lab->title, name_w);
        doc_add(d, DOC_TEXT, " ");
        if (!timed) {
            doc_add(d, DOC_DIM, "no timed pass yet");
            continue;
        }
        const struct progress_best *b = &l->best;
        if (b->gbps < 0) {
            /* The figures first: at 80 columns only words may fall off. */
            doc_addf(d, DOC_TEXT, "%.4g %s, ", b->rate, b->rate_unit);
            doc_addf(d, DOC_STRONG, "%.2fx", b->ratio);
            doc_add(d, DOC_DIM, " ref (compute bound)");
            continue;
        }
        bar(d, b->gbps, b->ref_gbps, scale, cells);
        doc_addf(d, DOC_STRONG, " %5.0f", b->gbps);
        doc_add(d, DOC_DIM, " GB/s ");
        doc_addf(d, DOC_STRONG, "%5.2fx", b->ratio);
        doc_add(d, l->on_target ? DOC_GOOD : DOC_WARN, l->on_target ? " ★" : " ✓");
    }
    ladder_table(d, cat, p, width);
    doc_newline(d);
    doc_newline(d);
    para(d, "★ on target   ✓ passed, target not met yet   step: the speed-up over the lab above   "
            "total: over the first", DOC_DIM, width, "");
}
