/* verdict.c — see verdict.h. */
#include "view/verdict.h"

#include <stdarg.h>
#include <string.h>

#include "sys/util.h"
#include "view/doc.h"

#define GREEN "\033[32m"
#define RED "\033[31m"
#define YELLOW "\033[33m"
#define BOLD "\033[1m"
#define OFF "\033[0m"

void verdict_size(char *buf, size_t len, unsigned long long n)
{
    if (n && !(n & (n - 1)) && n >= 1024) {
        int k = 0;
        while ((1ull << k) < n)
            k++;
        snprintf(buf, len, "2^%d", k);
    } else {
        snprintf(buf, len, "%llu", n);
    }
}

const char *verdict_check_does(enum check_place p)
{
    static const char *const words[] = {
#define CHECK_PLACE_WORDS_(e, w) w,
        CHECK_PLACE_TABLE(CHECK_PLACE_WORDS_)
#undef CHECK_PLACE_WORDS_
    };
    return p >= 0 && p < (int)(sizeof words / sizeof words[0]) ? words[p] : words[CHECK_ON_GPU];
}

static const char *paint(int color, const char *code) { return color ? code : ""; }

/* A figure of the target's metric as the student reads it: a ratio as
 * "0.109×", a share of the peak (a fraction) as "71%". */
static void figure(char *buf, size_t len, const struct result *r, double v)
{
    const struct rperf *tp = result_target_perf(r);
    const char *m = r->target_metric ? r->target_metric : "";
    if (!strcmp(m, "ratio"))
        snprintf(buf, len, "%.3g×", v);
    else if (!strcmp(m, "pct_peak"))
        snprintf(buf, len, "%.3g%%", 100 * v);
    else if (!strcmp(m, "gbps"))
        snprintf(buf, len, "%.4g GB/s", v);
    else
        snprintf(buf, len, "%.4g %s", v, tp && tp->rate_unit[0] ? tp->rate_unit : "G items/s");
}


/* " and " before the last of a target's further cases, ", " before the others. */
static const char *joint(const struct result *r, int i) { return i + 1 == r->ntarget_also ? " and " : ", "; }

void verdict_target(char *buf, size_t len, const struct result *r)
{
    const struct rperf *tp = result_target_perf(r);
    const char *m = r->target_metric ? r->target_metric : "";
    char min[48];
    figure(min, sizeof min, r, r->target_min);
    if (!strcmp(m, "ratio"))
        snprintf(buf, len, "%s %s at %s", min, tp && tp->ref_name[0] ? tp->ref_name : "the baseline",
                 r->target_case);
    else if (!strcmp(m, "pct_peak"))
        snprintf(buf, len, "%s of the measured peak at %s", min, r->target_case);
    else
        snprintf(buf, len, "%s at %s", min, r->target_case);
    for (int i = 0; i < r->ntarget_also; i++) {
        figure(min, sizeof min, r, r->target_also[i].min);
        util_append(buf, len, "%s%s at %s", joint(r, i), min, r->target_also[i].case_label);
    }
}

void verdict_target_measured(char *buf, size_t len, const struct result *r)
{
    char v[48];
    figure(v, sizeof v, r, r->target_value);
    snprintf(buf, len, "%s", result_target_perf(r) ? v : "not timed");
    if (!r->ntarget_also)
        return;
    util_append(buf, len, " at %s", r->target_case);
    for (int i = 0; i < r->ntarget_also; i++) {
        const struct rtarget_case *c = &r->target_also[i];
        figure(v, sizeof v, r, c->value);
        util_append(buf, len, "%s%s at %s", joint(r, i), c->value >= 0 ? v : "not timed", c->case_label);
    }
}

void verdict_target_note(char *buf, size_t len, const struct result *r)
{
    const struct rcalibration *c = &r->target_cal;
    char here[48], cat[48];
    figure(cat, sizeof cat, r, r->target_catalog_min);
    /* Lowered by a further case, where the solution fell furthest short. */
    for (int i = 0; c->have && c->lowered && c->case_label && c->case_label[0] && i < r->ntarget_also; i++)
        if (!strcmp(r->target_also[i].case_label, c->case_label) && c->solution_here >= 0) {
            figure(here, sizeof here, r, c->solution_here);
            figure(cat, sizeof cat, r, r->target_also[i].catalog_min);
            snprintf(buf, len, "(scaled to this %s: its reference solution measures %s at %s, the case where "
                               "it falls furthest short; the catalog's %s there is for the %s, and every case is "
                               "lowered alike)", c->gpu, here, c->case_label, cat,
                     c->catalog_gpu && c->catalog_gpu[0] ? c->catalog_gpu : "GPU it was measured on");
            return;
        }
    if (c->have && c->lowered && c->solution_here >= 0) {
        figure(here, sizeof here, r, c->solution_here);
        if (c->catalog_gpu && c->catalog_gpu[0])
            snprintf(buf, len, "(scaled to this %s: its reference solution measures %s; the catalog's %s is "
                               "for the %s)", c->gpu, here, cat, c->catalog_gpu);
        else
            snprintf(buf, len, "(scaled to this %s: its reference solution measures %s; the catalog's %s was "
                               "measured on another GPU)", c->gpu, here, cat);
    } else if (r->target_catalog_min > 0 && r->target_catalog_min != r->target_min) {
        snprintf(buf, len, "(given by --target-min; the catalog's is %s)", cat);
    } else {
        util_copy(buf, len, "");
    }
}

