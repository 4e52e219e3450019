/* grade_calibrate.c — the targets on the grading GPUs.  The catalog's
 * thresholds were set on one GPU at 80% of what the reference solutions
 * measured there, and a ratio to CUB does not carry over to every GPU.  So
 * the solutions run on each grading GPU first, timed like a student's
 * kernel (outside the sandbox: the instructor's own code), and the
 * tutor's rule (calibrate_judge_cases, check/calibrate.h: one rule in one place)
 * lowers a lab's threshold where its solution measures more than 5% under
 * its catalog figure.  OUT/calibration.json keeps one entry per grading
 * GPU (by its index, "any" for an unnamed one): reused while the GPU model
 * and the catalog's targets of every lab graded now are the same, so a
 * resumed grading judges like its first part; --force measures again. */
#include "grade/grade_run.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/calibrate.h"
#include "check/check.h"
#include "model/result.h"
#include "sys/csv.h"
#include "sys/util.h"

#define CAL_TIMEOUT_S 600

/* The key of GPU i in calibration.json. */
static const char *gpu_key(const struct grade *g, int i)
{
    return g->gpus[i][0] ? g->gpus[i] : "any";
}

/* A number in jsonw_number's form (calibration lines quote the file's figures). */
static const char *num(char *buf, size_t len, double x)
{
    if (csv_format_number(buf, len, x))
        snprintf(buf, len, "%g", x);
    return buf;
}

/* ---- the file ------------------------------------------------------------ */

/* calibration.json, or a fresh one; NULL when out of memory. */
static cJSON *load_file(const char *path)
{
    char *text = util_read_file(path, NULL);
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!cJSON_IsObject(o) || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "gpus"))) {
        cJSON_Delete(o);
        o = cJSON_CreateObject();
        if (o) {
            cJSON_AddNumberToObject(o, "schema", 1);
            cJSON_AddObjectToObject(o, "gpus");
        }
    }
    return o;
}

static double get_num(const cJSON *o, const char *key, double none)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : none;
}

/* A target's further cases as the entry keeps them (catalog_also), to
 * tell when they changed; NULL for a target of one case. */
static cJSON *catalog_also(const struct lab *lab)
{
    cJSON *a = lab->target.nalso ? cJSON_CreateArray() : NULL;
    for (int k = 0; a && k < lab->target.nalso; k++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "case", lab->target.also[k].case_label);
        cJSON_AddNumberToObject(c, "min", lab->target.also[k].min);
        cJSON_AddNumberToObject(c, "solution", lab->target.also[k].solution);
        cJSON_AddItemToArray(a, c);
    }
    return a;
}

/* Whether GPU key's entry holds model name with every lab graded now,
 * measured against the catalog's present targets. */
static int entry_current(const struct grade *g, const cJSON *file, const char *key, const char *name)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(file, "gpus"), key);
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(e, "labs");
    if (!cJSON_IsString(n) || strcmp(n->valuestring, name) || !cJSON_IsObject(labs))
        return 0;
    for (int i = 0; i < g->nlabs; i++) {
        const struct lab *lab = g->labs[i];
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(labs, lab->id);
        if (!l || get_num(l, "catalog_min", -1) != lab->target.min ||
            get_num(l, "catalog_solution", 0) != (lab->target.solution > 0 ? lab->target.solution : 0))
            return 0;
        cJSON *also = catalog_also(lab);
        int same = cJSON_Compare(also, cJSON_GetObjectItemCaseSensitive(l, "catalog_also"), 1) ||
                   (!also && !cJSON_GetObjectItemCaseSensitive(l, "catalog_also"));
        cJSON_Delete(also);
        if (!same)
            return 0;
    }
    return 1;
}

/* ---- measuring ------------------------------------------------------------ */

struct cal {
    struct grade *g;
    char *dir;                          /* STATE/calibration */
    char *progress;                     /* CUDATUTOR_PROGRESS=... */
    const struct lab **labs;            /* the labs with a solution */
    int nlabs;
    pthread_mutex_t mu;
    int next;
};

static char *solution_of(const struct grade *g, const struct lab *lab)
{
    return util_format("%s/%s/kernel.cu", g->pristine, lab->solution_dir);
}

