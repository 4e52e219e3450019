/* test_proc.c — the child runner: output, exit codes, signals, timeouts that
 * kill the whole group, an output flood capped, lines delivered; a child's
 * own environment, nice value and stdin; threads running children at once (the
 * grader's pools) never holding each other's pipes open; a child starting
 * with no signal blocked; its address space limited. */
#define _GNU_SOURCE     /* pipe2 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#include "sys/proc.h"
#include "tap.h"
#include "sys/util.h"

static int run(const char *script, double timeout, size_t cap, struct proc_result *r)
{
    char *argv[] = {"sh", "-c", (char *)script, NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = timeout, .output_cap = cap};
    return proc_run(&spec, r);
}

static void output_and_exit_code(void)
{
    struct proc_result r;
    EXPECT(run("echo hello; echo err >&2; exit 3", 10, 0, &r) == 0);
    EXPECT(r.started && r.exited && r.exit_code == 3);
    EXPECT(strstr(r.output, "hello\n") && strstr(r.output, "err\n"));
    proc_result_free(&r);
}

static void signal_reported(void)
{
    struct proc_result r;
    char why[128];
    EXPECT(run("kill -SEGV $$", 10, 0, &r) == 0);
    EXPECT(r.signaled && r.signal == SIGSEGV);
    proc_describe(&r, why, sizeof why);
    EXPECT(strstr(why, "signal 11") != NULL);
    proc_result_free(&r);
}

static void timeout_kills_the_group(void)
{
    struct proc_result r;
    char pidfile[] = "/tmp/cudatutor-proc-XXXXXX";
    int fd = mkstemp(pidfile);
    close(fd);
    char *script = util_format("sleep 30 & echo $! > %s; sleep 30", pidfile);
    double t0 = util_now();
    EXPECT(run(script, 0.5, 0, &r) == 0);
    EXPECT(r.timed_out);
    EXPECT(util_now() - t0 < 5);
    char *pid_text = util_read_file(pidfile, NULL);
    EXPECT(pid_text != NULL);
    if (pid_text) {
        pid_t bg = (pid_t)atoi(pid_text);
        usleep(100 * 1000);
        /* The background sleep was in the group: it must be gone (or a
         * zombie waiting for init to reap it). */
        char *stat_path = util_format("/proc/%d/stat", (int)bg);
        char *stat = util_read_file(stat_path, NULL);
        const char *state = stat ? strrchr(stat, ')') : NULL;
        EXPECT(bg > 0 && (!stat || (state && state[2] == 'Z')));
        free(stat);
        free(stat_path);
    }
    free(pid_text);
    free(script);
    unlink(pidfile);
    proc_result_free(&r);
}

static void flood_capped(void)
{
    struct proc_result r;
    EXPECT(run("head -c 3000000 /dev/zero | tr '\\0' x", 20, 1000, &r) == 0);
    EXPECT(r.output_len == 1000);
    EXPECT(r.dropped == 3000000 - 1000);
    proc_result_free(&r);
}

static int lines_seen;
static void count_line(void *ud, const char *line)
{
    (void)ud;
    if (!strncmp(line, "@stage ", 7))
        lines_seen++;
}

static void lines_delivered_past_cap(void)
{
    struct proc_result r;
    char *argv[] = {"sh", "-c", "for i in 1 2 3 4 5; do echo \"@stage x $i/5 padding-padding\"; done", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 10, .output_cap = 16, .on_line = count_line};
    lines_seen = 0;
    EXPECT(proc_run(&spec, &r) == 0);
    EXPECT(lines_seen == 5);
    proc_result_free(&r);
}

static void missing_program(void)
{
    struct proc_result r;
    char *argv[] = {"/nonexistent/prog", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 10};
    EXPECT(proc_run(&spec, &r) == 0);
    EXPECT(!r.started);
    EXPECT(strstr(r.error, "cannot run /nonexistent/prog") != NULL);
    proc_result_free(&r);
}

/* The child announces a wait; the grace it is given covers the time. */
static double waited_since;
static void note_wait(void *ud, const char *line)
{
    (void)ud;
    if (!strcmp(line, "@gpu wait"))
        waited_since = util_now();
}
static double grace_of_wait(void *ud)
{
    (void)ud;
    return waited_since ? util_now() - waited_since : 0;
}

