/* util.c — see util.h. */
#include "sys/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *util_vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *util_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = util_vformat(fmt, ap);
    va_end(ap);
    return s;
}

int util_print(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

void util_append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;
    if (used + 1 >= len)
        return;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

void util_copy(char *dst, size_t len, const char *src)
{
    if (!len)
        return;
    size_t n = strlen(src);
    if (n >= len)
        n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void *util_grow(void *items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return items;
    size_t ncap = *cap > 8 ? *cap * 2 : 16;
    if (ncap < need)
        ncap = need;
    if (ncap > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = realloc(items, ncap * size);
    if (p)
        *cap = ncap;
    return p;
}

char *util_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rbe");     /* close-on-exec: a grader forks from many threads */
    char *buf = NULL;
    size_t cap = 0, used = 0;

    if (!f)
        return NULL;
    for (;;) {
        char *more = util_grow(buf, &cap, used + 4096, 1);
        if (!more)
            goto fail;
        buf = more;
        size_t got = fread(buf + used, 1, cap - used - 1, f);
        used += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        goto fail;
    fclose(f);
    buf[used] = '\0';
    if (len)
        *len = used;
    return buf;
fail:
    {
        int saved = errno;
        free(buf);
        fclose(f);
        errno = saved ? saved : EIO;
    }
    return NULL;
}

int util_write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = 0;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

int util_write_file(const char *path, const char *data, size_t len)
{
    char *tmp = util_format("%s.tmp.%ld", path, (long)getpid());
    int fd = -1, rc = -1;

    if (!tmp)
        return -1;
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        goto out;
    if (util_write_all(fd, data, len))
        goto out;
    if (fsync(fd) != 0 || close(fd) != 0) {
        fd = -1;
        goto out;
    }
    fd = -1;
    if (rename(tmp, path) != 0)
        goto out;
    rc = 0;
out:
    if (rc) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        unlink(tmp);
        errno = saved;
    }
    free(tmp);
    return rc;
}

int util_copy_file(const char *src, const char *dst)
{
    size_t len;
    char *text = util_read_file(src, &len);
    if (!text)
        return -1;
    int rc = util_write_file(dst, text, len);
    int saved = errno;
    free(text);
    errno = saved;
    return rc;
}

int util_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int util_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int util_is_executable(const char *path)
{
    return util_is_file(path) && access(path, X_OK) == 0;
}

int util_lock(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), rc;
    if (fd < 0)
        return -1;
    while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

void util_sync_dir(const char *path)
{
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    int fd;
    if (!dir)
        return;
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

int util_move_aside(const char *path, char *aside, size_t len)
{
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    if (util_print(aside, len, "%s.corrupt-%s", path, stamp) != 0 ||
        (access(aside, F_OK) == 0 &&
         util_print(aside, len, "%s.corrupt-%s-%ld", path, stamp, (long)getpid()) != 0)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return rename(path, aside);
}

int util_mkdirs(const char *path)
{
    char buf[4096];
    if (util_print(buf, sizeof buf, "%s", path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* Empties the folder open at fd (which it closes), depth first, through
 * fds so that no path is resolved twice: a folder swapped for a link while
 * we work is unlinked, never entered.  Returns 0 or -1 with errno set. */
static int remove_contents(int fd)
{
    int rc = 0, saved = 0;
    DIR *d = fdopendir(fd);
    if (!d) {
        saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno == ENOENT)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            saved = errno, rc = -1;
            continue;
        }
        int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0 || remove_contents(sub) != 0 || unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) != 0)
            saved = errno, rc = -1;
    }
    closedir(d);
    if (rc)
        errno = saved;
    return rc;
}

int util_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path) == 0 || errno == ENOENT ? 0 : -1;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || remove_contents(fd) != 0)
        return -1;
    return rmdir(path) == 0 || errno == ENOENT ? 0 : -1;
}

char *util_which(const char *name)
{
    const char *path = getenv("PATH");
    if (strchr(name, '/'))
        return util_is_executable(name) ? strdup(name) : NULL;
    if (!path)
        return NULL;
    for (const char *p = path; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *cand = util_format("%.*s/%s", (int)len, len ? p : ".", name);
        if (cand && util_is_executable(cand))
            return cand;
        free(cand);
        p += len + (end ? 1 : 0);
        if (!end)
            break;
    }
    return NULL;
}

double util_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
