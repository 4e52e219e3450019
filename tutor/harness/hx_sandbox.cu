/* hx_sandbox.cu — starts the runner (the student's launcher) in its sandbox.
 *
 * Everything is set up in the child between fork and exec, so that it
 * covers the runner's first instruction: ifunc resolvers and static
 * constructors run before main and get no more than main does.
 *   - one socket on PLAN_FD, stdin from /dev/null, stdout and stderr to a
 *     file capped by RLIMIT_FSIZE (writes past it fail), every other fd
 *     closed;
 *   - rlimits: address space, CPU time, no core, no processes;
 *   - a seccomp allow-list (libseccomp): reading and writing the fds it
 *     has, memory that is never executable, futexes, clocks, exit.  open,
 *     socket, fcntl, ioctl, clone/fork, execve, ptrace, kill of another
 *     process and everything else not listed kill the process (SIGSYS).
 * The exec itself goes through execveat on an fd opened before the filter:
 * the filter allows that one call (that fd, AT_EMPTY_PATH) and no other,
 * and the fd closes on exec.  The runner is linked statically, so the exec
 * maps it without opening a library or an executable mapping.
 *
 * Whose failure is whose: a step of the set-up that fails writes which one
 * and its errno on a close-on-exec pipe, and the exec closes that pipe.  So
 * runner_start knows, before any student code runs, whether the sandbox
 * stood: a report is the workbook's failure, end of file is the exec.
 * From then on every exit status, signal or silence of the process is the
 * student's, and runner_describe says so in words of its own: no exit
 * status or signal number a submission picked reaches a message.
 * This runs before the judge's first CUDA call: forking a process that has
 * a CUDA context is not safe. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hx.h"
#include "../runner/plan.h"

namespace hx {

/* REPORT_FD_MIN: where the set-up report pipe waits, above any descriptor
 * the child opens or places. */
enum { RUNNER_AS_BYTES = 512 << 20, RUNNER_CPU_S = 120, REPORT_FD_MIN = 100 };

/* One argument test; SCMP_A0..5 leave a field out, which C++ warns about. */
static struct scmp_arg_cmp arg(unsigned i, enum scmp_compare op, scmp_datum_t a, scmp_datum_t b = 0)
{
    struct scmp_arg_cmp c = {i, op, a, b};
    return c;
}

/* The system calls a runner may make.  Anything else ends it. */
static int filter_build(scmp_filter_ctx f, int exec_fd, pid_t self)
{
    static const int plain[] = {
        SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
        SCMP_SYS(recvfrom), SCMP_SYS(sendto), SCMP_SYS(recvmsg), SCMP_SYS(sendmsg),
        SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
        SCMP_SYS(arch_prctl), SCMP_SYS(set_tid_address), SCMP_SYS(set_robust_list),
        SCMP_SYS(rseq), SCMP_SYS(getrandom), SCMP_SYS(futex), SCMP_SYS(exit),
        SCMP_SYS(exit_group), SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday),
        SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigaction),
        SCMP_SYS(rt_sigreturn), SCMP_SYS(lseek), SCMP_SYS(close), SCMP_SYS(fstat),
        SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity),
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, plain[i], 0);
    /* Memory, never executable: code cannot be made at run time. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
                           arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
                           arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    /* stdio's fstat of an fd it holds; never of a path. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 1,
                           arg(3, SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH));
    /* glibc asks for its stack limit at start: reading limits, never setting. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2,
                           arg(0, SCMP_CMP_EQ, 0), arg(2, SCMP_CMP_EQ, 0));
    /* abort() signals its own thread; no other process. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, arg(0, SCMP_CMP_EQ, (scmp_datum_t)self));
    /* Static glibc looks up its own path at start; it does without. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(readlink), 0);
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(readlinkat), 0);
    /* The one exec: of the runner, through the fd opened for it. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(execveat), 2,
                           arg(0, SCMP_CMP_EQ, (scmp_datum_t)exec_fd),
                           arg(4, SCMP_CMP_EQ, AT_EMPTY_PATH));
    return rc;
}

/* The set-up steps, as a failure report names them. */
#define SETUP_STEPS(X)                                    \
    X(SETUP_FILES, "opening /dev/null, the output file or the runner") \
    X(SETUP_FDS, "placing the descriptors")               \
    X(SETUP_LIMITS, "setting the resource limits")        \
    X(SETUP_FILTER, "installing the system-call filter")  \
    X(SETUP_EXEC, "executing the runner")
#define SETUP_ENUM_(id, text) id,
enum setup_step { SETUP_STEPS(SETUP_ENUM_) SETUP_COUNT };
#undef SETUP_ENUM_

/* What the child writes on the report pipe when a step fails. */
struct setup_report {
    int step;                   /* enum setup_step */
    int err;                    /* errno, or 0 */
};

