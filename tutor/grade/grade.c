/* grade.c — see grade.h.  The options, then the run's order over the
 * stages of grade_run.h; each stage says why it stops and returns the exit
 * code.  Nothing in tutor/grade/ calls back into this file.  Signals INT and TERM are
 * taken by one thread of their own: it raises g->interrupted, which every
 * child's proc_run watches, so an interrupt stops the builds and runs of
 * every stage, the finished students stay, and the grader exits 130. */
#define _GNU_SOURCE     /* pipe2 */
#include "grade/grade.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "grade/grade_run.h"

#define PROG "cudatutor grade"

/* ---- grading ------------------------------------------------------------ */

/* The whole grading of the submissions on the command line.  Everything
 * the command line names is checked (the workbook, the catalog, the rubric,
 * every submission) before the output folder is made: a mistyped argument
 * leaves nothing behind. */
static int do_grade(struct grade *g)
{
    int rc;
    if ((rc = grade_setup_workbook(g)) || (rc = grade_load_catalog(g, 0)) || (rc = grade_load_rubric(g)) ||
        (rc = grade_collect(g, g->o->args, g->o->nargs)) ||
        (rc = grade_setup_out(g, g->o->out ? g->o->out : "grade-out")) || (rc = grade_setup_scratch(g)) ||
        (rc = grade_detect_gpus(g)))
        return rc;
    grade_gpus_others(g, "start");
    if ((rc = grade_choose_sandbox(g)) || (rc = grade_calibrate(g)) || (rc = grade_submissions(g)))
        return rc;
    grade_gpus_others(g, "end");
    grade_write_run_json(g);
    return grade_finish_reports(g);
}

/* ---- signals ------------------------------------------------------------ */

/* Waits for INT or TERM, then stops the grading: every child's proc_run
 * sees the flag within 100 ms and kills its process group. */
static void *signal_thread(void *arg)
{
    struct grade *g = arg;
    sigset_t set;
    int sig;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    while (sigwait(&set, &sig) == 0) {
        atomic_store(&g->interrupted, 1);
        if (g->wake_fd >= 0)
            (void)!write(g->wake_fd, "i", 1);
    }
    return NULL;
}

int grade_main(const char *prog, int argc, char **argv)
{
    struct grade_opts o;
    struct grade g = {0};
    char err[512];
    int rc = grade_opts_parse(argc, argv, &o, err, sizeof err);
    pthread_t sig;
    sigset_t set;

    if (rc == GRADE_OPTS_HELP) {
        grade_opts_usage(stdout);
        grade_opts_free(&o);
        return EXIT_OK;
    }
    if (rc == GRADE_OPTS_USAGE) {
        grade_usage("%s", err);
        grade_opts_free(&o);
        return EXIT_USAGE;
    }
    if (o.mode == GRADE_MODE_SANDBOX_EXEC) {
        grade_sandbox_exec(o.sandbox_spec, o.sandbox_build, o.sandbox_binds, o.args, err, sizeof err);
        fprintf(stderr, PROG " --sandbox-exec: %s\n", err);
        grade_opts_free(&o);
        return 127;
    }
    if (o.mode == GRADE_MODE_SELFTEST) {
        o.calibrate = 0;        /* it judges verdicts, not targets */
        o.force = 1;
    }
    g.o = &o;
    g.prog = prog;
    g.lock_fd = g.events_fd = g.wake_fd = g.wake_read = -1;
    g.t0 = time(NULL);
    pthread_mutex_init(&g.mu, NULL);
    /* Before any thread: every thread inherits the mask, and only the
     * signal thread takes INT and TERM. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) == 0) {
        g.wake_fd = fds[1];
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
        fcntl(fds[1], F_SETFL, O_NONBLOCK);
    }
    g.wake_read = g.wake_fd >= 0 ? fds[0] : -1;
    pthread_create(&sig, NULL, signal_thread, &g);
    pthread_detach(sig);

    switch (o.mode) {
    case GRADE_MODE_GRADE: rc = do_grade(&g); break;
    case GRADE_MODE_MERGE: rc = grade_merge(&g); break;
    case GRADE_MODE_RESCORE: rc = grade_rescore(&g); break;
    case GRADE_MODE_SELFTEST: rc = grade_selftest(&g); break;
    case GRADE_MODE_SANDBOX_EXEC: rc = EXIT_INTERNAL; break;
    }
    if (atomic_load(&g.interrupted)) {
        fputs("\n" PROG ": interrupted; run the same command again to resume (finished students are kept)\n",
              stderr);
        rc = EXIT_INTERRUPTED;
    }
    if (g.wake_read >= 0)
        close(g.wake_read);
    grade_free(&g);
    grade_opts_free(&o);
    return rc;
}