static void print_tests(FILE *f, const struct result *r, int color)
{
    int passed = 0, shown = 0;
    for (int i = 0; i < r->ntests; i++)
        passed += r->tests[i].pass;
    if (!r->ntests)
        return;
    fprintf(f, "  %-12s %d/%d passed", "correctness", passed, r->ntests);
    if (r->first_failing_n)
        fprintf(f, "; smallest failing n = %llu", r->first_failing_n);
    fputc('\n', f);
    for (int i = 0; i < r->ntests && shown < 6; i++) {
        const struct rtest *t = &r->tests[i];
        if (t->pass)
            continue;
        shown++;
        fprintf(f, "  %s%-12s %s%s", paint(color, RED), "", t->name, paint(color, OFF));
        if (t->expected[0])
            fprintf(f, ": expected %s, got %s", t->expected, t->got);
        fprintf(f, "\n  %-12s   %s\n", "", t->message);
    }
}

static void print_perf(FILE *f, const struct result *r)
{
    for (int i = 0; i < r->nperf; i++) {
        const struct rperf *p = &r->perf[i];
        fprintf(f, "  %-12s %-7s %9.3f ms", i ? "" : "timing", p->label, p->median_ms);
        if (p->gbps >= 0)
            fprintf(f, "  %6.0f GB/s  %3.0f%% of peak", p->gbps, p->pct_peak);
        else
            fprintf(f, "  %8.1f %s", p->rate, p->rate_unit);
        fprintf(f, "  %5.2fx %s%s\n", p->ratio, p->ref_name, p->implausible ? "  IMPLAUSIBLE" : "");
        fprintf(f, "  %-12s %-7s (median of %d, min %.3f, max %.3f; baseline %.3f ms)\n", "", "",
                p->samples, p->min_ms, p->max_ms, p->ref_median_ms);
    }
}

static void print_checks(FILE *f, const struct result *r, int color)
{
    for (int i = 0; i < r->nviol; i++)
        fprintf(f, "  %s%-12s %s%s — %s\n", paint(color, RED), i ? "" : status_name(STATUS_REJECTED), r->viol_symbols[i],
                paint(color, OFF), r->viol_rules[i]);
    for (int i = 0; i < r->ntech; i++)
        fprintf(f, "  %-12s %s: %s%s%s\n", i ? "" : "technique", r->tech[i].name,
                paint(color, r->tech[i].found ? GREEN : RED), r->tech[i].found ? "found" : "MISSING",
                paint(color, OFF));
    if (r->sanitizer_ran) {
        fprintf(f, "  %-12s", "sanitizer");
        for (int i = 0; i < r->nsan; i++)
            fprintf(f, "%s %s %s%s%s", i ? "," : "", r->san[i].tool,
                    paint(color, r->san[i].clean ? GREEN : RED), r->san[i].clean ? "clean" : "FOUND PROBLEMS",
                    paint(color, OFF));
        fputc('\n', f);
        for (int i = 0; i < r->nsan; i++)
            if (!r->san[i].clean && r->san[i].report[0])
                fprintf(f, "%s", r->san[i].report);
    } else if (r->sanitizer_note && r->sanitizer_note[0]) {
        fprintf(f, "  %-12s %s\n", "sanitizer", r->sanitizer_note);
    }
}

void verdict_device(char *buf, size_t len, const struct result *r)
{
    if (r->emulated)
        snprintf(buf, len, "no GPU here: judged on this computer's CPU; not timed (the PTX emulator stands in "
                           "for a GPU of compute capability %s, with its limits)", r->device_cc);
    else
        snprintf(buf, len, "%s (sm %s)", r->device_name, r->device_cc);
}

void verdict_peak(char *buf, size_t len, const struct result *r)
{
    /* Measured only when there is timing to compare it with. */
    if (r->have_device && !r->emulated && r->read_gbps > 0)
        snprintf(buf, len, "%.0f GB/s read, %.0f GB/s copy", r->read_gbps, r->copy_gbps);
    else
        util_copy(buf, len, "");
}

