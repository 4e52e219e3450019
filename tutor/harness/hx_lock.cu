/* hx_lock.cu — sharing one GPU between harness runs.  Correctness trials may
 * share it (their kernels are short and their results do not depend on
 * time); a timed section must have it alone.  Creating a CUDA context, by
 * contrast, is slow (about 0.2 s, and serialised by the driver across
 * processes) but does not disturb another process's timings, so it happens
 * before any lock is taken and overlaps with whatever else is running.
 *
 * The protocol (docs/harness.md, "The GPU lock") uses two one-byte
 * open-file-description locks on one file, which the kernel drops when a
 * process dies however it dies:
 *   byte 0, the queue: held shared by every timed section that waits, and
 *           tested (never held) by sharers, who do not start while it is
 *           taken; so waiting timers are not starved by a stream of
 *           sharers, and they go back to back, each draining the sharers
 *           once for the lot;
 *   byte 1, the GPU: shared by trials, exclusive for a timed section.
 * With --gpu-lock-init (a grader's many runs) a run holds the GPU shared
 * from before its first CUDA call to its exit, except while it times: then
 * even context creation and teardown, which do touch the GPU, stay out of
 * other runs' timed sections.
 * A sharer steps aside between its trials when a timed section waits: the
 * timer then waits for one trial of each sharer, not for their whole runs,
 * and a context left idle meanwhile does not touch the GPU.
 * Waits poll instead of blocking, so every wait has a deadline, and they are
 * announced on the progress channel ("@gpu wait", "@gpu go") so that the tutor does not
 * count them against the kernel's time limit. */
#include <chrono>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "hx.h"

namespace hx {

enum { QUEUE = 0, GPU = 1 };

static int range(int fd, short type, off_t byte)
{
    struct flock fl = {};
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = byte;
    fl.l_len = 1;
    return fcntl(fd, F_OFD_SETLK, &fl);
}

/* Polls for one byte's lock until it is granted (0) or `until` passes (-1). */
static int take(int fd, short type, off_t byte, double until)
{
    while (range(fd, type, byte) != 0) {
        if ((errno != EAGAIN && errno != EACCES && errno != EINTR) || now_s() >= until)
            return -1;
        usleep(1000);
    }
    return 0;
}

static void announce(const char *what)
{
    progress_line("@gpu %s", what);
}

int gpu_lock_open(struct ctx *c)
{
    c->lock_fd = -1;
    c->lock_state = LOCK_NONE;
    if (!c->o->gpu_lock)
        return 0;
    /* Not through a symbolic link: the tutor's lock is in /tmp, where
     * anyone can put one between the tutor's look and this open. */
    c->lock_fd = open(c->o->gpu_lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (c->lock_fd < 0) {
        note(c->r, "could not open the GPU lock %s: ran without it", c->o->gpu_lock);
        return -1;
    }
    return 0;
}

int gpu_share(struct ctx *c)
{
    if (c->lock_fd < 0 || c->lock_state == LOCK_SHARED)
        return 0;
    gpu_release(c);
    double t0 = now_s(), until = t0 + c->o->gpu_lock_wait_s;
    int ok = 0;
    announce("wait");
    while (!ok && now_s() < until) {
        /* No timed section waiting (the queue byte is free), and none
         * running (the GPU byte can be shared). */
        if (range(c->lock_fd, F_WRLCK, QUEUE) == 0) {
            range(c->lock_fd, F_UNLCK, QUEUE);
            ok = range(c->lock_fd, F_RDLCK, GPU) == 0;
        }
        if (!ok)
            usleep(1000);
    }
    announce("go");
    c->r->wait_s += now_s() - t0;
    c->lock_state = ok ? LOCK_SHARED : LOCK_NONE;
    /* Trials do not depend on time: running them beside a timer costs that
     * timer a few samples, not this kernel its verdict. */
    if (!ok)
        note(c->r, "the GPU stayed busy for %.0f s: the trials ran beside another run",
             c->o->gpu_lock_wait_s);
    return ok ? 0 : -1;
}

int gpu_yield(struct ctx *c)
{
    if (c->lock_fd < 0 || c->lock_state != LOCK_SHARED)
        return 0;
    /* The queue byte free: no timed section waits, keep the share. */
    if (range(c->lock_fd, F_WRLCK, QUEUE) == 0) {
        range(c->lock_fd, F_UNLCK, QUEUE);
        return 0;
    }
    gpu_release(c);
    return gpu_share(c);
}

int gpu_own(struct ctx *c)
{
    if (c->lock_fd < 0)
        return 0;
    gpu_release(c);     /* a read lock is not upgraded: two would deadlock */
    double t0 = now_s(), until = t0 + c->o->gpu_lock_wait_s;
    int ok = 0;
    announce("wait");
    while (!ok && now_s() < until) {
        /* Queued: no new sharer starts, so the running ones drain, and the
         * timed sections waiting behind this one follow it back to back.
         * After 5 s of that (a trial that hangs until its time limit, say)
         * step out of the queue for 2 s and let the others work. */
        double t = now_s() + 5.0 < until ? now_s() + 5.0 : until;
        if (take(c->lock_fd, F_RDLCK, QUEUE, t) == 0) {
            ok = take(c->lock_fd, F_WRLCK, GPU, t) == 0;
            range(c->lock_fd, F_UNLCK, QUEUE);
        }
        if (!ok)
            ok = take(c->lock_fd, F_WRLCK, GPU, now_s() + 2.0 < until ? now_s() + 2.0 : until) == 0;
    }
    announce("go");
    c->r->wait_s += now_s() - t0;
    c->lock_state = ok ? LOCK_OWNED : LOCK_NONE;
    if (!ok)
        note(c->r, "the GPU was still busy after %.0f s of waiting: timed anyway, the figures "
                   "may be low", c->o->gpu_lock_wait_s);
    return ok ? 0 : -1;
}

void gpu_release(struct ctx *c)
{
    if (c->lock_fd >= 0 && c->lock_state != LOCK_NONE)
        range(c->lock_fd, F_UNLCK, GPU);
    c->lock_state = LOCK_NONE;
}

} /* namespace hx */
