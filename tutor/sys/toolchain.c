/* toolchain.c — see toolchain.h.  Search orders follow what CUDA users
 * expect: $NVCC, then PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin. */
#include "sys/toolchain.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "sys/util.h"

#ifndef CUDATUTOR_ARCH
#define CUDATUTOR_ARCH "sm_90"
#endif
#ifndef CUDATUTOR_NVCC
#define CUDATUTOR_NVCC ""
#endif
#ifndef CUDATUTOR_LIBDIR
#define CUDATUTOR_LIBDIR "/usr/local/lib/cudatutor"
#endif
#ifndef CUDATUTOR_SHAREDIR
#define CUDATUTOR_SHAREDIR "/usr/local/share/cudatutor"
#endif

char *toolchain_path(const struct toolchain *tc, const char *rel)
{
    return util_format("%s/%s", tc->root, rel);
}

int toolchain_find_root(const char *explicit_root, char **out, char *err, size_t errlen)
{
    char buf[PATH_MAX], probe[PATH_MAX + 32];
    const char *start = explicit_root ? explicit_root : getenv("CUDATUTOR_ROOT");

    if (start && *start) {
        if (!realpath(start, buf)) {
            snprintf(err, errlen, "%s: %s", start, strerror(errno));
            return -1;
        }
        snprintf(probe, sizeof probe, "%s/data/labs.json", buf);
        if (!util_is_file(probe)) {
            snprintf(err, errlen, "%s is not a workbook (no data/labs.json)", buf);
            return -1;
        }
        return (*out = strdup(buf)) ? 0 : -1;
    }
    if (!getcwd(buf, sizeof buf)) {
        snprintf(err, errlen, "getcwd: %s", strerror(errno));
        return -1;
    }
    for (;;) {
        snprintf(probe, sizeof probe, "%s/data/labs.json", buf);
        if (util_is_file(probe))
            return (*out = strdup(buf)) ? 0 : -1;
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf)
            break;
        *slash = '\0';
    }
    snprintf(err, errlen, "not inside a workbook: no data/labs.json here or above "
                          "(cd into the workbook, or pass --root DIR)");
    return -1;
}

/* The first candidate that is an executable file, as a heap string. */
static char *first_executable(const char *const *cands, int n)
{
    for (int i = 0; i < n; i++)
        if (cands[i] && *cands[i] && util_is_executable(cands[i]))
            return strdup(cands[i]);
    return NULL;
}

static char *find_nvcc(void)
{
    char *home = NULL, *found = NULL;
    const char *env = getenv("NVCC");
    const char *cuda_home = getenv("CUDA_HOME");

    if (env && *env && (found = util_which(env)))
        return found;
    if ((found = util_which("nvcc")))
        return found;
    if (cuda_home && *cuda_home)
        home = util_format("%s/bin/nvcc", cuda_home);
    const char *cands[] = {home, "/usr/local/cuda/bin/nvcc", CUDATUTOR_NVCC};
    found = first_executable(cands, 3);
    free(home);
    return found;
}

/* A CUDA tool: on PATH, or next to nvcc (the toolkit's bin/), or in the
 * toolkit's extras where some distributions put compute-sanitizer. */
static char *find_cuda_tool(const char *nvcc, const char *name)
{
    char *found = util_which(name), *dir = NULL, *a = NULL, *b = NULL;
    if (found || !nvcc)
        return found;
    if (!(dir = strdup(nvcc)))
        return NULL;
    char *d = dirname(dir);
    a = util_format("%s/%s", d, name);
    b = util_format("%s/../compute-sanitizer/%s", d, name);
    const char *cands[] = {a, b};
    found = first_executable(cands, 2);
    free(a);
    free(b);
    free(dir);
    return found;
}

int toolchain_init(struct toolchain *tc, const char *root, char *err, size_t errlen)
{
    const char *arch = getenv("CUDATUTOR_ARCH");
    const char *hdir = getenv("CUDATUTOR_HARNESS_DIR");
    char *local_inc = NULL, *local_hx = NULL;

    memset(tc, 0, sizeof *tc);
    if (!(tc->root = strdup(root)))
        goto oom;
    util_copy(tc->arch, sizeof tc->arch, arch && *arch ? arch : CUDATUTOR_ARCH);

    /* A workbook checked out from git carries its own tutor/ and build/;
     * an installed tutor falls back on the installed copies. */
    if (!(local_inc = util_format("%s/tutor", root)) ||
        !(local_hx = util_format("%s/build/harness", root)))
        goto oom;
    char *probe = util_format("%s/lab.h", local_inc);
    int have_local_inc = probe && util_is_file(probe);
    free(probe);
    tc->include_dir = have_local_inc ? local_inc : util_format("%s/tutor", CUDATUTOR_SHAREDIR);
    if (have_local_inc)
        local_inc = NULL;
    if (hdir && *hdir)
        tc->harness_dir = strdup(hdir);
    else if (util_is_dir(local_hx) || !util_is_dir(CUDATUTOR_LIBDIR "/harness"))
        tc->harness_dir = local_hx, local_hx = NULL;
    else
        tc->harness_dir = strdup(CUDATUTOR_LIBDIR "/harness");
    tc->build_dir = util_format("%s/build", root);
    if (!tc->include_dir || !tc->harness_dir || !tc->build_dir)
        goto oom;

    tc->nvcc = find_nvcc();
    tc->nm = util_which("nm");
    /* nvcc compiles host code with g++ unless told otherwise: link with it. */
    tc->cxx = util_which("g++");
    if (!tc->cxx)
        tc->cxx = util_which("c++");
    tc->sanitizer = find_cuda_tool(tc->nvcc, "compute-sanitizer");
    tc->ncu = find_cuda_tool(tc->nvcc, "ncu");
    free(local_inc);
    free(local_hx);
    return 0;
oom:
    free(local_inc);
    free(local_hx);
    toolchain_free(tc);
    snprintf(err, errlen, "out of memory");
    return -1;
}

void toolchain_free(struct toolchain *tc)
{
    free(tc->root);
    free(tc->include_dir);
    free(tc->harness_dir);
    free(tc->build_dir);
    free(tc->nvcc);
    free(tc->nm);
    free(tc->cxx);
    free(tc->sanitizer);
    free(tc->ncu);
    memset(tc, 0, sizeof *tc);
}

int toolchain_check_busy(const struct toolchain *tc, const char *lab_id)
{
    char *lock = util_format("%s/check/%s/.lock", tc->build_dir, lab_id);
    int fd = lock ? open(lock, O_RDONLY | O_CLOEXEC) : -1, busy = 0;
    /* A shared lock cannot be had while a check holds the exclusive one;
     * had, it is let go at once. */
    if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK)
        busy = 1;
    if (fd >= 0)
        close(fd);
    free(lock);
    return busy;
}
