/* grade_job.c — one build and one run of a student's lab, each a child
 * in the sandbox: the tutor's check --build-only, then its --run-only
 * with the GPU it is given, in two runs where the race checkers are owed
 * (the judge and its timed sections, then the checkers apart from them;
 * docs/harness.md 4.1).  A GPU's runs pass through its gate: shared, or
 * one alone, for a doubtful verdict reached beside other runs, which is
 * run again with the GPU to itself.  Also the child runner every grading
 * stage spawns through (grade_spawn). */
#include "grade/grade_run.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/result.h"
#include "sys/proc.h"
#include "sys/util.h"

/* What a child's output may fill its log with. */
#define LOG_CAP (256u << 10)
/* A build's limit: nvcc on one kernel file takes seconds; ten minutes is a hang. */
#define BUILD_TIMEOUT_S 600

/* grade_spawn's run of a spec made whole. */
static int spawn(struct proc_spec *spec, const char *log)
{
    struct proc_result r;
    int code;

    if (proc_run(spec, &r)) {
        code = 127;
    } else if (!r.started) {
        code = 127;
    } else if (r.cancelled) {
        code = 130;
    } else if (r.timed_out) {
        code = 124;
    } else if (r.signaled) {
        code = 128 + r.signal;
    } else {
        code = r.exit_code;
    }
    if (log) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0) {
            if (!r.started && r.error[0])
                dprintf(fd, "%s\n", r.error);
            if (r.output_len)
                (void)!write(fd, r.output, r.output_len);
            if (r.dropped)
                dprintf(fd, "\n[%zu more bytes of output dropped]\n", r.dropped);
            close(fd);
        }
    }
    proc_result_free(&r);
    return code;
}

int grade_spawn(struct grade *g, char *const *argv, const char *cwd, char *const *env, double timeout_s,
                int nice, const char *log)
{
    struct proc_spec spec = {.argv = argv, .cwd = cwd, .timeout_s = timeout_s, .output_cap = LOG_CAP,
                             .cancel = &g->interrupted, .env = env, .nice = nice};
    return spawn(&spec, log);
}

void grade_wrap_args(const struct grade *g, const char *spec, char **argv, int *a)
{
    /* check --wrap takes the program, --wrap-arg each of its words: the
     * harness then runs as `cudatutor grade --sandbox-exec SPEC -- judge ...`. */
    argv[(*a)++] = "--wrap";
    argv[(*a)++] = g->self;
    argv[(*a)++] = "--wrap-arg";
    argv[(*a)++] = "grade";
    argv[(*a)++] = "--wrap-arg";
    argv[(*a)++] = "--sandbox-exec";
    argv[(*a)++] = "--wrap-arg";
    argv[(*a)++] = (char *)spec;
    argv[(*a)++] = "--wrap-arg";
    argv[(*a)++] = "--";
}

/* The tutor's check of job j as both pools start it, into argv at *a:
 * SELF --root WB check ID STAGE --work-dir WD. */
static void check_words(const struct grade *g, const struct grade_job *j, char *wb, char *wd, const char *stage,
                        char **argv, int *a)
{
    argv[(*a)++] = g->self;
    argv[(*a)++] = "--root";
    argv[(*a)++] = wb;
    argv[(*a)++] = "check";
    argv[(*a)++] = j->lab->id;
    argv[(*a)++] = (char *)stage;
    argv[(*a)++] = "--work-dir";
    argv[(*a)++] = wd;
}

/* --seed S into argv at *a when the grader was given one; seed holds its
 * text. */
static void seed_words(const struct grade *g, char seed[static 32], char **argv, int *a)
{
    if (!g->o->have_seed)
        return;
    snprintf(seed, 32, "%llu", g->o->seed);
    argv[(*a)++] = "--seed";
    argv[(*a)++] = seed;
}

/* A job's files, the same for its build and its run. */
struct job_files {
    char *wd;                   /* WORK/ID/LAB, the lab's work folder */
    char *wb;                   /* WORK/ID/wb, the student's workbook */
    char *progress;             /* CUDATUTOR_PROGRESS=WD/progress.json, the child's */
    char *build_report, *build_log;     /* what the build leaves in WD */
};

/* Job j's files into f: 0, or -1 when out of memory; job_files_free
 * either way. */
static int job_files(const struct grade *g, const struct grade_job *j, struct job_files *f)
{
    const char *id = g->subs[j->sub].id;
    char *wd = f->wd = util_format("%s/%s/%s", g->work, id, j->lab->id);
    f->wb = util_format("%s/%s/wb", g->work, id);
    f->progress = wd ? util_format("CUDATUTOR_PROGRESS=%s/progress.json", wd) : NULL;
    f->build_report = wd ? util_format("%s/build-report.json", wd) : NULL;
    f->build_log = wd ? util_format("%s/build.log", wd) : NULL;
    return wd && f->wb && f->progress && f->build_report && f->build_log ? 0 : -1;
}

