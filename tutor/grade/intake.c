/* intake.c — see intake.h.
 *
 * One pass over an archive: every member's name is judged (escaping,
 * counted), every member's data is read and counted (so the limit is on
 * bytes decompressed, whatever the headers claim), and for each selected
 * lab only the best-placed kernel.cu is kept in memory, at most the size
 * limit plus one byte.  Then each lab is decided: taken, missing, the stub
 * unchanged, or refused. */
#include "grade/intake.h"

#include <archive.h>
#include <archive_entry.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "model/intake_rule.h"
#include "model/result.h"
#include "sys/util.h"

#define CHUNK 65536
/* Past the member limit, members are still counted (to say how many) up to
 * this many times the limit; stopped there, the message says "or more". */
#define COUNT_ON 10

/* What was found for one lab, before it is decided. */
struct found {
    const struct lab *lab;
    const char *base;           /* "01-interleaved-addressing" */
    int level;                  /* 0: nothing found; else where (pick_level) */
    char *raw, *norm;           /* the member's name, and without a leading "./" */
    int count;                  /* members whose norm is this one's */
    char type;                  /* f regular, l symbolic link, h hard link, d folder, o other */
    long long size;             /* bytes of data actually read */
    char *data;                 /* its first bytes, at most the limit + 1 */
    size_t len;
    /* The decision. */
    int ok;
    enum status status;
    char *why;
};

/* Where a member named norm holds lab base's kernel: 1 labs/BASE/kernel.cu,
 * 2 BASE/kernel.cu, 3 and 4 the same one plain folder down; 0 elsewhere.
 * Lower is preferred, then the name. */
static int pick_level(const char *norm, const char *base)
{
    char a[512], b[512];
    if (!strncmp(norm, "__MACOSX/", 9))
        return 0;
    if (util_print(a, sizeof a, "labs/%s/kernel.cu", base) || util_print(b, sizeof b, "%s/kernel.cu", base))
        return 0;
    if (!strcmp(norm, a))
        return 1;
    if (!strcmp(norm, b))
        return 2;
    size_t n = strlen(norm);
    for (int i = 0; i < 2; i++) {
        const char *tail = i ? b : a;
        size_t t = strlen(tail);
        if (n < t + 2 || norm[n - t - 1] != '/' || strcmp(norm + n - t, tail))
            continue;
        /* The top: one folder whose name holds no glob character. */
        size_t top = n - t - 1;
        int plain = 1;
        for (size_t k = 0; k < top; k++)
            if (strchr("/*?[]\\", norm[k]))
                plain = 0;
        /* labs/BASE/kernel.cu is also .../BASE/kernel.cu: only the first
         * (the most specific) reading counts. */
        if (i == 0)
            return plain ? 3 : 0;
        return plain ? 4 : 0;
    }
    return 0;
}

/* An absolute member name or one with a ".." component, "\" read as "/". */
static int is_escaping(const char *name)
{
    if (name[0] == '/' || name[0] == '\\')
        return 1;
    for (const char *p = name; *p;) {
        size_t k = strcspn(p, "/\\");
        if (k == 2 && p[0] == '.' && p[1] == '.')
            return 1;
        p += k;
        if (*p)
            p++;
    }
    return 0;
}

static const char *base_of(const char *dir)
{
    const char *s = strrchr(dir, '/');
    return s ? s + 1 : dir;
}

/* ---- archives --------------------------------------------------------- */

struct source;

struct scan {
    const struct intake_limits *lim;
    const char *kind;
    struct source *src;
    struct found *f;
    int n;
    long long total;            /* data bytes read, all members */
    long members;
    char *refused;              /* why the whole archive is refused */
    int oom;
};

