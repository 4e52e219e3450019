/* calibrate_measure.c — see calibrate.h: measuring.  The GPU named by
 * nvidia-smi, and each solution measured by the very check a student's
 * kernel gets, so that the two figures compare like with like; the rule is
 * calibrate_rule.c's, the file calibrate_file.c's. */
#include "check/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "model/progress.h"
#include "sys/proc.h"
#include "sys/util.h"

/* Every calibration run's seed: the same figures for the same GPU. */
#define CALIBRATE_SEED 0x5eed00ull
/* What one run is expected to take before any was timed here: a compile
 * and a --quick run of a solution on an H100. */
#define CALIBRATE_RUN_S 3.0
#define NVIDIA_SMI_TIMEOUT_S 20

/* ---- measuring ---------------------------------------------------------- */

int calibrate_gpu_name_of(const char *sel, char *buf, size_t len)
{
    char *argv[] = {"nvidia-smi", "--query-gpu=name", "--format=csv,noheader", NULL, NULL, NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = NVIDIA_SMI_TIMEOUT_S, .output_cap = 4096};
    struct proc_result res;

    util_copy(buf, len, "");
    if (sel && *sel && strncmp(sel, "MIG-", 4)) {
        argv[3] = "-i";
        argv[4] = (char *)sel;
    }
    if (proc_run(&spec, &res) != 0)
        return -1;
    if (res.started && res.exited && res.exit_code == 0 && res.output) {
        const char *s = res.output + strspn(res.output, " \t");
        size_t n = strcspn(s, "\r\n");
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        if (n && n < len) {
            memcpy(buf, s, n);
            buf[n] = '\0';
        }
    }
    proc_result_free(&res);
    return buf[0] ? 0 : -1;
}

int calibrate_gpu_name(char *buf, size_t len)
{
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    char sel[128] = "";

    util_copy(buf, len, "");
    /* The GPU CUDA will use first: nvidia-smi ignores CUDA_VISIBLE_DEVICES,
     * so it is asked for that one by index or UUID (-i). */
    if (vis) {
        size_t k = strspn(vis, " "), n = strcspn(vis + k, ", ");
        if (n == 0 || n >= sizeof sel)
            return -1;          /* CUDA sees no GPU */
        memcpy(sel, vis + k, n);
    }
    return calibrate_gpu_name_of(sel, buf, len);
}

/* How many checks of the lab's solution calibration runs: none when the
 * catalog has no figure to compare with, or the solution is missing. */
static int runs_of(const struct calibrate_req *q, const struct lab *lab)
{
    if (lab->target.solution <= 0)
        return 0;
    char *file = util_format("%s/%s/kernel.cu", q->tc->root, lab->solution_dir);
    int there = file && util_is_file(file);
    free(file);
    if (!there)
        return 0;
    return 1;
}

/* Where run i of n stands, for the progress of the check inside it. */
struct run_ctx {
    const struct calibrate_req *q;
    const char *id;
    int i, n;
};

/* A stage of the check inside run i of n, reported as that run's detail:
 * the front end shows one "calibrate" line, not a check's stages. */
static void run_progress(void *ud, enum stage_id stage, int i, int n, const char *detail)
{
    const struct run_ctx *x = ud;
    char d[256];
    if (!x->q->progress || stage == STAGE_DONE)
        return;
    if (n > 0)
        snprintf(d, sizeof d, "lab %s: %s %d/%d %s", x->id, stage_name(stage), i, n, detail);
    else
        snprintf(d, sizeof d, "lab %s: %s %s", x->id, stage_name(stage), detail);
    x->q->progress(x->q->ud, STAGE_CALIBRATE, x->i, x->n, d);
}

/* What one run found. */
struct run_out {
    char status[24];
    char device[96];        /* "" when the report names none */
    double value;           /* the target's figure; < 0: none */
    double also[TARGET_MAX_ALSO];   /* its further cases' (target.also), in order */
};

/* Checks the lab's solution with seed CALIBRATE_SEED + k.  Returns 0, or -1
 * with err when check_run could not run at all. */
static int run_one(const struct calibrate_req *q, const struct lab *lab, int k, struct run_ctx *x,
                   struct run_out *out, char *err, size_t errlen)
{
    struct check_opts o = {0};
    char *file = util_format("%s/%s/kernel.cu", q->tc->root, lab->solution_dir);
    char *dir = util_format("%s/check/calibrate/%s-%d", q->tc->build_dir, lab->id, k);
    struct result rep;
    int rc = -1, ran = 0;

