/* test_emu_seal.c — the CPU judge's system-call filter (emu/emu_seal.h),
 * attacked the ways a judge hijacked through the emulator would leave it:
 * reading a file, exec, a network socket, a new process, executable
 * memory, a signal to another process.  Each attempt runs in a child,
 * first without the filter (where it succeeds: the attack is real), then
 * with it; and what a judge needs still works under it (threads, writing
 * its descriptors, renaming its report, killing its runner). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/emu_seal.h"
#include "tap.h"

static char dir[64];

/* The attacks: each returns 0 when it got what it wanted. */
static int reads_a_file(void)
{
    int fd = open("/etc/hostname", O_RDONLY);
    return fd >= 0 ? 0 : 1;
}

static int execs(void)
{
    char *argv[] = {"true", NULL}, *envp[] = {NULL};
    execve("/bin/true", argv, envp);
    return 1;
}

static int opens_a_socket(void)
{
    return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1;
}

static int forks(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    return p > 0 ? 0 : 1;
}

static int maps_code(void)
{
    void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m != MAP_FAILED ? 0 : 1;
}

static int signals_its_parent(void)
{
    return kill(getppid(), 0) == 0 ? 0 : 1;
}

/* How a child that ran ATTACK ended: its exit status, or 128 + the signal.
 * SEALED: with the filter on. */
static int attempt(int (*attack)(void), int sealed)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char why[160];
        if (sealed && emu_seal(0, why, sizeof why))
            _exit(99);
        _exit(attack());
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void each_way_out_is_closed(void)
{
    static const struct {
        const char *name;
        int (*attack)(void);
        int sealed;         /* how it ends under the filter */
    } ways[] = {
        {"open /etc/hostname", reads_a_file, 1},           /* fails: EACCES */
        {"execve /bin/true", execs, 128 + SIGSYS},
        {"socket AF_INET", opens_a_socket, 128 + SIGSYS},
        {"fork", forks, 128 + SIGSYS},
        {"mmap PROT_EXEC", maps_code, 128 + SIGSYS},
        {"kill the parent", signals_its_parent, 128 + SIGSYS},
    };
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        int open_door = attempt(ways[i].attack, 0), closed = attempt(ways[i].attack, 1);
        printf("#   %s: %d without the filter, %d with it\n", ways[i].name, open_door, closed);
        EXPECT(open_door == 0);
        EXPECT(closed == ways[i].sealed);
    }
}

static void *thread_main(void *arg)
{
    *(int *)arg = 7;
    return NULL;
}

/* Under the filter: a thread, a write, a rename of a file opened before,
 * the runner killed.  Exits 0 when every one worked. */
static int judge_work(pid_t runner)
{
    char a[96], b[96], why[160];
    int got = 0, fds[2];
    pthread_t t;
    snprintf(a, sizeof a, "%s/report.tmp", dir);
    snprintf(b, sizeof b, "%s/report.json", dir);
    FILE *f = fopen(a, "w");
    if (!f || pipe(fds) || emu_seal(runner, why, sizeof why))
        return 2;
    if (pthread_create(&t, NULL, thread_main, &got) || pthread_join(t, NULL) || got != 7)
        return 3;
    if (write(fds[1], "x", 1) != 1 || fputs("{}\n", f) < 0 || fclose(f) || rename(a, b))
        return 4;
    if (kill(runner, SIGKILL) || waitpid(runner, NULL, 0) != runner)
        return 5;
    return 0;
}

static void what_a_judge_needs_still_works(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        pid_t runner = fork();
        if (runner == 0) {
            pause();
            _exit(0);
        }
        _exit(runner > 0 ? judge_work(runner) : 6);
    }
    int status = 0;
    EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid);
    printf("#   status %d\n", status);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
    static const struct tap_test tests[] = {T(each_way_out_is_closed), T(what_a_judge_needs_still_works)};
    return tap_run_in(dir, sizeof dir, "seal", tests, (int)(sizeof tests / sizeof tests[0]));
}