static void refuse(struct scan *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refuse(struct scan *s, const char *fmt, ...)
{
    va_list ap;
    if (s->refused)
        return;
    va_start(ap, fmt);
    s->refused = util_vformat(fmt, ap);
    va_end(ap);
    if (!s->refused)
        s->oom = 1;
}

/* The archive could not be read: why, in the kind's sentence (defined
 * below, with the source). */
static void refuse_damaged(struct scan *s);

/* The decompressed bytes so far past the limit: a bomb. */
static int over_limit(struct scan *s, struct archive *a)
{
    long long limit = (long long)s->lim->max_unpacked_mb << 20;
    long long pos = archive_filter_bytes(a, 0);
    if (s->total > limit || pos > limit) {
        refuse(s, "archive bomb: it unpacks to more than %d MiB", s->lim->max_unpacked_mb);
        return 1;
    }
    return 0;
}

/* Whether member norm takes the place of lab f's best so far, or repeats
 * its name (counted).  Returns 1 when this member's data is to be kept. */
static int note_candidate(struct found *f, int level, const char *raw, const char *norm,
                          char type, int *oom)
{
    int same = f->level && !strcmp(f->norm, norm);
    int better = !f->level || level < f->level || (level == f->level && strcmp(raw, f->raw) < 0);
    if (same)
        f->count++;
    if (!better)
        return 0;
    char *r = strdup(raw), *n = strdup(norm);
    if (!r || !n) {
        free(r);
        free(n);
        *oom = 1;
        return 0;
    }
    free(f->raw);
    free(f->norm);
    f->raw = r;
    f->norm = n;
    if (!same)
        f->count = 1;
    f->level = level;
    f->type = type;
    f->size = 0;
    f->len = 0;
    return 1;
}

/* Reads one member's data, counting every byte; keeps the first limit+1
 * in keep when keep is not NULL.  Returns 0, or -1 when the archive is
 * refused (s->refused says why). */
static int read_member(struct scan *s, struct archive *a, struct found *keep, char *buf)
{
    size_t cap = ((size_t)s->lim->max_file_kb << 10) + 1;
    for (;;) {
        la_ssize_t n = archive_read_data(a, buf, CHUNK);
        if (n == 0)
            return 0;
        if (n < 0) {
            if (n == ARCHIVE_WARN)
                continue;
            refuse_damaged(s);
            return -1;
        }
        s->total += n;
        if (keep) {
            keep->size += n;
            if (keep->len < cap) {
                size_t take = (size_t)n < cap - keep->len ? (size_t)n : cap - keep->len;
                memcpy(keep->data + keep->len, buf, take);
                keep->len += take;
            }
        }
        if (over_limit(s, a))
            return -1;
    }
}

/* The archive's bytes from an fd, raw or gunzipped here.  libarchive's
 * own gzip filter checks no CRC and stops reading at the tar's end; here
 * the stream is read to its end as gzip -d read it, the CRC and length
 * are checked, and no more than the unpacked limit is ever decompressed.
 * Raw, it can seek: libarchive reads a zip's central directory (where
 * links are marked) only then, and archive_read_open_fd cannot. */
struct source {
    int fd;
    int gz;                     /* gunzip what is read */
    z_stream z;
    int z_ready;                /* z is initialised */
    int in_eof, member_end;
    long long out;              /* bytes decompressed */
    long long limit;            /* the most that may be */
    int bomb, damaged;          /* why a read failed */
    unsigned char in[CHUNK];
    unsigned char buf[CHUNK];
};

static ssize_t read_retry(int fd, void *p, size_t n)
{
    ssize_t r;
    do
        r = read(fd, p, n);
    while (r < 0 && errno == EINTR);
    return r;
}

/* The next gunzipped bytes: > 0 bytes in src->buf, 0 at the end of the
 * last gzip member, -1 with src->bomb or src->damaged set. */
static ssize_t gunzip_some(struct source *src)
{
    for (;;) {
        if (!src->z.avail_in && !src->in_eof) {
            ssize_t n = read_retry(src->fd, src->in, sizeof src->in);
            if (n <= 0)
                src->in_eof = 1;
            if (n < 0) {
                src->damaged = 1;
                return -1;
            }
            src->z.next_in = src->in;
            src->z.avail_in = (uInt)(n > 0 ? n : 0);
        }
        if (src->member_end) {
            /* gzip -d reads every member of a stream, and fails on
             * anything else after one. */
            if (!src->z.avail_in && src->in_eof)
                return 0;
            if (!src->z.avail_in)
                continue;
            if (src->z.next_in[0] != 0x1f || inflateReset(&src->z) != Z_OK) {
                src->damaged = 1;
                return -1;
            }
            src->member_end = 0;
        }
        src->z.next_out = src->buf;
        src->z.avail_out = sizeof src->buf;
        int r = inflate(&src->z, Z_NO_FLUSH);
        size_t made = sizeof src->buf - src->z.avail_out;
        if (r == Z_STREAM_END)
            src->member_end = 1;
        else if ((r == Z_BUF_ERROR && src->in_eof && !src->z.avail_in) || (r != Z_OK && r != Z_BUF_ERROR)) {
            src->damaged = 1;           /* cut short, a bad CRC or length, not deflate */
            return -1;
        }
        if (made) {
            src->out += (long long)made;
            if (src->out > src->limit) {
                src->bomb = 1;
                return -1;
            }
            return (ssize_t)made;
        }
    }
}

static la_ssize_t source_read(struct archive *a, void *ud, const void **out)
{
    struct source *src = ud;
    ssize_t n = src->gz ? gunzip_some(src) : read_retry(src->fd, src->buf, sizeof src->buf);
    if (n < 0)
        archive_set_error(a, EIO, "%s", src->bomb ? "too large" : src->damaged ? "damaged gzip" : strerror(errno));
    *out = src->buf;
    return n;
}

static la_int64_t source_seek(struct archive *a, void *ud, la_int64_t offset, int whence)
{
    struct source *src = ud;
    off_t r = lseek(src->fd, (off_t)offset, whence);
    if (r < 0)
        archive_set_error(a, errno, "seek: %s", strerror(errno));
    return r < 0 ? ARCHIVE_FATAL : (la_int64_t)r;
}

static void refuse_damaged(struct scan *s)
{
    if (s->src->bomb)
        refuse(s, "archive bomb: it unpacks to more than %d MiB", s->lim->max_unpacked_mb);
    else if (!strcmp(s->kind, "zip"))
        refuse(s, "not a zip archive (or a damaged one)");
    else if (s->src->damaged)
        refuse(s, "not a gzip archive (or a damaged one)");
    else
        refuse(s, "not a tar archive (or a damaged one)");
}

/* Opens the archive at fd for reading through src: tar (gzipped or not,
 * as GNU tar took a .tar) or zip.  Returns 0, or -1 with s->refused set. */
static int open_archive(struct scan *s, struct archive *a, int fd)
{
    struct source *src = s->src;
    unsigned char magic[2] = {0, 0};
    src->fd = fd;
    src->limit = (long long)s->lim->max_unpacked_mb << 20;
    if (!strcmp(s->kind, "zip")) {
        archive_read_support_format_zip(a);
        archive_read_set_seek_callback(a, source_seek);
    } else {
        src->gz = pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
        if (!strcmp(s->kind, "tar.gz") && !src->gz) {
            refuse(s, "not a gzip archive (or a damaged one)");
            return -1;
        }
        if (src->gz && inflateInit2(&src->z, 15 + 16) != Z_OK) {     /* 16: the gzip wrapper */
            s->oom = 1;
            return -1;
        }
        src->z_ready = src->gz;
        archive_read_support_format_tar(a);
        archive_read_support_format_empty(a);
    }
    archive_read_set_read_callback(a, source_read);
    archive_read_set_callback_data(a, src);
    if (archive_read_open1(a) != ARCHIVE_OK) {
        refuse_damaged(s);
        return -1;
    }
    return 0;
}

/* Reads every member of the archive open at fd.  Returns 0 (refused or
 * not: s says), -1 when out of memory. */
static int scan_archive(struct scan *s, int fd)
{
    struct archive *a = archive_read_new();
    struct archive_entry *e;
    struct source *src = calloc(1, sizeof *src);
    char *buf = malloc(CHUNK);
    long cap = (long)s->lim->max_members * COUNT_ON;
    int counting = 0, stopped = 0, rc = -1;

    s->src = src;
    if (!a || !buf || !src)
        goto out;
    for (int i = 0; i < s->n; i++) {
        s->f[i].data = malloc(((size_t)s->lim->max_file_kb << 10) + 1);
        if (!s->f[i].data)
            goto out;
    }
    if (open_archive(s, a, fd) != 0) {
        rc = s->oom ? -1 : 0;
        goto out;
    }
    for (;;) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        stopped = 1;
        if (r < ARCHIVE_WARN) {
            refuse_damaged(s);
            break;
        }
        s->members++;
        if (s->members > s->lim->max_members && !counting) {
            /* Past the limit nothing is taken; the members are still
             * counted, so the refusal can say how many. */
            counting = 1;
            for (int i = 0; i < s->n; i++)
                s->f[i].level = 0;
        }
        if ((counting && s->members >= cap) || over_limit(s, a))
            break;
        const char *raw = archive_entry_pathname(e);
        if (!raw)       /* a UTF-8 name this locale cannot spell */
            raw = archive_entry_pathname_utf8(e);
        if (!raw) {
            refuse_damaged(s);
            break;
        }
        if (is_escaping(raw)) {
            refuse(s, "a member escapes the folder: %s", raw);
            break;
        }
        char type = 'o';
        if (archive_entry_hardlink(e))
            type = 'h';
        else if (archive_entry_filetype(e) == AE_IFREG)
            type = 'f';
        else if (archive_entry_filetype(e) == AE_IFDIR)
            type = 'd';
        else if (archive_entry_filetype(e) == AE_IFLNK)
            type = 'l';
        const char *norm = !strncmp(raw, "./", 2) ? raw + 2 : raw;
        struct found *keep = NULL;
        for (int i = 0; i < s->n && !counting; i++) {
            int level = pick_level(norm, s->f[i].base);
            if (level && note_candidate(&s->f[i], level, raw, norm, type, &s->oom))
                keep = &s->f[i];
        }
        if (s->oom)
            goto out;
        if (read_member(s, a, keep, buf))
            break;
        stopped = 0;
    }
    if (!stopped && src->gz) {
        /* After the tar's end, the rest of the stream, as gzip -d read it:
         * its CRC is checked at its very end, and it counts. */
        ssize_t n;
        while ((n = gunzip_some(src)) > 0)
            ;
        if (n < 0)
            refuse_damaged(s);
    }
    if (counting) {
        /* Too many members outranks whatever else was found after them. */
        free(s->refused);
        s->refused = NULL;
        if (stopped)
            refuse(s, "archive bomb: %ld members or more (the limit is %d)", s->members, s->lim->max_members);
        else
            refuse(s, "archive bomb: %ld members (the limit is %d)", s->members, s->lim->max_members);
    }
    rc = s->oom ? -1 : 0;
out:
    if (a)
        archive_read_free(a);
    if (src && src->z_ready)
        inflateEnd(&src->z);
    free(src);
    s->src = NULL;
    free(buf);
    return rc;
}