static void job_files_free(struct job_files *f)
{
    free(f->wd);
    free(f->wb);
    free(f->progress);
    free(f->build_report);
    free(f->build_log);
}

int grade_job_build(struct grade *g, const struct grade_job *j)
{
    struct job_files f;
    char seed[32];
    int code = 127;

    if (job_files(g, j, &f) == 0) {
        char *env[] = {f.progress, NULL};
        char *argv[32];
        int a = 0;
        argv[a++] = g->self;
        argv[a++] = "grade";
        argv[a++] = "--sandbox-exec";
        argv[a++] = g->spec;
        argv[a++] = "--build";
        argv[a++] = f.wb;
        argv[a++] = "--";
        check_words(g, j, f.wb, f.wd, "--build-only", argv, &a);
        argv[a++] = "--json";
        argv[a++] = "--out";
        argv[a++] = f.build_report;
        seed_words(g, seed, argv, &a);
        argv[a] = NULL;
        /* Niced: the builds run far ahead of the GPU runs, which must not
         * wait for a CPU (a run's trials hold the GPU shared meanwhile). */
        code = grade_spawn(g, argv, f.wd, env, BUILD_TIMEOUT_S, 10, f.build_log);
    }
    job_files_free(&f);
    return code;
}

/* Whether a build's report is a build waiting for its run (--build-only's
 * stage), not a verdict. */
static int report_built(const char *path)
{
    struct result r;
    char err[160];
    if (result_read_file(path, &r, err, sizeof err))
        return 0;
    int built = r.stage == RESULT_BUILT;
    result_free(&r);
    return built;
}

int grade_run_doubtful(const struct result *r)
{
    if (!r)
        return 1;
    if (r->status == STATUS_TIMEOUT || r->status == STATUS_RUNTIME_ERROR || r->status == STATUS_INTERNAL_ERROR)
        return 1;
    /* A race checker that could not start, or ended without judging
     * (killed, out of memory), leaves a verdict that rests on less. */
    for (int i = 0; i < r->nmsgs; i++)
        if (strstr(r->messages[i], "could not judge the kernel") || strstr(r->messages[i], " could not start"))
            return 1;
    return 0;
}

/* Whether the report at path is doubtful (grade_run_doubtful); a missing
 * or unreadable one is. */
static int report_doubtful(const char *path)
{
    struct result r;
    char err[160];
    if (result_read_file(path, &r, err, sizeof err))
        return 1;
    int doubtful = grade_run_doubtful(&r);
    result_free(&r);
    return doubtful;
}

int grade_gate_spawn(struct grade_gates *gs, struct grade *g, int gi, int alone, char *const *argv,
                     const char *cwd, char *const *env, double limit, const char *log, int *busy, int channel)
{
    struct grade_gate *gt = &gs->gpu[gi];
    pthread_mutex_lock(&gs->mu);
    if (alone) {
        gt->waiting++;
        while (gt->shared || gt->alone)
            pthread_cond_wait(&gs->cv, &gs->mu);
        gt->waiting--;
        gt->alone = 1;
    } else {
        while (gt->waiting || gt->alone)
            pthread_cond_wait(&gs->cv, &gs->mu);
        gt->shared++;
    }
    long seq = ++gs->starts;
    *busy = ++gs->active > 1;
    pthread_mutex_unlock(&gs->mu);
    struct proc_spec spec = {.argv = argv, .cwd = cwd, .timeout_s = limit, .output_cap = LOG_CAP,
                             .cancel = &g->interrupted, .env = env, .channel = channel};
    int code = spawn(&spec, log);
    pthread_mutex_lock(&gs->mu);
    *busy |= gs->starts != seq || gs->active > 1;
    gs->active--;
    if (alone)
        gt->alone = 0;
    else
        gt->shared--;
    pthread_cond_broadcast(&gs->cv);
    pthread_mutex_unlock(&gs->mu);
    return code;
}

int grade_gates_init(struct grade_gates *gs, int ngpus)
{
    *gs = (struct grade_gates){0};
    if (!(gs->gpu = calloc((size_t)ngpus + 1, sizeof *gs->gpu)))
        return -1;
    pthread_mutex_init(&gs->mu, NULL);
    pthread_cond_init(&gs->cv, NULL);
    return 0;
}

void grade_gates_free(struct grade_gates *gs)
{
    if (!gs->gpu)
        return;
    pthread_cond_destroy(&gs->cv);
    pthread_mutex_destroy(&gs->mu);
    free(gs->gpu);
    gs->gpu = NULL;
}

/* Whether the report at path is a pass awaiting its race checkers. */
static int report_pending(const char *path)
{
    struct result r;
    char err[160];
    if (result_read_file(path, &r, err, sizeof err))
        return 0;
    int pending = r.sanitize_pending;
    result_free(&r);
    return pending;
}

