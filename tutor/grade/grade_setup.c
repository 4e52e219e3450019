/* grade_setup.c — the run's set-up stages and its end (see grade_run.h):
 * the workbook, the output folder and its lock, the catalog, the rubric,
 * the submissions of this shard; run.json, the class reports and freeing
 * the run.  grade.c, --merge and --selftest each put them in their order;
 * they call no stage back. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "grade/grade_report.h"
#include "grade/grade_run.h"
#include "sys/toolchain.h"
#include "sys/util.h"

/* ---- the workbook ------------------------------------------------------- */

/* A workbook's folder: dir when it holds data/labs.json (heap), else NULL. */
static char *workbook_at(const char *dir)
{
    char real[PATH_MAX];
    char *cat = util_format("%s/data/labs.json", dir);
    int is = cat && util_is_file(cat) && realpath(dir, real);
    free(cat);
    return is ? strdup(real) : NULL;
}

/* The folder of path (a program), as a new string. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash == path ? strdup("/") : slash ? strndup(path, (size_t)(slash - path)) : NULL;
}

/* The workbook the program was started from (./grade.sh runs the
 * cudatutor beside it: argv[0] names that folder, links unresolved, so a
 * link to grade.sh grades with the workbook it sits in), else the one the
 * binary is in, else the one around the current folder. */
static char *default_workbook(const char *prog, const char *self)
{
    char *dir, *root = NULL, err[256];
    const char *from[] = {prog && strchr(prog, '/') ? prog : NULL, self};
    for (int i = 0; i < 2; i++) {
        if (!from[i] || !(dir = folder_of(from[i])))
            continue;
        root = workbook_at(dir);
        free(dir);
        if (root)
            return root;
    }
    if (toolchain_find_root(NULL, &root, err, sizeof err))
        return NULL;
    return root;
}

int grade_setup_workbook(struct grade *g)
{
    char real[PATH_MAX];
    const char *want;
    char *guess = NULL;
    int rc = EXIT_USAGE;

    if (!realpath("/proc/self/exe", real) || !(g->self = strdup(real)))
        return grade_internal("cannot tell where this program is (/proc/self/exe)");
    want = g->o->workbook ? g->o->workbook : (guess = default_workbook(g->prog, g->self));
    if (!want) {
        grade_usage("no workbook here: give --workbook DIR");
        goto out;
    }
    if (!realpath(want, real) || !util_is_dir(real)) {
        grade_usage("no workbook at %s", want);
        goto out;
    }
    g->pristine = strdup(real);
    char *cat = util_format("%s/data/labs.json", real);
    int is = cat && util_is_file(cat);
    free(cat);
    if (!is) {
        grade_usage("%s is not a workbook (no data/labs.json)", real);
        goto out;
    }
    const char *hx = getenv("CUDATUTOR_HARNESS_DIR");
    char *hdir = hx && *hx ? strdup(hx) : util_format("%s/build/harness", g->pristine);
    if (!hdir || !realpath(hdir, real) || !util_is_dir(real)) {
        rc = grade_internal("no harness objects at %s: run make in %s", hdir ? hdir : "?", g->pristine);
        free(hdir);
        goto out;
    }
    free(hdir);
    g->harness_dir = strdup(real);
    char *judge = util_format("%s/judge_reduce_int", g->harness_dir);
    is = judge && util_is_executable(judge);
    free(judge);
    if (!is) {
        rc = grade_internal("%s has no judges (judge_reduce_int): run make in %s", g->harness_dir, g->pristine);
        goto out;
    }
    /* Every check of every copy of the workbook runs the judges from here,
     * inside the sandbox and out. */
    setenv("CUDATUTOR_HARNESS_DIR", g->harness_dir, 1);
    char *rubric = g->o->rubric ? strdup(g->o->rubric) : util_format("%s/data/rubric.json", g->pristine);
    if (!rubric || !realpath(rubric, real) || !util_is_file(real)) {
        grade_usage("no rubric at %s", rubric ? rubric : "?");
        free(rubric);
        goto out;
    }
    free(rubric);
    g->rubric_path = strdup(real);
    rc = 0;
out:
    free(guess);
    return rc;
}

/* ---- the output folder ---------------------------------------------------- */