/* In the child, before exec: says which step failed, and ends. */
static void setup_failed(int report, int step)
{
    struct setup_report m = {step, errno};
    (void)!write(report, &m, sizeof m);
    _exit(127);
}

/* In the child: never returns.  `report` is the pipe's write end,
 * close-on-exec; `go`, when not -1, a pipe's read end to wait on first (a
 * deferred start): a byte lets it go on, its end withdraws the run. */
static void child(const char *runner, int sock, int report, int go, const char *out_path, size_t out_cap)
{
    char *const argv[] = {(char *)"runner", NULL};
    char *const envp[] = {NULL};
    struct rlimit as = {RUNNER_AS_BYTES, RUNNER_AS_BYTES}, cpu = {RUNNER_CPU_S, RUNNER_CPU_S};
    struct rlimit none = {0, 0}, fsize = {out_cap, out_cap}, files = {8, 8};
    scmp_filter_ctx f = NULL;

    /* If the judge dies, so does the runner. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (go >= 0) {
        char b;
        ssize_t n;
        while ((n = read(go, &b, 1)) < 0 && errno == EINTR)
            ;
        if (n != 1)
            _exit(0);
        close(go);
    }
    int devnull = open("/dev/null", O_RDONLY);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int exe = open(runner, O_RDONLY | O_CLOEXEC);
    if (devnull < 0 || out < 0 || exe < 0)
        setup_failed(report, SETUP_FILES);
    /* The report pipe moves above every descriptor the steps below place,
     * and the loop that closes the rest spares it. */
    int moved = fcntl(report, F_DUPFD_CLOEXEC, REPORT_FD_MIN);
    if (moved < 0)
        setup_failed(report, SETUP_FDS);
    report = moved;
    if (dup2(devnull, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(sock, PLAN_FD) < 0)
        setup_failed(report, SETUP_FDS);
    /* exe must survive the closing below: move it to PLAN_FD + 1. */
    if (dup2(exe, PLAN_FD + 1) < 0 || fcntl(PLAN_FD + 1, F_SETFD, FD_CLOEXEC) < 0)
        setup_failed(report, SETUP_FDS);
    exe = PLAN_FD + 1;
    for (int fd = PLAN_FD + 2; fd < 1024; fd++)
        if (fd != report)
            close(fd);
    /* Never above the judge's own limit (a CPU judge runs under the
     * catalog's bound): raising it would fail, and is not wanted. */
    struct rlimit inherited;
    if (getrlimit(RLIMIT_AS, &inherited) == 0 && inherited.rlim_cur < as.rlim_cur)
        as.rlim_cur = as.rlim_max = inherited.rlim_cur;
    /* Writes past the cap fail with EFBIG instead of killing the runner. */
    signal(SIGXFSZ, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    if (setrlimit(RLIMIT_AS, &as) || setrlimit(RLIMIT_CPU, &cpu) || setrlimit(RLIMIT_CORE, &none) ||
        setrlimit(RLIMIT_NPROC, &none) || setrlimit(RLIMIT_FSIZE, &fsize) ||
        setrlimit(RLIMIT_NOFILE, &files))
        setup_failed(report, SETUP_LIMITS);
    if (!(f = seccomp_init(SCMP_ACT_KILL_PROCESS)) || filter_build(f, exe, getpid()) ||
        seccomp_load(f))
        setup_failed(report, SETUP_FILTER);
    syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
    setup_failed(report, SETUP_EXEC);
}

/* Reads the child's set-up report: 0 when the pipe closed empty (the exec
 * happened), -1 with *m filled when a step failed. */
static int setup_wait(int fd, struct setup_report *m)
{
    size_t got = 0;
    while (got < sizeof *m) {
        ssize_t n = read(fd, (char *)m + got, sizeof *m - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got == 0)
        return 0;
    if (got < sizeof *m || m->step < 0 || m->step >= SETUP_COUNT)
        m->step = SETUP_EXEC, m->err = 0;
    return -1;
}

/* Closes both ends of a pipe or socket pair that were opened (-1: not). */
static void close_pair(const int p[2])
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0)
            close(p[i]);
}

/* Forks the runner's child; with `deferred`, it waits for runner_go. */
static int fork_runner(struct runner *r, const char *path, const char *out_path, size_t out_cap, int deferred,
                       char *why, size_t len)
{
    int sv[2] = {-1, -1}, rp[2] = {-1, -1}, gp[2] = {-1, -1};
    r->pid = -1;
    r->fd = r->go = r->report = -1;
    snprintf(why, len, "%s", "");
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) || pipe2(rp, O_CLOEXEC) ||
        (deferred && pipe2(gp, O_CLOEXEC))) {
        snprintf(why, len, "no socket or pipe for it: %s", strerror(errno));
        goto fail;
    }
    fflush(NULL);
    r->pid = fork();
    if (r->pid < 0) {
        snprintf(why, len, "fork: %s", strerror(errno));
        goto fail;
    }
    if (r->pid == 0) {
        close(sv[0]);
        close(rp[0]);
        if (gp[1] >= 0)
            close(gp[1]);
        child(path, sv[1], rp[1], gp[0], out_path, out_cap);
    }
    close(sv[1]);
    close(rp[1]);
    if (gp[0] >= 0)
        close(gp[0]);
    r->fd = sv[0];
    r->report = rp[0];
    r->go = gp[1];
    return 0;