int grade_job_run(struct grade *g, struct grade_gates *gs, const struct grade_job *j, int gi,
                  enum grade_phase phase, const char *sanitized)
{
    struct job_files f;
    int have = job_files(g, j, &f) == 0;
    char *out = have ? util_format("%s/report.json", f.wd) : NULL;
    char *first = have ? util_format("%s/judge.json", f.wd) : NULL;
    char *log = have ? util_format("%s/run.log", f.wd) : NULL;
    char *visible = g->gpus[gi][0] ? util_format("CUDA_VISIBLE_DEVICES=%s", g->gpus[gi]) : NULL;
    char *lock = grade_gpu_lock(g, gi);
    char why[160], seed[32], budget[16], target[32];
    int rc = -1;

    if (!have || !out || !first || !log || !lock || (g->gpus[gi][0] && !visible))
        goto out;
    if (phase == GRADE_JUDGE && !report_built(f.build_report)) {
        /* The build gave the verdict already (compile_error, rejected). */
        snprintf(why, sizeof why, "the build ended without a verdict (exit %d)", j->build_code);
        rc = grade_work_final(f.wd, j->lab->id, f.build_report, why, f.build_log);
        goto out;
    }
    /* The catalog's limit for the harness, three for the race checkers,
     * and the waits for the GPU that the check forgives (at most 250 s). */
    double limit = (double)(long)(5 * j->lab->family->timeout_s * g->o->timeout_scale + 370);
    char *env[] = {f.progress, visible, NULL};
    char *argv[64];
    int a = 0;
    check_words(g, j, f.wb, f.wd, "--run-only", argv, &a);
    argv[a++] = "--out";
    argv[a++] = out;
    argv[a++] = "--gpu-lock";
    argv[a++] = lock;
    grade_wrap_args(g, g->spec, argv, &a);
    argv[a++] = "--timeout-scale";
    argv[a++] = (char *)g->o->timeout_scale_text;
    snprintf(budget, sizeof budget, "%d", g->o->time_budget_ms);
    argv[a++] = "--time-budget";
    argv[a++] = budget;
    if (g->o->quick)
        argv[a++] = "--quick";
    if (!g->o->sanitize)
        argv[a++] = "--no-sanitize";
    else if (phase == GRADE_JUDGE)
        argv[a++] = "--sanitize-later";
    else {
        argv[a++] = "--sanitize-from";
        argv[a++] = first;
        if (sanitized && *sanitized) {
            argv[a++] = "--sanitized";
            argv[a++] = (char *)sanitized;
        }
    }
    int li = 0;
    while (li < g->nlabs && g->labs[li] != j->lab)
        li++;
    if (g->target_min && li < g->nlabs && g->target_min[gi * g->nlabs + li] > 0) {
        snprintf(target, sizeof target, "%.17g", g->target_min[gi * g->nlabs + li]);
        argv[a++] = "--target-min";
        argv[a++] = target;
    }
    seed_words(g, seed, argv, &a);
    argv[a] = NULL;
    unlink(out);
    int busy = 0;
    int code = grade_gate_spawn(gs, g, gi, 0, argv, f.wd, env, limit, log, &busy, 0);
    if (busy && !atomic_load(&g->interrupted) && (code == 124 || report_doubtful(out))) {
        FILE *fp = fopen(log, "ae");
        if (fp) {
            fprintf(fp, "cudatutor grade: run again with %s%s to itself: the run above ended (exit %d) "
                        "in a verdict that the other runs beside it could have caused\n",
                    g->gpus[gi][0] ? "GPU " : "its GPU", g->gpus[gi], code);
            fclose(fp);
        }
        grade_event(g, "R %s %s", g->subs[j->sub].id, j->lab->id);
        unlink(out);
        code = grade_gate_spawn(gs, g, gi, 1, argv, f.wd, env, limit, log, &busy, 0);
    }
    if (code == 130 && atomic_load(&g->interrupted)) {
        rc = 0;     /* no verdict: the student is graded again on resume */
        goto out;
    }
    if (code == 124) {
        FILE *fp = fopen(log, "ae");
        if (fp) {
            fprintf(fp, "cudatutor grade: the tutor did not finish within %.0f s and was stopped\n", limit);
            fclose(fp);
        }
        unlink(out);
    }
    if (phase == GRADE_JUDGE && code == 0 && report_pending(out) && rename(out, first) == 0) {
        rc = 1;
        goto out;
    }
    snprintf(why, sizeof why, "the check ended without a verdict (exit %d)", code);
    rc = grade_work_final(f.wd, j->lab->id, out, why, log);
out:
    job_files_free(&f);
    free(out);
    free(first);
    free(log);
    free(visible);
    free(lock);
    return rc;
}