static void grace_extends_the_limit(void)
{
    struct proc_result r;
    char *argv[] = {"sh", "-c", "echo '@gpu wait'; sleep 1.2; echo done", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 0.6, .on_line = note_wait, .grace = grace_of_wait};
    waited_since = 0;
    EXPECT(proc_run(&spec, &r) == 0);
    EXPECT(!r.timed_out && r.exited && r.exit_code == 0);
    EXPECT(strstr(r.output, "done") != NULL);
    proc_result_free(&r);
    /* Without the wait line there is no grace: the same child times out. */
    char *quiet[] = {"sh", "-c", "sleep 1.2; echo done", NULL};
    spec.argv = quiet;
    waited_since = 0;
    EXPECT(proc_run(&spec, &r) == 0);
    EXPECT(r.timed_out);
    proc_result_free(&r);
}

/* A phase with its own, shorter limit: it ends the child at the cutoff,
 * long before timeout_s; once the phase is over the cutoff is gone. */
static double phase_until;
static void note_phase(void *ud, const char *line)
{
    (void)ud;
    if (!strcmp(line, "@phase start"))
        phase_until = util_now() + 0.4;
    else if (!strcmp(line, "@phase end"))
        phase_until = 0;
}
static double phase_cutoff(void *ud)
{
    (void)ud;
    return phase_until;
}

static void cutoff_ends_a_phase(void)
{
    struct proc_result r;
    char *argv[] = {"sh", "-c", "echo '@phase start'; sleep 3; echo done", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 20, .on_line = note_phase, .cutoff = phase_cutoff};
    phase_until = 0;
    double t0 = util_now();
    EXPECT(proc_run(&spec, &r) == 0);
    EXPECT(r.timed_out && !r.exited);
    EXPECT(util_now() - t0 < 2);
    EXPECT(strstr(r.output, "done") == NULL);
    proc_result_free(&r);
    /* The phase ends in time: the rest of the run has the whole limit. */
    char *ends[] = {"sh", "-c", "echo '@phase start'; echo '@phase end'; sleep 0.8; echo done", NULL};
    spec.argv = ends;
    phase_until = 0;
    EXPECT(proc_run(&spec, &r) == 0);
    EXPECT(!r.timed_out && r.exited && r.exit_code == 0);
    EXPECT(strstr(r.output, "done") != NULL);
    proc_result_free(&r);
}

static atomic_int stop_flag;
static void *set_stop(void *arg)
{
    (void)arg;
    usleep(200 * 1000);
    atomic_store(&stop_flag, 1);
    return NULL;
}

static void cancel_stops_the_child(void)
{
    struct proc_result r;
    char why[128];
    pthread_t t;
    char *argv[] = {"sh", "-c", "sleep 30 & sleep 30", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 20, .cancel = &stop_flag};
    atomic_store(&stop_flag, 0);
    pthread_create(&t, NULL, set_stop, NULL);
    double t0 = util_now();
    EXPECT(proc_run(&spec, &r) == 0);
    pthread_join(t, NULL);
    EXPECT(r.cancelled && !r.timed_out);
    EXPECT(util_now() - t0 < 5);
    proc_describe(&r, why, sizeof why);
    EXPECT(strstr(why, "no longer needed") != NULL);
    proc_result_free(&r);
}

static void env_given_to_the_child_only(void)
{
    struct proc_result r;
    char *env[] = {"CUDATUTOR_PROC_TEST=one two", "HOME=/nowhere", NULL};
    char *argv[] = {"sh", "-c", "echo \"[$CUDATUTOR_PROC_TEST] [$HOME] [${PATH:+path}]\"", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 10, .env = env};
    const char *home = getenv("HOME");
    EXPECT(proc_run(&spec, &r) == 0 && r.started);
    EXPECT(strstr(r.output, "[one two] [/nowhere] [path]") != NULL);
    EXPECT(getenv("CUDATUTOR_PROC_TEST") == NULL);
    EXPECT(getenv("HOME") == home);
    proc_result_free(&r);
}

static void nice_given_to_the_child(void)
{
    struct proc_result r;
    char *argv[] = {"nice", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 10, .nice = 5};
    int mine = getpriority(PRIO_PROCESS, 0), want = mine + 5 > 19 ? 19 : mine + 5;
    EXPECT(proc_run(&spec, &r) == 0 && r.exited && r.exit_code == 0);
    EXPECT(atoi(r.output) == want);
    proc_result_free(&r);
}

/* A stdin given is the child's, and its end (the caller closing its copy)
 * is the child's end of input; without one the child reads /dev/null. */
static void stdin_given_to_the_child(void)
{
    struct proc_result r;
    int in[2];
    char *argv[] = {"sh", "-c", "read -r a; echo \"[$a]\"; cat >/dev/null; echo eof", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 10};
    EXPECT(pipe2(in, O_CLOEXEC) == 0);
    EXPECT(write(in[1], "word\n", 5) == 5);
    close(in[1]);
    spec.in_fd = in[0];
    EXPECT(proc_run(&spec, &r) == 0 && r.exited && r.exit_code == 0);
    EXPECT(strstr(r.output, "[word]\neof") != NULL);
    proc_result_free(&r);
    close(in[0]);
    spec.in_fd = 0;
    EXPECT(proc_run(&spec, &r) == 0 && strstr(r.output, "[]\neof") != NULL);
    proc_result_free(&r);
}