int grade_setup_out(struct grade *g, const char *out)
{
    char real[PATH_MAX];
    if (util_mkdirs(out) || !realpath(out, real))
        return grade_usage("cannot create %s", out);
    g->out = strdup(real);
    size_t n = strlen(g->out);
    if (!strcmp(g->out, "/"))
        return grade_usage("--out / is not an output folder");
    if (!strncmp(g->pristine, g->out, n) && (g->pristine[n] == '/' || !g->pristine[n]))
        return grade_usage("--out %s contains the workbook: pick a folder of its own", g->out);
    g->state = util_format("%s/.grader", g->out);
    g->students = util_format("%s/students", g->out);
    if (!g->state || !g->students || util_mkdirs(g->state) || util_mkdirs(g->students))
        return grade_usage("cannot create %s", g->out);
    /* One grading per output folder: the lock lives as long as this
     * process, and no child inherits it (a surviving child must not keep
     * the folder locked). */
    char *lock = util_format("%s/lock", g->state);
    g->lock_fd = lock ? open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0644) : -1;
    free(lock);
    if (g->lock_fd < 0 || flock(g->lock_fd, LOCK_EX | LOCK_NB))
        return grade_usage("%s is in use by another grade.sh (or give each shard its own --out)", g->out);
    char *events = util_format("%s/events", g->state);
    g->events_fd = events ? open(events, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644) : -1;
    free(events);
    return 0;
}

/* ---- the sandbox's folder ------------------------------------------------ */

/* Copies file src to dst with the given mode. */
static int copy_one(const char *src, const char *dst, mode_t mode)
{
    return util_copy_file(src, dst) || chmod(dst, mode) ? -1 : 0;
}

/* Copies the regular files of folder src (not its dot files) into the new
 * folder dst, readable and, where they were, runnable by everyone. */
static int copy_files(const char *src, const char *dst)
{
    DIR *d = opendir(src);
    struct dirent *e;
    int rc = d && mkdir(dst, 0755) == 0 ? 0 : -1;
    while (!rc && (e = readdir(d))) {
        struct stat st;
        char *a = util_format("%s/%s", src, e->d_name), *b = util_format("%s/%s", dst, e->d_name);
        if (!a || !b)
            rc = -1;
        else if (e->d_name[0] != '.' && stat(a, &st) == 0 && S_ISREG(st.st_mode))
            rc = copy_one(a, b, st.st_mode & S_IXUSR ? 0755 : 0644);
        free(a);
        free(b);
    }
    if (d)
        closedir(d);
    return rc;
}

/* Where the sandbox's folder is made: $TMPDIR when the sandbox's user can
 * pass through it, else /tmp. */
static const char *scratch_parent(void)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/' || !util_is_dir(tmp))
        return "/tmp";
    char *blocked = geteuid() == 0 ? grade_sandbox_blocked(tmp, GRADE_SANDBOX_NOBODY, NULL) : NULL;
    free(blocked);
    return blocked ? "/tmp" : tmp;
}

int grade_setup_scratch(struct grade *g)
{
    const char *parent = scratch_parent();
    char *tmpl = util_format("%s/cudatutor-grade.XXXXXX", parent);
    if (!tmpl || !mkdtemp(tmpl)) {
        free(tmpl);
        return grade_internal("cannot create a folder in %s: %s", parent, strerror(errno));
    }
    g->scratch = tmpl;
    /* Passable, not readable: nobody reaches the folders it is handed
     * (each student's is its own, 0700) and lists none. */
    if (chmod(g->scratch, 0711) || !(g->work = util_format("%s/work", g->scratch)) || mkdir(g->work, 0711))
        return grade_internal("cannot prepare %s: %s", g->scratch, strerror(errno));
    if (geteuid() != 0)
        return 0;
    /* As root the sandbox runs as nobody, who binds every program it runs:
     * a workbook in a private folder (root's home) is run from copies. */
    char *self_blocked = grade_sandbox_blocked(g->self, GRADE_SANDBOX_NOBODY, NULL);
    char *hx_blocked = grade_sandbox_blocked(g->harness_dir, GRADE_SANDBOX_NOBODY, NULL);
    int copy = self_blocked || hx_blocked;
    char *tools = copy ? util_format("%s/tools", g->scratch) : NULL;
    char *self = tools ? util_format("%s/cudatutor", tools) : NULL;
    char *hx = tools ? util_format("%s/harness", tools) : NULL;
    int rc = 0;
    if (copy) {
        if (!self || !hx || mkdir(tools, 0755) || copy_one(g->self, self, 0755) || copy_files(g->harness_dir, hx)) {
            rc = grade_internal("cannot copy this program and the harness into %s: %s", tools, strerror(errno));
        } else {
            grade_say(g, "nobody, the user student code runs as, cannot pass through %s: the sandbox runs "
                         "copies of this program and the judges from %s", self_blocked ? self_blocked : hx_blocked,
                      tools);
            free(g->self);
            free(g->harness_dir);
            g->self = self;
            g->harness_dir = hx;
            self = hx = NULL;
            setenv("CUDATUTOR_HARNESS_DIR", g->harness_dir, 1);
        }
    }
    free(self_blocked);
    free(hx_blocked);
    free(tools);
    free(self);
    free(hx);
    return rc;
}