/* One solution's build, STATE/calibration/build/LAB-0. */
static void build_solution(struct cal *c, const struct lab *lab)
{
    struct grade *g = c->g;
    char *wd = util_format("%s/build/%s-0", c->dir, lab->id), *sol = solution_of(g, lab);
    char *out = wd ? util_format("%s/build-report.json", wd) : NULL, *log = wd ? util_format("%s/build.log", wd) : NULL;
    char seed[32];
    if (wd && sol && out && log && !util_mkdirs(wd)) {
        snprintf(seed, sizeof seed, "%llu", check_new_seed());
        char *env[] = {c->progress, NULL};
        char *argv[] = {g->self, "--root", g->pristine, "check", lab->id, "--file", sol, "--build-only",
                        "--work-dir", wd, "--seed", seed, "--json", "--out", out, NULL};
        grade_spawn(g, argv, wd, env, CAL_TIMEOUT_S, 0, log);
    }
    free(wd);
    free(sol);
    free(out);
    free(log);
}

/* One solution's run from its build on GPU gi, timed like a student's:
 * its report lands in runs-KEY/LAB-0.json. */
static void run_solution(struct cal *c, const struct lab *lab, int gi)
{
    struct grade *g = c->g;
    const char *key = gpu_key(g, gi);
    char *gdir = util_format("%s/gpu-%s", c->dir, key), *from = util_format("%s/build/%s-0", c->dir, lab->id);
    char *wd = gdir ? util_format("%s/%s-0", gdir, lab->id) : NULL;
    char *runs = util_format("%s/runs-%s", c->dir, key), *out = runs ? util_format("%s/%s-0.json", runs, lab->id) : NULL;
    char *log = wd ? util_format("%s/run.log", wd) : NULL, *sol = solution_of(g, lab), *lock = grade_gpu_lock(g, gi);
    char *visible = g->gpus[gi][0] ? util_format("CUDA_VISIBLE_DEVICES=%s", g->gpus[gi]) : NULL;
    char budget[16];
    if (!gdir || !from || !wd || !runs || !out || !log || !sol || !lock)
        goto out;
    util_remove_tree(wd);
    if (util_mkdirs(runs) || util_mkdirs(gdir) || grade_work_copy_tree(from, wd))
        goto out;
    snprintf(budget, sizeof budget, "%d", g->o->time_budget_ms);
    char *env[] = {c->progress, visible, NULL};
    char *argv[] = {g->self, "--root", g->pristine, "check", lab->id, "--file", sol, "--run-only", "--work-dir", wd,
                    "--no-sanitize", "--quick", "--time-budget", budget, "--gpu-lock", lock, "--json", "--out", out,
                    NULL};
    grade_spawn(g, argv, wd, env, CAL_TIMEOUT_S, 0, log);
out:
    if (out && !util_is_file(out)) {
        char *text = util_format("{\"lab\": \"%s\", \"status\": \"%s\"}\n", lab->id,
                                 status_name(STATUS_INTERNAL_ERROR));
        if (text)
            util_write_file(out, text, strlen(text));
        free(text);
    }
    free(gdir);
    free(from);
    free(wd);
    free(runs);
    free(out);
    free(log);
    free(sol);
    free(lock);
    free(visible);
}

struct cal_thread {
    struct cal *c;
    int gpu;                            /* -1: builds */
    pthread_t t;
};

/* Takes the next lab from the shared queue until none is left. */
static void *cal_worker(void *arg)
{
    struct cal_thread *w = arg;
    struct cal *c = w->c;
    int k;
    while ((k = grade_pool_take(c->g, &c->mu, &c->next, c->nlabs)) >= 0) {
        if (w->gpu < 0)
            build_solution(c, c->labs[k]);
        else
            run_solution(c, c->labs[k], w->gpu);
    }
    return NULL;
}

/* Runs every lab of c through cal_worker, width threads at once, for one
 * GPU (or the builds, gpu -1). */
static void cal_parallel(struct cal *c, int gpu, int width)
{
    struct cal_thread *w = calloc((size_t)width, sizeof *w);
    if (!w)
        return;
    c->next = 0;
    for (int i = 0; i < width; i++) {
        w[i] = (struct cal_thread){.c = c, .gpu = gpu};
        if (pthread_create(&w[i].t, NULL, cal_worker, &w[i]))
            w[i].c = NULL;
    }
    for (int i = 0; i < width; i++)
        if (w[i].c)
            pthread_join(w[i].t, NULL);
    free(w);
}

struct gpu_arg {
    struct cal c;                       /* a copy per GPU: its own queue */
    int gpu;
    pthread_t t;
};

static void *gpu_thread(void *arg)
{
    struct gpu_arg *a = arg;
    cal_parallel(&a->c, a->gpu, a->c.g->check_runs);
    return NULL;
}

