/* proc.c — see proc.h. */
#define _GNU_SOURCE     /* pipe2 */
#include "sys/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/util.h"

#define LINE_MAX_BYTES 1024

struct collector {
    const struct proc_spec *spec;
    struct proc_result *res;
    size_t cap;
    char line[LINE_MAX_BYTES];
    size_t line_len;
    char chan_line[LINE_MAX_BYTES];     /* the channel's partial line */
    size_t chan_len;
};

/* Feeds complete lines of buf to on_line, keeping a partial one in line. */
static void split_lines(const struct proc_spec *spec, char *line, size_t *len, const char *buf, size_t n)
{
    for (size_t i = 0; i < n && spec->on_line; i++) {
        if (buf[i] == '\n' || *len == LINE_MAX_BYTES - 1) {
            line[*len] = '\0';
            spec->on_line(spec->ud, line);
            *len = 0;
            if (buf[i] == '\n')
                continue;
        }
        line[(*len)++] = buf[i];
    }
}

static void collect(struct collector *c, const char *buf, size_t n)
{
    struct proc_result *r = c->res;
    size_t keep = r->output_len < c->cap ? c->cap - r->output_len : 0;
    if (keep > n)
        keep = n;
    memcpy(r->output + r->output_len, buf, keep);
    r->output_len += keep;
    r->output[r->output_len] = '\0';
    r->dropped += n - keep;

    /* Lines are delivered even past the cap: progress must keep flowing
     * while a flood of output is being thrown away. */
    if (!c->spec->channel)
        split_lines(c->spec, c->line, &c->line_len, buf, n);
}

/* Puts fd at target in the child, open across exec: dup2 onto another
 * number clears close-on-exec, but onto itself it changes nothing. */
static void child_place(int fd, int target)
{
    if (fd == target)
        fcntl(fd, F_SETFD, 0);
    else
        dup2(fd, target);
}

/* Limits the child's address space to BYTES, or keeps the lower limit it
 * inherited; 0 or -1 (errno). */
static int child_as_limit(size_t bytes)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0)
        return -1;
    rlim_t lim = rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)bytes ? rl.rlim_cur : (rlim_t)bytes;
    rl.rlim_cur = rl.rlim_max = lim;
    return setrlimit(RLIMIT_AS, &rl);
}

/* The child's side: only async-signal-safe calls until exec (the parent may
 * have other threads, holding locks that a copied malloc would wait on). */
static void child_exec(const struct proc_spec *spec, const char *path, char *const *envp, int out_fd, int err_fd,
                       int chan_fd)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    /* If whoever runs us dies (a cancelled check in the tutor), so do we:
     * our own process group is beyond the reach of its group's kill. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_DFL);
    int devnull = spec->in_fd > 0 ? spec->in_fd : open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull >= 0)
        child_place(devnull, STDIN_FILENO);
    /* err_fd may sit where out or the channel must go: move it out of the
     * way first (it stays close-on-exec: its end says that exec worked). */
    if (err_fd <= PROC_CHANNEL_FD) {
        int moved = fcntl(err_fd, F_DUPFD_CLOEXEC, PROC_CHANNEL_FD + 1);
        err_fd = moved >= 0 ? moved : err_fd;
    }
    child_place(out_fd, STDOUT_FILENO);
    child_place(out_fd, STDERR_FILENO);
    if (chan_fd >= 0)
        child_place(chan_fd, PROC_CHANNEL_FD);
    if (spec->nice)
        (void)!nice(spec->nice);
    if (spec->as_bytes && child_as_limit(spec->as_bytes) != 0) {
        int e = errno;
        (void)!write(err_fd, &e, sizeof e);
        _exit(127);
    }
    if (spec->cwd && chdir(spec->cwd) != 0) {
        int e = errno;
        (void)!write(err_fd, &e, sizeof e);
        _exit(127);
    }
    if (envp)
        execve(path, spec->argv, envp);
    else
        execvp(path, spec->argv);
    int e = errno;
    (void)!write(err_fd, &e, sizeof e);
    _exit(127);
}

/* The child's environment when spec->env gives one: the caller's, less the
 * names spec->env sets, then spec->env.  Built before fork (the child may
 * not allocate).  NULL: out of memory. */