/* Decides one lab of an archive from what the scan found (pick_member). */
static int decide_member(struct found *f, const struct intake_limits *lim)
{
    if (!f->level) {
        f->status = STATUS_MISSING;
        f->why = util_format("no labs/%s/kernel.cu in the submission", f->base);
    } else if (f->count > 1) {
        f->status = STATUS_REFUSED;
        f->why = util_format("%s appears %d times in the archive", f->raw, f->count);
        f->size = 0;
    } else if (f->type == 'l' || f->type == 'h') {
        f->status = STATUS_REFUSED;
        f->why = intake_rule_link(f->raw);
        f->size = 0;
    } else if (f->type != 'f') {
        f->status = STATUS_REFUSED;
        f->why = intake_rule_not_regular(f->raw);
        f->size = 0;
    } else if (f->size > (long long)lim->max_file_kb << 10) {
        f->status = STATUS_REFUSED;
        f->why = intake_rule_too_big(f->raw, f->size, lim->max_file_kb);
    } else {
        int rc = intake_rule_text(f->raw, f->data, f->len, &f->why);
        if (rc < 0)
            return -1;
        f->ok = !rc;
        f->status = rc ? STATUS_REFUSED : f->status;
        return 0;
    }
    return f->why ? 0 : -1;
}

/* ---- folders ---------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folders directly in src that count as submissions: not hidden,
 * folders or links to them, sorted; none named __MACOSX or with a glob
 * character.  Returns the count (names in *out), or -1. */
