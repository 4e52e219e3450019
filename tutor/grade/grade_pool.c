/* grade_pool.c — the build pool and the per-GPU run pools, as threads
 * that each run one child at a time (grade_job.c) and wait for it: no
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

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/util.h"

/* How often the progress line is drawn. */
#define PROGRESS_MS 500

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
    struct grade_gates gates;   /* the GPUs' runs: shared, or one alone */
};

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
        int code = grade_job_build(p->g, &p->jobs[k]);
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

/* Under p's lock: a family with a whole batch of passes queued, or NULL. */
static const struct family_spec *full_family(const struct pool *p)
{
    for (int i = p->san_head; i < p->san_tail; i++) {
        const struct family_spec *f = p->jobs[p->san_queue[i]].lab->family;
        int n = 0;
        for (int j = i; j < p->san_tail && n < GRADE_BATCH_MAX; j++)
            n += p->jobs[p->san_queue[j]].lab->family == f;
        if (n == GRADE_BATCH_MAX)
            return f;
    }
    return NULL;
}

/* Under p's lock: whether the queued race checkers are taken now.  A batch
 * runs each tool once however many passes it holds, so a partial one waits
 * while builds are still to come (their passes may join it), unless a
 * family has a whole batch queued. */
static int batch_ready(const struct pool *p)
{
    return p->san_head < p->san_tail && (p->nbuilt == p->njobs || full_family(p));
}

/* Under p's lock: a family's queued passes, up to GRADE_BATCH_MAX, taken
 * off the queue into ks (a family with a whole batch first, else the
 * first pass's); how many. */
static int take_batch(struct pool *p, int *ks)
{
    const struct family_spec *f = full_family(p);
    if (!f)
        f = p->jobs[p->san_queue[p->san_head]].lab->family;
    int n = 0, kept = p->san_head;
    for (int i = p->san_head; i < p->san_tail; i++) {
        int k = p->san_queue[i];
        if (n < GRADE_BATCH_MAX && p->jobs[k].lab->family == f)
            ks[n++] = k;
        else
            p->san_queue[kept++] = k;
    }
    p->san_tail = kept;
    return n;
}

/* Under p's lock: the next run for a GPU thread, its jobs into ks (one
 * judge, or a batch of queued race checkers), their count into *n and the
 * phase into *phase; 0 when there is none left.  A judge whose build has
 * ended goes first, then queued race checkers (batch_ready); with
 * neither, the thread waits for a build, a queued pass, or the last
 * judge's end. */
static int next_run(struct pool *p, int *ks, int *n, enum grade_phase *phase)
{
    struct grade *g = p->g;
    for (;;) {
        if (atomic_load(&g->interrupted))
            return 0;
        if (p->next_run < p->njobs && p->jobs[p->next_run].built) {
            ks[0] = p->next_run++;
            *n = 1;
            *phase = GRADE_JUDGE;
            p->judging++;
            return 1;
        }
        if (batch_ready(p)) {
            *n = take_batch(p, ks);
            *phase = GRADE_SANITIZE;
            return 1;
        }
        if (p->next_run >= p->njobs && !p->judging)
            return 0;
        pthread_cond_wait(&p->built, &p->mu);
    }
}

/* Job k has its verdict: counted, and its student finished by the thread
 * that gives the last one. */
static void job_checked(struct pool *p, int k)
{
    struct grade *g = p->g;
    const struct grade_job *j = &p->jobs[k];
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

/* A batch of queued passes: their race checkers once over the lot, then
 * each pass's final run, told which tools the batch cleared. */
static void sanitize_batch(struct run_arg *ra, const int *ks, int n)
{
    struct pool *p = ra->p;
    struct grade *g = p->g;
    const struct grade_job *js[GRADE_BATCH_MAX];
    char *cleared[GRADE_BATCH_MAX] = {0};
    for (int b = 0; b < n; b++)
        js[b] = &p->jobs[ks[b]];
    grade_batch_sanitize(g, &p->gates, js, n, ra->gpu, cleared);
    for (int b = 0; b < n; b++) {
        if (!atomic_load(&g->interrupted) &&
            grade_job_run(g, &p->gates, js[b], ra->gpu, GRADE_SANITIZE, cleared[b]) < 0)
            grade_error(g, "run %s %s failed", g->subs[js[b]->sub].id, js[b]->lab->id);
        if (!atomic_load(&g->interrupted))
            job_checked(p, ks[b]);
        free(cleared[b]);
    }
}

static void *run_thread(void *arg)
{
    struct run_arg *ra = arg;
    struct pool *p = ra->p;
    struct grade *g = p->g;
    for (;;) {
        int ks[GRADE_BATCH_MAX], n = 0;
        enum grade_phase phase = GRADE_JUDGE;
        pthread_mutex_lock(&p->mu);
        int got = next_run(p, ks, &n, &phase);
        pthread_mutex_unlock(&p->mu);
        if (!got || atomic_load(&g->interrupted))
            break;
        if (phase == GRADE_SANITIZE) {
            sanitize_batch(ra, ks, n);
            continue;
        }
        const struct grade_job *j = &p->jobs[ks[0]];
        int rc = grade_job_run(g, &p->gates, j, ra->gpu, phase, NULL);
        if (rc < 0)
            grade_error(g, "run %s %s failed", g->subs[j->sub].id, j->lab->id);
        pthread_mutex_lock(&p->mu);
        p->judging--;
        if (rc == 1)
            p->san_queue[p->san_tail++] = ks[0];
        pthread_cond_broadcast(&p->built);
        pthread_mutex_unlock(&p->mu);
        if (atomic_load(&g->interrupted))
            break;
        if (rc != 1)
            job_checked(p, ks[0]);
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
        !(p.san_queue = calloc((size_t)njobs + 1, sizeof *p.san_queue)) || grade_gates_init(&p.gates, g->ngpus)) {
        free(p.san_queue);
        free(p.left);
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
        p.nbuilt = njobs;
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
    grade_gates_free(&p.gates);
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
