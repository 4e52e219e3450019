/* intake_rule.c — see intake_rule.h. */
#define _GNU_SOURCE     /* O_NOFOLLOW, fstatat */
#include "model/intake_rule.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/jsonw.h"
#include "sys/util.h"

char *intake_rule_not_regular(const char *name)
{
    return util_format("%s is not a regular file", name);
}

char *intake_rule_symlink(const char *name, size_t upto)
{
    return util_format("%.*s is a symbolic link", (int)upto, name);
}

char *intake_rule_link(const char *name)
{
    return util_format("%s is a link", name);
}

char *intake_rule_too_big(const char *name, long long bytes, int max_kb)
{
    return util_format("%s is %lld bytes (the limit is %d KiB)", name, bytes, max_kb);
}

char *intake_rule_grew(const char *name, int max_kb)
{
    return util_format("%s is more than %d KiB", name, max_kb);
}

int intake_rule_text(const char *name, const char *data, size_t len, char **why)
{
    long long line = 1;
    *why = NULL;
    for (size_t i = 0; i < len;) {
        int valid = 1;
        size_t step = data[i] ? jsonw_utf8_next(data + i, len - i, &valid) : 1;
        if (!data[i])
            *why = util_format("%s is not text: line %lld holds a NUL byte", name, line);
        else if (!valid)
            *why = util_format("%s is not UTF-8 text: line %lld holds the byte 0x%02x", name, line,
                               (unsigned char)data[i]);
        else if (data[i] == '\n')
            line++;
        if (!data[i] || !valid)
            return *why ? 1 : -1;
        i += step;
    }
    return 0;
}

/* Reads the regular file open as fd, at most cap bytes, into *buf (heap,
 * NUL-terminated).  Returns the bytes read, or -1 with errno (ENOMEM). */
static ssize_t read_capped(int fd, size_t cap, char **buf)
{
    size_t got = 0;
    char *b = malloc(cap + 1);
    if (!(*buf = b)) {
        errno = ENOMEM;
        return -1;
    }
    while (got < cap) {
        ssize_t n = read(fd, b + got, cap - got);
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    b[got] = '\0';
    return (ssize_t)got;
}

int intake_rule_read(int dirfd, const char *path, const char *name, int max_kb, char **data, size_t *len,
                     char **why)
{
    size_t cap = ((size_t)max_kb << 10) + 1;
    struct stat st, st2;
    char *buf = NULL;
    int fd = -1, rc = 1;

    *why = NULL;
    if (data)
        *data = NULL;
    if (len)
        *len = 0;
    if (fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
        *why = intake_rule_not_regular(name);
    else if (S_ISLNK(st.st_mode))
        *why = intake_rule_symlink(name, strlen(name));
    else if (!S_ISREG(st.st_mode))
        *why = intake_rule_not_regular(name);
    else if (st.st_size > (off_t)max_kb << 10) {
        if (len)
            *len = (size_t)st.st_size;
        *why = intake_rule_too_big(name, (long long)st.st_size, max_kb);
    } else if ((fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0 ||
               fstat(fd, &st2) != 0 || !S_ISREG(st2.st_mode) || st2.st_ino != st.st_ino ||
               st2.st_dev != st.st_dev) {
        /* Swapped for something else since it was looked at. */
        *why = intake_rule_not_regular(name);
    } else {
        ssize_t got = read_capped(fd, cap, &buf);
        if (got < 0 && errno == ENOMEM)
            goto out;
        if (len)
            *len = got < 0 ? 0 : (size_t)got;
        if (got < 0)
            *why = util_format("%s could not be read: %s", name, strerror(errno));
        else if ((size_t)got >= cap)
            *why = intake_rule_grew(name, max_kb);
        else if ((rc = intake_rule_text(name, buf, (size_t)got, why)) == 0 && data) {
            *data = buf;
            buf = NULL;
        }
        if (rc < 0)
            goto out;
    }
    if (rc > 0 && !*why)
        rc = -1;                /* the sentence itself could not be made */
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}
