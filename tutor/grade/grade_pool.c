/* grade_pool.c — the build pool and the per-GPU run pools, as threads
 * that each run one child at a time through proc.c and wait for it: no
 * file is polled.  Builds go in queue order, --jobs at a time, niced so
 * that the runs never wait for a CPU; --check-runs threads per GPU take
 * the jobs in the same order, each waiting (on a condition, not a timer)
 * until its build has ended, then run it in the sandbox with that GPU
 * visible.  A job runs twice: its judge (trials and timed sections), then,
 * for a pass, its race checkers, which wait in a queue while judges are
 * ready.  The runs of one GPU share it through its lock file: trials and
 * race checks side by side, a timed section alone (docs/harness.md 4.1);
 * a timed section waits until every run sharing the GPU has ended, and a
 * race checker's run lasts seconds, so the two kinds are kept apart.
 * The thread that gives a student its last verdict writes its reports. */
#include "grade/grade_run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/proc.h"
#include "model/result.h"
#include "sys/util.h"

/* What a child's output may fill its log with. */
#define LOG_CAP (256u << 10)
/* A build's limit: nvcc on one kernel file takes seconds; ten minutes is a hang. */
#define BUILD_TIMEOUT_S 600
/* How often the progress line is drawn. */
#define PROGRESS_MS 500

