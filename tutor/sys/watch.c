/* watch.c — see watch.h.  Both modes reduce to "the file's identity (inode,
 * size, mtime) differs from the one last reported"; inotify only says when
 * to look, so a spurious event (a save with nothing changed, a neighbour
 * file) never triggers a check. */
#include "sys/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/util.h"

struct stamp {
    int exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
};

struct watch {
    char *path;
    const char *name;           /* the basename, inside path */
    int fd;                     /* inotify, or -1 */
    struct stamp seen;          /* as last reported (or at start) */
    struct stamp last;          /* as at the last look */
    double changed_at;          /* the last sign of a change; 0: none pending */
    double next_poll;
};

static struct stamp stamp_of(const char *path)
{
    struct stamp s = {0};
    struct stat st;
    if (stat(path, &st) == 0) {
        s.exists = 1;
        s.dev = st.st_dev;
        s.ino = st.st_ino;
        s.size = st.st_size;
        s.mtime = st.st_mtim;
    }
    return s;
}

static int stamp_same(const struct stamp *a, const struct stamp *b)
{
    return a->exists == b->exists && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

struct watch *watch_open(const char *path, int force_poll, char *err, size_t errlen)
{
    struct watch *w = calloc(1, sizeof *w);
    char *dir = NULL;

    if (!w || !(w->path = strdup(path)) || !(dir = strdup(path))) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    char *slash = strrchr(dir, '/');
    w->name = strrchr(w->path, '/') ? strrchr(w->path, '/') + 1 : w->path;
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    w->fd = -1;
    w->seen = w->last = stamp_of(path);
    if (!force_poll && (w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) >= 0 &&
        inotify_add_watch(w->fd, slash ? dir : ".",
                          IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ATTRIB) < 0) {
        close(w->fd);           /* too many watches, or no such folder: poll instead */
        w->fd = -1;
    }
    free(dir);
    return w;
fail:
    free(dir);
    watch_close(w);
    return NULL;
}

void watch_close(struct watch *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    free(w->path);
    free(w);
}

int watch_fd(const struct watch *w) { return w->fd; }
const char *watch_mode(const struct watch *w) { return w->fd >= 0 ? "inotify" : "polling"; }
const char *watch_path(const struct watch *w) { return w->path; }

int watch_timeout_ms(const struct watch *w, double now)
{
    double due = -1;
    if (w->changed_at > 0)
        due = w->changed_at + WATCH_DEBOUNCE_S;
    if (w->fd < 0 && (due < 0 || w->next_poll < due))
        due = w->next_poll;
    if (due < 0)
        return -1;
    return due <= now ? 0 : (int)((due - now) * 1000) + 1;
}

/* Drains inotify; returns 1 when an event named our file. */
static int drain(struct watch *w)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int hit = 0;
    for (;;) {
        ssize_t n = read(w->fd, buf, sizeof buf);
        if (n <= 0)
            return hit;     /* EAGAIN: drained */
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            if (ev->len && !strcmp(ev->name, w->name))
                hit = 1;
            if (ev->mask & IN_Q_OVERFLOW)
                hit = 1;
            p += sizeof *ev + ev->len;
        }
    }
}

int watch_check(struct watch *w, double now)
{
    int look = 0;
    if (w->fd >= 0) {
        look = drain(w);
    } else if (now >= w->next_poll) {
        w->next_poll = now + WATCH_POLL_S;
        look = 1;
    }
    if (look) {
        struct stamp s = stamp_of(w->path);
        if (!stamp_same(&s, &w->last)) {
            w->last = s;
            w->changed_at = now;
        }
    }
    if (w->changed_at <= 0 || now - w->changed_at < WATCH_DEBOUNCE_S)
        return 0;
    /* Quiet as far as we have looked; one more look decides, since a poll
     * can miss writes that happened between two looks. */
    struct stamp s = stamp_of(w->path);
    if (!stamp_same(&s, &w->last)) {
        w->last = s;
        w->changed_at = now;
        return 0;
    }
    w->changed_at = 0;
    if (stamp_same(&s, &w->seen))
        return 0;       /* changed and changed back, or touched: nothing new */
    w->seen = s;
    return 1;
}
