/* check.c — see check.h.  The stages (check_stage.h) run in the order of
 * docs/harness.md and each can end the check with a verdict; the report is
 * built as it goes, so that whatever stage stopped, the JSON says what
 * happened up to there.  This file holds the order, --build-only and
 * --run-only, the target and the summary line; the stages' common helpers
 * are leaves (check_tell.c, check_argv.c). */
#include "check/check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/check_intake.h"
#include "check/check_stage.h"
#include "model/result.h"
#include "sys/util.h"

/* What --build-only leaves in the work folder for --run-only. */
#define BUILD_JSON "build.json"
/* What the summary of a --build-only check says after its status's meaning. */
#define BUILT_WORDS "built only (--build-only); --run-only runs this build"

unsigned long long check_new_seed(void)
{
    unsigned long long s = 0;
    if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s)
        s = (unsigned long long)getpid() * 0x9e3779b97f4a7c15ull ^ (unsigned long long)(util_now() * 1e9);
    return s & ((1ull << 48) - 1);
}

/* ---- target and summary ------------------------------------------------- */

static double perf_metric(const struct rperf *p, enum metric m)
{
    /* A figure the judge gave as null (gbps, pct_peak of a compute-bound
     * family) counts as 0. */
    double x = m == METRIC_RATIO ? p->ratio : m == METRIC_PCT_PEAK ? p->pct_peak
             : m == METRIC_GBPS ? p->gbps : p->rate;
    x = x < 0 ? 0 : x;
    /* The catalog gives pct_peak as a fraction (0.8), the report as percent. */
    return m == METRIC_PCT_PEAK ? x / 100.0 : x;
}

/* One case of the target: its value (< 0: the case was not timed) and
 * whether it is met. */
static int target_case(const struct result *res, enum metric m, const char *label, double min, double *value)
{
    const struct rperf *hit = result_perf(res, label);
    if (!hit) {
        *value = -1;
        return 0;
    }
    *value = perf_metric(hit, m);
    return *value >= min && !hit->implausible;
}

/* The target: its first case at the top level (metric, case, min, value),
 * any further case in "also", and "met" at the top only when every case
 * is met. */
static void stage_target(struct check_state *r)
{
    const struct target *t = &r->lab->target;
    struct result *res = r->res;
    /* A grader calibrated for a GPU on which the reference solution itself
     * falls short of the catalog's threshold passes a lower one; the other
     * cases of the target are lowered in the same proportion. */
    double min = r->o->target_min > 0 ? r->o->target_min : t->min;
    double scale = t->min > 0 ? min / t->min : 1, value;
    res->have_target = 1;
    result_set_text(&res->target_metric, metric_name(t->metric));
    result_set_text(&res->target_case, t->case_label);
    res->target_min = min;
    res->target_catalog_min = min != t->min ? t->min : 0;
    res->target_provisional = t->provisional;
    if (r->emulated)
        result_set_text(&res->target_note, "not measured: judged on the CPU emulator, without a GPU");
    int met = target_case(res, t->metric, t->case_label, min, &value);
    res->target_value = value < 0 ? 0 : value;
    res->target_have_value = value >= 0;
    for (int i = 0; i < t->nalso; i++) {
        double cmin = t->also[i].min * scale, cvalue;
        int cmet = target_case(res, t->metric, t->also[i].case_label, cmin, &cvalue);
        result_add_target_case(res, t->also[i].case_label, cmin, cmin != t->also[i].min ? t->also[i].min : 0,
                               cvalue, cmet);
        met &= cmet;
    }
    res->target_met = met;
}

/* "2^20", or the number when it is no power of two. */
static void size_words(char *buf, size_t len, double n)
{
    unsigned long long v = (unsigned long long)n;
    int k = 0;
    while (k < 63 && (1ull << k) < v)
        k++;
    if (v && (1ull << k) == v)
        snprintf(buf, len, "2^%d", k);
    else
        snprintf(buf, len, "%llu", v);
}

/* A pass's summary: the tests, the target's case (and each further case)
 * with its figures, and where the target stands. */