/* ---- the catalog and the rubric -------------------------------------------- */

int grade_load_catalog(struct grade *g, int all_labs)
{
    char err[512];
    char *path = util_format("%s/data/labs.json", g->pristine);
    int bad = !path || catalog_load(&g->cat, path, "data/labs.json", err, sizeof err);
    free(path);
    if (bad)
        return grade_internal("the catalog cannot be read: %s", err);
    g->have_cat = 1;
    if (!(g->labs = calloc((size_t)g->cat.nlabs + 1, sizeof *g->labs)))
        return grade_internal("out of memory");
    if (all_labs || !g->o->labs) {
        /* The bonus labs are graded only when --labs names them: a class
         * that was set the core labs is not marked down for the rest. */
        for (int i = 0; i < g->cat.nlabs; i++)
            if (all_labs || !g->cat.labs[i].bonus)
                g->labs[g->nlabs++] = &g->cat.labs[i];
        return 0;
    }
    char ids[64][8];
    int n = grade_opts_lab_list(g->o->labs, ids, 64);
    for (int i = 0; i < n; i++) {
        const struct lab *lab = NULL;
        for (int j = 0; j < g->cat.nlabs && !lab; j++)
            if (!strcmp(g->cat.labs[j].id, ids[i]))
                lab = &g->cat.labs[j];
        int dup = 0;
        for (int j = 0; j < g->nlabs && lab; j++)
            dup |= g->labs[j] == lab;
        if (!lab) {
            char have[256] = "";
            for (int j = 0; j < g->cat.nlabs; j++)
                snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", j ? " " : "", g->cat.labs[j].id);
            return grade_usage("--labs: no lab %s (the catalog has %s)", ids[i], have);
        }
        if (!dup)
            g->labs[g->nlabs++] = lab;
    }
    if (n < 0 || !g->nlabs)
        return grade_usage("--labs: no lab in \"%s\"", g->o->labs);
    return 0;
}

int grade_load_rubric(struct grade *g)
{
    char err[512];
    const char *ids[64];
    if (rubric_load(&g->rubric, g->rubric_path, err, sizeof err))
        return grade_usage("%s", err);
    g->have_rubric = 1;
    for (int i = 0; i < g->nlabs && i < 64; i++)
        ids[i] = g->labs[i]->id;
    if (rubric_check_labs(&g->rubric, g->rubric_path, ids, g->nlabs < 64 ? g->nlabs : 64, err, sizeof err))
        return grade_usage("%s", err);
    return 0;
}

/* ---- the submissions ------------------------------------------------------ */

char *grade_absolute(const char *p)
{
    char cwd[PATH_MAX], *joined, *out;
    if (p[0] == '/')
        joined = strdup(p);
    else
        joined = getcwd(cwd, sizeof cwd) ? util_format("%s/%s", cwd, p) : NULL;
    if (!joined || !(out = malloc(strlen(joined) + 2))) {
        free(joined);
        return NULL;
    }
    size_t n = 0;
    for (char *save = NULL, *part = strtok_r(joined, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (!strcmp(part, "."))
            continue;
        if (!strcmp(part, "..")) {
            while (n > 0 && out[--n] != '/')
                ;
            continue;
        }
        out[n++] = '/';
        memcpy(out + n, part, strlen(part));
        n += strlen(part);
    }
    if (!n)
        out[n++] = '/';
    out[n] = '\0';
    free(joined);
    return out;
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const struct grade_sub *)a)->id, ((const struct grade_sub *)b)->id);
}