/* The entry of GPU gi from its runs, as JSON (calibrate_gpu_json). */
static cJSON *record(struct cal *c, int gi, const char *name)
{
    struct grade *g = c->g;
    struct calibrate_gpu e = {0};
    cJSON *o = NULL;
    if (!(e.labs = calloc((size_t)c->nlabs + 1, sizeof *e.labs)))
        return NULL;
    util_copy(e.name, sizeof e.name, name);
    calibrate_catalog_hash(&g->cat, e.catalog, sizeof e.catalog);
    grade_utc(e.measured, sizeof e.measured, time(NULL));
    for (int i = 0; i < c->nlabs; i++) {
        const struct lab *lab = c->labs[i];
        char *path = util_format("%s/runs-%s/%s-0.json", c->dir, gpu_key(g, gi), lab->id);
        struct result rep;
        char err[160];
        int read = path && result_read_file(path, &rep, err, sizeof err) == 0;
        enum status st = read ? rep.status : STATUS_INTERNAL_ERROR;
        int passed = st == STATUS_PASS && rep.have_target && rep.target_have_value;
        /* Every case of the target: the tutor's rule scales by the one
         * where the solution falls furthest short (target.also[k].value). */
        double lowest[1 + TARGET_MAX_ALSO];
        lowest[0] = passed ? rep.target_value : -1;
        for (int k = 0; k < lab->target.nalso && k < TARGET_MAX_ALSO; k++)
            lowest[1 + k] = passed && k < rep.ntarget_also && rep.target_also[k].value >= 0
                                ? rep.target_also[k].value : -1;
        calibrate_judge_cases(&e.labs[e.nlabs++], lab, 1, passed, lowest, status_name(st));
        if (read)
            result_free(&rep);
        free(path);
    }
    e.nruns = c->nlabs;
    o = calibrate_gpu_json(&e);
    for (int i = 0; o && i < c->nlabs; i++) {
        cJSON *also = catalog_also(c->labs[i]);
        if (also)
            cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "labs"),
                                                                   c->labs[i]->id), "catalog_also", also);
    }
    calibrate_gpu_free(&e);
    return o;
}

/* ---- using it -------------------------------------------------------------- */

/* g->target_min for GPU gi from its entry, and the lines that say what
 * the calibration changed. */