static char **child_env(char *const *add)
{
    extern char **environ;
    size_t n = 0, k = 0, a = 0;
    while (environ[n])
        n++;
    while (add[a])
        a++;
    char **envp = calloc(n + a + 1, sizeof *envp);
    if (!envp)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        size_t len = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
        int replaced = 0;
        for (size_t j = 0; j < a && !replaced; j++)
            replaced = !strncmp(add[j], environ[i], len) && add[j][len] == '=';
        if (!replaced)
            envp[k++] = environ[i];
    }
    for (size_t j = 0; j < a; j++)
        envp[k++] = add[j];
    return envp;
}

enum { PUMP_EOF, PUMP_TIMEOUT, PUMP_CANCEL };

/* Whether the run must stop now, and how long it may still wait if not. */
static int must_stop(const struct proc_spec *spec, double t0, double until, int *wait_ms)
{
    double deadline = until;
    if (until <= 0 && spec->timeout_s > 0)
        deadline = t0 + spec->timeout_s + (spec->grace ? spec->grace(spec->ud) : 0);
    if (until <= 0 && spec->cutoff) {
        double cut = spec->cutoff(spec->ud);
        if (cut > 0 && (deadline <= 0 || cut < deadline))
            deadline = cut;
    }
    if (until <= 0 && spec->cancel && atomic_load(spec->cancel))
        return PUMP_CANCEL;
    *wait_ms = -1;
    if (deadline > 0) {
        double left = deadline - util_now();
        if (left <= 0)
            return PUMP_TIMEOUT;
        *wait_ms = (int)(left * 1000) + 1;
    }
    /* Grace, cutoff and cancellation change while we wait: look again soon. */
    if (until <= 0 && (spec->grace || spec->cutoff || spec->cancel) && (*wait_ms < 0 || *wait_ms > 100))
        *wait_ms = 100;
    return PUMP_EOF;
}

/* Reads the output (and the channel, if any) until both end (PUMP_EOF),
 * the deadline (PUMP_TIMEOUT) or a cancel (PUMP_CANCEL).  The deadline is
 * `until` when positive, else the spec's limit from t0 plus its grace. */
static int pump(struct collector *c, int fd, int chan, double t0, double until)
{
    char buf[8192];
    struct pollfd pfd[2] = {{fd, POLLIN, 0}, {chan, POLLIN, 0}};
    for (;;) {
        int wait_ms, stop = must_stop(c->spec, t0, until, &wait_ms);
        if (stop != PUMP_EOF)
            return stop;
        if (pfd[0].fd < 0 && pfd[1].fd < 0)
            return PUMP_EOF;
        int pr = poll(pfd, 2, wait_ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0)
            return PUMP_EOF;
        for (int i = 0; i < 2 && pr > 0; i++) {
            if (pfd[i].fd < 0 || !pfd[i].revents)
                continue;
            ssize_t n = read(pfd[i].fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                pfd[i].fd = -1;         /* poll skips negative fds */
                continue;
            }
            if (i == 0)
                collect(c, buf, (size_t)n);
            else
                split_lines(c->spec, c->chan_line, &c->chan_len, buf, (size_t)n);
        }
    }
}

/* Closes both ends of a pipe that were opened (-1: not). */
static void close_pair(const int p[2])
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0)
            close(p[i]);
}

/* A started child: its pipes, its collector and its start time. */
struct proc {
    struct collector c;
    pid_t pid;
    int out, err, chan;
    double t0;
};

static void proc_close(struct proc *p)
{
    if (p->out >= 0)
        close(p->out);
    if (p->err >= 0)
        close(p->err);
    if (p->chan >= 0)
        close(p->chan);
    free(p);
}

struct proc *proc_start(const struct proc_spec *spec, struct proc_result *res)
{
    int out[2] = {-1, -1}, err[2] = {-1, -1}, chan[2] = {-1, -1};
    struct proc *p = NULL;
    char **envp = NULL, *found = NULL;
    const char *path = spec->argv[0];
    pid_t pid;

