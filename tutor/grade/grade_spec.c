/* grade_spec.c — what the grader's sandbox is given, whichever mode
 * grade_probe.c then chooses: the paths it hides and binds back, a build's
 * view of the system, the environment (a PATH built from the toolchain
 * found here, never the grader's own), the GPU's device nodes, the GPU
 * locks and the limits. */
#include "grade/grade_run.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/toolchain.h"
#include "sys/util.h"

static int add_string(char ***v, int *n, const char *s)
{
    char **grown = realloc(*v, (size_t)(*n + 2) * sizeof **v);
    if (!grown)
        return -1;
    *v = grown;
    if (!(grown[*n] = strdup(s)))
        return -1;
    grown[++*n] = NULL;
    return 0;
}

/* Appends dir to the ':'-list *list unless it is there. */
static int path_add(char **list, const char *dir)
{
    size_t n = strlen(dir);
    for (const char *p = *list; p && *p;) {
        size_t k = strcspn(p, ":");
        if (k == n && !strncmp(p, dir, n))
            return 0;
        p += k + (p[k] == ':');
    }
    char *more = util_format("%s%s%s", *list && **list ? *list : "", *list && **list ? ":" : "", dir);
    if (!more)
        return -1;
    free(*list);
    *list = more;
    return 0;
}

/* The folder of program prog, or with parent the folder above it (the
 * install prefix of PREFIX/bin/prog); heap, NULL when out of memory. */
static char *program_dir(const char *prog, int parent)
{
    char *d = strdup(prog), *slash;
    for (int up = 0; d && up < 1 + parent; up++)
        if ((slash = strrchr(d, '/')) && slash != d)
            *slash = '\0';
    return d;
}

/* The sandbox's PATH: the folders of the toolchain this grader finds
 * (nvcc's, the C++ compiler's, nm's, compute-sanitizer's, ncu's) and of
 * nvidia-smi, then /usr/bin and /bin; never the grader's own PATH, one of
 * whose folders the sandbox's user may not be allowed to read (which would
 * fail the nobody mode for nothing).  Heap; NULL when out of memory. */
static char *sandbox_path(const struct toolchain *tc)
{
    char *smi = util_which("nvidia-smi");
    const char *progs[] = {tc->nvcc, tc->cxx, tc->nm, tc->sanitizer, tc->ncu, smi};
    char *list = strdup("");
    for (int i = 0; list && i < 6; i++) {
        if (!progs[i])
            continue;
        char *d = program_dir(progs[i], 0);
        if (!d || path_add(&list, d)) {
            free(list);
            list = NULL;
        }
        free(d);
    }
    free(smi);
    const char *fixed[] = {"/usr/bin", "/bin"};
    for (int i = 0; list && i < 2; i++)
        if (util_is_dir(fixed[i]) && path_add(&list, fixed[i])) {
            free(list);
            return NULL;
        }
    return list;
}

/* The environment a sandboxed program gets: nothing else of the grader's. */
static int sandbox_env(const struct grade *g, struct grade_sandbox *sb, const char *path)
{
    static const char *const keep[] = {"LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "NVCC", "CUDATUTOR_ARCH", NULL};
    char *line;
    int rc = 0;
    line = util_format("PATH=%s", path);
    rc |= !line || add_string(&sb->env, &sb->nenv, line);
    free(line);
    rc |= add_string(&sb->env, &sb->nenv, "HOME=/tmp") || add_string(&sb->env, &sb->nenv, "TMPDIR=/tmp") ||
          add_string(&sb->env, &sb->nenv, "LANG=C.UTF-8");
    line = util_format("CUDATUTOR_HARNESS_DIR=%s", g->harness_dir);
    rc |= !line || add_string(&sb->env, &sb->nenv, line);
    free(line);
    for (int i = 0; keep[i]; i++) {
        const char *v = getenv(keep[i]);
        if (!v || !*v)
            continue;
        line = util_format("%s=%s", keep[i], v);
        rc |= !line || add_string(&sb->env, &sb->nenv, line);
        free(line);
    }
    return rc ? -1 : 0;
}

/* The CUDA toolkit's folder, from nvcc as the build finds it. */
static char *toolkit_dir(void)
{
    char real[PATH_MAX];
    char *nvcc = util_which("nvcc");
    const char *home = getenv("CUDA_HOME");
    if (!nvcc)
        nvcc = util_format("%s/bin/nvcc", home && *home ? home : "/usr/local/cuda");
    if (!nvcc || !realpath(nvcc, real))
        util_copy(real, sizeof real, "/usr/local/cuda/bin/nvcc");
    free(nvcc);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(real, '/');
        if (slash && slash != real)
            *slash = '\0';
    }
    return strdup(real);
}

