/* test_proc.c — the child runner: output, exit codes, signals, timeouts that
 * kill the whole group, an output flood capped, lines delivered. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "proc.h"
#include "tap.h"
#include "util.h"

static int run(const char *script, double timeout, size_t cap, struct proc_result *r)
{
    char *argv[] = {"sh", "-c", (char *)script, NULL};
    struct proc_spec spec = {argv, NULL, timeout, cap, NULL, NULL};
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
    struct proc_spec spec = {argv, NULL, 10, 16, count_line, NULL};
    lines_seen = 0;
    EXPECT(proc_run(&spec, &r) == 0);
    EXPECT(lines_seen == 5);
    proc_result_free(&r);
}

static void missing_program(void)
{
    struct proc_result r;
    char *argv[] = {"/nonexistent/prog", NULL};
    struct proc_spec spec = {argv, NULL, 10, 0, NULL, NULL};
    EXPECT(proc_run(&spec, &r) == 0);
    EXPECT(!r.started);
    EXPECT(strstr(r.error, "cannot run /nonexistent/prog") != NULL);
    proc_result_free(&r);
}

TAP_MAIN(T(output_and_exit_code), T(signal_reported), T(timeout_kills_the_group), T(flood_capped),
         T(lines_delivered_past_cap), T(missing_program))