    memset(res, 0, sizeof *res);
    if (!(res->output = malloc((spec->output_cap ? spec->output_cap : (1u << 20)) + 1)) ||
        !(p = calloc(1, sizeof *p))) {
        util_copy(res->error, sizeof res->error, "out of memory");
        goto fail;
    }
    p->c = (struct collector){spec, res, spec->output_cap ? spec->output_cap : (1u << 20), {0}, 0, {0}, 0};
    p->t0 = util_now();
    res->output[0] = '\0';
    if (spec->env) {
        /* execve does not search PATH: the program is found here. */
        if (!strchr(path, '/') && (found = util_which(path)))
            path = found;
        if (!(envp = child_env(spec->env))) {
            util_copy(res->error, sizeof res->error, "out of memory");
            goto fail;
        }
    }
    /* Close-on-exec from birth, so that a child another thread starts at
     * this moment cannot inherit them (it would hold our pipe open, and
     * our wait for its end would last as long as its child). */
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
        (spec->channel && pipe2(chan, O_CLOEXEC) != 0)) {
        snprintf(res->error, sizeof res->error, "pipe: %s", strerror(errno));
        goto fail;
    }
    fflush(NULL);
    if ((pid = fork()) < 0) {
        snprintf(res->error, sizeof res->error, "fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0)
        child_exec(spec, path, envp, out[1], err[1], chan[1]);
    /* Also from the parent: the child may not have run setpgid yet when we
     * need to signal its group. */
    setpgid(pid, pid);
    close(out[1]);
    close(err[1]);
    if (chan[1] >= 0)
        close(chan[1]);
    p->pid = pid;
    p->out = out[0];
    p->err = err[0];
    p->chan = chan[0];

    int exec_errno = 0;
    ssize_t got = read(p->err, &exec_errno, sizeof exec_errno);
    res->started = got != (ssize_t)sizeof exec_errno;
    if (!res->started)
        snprintf(res->error, sizeof res->error, "cannot run %s: %s", spec->argv[0],
                 strerror(exec_errno));
    free(envp);
    free(found);
    return p;
fail:
    close_pair(out);
    close_pair(err);
    close_pair(chan);
    free(p);
    free(envp);
    free(found);
    return NULL;
}

void proc_wait(struct proc *p)
{
    struct collector *c = &p->c;
    const struct proc_spec *spec = c->spec;
    struct proc_result *res = c->res;
    int status = 0;

    int how = pump(c, p->out, p->chan, p->t0, 0);
    if (how != PUMP_EOF) {
        res->timed_out = how == PUMP_TIMEOUT;
        res->cancelled = how == PUMP_CANCEL;
        kill(-p->pid, SIGKILL);
        /* A grandchild that left the group could keep the pipe open: read
         * what is left for a moment, then stop listening. */
        pump(c, p->out, p->chan, p->t0, util_now() + 1.0);
    }
    while (waitpid(p->pid, &status, 0) < 0 && errno == EINTR)
        ;
    kill(-p->pid, SIGKILL);     /* nothing of the group outlives the call */
    if (c->line_len && spec->on_line && !spec->channel) {
        c->line[c->line_len] = '\0';
        spec->on_line(spec->ud, c->line);
    }
    if (c->chan_len && spec->on_line) {
        c->chan_line[c->chan_len] = '\0';
        spec->on_line(spec->ud, c->chan_line);
    }
    if (WIFEXITED(status)) {
        res->exited = 1;
        res->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->signaled = 1;
        res->signal = WTERMSIG(status);
    }
    res->seconds = util_now() - p->t0;
    proc_close(p);
}

int proc_run(const struct proc_spec *spec, struct proc_result *res)
{
    struct proc *p = proc_start(spec, res);
    if (!p)
        return -1;
    proc_wait(p);
    return 0;
}

void proc_result_free(struct proc_result *res)
{
    free(res->output);
    res->output = NULL;
}

void proc_describe(const struct proc_result *res, char *buf, size_t len)
{
    if (!res->started)
        snprintf(buf, len, "%s", res->error);
    else if (res->timed_out)
        snprintf(buf, len, "timed out after %.0f s", res->seconds);
    else if (res->cancelled)
        snprintf(buf, len, "stopped after %.1f s: no longer needed", res->seconds);
    else if (res->signaled)
        snprintf(buf, len, "killed by signal %d (%s)", res->signal, strsignal(res->signal));
    else
        snprintf(buf, len, "exit %d", res->exit_code);
}
