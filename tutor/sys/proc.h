/* proc.h — runs a child program in its own process group with a wall-clock
 * limit, collecting its output (capped) and feeding complete lines to a
 * callback as they arrive.  Whatever the child does — hang, crash, flood its
 * output, fork — the call returns and no process of the group survives it. */
#ifndef PROC_H
#define PROC_H

#include <stdatomic.h>
#include <stddef.h>

/* The fd at which a child with a channel finds its write end. */
#define PROC_CHANNEL_FD 3

struct proc_spec {
    char *const *argv;
    const char *cwd;                    /* NULL: the current directory */
    double timeout_s;                   /* 0: no limit */
    size_t output_cap;                  /* bytes of output kept; later bytes are counted */
    void (*on_line)(void *ud, const char *line);
    void *ud;
    /* Optional: seconds to add to timeout_s as of now, for time the child
     * spent waiting on something it does not control (the GPU); asked at
     * least every 100 ms, in the calling thread. */
    double (*grace)(void *ud);
    /* Optional: set non-zero from another thread to stop the child early. */
    const atomic_int *cancel;
    /* Optional: an absolute time (util_now's clock) by which the child must
     * have ended, or 0 for none: a shorter limit on one phase of its run.
     * Asked like grace; a child stopped by it is timed_out too. */
    double (*cutoff)(void *ud);
    /* Non-zero: the child gets a pipe at PROC_CHANNEL_FD, and on_line gets
     * the lines written there and only those; stdout and stderr are output,
     * never lines.  So nothing the child prints (a kernel's printf, say)
     * can pass for a line of the channel. */
    int channel;
    /* Optional: "NAME=VALUE" strings, NULL-terminated, that the child gets
     * over the caller's environment.  The caller's own is never changed, so
     * threads running children at once can give each its own (a GPU, a
     * progress file). */
    char *const *env;
    /* Non-zero: added to the child's nice value (builds that must not take
     * a CPU from the runs of a GPU). */
    int nice;
    /* Non-zero: the child's address space is limited to this many bytes
     * (RLIMIT_AS, soft and hard), or to the limit it inherits when that is
     * lower; what it maps past it fails as out of memory. */
    size_t as_bytes;
    /* Non-zero: the child's stdin (a pipe the caller writes to, say);
     * 0: /dev/null.  The caller keeps its own descriptor and closes it. */
    int in_fd;
};

struct proc_result {
    int started;                        /* 0: the program could not be executed */
    int exited, exit_code;              /* normal exit */
    int signaled, signal;               /* killed by a signal (also after a timeout) */
    int timed_out;
    int cancelled;                      /* stopped through spec->cancel */
    char *output;                       /* stdout and stderr interleaved, NUL-terminated */
    size_t output_len;
    size_t dropped;                     /* bytes beyond output_cap */
    double seconds;
    char error[160];                    /* why it did not start */
};

/* A child started and not yet waited for. */
struct proc;

/* Starts the child, filling res->started (and res->error when it could not
 * be executed); the caller must proc_wait it, which reads its output and
 * enforces the spec's limits (counted from now: time the caller spends
 * before proc_wait counts, unless its grace gives it back).  NULL when no
 * process could be created (why in res->error).  A child that writes more
 * than a pipe holds before proc_wait blocks until then. */
struct proc *proc_start(const struct proc_spec *spec, struct proc_result *res);
/* Runs a started child to completion, as proc_run does, and frees p. */
void proc_wait(struct proc *p);

/* Runs the child to completion.  Returns 0 when it ran (whatever its exit),
 * -1 when no process could be created (error in res->error).  Safe to call
 * from several threads at once: every descriptor it opens is close-on-exec,
 * so one thread's child never holds another's pipe open, and the child
 * starts with no signal blocked whatever the calling thread blocks. */
int proc_run(const struct proc_spec *spec, struct proc_result *res);

void proc_result_free(struct proc_result *res);

/* "exit 3", "signal 11 (Segmentation fault)", "timed out after 20 s". */
void proc_describe(const struct proc_result *res, char *buf, size_t len);

#endif /* PROC_H */