static int top_folders(const char *src, char ***out)
{
    DIR *d = opendir(src);
    char **names = NULL;
    int n = 0;
    *out = NULL;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "__MACOSX") || strpbrk(e->d_name, "[]*?\\"))
            continue;
        if (fstatat(dirfd(d), e->d_name, &st, 0) != 0 || !S_ISDIR(st.st_mode))
            continue;
        char **more = realloc(names, sizeof *names * (size_t)(n + 1));
        if (!more || !(more[n] = strdup(e->d_name))) {
            names = more ? more : names;
            for (int i = 0; i < n; i++)
                free(names[i]);
            free(names);
            closedir(d);
            return -1;
        }
        names = more;
        n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    *out = names;
    return n;
}

/* Reads rel (under the folder open at root) into f, never following a
 * symbolic link: each folder on the way opened O_NOFOLLOW, the file itself
 * judged and read by intake_rule_read (a regular file before and after it
 * is opened, at most the limit + 1 bytes, text).  Decides f.  Returns 0,
 * or -1 when out of memory. */
static int take_file(int root, const char *rel, struct found *f, const struct intake_limits *lim)
{
    char path[1024], *part, *save = NULL;
    int fd = root, next;
    struct stat st;

    f->level = 1;
    f->raw = strdup(rel);
    if (!f->raw || util_print(path, sizeof path, "%s", rel))
        return -1;
    f->status = STATUS_REFUSED;
    part = strtok_r(path, "/", &save);
    while (part) {
        char *rest = strtok_r(NULL, "/", &save);
        /* The path up to here, for the message. */
        size_t upto = (size_t)(part - path) + strlen(part);
        if (fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            f->why = intake_rule_not_regular(rel);
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            f->why = intake_rule_symlink(rel, upto);
            break;
        }
        if (!rest) {
            /* The file itself, by the rule check applies too. */
            int rc = intake_rule_read(fd, part, rel, lim->max_file_kb, &f->data, &f->len, &f->why);
            f->size = (long long)f->len;
            f->ok = rc == 0;
            break;
        }
        next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            f->why = errno == ELOOP ? intake_rule_symlink(rel, upto) : intake_rule_not_regular(rel);
            break;
        }
        if (fd != root)
            close(fd);
        fd = next;
        part = rest;
    }
    if (fd != root)
        close(fd);
    if (f->ok) {
        free(f->why);
        f->why = NULL;
        return 0;
    }
    return f->why ? 0 : -1;
}

