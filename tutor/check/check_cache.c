/* check_cache.c — nvcc's results kept by what went in, for test suites.
 *
 * A test suite checks the same stubs, solutions and fixtures many times,
 * from many temporary workbooks, and nvcc spends 2 to 3 CPU seconds on
 * each (mostly reading CUDA's headers).  When $CUDATUTOR_COMPILE_CACHE
 * names a folder, a compile is looked up there first by a key made of
 * everything that decides its outcome: the nvcc binary, the arguments less
 * the paths, lab.h, and the source's bytes.  The source's path is not in
 * the key, so that copies of one file share an entry; it is stored as a
 * placeholder in the log and the dependency list (as is lab.h's, which
 * differs between a workbook and the grader's copy of it), and the current
 * paths go back in on a hit.  Two checks that miss on one key at once take
 * turns on a lock: the second is served the first's compile.
 *
 * Only a compile that read nothing but the source, lab.h and system or
 * CUDA headers is stored: an include beside the source could change
 * without changing the key.  The tests' runner gives each run a fresh
 * folder, so an entry never outlives the toolkit it was made with.  The
 * tutor leaves the variable unset; the grader passes it on to its builds
 * alone (grade/grade_sandbox.c), where no student code runs, and hides
 * the folder from every run. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/check_stage.h"
#include "sys/sha256.h"
#include "sys/util.h"

#define CACHE_VERSION "cudatutor-nvcc-cache 2"
/* Stands for the source's path (and the object's) in what is stored. */
#define SRC_MARK "\001SRC\001"
#define OBJ_MARK "\001OBJ\001"
#define LABH_MARK "\001LABH\001"

/* The files an entry holds, beside "exit" and "log": the cubin too, whose
 * register count the CPU judge reads beside the PTX (a hit without it
 * would count 0 registers and let a kernel past its block limit). */
enum { F_OBJ, F_PTX, F_FATBIN, F_CUBIN, F_DEPS, F_COUNT };
static const char *const entry_names[F_COUNT] = {"kernel.o", "kernel.ptx", "kernel.fatbin", "kernel.cubin",
                                                 "kernel.d"};

static const char *run_file(const struct check_state *r, int f)
{
    switch (f) {
    case F_OBJ: return r->obj;
    case F_PTX: return r->ptx;
    case F_FATBIN: return r->fatbin;
    case F_CUBIN: return r->cubin;
    default: return r->deps;
    }
}

/* The file NAME of folder DIR, read whole (NUL-terminated); NULL if absent. */
static char *read_in(const char *dir, const char *name)
{
    char *path = util_format("%s/%s", dir, name);
    char *data = path ? util_read_file(path, NULL) : NULL;
    free(path);
    return data;
}

static int write_in(const char *dir, const char *name, const char *text)
{
    char *path = util_format("%s/%s", dir, name);
    int rc = path ? util_write_file(path, text, strlen(text)) : -1;
    free(path);
    return rc;
}

/* Adds a file's bytes (or its absence) to the hash; 0, or -1 if unreadable. */
static int hash_file(struct sha256 *h, const char *path)
{
    size_t len;
    char *data = util_read_file(path, &len);
    if (!data)
        return -1;
    sha256_update(h, &len, sizeof len);
    sha256_update(h, data, len);
    free(data);
    return 0;
}

char *cache_key(const struct check_state *r, char *const *flags)
{
    struct sha256 h;
    struct stat st;
    unsigned char d[SHA256_BYTES];
    char *lab_h = util_format("%s/lab.h", r->tc->include_dir);
    char *key = NULL;

    if (!lab_h || !r->tc->nvcc || stat(r->tc->nvcc, &st) != 0)
        goto out;
    sha256_init(&h);
    sha256_update(&h, CACHE_VERSION, sizeof CACHE_VERSION);
    /* nvcc by its path, size and age: a toolkit installed over it is new. */
    sha256_update(&h, r->tc->nvcc, strlen(r->tc->nvcc) + 1);
    sha256_update(&h, &st.st_size, sizeof st.st_size);
    sha256_update(&h, &st.st_mtime, sizeof st.st_mtime);
    for (char *const *f = flags; *f; f++)
        sha256_update(&h, *f, strlen(*f) + 1);
    if (hash_file(&h, lab_h) || hash_file(&h, r->src))
        goto out;
    sha256_final(&h, d);
    key = malloc(2 * SHA256_BYTES + 1);
    if (key)
        for (int i = 0; i < SHA256_BYTES; i++)
            snprintf(key + 2 * i, 3, "%02x", d[i]);
out:
    free(lab_h);
    return key;
}

/* text with every `from` replaced by `to`; NULL when out of memory. */
static char *replace_all(const char *text, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to), n = 0;
    if (!nf)
        return strdup(text);
    for (const char *p = strstr(text, from); p; p = strstr(p + nf, from))
        n++;
    char *out = malloc(strlen(text) + n * nt + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *p = text, *q; ; p = q + nf) {
        q = strstr(p, from);
        size_t k = q ? (size_t)(q - p) : strlen(p);
        memcpy(w, p, k);
        w += k;
        if (!q)
            break;
        memcpy(w, to, nt);
        w += nt;
    }
    *w = '\0';
    return out;
}

/* text with this run's paths (source, object, lab.h) as placeholders, and
 * back; NULL when out of memory. */
