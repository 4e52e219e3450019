/* grade_sandbox.c — see grade_sandbox.h.  The argv is a pure function of
 * the saved spec and the call, so the unit tests read it word by word; the
 * exec is the only part that changes the process, and does so in the
 * order the kernel needs: limits first (RLIMIT_NPROC counts the user the
 * process will become), then the user, then exec. */
#define _GNU_SOURCE     /* setresuid, setresgid, execvpe */
#include "grade/grade_sandbox.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/jsonfile.h"
#include "sys/util.h"

/* tmpfs sizes inside the sandbox: /tmp, /dev/shm, and each hidden folder. */
#define TMP_SIZE (512ull << 20)
#define SHM_SIZE (64ull << 20)
#define HIDDEN_SIZE (1ull << 20)

static void free_list(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void grade_sandbox_free(struct grade_sandbox *sb)
{
    free(sb->bwrap);
    free_list(sb->devices, sb->ndevices);
    for (int i = 0; i < sb->nhide; i++)
        free(sb->hide[i].path);
    free(sb->hide);
    free_list(sb->rebind, sb->nrebind);
    for (int i = 0; i < sb->nview; i++) {
        free(sb->view[i].path);
        free(sb->view[i].link);
    }
    free(sb->view);
    free_list(sb->env, sb->nenv);
    free(sb->locks);
    free(sb->cache);
    memset(sb, 0, sizeof *sb);
}

/* ---- the spec as JSON --------------------------------------------------- */

static cJSON *string_array(char *const *v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

/* The spec's members of sandbox.json (jsonfile_put). */
static int put_spec(const void *obj, cJSON *o)
{
    const struct grade_sandbox *sb = obj;
    cJSON *hide;
    cJSON_AddStringToObject(o, "mode", sb->mode);
    if (sb->bwrap)
        cJSON_AddStringToObject(o, "bwrap", sb->bwrap);
    else
        cJSON_AddNullToObject(o, "bwrap");
    cJSON_AddBoolToObject(o, "sized", sb->sized);
    cJSON_AddItemToObject(o, "devices", string_array(sb->devices, sb->ndevices));
    if ((hide = cJSON_AddArrayToObject(o, "hide")))
        for (int i = 0; i < sb->nhide; i++) {
            cJSON *h = cJSON_CreateObject();
            cJSON_AddStringToObject(h, "path", sb->hide[i].path);
            cJSON_AddBoolToObject(h, "dir", sb->hide[i].dir);
            cJSON_AddItemToArray(hide, h);
        }
    cJSON_AddItemToObject(o, "rebind", string_array(sb->rebind, sb->nrebind));
    cJSON *view = cJSON_AddArrayToObject(o, "build_view");
    for (int i = 0; view && i < sb->nview; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "path", sb->view[i].path);
        if (sb->view[i].link)
            cJSON_AddStringToObject(e, "link", sb->view[i].link);
        else
            cJSON_AddNullToObject(e, "link");
        cJSON_AddItemToArray(view, e);
    }
    cJSON_AddItemToObject(o, "env", string_array(sb->env, sb->nenv));
    if (sb->locks)
        cJSON_AddStringToObject(o, "gpu_locks", sb->locks);
    else
        cJSON_AddNullToObject(o, "gpu_locks");
    if (sb->cache)
        cJSON_AddStringToObject(o, "compile_cache", sb->cache);
    else
        cJSON_AddNullToObject(o, "compile_cache");
    cJSON_AddNumberToObject(o, "max_procs", sb->max_procs);
    cJSON_AddNumberToObject(o, "uid", sb->uid);
    return 0;
}

char *grade_sandbox_format(const struct grade_sandbox *sb)
{
    return jsonfile_format(GRADE_SANDBOX_SCHEMA, put_spec, sb);
}

/* An array of strings into *v; -1 when it is not one. */
static int parse_strings(const cJSON *a, char ***v, int *n)
{
    const cJSON *e;
    *v = NULL;
    *n = 0;
    if (!cJSON_IsArray(a))
        return -1;
    if (!(*v = calloc((size_t)cJSON_GetArraySize(a) + 1, sizeof **v)))
        return -1;
    cJSON_ArrayForEach(e, a) {
        if (!cJSON_IsString(e) || !((*v)[*n] = strdup(e->valuestring)))
            return -1;
        (*n)++;
    }
    return 0;
}

int grade_sandbox_parse(struct grade_sandbox *sb, const char *text, char *err, size_t errlen)
{
    cJSON *o = cJSON_Parse(text);
    const cJSON *v, *h;
    int rc = -1;

    memset(sb, 0, sizeof *sb);
    if (!cJSON_IsObject(o)) {
        snprintf(err, errlen, "not a sandbox description (JSON)");
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "schema");
    if (!cJSON_IsNumber(v) || v->valueint != GRADE_SANDBOX_SCHEMA) {
        snprintf(err, errlen, "not schema %d", GRADE_SANDBOX_SCHEMA);
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "mode");
    if (!cJSON_IsString(v) || (strcmp(v->valuestring, "none") && strcmp(v->valuestring, "bwrap") &&
                               strcmp(v->valuestring, "bwrap-nobody"))) {
        snprintf(err, errlen, "mode is none, bwrap or bwrap-nobody");
        goto out;
    }
    util_copy(sb->mode, sizeof sb->mode, v->valuestring);
    v = cJSON_GetObjectItemCaseSensitive(o, "bwrap");
    if (cJSON_IsString(v) && !(sb->bwrap = strdup(v->valuestring)))
        goto oom;
    if (!sb->bwrap && strcmp(sb->mode, "none")) {
        snprintf(err, errlen, "mode %s without bwrap's path", sb->mode);
        goto out;
    }
    sb->sized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "sized"));
    if (parse_strings(cJSON_GetObjectItemCaseSensitive(o, "devices"), &sb->devices, &sb->ndevices) ||
        parse_strings(cJSON_GetObjectItemCaseSensitive(o, "rebind"), &sb->rebind, &sb->nrebind) ||
        parse_strings(cJSON_GetObjectItemCaseSensitive(o, "env"), &sb->env, &sb->nenv)) {
        snprintf(err, errlen, "devices, rebind and env are lists of strings");
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "hide");
    if (!cJSON_IsArray(v) || !(sb->hide = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof *sb->hide))) {
        snprintf(err, errlen, "hide is a list");
        goto out;
    }
    cJSON_ArrayForEach(h, v) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(h, "path");
        if (!cJSON_IsString(p) || p->valuestring[0] != '/') {
            snprintf(err, errlen, "a hidden path is not absolute");
            goto out;
        }
        if (!(sb->hide[sb->nhide].path = strdup(p->valuestring)))
            goto oom;
        sb->hide[sb->nhide++].dir = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h, "dir"));
    }
    /* A build with bubblewrap sees the view and nothing else of the
     * system: without one it would see nothing a compiler needs. */
    v = cJSON_GetObjectItemCaseSensitive(o, "build_view");
    const cJSON *view = cJSON_IsArray(v) ? v : NULL;
    if (view && !(sb->view = calloc((size_t)cJSON_GetArraySize(view) + 1, sizeof *sb->view)))
        goto oom;
    cJSON_ArrayForEach(h, view) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(h, "path"), *l = cJSON_GetObjectItemCaseSensitive(h, "link");
        if (!cJSON_IsString(p) || p->valuestring[0] != '/' || !(cJSON_IsString(l) || cJSON_IsNull(l))) {
            snprintf(err, errlen, "build_view holds absolute paths, each with a link or null");
            goto out;
        }
        struct grade_view *e = &sb->view[sb->nview++];
        if (!(e->path = strdup(p->valuestring)) || (cJSON_IsString(l) && !(e->link = strdup(l->valuestring))))
            goto oom;
    }
    if (sb->bwrap && !sb->nview) {
        snprintf(err, errlen, "mode %s without a build_view", sb->mode);
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "gpu_locks");
    if (cJSON_IsString(v) && !(sb->locks = strdup(v->valuestring)))
        goto oom;
    v = cJSON_GetObjectItemCaseSensitive(o, "compile_cache");
    if (cJSON_IsString(v) && (v->valuestring[0] != '/' || !(sb->cache = strdup(v->valuestring)))) {
        snprintf(err, errlen, "compile_cache is an absolute path");
        goto out;
    }
    v = cJSON_GetObjectItemCaseSensitive(o, "max_procs");
    sb->max_procs = cJSON_IsNumber(v) && v->valueint > 0 ? v->valueint : 1024;
    v = cJSON_GetObjectItemCaseSensitive(o, "uid");
    sb->uid = cJSON_IsNumber(v) ? v->valueint : -1;
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    if (rc)
        grade_sandbox_free(sb);
    cJSON_Delete(o);
    return rc;
}