static void pass_words(const struct result *res, const struct rperf *tp, const char *meaning, char *buf, size_t len)
{
    if (tp && tp->gbps > 0)
        snprintf(buf, len, "%s: %d tests; %s in %.3f ms, %.0f GB/s, %.0f%% of peak, "
                           "%.2fx %s; target %s", meaning, res->ntests, tp->label, tp->median_ms,
                 tp->gbps, tp->pct_peak, tp->ratio, tp->ref_name, result_target_words(res));
    else if (tp)
        snprintf(buf, len, "%s: %d tests; %s in %.3f ms, %.1f %s, %.2fx %s; "
                           "target %s", meaning, res->ntests, tp->label, tp->median_ms, tp->rate,
                 tp->rate_unit, tp->ratio, tp->ref_name, result_target_words(res));
    else
        snprintf(buf, len, "%s: %d tests", meaning, res->ntests);
    /* A target of several cases: each of the others, and where it stands. */
    for (int i = 0; tp && i < res->ntarget_also; i++) {
        const struct rperf *p = result_perf(res, res->target_also[i].case_label);
        char *cut = strstr(buf, "; target "), tail[64];
        if (!p || !cut)
            continue;
        util_copy(tail, sizeof tail, cut);
        snprintf(cut, len - (size_t)(cut - buf), "; %s in %.3f ms, %.2fx%s", p->label, p->median_ms,
                 p->ratio, tail);
    }
}

/* The summary of a run on the CPU emulator: where it ran, up to which size,
 * what it could not judge.  Replaces a pass's figures (there are none),
 * and says after any other verdict where it was reached. */
static void summarize_emulated(const struct check_state *r, const struct result *res, char *buf, size_t len)
{
    int skipped = res->emu_not_run;
    char bound[32], more[64] = "";
    size_t used = strlen(buf);

    /* A CPU judge that left no report (killed at its limit) still ran up
     * to the catalog's bound. */
    size_words(bound, sizeof bound, res->emulated && res->emu_max_n ? (double)res->emu_max_n
                                                                    : (double)r->lab->family->emu_max_n);
    if (skipped)
        snprintf(more, sizeof more, "; %d larger size%s not run", skipped, skipped == 1 ? "" : "s");
    if (res->status == STATUS_PASS) {
        snprintf(buf, len, "%s up to n=%s: %d tests, passed on the CPU (the PTX emulator, no GPU)%s; "
                           "the target is measured on a GPU only", status_meaning(res->status), bound,
                 res->ntests, more);
        return;
    }
    if (res->status == STATUS_NO_GPU) {
        /* A form the emulator does not run: the reason is its message. */
        for (int i = 0; i < res->nmsgs; i++)
            if (!strncmp(res->messages[i], "needs a GPU", 11)) {
                snprintf(buf, len, "%s: %s", status_meaning(res->status), res->messages[i]);
                return;
            }
    }
    if (used + 1 < len)
        snprintf(buf + used, len - used, " (on the CPU emulator, sizes up to n=%s)", bound);
}

static void summarize(struct check_state *r)
{
    const struct result *res = r->res;
    char buf[512];
    const struct rperf *tp = result_target_perf(res);

    /* Every summary opens with its headline (status.h, the one wording:
     * a fail's cause, else the status's meaning), then says what this run
     * showed. */
    const char *meaning = status_meaning(res->status);
    switch (res->status) {
    case STATUS_PASS:
        pass_words(res, tp, meaning, buf, sizeof buf);
        break;
    case STATUS_FAIL:
        /* A fail opens with its cause instead (model/result.h). */
        result_fail_words(res, buf, sizeof buf);
        break;
    case STATUS_COMPILE_ERROR: {
        const struct rdiag *d = result_first_error(res);
        if (d && d->line > 0)
            snprintf(buf, sizeof buf, "%s: %s:%d: %s", meaning, d->file, d->line, d->message);
        else if (d)
            snprintf(buf, sizeof buf, "%s: %s %s", meaning, d->file, d->message);
        else
            snprintf(buf, sizeof buf, "%s: see the compiler's log", meaning);
        break;
    }
    case STATUS_REJECTED:
        /* The judge's plan checks name the rule in a sentence of their own. */
        if (res->nviol && !strcmp(res->viol_symbols[0], PLAN_SYMBOL))
            snprintf(buf, sizeof buf, "%s: %s", meaning, res->viol_rules[0]);
        else
            snprintf(buf, sizeof buf, "%s: %s %s — %s", meaning, result_violation_verb(res, 0),
                     res->nviol ? res->viol_symbols[0] : "?",
                     res->nviol ? res->viol_rules[0] : "");
        break;
    case STATUS_NO_GPU: {
        int sizes = res->plan_nseen;
        /* Each size is asked for twice: the same call must get the same plan. */
        if (res->stage == RESULT_BUILT)
            snprintf(buf, sizeof buf, "%s: %s", meaning, BUILT_WORDS);
        else if (sizes > 0 && res->plan_plans >= 0)
            snprintf(buf, sizeof buf, "%s: the launcher's %d plans for %d sizes (each asked for twice) follow "
                                      "the rules (checked without a GPU)", meaning, res->plan_plans, sizes);
        else if (sizes > 0)
            snprintf(buf, sizeof buf, "%s: the launcher's plans for %d sizes follow the rules "
                                      "(checked without a GPU)", meaning, sizes);
        else
            snprintf(buf, sizeof buf, "%s", meaning);
        break;
    }
    default:
        snprintf(buf, sizeof buf, "%s%s%s", meaning, res->nmsgs ? ": " : "",
                 res->nmsgs ? res->messages[res->nmsgs - 1] : "");
        break;
    }
    if (r->emulated)
        summarize_emulated(r, res, buf, sizeof buf);
    result_set_text(&r->res->summary, buf);
}

