/* ladder.c — see ladder.h.  Each lab's row comes from the same check a
 * student runs, so the table measures exactly what the tutor judges. */
#include "cli/ladder.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/check_session.h"
#include "model/predict.h"
#include "model/result.h"
#include "sys/util.h"

struct rung {
    const struct lab *lab;
    struct result res;
    int ok;                     /* parsed */
};

static const struct rperf *perf_at(const struct result *r, const char *label)
{
    for (int i = 0; i < r->nperf; i++)
        if (!strcmp(r->perf[i].label, label))
            return &r->perf[i];
    return NULL;
}

/* "49 µs" below a millisecond, "2.254 ms" above. */
static void fmt_time(char *buf, size_t len, const struct rperf *p)
{
    if (!p)
        snprintf(buf, len, "—");
    else if (p->median_ms < 1)
        snprintf(buf, len, "%.0f µs", p->median_ms * 1000);
    else
        snprintf(buf, len, "%.3f ms", p->median_ms);
}

/* The lab's target metric on the case of this label; 0 when not timed. */
static double metric_at(const struct result *r, const struct lab *lab, const char *label)
{
    const struct rperf *p = perf_at(r, label);
    if (!p)
        return 0;
    switch (lab->target.metric) {
    case METRIC_RATIO: return p->ratio;
    case METRIC_PCT_PEAK: return p->pct_peak / 100;
    case METRIC_GBPS: return p->gbps;
    default: return p->rate;
    }
}

static void write_reductions(FILE *f, struct rung *rungs, int n)
{
    const struct rperf *first = NULL, *prev = NULL;
    fputs("## Reductions (labs 01–08)\n\n"
          "Sum of 2^22 and 2^28 elements (int, float for lab 08), median time with the L2\n"
          "flushed before every sample; bandwidth counts each input byte once.\n\n"
          "| lab | kernel | 2^22 | 2^28 | GB/s at 2^28 | step | cumulative | % of peak | × CUB |\n"
          "|-----|--------|-----:|-----:|-----:|-----:|-----:|-----:|-----:|\n", f);
    for (int i = 0; i < n; i++) {
        const struct result *r = &rungs[i].res;
        enum family_id fam = rungs[i].lab->family->id;
        if (!rungs[i].ok || (fam != FAMILY_REDUCE_INT && fam != FAMILY_REDUCE_FLOAT))
            continue;
        const struct rperf *a = perf_at(r, "2^22"), *b = perf_at(r, "2^28");
        char ta[32], tb[32], step[32] = "", cum[32] = "";
        fmt_time(ta, sizeof ta, a);
        fmt_time(tb, sizeof tb, b);
        if (b && prev)
            snprintf(step, sizeof step, "%.2f×", prev->median_ms / b->median_ms);
        if (b && first)
            snprintf(cum, sizeof cum, "%.2f×", first->median_ms / b->median_ms);
        fprintf(f, "| %s | %s%s | %s | %s | %.0f | %s | %s | %.0f%% | %.2f |\n", rungs[i].lab->id,
                rungs[i].lab->title, fam == FAMILY_REDUCE_FLOAT ? " (float)" : "", ta, tb,
                b ? b->gbps : 0, step, cum, b ? b->pct_peak : 0, b ? b->ratio : 0);
        if (b) {
            prev = b;
            if (!first)
                first = b;
        }
    }
    fputc('\n', f);
}

static void write_others(FILE *f, struct rung *rungs, int n)
{
    for (int i = 0; i < n; i++) {
        const struct result *r = &rungs[i].res;
        const struct lab *lab = rungs[i].lab;
        if (!rungs[i].ok || lab->family->id == FAMILY_REDUCE_INT || lab->family->id == FAMILY_REDUCE_FLOAT)
            continue;
        fprintf(f, "## Lab %s: %s\n\n| case | time | rate | GB/s | %% of peak | × %s |\n"
                   "|------|-----:|-----:|-----:|-----:|-----:|\n", lab->id, lab->title,
                r->nperf ? r->perf[0].ref_name : "baseline");
        for (int k = 0; k < r->nperf; k++) {
            const struct rperf *p = &r->perf[k];
            char t[32];
            fmt_time(t, sizeof t, p);
            fprintf(f, "| %s | %s | %.1f %s | ", p->label, t, p->rate, p->rate_unit);
            if (p->gbps >= 0)
                fprintf(f, "%.0f | %.0f%% | ", p->gbps, p->pct_peak);
            else
                fputs("— | — | ", f);
            fprintf(f, "%.2f |\n", p->ratio);
        }
        fputc('\n', f);
    }
}

static void write_calibration(FILE *f, struct rung *rungs, int n)
{
    fputs("## Targets\n\n"
          "A lab's target is 80% of what its solution measures here, on the metric and case\n"
          "the catalog names (data/labs.json, `target`; the solution's figure is kept there\n"
          "as `target.solution`).  grade.sh measures the solutions on its own GPUs and lowers\n"
          "a target where the solution falls more than 5% short of that figure\n"
          "(docs/instructor-guide.md).  To calibrate the catalog itself for another GPU, run\n"
          "`make ladder` there and copy the solution and suggested columns into it.\n\n"
          "| lab | metric | case | solution | suggested (80%) | catalog |\n"
          "|-----|--------|------|-----:|-----:|-----:|\n", f);
    for (int i = 0; i < n; i++) {
        const struct lab *lab = rungs[i].lab;
        /* A row per case of the target: the first, then those of `also`. */
        for (int k = -1; k < lab->target.nalso; k++) {
            const char *label = k < 0 ? lab->target.case_label : lab->target.also[k].case_label;
            double min = k < 0 ? lab->target.min : lab->target.also[k].min;
            double v = rungs[i].ok ? metric_at(&rungs[i].res, lab, label) : 0;
            fprintf(f, "| %s | %s | %s | %.3f | %.2f | %.2f%s |\n", lab->id, metric_name(lab->target.metric),
                    label, v, (double)(long)(v * 0.8 * 100) / 100, min,
                    lab->target.provisional ? " (provisional)" : "");
        }
    }
    fputc('\n', f);
}