/* ---- what is hidden ----------------------------------------------------- */

/* The places every program needs: never hidden. */
static int is_system(const char *p)
{
    static const char *const exact[] = {"/", "/usr", "/bin", "/lib", "/lib64", "/etc", "/proc", "/sys", "/dev",
                                        "/tmp", NULL};
    for (int i = 0; exact[i]; i++)
        if (!strcmp(p, exact[i]))
            return 1;
    return !strncmp(p, "/usr/", 5) || !strncmp(p, "/dev/", 5);
}

static int by_length(const void *a, const void *b)
{
    const struct grade_hidden *x = a, *y = b;
    size_t lx = strlen(x->path), ly = strlen(y->path);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->path, y->path);
}

int grade_sandbox_hidden(const char *const *cand, int ncand, struct grade_hidden **out)
{
    struct grade_hidden *h = calloc((size_t)ncand + 1, sizeof *h);
    int n = 0;
    if (!h)
        return -1;
    for (int i = 0; i < ncand; i++) {
        char real[PATH_MAX];
        struct stat st;
        int dup = 0;
        if (!cand[i] || !cand[i][0] || !realpath(cand[i], real) || stat(real, &st) || is_system(real))
            continue;
        for (int j = 0; j < n && !dup; j++)
            dup = !strcmp(h[j].path, real);
        if (dup)
            continue;
        if (!(h[n].path = strdup(real))) {
            for (int j = 0; j < n; j++)
                free(h[j].path);
            free(h);
            return -1;
        }
        h[n++].dir = S_ISDIR(st.st_mode);
    }
    qsort(h, (size_t)n, sizeof *h, by_length);
    *out = h;
    return n;
}