void verdict_gpu_via(char *buf, size_t len, const struct result *r)
{
    const struct rgpu_via *v = &r->gpu_via;
    if (!v->have || v->ran || !v->failed)
        util_copy(buf, len, "");
    else
        snprintf(buf, len, "%s; %s; retrying in %.0f s", v->failed,
                 r->emulated ? "judged on this computer's CPU" : "not run on a GPU", v->retry_s);
}

/* A field of the heading: its label, then its text flowed into width
 * columns at spaces, the lines after the first under the text's start. */
static void heading_field(FILE *f, const char *label, const char *text, int width)
{
    char prefix[32];
    struct doc d;
    struct doc_para p = {0};
    snprintf(prefix, sizeof prefix, "  %-12s ", label);
    doc_init(&d);
    doc_para_add(&p, DOC_TEXT, text, strlen(text));
    doc_flow(&d, &p, width, prefix, DOC_TEXT);
    doc_para_free(&p);
    doc_print(f, &d);
    doc_free(&d);
}

void verdict_print(FILE *f, const struct result *r, const struct lab *lab, int color, int width)
{
    char text[1400];
    fprintf(f, "lab %s (%s)  %s\n", r->lab, r->family, r->file);
    snprintf(text, sizeof text, "%llu", r->seed);
    heading_field(f, "seed", text, width);
    if (r->have_device) {
        verdict_device(text, sizeof text, r);
        heading_field(f, "device", text, width);
        verdict_peak(text, sizeof text, r);
        if (text[0])
            heading_field(f, "peak", text, width);
    }
    if (r->status == STATUS_COMPILE_ERROR) {
        for (int i = 0; i < r->ndiags && i < 10; i++)
            fprintf(f, "  %s%s:%d: %s%s: %s\n", paint(color, BOLD), r->diags[i].file, r->diags[i].line,
                    r->diags[i].severity, paint(color, OFF), r->diags[i].message);
        if (!r->ndiags && r->compile_log[0])
            fprintf(f, "%s\n", r->compile_log);
    }
    print_tests(f, r, color);
    print_perf(f, r);
    print_checks(f, r, color);
    /* a count as the integer it is; a ratio or a percentage in six digits */
    for (int i = 0; i < r->ncounters; i++)
        fprintf(f, r->counter_values[i] == (double)(long long)r->counter_values[i] ? "  %-12s %-58s %14.0f\n"
                                                                               : "  %-12s %-58s %14.6g\n",
                i ? "" : "counters", r->counter_names[i], r->counter_values[i]);
    if (r->counters_note && r->counters_note[0])
        fprintf(f, "  %-12s %s\n", "counters", r->counters_note);
    if (r->have_target) {
        const struct rperf *tp = result_target_perf(r);
        char what[256], note[512], got[256];
        verdict_target(what, sizeof what, r);
        verdict_target_note(note, sizeof note, r);
        verdict_target_measured(got, sizeof got, r);
        fprintf(f, "  %-12s %s: %s%s%s", "target", what, paint(color, r->target_met ? GREEN : YELLOW),
                result_target_words(r), paint(color, OFF));
        if (tp)
            fprintf(f, " (measured %s)", got);
        fputc('\n', f);
        if (note[0])
            fprintf(f, "  %-12s %s\n", "", note);
    }
    for (int i = 0; i < r->nmsgs; i++)
        fprintf(f, "  %-12s %s\n", i ? "" : "notes", r->messages[i]);
    if (r->output && r->output[0] && (r->status == STATUS_FAIL || r->status == STATUS_RUNTIME_ERROR ||
                                      r->status == STATUS_TIMEOUT))
        fprintf(f, "  output of the run:\n%s%s", r->output,
                r->output[strlen(r->output) - 1] == '\n' ? "" : "\n");
    /* A compile error lists its warnings among its errors, above. */
    for (int i = 0; r->status != STATUS_COMPILE_ERROR && i < r->ndiags; i++)
        if (!strcmp(r->diags[i].severity, "warning")) {
            snprintf(text, sizeof text, "line %d: %s", r->diags[i].line, r->diags[i].message);
            heading_field(f, "warning", text, width);
        }
    verdict_gpu_via(text, sizeof text, r);
    if (text[0])
        heading_field(f, "GPU", text, width);
    const char *c = r->status == STATUS_PASS ? GREEN : r->status == STATUS_NO_GPU ? YELLOW : RED;
    fprintf(f, "%s%s%s  %s\n", paint(color, c), status_name(r->status), paint(color, OFF), r->summary);
    result_picture(r, lab, text, sizeof text);
    if (text[0])
        fprintf(f, "  %s\n", text);
}