/* Whether the sandbox puts something else at path: a hidden place, or its
 * own /tmp and /dev/shm. */
static int replaced(const struct grade_sandbox *sb, const char *path)
{
    return !strncmp(path, "/tmp/", 5) || !strncmp(path, "/dev/shm/", 9) || grade_sandbox_under_hidden(sb, path);
}

/* What the build and the runs need back from places the sandbox hides or
 * replaces, read-only: this program, the judges, the toolkit; and the
 * folders of the sandbox's PATH and of LD_LIBRARY_PATH (a private sysroot
 * under /tmp, say). */
static int sandbox_rebinds(const struct grade *g, struct grade_sandbox *sb, const char *path)
{
    char *toolkit = toolkit_dir();
    const char *fixed[] = {g->self, g->harness_dir, toolkit, "/run/nvidia-persistenced", NULL};
    int rc = toolkit ? 0 : -1;
    for (int i = 0; fixed[i] && !rc; i++)
        if (access(fixed[i], F_OK) == 0 && replaced(sb, fixed[i]))
            rc = add_string(&sb->rebind, &sb->nrebind, fixed[i]);
    free(toolkit);
    const char *lib = getenv("LD_LIBRARY_PATH");
    char *dirs = util_format("%s:%s", lib ? lib : "", path);
    for (char *save = NULL, *d = dirs && !rc ? strtok_r(dirs, ":", &save) : NULL; d && !rc;
         d = strtok_r(NULL, ":", &save)) {
        int dup = 0;
        if (!util_is_dir(d))
            continue;
        for (int i = 0; i < sb->nrebind; i++)
            dup |= !strcmp(sb->rebind[i], d);
        if (!dup && replaced(sb, d))
            rc = add_string(&sb->rebind, &sb->nrebind, d);
    }
    free(dirs);
    return rc;
}

/* A build's view (grade_sandbox_build_view): the system's folders, and
 * wherever else they lie the toolkit, the prefixes of nvcc, the C++
 * compiler and nm, this program, the harness objects (rt.o, runner.o),
 * and the folders of the sandbox's PATH and of LD_LIBRARY_PATH. */
static int sandbox_view(const struct grade *g, struct grade_sandbox *sb, const struct toolchain *tc,
                        const char *path)
{
    const char *lib = getenv("LD_LIBRARY_PATH");
    char *dirs = util_format("%s:%s", path, lib ? lib : "");
    char *owned[4] = {toolkit_dir(), tc->nvcc ? program_dir(tc->nvcc, 1) : NULL,
                      tc->cxx ? program_dir(tc->cxx, 1) : NULL, tc->nm ? program_dir(tc->nm, 1) : NULL};
    int n = 0, rc = -1;
    const char **places = dirs ? calloc(strlen(dirs) + 8, sizeof *places) : NULL;
    if (!places || !owned[0])
        goto out;
    for (int i = 0; i < 4; i++)
        places[n++] = owned[i];
    places[n++] = g->self;
    places[n++] = g->harness_dir;
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save))
        places[n++] = d;
    rc = grade_sandbox_build_view(sb, places, n);
out:
    for (int i = 0; i < 4; i++)
        free(owned[i]);
    free(places);
    free(dirs);
    return rc;
}

/* The GPU's device nodes; nvidia-uvm appears only once something has used
 * CUDA since boot, so nvidia-modprobe makes it first where it can. */