static void apply(struct grade *g, const cJSON *file, int gi)
{
    const char *key = gpu_key(g, gi);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(file, "gpus"), key);
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(e, "labs"), *l, *n = cJSON_GetObjectItemCaseSensitive(e, "name");
    char low[1024] = "", odd[1024] = "", a[32], b[32], c[32], d[32];
    int any_odd = 0;

    cJSON_ArrayForEach(l, labs) {
        const cJSON *why = cJSON_GetObjectItemCaseSensitive(l, "why");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "lowered"))) {
            const cJSON *bound = cJSON_GetObjectItemCaseSensitive(l, "bound_by");
            for (int i = 0; i < g->nlabs; i++)
                if (!strcmp(g->labs[i]->id, l->string))
                    g->target_min[gi * g->nlabs + i] = get_num(l, "min", 0);
            /* Lowered by a further case of the target: that case's figures,
             * every case lowered alike (check.c). */
            if (cJSON_IsObject(bound))
                snprintf(low + strlen(low), sizeof low - strlen(low),
                         "%s%s %s -> %s, every case alike (its solution at %s: %s here, %s in the catalog)",
                         low[0] ? ", " : "", l->string, num(a, sizeof a, get_num(l, "catalog_min", 0)),
                         num(b, sizeof b, get_num(l, "min", 0)),
                         cJSON_IsString(cJSON_GetObjectItemCaseSensitive(bound, "case"))
                             ? cJSON_GetObjectItemCaseSensitive(bound, "case")->valuestring : "?",
                         num(c, sizeof c, round(get_num(bound, "solution_here", 0) * 1000) / 1000),
                         num(d, sizeof d, get_num(bound, "catalog_solution", 0)));
            else
                snprintf(low + strlen(low), sizeof low - strlen(low),
                         "%s%s %s -> %s (its solution: %s here, %s in the catalog)", low[0] ? ", " : "", l->string,
                         num(a, sizeof a, get_num(l, "catalog_min", 0)), num(b, sizeof b, get_num(l, "min", 0)),
                         num(c, sizeof c, round(get_num(l, "solution_here", 0) * 1000) / 1000),
                         num(d, sizeof d, get_num(l, "catalog_solution", 0)));
        }
        if (cJSON_IsString(why) && why->valuestring[0]) {
            snprintf(odd + strlen(odd), sizeof odd - strlen(odd), "\nlab %s: %s; its catalog target stands",
                     l->string, why->valuestring);
            any_odd = 1;
        }
    }
    grade_say(g, "targets on GPU %s (%s): %s%s%s", key, cJSON_IsString(n) ? n->valuestring : "",
              low[0] ? "lowered for " : "as in the catalog", low[0] ? low : "",
              low[0] || any_odd ? "" : " (every solution within 5% of its figure)");
    for (char *save = NULL, *line = strtok_r(odd, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        grade_say(g, "%s", line);
}

int grade_calibrate(struct grade *g)
{
    char name0[128];
    char *path = NULL;
    cJSON *file = NULL;
    struct cal c = {.g = g};
    char **names = NULL;
    int *todo = NULL, ntodo = 0, rc = EXIT_INTERNAL;

    if (!(g->target_min = calloc((size_t)g->ngpus * (size_t)g->nlabs + 1, sizeof *g->target_min)))
        return EXIT_INTERNAL;
    if (!g->o->calibrate || calibrate_gpu_name_of(g->gpus[0], name0, sizeof name0))
        return 0;
    path = util_format("%s/calibration.json", g->out);
    names = calloc((size_t)g->ngpus, sizeof *names);
    todo = calloc((size_t)g->ngpus, sizeof *todo);
    if (!path || !names || !todo || !(file = load_file(path)))
        goto out;
    for (int i = 0; i < g->ngpus; i++) {
        char name[128];
        calibrate_gpu_name_of(g->gpus[i], name, sizeof name);
        names[i] = strdup(name);
        if (g->o->force || !entry_current(g, file, gpu_key(g, i), name))
            todo[ntodo++] = i;
    }
    if (ntodo) {
        char list[256] = "";
        for (int i = 0; i < ntodo; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? " " : "", g->gpus[todo[i]]);
        grade_say(g, "calibrating the targets: the reference solutions on GPU %s", list);
        c.dir = util_format("%s/calibration", g->state);
        c.progress = c.dir ? util_format("CUDATUTOR_PROGRESS=%s/progress.json", c.dir) : NULL;
        c.labs = calloc((size_t)g->nlabs + 1, sizeof *c.labs);
        if (!c.dir || !c.progress || !c.labs)
            goto out;
        util_remove_tree(c.dir);
        util_mkdirs(c.dir);
        for (int i = 0; i < g->nlabs; i++) {
            char *sol = solution_of(g, g->labs[i]);
            if (sol && util_is_file(sol))
                c.labs[c.nlabs++] = g->labs[i];
            free(sol);
        }
        pthread_mutex_init(&c.mu, NULL);
        cal_parallel(&c, -1, g->jobs);
        /* Every GPU at once, --check-runs runs each, through its lock. */
        struct gpu_arg *ga = calloc((size_t)ntodo, sizeof *ga);
        for (int i = 0; ga && i < ntodo; i++) {
            ga[i].c = c;
            ga[i].gpu = todo[i];
            pthread_mutex_init(&ga[i].c.mu, NULL);
            if (pthread_create(&ga[i].t, NULL, gpu_thread, &ga[i]))
                ga[i].gpu = -1;
        }
        for (int i = 0; ga && i < ntodo; i++)
            if (ga[i].gpu >= 0)
                pthread_join(ga[i].t, NULL);
        free(ga);
        if (atomic_load(&g->interrupted)) {
            rc = EXIT_INTERRUPTED;
            goto out;
        }
        cJSON *gpus = cJSON_GetObjectItemCaseSensitive(file, "gpus");
        for (int i = 0; i < ntodo; i++) {
            cJSON *entry = record(&c, todo[i], names[todo[i]] ? names[todo[i]] : "");
            if (!entry) {
                fprintf(stderr, "cudatutor grade: the calibration's reports cannot be read\n");
                goto out;
            }
            cJSON_DeleteItemFromObjectCaseSensitive(gpus, gpu_key(g, todo[i]));
            cJSON_AddItemToObject(gpus, gpu_key(g, todo[i]), entry);
        }
        char *text = cJSON_Print(file);
        int bad = !text || util_write_file(path, text, strlen(text));
        free(text);
        if (bad) {
            fprintf(stderr, "cudatutor grade: cannot write %s: %s\n", path, strerror(errno));
            goto out;
        }
    }
    for (int i = 0; i < g->ngpus; i++)
        apply(g, file, i);
    rc = 0;
out:
    for (int i = 0; names && i < g->ngpus; i++)
        free(names[i]);
    free(names);
    free(todo);
    free(c.dir);
    free(c.progress);
    free(c.labs);
    cJSON_Delete(file);
    free(path);
    return rc;
}