    memset(out, 0, sizeof *out);
    out->value = -1;
    for (int i = 0; i < TARGET_MAX_ALSO; i++)
        out->also[i] = -1;
    if (!file || !dir) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    o.file = file;
    o.seed = CALIBRATE_SEED + (unsigned long long)k;
    o.have_seed = 1;
    o.quick = 1;
    o.work_dir = dir;
    if (q->base) {
        o.wrap = q->base->wrap;
        o.timeout_scale = q->base->timeout_scale;
        o.time_budget_ms = q->base->time_budget_ms;
        o.gpu_lock = q->base->gpu_lock;
        o.gpu_via = q->base->gpu_via;
        o.gpu_via_wait_s = q->base->gpu_via_wait_s;
        o.gpu_arch = q->base->gpu_arch;
        o.gpu_name = q->base->gpu_name;
        o.gpu_via_error = q->base->gpu_via_error;
    }
    o.progress = run_progress;
    o.ud = x;
    if (check_run(q->tc, q->cat, lab, &o, &rep, err, errlen))
        goto out;
    ran = 1;
    util_copy(out->status, sizeof out->status, status_name(rep.status));
    util_copy(out->device, sizeof out->device, rep.have_device ? rep.device_name : "");
    if (rep.have_target && rep.target_have_value && rep.target_value >= 0)
        out->value = rep.target_value;
    for (int i = 0; rep.have_target && i < rep.ntarget_also && i < TARGET_MAX_ALSO; i++)
        if (rep.target_also[i].value >= 0)
            out->also[i] = rep.target_also[i].value;
    rc = 0;
out:
    if (ran)
        result_free(&rep);
    free(file);
    free(dir);
    return rc;
}

/* A formatted line for the user, through q->say when there is one. */
static void say(const struct calibrate_req *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const struct calibrate_req *q, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = util_vformat(fmt, ap);
    va_end(ap);
    if (line && q->say)
        q->say(q->ud, line);
    free(line);
}

/* Adds a status to a list of distinct ones ("fail, timeout"). */
static void add_status(char *list, size_t len, const char *s)
{
    char *hit = strstr(list, s);
    size_t n = strlen(s);
    if (hit && (hit == list || hit[-1] == ' ') && (hit[n] == '\0' || hit[n] == ','))
        return;
    size_t used = strlen(list);
    snprintf(list + used, len - used, "%s%s", used ? ", " : "", s);
}

int calibrate_measure(const struct calibrate_req *q, const char *gpu, struct calibrate_gpu *out, char *err,
                      size_t errlen)
{
    const struct catalog *cat = q->cat;
    struct run_ctx x = {.q = q};
    double t0 = util_now();
    int rc = -1;

    memset(out, 0, sizeof *out);
    for (int i = 0; i < cat->nlabs; i++)
        x.n += runs_of(q, &cat->labs[i]);
    if (cat->nlabs && !(out->labs = calloc((size_t)cat->nlabs, sizeof *out->labs))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    util_copy(out->name, sizeof out->name, gpu);
    calibrate_catalog_hash(cat, out->catalog, sizeof out->catalog);
    progress_now(out->measured, sizeof out->measured);
    for (int i = 0; i < cat->nlabs; i++) {
        const struct lab *lab = &cat->labs[i];
        int runs = runs_of(q, lab), passed = 0;
        double lowest[1 + TARGET_MAX_ALSO] = {-1, -1, -1, -1};
        char statuses[96] = "";
        x.id = lab->id;
        for (int k = 0; k < runs; k++) {
            struct run_out r;
            x.i++;
            if (q->progress)
                q->progress(q->ud, STAGE_CALIBRATE, x.i, x.n, lab->id);
            if (run_one(q, lab, k, &x, &r, err, errlen))
                goto fail;
            if (status_from_name(r.status) == STATUS_NO_GPU) {
                say(q, "nvidia-smi names a GPU (%s), but the checks found no CUDA device: the catalog's "
                       "targets stand, and nothing is cached", gpu);
                rc = 1;
                goto fail;
            }
            if (r.device[0] && strcmp(r.device, gpu)) {
                say(q, "the checks ran on a %s, not on the %s that nvidia-smi names: the catalog's targets "
                       "stand, and nothing is cached (CUDA_VISIBLE_DEVICES picks the GPU)", r.device, gpu);
                rc = 1;
                goto fail;
            }
            int pass = status_from_name(r.status) == STATUS_PASS;
            if (pass && r.value >= 0) {
                passed++;
                for (int c = 0; c <= TARGET_MAX_ALSO; c++) {
                    double v = c ? r.also[c - 1] : r.value;
                    if (v >= 0 && (lowest[c] < 0 || v < lowest[c]))
                        lowest[c] = v;
                }
            } else {
                char untimed[48];
                snprintf(untimed, sizeof untimed, "%s, not timed", status_name(STATUS_PASS));
                add_status(statuses, sizeof statuses, pass ? untimed : r.status);
            }
        }
        calibrate_judge_cases(&out->labs[out->nlabs++], lab, runs, passed, lowest, statuses);
    }
    out->nruns = x.n;
    out->seconds = util_now() - t0;
    return 0;
fail:
    calibrate_gpu_free(out);
    return rc;
}

/* The longest a run took in any measurement the file keeps, for the
 * estimate the user is given; CALIBRATE_RUN_S before the first. */
static double run_seconds(const struct calibration *c)
{
    double s = 0;
    for (int i = 0; i < c->ngpus; i++)
        if (c->gpus[i].nruns > 0 && c->gpus[i].seconds / c->gpus[i].nruns > s)
            s = c->gpus[i].seconds / c->gpus[i].nruns;
    return s > 0 ? s : CALIBRATE_RUN_S;
}

/* The line that says what is about to happen and for how long. */
static void say_plan(const struct calibrate_req *q, const char *gpu, const struct calibration *c)
{
    int labs = 0;
    for (int i = 0; i < q->cat->nlabs; i++)
        labs += runs_of(q, &q->cat->labs[i]);
    if (!labs)
        return;
    say(q, "calibrating the targets for %s: running the %d reference solution%s once (about %.0f s); "
           "cached in %s", gpu, labs, labs == 1 ? "" : "s", labs * run_seconds(c), q->path);
}

/* Loads the file for prepare, saying what went wrong.  0 when c is usable. */
static int load_said(const struct calibrate_req *q, struct calibration *c)
{
    char note[1200], err[1200];
    int rc = calibrate_load(q->path, c, note, sizeof note, err, sizeof err);
    if (rc == CALIBRATE_OK && note[0])
        say(q, "%s", note);
    if (rc != CALIBRATE_OK)
        say(q, "%s: the catalog's targets stand", err);
    return rc == CALIBRATE_OK ? 0 : -1;
}

/* The lock that makes a second process wait for the first one's
 * measurement instead of repeating it; -1 when it cannot be had (then both
 * measure, and the last to finish is cached). */
static int measuring_lock(const struct calibrate_req *q, const char *gpu)
{
    char *path = util_format("%s.measuring", q->path);
    int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int busy = errno == EWOULDBLOCK;
        close(fd);
        fd = -1;
        if (busy) {
            say(q, "waiting for another calibration of the targets (a tutor, or a check in another terminal) "
                   "to finish, to use its figures for %s", gpu);
            fd = util_lock(path);
        }
    }
    free(path);
    return fd;
}