int grade_collect(struct grade *g, char *const *paths, int npaths)
{
    struct roster roster = {0};
    struct grade_sub *all = calloc((size_t)npaths + 1, sizeof *all);
    char err[512];
    int rc = EXIT_USAGE, n = 0;

    if (!all)
        return grade_internal("out of memory");
    if (g->o->roster && roster_load(&roster, g->o->roster, err, sizeof err)) {
        grade_usage("%s", err);
        goto out;
    }
    for (int i = 0; i < npaths; i++) {
        const char *p = paths[i];
        struct stat st;
        if (lstat(p, &st)) {
            grade_usage("no such submission: %s", p);
            goto out;
        }
        if (strpbrk(p, "\t\n")) {
            grade_usage("a submission path with a tab or newline: %s", p);
            goto out;
        }
        char *trimmed = strdup(p);
        if (!trimmed)
            goto oom;
        for (size_t len = strlen(trimmed); len > 1 && trimmed[len - 1] == '/'; len--)
            trimmed[len - 1] = '\0';
        const char *slash = strrchr(trimmed, '/');
        all[n].name = strdup(slash ? slash + 1 : trimmed);
        all[n].path = grade_absolute(p);
        free(trimmed);
        if (!all[n].name || !all[n].path)
            goto oom;
        int found = roster_student_id(g->o->roster ? &roster : NULL, all[n].name, all[n].id, sizeof all[n].id);
        if (g->o->roster && found == 0)
            grade_warn(g, "%s is not in the roster: graded as %s", all[n].name, all[n].id);
        n++;
    }
    qsort(all, (size_t)n, sizeof *all, by_id);
    char dups[512] = "";
    int ndups = 0;
    for (int i = 1; i < n; i++)
        if (!strcmp(all[i].id, all[i - 1].id) && (i < 2 || strcmp(all[i].id, all[i - 2].id)) && ndups < 5) {
            snprintf(dups + strlen(dups), sizeof dups - strlen(dups), "%s ", all[i].id);
            ndups++;
        }
    if (ndups) {
        grade_usage("two submissions have the same student id: %s(rename them or fix the roster)", dups);
        goto out;
    }
    if (!(g->subs = calloc((size_t)n + 1, sizeof *g->subs)))
        goto oom;
    for (int k = 0; k < n; k++)
        if (grade_opts_in_shard(g->o, k)) {
            g->subs[g->nsubs++] = all[k];
            all[k].name = all[k].path = NULL;
        }
    rc = 0;
    goto out;
oom:
    rc = grade_internal("out of memory");
out:
    for (int i = 0; i < npaths; i++) {
        free(all[i].name);
        free(all[i].path);
    }
    free(all);
    roster_free(&roster);
    return rc;
}

/* ---- run.json and the class reports ----------------------------------------- */

