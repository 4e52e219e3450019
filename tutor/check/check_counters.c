/* check_counters.c — the profiler's counters: on a GPU, ncu around a judge
 * in profile mode at the size the target is judged at, reading the
 * counters the lab's lesson is about (data/labs.json) and the kernel time
 * and DRAM throughput of every lab; only the student's kernels are
 * profiled (the judge marks their replay with an NVTX range "student").
 * Without a GPU, the CPU judge in profile mode at the lesson's size, whose
 * emulator counts the student's launches (tutor/emu/emu_count.h) and says
 * each count on the channel; the lesson's counter beside the reference
 * solution's is then a technique the lab needs (docs/harness.md, "Counters
 * without a GPU"). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_stage.h"
#include "model/predict.h"
#include "sys/ncu.h"
#include "sys/util.h"

/* ncu's run waits for the GPU like the judge's: those seconds are forgiven. */
static void waits_of(void *ud, const char *line)
{
    if (!strncmp(line, "@gpu ", 5))
        waits_line(&((struct check_state *)ud)->hx_waits, line);
}

static double grace_of(void *ud)
{
    return waits_grace(&((struct check_state *)ud)->hx_waits);
}

/* Always read: the kernel time as the profiler sees it, and DRAM throughput. */
static const char *const base_counters[] = {"gpu__time_duration.sum",
                                            "dram__throughput.avg.pct_of_peak_sustained_elapsed"};

/* The counters to read (names, at most 64) and ncu's --metrics list of
 * them (heap; NULL when out of memory). */