/* ---- the check ---------------------------------------------------------- */

/* FNV-1a of the kernel file, so that --run-only never runs a build of other
 * contents.  NULL when the file cannot be read. */
static char *source_hash(const char *path)
{
    size_t len = 0;
    char *text = util_read_file(path, &len);
    unsigned long long h = 0xcbf29ce484222325ull;
    if (!text)
        return NULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    free(text);
    return util_format("%016llx", h);
}

/* --run-only: the build.json that --build-only wrote in the work folder, if
 * it was made of this lab, this file and these contents, into b.  Nothing
 * in a build depends on the seed (lab 09's integrand is drawn at run time),
 * so one build runs under any --seed: the build's own when none is given.
 * -1 with a message in err. */
static int load_build(struct check_state *r, const char *file, struct result *b, char *err, size_t errlen)
{
    char *path = util_format("%s/%s", r->dir, BUILD_JSON);
    char *text = path ? util_read_file(path, NULL) : NULL;
    char *hash = source_hash(r->src), why[128];
    int parsed = text && result_parse(text, b, why, sizeof why) == 0;

    if (!text)
        snprintf(err, errlen, "no build in %s: run check %s --build-only with the same --work-dir first",
                 r->dir, r->lab->id);
    else if (!parsed || !b->lab[0] || !b->file[0] || !b->have_seed)
        snprintf(err, errlen, "%s is not a build that --build-only wrote", path);
    else if (strcmp(b->lab, r->lab->id))
        snprintf(err, errlen, "the build in %s is of lab %s, not %s", r->dir, b->lab, r->lab->id);
    else if (strcmp(b->file, file))
        snprintf(err, errlen, "the build in %s is of %s, not %s", r->dir, b->file, file);
    else if (!hash || !b->source_hash || strcmp(b->source_hash, hash))
        snprintf(err, errlen, "%s changed since it was built: build again", file);
    else
        err[0] = '\0';
    if (err[0] && parsed)
        result_free(b);
    free(path);
    free(text);
    free(hash);
    return err[0] ? -1 : 0;
}

/* --run-only: takes the compile, rules and technique sections of the build,
 * its messages, and its verdict when the build already decided one (a
 * compile error, a rejection).  Returns 0 when the harness should run. */
static int stage_resume(struct check_state *r, struct result *b)
{
    struct result *res = r->res;
    result_take_build(res, b);
    for (int i = 0; i < b->nmsgs; i++)
        check_message(r, "%s", b->messages[i]);
    if (b->stage != RESULT_BUILT) {
        check_set_status(r, b->status);
        return 1;
    }
    if (!util_is_file(r->bin)) {
        check_message(r, "the build left no %s: build again", r->bin);
        return 1;
    }
    return 0;
}

/* --build-only: keeps the report for --run-only. */
static void save_build(struct check_state *r)
{
    char *path = util_format("%s/%s", r->dir, BUILD_JSON);
    char *text = result_to_json(r->res, 1);
    if (!path || !text || util_write_file(path, text, strlen(text))) {
        check_set_status(r, STATUS_INTERNAL_ERROR);
        check_message(r, "cannot write %s", path ? path : BUILD_JSON);
    }
    free(path);
    free(text);
}