char *grade_sandbox_hide_of_submission(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *parent = slash && slash != path ? strndup(path, (size_t)(slash - path)) : strdup("/");
    if (parent && is_system(parent)) {
        free(parent);
        return strdup(path);
    }
    return parent;
}

char *grade_sandbox_blocked(const char *path, int uid, unsigned *mode)
{
    char *p = strdup(path);
    for (char *slash = p && p[0] == '/' ? p + 1 : NULL; slash;) {
        char *next = strchr(slash, '/');
        if (next)
            *next = '\0';
        struct stat st;
        if (stat(p[0] ? p : "/", &st) == 0 && S_ISDIR(st.st_mode)) {
            mode_t x = st.st_uid == (uid_t)uid ? S_IXUSR : st.st_gid == (gid_t)uid ? S_IXGRP : S_IXOTH;
            if (!(st.st_mode & x)) {
                if (mode)
                    *mode = (unsigned)(st.st_mode & 07777);
                return p;
            }
        }
        if (!next)
            break;
        *next = '/';
        slash = next + 1;
    }
    free(p);
    return NULL;
}

/* Whether path is dir or lies in it. */
static int is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

int grade_sandbox_under_hidden(const struct grade_sandbox *sb, const char *path)
{
    for (int i = 0; i < sb->nhide; i++)
        if (is_under(path, sb->hide[i].path))
            return 1;
    return 0;
}

/* ---- a build's view of the system ---------------------------------------- */

/* Whether path lies in a place of the view (a link there points into the
 * view's own folders: /bin -> usr/bin). */
static int in_view(const struct grade_sandbox *sb, const char *path)
{
    for (int i = 0; i < sb->nview; i++)
        if (is_under(path, sb->view[i].path))
            return 1;
    return 0;
}

static int view_add(struct grade_sandbox *sb, const char *path, const char *link)
{
    struct grade_view *v = realloc(sb->view, (size_t)(sb->nview + 1) * sizeof *v);
    if (!v)
        return -1;
    sb->view = v;
    v[sb->nview].path = strdup(path);
    v[sb->nview].link = link ? strdup(link) : NULL;
    if (!v[sb->nview].path || (link && !v[sb->nview].link)) {
        free(v[sb->nview].path);
        free(v[sb->nview].link);
        return -1;
    }
    sb->nview++;
    return 0;
}