/* Threads running short children in a loop beside threads starting long
 * ones.  A long child that inherited a short run's pipe (forked between
 * that pipe's creation and its closing in the parent) would hold it open,
 * and the short run would last about as long as the long child.  Each
 * long fork is a chance to catch a leak; twelve of them, six threads of
 * two rounds each, take two seconds of the shorts spinning every core
 * (two threads of six rounds took six). */
enum { LONGS = 6, LONG_ROUNDS = 2, SHORTS = 6 };
static atomic_int longs_running;
static void *long_children(void *arg)
{
    (void)arg;
    for (int i = 0; i < LONG_ROUNDS; i++) {
        struct proc_result r;
        char *argv[] = {"sleep", "1", NULL};
        struct proc_spec spec = {.argv = argv, .timeout_s = 10};
        proc_run(&spec, &r);
        proc_result_free(&r);
    }
    atomic_fetch_sub(&longs_running, 1);
    return NULL;
}

struct shorts {
    pthread_t t;
    int runs;
    double worst;
};

static void *short_children(void *arg)
{
    struct shorts *s = arg;
    while (atomic_load(&longs_running)) {
        struct proc_result r;
        char *argv[] = {"true", NULL};
        struct proc_spec spec = {.argv = argv, .timeout_s = 10};
        double t0 = util_now();
        proc_run(&spec, &r);
        proc_result_free(&r);
        if (util_now() - t0 > s->worst)
            s->worst = util_now() - t0;
        s->runs++;
    }
    return NULL;
}

static void threads_never_share_pipes(void)
{
    pthread_t longs[LONGS];
    struct shorts sh[SHORTS] = {{0}};
    double worst = 0;
    int runs = 0;
    atomic_store(&longs_running, LONGS);
    for (int i = 0; i < SHORTS; i++)
        pthread_create(&sh[i].t, NULL, short_children, &sh[i]);
    for (int i = 0; i < LONGS; i++)
        pthread_create(&longs[i], NULL, long_children, NULL);
    for (int i = 0; i < LONGS; i++)
        pthread_join(longs[i], NULL);
    for (int i = 0; i < SHORTS; i++) {
        pthread_join(sh[i].t, NULL);
        runs += sh[i].runs;
        worst = sh[i].worst > worst ? sh[i].worst : worst;
    }
    printf("# %d short runs beside %d long ones; the slowest took %.3f s\n", runs, LONGS * LONG_ROUNDS, worst);
    EXPECT(runs > 20);
    EXPECT(worst < 0.7);     /* a leak costs about 1 s, the length of a long child */
}

static void child_starts_unblocked(void)
{
    struct proc_result r;
    sigset_t term, old;
    char *argv[] = {"sh", "-c", "kill -TERM $$; sleep 5", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 10};
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, &old);
    EXPECT(proc_run(&spec, &r) == 0);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    EXPECT(r.signaled && r.signal == SIGTERM && r.seconds < 4);
    proc_result_free(&r);
}

/* as_bytes limits the child's address space (the CPU judge's memory
 * bound), and never raises a lower limit the caller already has. */
static void address_space_limited(void)
{
    struct proc_result r;
    char *argv[] = {"sh", "-c", "ulimit -v", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 10, .as_bytes = (size_t)256 << 20};
    EXPECT(proc_run(&spec, &r) == 0);
    EXPECT(r.exited && r.exit_code == 0 && !strcmp(r.output, "262144\n"));
    proc_result_free(&r);
    struct rlimit low = {(rlim_t)128 << 20, (rlim_t)128 << 20};
    pid_t pid = fork();
    if (pid == 0) {
        if (setrlimit(RLIMIT_AS, &low) || proc_run(&spec, &r))
            _exit(2);
        _exit(!strcmp(r.output, "131072\n") ? 0 : 1);
    }
    int status = 0;
    EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TAP_MAIN(T(output_and_exit_code), T(signal_reported), T(timeout_kills_the_group), T(flood_capped),
         T(lines_delivered_past_cap), T(missing_program), T(grace_extends_the_limit), T(cutoff_ends_a_phase),
         T(cancel_stops_the_child), T(env_given_to_the_child_only), T(nice_given_to_the_child), T(stdin_given_to_the_child),
         T(threads_never_share_pipes), T(child_starts_unblocked), T(address_space_limited))
