/* emu_seal.c — the CPU judge's system-call filter (emu_seal.h): an
 * allow-list for what a judge does after its start, kills for the ways out
 * a hijacked judge would take, and EPERM for the rest, so that a library
 * call nobody listed fails as it would in any restricted place instead of
 * ending an honest student's check. */
#define _GNU_SOURCE     /* CLONE_THREAD */
#include "emu/emu_seal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The calls that need no look at their arguments. */
static const int allowed[] = {
    SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64),
    SCMP_SYS(pwrite64), SCMP_SYS(lseek), SCMP_SYS(close), SCMP_SYS(fstat), SCMP_SYS(dup),
    SCMP_SYS(recvfrom), SCMP_SYS(sendto), SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(poll),
    SCMP_SYS(ppoll), SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
    SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list), SCMP_SYS(rseq),
    SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity), SCMP_SYS(getrandom),
    SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(gettimeofday), SCMP_SYS(time),
    SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep), SCMP_SYS(getpid), SCMP_SYS(gettid),
    SCMP_SYS(getppid), SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack), SCMP_SYS(wait4),
    SCMP_SYS(waitid), SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2),
    SCMP_SYS(getrusage), SCMP_SYS(sysinfo), SCMP_SYS(uname),
};

/* The ways out: each ends the process. */
static const int fatal[] = {
    SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(socket), SCMP_SYS(socketpair),
    SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4),
    SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv),
    SCMP_SYS(process_vm_writev), SCMP_SYS(tkill), SCMP_SYS(setuid), SCMP_SYS(setgid),
    SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(mount), SCMP_SYS(pivot_root), SCMP_SYS(chroot),
};

/* The opens: each fails, none ends the process. */
static const int opens[] = {SCMP_SYS(open), SCMP_SYS(openat), SCMP_SYS(openat2), SCMP_SYS(creat)};

/* One argument test; SCMP_A0..5 are macros of the same. */
static struct scmp_arg_cmp arg(unsigned i, enum scmp_compare op, scmp_datum_t a, scmp_datum_t b)
{
    struct scmp_arg_cmp c = {i, op, a, b};
    return c;
}

/* The rules into F; 0, or the first libseccomp error. */
static int rules(scmp_filter_ctx f, pid_t runner)
{
    int rc = 0;
    pid_t self = getpid();
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, allowed[i], 0);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        rc |= seccomp_rule_add(f, SCMP_ACT_KILL_PROCESS, fatal[i], 0);
    for (size_t i = 0; i < sizeof opens / sizeof opens[0]; i++)
        rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), opens[i], 0);
    /* Memory, never executable: no code made at run time. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_KILL_PROCESS, SCMP_SYS(mmap), 1,
                           arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_KILL_PROCESS, SCMP_SYS(mprotect), 1,
                           arg(2, SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    /* Threads, never processes.  clone3 hides its flags behind a pointer:
     * ENOSYS makes glibc fall back to clone, whose flags are an argument. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
                           arg(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
    rc |= seccomp_rule_add(f, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1, arg(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    /* Its own limits read (getrlimit), never set. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, arg(0, SCMP_CMP_EQ, 0, 0),
                           arg(2, SCMP_CMP_EQ, 0, 0));
    /* stdio's fstat of a descriptor it holds; never of a path. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(newfstatat), 1,
                           arg(3, SCMP_CMP_MASKED_EQ, AT_EMPTY_PATH, AT_EMPTY_PATH));
    /* Signals: abort() to its own thread, SIGKILL to its runner. */
    rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, arg(0, SCMP_CMP_EQ, (scmp_datum_t)self, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_KILL_PROCESS, SCMP_SYS(tgkill), 1,
                           arg(0, SCMP_CMP_NE, (scmp_datum_t)self, 0));
    if (runner > 0)
        rc |= seccomp_rule_add(f, SCMP_ACT_ALLOW, SCMP_SYS(kill), 2, arg(0, SCMP_CMP_EQ, (scmp_datum_t)runner, 0),
                               arg(1, SCMP_CMP_EQ, SIGKILL, 0));
    rc |= seccomp_rule_add(f, SCMP_ACT_KILL_PROCESS, SCMP_SYS(kill), 1,
                           arg(0, SCMP_CMP_NE, (scmp_datum_t)(runner > 0 ? runner : self), 0));
    return rc;
}

int emu_seal(pid_t runner, char *why, size_t len)
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    int rc = -1;
    if (!f) {
        snprintf(why, len, "the system-call filter could not be made");
        return -1;
    }
    /* Every thread of the process, and no way to gain privileges back. */
    int err = seccomp_attr_set(f, SCMP_FLTATR_CTL_TSYNC, 1);
    if (!err)
        err = rules(f, runner);
    if (!err)
        err = seccomp_load(f);
    if (err)
        snprintf(why, len, "the system-call filter could not be installed: %s", strerror(-err));
    else
        rc = 0;
    seccomp_release(f);
    return rc;
}
