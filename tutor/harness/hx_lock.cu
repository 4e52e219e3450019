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
 *   byte 0, the gate: held briefly by whoever is queueing for byte 1, so that
 *           a waiting timer is not starved by a stream of sharers;
 *   byte 1, the GPU: shared by trials, exclusive for a timed section.
 * Waits poll instead of blocking, so every wait has a deadline, and they are
 * announced on stderr ("@gpu wait", "@gpu go") so that the tutor does not
 * count them against the kernel's time limit. */
#include <chrono>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "hx.h"

namespace hx {

enum { GATE = 0, GPU = 1 };

static double now_s(void)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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
    fprintf(stderr, "@gpu %s\n", what);
    fflush(stderr);
}

int gpu_lock_open(struct ctx *c)
{
    c->lock_fd = -1;
    if (!c->o->gpu_lock)
        return 0;
    c->lock_fd = open(c->o->gpu_lock, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (c->lock_fd < 0) {
        note(c->r, "could not open the GPU lock %s: ran without it", c->o->gpu_lock);
        return -1;
    }
    return 0;
}

int gpu_share(struct ctx *c)
{
    if (c->lock_fd < 0)
        return 0;
    double t0 = now_s(), until = t0 + c->o->gpu_lock_wait_s;
    int ok;
    announce("wait");
    ok = take(c->lock_fd, F_WRLCK, GATE, until) == 0;
    if (ok) {
        ok = take(c->lock_fd, F_RDLCK, GPU, until) == 0;
        range(c->lock_fd, F_UNLCK, GATE);
    }
    announce("go");
    c->r->wait_s += now_s() - t0;
    /* Trials do not depend on time: running them beside a timer costs that
     * timer a few samples, not this kernel its verdict. */
    if (!ok)
        note(c->r, "the GPU stayed busy for %.0f s: the trials ran beside another run",
             c->o->gpu_lock_wait_s);
    return ok ? 0 : -1;
}

int gpu_own(struct ctx *c)
{
    if (c->lock_fd < 0)
        return 0;
    double t0 = now_s(), until = t0 + c->o->gpu_lock_wait_s;
    int ok = 0;
    announce("wait");
    while (!ok && now_s() < until) {
        /* First with the gate, so no new sharer gets in; after a second
         * of that (a long trial, or one that hangs until its time limit),
         * let the others through and only watch for a gap, then try again. */
        double t = now_s() + 1.0 < until ? now_s() + 1.0 : until;
        if (take(c->lock_fd, F_WRLCK, GATE, t) == 0) {
            ok = take(c->lock_fd, F_WRLCK, GPU, t) == 0;
            range(c->lock_fd, F_UNLCK, GATE);
        }
        if (!ok)
            ok = take(c->lock_fd, F_WRLCK, GPU, now_s() + 4.0 < until ? now_s() + 4.0 : until) == 0;
    }
    announce("go");
    c->r->wait_s += now_s() - t0;
    if (!ok)
        note(c->r, "the GPU was still busy after %.0f s of waiting: timed anyway, the figures "
                   "may be low", c->o->gpu_lock_wait_s);
    return ok ? 0 : -1;
}

void gpu_release(struct ctx *c)
{
    if (c->lock_fd >= 0)
        range(c->lock_fd, F_UNLCK, GPU);
}

} /* namespace hx */