static char *swap_paths(const struct check_state *r, const char *text, int to_marks)
{
    char *lab_h = util_format("%s/lab.h", r->tc->include_dir);
    const char *paths[] = {r->src, r->obj, lab_h}, *marks[] = {SRC_MARK, OBJ_MARK, LABH_MARK};
    char *out = lab_h ? strdup(text) : NULL;
    for (int i = 0; i < 3 && out; i++) {
        char *next = to_marks ? replace_all(out, paths[i], marks[i]) : replace_all(out, marks[i], paths[i]);
        free(out);
        out = next;
    }
    free(lab_h);
    return out;
}

static char *mark_paths(const struct check_state *r, const char *text) { return swap_paths(r, text, 1); }
static char *put_paths(const struct check_state *r, const char *text) { return swap_paths(r, text, 0); }

/* The dependency list names only the source, lab.h and headers of the
 * system or the toolkit: nothing that can change without changing the key. */
static int deps_cacheable(const struct check_state *r, const char *deps)
{
    char *lab_h = util_format("%s/lab.h", r->tc->include_dir);
    char *copy = strdup(deps);
    int ok = lab_h && copy;
    const char *nvcc_dir = r->tc->nvcc;
    size_t toolkit = strlen(nvcc_dir);
    /* The toolkit is nvcc's grandparent folder (…/cuda/bin/nvcc). */
    for (int up = 0; up < 2 && toolkit > 0; up++) {
        while (toolkit > 0 && nvcc_dir[toolkit - 1] != '/')
            toolkit--;
        if (toolkit > 0)
            toolkit--;
    }
    char *save = NULL;
    for (char *tok = ok ? strtok_r(copy, " \\\n\t", &save) : NULL; tok && ok;
         tok = strtok_r(NULL, " \\\n\t", &save)) {
        size_t n = strlen(tok);
        if ((n && tok[n - 1] == ':') || !strcmp(tok, r->obj))
            continue;                       /* the target, "kernel.o :" */
        if (!strcmp(tok, r->src) || !strcmp(tok, lab_h))
            continue;
        if (!strncmp(tok, "/usr/", 5) || (toolkit > 1 && !strncmp(tok, nvcc_dir, toolkit)))
            continue;
        ok = 0;
    }
    free(copy);
    free(lab_h);
    return ok;
}

int cache_fetch(const struct check_state *r, const char *dir, const char *key, int *exit_code, char **log)
{
    char *entry = util_format("%s/%s", dir, key);
    char *code = NULL, *stored_log = NULL;
    int rc = -1;

    *log = NULL;
    if (!entry || !(code = read_in(entry, "exit")) || !(stored_log = read_in(entry, "log")))
        goto out;
    for (int f = 0; f < F_COUNT; f++) {
        char *from = util_format("%s/%s", entry, entry_names[f]);
        char *data = NULL, *fixed = NULL;
        size_t len = 0;
        int ok = from && (data = util_read_file(from, &len)) != NULL;
        if (ok && f == F_DEPS) {
            fixed = put_paths(r, data);
            ok = fixed && util_write_file(r->deps, fixed, strlen(fixed)) == 0;
        } else if (ok) {
            ok = util_write_file(run_file(r, f), data, len) == 0;
        }
        free(from);
        free(data);
        free(fixed);
        /* A file the compile did not make (no fatbin after an error) is
         * simply absent from the entry, and from this run. */
        if (!ok && f != F_DEPS && errno == ENOENT)
            continue;
        if (!ok)
            goto out;
    }
    *exit_code = atoi(code);
    if (!(*log = put_paths(r, stored_log)))
        goto out;
    rc = 0;
out:
    free(entry);
    free(code);
    free(stored_log);
    return rc;
}

void cache_store(const struct check_state *r, const char *dir, const char *key, int exit_code, const char *log)
{
    char *entry = util_format("%s/%s", dir, key);
    char *tmp = util_format("%s/.tmp-%s-%ld", dir, key, (long)getpid());
    char *deps = util_read_file(r->deps, NULL);
    int ok = entry && tmp && deps && deps_cacheable(r, deps) && util_mkdirs(tmp) == 0;

    for (int f = 0; ok && f < F_COUNT; f++) {
        char *to = util_format("%s/%s", tmp, entry_names[f]);
        size_t len = 0;
        char *data = util_read_file(run_file(r, f), &len);
        if (data && f == F_DEPS) {
            char *marked = mark_paths(r, data);
            free(data);
            data = marked;
            len = marked ? strlen(marked) : 0;
            ok = marked != NULL;
        }
        if (ok && data)
            ok = to && util_write_file(to, data, len) == 0;
        free(to);
        free(data);
    }
    char code[16];
    snprintf(code, sizeof code, "%d", exit_code);
    char *marked = ok ? mark_paths(r, log) : NULL;
    ok = ok && marked && write_in(tmp, "exit", code) == 0 && write_in(tmp, "log", marked) == 0;
    free(marked);
    /* rename publishes the entry whole; when another check stored the same
     * key first, theirs stays and this copy goes. */
    if (!ok || rename(tmp, entry) != 0)
        util_remove_tree(tmp);
    free(entry);
    free(tmp);
    free(deps);
}

int cache_lock(const char *dir, const char *key)
{
    char *path = util_format("%s/.lock-%s", dir, key);
    /* Read-only: a lock file another user made (the grader's sandbox user
     * beside the test suite's) can still be locked. */
    int fd = path ? open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644) : -1;
    free(path);
    if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}