static char *metric_list(const struct check_state *r, const char **names, int *nnames)
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
static void record(struct check_state *r, const char *log, const char **names, int nnames, unsigned long long n,
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

/* What the CPU judge's profile said: "@counter NAME VALUE" lines. */
struct emu_said {
    int n;
    char names[64][48];
    double values[64];
};

static void said_line(void *ud, const char *line)
{
    struct emu_said *s = ud;
    char name[48];
    unsigned long long v;
    if (s->n < 64 && sscanf(line, "@counter %47s %llu", name, &v) == 2) {
        snprintf(s->names[s->n], sizeof s->names[s->n], "%s", name);
        s->values[s->n++] = (double)v;
    }
}

/* The value of counter NAME ("a+b": the sum of both) in S, or "n": N; -1
 * when S lacks one of them. */
static double said_value(const struct emu_said *s, const char *name, unsigned long long n)
{
    double sum = 0;
    char buf[160], *save = NULL;
    if (!strcmp(name, "n"))
        return (double)n;
    snprintf(buf, sizeof buf, "%s", name);
    for (char *tok = strtok_r(buf, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        int i = 0;
        while (i < s->n && strcmp(s->names[i], tok))
            i++;
        if (i == s->n)
            return -1;
        sum += s->values[i];
    }
    return sum;
}

/* The lesson's counter as a technique: met when the figure is within the
 * catalog's bound; the reference solution's figure beside it. */
static void lesson_technique(struct check_state *r, const struct emu_said *s, unsigned long long n)
{
    const struct lesson *ls = &r->lab->lesson;
    double a = said_value(s, ls->counter, n), b = ls->over ? said_value(s, ls->over, n) : 1;
    if (a < 0 || b < 0) {
        check_message(r, "internal: the emulator did not say %s", a < 0 ? ls->counter : ls->over);
        check_set_status(r, STATUS_INTERNAL_ERROR);
        return;
    }
    double v = b > 0 ? a / b : 0;
    int met = (ls->max <= 0 || v <= ls->max) && (ls->min <= 0 || v >= ls->min);
    char *why = util_format("%s: yours %.4g, the reference solution's %.4g, %s %.4g (counted by the "
                            "emulator at n=%llu): %s", ls->what, v, ls->solution,
                            ls->max > 0 ? "at most" : "at least", ls->max > 0 ? ls->max : ls->min, n, ls->why);
    result_add_technique(r->res, ls->name, met, why ? why : ls->why);
    /* met: the figures are told all the same (a miss says them as its why) */
    if (met)
        check_message(r, "%s: yours %.4g, the reference solution's %.4g, %s %.4g (counted by the emulator at n=%llu)",
                      ls->what, v, ls->solution, ls->max > 0 ? "at most" : "at least", ls->max > 0 ? ls->max : ls->min, n);
    free(why);
}

/* The profile said no counters.  When the judge's report blames the
 * kernel (it failed, crashed, hung or broke a rule at the lesson's size),
 * the lesson's technique is missing; when the judge itself did not run or
 * report, the lesson is not checked and the verdict stands, said so. */
static void profile_failed(struct check_state *r, const struct proc_result *pr, const char *json,
                           unsigned long long n)
{
    struct result h = {0};
    char why[200], err[128], *text = pr->timed_out ? NULL : util_read_file(json, NULL);
    int st = text && result_merge_judge(&h, text, err, sizeof err) == 0 ? (int)h.status : -1;
    int blamed = st == STATUS_FAIL || st == STATUS_RUNTIME_ERROR || st == STATUS_TIMEOUT || st == STATUS_REJECTED ||
                 pr->timed_out;
    if (blamed)
        snprintf(why, sizeof why, "its call at n=%llu ended %s%s%.120s", n, pr->timed_out ? "past its time" :
                 status_name((enum status)st), h.nmsgs ? ": " : "", h.nmsgs ? h.messages[h.nmsgs - 1] : "");
    else
        proc_describe(pr, why, sizeof why);
    result_set_text(&r->res->counters_note, why);
    if (blamed && r->lab->lesson.counter) {
        result_add_technique(r->res, r->lab->lesson.name, 0, why);
    } else if (r->lab->lesson.counter) {
        check_message(r, "the emulator could not count the kernel's launches (%s): the lesson's %s was not checked",
                      st < 0 ? "the profile left no report" : why, r->lab->lesson.what);
    } else {
        check_message(r, "the emulator could not count the kernel's launches (%s)", why);
    }
    result_free(&h);
    free(text);
}

/* One CPU judge's profile at size N, its counters said on the channel. */
struct profile_one {
    unsigned long long n;
    char **hx, *nword, *json;
    char *argv[128];
    struct proc_spec spec;
    struct emu_said said;
    struct proc_result pr;
    int rc;                 /* 0: it ran and said its counters */
};

/* Without a GPU, the two profiles a pass needs (the lesson's counters at
 * its size, the prediction's second size) run beside the CPU judge's
 * trials, on the host's other core: started with the trials
 * (counters_ahead), waited for by stage_counters, stopped when the check
 * ends without a pass (counters_ahead_end). */
struct profile_job {
    struct profile_one one[2];      /* [0] the lesson's size; [1] the smaller, n 0: none */
    atomic_int cancel;
    pthread_t thread;
};

/* The profile at N into P, its report at JSON, not yet run; 0 or -1. */
static int profile_prepare(struct check_state *r, struct profile_one *p, const char *json,
                           unsigned long long n, const atomic_int *cancel)
{
    int a = 0;
    memset(p, 0, sizeof *p);
    p->n = n;
    p->rc = -1;
    p->json = strdup(json);
    p->nword = util_format("%llu", n);
    p->hx = p->json ? judge_argv(r, p->json, "profile", &n, 1, 0) : NULL;
    if (!p->json || !p->nword || !p->hx)
        return -1;
    for (int i = 0; p->hx[i] && a < 120; i++)
        p->argv[a++] = p->hx[i];
    p->argv[a++] = "--profile-n";
    p->argv[a++] = p->nword;
    p->spec = (struct proc_spec){.argv = p->argv, .cwd = r->dir, .timeout_s = check_timeout(r),
                                 .output_cap = OUTPUT_KEEP, .on_line = said_line, .ud = &p->said,
                                 .channel = 1, .cancel = cancel,
                                 .as_bytes = (size_t)r->lab->family->emu_memory_mib << 20};
    return 0;
}

static void profile_go(struct profile_one *p)
{
    memset(&p->said, 0, sizeof p->said);
    p->rc = proc_run(&p->spec, &p->pr) || !p->pr.exited || p->pr.exit_code != 0 || p->said.n == 0 ? -1 : 0;
}

static void profile_free(struct profile_one *p)
{
    judge_argv_free(p->hx);
    free(p->nword);
    free(p->json);
    proc_result_free(&p->pr);
    memset(p, 0, sizeof *p);
}

/* The CPU judge's profile at size N into P, run now; 0 when it ran and
 * said its counters. */
static int profile_at(struct check_state *r, const char *json, unsigned long long n, struct profile_one *p)
{
    if (profile_prepare(r, p, json, n, NULL))
        return -1;
    profile_go(p);
    return p->rc;
}

/* The counters the time model reads, from what a profile said at N. */
static void said_counts(const struct emu_said *s, unsigned long long n, struct predict_counts *c)
{
    memset(c, 0, sizeof *c);
    c->n = (double)n;
    for (int i = 0; i < s->n; i++) {
        double *f = predict_count_field(c, s->names[i]);
        if (f)
            *f = s->values[i];
        else if (!strcmp(s->names[i], "resident_blocks_per_sm"))
            c->resident = s->values[i];
    }
}

/* The prediction's second size below the lesson's N. */
static unsigned long long small_n(unsigned long long n)
{
    return n / 16 >= 256 ? n / 16 : n / 2;
}

/* The lesson's size: the lab's lesson n, else the family's largest
 * emulated size up to 2^16. */
static unsigned long long lesson_n(const struct check_state *r)
{
    unsigned long long n = r->lab->lesson.n;
    return n ? n : r->lab->family->emu_max_n < 65536 ? r->lab->family->emu_max_n : 65536;
}

/* The target's case (its first): its size, label and input ("" the
 * family's own). */
static unsigned long long target_n(const struct lab *lab, const char **label, const char **input)
{
    const struct family_spec *f = lab->family;
    const struct perf_spec *p = &f->perf[f->nperf - 1];
    for (int i = 0; i < f->nperf; i++)
        if (!strcmp(f->perf[i].label, lab->target.case_label))
            p = &f->perf[i];
    *label = p->label;
    *input = p->input;
    return p->n;
}

/* The predicted time at the target's size (model/predict.h): a second
 * profile at a sixteenth of N draws each counter's line through the two
 * sizes; the reference is predicted by the same model from what it
 * moves.  Said as a prediction, never as a measurement. */
static void predict_stage(struct check_state *r, const char *json, const struct emu_said *big, unsigned long long n,
                          struct profile_one *small)
{
    struct predict_model m = {0};
    struct predict_counts a, b, at;
    struct predict_time t, rt;
    char err[200], words[32], ref_words[64] = "";
    char *path = toolchain_path(r->tc, "data/predict.json");
    const char *label, *input, *want = getenv("CUDATUTOR_PREDICT_GPU");
    unsigned long long n1 = small_n(n), big_n = target_n(r->lab, &label, &input);
    if (input[0]) {
        /* the profile's input is the family's own, not the case's shape */
        check_message(r, "no predicted time: the target's case (%s) has an input of its own (%s), which the "
                         "emulator's profile does not count", label, input);
        goto out;
    }
    if (!path || predict_load(&m, path, err, sizeof err)) {
        check_message(r, "no predicted time: %s", path ? err : "out of memory");
        goto out;
    }
    const struct predict_gpu *g = predict_gpu_find(&m, want && *want ? want : NULL);
    if (!g) {
        check_message(r, "no predicted time: data/predict.json has no GPU %s", want);
        goto out;
    }
    /* run ahead (counters_ahead), or now */
    if (n1 < 1 || n1 >= n || (small->n != n1 && profile_at(r, json, n1, small)) || small->rc)
        goto out;   /* the verdict stands; a prediction is not owed */
    said_counts(&small->said, n1, &a);
    said_counts(big, n, &b);
    predict_extrapolate(&a, &b, (double)big_n, &at);
    predict_kernel(g, &at, &t);
    struct rpredicted *p = &r->res->predicted;
    memset(p, 0, sizeof *p);
    snprintf(p->gpu, sizeof p->gpu, "%s", g->name);
    snprintf(p->case_label, sizeof p->case_label, "%s", label);
    snprintf(p->bound, sizeof p->bound, "%s", t.bound);
    p->n = big_n;
    p->from_n[0] = n1;
    p->from_n[1] = n;
    p->seconds = t.seconds;
    const struct predict_ref *ref = predict_ref_find(&m, r->lab->family->name);
    if (ref) {
        predict_reference(g, ref, (double)big_n, &rt);
        p->ref_seconds = rt.seconds;
        p->ratio = rt.seconds / t.seconds;
        /* data/predict.json models CUB's references only */
        snprintf(ref_words, sizeof ref_words, " (%.2fx CUB)", p->ratio);
    }
    r->res->have_predicted = 1;
    predict_time_words(t.seconds, words, sizeof words);
    check_message(r, "predicted on an %s: %s at %s%s, %s-bound (a model fed the emulator's counters at "
                  "n=%llu and %llu, not a measurement)", g->key, words, label, ref_words, t.bound, n1, n);
out:
    predict_free(&m);
    free(path);
}

static void *profile_thread(void *arg)
{
    struct profile_job *j = arg;
    for (int i = 0; i < 2 && !atomic_load(&j->cancel); i++)
        if (j->one[i].n)
            profile_go(&j->one[i]);
    return NULL;
}

static void profile_job_free(struct profile_job *j)
{
    profile_free(&j->one[0]);
    profile_free(&j->one[1]);
    free(j);
}

void counters_ahead(struct check_state *r)
{
    const char *label, *input;
    unsigned long long n = lesson_n(r);
    struct profile_job *j = r->pj ? NULL : calloc(1, sizeof *j);
    char *big = util_format("%s/profile.json", r->dir), *small = util_format("%s/profile-small.json", r->dir);
    if (!j || !big || !small || profile_prepare(r, &j->one[0], big, n, &j->cancel))
        goto fail;
    target_n(r->lab, &label, &input);
    if (!input[0] && small_n(n) >= 1 && profile_prepare(r, &j->one[1], small, small_n(n), &j->cancel))
        goto fail;
    if (pthread_create(&j->thread, NULL, profile_thread, j))
        goto fail;
    r->pj = j;
    j = NULL;
fail:
    if (j)
        profile_job_free(j);
    free(big);
    free(small);
}

void counters_ahead_end(struct check_state *r)
{
    if (!r->pj)
        return;
    atomic_store(&r->pj->cancel, 1);
    pthread_join(r->pj->thread, NULL);
    profile_job_free(r->pj);
    r->pj = NULL;
}

/* Without a GPU: the CPU judge's profile at the lesson's size, and from
 * it the lesson's counter and, on a pass, the predicted time; the
 * profiles run ahead when counters_ahead started them. */
static int emu_counters(struct check_state *r)
{
    unsigned long long n = lesson_n(r);
    struct profile_job *j = r->pj;
    struct profile_one own[2] = {{0}}, *one = own;
    char *json = util_format("%s/profile.json", r->dir);
    if (!json)
        goto out;
    check_progress(r, STAGE_COUNTERS, 0, 0, "the emulator");
    if (j) {
        pthread_join(j->thread, NULL);
        one = j->one;
    } else {
        profile_at(r, json, n, &one[0]);
    }
    if (one[0].rc) {
        profile_failed(r, &one[0].pr, one[0].json ? one[0].json : json, n);
        goto out;
    }
    const struct emu_said *said = &one[0].said;
    if (r->o->counters) {
        result_set_text(&r->res->counters_tool, "emulator");
        r->res->counters_n = n;
        r->res->counters_kernels = (int)said_value(said, "launches", n);
        r->res->counters_s = one[0].pr.seconds;
        for (int i = 0; i < said->n; i++)
            result_add_counter(r->res, said->names[i], said->values[i]);
    }
    if (r->lab->lesson.counter)
        lesson_technique(r, said, n);
    if (check_get_status(r) == STATUS_PASS)
        predict_stage(r, json, said, n, &one[1]);
out:
    if (j) {
        profile_job_free(j);
        r->pj = NULL;
    }
    profile_free(&own[0]);
    profile_free(&own[1]);
    free(json);
    return 0;
}

int stage_counters(struct check_state *r)
{
    if (r->emulated) {
        r->res->have_counters = r->o->counters;
        return emu_counters(r);
    }
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
    if (!r->tc->ncu) {
        result_set_text(&r->res->counters_note, "ncu not found: no counters");
        goto out;
    }
    if (!log || !json || !(metrics = metric_list(r, names, &nnames)))
        goto out;
    hx = judge_argv(r, json, "profile", &n, 1, 0);
    if (!hx || !(logopt = util_format("%llu", n)))
        goto out;
    check_progress(r, STAGE_COUNTERS, 0, 0, "ncu");
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