/* Without a GPU: each solution's predicted time (model/predict.h), marked
 * as such on every row; never written over the measured table. */
static void write_predicted(FILE *f, struct rung *rungs, int n)
{
    const char *gpu = NULL;
    for (int i = 0; i < n && !gpu; i++)
        if (rungs[i].ok && rungs[i].res.have_predicted)
            gpu = rungs[i].res.predicted.gpu;
    fprintf(f, "\nPredicted, not measured: no GPU here, so each solution's time on %s is a model's\n"
               "fed by the emulator's counters (docs/predicted-time.md).\n\n"
               "| lab | kernel | case | predicted time | predicted × CUB | bound by |\n"
               "|-----|--------|------|-----:|-----:|------|\n", gpu ? gpu : "a GPU");
    for (int i = 0; i < n; i++) {
        const struct rpredicted *p = &rungs[i].res.predicted;
        char t[32], ratio[32] = "—";
        if (!rungs[i].ok || !rungs[i].res.have_predicted) {
            fprintf(f, "| %s | %s | — | not predicted | — | — |\n", rungs[i].lab->id, rungs[i].lab->title);
            continue;
        }
        predict_time_words(p->seconds, t, sizeof t);
        if (p->ratio > 0)
            snprintf(ratio, sizeof ratio, "%.2f (predicted)", p->ratio);
        fprintf(f, "| %s | %s | %s | %s (predicted) | %s | %s |\n", rungs[i].lab->id, rungs[i].lab->title,
                p->case_label, t, ratio, p->bound);
    }
    fputc('\n', f);
}

static int write_markdown(const char *path, struct rung *rungs, int n, char *err, size_t errlen)
{
    char *buf = NULL, date[32];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const struct result *any = NULL;
    time_t now = time(NULL);
    int rc = -1;

    if (!f) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < n && !any; i++)
        if (rungs[i].ok && rungs[i].res.have_device)
            any = &rungs[i].res;
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    fprintf(f, "# The ladder\n\nGenerated by `make ladder` on %s: every reference solution checked\n"
               "and timed by the same harness that judges students' kernels.  Do not edit by hand.\n\n",
            date);
    if (any)
        fprintf(f, "Device: %s (sm %s).  Measured in the same runs: streaming read %.0f GB/s,\n"
                   "streaming copy %.0f GB/s (read + write); theoretical %.0f GB/s.\n\n",
                any->device_name, any->device_cc, any->read_gbps, any->copy_gbps, any->theoretical_gbps);
    write_reductions(f, rungs, n);
    write_others(f, rungs, n);
    write_calibration(f, rungs, n);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (util_write_file(path, buf, len)) {
        snprintf(err, errlen, "cannot write %s", path);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    return rc;
}

int ladder_run(struct app *app, const char *out_path, FILE *log, char *err, size_t errlen)
{
    int n = app->cat.nlabs, failed = 0, rc = -1, emulated = 0;
    struct rung *rungs = calloc((size_t)n, sizeof *rungs);

    if (!rungs) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const struct lab *lab = &app->cat.labs[i];
        char *file = util_format("%s/%s/kernel.cu", app->root, lab->solution_dir);
        struct check_opts o = {0};
        o.file = file;
        rungs[i].lab = lab;
        /* The catalog's thresholds: the ladder measures, it is not judged. */
        struct check_session session = {.app = app};
        int ran = file && check_session_run(&session, lab, &o, &rungs[i].res, err, errlen) == 0;
        free(file);
        if (!ran)
            goto out;
        rungs[i].ok = 1;
        if (!rungs[i].ok || rungs[i].res.status != STATUS_PASS)
            failed = 1;
        fprintf(log, "%s  %s\n", lab->id, rungs[i].ok ? rungs[i].res.summary : "unreadable verdict");
        if (rungs[i].ok && rungs[i].res.status == STATUS_NO_GPU) {
            /* An empty table must not replace a measured one. */
            snprintf(err, errlen, "no CUDA device: the ladder measures a GPU; nothing written");
            rc = -2;
            goto out;
        }
        emulated += rungs[i].res.emulated;
    }
    if (emulated) {
        /* Predictions are shown, never written over the measured table. */
        write_predicted(log, rungs, n);
        snprintf(err, errlen, "no CUDA device: the rows above are predicted, not measured; %s not written",
                 out_path ? out_path : "the table");
        rc = -2;
        goto out;
    }
    if (out_path && write_markdown(out_path, rungs, n, err, errlen))
        goto out;
    rc = failed;
out:
    for (int i = 0; i < n; i++)
        if (rungs[i].ok)
            result_free(&rungs[i].res);
    free(rungs);
    return rc;
}