/* Finds and takes lab f's kernel.cu in folder src (pick_file): the first
 * of labs/BASE/kernel.cu, BASE/kernel.cu, then TOP/labs/BASE/kernel.cu and
 * TOP/BASE/kernel.cu for each top folder, that is there at all (even as a
 * link), decides it.  Returns 0, or -1 when out of memory. */
static int pick_file(const char *src, int root, char **tops, int ntops, struct found *f,
                     const struct intake_limits *lim)
{
    for (int i = -1; i < ntops; i++) {
        for (int j = 0; j < 2; j++) {
            char rel[1024], full[4096];
            struct stat st;
            if (util_print(rel, sizeof rel, "%s%s%s%s/kernel.cu", i < 0 ? "" : tops[i], i < 0 ? "" : "/",
                           j ? "" : "labs/", f->base) ||
                util_print(full, sizeof full, "%s/%s", src, rel))
                continue;
            /* There at all, as [ -e ] || [ -L ] asked: lstat follows the
             * folders on the way, to see; take_file then refuses a link. */
            if (lstat(full, &st) != 0)
                continue;
            return take_file(root, rel, f, lim);
        }
    }
    f->status = STATUS_MISSING;
    f->why = util_format("no labs/%s/kernel.cu in the submission", f->base);
    return f->why ? 0 : -1;
}

/* ---- the work folder and intake.json ---------------------------------- */

/* Copies the pristine workbook's file rel into dir/wb/rel. */
static int copy_pristine(const char *pristine, const char *rel, const char *dir, char *err, size_t errlen)
{
    char from[4096], to[4096];
    size_t len;
    if (util_print(from, sizeof from, "%s/%s", pristine, rel) || util_print(to, sizeof to, "%s/wb/%s", dir, rel)) {
        util_print(err, errlen, "%s/%s: path too long", pristine, rel);
        return -1;
    }
    char *text = util_read_file(from, &len);
    if (!text) {
        util_print(err, errlen, "cannot read %s: %s", from, strerror(errno));
        return -1;
    }
    int rc = util_write_file(to, text, len);
    if (rc)
        util_print(err, errlen, "cannot write %s: %s", to, strerror(errno));
    free(text);
    return rc;
}