static int sandbox_devices(struct grade *g, struct grade_sandbox *sb)
{
    char *modprobe = util_which("nvidia-modprobe");
    if (modprobe && access("/dev/nvidiactl", F_OK) == 0) {
        char *argv[] = {modprobe, "-u", "-c=0", NULL};
        grade_spawn(g, argv, NULL, NULL, 30, 0, NULL);
    }
    free(modprobe);
    DIR *d = opendir("/dev");
    struct dirent *e;
    int rc = 0;
    char **names = NULL;
    int n = 0;
    while (d && (e = readdir(d)) && !rc)
        if (!strncmp(e->d_name, "nvidia", 6))
            rc = add_string(&names, &n, e->d_name);
    if (d)
        closedir(d);
    for (int i = 0; i < n && !rc; i++) {
        char *p = util_format("/dev/%s", names[i]);
        rc = !p || add_string(&sb->devices, &sb->ndevices, p);
        free(p);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* Whether this bubblewrap caps a tmpfs (--size, bubblewrap 0.5 on). */
static int bwrap_sized(struct grade *g, const char *bwrap)
{
    char *log = util_format("%s/bwrap-help.txt", g->state), *text;
    char *argv[] = {(char *)bwrap, "--help", NULL};
    int sized = 0;
    if (!log)
        return 0;
    unlink(log);
    grade_spawn(g, argv, NULL, NULL, 20, 0, log);
    if ((text = util_read_file(log, NULL)))
        sized = strstr(text, "--size") != NULL;
    free(text);
    unlink(log);
    free(log);
    return sized;
}

int grade_spec(struct grade *g, struct grade_sandbox *sb, const char *bwrap)
{
    int ncand = 0, rc = -1, have_tc = 0;
    int most = g->o->nhide + g->nsubs + 8;
    const char **cand = calloc((size_t)most, sizeof *cand);
    char **blocked = calloc((size_t)most, sizeof *blocked);
    struct toolchain tc;
    char *path = NULL, why[256];
    char *rubric_default = util_format("%s/data/rubric.json", g->pristine);
    char **subs = calloc((size_t)g->nsubs + 1, sizeof *subs);

    memset(sb, 0, sizeof *sb);
    if (!cand || !blocked || !rubric_default || !subs)
        goto out;
    /* The grader's home, the pristine workbook (solutions, history), the
     * output folder (other students), /run (sockets), /var/tmp, --hide,
     * the roster, another rubric, and the submissions' folders. */
    cand[ncand++] = getenv("HOME");
    cand[ncand++] = g->pristine;
    cand[ncand++] = g->out;
    cand[ncand++] = g->scratch;
    cand[ncand++] = "/run";
    cand[ncand++] = "/var/tmp";
    for (int i = 0; i < g->o->nhide; i++)
        cand[ncand++] = g->o->hide[i];
    if (g->o->roster)
        cand[ncand++] = g->o->roster;
    if (strcmp(g->rubric_path, rubric_default))
        cand[ncand++] = g->rubric_path;
    for (int i = 0; i < g->nsubs; i++)
        if (!(cand[ncand++] = subs[i] = grade_sandbox_hide_of_submission(g->subs[i].path)))
            goto out;
    /* As root the sandbox runs as nobody, and bubblewrap cannot make an
     * empty place below a folder nobody cannot pass (a workbook in
     * mktemp -d's 0700): that folder is hidden instead, whole. */
    for (int i = 0; geteuid() == 0 && i < ncand; i++)
        if (cand[i] && (blocked[i] = grade_sandbox_blocked(cand[i], GRADE_SANDBOX_NOBODY, NULL)))
            cand[i] = blocked[i];
    if ((sb->nhide = grade_sandbox_hidden(cand, ncand, &sb->hide)) < 0) {
        sb->nhide = 0;
        goto out;
    }
    if (bwrap && !(sb->bwrap = strdup(bwrap)))
        goto out;
    sb->sized = bwrap ? bwrap_sized(g, bwrap) : 0;
    sb->uid = -1;
    sb->max_procs = g->o->max_procs;
    /* The test suite's shared compiles (check/check_cache.c); the builds
     * run as the sandbox's user, who must be able to add to the folder. */
    const char *cache = getenv("CUDATUTOR_COMPILE_CACHE");
    if (cache && *cache && util_mkdirs(cache) == 0 && !(sb->cache = realpath(cache, NULL)))
        goto out;
    if (toolchain_init(&tc, g->pristine, why, sizeof why))
        goto out;
    have_tc = 1;
    if (!(path = sandbox_path(&tc)) || !(sb->locks = util_format("%s/gpu-locks", g->scratch)) ||
        sandbox_env(g, sb, path) || sandbox_rebinds(g, sb, path) || sandbox_devices(g, sb) ||
        (bwrap && sandbox_view(g, sb, &tc, path)))
        goto out;
    rc = 0;
out:
    if (have_tc)
        toolchain_free(&tc);
    free(path);
    for (int i = 0; subs && i < g->nsubs; i++)
        free(subs[i]);
    free(subs);
    for (int i = 0; blocked && i < most; i++)
        free(blocked[i]);
    free(blocked);
    free(cand);
    free(rubric_default);
    return rc;
}