int calibrate_prepare(const struct calibrate_req *q, struct calibrate_gpu *out, char *err, size_t errlen)
{
    struct calibration c = {0};
    const struct calibrate_gpu *hit;
    char gpu[96], hash[24], note[1200], why[1200];
    int busy = -1, rc = CALIBRATE_NONE, m;

    memset(out, 0, sizeof *out);
    /* Through a GPU command (--gpu-via), its GPU as asked through it. */
    if (q->base && q->base->gpu_via) {
        if (!q->base->gpu_name || q->base->gpu_via_error)
            return CALIBRATE_NONE;
        util_copy(gpu, sizeof gpu, q->base->gpu_name);
    } else if (calibrate_gpu_name(gpu, sizeof gpu))
        return CALIBRATE_NONE;
    calibrate_catalog_hash(q->cat, hash, sizeof hash);
    if (load_said(q, &c))
        return CALIBRATE_UNREADABLE;
    if (!q->force && (hit = calibrate_find(&c, gpu, hash))) {
        rc = calibrate_gpu_copy(out, hit) ? CALIBRATE_NONE : CALIBRATE_CACHED;
        goto out;
    }
    busy = measuring_lock(q, gpu);
    if (busy >= 0 && !q->force) {
        /* Whoever held the lock may have measured this very GPU. */
        calibrate_free(&c);
        if (load_said(q, &c)) {
            rc = CALIBRATE_UNREADABLE;
            goto out;
        }
        if ((hit = calibrate_find(&c, gpu, hash))) {
            rc = calibrate_gpu_copy(out, hit) ? CALIBRATE_NONE : CALIBRATE_CACHED;
            goto out;
        }
    }
    say_plan(q, gpu, &c);
    if ((m = calibrate_measure(q, gpu, out, err, errlen)) != 0) {
        rc = m < 0 ? -1 : CALIBRATE_NONE;
        goto out;
    }
    rc = CALIBRATE_MEASURED;
    if (calibrate_store(q->path, out, note, sizeof note, why, sizeof why) != CALIBRATE_OK)
        say(q, "the calibration is used for this check but not cached: %s", why);
    else if (note[0])
        say(q, "%s", note);
out:
    if (busy >= 0)
        close(busy);
    calibrate_free(&c);
    return rc;
}