int grade_sandbox_build_view(struct grade_sandbox *sb, const char *const *places, int n)
{
    /* The system's programs and libraries, as they are laid out here. */
    static const char *const system[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", NULL};
    /* What the dynamic linker and the distribution's compiler choice read. */
    static const char *const etc[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                      "/etc/alternatives", NULL};
    for (int i = 0; system[i]; i++) {
        struct stat st;
        char target[PATH_MAX];
        if (lstat(system[i], &st))
            continue;
        if (S_ISLNK(st.st_mode)) {
            ssize_t len = readlink(system[i], target, sizeof target - 1);
            if (len <= 0)
                continue;
            target[len] = '\0';
            if (view_add(sb, system[i], target))
                return -1;
        } else if (S_ISDIR(st.st_mode) && view_add(sb, system[i], NULL)) {
            return -1;
        }
    }
    for (int i = 0; etc[i]; i++)
        if (access(etc[i], F_OK) == 0 && view_add(sb, etc[i], NULL))
            return -1;
    for (int i = 0; i < n; i++) {
        char real[PATH_MAX];
        if (!places[i] || places[i][0] != '/' || !realpath(places[i], real))
            continue;
        if (!in_view(sb, real) && view_add(sb, real, NULL))
            return -1;
        if (strcmp(real, places[i]) && !in_view(sb, places[i]) && view_add(sb, places[i], NULL))
            return -1;
    }
    return 0;
}

/* ---- the argv ----------------------------------------------------------- */

struct words {
    char **v;
    int n;
    size_t cap;
    int failed;
};

static void add(struct words *w, const char *s)
{
    if (w->failed)
        return;
    char **v = util_grow(w->v, &w->cap, (size_t)w->n + 2, sizeof *v);
    if (!v) {
        w->failed = 1;
        return;
    }
    w->v = v;
    if (!(w->v[w->n] = strdup(s))) {
        w->failed = 1;
        return;
    }
    w->v[++w->n] = NULL;
}

static void add_size(struct words *w, const struct grade_sandbox *sb, unsigned long long bytes)
{
    char n[32];
    if (!sb->sized)
        return;
    snprintf(n, sizeof n, "%llu", bytes);
    add(w, "--size");
    add(w, n);
}

static void add3(struct words *w, const char *a, const char *b, const char *c)
{
    add(w, a);
    add(w, b);
    add(w, c);
}

static char **finish(struct words *w)
{
    if (w->failed || !w->v) {
        grade_sandbox_argv_free(w->v);
        return NULL;
    }
    return w->v;
}

char **grade_sandbox_argv(const struct grade_sandbox *sb, const struct grade_sandbox_call *c)
{
    struct words w = {0};
    if (!sb->bwrap) {
        for (int i = 0; c->cmd[i]; i++)
            add(&w, c->cmd[i]);
        return finish(&w);
    }
    /* A run sees the system read-only; a build its view, in which the
     * compiler finds what it needs and no file of the host's users. */
    int view = c->build_wb && sb->nview;
    add(&w, sb->bwrap);
    if (!view)
        add3(&w, "--ro-bind", "/", "/");
    for (int i = 0; view && i < sb->nview; i++) {
        if (sb->view[i].link)
            add3(&w, "--symlink", sb->view[i].link, sb->view[i].path);
        else
            add3(&w, "--ro-bind", sb->view[i].path, sb->view[i].path);
    }
    add(&w, "--dev");
    add(&w, "/dev");
    for (int i = 0; i < sb->ndevices; i++)
        add3(&w, "--dev-bind", sb->devices[i], sb->devices[i]);
    add(&w, "--proc");
    add(&w, "/proc");
    add_size(&w, sb, TMP_SIZE);
    add(&w, "--tmpfs");
    add(&w, "/tmp");
    add_size(&w, sb, SHM_SIZE);
    add(&w, "--tmpfs");
    add(&w, "/dev/shm");
    for (int i = 0; i < sb->nhide; i++) {
        if (view && !in_view(sb, sb->hide[i].path))
            continue;   /* not in the view at all */
        if (sb->hide[i].dir) {
            add_size(&w, sb, HIDDEN_SIZE);
            add(&w, "--tmpfs");
            add(&w, sb->hide[i].path);
        } else {
            add3(&w, "--ro-bind", "/dev/null", sb->hide[i].path);
        }
    }
    for (int i = 0; i < sb->nrebind; i++)
        add3(&w, "--ro-bind", sb->rebind[i], sb->rebind[i]);
    /* The caller's places, over the hidden ones they may lie in. */
    if (c->build_wb)
        add3(&w, "--ro-bind", c->build_wb, c->build_wb);
    add3(&w, "--bind", c->cwd, c->cwd);
    for (int i = 0; !c->build_wb && c->binds && c->binds[i]; i++)
        add3(&w, "--bind", c->binds[i], c->binds[i]);
    /* nvcc's shared results: a build adds to them (nvcc runs there, no
     * student code); a run may neither read nor change them. */
    if (sb->cache && c->build_wb) {
        add3(&w, "--bind", sb->cache, sb->cache);
    } else if (sb->cache) {
        add_size(&w, sb, HIDDEN_SIZE);
        add(&w, "--tmpfs");
        add(&w, sb->cache);
    }
    for (int i = 0; !c->build_wb && c->locks && c->locks[i]; i++)
        add3(&w, "--bind", c->locks[i], c->locks[i]);
    /* Then the hidden folders go read-only: nothing can be added to them. */
    for (int i = 0; i < sb->nhide; i++)
        if (sb->hide[i].dir && (!view || in_view(sb, sb->hide[i].path))) {
            add(&w, "--remount-ro");
            add(&w, sb->hide[i].path);
        }
    /* The view's own folders (the parents bubblewrap made) stay as made. */
    if (view) {
        add(&w, "--remount-ro");
        add(&w, "/");
    }
    if (sb->cache && !c->build_wb) {
        add(&w, "--remount-ro");
        add(&w, sb->cache);
    }
    static const char *const unshare[] = {"--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                                          "--unshare-cgroup-try", "--hostname", "grader", "--die-with-parent",
                                          "--new-session", "--clearenv", NULL};
    for (int i = 0; unshare[i]; i++)
        add(&w, unshare[i]);
    for (int i = 0; i < sb->nenv; i++) {
        const char *eq = strchr(sb->env[i], '=');
        char name[128];
        if (!eq || (size_t)(eq - sb->env[i]) >= sizeof name)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)(eq - sb->env[i]), sb->env[i]);
        add3(&w, "--setenv", name, eq + 1);
    }
    if (c->visible)
        add3(&w, "--setenv", "CUDA_VISIBLE_DEVICES", c->visible);
    if (c->progress)
        add3(&w, "--setenv", "CUDATUTOR_PROGRESS", c->progress);
    if (c->build_wb && sb->cache)
        add3(&w, "--setenv", "CUDATUTOR_COMPILE_CACHE", sb->cache);
    add(&w, "--chdir");
    add(&w, c->cwd);
    add(&w, "--");
    for (int i = 0; c->cmd[i]; i++)
        add(&w, c->cmd[i]);
    return finish(&w);
}

