/* util.h — small helpers every module uses: formatted strings, whole-file
 * reads and writes, paths, and monotonic time.  No policy lives here. */
#ifndef UTIL_H
#define UTIL_H

#include <stdarg.h>
#include <stddef.h>

/* snprintf into a fresh heap string; NULL only when out of memory. */
char *util_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *util_vformat(const char *fmt, va_list ap);

/* snprintf into buf; returns 0, or -1 when the text did not fit. */
int util_print(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Room for NEED items of SIZE bytes in ITEMS, which has room for *CAP:
 * ITEMS itself when it has the room, else ITEMS reallocated to at least
 * twice *CAP (so that adding one at a time stays linear), *CAP updated.
 * NULL when out of memory, ITEMS and *CAP as they were. */
void *util_grow(void *items, size_t *cap, size_t need, size_t size);

/* Reads a whole file into a NUL-terminated heap buffer; NULL with errno set. */
char *util_read_file(const char *path, size_t *len);

/* Writes all LEN bytes of data to fd, again after a signal or a short
 * write.  Returns 0, or -1 with errno set (0 when the descriptor took
 * nothing more). */
int util_write_all(int fd, const void *data, size_t len);

/* Writes a whole file through a temporary and a rename: readers see the old
 * contents or the new ones, never a mix.  Returns 0 or -1 with errno set. */
int util_write_file(const char *path, const char *data, size_t len);

/* Copies file src to dst as util_write_file writes.  Returns 0, or -1 with
 * errno set (ENOENT, dst untouched, when there is no src). */
int util_copy_file(const char *src, const char *dst);

int util_is_file(const char *path);
int util_is_dir(const char *path);
int util_is_executable(const char *path);

/* Takes an exclusive flock(2) on path (created if missing), waiting through
 * signals: a resize must not turn the wait into a lost update.  Returns the
 * fd, whose close releases the lock, or -1 with errno set. */
int util_lock(const char *path);

/* Makes a rename into path's folder durable: fsyncs the folder.  Best
 * effort; a folder that cannot be opened is left as it is. */
void util_sync_dir(const char *path);

/* Renames a file that must not be overwritten (it did not parse) to
 * PATH.corrupt-<UTC time>, adding the pid when that name is taken; writes
 * the new name into aside.  Returns 0, or -1 with errno set. */
int util_move_aside(const char *path, char *aside, size_t len);

/* mkdir -p; returns 0 or -1 with errno set. */
int util_mkdirs(const char *path);

/* rm -rf without following a symbolic link: a link inside is removed, never
 * what it points at.  A path that is not there is fine.  Returns 0, or -1
 * with errno set (what could be removed is). */
int util_remove_tree(const char *path);

/* Searches PATH for an executable; returns a heap path or NULL. */
char *util_which(const char *name);

/* Seconds on a monotonic clock. */
double util_now(void);

/* Copies at most len-1 bytes and always terminates. */
void util_copy(char *dst, size_t len, const char *src);
/* Appends the formatted text to the string in BUF (LEN bytes in all),
 * cut where it does not fit. */
void util_append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* UTIL_H */