int grade_write_run_json(struct grade *g)
{
    cJSON *o = cJSON_CreateObject(), *a;
    char when[32], gpus[512] = "", shard[32] = "";
    if (!o)
        return -1;
    grade_utc(when, sizeof when, g->t0);
    for (int i = 0; i < g->ngpus; i++)
        snprintf(gpus + strlen(gpus), sizeof gpus - strlen(gpus), "%s%s", i ? " " : "", g->gpus[i]);
    if (g->o->shard_n > 1)
        snprintf(shard, sizeof shard, "%d/%d", g->o->shard_i, g->o->shard_n);
    cJSON_AddNumberToObject(o, "schema", 1);
    cJSON_AddStringToObject(o, "sandbox", g->mode);
    if ((a = cJSON_AddArrayToObject(o, "sandbox_checks"))) {
        char *facts = strdup(g->sandbox_facts ? g->sandbox_facts : "");
        for (char *save = NULL, *w = facts ? strtok_r(facts, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save))
            cJSON_AddItemToArray(a, cJSON_CreateString(w));
        free(facts);
    }
    cJSON_AddStringToObject(o, "sandbox_notes", g->sandbox_notes ? g->sandbox_notes : "");
    cJSON_AddStringToObject(o, "rubric", g->rubric_path);
    cJSON_AddStringToObject(o, "rubric_sha256", g->rubric.sha256);
    cJSON_AddStringToObject(o, "workbook", g->pristine);
    /* The work folders, where --keep-work keeps them; null: removed. */
    if (g->o->keep_work && g->work)
        cJSON_AddStringToObject(o, "work", g->work);
    else
        cJSON_AddNullToObject(o, "work");
    cJSON_AddStringToObject(o, "started", when);
    cJSON_AddNumberToObject(o, "seconds", (double)(time(NULL) - g->t0));
    cJSON_AddStringToObject(o, "shard", shard);
    cJSON_AddStringToObject(o, "gpus", gpus);
    cJSON_AddNumberToObject(o, "check_runs", g->check_runs);
    if ((a = cJSON_AddArrayToObject(o, "labs")))
        for (int i = 0; i < g->nlabs; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(g->labs[i]->id));
    cJSON_AddBoolToObject(o, "quick", g->o->quick);
    cJSON_AddBoolToObject(o, "sanitize", g->o->sanitize);
    cJSON_AddNumberToObject(o, "timeout_scale", g->o->timeout_scale);
    cJSON_AddBoolToObject(o, "calibrate", g->o->calibrate);
    if (g->o->have_seed)
        cJSON_AddNumberToObject(o, "fixed_seed", (double)g->o->seed);
    else
        cJSON_AddNullToObject(o, "fixed_seed");
    /* Other programs seen on a grading GPU (grade_gpus.c): [] when none. */
    cJSON_AddItemToObject(o, "gpu_others", g->gpu_others ? cJSON_Duplicate(g->gpu_others, 1) : cJSON_CreateArray());
    if ((a = cJSON_AddArrayToObject(o, "graded_now")))
        for (int i = 0; i < g->ngraded; i++)
            cJSON_AddItemToArray(a, cJSON_CreateString(g->graded_now[i]));
    char *text = cJSON_Print(o), *path = util_format("%s/run.json", g->out);
    int rc = text && path ? util_write_file(path, text, strlen(text)) : -1;
    free(text);
    free(path);
    cJSON_Delete(o);
    if (rc)
        grade_error(g, "cannot write %s/run.json", g->out);
    return rc;
}

int grade_finish_reports(struct grade *g)
{
    char err[512];
    int n = 0, code = 0;
    if (grade_report_class(g->out, &n, &code, err, sizeof err)) {
        grade_error(g, "%s", err);
        code = EXIT_INTERNAL;
    } else if (!g->o->quiet && n > 0) {
        char *path = util_format("%s/summary.txt", g->out);
        char *text = path ? util_read_file(path, NULL) : NULL;
        if (text)
            fputs(text, stdout);
        printf("reports: %s (grades.csv, junit.xml, students/ID/{report.json,results.json,junit.xml})\n", g->out);
        fflush(stdout);
        free(text);
        free(path);
    }
    if (g->errors) {
        fputs(g->errors, stderr);
        code = EXIT_INTERNAL;
    }
    return code;
}

void grade_free(struct grade *g)
{
    free(g->self);
    free(g->pristine);
    free(g->harness_dir);
    free(g->rubric_path);
    if (g->have_cat)
        catalog_free(&g->cat);
    if (g->have_rubric)
        rubric_free(&g->rubric);
    free(g->labs);
    if (g->scratch && g->o->keep_work)
        grade_say(g, "the work folders are kept in %s", g->work);
    else if (g->scratch)
        util_remove_tree(g->scratch);
    free(g->scratch);
    free(g->out);
    free(g->state);
    free(g->work);
    free(g->students);
    if (g->events_fd >= 0)
        close(g->events_fd);
    for (int i = 0; i < g->nsubs; i++) {
        free(g->subs[i].name);
        free(g->subs[i].path);
    }
    free(g->subs);
    for (int i = 0; i < g->ngpus; i++)
        free(g->gpus[i]);
    free(g->gpus);
    free(g->spec);
    free(g->sandbox_notes);
    free(g->sandbox_facts);
    free(g->target_min);
    cJSON_Delete(g->gpu_others);
    for (int i = 0; i < g->ngraded; i++)
        free(g->graded_now[i]);
    free(g->graded_now);
    free(g->errors);
    /* The lock goes last: the folder is ours until everything is written. */
    if (g->lock_fd >= 0)
        close(g->lock_fd);
}