void grade_sandbox_argv_free(char **argv)
{
    for (int i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

char **grade_sandbox_envp(const struct grade_sandbox *sb, const struct grade_sandbox_call *c)
{
    struct words w = {0};
    for (int i = 0; i < sb->nenv; i++)
        add(&w, sb->env[i]);
    if (c->visible) {
        char *v = util_format("CUDA_VISIBLE_DEVICES=%s", c->visible);
        v ? add(&w, v) : (void)(w.failed = 1);
        free(v);
    }
    if (c->progress) {
        char *v = util_format("CUDATUTOR_PROGRESS=%s", c->progress);
        v ? add(&w, v) : (void)(w.failed = 1);
        free(v);
    }
    if (c->build_wb && sb->cache) {
        char *v = util_format("CUDATUTOR_COMPILE_CACHE=%s", sb->cache);
        v ? add(&w, v) : (void)(w.failed = 1);
        free(v);
    }
    if (!w.v && !w.failed)
        return calloc(1, sizeof(char *));
    return finish(&w);
}

/* ---- running one program in it ------------------------------------------ */

int grade_sandbox_count_procs(int uid)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        struct stat st;
        char path[300];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s", e->d_name);
        if (stat(path, &st) || (int)st.st_uid != uid)
            continue;
        /* Threads count against RLIMIT_NPROC as processes do. */
        snprintf(path, sizeof path, "/proc/%s/task", e->d_name);
        DIR *t = opendir(path);
        struct dirent *te;
        int threads = 0;
        while (t && (te = readdir(t)))
            threads += te->d_name[0] >= '0' && te->d_name[0] <= '9';
        if (t)
            closedir(t);
        n += threads ? threads : 1;
    }
    closedir(d);
    return n;
}