/* The lock that every check on this machine takes to use the GPU, whoever
 * runs it and from whichever workbook: two students on one GPU server must
 * not time at once, or each slows the other's kernel.  $CUDATUTOR_GPU_LOCK,
 * else MACHINE_LOCK, made readable and writable by every user (a write lock
 * needs both).  A symbolic link there (someone's trap: it is not followed),
 * something other than a file, or a file this user cannot open leaves the
 * workbook's own lock, and a note that says so.  Anyone who can open the
 * file can hold it too; a wait for it ends after GPU_WAIT_S all the same. */
static char *machine_lock(struct check_state *r)
{
    const char *env = getenv("CUDATUTOR_GPU_LOCK");
    const char *path = env && env[0] ? env : MACHINE_LOCK;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0666);
    int e = fd < 0 ? errno : 0;
    struct stat st;

    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if (st.st_uid == geteuid())
            (void)fchmod(fd, 0666);     /* past this user's umask */
        close(fd);
        return strdup(path);
    }
    if (fd >= 0)
        close(fd);
    r->lock_note = util_format("the machine's GPU lock %s cannot be used (%s): this check takes turns with "
                               "the GPU only with the other checks of this workbook", path,
                               e == ELOOP ? "it is a symbolic link" : e ? strerror(e) : "not a regular file");
    return util_format("%s/check/gpu.lock", r->tc->build_dir);
}

