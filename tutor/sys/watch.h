/* watch.h — notices when one file is saved, for watch mode: inotify on the
 * file's folder (editors often save by writing a new file and renaming it
 * over the old one, which a watch on the file itself would lose), or, where
 * inotify is unavailable, a stat(2) poll.  A burst of writes (an editor's
 * save, a formatter after it) is reported once, after it has settled. */
#ifndef WATCH_H
#define WATCH_H

#include <stddef.h>

#define WATCH_DEBOUNCE_S 0.3
#define WATCH_POLL_S 0.5

struct watch;

/* Starts watching path (which need not exist yet).  force_poll skips
 * inotify.  Returns NULL with a message in err on failure. */
struct watch *watch_open(const char *path, int force_poll, char *err, size_t errlen);
void watch_close(struct watch *w);

/* A descriptor to poll(2) for input (inotify), or -1 when polling. */
int watch_fd(const struct watch *w);

/* Milliseconds until watch_check needs calling again even without input on
 * watch_fd; -1 when only input matters. */
int watch_timeout_ms(const struct watch *w, double now);

/* Reads pending events and returns 1 when the file changed and has then been
 * quiet for WATCH_DEBOUNCE_S; 0 otherwise.  now: util_now(). */
int watch_check(struct watch *w, double now);

/* "inotify" or "polling". */
const char *watch_mode(const struct watch *w);
const char *watch_path(const struct watch *w);

#endif /* WATCH_H */
