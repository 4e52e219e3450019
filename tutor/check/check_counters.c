/* check_counters.c — the profiler's counters: ncu around a judge in
 * profile mode at the size the target is judged at, reading the counters
 * the lab's lesson is about (data/labs.json) and the kernel time and DRAM
 * throughput of every lab.  Only the student's kernels are profiled: the
 * judge marks their replay with an NVTX range "student". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_stage.h"
#include "sys/ncu.h"
#include "sys/util.h"

/* ncu's run waits for the GPU like the judge's: those seconds are forgiven. */
static void waits_of(void *ud, const char *line)
{
    if (!strncmp(line, "@gpu ", 5))
        waits_line(&((struct run *)ud)->hx_waits, line);
}

static double grace_of(void *ud)
{
    return waits_grace(&((struct run *)ud)->hx_waits);
}

/* Always read: the kernel time as the profiler sees it, and DRAM throughput. */
static const char *const base_counters[] = {"gpu__time_duration.sum",
                                            "dram__throughput.avg.pct_of_peak_sustained_elapsed"};

/* The counters to read (names, at most 64) and ncu's --metrics list of
 * them (heap; NULL when out of memory). */
static char *metric_list(const struct run *r, const char **names, int *nnames)
{
    char *metrics;
    size_t len = 1;
    *nnames = 0;
    for (size_t i = 0; i < sizeof base_counters / sizeof base_counters[0]; i++)
        names[(*nnames)++] = base_counters[i];
    for (int i = 0; i < r->lab->ncounters && *nnames < 64; i++)
        names[(*nnames)++] = r->lab->counters[i];
    for (int i = 0; i < *nnames; i++)
        len += strlen(names[i]) + 1;
    if (!(metrics = calloc(len, 1)))
        return NULL;
    for (int i = 0; i < *nnames; i++) {
        strcat(metrics, i ? "," : "");
        strcat(metrics, names[i]);
    }
    return metrics;
}

/* What ncu read, into the result. */
static void record(struct run *r, const char *log, const char **names, int nnames, unsigned long long n,
                   double seconds)
{
    char *csv = util_read_file(log, NULL);
    int kernels = 0;
    result_set_text(&r->res->counters_tool, "ncu");
    r->res->counters_n = n;
    if (csv) {
        double values[64];
        int found[64];
        kernels = ncu_parse(csv, names, nnames, values, found);
        kernels = kernels > 0 ? kernels : 0;
        for (int i = 0; i < nnames; i++)
            if (found[i])
                result_add_counter(r->res, names[i], values[i]);
    }
    r->res->counters_kernels = kernels;
    r->res->counters_s = seconds;
    free(csv);
}

int stage_counters(struct run *r)
{
    const char *names[64];
    int nnames = 0, a = 0, skip = 0;
    char *metrics = NULL, *log = util_format("%s/ncu.csv", r->dir), *json = util_format("%s/profile.json", r->dir);
    struct proc_result pr = {0};
    char **hx = NULL, *argv[128] = {0}, *logopt = NULL;
    /* Profile the size the target is judged at. */
    unsigned long long n = r->lab->family->perf[r->lab->family->nperf - 1].n;

    r->res->have_counters = 1;
    for (int i = 0; i < r->lab->family->nperf; i++)
        if (!strcmp(r->lab->family->perf[i].label, r->lab->target.case_label))
            n = r->lab->family->perf[i].n;
    if (r->emulated) {
        /* Counters are the GPU's: the emulator's instructions are not
         * what ncu counts. */
        result_set_text(&r->res->counters_note, "no GPU: ncu counts on a GPU only (the check ran on the CPU emulator)");
        goto out;
    } else if (!r->tc->ncu) {
        result_set_text(&r->res->counters_note, "ncu not found: no counters");
        goto out;
    }
    if (!log || !json || !(metrics = metric_list(r, names, &nnames)))
        goto out;
    hx = judge_argv(r, json, "profile", &n, 1, 0);
    if (!hx || !(logopt = util_format("%llu", n)))
        goto out;
    check_progress(r, "counters", 0, 0, "ncu");
    r->hx_waits = (struct waits){0, 0};
    for (skip = judge_wrap_words(r); a < skip; a++)
        argv[a] = hx[a];
    unlink(log);
    char *fixed[] = {r->tc->ncu, "--target-processes", "application-only", "--nvtx", "--nvtx-include", "student/", "--clock-control", "none",
                     "--cache-control", "all", "--csv", "--page", "raw", "--print-units", "base",
                     "--log-file", log,
                     "--metrics", metrics, NULL};
    for (int i = 0; fixed[i]; i++)
        argv[a++] = fixed[i];
    for (int i = skip; hx[i] && a < 120; i++)
        argv[a++] = hx[i];
    argv[a++] = "--profile-n";
    argv[a++] = logopt;
    struct proc_spec spec = {.argv = argv, .cwd = r->dir, .timeout_s = check_timeout(r) * 4,
                             .output_cap = OUTPUT_KEEP * 8, .on_line = waits_of, .ud = r,
                             .grace = grace_of, .channel = 1};
    if (proc_run(&spec, &pr) || !pr.exited || pr.exit_code != 0) {
        char why[160];
        proc_describe(&pr, why, sizeof why);
        result_set_text(&r->res->counters_note, why);
        check_message(r, "ncu could not read the counters (%s)", why);
        goto out;
    }
    record(r, log, names, nnames, n, pr.seconds);
out:
    proc_result_free(&pr);
    judge_argv_free(hx);
    free(metrics);
    free(logopt);
    free(log);
    free(json);
    return 0;
}