/* The GPU lock files a run binds in: every *.lock of the folder. */
static char **lock_files(const char *dir)
{
    struct words w = {0};
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 5 && !strcmp(e->d_name + n - 5, ".lock")) {
            char *p = util_format("%s/%s", dir, e->d_name);
            if (p && util_is_file(p))
                add(&w, p);
            free(p);
        }
    }
    if (d)
        closedir(d);
    if (!w.v && !w.failed)
        return calloc(1, sizeof(char *));
    return finish(&w);
}

static int set_limit(int resource, rlim_t value)
{
    struct rlimit rl = {value, value};
    return setrlimit(resource, &rl);
}

int grade_sandbox_exec(const char *spec, const char *build_wb, char *const *binds, char *const *cmd, char *err,
                       size_t errlen)
{
    struct grade_sandbox sb;
    char why[256], cwd[PATH_MAX];
    char *text = util_read_file(spec, NULL), **locks = NULL, **argv = NULL, **envp = NULL;
    int rc = -1;

    if (!text) {
        snprintf(err, errlen, "cannot read %s: %s", spec, strerror(errno));
        return -1;
    }
    if (grade_sandbox_parse(&sb, text, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", spec, why);
        free(text);
        return -1;
    }
    free(text);
    if (!getcwd(cwd, sizeof cwd)) {
        snprintf(err, errlen, "getcwd: %s", strerror(errno));
        goto out;
    }
    locks = build_wb ? NULL : lock_files(sb.locks);
    struct grade_sandbox_call c = {.cwd = cwd, .build_wb = build_wb, .binds = binds, .locks = locks,
                                   .visible = getenv("CUDA_VISIBLE_DEVICES"),
                                   .progress = getenv("CUDATUTOR_PROGRESS"), .cmd = cmd};
    if ((!build_wb && !locks) || !(argv = grade_sandbox_argv(&sb, &c)) ||
        (!sb.bwrap && !(envp = grade_sandbox_envp(&sb, &c)))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* Limits first: RLIMIT_NPROC is checked against the user the process
     * becomes, so it is counted for that user. */
    int uid = sb.uid >= 0 ? sb.uid : (int)getuid();
    if (set_limit(RLIMIT_CORE, 0) ||
        set_limit(RLIMIT_FSIZE, build_wb ? GRADE_SANDBOX_BUILD_FSIZE : GRADE_SANDBOX_RUN_FSIZE) ||
        set_limit(RLIMIT_NPROC, (rlim_t)grade_sandbox_count_procs(uid) + (rlim_t)sb.max_procs)) {
        snprintf(err, errlen, "setrlimit: %s", strerror(errno));
        goto out;
    }
    if (sb.uid >= 0 && (int)getuid() != sb.uid) {
        gid_t g = (gid_t)sb.uid;
        pid_t parent = getppid();
        if (setgroups(0, NULL) || setresgid(g, g, g) || setresuid((uid_t)sb.uid, (uid_t)sb.uid, (uid_t)sb.uid)) {
            snprintf(err, errlen, "cannot become uid %d: %s", sb.uid, strerror(errno));
            goto out;
        }
        /* A change of user clears the signal that proc.c asked for when
         * our parent dies: ask again, and go now if it is gone already. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) {
            snprintf(err, errlen, "the program that started the sandbox has ended");
            goto out;
        }
    }
    if (envp)
        execvpe(argv[0], argv, envp);
    else
        execv(argv[0], argv);
    snprintf(err, errlen, "cannot run %s: %s", argv[0], strerror(errno));
out:
    grade_sandbox_argv_free(argv);
    grade_sandbox_argv_free(envp);
    grade_sandbox_argv_free(locks);
    grade_sandbox_free(&sb);
    return rc;
}