/* Writes a taken kernel into dir/wb/<lab dir>/kernel.cu. */
static int write_kernel(const char *dir, const struct found *f, char *err, size_t errlen)
{
    char folder[4096], path[4200];
    if (util_print(folder, sizeof folder, "%s/wb/%s", dir, f->lab->dir) ||
        util_print(path, sizeof path, "%s/kernel.cu", folder)) {
        util_print(err, errlen, "%s: path too long", dir);
        return -1;
    }
    if (util_mkdirs(folder) != 0) {
        util_print(err, errlen, "cannot create %s: %s", folder, strerror(errno));
        return -1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    int wrote = fd >= 0 && util_write_all(fd, f->data, f->len) == 0;
    if (!wrote || close(fd) != 0) {
        util_print(err, errlen, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0 && !wrote)
            close(fd);
        return -1;
    }
    return 0;
}

/* A heap copy of s, valid UTF-8: a byte that starts no valid sequence
 * becomes U+FFFD (JSON must be UTF-8; member names are bytes). */
static char *utf8_clean(const char *s)
{
    size_t n = strlen(s), o = 0;
    char *out = malloc(n * 3 + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        const unsigned char *p = (const unsigned char *)s + i;
        size_t k = 0;
        if (p[0] < 0x80)
            k = 1;
        else if (p[0] >= 0xC2 && p[0] <= 0xDF && (p[1] & 0xC0) == 0x80)
            k = 2;
        else if (p[0] >= 0xE0 && p[0] <= 0xEF && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 &&
                 !(p[0] == 0xE0 && p[1] < 0xA0) && !(p[0] == 0xED && p[1] >= 0xA0))
            k = 3;
        else if (p[0] >= 0xF0 && p[0] <= 0xF4 && (p[1] & 0xC0) == 0x80 && (p[2] & 0xC0) == 0x80 &&
                 (p[3] & 0xC0) == 0x80 && !(p[0] == 0xF0 && p[1] < 0x90) && !(p[0] == 0xF4 && p[1] >= 0x90))
            k = 4;
        if (k) {
            memcpy(out + o, p, k);
            o += k;
            i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    out[o] = '\0';
    return out;
}

/* Adds key: s (cleaned) or null. */
static int add_text(cJSON *obj, const char *key, const char *s)
{
    if (!s)
        return cJSON_AddNullToObject(obj, key) ? 0 : -1;
    char *clean = utf8_clean(s);
    int rc = clean && cJSON_AddStringToObject(obj, key, clean) ? 0 : -1;
    free(clean);
    return rc;
}

static int write_json(const char *dir, const struct intake *res, char *err, size_t errlen)
{
    char path[4096];
    cJSON *root = cJSON_CreateObject(), *labs = NULL;
    char *text = NULL;
    int rc = -1;

    if (util_print(path, sizeof path, "%s/intake.json", dir)) {
        util_print(err, errlen, "%s: path too long", dir);
        goto out;
    }
    if (!root || add_text(root, "submission", res->submission) || add_text(root, "kind", res->kind) ||
        add_text(root, "refused", res->refused) || !(labs = cJSON_AddObjectToObject(root, "labs")))
        goto oom;
    for (int i = 0; i < res->nlabs; i++) {
        const struct intake_lab *l = &res->labs[i];
        cJSON *o = cJSON_AddObjectToObject(labs, l->id);
        if (!o || add_text(o, "state", intake_state_name(l)) || add_text(o, "from", l->from) ||
            !cJSON_AddNumberToObject(o, "bytes", (double)l->bytes) || add_text(o, "why", l->why))
            goto oom;
    }
    if (!(text = cJSON_Print(root)))
        goto oom;
    if (util_write_file(path, text, strlen(text)) != 0) {
        util_print(err, errlen, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    rc = 0;
    goto out;
oom:
    util_print(err, errlen, "out of memory");
out:
    free(text);
    cJSON_Delete(root);
    return rc;
}

/* ---- intake ----------------------------------------------------------- */

/* The archive kind by the name's extension (any case), or NULL. */
static const char *kind_of(const char *name)
{
    size_t n = strlen(name);
    static const struct {
        const char *ext, *kind;
    } kinds[] = {{".tar.gz", "tar.gz"}, {".tgz", "tar.gz"}, {".tar", "tar"}, {".zip", "zip"}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t e = strlen(kinds[i].ext);
        if (n >= e && !strcasecmp(name + n - e, kinds[i].ext))
            return kinds[i].kind;
    }
    return NULL;
}

/* Reads the submission at src into f[0..n): res->kind and res->refused
 * set.  Returns 0, or -1 when out of memory. */
static int read_submission(const char *name, const char *src, struct found *f, int n,
                           const struct intake_limits *lim, struct intake *res)
{
    struct stat st;
    const char *kind = NULL;
    char *why = NULL;
    int rc = 0;

    if (lstat(src, &st) != 0)
        why = util_format("cannot read the submission: %s", strerror(errno));
    else if (S_ISLNK(st.st_mode))
        why = util_format("the submission is a symbolic link");
    else if (S_ISDIR(st.st_mode))
        kind = "folder";
    else if (!(kind = kind_of(name)))
        why = util_format("not a folder or a .tar.gz, .tgz, .tar or .zip archive");

    if (kind && !strcmp(kind, "folder")) {
        char **tops = NULL;
        int ntops = top_folders(src, &tops);
        int root = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (ntops < 0)
            rc = -1;
        else if (root < 0)
            why = util_format("cannot read the submission: %s", strerror(errno));
        for (int i = 0; i < n && !rc && !why; i++)
            rc = pick_file(src, root, tops, ntops, &f[i], lim);
        if (root >= 0)
            close(root);
        for (int i = 0; i < ntops; i++)
            free(tops[i]);
        free(tops);
    } else if (kind) {
        struct scan s = {.lim = lim, .kind = kind, .f = f, .n = n};
        int fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) != 0)
            why = util_format("cannot read the submission: %s", strerror(errno));
        else if (!S_ISREG(st.st_mode))
            why = util_format("the submission is not a regular file");
        else if (!strcmp(kind, "tar") && st.st_size > (off_t)lim->max_unpacked_mb << 20)
            why = util_format("archive bomb: more than %d MiB", lim->max_unpacked_mb);
        else if (scan_archive(&s, fd) != 0)
            rc = -1;
        why = why ? why : s.refused;
        if (fd >= 0)
            close(fd);
        for (int i = 0; i < n && !rc && !why; i++)
            rc = decide_member(&f[i], lim);
    }
    if (kind && !(res->kind = strdup(kind)))
        rc = -1;
    res->refused = why;
    if (!why && !kind)
        rc = -1;
    return rc;
}

/* Compares a taken kernel with the stub as handed out. */
static int is_stub(const char *pristine, const struct found *f)
{
    char path[4096];
    size_t len;
    if (util_print(path, sizeof path, "%s/%s", pristine, f->lab->stub))
        return 0;
    char *stub = util_read_file(path, &len);
    int same = stub && len == f->len && !memcmp(stub, f->data, len);
    free(stub);
    return same;
}

int intake_take(const struct catalog *cat, const struct lab *const *labs, int nlabs,
                const char *pristine, const char *name, const char *src, const char *dir,
                const struct intake_limits *lim, struct intake *res, char *err, size_t errlen)
{
    struct found *f;
    char sub[4096];
    int rc = -1;

    if (!labs)
        nlabs = cat->nlabs;
    f = calloc((size_t)nlabs + 1, sizeof *f);
    memset(res, 0, sizeof *res);
    res->labs = calloc((size_t)nlabs + 1, sizeof *res->labs);
    res->submission = strdup(name);
    if (!f || !res->labs || !res->submission)
        goto oom;
    res->nlabs = nlabs;
    for (int i = 0; i < nlabs; i++) {
        const struct lab *lab = labs ? labs[i] : &cat->labs[i];
        f[i].lab = lab;
        f[i].base = base_of(lab->dir);
        res->labs[i].lab = lab;
        if (!(res->labs[i].id = strdup(lab->id)))
            goto oom;
    }

    if (util_remove_tree(dir) != 0) {
        util_print(err, errlen, "cannot remove %s: %s", dir, strerror(errno));
        goto out;
    }
    for (int i = 0; i < 2; i++) {
        if (util_print(sub, sizeof sub, "%s/wb/%s", dir, i ? "tutor" : "data") || util_mkdirs(sub) != 0) {
            util_print(err, errlen, "cannot create %s: %s", sub, strerror(errno));
            goto out;
        }
    }
    if (copy_pristine(pristine, "data/labs.json", dir, err, errlen) ||
        copy_pristine(pristine, "tutor/lab.h", dir, err, errlen))
        goto out;

    if (read_submission(name, src, f, nlabs, lim, res) != 0)
        goto oom;
    for (int i = 0; i < nlabs; i++) {
        struct intake_lab *l = &res->labs[i];
        if (res->refused) {
            l->status = STATUS_REFUSED;
            if (!(l->why = strdup(res->refused)))
                goto oom;
            continue;
        }
        if (f[i].ok && is_stub(pristine, &f[i])) {
            /* The stub as handed out (data/stubs/), never the grading
             * checkout's labs/, where the grader may have tried the tutor. */
            f[i].ok = 0;
            f[i].status = STATUS_UNCHANGED;
            if (!(f[i].why = strdup(status_meaning(STATUS_UNCHANGED))))
                goto oom;
        }
        if (f[i].ok && write_kernel(dir, &f[i], err, errlen))
            goto out;
        l->ok = f[i].ok;
        l->status = f[i].status;
        l->bytes = f[i].status == STATUS_MISSING ? 0 : f[i].size;
        if (f[i].status != STATUS_MISSING && f[i].raw && !(l->from = strdup(f[i].raw)))
            goto oom;
        l->why = f[i].why;
        f[i].why = NULL;
    }
    rc = write_json(dir, res, err, errlen);
    goto out;
oom:
    util_print(err, errlen, "out of memory");
out:
    for (int i = 0; f && i < nlabs; i++) {
        free(f[i].raw);
        free(f[i].norm);
        free(f[i].data);
        free(f[i].why);
    }
    free(f);
    if (rc)
        intake_free(res);
    return rc;
}

/* ---- reading intake.json back ----------------------------------------- */

static char *text_or_null(const cJSON *obj, const char *key, int *bad)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (cJSON_IsString(v)) {
        char *s = strdup(v->valuestring);
        if (!s)
            *bad = 1;
        return s;
    }
    if (v && !cJSON_IsNull(v))
        *bad = 1;
    return NULL;
}

int intake_load(const char *path, struct intake *res, char *err, size_t errlen)
{
    size_t len;
    int bad = 0, rc = -1;
    cJSON *root = NULL;
    char *text = util_read_file(path, &len);

    memset(res, 0, sizeof *res);
    if (!text) {
        util_print(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    root = cJSON_Parse(text);
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(root, "labs");
    if (!cJSON_IsObject(root) || !cJSON_IsObject(labs)) {
        util_print(err, errlen, "%s: not an intake record (no labs)", path);
        goto out;
    }
    res->submission = text_or_null(root, "submission", &bad);
    res->kind = text_or_null(root, "kind", &bad);
    res->refused = text_or_null(root, "refused", &bad);
    if (!res->submission)
        bad = 1;
    int n = cJSON_GetArraySize(labs);
    res->labs = calloc((size_t)n + 1, sizeof *res->labs);
    if (!res->labs) {
        util_print(err, errlen, "out of memory");
        goto out;
    }
    const cJSON *o;
    cJSON_ArrayForEach(o, labs) {
        struct intake_lab *l = &res->labs[res->nlabs++];
        const cJSON *state = cJSON_GetObjectItemCaseSensitive(o, "state");
        const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(o, "bytes");
        l->id = strdup(o->string ? o->string : "");
        l->from = text_or_null(o, "from", &bad);
        l->why = text_or_null(o, "why", &bad);
        l->bytes = cJSON_IsNumber(bytes) ? (long long)bytes->valuedouble : 0;
        if (!l->id || !cJSON_IsString(state)) {
            bad = 1;
            continue;
        }
        int st = status_from_name(state->valuestring);
        if (!strcmp(state->valuestring, "ok"))
            l->ok = 1;
        else if (st == STATUS_MISSING || st == STATUS_UNCHANGED || st == STATUS_REFUSED)
            l->status = (enum status)st;
        else
            bad = 1;
    }
    if (bad) {
        util_print(err, errlen, "%s: not an intake record (a field has the wrong type or state)", path);
        goto out;
    }
    rc = 0;
out:
    cJSON_Delete(root);
    free(text);
    if (rc)
        intake_free(res);
    return rc;
}

void intake_free(struct intake *res)
{
    for (int i = 0; i < res->nlabs; i++) {
        free(res->labs[i].id);
        free(res->labs[i].from);
        free(res->labs[i].why);
    }
    free(res->labs);
    free(res->submission);
    free(res->kind);
    free(res->refused);
    memset(res, 0, sizeof *res);
}

const char *intake_state_name(const struct intake_lab *l)
{
    return l->ok ? "ok" : status_name(l->status);
}

const struct intake_lab *intake_find(const struct intake *res, const char *id)
{
    for (int i = 0; i < res->nlabs; i++)
        if (!strcmp(res->labs[i].id, id))
            return &res->labs[i];
    return NULL;
}