int grade_spawn(struct grade *g, char *const *argv, const char *cwd, char *const *env, double timeout_s,
                int nice, const char *log)
{
    struct proc_spec spec = {.argv = argv, .cwd = cwd, .timeout_s = timeout_s, .output_cap = LOG_CAP,
                             .cancel = &g->interrupted, .env = env, .nice = nice};
    struct proc_result r;
    int code;

    if (proc_run(&spec, &r)) {
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

/* ---- one build, one run --------------------------------------------------- */

struct pool {
    struct grade *g;
    struct grade_job *jobs;
    int njobs;
    int *left;                  /* per student: labs without a verdict yet */
    pthread_mutex_t mu;
    pthread_cond_t built;
    int next_build, next_run;
    /* The race checkers of judged passes, queued (--sanitize-later): they
     * run once no judge is ready, so that the GPU's timed sections do not
     * wait for them to drain; and the judges in flight, whose passes may
     * still queue more. */
    int *san_queue, san_head, san_tail;
    int judging;
    int nbuilt, nchecked, nfinished, nstudents;
    int running;                /* threads not yet done */
    /* Whether a run shared the machine: the runs in flight, and how many
     * have started (under mu). */
    int active;
    long starts;
    /* Per GPU: the runs in flight on it, and those waiting to run alone
     * there (they go first: no new run starts on the GPU meanwhile). */
    struct gpu_gate *gate;
    pthread_cond_t gate_cv;
};

struct gpu_gate {
    int shared, waiting, alone;
};

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

/* Compiles one kernel in the build sandbox: its work folder gets
 * build-report.json and build.log. */
static int build_one(struct grade *g, const struct grade_job *j)
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

/* One run of a check on GPU gi, holding its share of the GPU (or all of
 * it, alone); *busy says whether another run was in flight on the machine
 * at any time during it.  Returns as grade_spawn. */
static int run_spawn(struct pool *p, int gi, int alone, char *const *argv, const char *cwd, char *const *env,
                     double limit, const char *log, int *busy)
{
    struct gpu_gate *gt = &p->gate[gi];
    pthread_mutex_lock(&p->mu);
    if (alone) {
        gt->waiting++;
        while (gt->shared || gt->alone)
            pthread_cond_wait(&p->gate_cv, &p->mu);
        gt->waiting--;
        gt->alone = 1;
    } else {
        while (gt->waiting || gt->alone)
            pthread_cond_wait(&p->gate_cv, &p->mu);
        gt->shared++;
    }
    long seq = ++p->starts;
    *busy = ++p->active > 1;
    pthread_mutex_unlock(&p->mu);
    int code = grade_spawn(p->g, argv, cwd, env, limit, 0, log);
    pthread_mutex_lock(&p->mu);
    *busy |= p->starts != seq || p->active > 1;
    p->active--;
    if (alone)
        gt->alone = 0;
    else
        gt->shared--;
    pthread_cond_broadcast(&p->gate_cv);
    pthread_mutex_unlock(&p->mu);
    return code;
}

/* The two runs of a built kernel (check --sanitize-later, --sanitize-from):
 * the judge with its timed sections, then, for a pass, the race checkers
 * apart from them. */
enum run_phase { RUN_JUDGE, RUN_SANITIZE };

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

/* One run of a built kernel, the harness in the sandbox on GPU gi.  The
 * judge's run of a pass whose race checkers are still owed leaves
 * judge.json and returns 1: the job then waits for its RUN_SANITIZE.
 * Otherwise it leaves final.json, the lab's verdict, and returns 0.  A run
 * whose verdict the grader's own load could have made (grade_run_doubtful)
 * while other runs shared the machine is run again with its GPU to itself,
 * and that run's verdict stands: a kernel is never graded by how busy the
 * grader was.  -1 when the verdict cannot be written. */
static int run_one(struct pool *p, const struct grade_job *j, int gi, enum run_phase phase)
{
    struct grade *g = p->g;
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
    if (phase == RUN_JUDGE && !report_built(f.build_report)) {
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
    else if (phase == RUN_JUDGE)
        argv[a++] = "--sanitize-later";
    else {
        argv[a++] = "--sanitize-from";
        argv[a++] = first;
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
    int code = run_spawn(p, gi, 0, argv, f.wd, env, limit, log, &busy);
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
        code = run_spawn(p, gi, 1, argv, f.wd, env, limit, log, &busy);
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
    if (phase == RUN_JUDGE && code == 0 && report_pending(out) && rename(out, first) == 0) {
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

/* ---- the threads ---------------------------------------------------------- */

static void thread_done(struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    if (--p->running == 0 && p->g->wake_fd >= 0)
        (void)!write(p->g->wake_fd, "d", 1);
    pthread_mutex_unlock(&p->mu);
}

/* Under p's lock: the next of n items that *next walks, or -1 when none
 * is left or the grading was interrupted. */
static int next_item(struct grade *g, int *next, int n)
{
    return *next < n && !atomic_load(&g->interrupted) ? (*next)++ : -1;
}

int grade_pool_take(struct grade *g, pthread_mutex_t *mu, int *next, int n)
{
    pthread_mutex_lock(mu);
    int k = next_item(g, next, n);
    pthread_mutex_unlock(mu);
    return k;
}

static void *build_thread(void *arg)
{
    struct pool *p = arg;
    int k;
    while ((k = grade_pool_take(p->g, &p->mu, &p->next_build, p->njobs)) >= 0) {
        int code = build_one(p->g, &p->jobs[k]);
        grade_event(p->g, "B %s %s", p->g->subs[p->jobs[k].sub].id, p->jobs[k].lab->id);
        pthread_mutex_lock(&p->mu);
        p->jobs[k].build_code = code;
        p->jobs[k].built = 1;
        p->nbuilt++;
        pthread_cond_broadcast(&p->built);
        pthread_mutex_unlock(&p->mu);
    }
    thread_done(p);
    return NULL;
}

struct run_arg {
    struct pool *p;
    int gpu;
    pthread_t t;
};

/* Under p's lock: the next run for a GPU thread, its job into *k and its
 * phase into *phase; 0 when there is none left.  A judge whose build has
 * ended goes first, then queued race checkers; with neither, the thread
 * waits for a build, a queued pass, or the last judge's end. */
static int next_run(struct pool *p, int *k, enum run_phase *phase)
{
    struct grade *g = p->g;
    for (;;) {
        if (atomic_load(&g->interrupted))
            return 0;
        if (p->next_run < p->njobs && p->jobs[p->next_run].built) {
            *k = p->next_run++;
            *phase = RUN_JUDGE;
            p->judging++;
            return 1;
        }
        if (p->san_head < p->san_tail) {
            *k = p->san_queue[p->san_head++];
            *phase = RUN_SANITIZE;
            return 1;
        }
        if (p->next_run >= p->njobs && !p->judging)
            return 0;
        pthread_cond_wait(&p->built, &p->mu);
    }
}

static void *run_thread(void *arg)
{
    struct run_arg *ra = arg;
    struct pool *p = ra->p;
    struct grade *g = p->g;
    for (;;) {
        int k = -1;
        enum run_phase phase = RUN_JUDGE;
        pthread_mutex_lock(&p->mu);
        int got = next_run(p, &k, &phase);
        pthread_mutex_unlock(&p->mu);
        if (!got || atomic_load(&g->interrupted))
            break;
        const struct grade_job *j = &p->jobs[k];
        int rc = run_one(p, j, ra->gpu, phase);
        if (rc < 0)
            grade_error(g, "run %s %s failed", g->subs[j->sub].id, j->lab->id);
        pthread_mutex_lock(&p->mu);
        if (phase == RUN_JUDGE) {
            p->judging--;
            if (rc == 1)
                p->san_queue[p->san_tail++] = k;
            pthread_cond_broadcast(&p->built);
        }
        pthread_mutex_unlock(&p->mu);
        if (atomic_load(&g->interrupted))
            break;
        if (rc == 1)
            continue;
        grade_event(g, "C %s %s", g->subs[j->sub].id, j->lab->id);
        pthread_mutex_lock(&p->mu);
        p->nchecked++;
        int last = --p->left[j->sub] == 0;
        pthread_mutex_unlock(&p->mu);
        if (last && grade_work_finish(g, j->sub) == 0) {
            pthread_mutex_lock(&p->mu);
            p->nfinished++;
            pthread_mutex_unlock(&p->mu);
        }
    }
    thread_done(p);
    return NULL;
}

static void progress_line(struct pool *p, time_t t0)
{
    pthread_mutex_lock(&p->mu);
    printf("\r\033[K[grade] %d/%d students  built %d/%d  checked %d/%d  %lds", p->nfinished, p->nstudents,
           p->nbuilt, p->njobs, p->nchecked, p->njobs, (long)(time(NULL) - t0));
    pthread_mutex_unlock(&p->mu);
    fflush(stdout);
}

/* Empties the wake pipe. */
static void drain(int fd)
{
    char buf[64];
    while (fd >= 0 && read(fd, buf, sizeof buf) > 0)
        ;
}

int grade_pool_run(struct grade *g, struct grade_job *jobs, int njobs)
{
    struct pool p = {.g = g, .jobs = jobs, .njobs = njobs};
    pthread_t *builders = calloc((size_t)g->jobs, sizeof *builders);
    struct run_arg *runners = calloc((size_t)g->ngpus * (size_t)g->check_runs, sizeof *runners);
    int nrunners = g->ngpus * g->check_runs, started = 0;
    int tty = !g->o->quiet && isatty(STDOUT_FILENO);

    if (!(p.left = calloc((size_t)g->nsubs + 1, sizeof *p.left)) || !builders || !runners ||
        !(p.gate = calloc((size_t)g->ngpus, sizeof *p.gate)) ||
        !(p.san_queue = calloc((size_t)njobs + 1, sizeof *p.san_queue))) {
        free(p.san_queue);
        free(p.left);
        free(p.gate);
        free(builders);
        free(runners);
        grade_error(g, "out of memory");
        return 0;
    }
    for (int k = 0; k < njobs; k++)
        p.left[jobs[k].sub]++;
    /* The line counts every student of this run; those with nothing to
     * build are finished already. */
    p.nstudents = g->ngraded;
    for (int s = 0; s < g->nsubs; s++)
        p.nfinished -= p.left[s] > 0;
    p.nfinished += g->ngraded;
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.built, NULL);
    pthread_cond_init(&p.gate_cv, NULL);
    drain(g->wake_read);
    p.running = g->jobs + nrunners;
    for (int i = 0; i < g->jobs; i++)
        if (pthread_create(&builders[i], NULL, build_thread, &p) == 0)
            started++;
        else
            thread_done(&p);
    for (int i = 0; i < nrunners; i++) {
        runners[i] = (struct run_arg){.p = &p, .gpu = i / g->check_runs};
        if (pthread_create(&runners[i].t, NULL, run_thread, &runners[i]))
            thread_done(&p);
    }
    if (!started) {
        /* No build will end: let the runs go on to their verdicts. */
        grade_error(g, "no build thread could start");
        pthread_mutex_lock(&p.mu);
        for (int k = 0; k < njobs; k++)
            jobs[k] = (struct grade_job){.sub = jobs[k].sub, .lab = jobs[k].lab, .built = 1, .build_code = 127};
        pthread_cond_broadcast(&p.built);
        pthread_mutex_unlock(&p.mu);
    }
    /* Waits on the pipe the last thread (or the signal thread) writes,
     * waking only to redraw the progress line. */
    for (;;) {
        pthread_mutex_lock(&p.mu);
        int running = p.running;
        if (atomic_load(&g->interrupted))
            pthread_cond_broadcast(&p.built);
        pthread_mutex_unlock(&p.mu);
        if (tty)
            progress_line(&p, g->t0);
        if (!running)
            break;
        struct pollfd pfd = {g->wake_read, POLLIN, 0};
        poll(&pfd, g->wake_read >= 0 ? 1 : 0, tty || atomic_load(&g->interrupted) ? PROGRESS_MS : -1);
        drain(g->wake_read);
    }
    for (int i = 0; i < g->jobs; i++)
        pthread_join(builders[i], NULL);
    for (int i = 0; i < nrunners; i++)
        pthread_join(runners[i].t, NULL);
    if (tty) {
        fputs("\r\033[K", stdout);
        fflush(stdout);
    }
    pthread_cond_destroy(&p.built);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.gate_cv);
    free(p.gate);
    free(p.left);
    free(p.san_queue);
    free(builders);
    free(runners);
    return atomic_load(&g->interrupted) ? EXIT_INTERRUPTED : 0;
}

/* ---- the submissions ------------------------------------------------------ */

int grade_submissions(struct grade *g)
{
    struct grade_job *jobs = calloc((size_t)g->nsubs * (size_t)g->nlabs + 1, sizeof *jobs);
    const struct lab **labs = calloc((size_t)g->nlabs + 1, sizeof *labs);
    int njobs = 0, skipped = 0, rc = 0;

    g->t0 = time(NULL);
    if (!jobs || !labs || !(g->graded_now = calloc((size_t)g->nsubs + 1, sizeof *g->graded_now))) {
        grade_error(g, "out of memory");
        goto out;
    }
    int *taken = calloc((size_t)g->nsubs + 1, sizeof *taken);
    if (!taken) {
        grade_error(g, "out of memory");
        goto out;
    }
    for (int s = 0; s < g->nsubs; s++) {
        taken[s] = -1;
        if (atomic_load(&g->interrupted))
            break;
        char *report = util_format("%s/%s/report.json", g->students, g->subs[s].id);
        int have = report && util_is_file(report);
        free(report);
        if (grade_work_skip(g->o->force, have)) {
            skipped++;
            continue;
        }
        g->graded_now[g->ngraded++] = strdup(g->subs[s].id);
        int n = grade_work_intake(g, s, labs);
        if (n < 0)
            continue;
        taken[s] = n;
        for (int i = 0; i < n; i++)
            jobs[njobs++] = (struct grade_job){.sub = s, .lab = labs[i]};
    }
    if (skipped)
        grade_say(g, "%d student(s) already graded in %s: skipped (--force grades them again)", skipped, g->out);
    /* Students with nothing to build are finished at once. */
    for (int s = 0; s < g->nsubs && !atomic_load(&g->interrupted); s++)
        if (taken[s] == 0)
            grade_work_finish(g, s);
    if (njobs > 0 && !atomic_load(&g->interrupted)) {
        grade_say(g, "grading %d student(s): %d kernel(s) to build (-j %d), %d run(s) at once per GPU, timed one "
                  "at a time", g->ngraded, njobs, g->jobs, g->check_runs);
        rc = grade_pool_run(g, jobs, njobs);
    }
    /* Whoever the pools could not finish is finished here. */
    for (int s = 0; s < g->nsubs && !atomic_load(&g->interrupted); s++) {
        if (taken[s] <= 0)
            continue;
        char *report = util_format("%s/%s/report.json", g->students, g->subs[s].id);
        int have = report && util_is_file(report);
        free(report);
        if (have)
            continue;
        for (int k = 0; k < njobs; k++) {
            if (jobs[k].sub != s)
                continue;
            char *wd = util_format("%s/%s/%s", g->work, g->subs[s].id, jobs[k].lab->id);
            char *fin = wd ? util_format("%s/final.json", wd) : NULL, *log = wd ? util_format("%s/run.log", wd) : NULL;
            if (fin && !util_is_file(fin))
                grade_work_final(wd, jobs[k].lab->id, NULL, "the lab was never run", log);
            free(wd);
            free(fin);
            free(log);
        }
        grade_work_finish(g, s);
    }
    free(taken);
    if (atomic_load(&g->interrupted))
        rc = EXIT_INTERRUPTED;
out:
    free(jobs);
    free(labs);
    return rc;
}