fail:
    close_pair(sv);
    close_pair(rp);
    close_pair(gp);
    return -1;
}

int runner_go(struct runner *r, char *why, size_t len)
{
#define SETUP_TEXT_(id, text) text,
    static const char *const step_text[] = {SETUP_STEPS(SETUP_TEXT_)};
#undef SETUP_TEXT_
    struct setup_report m;
    int status, rc = 0;
    if (r->go >= 0) {
        char b = 'g';
        (void)!write(r->go, &b, 1);
        close(r->go);
        r->go = -1;
    }
    if (r->report < 0)
        return 0;
    if (setup_wait(r->report, &m)) {
        snprintf(why, len, "its sandbox could not be set up (%s: %s)", step_text[m.step],
                 m.err ? strerror(m.err) : "no reason given");
        waitpid(r->pid, &status, 0);
        r->pid = -1;
        close(r->fd);
        r->fd = -1;
        rc = -1;
    }
    close(r->report);
    r->report = -1;
    return rc;
}

int runner_start(struct runner *r, const char *path, const char *out_path, size_t out_cap,
                 char *why, size_t len)
{
    if (fork_runner(r, path, out_path, out_cap, 0, why, len))
        return -1;
    return runner_go(r, why, len);
}

int runner_start_deferred(struct runner *r, const char *path, const char *out_path, size_t out_cap,
                          char *why, size_t len)
{
    return fork_runner(r, path, out_path, out_cap, 1, why, len);
}

void runner_stop(struct runner *r, char *why, size_t len)
{
    int status = 0;
    if (why && len)
        why[0] = '\0';
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    /* a deferred runner never told to go ends at its pipe's end */
    if (r->go >= 0)
        close(r->go);
    if (r->report >= 0)
        close(r->report);
    r->go = r->report = -1;
    if (r->pid <= 0)
        return;
    /* Closing the socket ends a runner waiting for a call; one that does
     * not end at once is stopped. */
    for (int i = 0; i < 50; i++) {
        pid_t w = waitpid(r->pid, &status, WNOHANG);
        if (w == r->pid)
            goto reaped;
        usleep(1000);
    }
    kill(r->pid, SIGKILL);
    waitpid(r->pid, &status, 0);
reaped:
    r->pid = -1;
    if (!why || !len)
        return;
    runner_describe(status, why, len);
}

/* How a runner's end reads, by signal: a fixed vocabulary, so that a
 * submission that kills itself with a signal of its choosing picks one of
 * these words and not a number. */
#define RUNNER_SIGNALS(X)                                                                          \
    X(SIGSYS, "the sandbox stopped it: it made a system call a launcher may not make "               \
              "(files, network, processes, signals to others, executable memory)")                 \
    X(SIGXCPU, "it ran out of CPU time")                                                           \
    X(SIGSEGV, "it crashed on a bad memory access (SIGSEGV)")                                      \
    X(SIGBUS, "it crashed on a bad memory access (SIGBUS)")                                        \
    X(SIGFPE, "it crashed on an arithmetic error (SIGFPE)")                                        \
    X(SIGILL, "it crashed on an illegal instruction (SIGILL)")                                     \
    X(SIGABRT, "it aborted (SIGABRT)")                                                             \
    X(SIGKILL, "it was killed (SIGKILL)")

void runner_describe(int status, char *why, size_t len)
{
#define SIG_ROW_(sig, text) {sig, text},
    static const struct {
        int sig;
        const char *text;
    } rows[] = {RUNNER_SIGNALS(SIG_ROW_)};
#undef SIG_ROW_
    if (WIFSIGNALED(status)) {
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            if (rows[i].sig == WTERMSIG(status)) {
                snprintf(why, len, "%s", rows[i].text);
                return;
            }
        snprintf(why, len, "it was ended by a signal");
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        snprintf(why, len, "it ended its process (exit status 0) before the judge was done with it");
    } else if (WIFEXITED(status)) {
        snprintf(why, len, "it ended its process with a non-zero exit status");
    } else {
        snprintf(why, len, "it ended");
    }
}

} /* namespace hx */