static int prepare(struct check_state *r, char *err, size_t errlen)
{
    const char *base;
    char *stem;

    if (r->o->work_dir)
        r->dir = strdup(r->o->work_dir);
    else
        r->dir = util_format("%s/check/%s", r->tc->build_dir, r->lab->id);
    r->src = r->o->file ? strdup(r->o->file) : util_format("%s/%s/kernel.cu", r->tc->root, r->lab->dir);
    if (!r->dir || !r->src)
        goto oom;
    /* One lock for every check on this machine (a grader's runs pass their
     * own): a check in the tutor, one in a terminal and a classmate's do not
     * time at once. */
    r->gpu_lock = r->o->gpu_lock ? strdup(r->o->gpu_lock)
                : r->o->build_only ? util_format("%s/check/gpu.lock", r->tc->build_dir)  /* runs nothing */
                : machine_lock(r);
    if (!r->gpu_lock)
        goto oom;
    r->keep = util_format("%s/keep", r->dir);
    r->obj = util_format("%s/kernel.o", r->dir);
    r->deps = util_format("%s/kernel.d", r->dir);
    r->bin = util_format("%s/runner", r->dir);
    if (!r->keep || !r->obj || !r->bin || !r->deps)
        goto oom;
    base = strrchr(r->src, '/');
    base = base ? base + 1 : r->src;
    if (!(stem = strdup(base)))
        goto oom;
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = '\0';
    r->ptx = util_format("%s/%s.ptx", r->keep, stem);
    r->fatbin = util_format("%s/%s.fatbin", r->keep, stem);
    r->cubin = util_format("%s/%s.%s.cubin", r->keep, stem, r->tc->arch);
    free(stem);
    if (!r->ptx || !r->fatbin || !r->cubin)
        goto oom;
    if (util_mkdirs(r->keep)) {
        snprintf(err, errlen, "cannot create %s: %s", r->keep, strerror(errno));
        return -1;
    }
    /* Two checks of one lab (the tutor and a terminal, say) share this
     * folder: the second waits for the first instead of mixing its files. */
    char *lock = util_format("%s/.lock", r->dir);
    r->lock_fd = lock ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
    free(lock);
    if (r->lock_fd < 0 || flock(r->lock_fd, LOCK_EX) != 0) {
        snprintf(err, errlen, "cannot lock %s: %s", r->dir, strerror(errno));
        return -1;
    }
    /* Stale outputs must never pass for this run's; --run-only runs the
     * build's own, which load_build vouches for. */
    if (!r->o->run_only) {
        char *build = util_format("%s/%s", r->dir, BUILD_JSON);
        if (build)
            unlink(build);
        free(build);
        unlink(r->obj);
        unlink(r->bin);
        unlink(r->ptx);
        unlink(r->fatbin);
        unlink(r->cubin);
        unlink(r->deps);
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* Where the stages end: the verdict's last word (a missing technique), the
 * time, the kept build, the summary. */
static void finish(struct check_state *r)
{
    /* A missing technique fails a kernel that is otherwise right; each
     * one missing is told. */
    int passed = check_get_status(r) == STATUS_PASS;
    for (int i = 0; passed && i < r->res->ntech; i++)
        if (!r->res->tech[i].found) {
            check_set_status(r, STATUS_FAIL);
            check_message(r, "technique missing: %s — %s", r->res->tech[i].name, r->res->tech[i].why);
        }
    r->res->total_s = util_now() - r->t0;
    r->res->have_total_s = 1;
    if (r->o->build_only)
        save_build(r);
    summarize(r);
    check_progress(r, STAGE_DONE, 0, 0, status_name(check_get_status(r)));
}

/* --sanitize-later: whether this pass's race checkers are left to the
 * second run.  Not when the hazard pass did not finish (the pass rests on
 * them, and says so now), nor where none would run on a GPU here. */
static int sanitize_deferred(const struct check_state *r)
{
    return r->o->sanitize_later && r->o->sanitize && !r->force_sanitize && !r->emulated && r->tc->sanitizer &&
           !r->o->gpu_via;
}

/* --sanitize-from: the first run's result in place of this one's, then the
 * race checkers it awaits, which can turn its pass as they would have
 * beside its judge (the same bound: the judge's seconds count).  The result
 * must be of this build (lab, file, contents, seed).  -1 with err. */
static int stage_sanitize_from(struct check_state *r, char *err, size_t errlen)
{
    struct result first = {0};
    char why[160];
    if (result_read_file(r->o->sanitize_from, &first, why, sizeof why)) {
        snprintf(err, errlen, "--sanitize-from %s: %s", r->o->sanitize_from, why);
        return -1;
    }
    if (strcmp(first.lab, r->res->lab) || strcmp(first.file, r->res->file) || !first.source_hash ||
        !r->res->source_hash || strcmp(first.source_hash, r->res->source_hash) || first.seed != r->seed) {
        snprintf(err, errlen, "--sanitize-from %s: not a result of this build (lab %s, %s, seed %llu)",
                 r->o->sanitize_from, r->res->lab, r->res->file, r->seed);
        result_free(&first);
        return -1;
    }
    result_free(r->res);
    *r->res = first;
    if (!r->res->sanitize_pending)
        return 0;
    r->res->sanitize_pending = 0;
    /* One check's time, and one bound, over both runs. */
    r->t0 = util_now() - r->res->total_s;
    r->run_t0 = util_now() - r->res->run_s;
    if (check_get_status(r) == STATUS_PASS)
        stage_sanitize(r);
    return 0;
}

/* The stages from the judge on: sanitizer, counters and target as the
 * verdict so far allows. */
static void stage_run(struct check_state *r)
{
    /* With the GPU elsewhere, the CPU tier here and then the GPU judge
     * through the command (check_via_run.c). */
    if (r->o->gpu_via)
        via_stage(r);
    else
        stage_judge(r);
    /* the profiles run ahead serve a pass only */
    if (check_get_status(r) != STATUS_PASS)
        counters_ahead_end(r);
    if (check_get_status(r) == STATUS_NO_GPU)
        return;
    /* a hazard pass that did not finish: the race checkers run whatever
     * the options say, and without their clean run there is no pass */
    if (check_get_status(r) == STATUS_PASS && r->hazard_open[0])
        r->force_sanitize = 1;
    if (check_get_status(r) == STATUS_PASS && sanitize_deferred(r)) {
        r->res->have_sanitizer = r->res->sanitize_pending = 1;
        san_batch_write(r);
    }
    else if (check_get_status(r) == STATUS_PASS)
        stage_sanitize(r);
    san_end(r, 0);
    if (check_get_status(r) == STATUS_PASS && r->hazard_open[0]) {
        if (r->res->sanitizer_ran) {
            check_message(r, "the emulator's race and bounds check did not finish (%s): this pass "
                             "rests on compute-sanitizer's clean run", r->hazard_open);
        } else {
            check_set_status(r, STATUS_FAIL);
            check_message(r, "the emulator's race and bounds check did not finish (%s) and "
                             "compute-sanitizer could not run: a pass needs one of the two",
                          r->hazard_open);
        }
    }
    /* without a GPU the lesson's counter is a technique the pass needs,
     * and the counters predict the time (docs/predicted-time.md) */
    if (check_get_status(r) == STATUS_PASS && (r->o->counters || r->emulated))
        stage_counters(r);
    if (check_get_status(r) == STATUS_PASS || check_get_status(r) == STATUS_FAIL)
        stage_target(r);
}

/* When the GPU judge's trials pass: the hazard pass and the race checkers
 * start, to run while the judge times the kernel. */
static void trials_passed(struct check_state *r)
{
    hazard_begin(r);
    if (!r->o->sanitize_later)
        san_begin(r);
}

/* The build stages, in order, until one ends the check.  Returns 0 when
 * the build is whole. */
static int stage_build(struct check_state *r)
{
    int (*const stages[])(struct check_state *) = {stage_compile, stage_rules, stage_link};
    if (!util_is_file(r->src)) {
        check_set_status(r, STATUS_COMPILE_ERROR);
        check_message(r, "%s: no such file", r->src);
        return 1;
    }
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        int stop = stages[i](r);
        if (stop < 0)
            check_set_status(r, STATUS_INTERNAL_ERROR);
        if (stop)
            return 1;
        /* the link needs the object alone: it runs beside the rules */
        if (stages[i] == stage_compile)
            link_begin(r);
    }
    return 0;
}

static void run_free(struct check_state *r)
{
    link_end(r);
    judge_early_end(r);
    counters_ahead_end(r);
    hazard_end(r, 0);
    san_end(r, 0);
    free(r->gpu_lock);
    free(r->lock_note);
    if (r->lock_fd >= 0)
        close(r->lock_fd);
    free(r->dir);
    free(r->src);
    free(r->obj);
    free(r->bin);
    free(r->keep);
    free(r->ptx);
    free(r->fatbin);
    free(r->cubin);
    free(r->deps);
}

int check_run(const struct toolchain *tc, const struct catalog *cat, const struct lab *lab,
              const struct check_opts *opts, struct result *out, char *err, size_t errlen)
{
    struct check_state r = {.tc = tc, .cat = cat, .lab = lab, .o = opts, .t0 = util_now(), .lock_fd = -1,
                    .trials_passed = trials_passed, .res = out};
    struct toolchain there;
    struct result build = {0};
    int have_build = 0, stop, rc = -1;
    const char *file;

    memset(out, 0, sizeof *out);
    if (!tc->nvcc) {
        snprintf(err, errlen, "nvcc not found: install the CUDA toolkit, or set NVCC or CUDA_HOME "
                              "(searched $NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)");
        return -1;
    }
    /* The GPU elsewhere (--gpu-via): the kernel is built for that one. */
    if (opts->gpu_arch && *opts->gpu_arch) {
        there = *tc;
        util_copy(there.arch, sizeof there.arch, opts->gpu_arch);
        r.tc = &there;
    }
    if (prepare(&r, err, errlen))
        goto out;
    size_t rl = strlen(tc->root);
    file = !strncmp(r.src, tc->root, rl) && r.src[rl] == '/' ? r.src + rl + 1 : r.src;
    if (opts->run_only) {
        if (load_build(&r, file, &build, err, errlen))
            goto out;
        have_build = 1;
    }
    r.seed = opts->have_seed ? opts->seed : have_build ? build.seed : check_new_seed();
    if (result_init(out, lab->id, lab->family->name, file, r.seed)) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    rc = 0;
    if (r.lock_note)
        check_message(&r, "%s", r.lock_note);
    if (!have_build && (stop = check_intake(&r, file)) != 0) {
        if (stop < 0)
            check_set_status(&r, STATUS_INTERNAL_ERROR);
        goto done;
    }
    if (opts->build_only || have_build) {
        char *hash = source_hash(r.src);
        if (hash)
            result_set_text(&out->source_hash, hash);
        free(hash);
    }
    if (have_build && opts->sanitize_from) {
        if (stage_sanitize_from(&r, err, errlen))
            rc = -1;
        else
            finish(&r);
        goto out;
    }
    if (have_build) {
        if (stage_resume(&r, &build) == 0)
            stage_run(&r);
        goto done;
    }
    judge_early_begin(&r);
    if (stage_build(&r))
        goto done;
    if (opts->trace) {
        stage_trace(&r);
        goto done;
    }
    if (opts->build_only) {
        /* Built, not run: a stage of its own, under no_gpu's exit code. */
        check_set_status(&r, STATUS_NO_GPU);
        out->stage = RESULT_BUILT;
        goto done;
    }
    stage_run(&r);
done:
    finish(&r);
out:
    if (have_build)
        result_free(&build);
    run_free(&r);
    return rc;
}
