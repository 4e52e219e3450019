/* calibrate.c — see calibrate.h.  The rule is one pure function, so that
 * the unit tests pin it to grade.sh's figures; the file follows
 * progress.c's order (lock, re-read, change, write a temporary, rename,
 * sync the folder); and a solution is measured by the very check a
 * student's kernel gets, so that the two figures compare like with like. */
#include "check/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "sys/proc.h"
#include "model/progress.h"
#include "sys/util.h"

/* Every calibration run's seed: the same figures for the same GPU. */
#define CALIBRATE_SEED 0x5eed00ull
/* What one run is expected to take before any was timed here: a compile
 * and a --quick run of a solution on an H100. */
#define CALIBRATE_RUN_S 3.0
#define NVIDIA_SMI_TIMEOUT_S 20

/* ---- the rule ----------------------------------------------------------- */

/* Down to 3 significant digits, as grade.sh's sig3 (CALIBRATE_JQ): the same
 * operations in the same order, so that both land on the same double. */
static double sig3_down(double x)
{
    if (x <= 0)
        return x;
    double u = pow(10, floor(log10(x)) - 2);
    return u < 1 ? floor(x / u) / round(1 / u) : floor(x / u) * u;
}

double calibrate_threshold(double catalog_min, double catalog_solution, double solution_here, int *lowered)
{
    int low = catalog_solution > 0 && solution_here >= 0 && solution_here < CALIBRATE_SLACK * catalog_solution;
    if (lowered)
        *lowered = low;
    return low ? sig3_down(catalog_min * solution_here / catalog_solution) : catalog_min;
}

void calibrate_judge(struct calibrate_lab *l, const struct lab *lab, int runs, int passed, double lowest,
                     const char *statuses)
{
    double all[1 + TARGET_MAX_ALSO] = {lowest, -1, -1, -1};
    calibrate_judge_cases(l, lab, runs, passed, all, statuses);
}

void calibrate_judge_cases(struct calibrate_lab *l, const struct lab *lab, int runs, int passed,
                           const double *lowest_of, const char *statuses)
{
    double lowest = lowest_of[0];
    memset(l, 0, sizeof *l);
    util_copy(l->id, sizeof l->id, lab->id);
    util_copy(l->metric, sizeof l->metric, metric_name(lab->target.metric));
    util_copy(l->case_label, sizeof l->case_label, lab->target.case_label);
    l->catalog_min = lab->target.min;
    l->catalog_solution = lab->target.solution;
    l->runs = runs;
    l->passed = passed;
    l->solution_here = runs > 0 && passed == runs ? lowest : -1;
    l->min = lab->target.min;
    if (lab->target.solution <= 0)
        util_copy(l->why, sizeof l->why, "the catalog records no figure for its solution");
    else if (runs == 0)
        util_copy(l->why, sizeof l->why, "its reference solution is not in the workbook");
    else if (passed < runs || lowest < 0)
        snprintf(l->why, sizeof l->why, "its solution did not pass here (%s)", statuses);
    else {
        /* The case furthest short, as a share of its own figure; the
         * first case unless another is strictly further. */
        int b = -1;
        double share = lowest / l->catalog_solution;
        for (int k = 0; k < lab->target.nalso; k++) {
            const struct target_case *c = &lab->target.also[k];
            if (c->solution > 0 && lowest_of[1 + k] >= 0 && lowest_of[1 + k] / c->solution < share) {
                share = lowest_of[1 + k] / c->solution;
                b = k;
            }
        }
        if (b < 0) {
            l->min = calibrate_threshold(l->catalog_min, l->catalog_solution, lowest, &l->lowered);
        } else {
            util_copy(l->bound_case, sizeof l->bound_case, lab->target.also[b].case_label);
            l->bound_here = lowest_of[1 + b];
            l->bound_solution = lab->target.also[b].solution;
            l->min = calibrate_threshold(l->catalog_min, l->bound_solution, l->bound_here, &l->lowered);
        }
    }
}

void calibrate_catalog_hash(const struct catalog *cat, char *buf, size_t len)
{
    unsigned long long h = 0xcbf29ce484222325ull;
    for (int i = 0; i < cat->nlabs; i++) {
        const struct lab *l = &cat->labs[i];
        char line[256];
        snprintf(line, sizeof line, "%s|%s|%s|%.17g|%.17g\n", l->id, metric_name(l->target.metric),
                 l->target.case_label, l->target.min, l->target.solution);
        /* Further cases only where there are some: a catalog without any
         * keeps the hash its calibrations were cached under. */
        for (int k = 0; k < l->target.nalso; k++) {
            size_t used = strlen(line) - 1;
            snprintf(line + used, sizeof line - used, "|%s|%.17g|%.17g\n", l->target.also[k].case_label,
                     l->target.also[k].min, l->target.also[k].solution);
        }
        for (const char *c = line; *c; c++)
            h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    }
    snprintf(buf, len, "%016llx", h);
}

/* ---- memory ------------------------------------------------------------- */

char *calibrate_path(const char *root, const char *progress_flag)
{
    char *p = progress_path(root, progress_flag), *out;
    if (!p)
        return NULL;
    char *slash = strrchr(p, '/');
    out = slash ? util_format("%.*s/calibration.json", (int)(slash - p), p) : strdup("calibration.json");
    free(p);
    return out;
}

void calibrate_gpu_free(struct calibrate_gpu *g)
{
    free(g->labs);
    memset(g, 0, sizeof *g);
}

void calibrate_free(struct calibration *c)
{
    for (int i = 0; i < c->ngpus; i++)
        calibrate_gpu_free(&c->gpus[i]);
    free(c->gpus);
    memset(c, 0, sizeof *c);
}

int calibrate_gpu_copy(struct calibrate_gpu *dst, const struct calibrate_gpu *src)
{
    *dst = *src;
    dst->labs = NULL;
    if (src->nlabs && !(dst->labs = malloc((size_t)src->nlabs * sizeof *dst->labs))) {
        memset(dst, 0, sizeof *dst);
        return -1;
    }
    if (src->nlabs)
        memcpy(dst->labs, src->labs, (size_t)src->nlabs * sizeof *dst->labs);
    return 0;
}

const struct calibrate_gpu *calibrate_find(const struct calibration *c, const char *name, const char *hash)
{
    for (int i = 0; i < c->ngpus; i++)
        if (!strcmp(c->gpus[i].name, name) && !strcmp(c->gpus[i].catalog, hash))
            return &c->gpus[i];
    return NULL;
}

const struct calibrate_lab *calibrate_lab(const struct calibrate_gpu *g, const char *id)
{
    for (int i = 0; g && i < g->nlabs; i++)
        if (!strcmp(g->labs[i].id, id))
            return &g->labs[i];
    return NULL;
}

/* ---- JSON --------------------------------------------------------------- */

/* A string member, or "" when absent: an older file may lack a key. */
static void get_str(const cJSON *o, const char *key, char *dst, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    util_copy(dst, len, cJSON_IsString(v) ? v->valuestring : "");
}

/* A number member, or dflt when absent or null. */
static double get_num(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* A number, or null for "none" (below zero, or zero where zero means none). */
static void put_num(cJSON *o, const char *key, double v, double none_below)
{
    if (v < none_below)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

/* One lab's record; NULL when out of memory. */
static cJSON *lab_json(const struct calibrate_lab *l)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "metric", l->metric);
    cJSON_AddStringToObject(o, "case", l->case_label);
    cJSON_AddNumberToObject(o, "catalog_min", l->catalog_min);
    put_num(o, "catalog_solution", l->catalog_solution, 1e-300);
    cJSON_AddNumberToObject(o, "runs", l->runs);
    cJSON_AddNumberToObject(o, "passed", l->passed);
    put_num(o, "solution_here", l->solution_here, 0);
    cJSON_AddNumberToObject(o, "min", l->min);
    cJSON_AddBoolToObject(o, "lowered", l->lowered);
    if (l->why[0])
        cJSON_AddStringToObject(o, "why", l->why);
    if (l->bound_case[0]) {
        cJSON *b = cJSON_AddObjectToObject(o, "bound_by");
        cJSON_AddStringToObject(b, "case", l->bound_case);
        cJSON_AddNumberToObject(b, "solution_here", l->bound_here);
        cJSON_AddNumberToObject(b, "catalog_solution", l->bound_solution);
    }
    return o;
}

cJSON *calibrate_gpu_json(const struct calibrate_gpu *g)
{
    cJSON *o = cJSON_CreateObject(), *labs;
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "name", g->name);
    cJSON_AddStringToObject(o, "catalog", g->catalog);
    cJSON_AddStringToObject(o, "measured", g->measured);
    cJSON_AddNumberToObject(o, "seconds", g->seconds);
    cJSON_AddNumberToObject(o, "runs", g->nruns);
    if (!(labs = cJSON_AddObjectToObject(o, "labs"))) {
        cJSON_Delete(o);
        return NULL;
    }
    for (int i = 0; i < g->nlabs; i++)
        cJSON_AddItemToObject(labs, g->labs[i].id, lab_json(&g->labs[i]));
    return o;
}

char *calibrate_format(const struct calibration *c)
{
    cJSON *root = cJSON_CreateObject(), *gpus;
    char *text = NULL;
    if (!root)
        return NULL;
    cJSON_AddNumberToObject(root, "schema", CALIBRATE_SCHEMA);
    if (!(gpus = cJSON_AddObjectToObject(root, "gpus")))
        goto out;
    for (int i = 0; i < c->ngpus; i++) {
        cJSON *g = calibrate_gpu_json(&c->gpus[i]);
        if (!g)
            goto out;
        /* The key names the model; the entry need not say it twice. */
        cJSON_DeleteItemFromObjectCaseSensitive(g, "name");
        cJSON_AddItemToObject(gpus, c->gpus[i].name, g);
    }
    text = cJSON_Print(root);
out:
    cJSON_Delete(root);
    return text;
}

/* One lab's record, keyed by its id; -1 when it lacks the thresholds a
 * check would be judged by. */
static int parse_lab(struct calibrate_lab *l, const cJSON *o)
{
    if (!cJSON_IsObject(o) || strlen(o->string) >= sizeof l->id || !o->string[0] ||
        !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "min")) ||
        !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "catalog_min")))
        return -1;
    memset(l, 0, sizeof *l);
    util_copy(l->id, sizeof l->id, o->string);
    get_str(o, "metric", l->metric, sizeof l->metric);
    get_str(o, "case", l->case_label, sizeof l->case_label);
    l->catalog_min = get_num(o, "catalog_min", 0);
    l->catalog_solution = get_num(o, "catalog_solution", 0);
    l->runs = (int)get_num(o, "runs", 0);
    l->passed = (int)get_num(o, "passed", 0);
    l->solution_here = get_num(o, "solution_here", -1);
    l->min = get_num(o, "min", 0);
    l->lowered = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "lowered"));
    get_str(o, "why", l->why, sizeof l->why);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "bound_by");
    if (cJSON_IsObject(b)) {
        get_str(b, "case", l->bound_case, sizeof l->bound_case);
        l->bound_here = get_num(b, "solution_here", -1);
        l->bound_solution = get_num(b, "catalog_solution", 0);
    }
    return 0;
}

/* One GPU model's entry, keyed by its name; -1 with err when it is not one. */
static int parse_gpu(struct calibrate_gpu *g, const cJSON *o, char *err, size_t errlen)
{
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(o, "labs"), *v;
    memset(g, 0, sizeof *g);
    if (!cJSON_IsObject(o) || !cJSON_IsObject(labs) || !o->string[0] || strlen(o->string) >= sizeof g->name) {
        snprintf(err, errlen, "gpus.\"%s\" is not a GPU's entry", o->string);
        return -1;
    }
    util_copy(g->name, sizeof g->name, o->string);
    get_str(o, "catalog", g->catalog, sizeof g->catalog);
    get_str(o, "measured", g->measured, sizeof g->measured);
    g->seconds = get_num(o, "seconds", 0);
    g->nruns = (int)get_num(o, "runs", 0);
    int n = cJSON_GetArraySize(labs);
    if (n && !(g->labs = calloc((size_t)n, sizeof *g->labs))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    cJSON_ArrayForEach(v, labs) {
        if (parse_lab(&g->labs[g->nlabs], v)) {
            snprintf(err, errlen, "gpus.\"%s\".labs.\"%s\" is not a lab's entry", g->name, v->string);
            calibrate_gpu_free(g);
            return -1;
        }
        g->nlabs++;
    }
    return 0;
}

int calibrate_parse(struct calibration *c, const char *text, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(text);
    const cJSON *schema, *gpus, *v;
    int rc = CALIBRATE_ERROR;

    memset(c, 0, sizeof *c);
    if (!root || !cJSON_IsObject(root)) {
        snprintf(err, errlen, "%s", root ? "not a JSON object" : "not valid JSON (truncated?)");
        goto out;
    }
    schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    if (!cJSON_IsNumber(schema) || schema->valueint < 1) {
        snprintf(err, errlen, "no schema number");
        goto out;
    }
    if (schema->valueint > CALIBRATE_SCHEMA) {
        snprintf(err, errlen, "written by a newer cudatutor (schema %d; this one reads schema %d)",
                 schema->valueint, CALIBRATE_SCHEMA);
        rc = CALIBRATE_NEWER;
        goto out;
    }
    gpus = cJSON_GetObjectItemCaseSensitive(root, "gpus");
    if (!cJSON_IsObject(gpus)) {
        snprintf(err, errlen, "\"gpus\" is missing or not an object");
        goto out;
    }
    int n = cJSON_GetArraySize(gpus);
    if (n && !(c->gpus = calloc((size_t)n, sizeof *c->gpus))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    cJSON_ArrayForEach(v, gpus) {
        if (parse_gpu(&c->gpus[c->ngpus], v, err, errlen))
            goto out;
        c->ngpus++;
    }
    rc = CALIBRATE_OK;
out:
    if (rc != CALIBRATE_OK)
        calibrate_free(c);
    cJSON_Delete(root);
    return rc;
}

/* ---- the file ----------------------------------------------------------- */

/* The lock on path.lock, held for one read-change-write only. */
static int lock_take(const char *path)
{
    char *lp = util_format("%s.lock", path);
    int fd = lp ? util_lock(lp) : -1;
    free(lp);
    return fd;
}

/* Reads path into c with the lock held (or, when locked is 0, without being
 * allowed to move a corrupt file). */
static int read_locked(const char *path, int locked, struct calibration *c, char *note, size_t notelen,
                       char *err, size_t errlen)
{
    char why[200], aside[1024];
    char *text = util_read_file(path, NULL);
    int rc;

    memset(c, 0, sizeof *c);
    if (!text) {
        if (errno == ENOENT)
            return CALIBRATE_OK;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return CALIBRATE_ERROR;
    }
    rc = calibrate_parse(c, text, why, sizeof why);
    free(text);
    if (rc == CALIBRATE_NEWER) {
        snprintf(err, errlen, "%s was %s; left it untouched", path, why);
        return rc;
    }
    if (rc == CALIBRATE_OK)
        return rc;
    if (!locked) {
        snprintf(err, errlen, "%s is not a valid calibration (%s)", path, why);
        return rc;
    }
    if (util_move_aside(path, aside, sizeof aside) != 0) {
        snprintf(err, errlen, "%s is not a valid calibration (%s) and could not be moved aside: %s", path, why,
                 strerror(errno));
        return CALIBRATE_ERROR;
    }
    snprintf(note, notelen, "%s was not a valid calibration (%s); kept it as %s", path, why, aside);
    return CALIBRATE_OK;
}

int calibrate_load(const char *path, struct calibration *c, char *note, size_t notelen, char *err, size_t errlen)
{
    int fd = lock_take(path), rc;
    if (notelen)
        note[0] = '\0';
    /* A folder we cannot write to still has a calibration to use. */
    rc = read_locked(path, fd >= 0, c, note, notelen, err, errlen);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Puts a copy of g in c, in place of the entry of its model. */
static int put_gpu(struct calibration *c, const struct calibrate_gpu *g)
{
    int i = 0;
    while (i < c->ngpus && strcmp(c->gpus[i].name, g->name))
        i++;
    if (i == c->ngpus) {
        struct calibrate_gpu *n = realloc(c->gpus, (size_t)(c->ngpus + 1) * sizeof *n);
        if (!n)
            return -1;
        c->gpus = n;
        memset(&c->gpus[c->ngpus++], 0, sizeof *n);
    }
    calibrate_gpu_free(&c->gpus[i]);
    return calibrate_gpu_copy(&c->gpus[i], g);
}

int calibrate_store(const char *path, const struct calibrate_gpu *g, char *note, size_t notelen, char *err,
                    size_t errlen)
{
    struct calibration c;
    char *text = NULL;
    int fd, rc;

    if (notelen)
        note[0] = '\0';
    if ((fd = lock_take(path)) < 0) {
        snprintf(err, errlen, "cannot lock %s.lock: %s", path, strerror(errno));
        return CALIBRATE_ERROR;
    }
    if ((rc = read_locked(path, 1, &c, note, notelen, err, errlen)) != CALIBRATE_OK)
        goto out;
    rc = CALIBRATE_ERROR;
    if (put_gpu(&c, g) || !(text = calibrate_format(&c))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (util_write_file(path, text, strlen(text)) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    util_sync_dir(path);
    rc = CALIBRATE_OK;
out:
    close(fd);
    free(text);
    calibrate_free(&c);
    return rc;
}

/* ---- measuring ---------------------------------------------------------- */

int calibrate_gpu_name_of(const char *sel, char *buf, size_t len)
{
    char *argv[] = {"nvidia-smi", "--query-gpu=name", "--format=csv,noheader", NULL, NULL, NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = NVIDIA_SMI_TIMEOUT_S, .output_cap = 4096};
    struct proc_result res;

    util_copy(buf, len, "");
    if (sel && *sel && strncmp(sel, "MIG-", 4)) {
        argv[3] = "-i";
        argv[4] = (char *)sel;
    }
    if (proc_run(&spec, &res) != 0)
        return -1;
    if (res.started && res.exited && res.exit_code == 0 && res.output) {
        const char *s = res.output + strspn(res.output, " \t");
        size_t n = strcspn(s, "\r\n");
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        if (n && n < len) {
            memcpy(buf, s, n);
            buf[n] = '\0';
        }
    }
    proc_result_free(&res);
    return buf[0] ? 0 : -1;
}

int calibrate_gpu_name(char *buf, size_t len)
{
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    char sel[128] = "";

    util_copy(buf, len, "");
    /* The GPU CUDA will use first: nvidia-smi ignores CUDA_VISIBLE_DEVICES,
     * so it is asked for that one by index or UUID (-i). */
    if (vis) {
        size_t k = strspn(vis, " "), n = strcspn(vis + k, ", ");
        if (n == 0 || n >= sizeof sel)
            return -1;          /* CUDA sees no GPU */
        memcpy(sel, vis + k, n);
    }
    return calibrate_gpu_name_of(sel, buf, len);
}

/* How many checks of the lab's solution calibration runs: none when the
 * catalog has no figure to compare with, or the solution is missing. */
static int runs_of(const struct calibrate_req *q, const struct lab *lab)
{
    if (lab->target.solution <= 0)
        return 0;
    char *file = util_format("%s/%s/kernel.cu", q->tc->root, lab->solution_dir);
    int there = file && util_is_file(file);
    free(file);
    if (!there)
        return 0;
    return 1;
}

/* Where run i of n stands, for the progress of the check inside it. */
struct run_ctx {
    const struct calibrate_req *q;
    const char *id;
    int i, n;
};

/* A stage of the check inside run i of n, reported as that run's detail:
 * the front end shows one "calibrate" line, not a check's stages. */
static void run_progress(void *ud, const char *stage, int i, int n, const char *detail)
{
    const struct run_ctx *x = ud;
    char d[256];
    if (!x->q->progress || !strcmp(stage, "done"))
        return;
    if (n > 0)
        snprintf(d, sizeof d, "lab %s: %s %d/%d %s", x->id, stage, i, n, detail);
    else
        snprintf(d, sizeof d, "lab %s: %s %s", x->id, stage, detail);
    x->q->progress(x->q->ud, "calibrate", x->i, x->n, d);
}

/* What one run found. */
struct run_out {
    char status[24];
    char device[96];        /* "" when the report names none */
    double value;           /* the target's figure; < 0: none */
    double also[TARGET_MAX_ALSO];   /* its further cases' (target.also), in order */
};

/* Checks the lab's solution with seed CALIBRATE_SEED + k.  Returns 0, or -1
 * with err when check_run could not run at all. */
static int run_one(const struct calibrate_req *q, const struct lab *lab, int k, struct run_ctx *x,
                   struct run_out *out, char *err, size_t errlen)
{
    struct check_opts o = {0};
    char *file = util_format("%s/%s/kernel.cu", q->tc->root, lab->solution_dir);
    char *dir = util_format("%s/check/calibrate/%s-%d", q->tc->build_dir, lab->id, k);
    struct result rep;
    int rc = -1, ran = 0;

    memset(out, 0, sizeof *out);
    out->value = -1;
    for (int i = 0; i < TARGET_MAX_ALSO; i++)
        out->also[i] = -1;
    if (!file || !dir) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    o.file = file;
    o.seed = CALIBRATE_SEED + (unsigned long long)k;
    o.have_seed = 1;
    o.quick = 1;
    o.work_dir = dir;
    if (q->base) {
        o.wrap = q->base->wrap;
        o.timeout_scale = q->base->timeout_scale;
        o.time_budget_ms = q->base->time_budget_ms;
        o.gpu_lock = q->base->gpu_lock;
    }
    o.progress = run_progress;
    o.ud = x;
    if (check_run(q->tc, q->cat, lab, &o, &rep, err, errlen))
        goto out;
    ran = 1;
    util_copy(out->status, sizeof out->status, status_name(rep.status));
    util_copy(out->device, sizeof out->device, rep.have_device ? rep.device_name : "");
    if (rep.have_target && rep.target_have_value && rep.target_value >= 0)
        out->value = rep.target_value;
    for (int i = 0; rep.have_target && i < rep.ntarget_also && i < TARGET_MAX_ALSO; i++)
        if (rep.target_also[i].value >= 0)
            out->also[i] = rep.target_also[i].value;
    rc = 0;
out:
    if (ran)
        result_free(&rep);
    free(file);
    free(dir);
    return rc;
}

/* A formatted line for the user, through q->say when there is one. */
static void say(const struct calibrate_req *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const struct calibrate_req *q, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = util_vformat(fmt, ap);
    va_end(ap);
    if (line && q->say)
        q->say(q->ud, line);
    free(line);
}

/* Adds a status to a list of distinct ones ("fail, timeout"). */
static void add_status(char *list, size_t len, const char *s)
{
    char *hit = strstr(list, s);
    size_t n = strlen(s);
    if (hit && (hit == list || hit[-1] == ' ') && (hit[n] == '\0' || hit[n] == ','))
        return;
    size_t used = strlen(list);
    snprintf(list + used, len - used, "%s%s", used ? ", " : "", s);
}

int calibrate_measure(const struct calibrate_req *q, const char *gpu, struct calibrate_gpu *out, char *err,
                      size_t errlen)
{
    const struct catalog *cat = q->cat;
    struct run_ctx x = {.q = q};
    double t0 = util_now();
    int rc = -1;

    memset(out, 0, sizeof *out);
    for (int i = 0; i < cat->nlabs; i++)
        x.n += runs_of(q, &cat->labs[i]);
    if (cat->nlabs && !(out->labs = calloc((size_t)cat->nlabs, sizeof *out->labs))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    util_copy(out->name, sizeof out->name, gpu);
    calibrate_catalog_hash(cat, out->catalog, sizeof out->catalog);
    progress_now(out->measured, sizeof out->measured);
    for (int i = 0; i < cat->nlabs; i++) {
        const struct lab *lab = &cat->labs[i];
        int runs = runs_of(q, lab), passed = 0;
        double lowest[1 + TARGET_MAX_ALSO] = {-1, -1, -1, -1};
        char statuses[96] = "";
        x.id = lab->id;
        for (int k = 0; k < runs; k++) {
            struct run_out r;
            x.i++;
            if (q->progress)
                q->progress(q->ud, "calibrate", x.i, x.n, lab->id);
            if (run_one(q, lab, k, &x, &r, err, errlen))
                goto fail;
            if (status_from_name(r.status) == STATUS_NO_GPU) {
                say(q, "nvidia-smi names a GPU (%s), but the checks found no CUDA device: the catalog's "
                       "targets stand, and nothing is cached", gpu);
                rc = 1;
                goto fail;
            }
            if (r.device[0] && strcmp(r.device, gpu)) {
                say(q, "the checks ran on a %s, not on the %s that nvidia-smi names: the catalog's targets "
                       "stand, and nothing is cached (CUDA_VISIBLE_DEVICES picks the GPU)", r.device, gpu);
                rc = 1;
                goto fail;
            }
            int pass = status_from_name(r.status) == STATUS_PASS;
            if (pass && r.value >= 0) {
                passed++;
                for (int c = 0; c <= TARGET_MAX_ALSO; c++) {
                    double v = c ? r.also[c - 1] : r.value;
                    if (v >= 0 && (lowest[c] < 0 || v < lowest[c]))
                        lowest[c] = v;
                }
            } else {
                char untimed[48];
                snprintf(untimed, sizeof untimed, "%s, not timed", status_name(STATUS_PASS));
                add_status(statuses, sizeof statuses, pass ? untimed : r.status);
            }
        }
        calibrate_judge_cases(&out->labs[out->nlabs++], lab, runs, passed, lowest, statuses);
    }
    out->nruns = x.n;
    out->seconds = util_now() - t0;
    return 0;
fail:
    calibrate_gpu_free(out);
    return rc;
}

/* The longest a run took in any measurement the file keeps, for the
 * estimate the user is given; CALIBRATE_RUN_S before the first. */
static double run_seconds(const struct calibration *c)
{
    double s = 0;
    for (int i = 0; i < c->ngpus; i++)
        if (c->gpus[i].nruns > 0 && c->gpus[i].seconds / c->gpus[i].nruns > s)
            s = c->gpus[i].seconds / c->gpus[i].nruns;
    return s > 0 ? s : CALIBRATE_RUN_S;
}

/* The line that says what is about to happen and for how long. */
static void say_plan(const struct calibrate_req *q, const char *gpu, const struct calibration *c)
{
    int labs = 0;
    for (int i = 0; i < q->cat->nlabs; i++)
        labs += runs_of(q, &q->cat->labs[i]);
    if (!labs)
        return;
    say(q, "calibrating the targets for %s: running the %d reference solution%s once (about %.0f s); "
           "cached in %s", gpu, labs, labs == 1 ? "" : "s", labs * run_seconds(c), q->path);
}

/* Loads the file for prepare, saying what went wrong.  0 when c is usable. */
static int load_said(const struct calibrate_req *q, struct calibration *c)
{
    char note[1200], err[1200];
    int rc = calibrate_load(q->path, c, note, sizeof note, err, sizeof err);
    if (rc == CALIBRATE_OK && note[0])
        say(q, "%s", note);
    if (rc != CALIBRATE_OK)
        say(q, "%s: the catalog's targets stand", err);
    return rc == CALIBRATE_OK ? 0 : -1;
}

/* The lock that makes a second process wait for the first one's
 * measurement instead of repeating it; -1 when it cannot be had (then both
 * measure, and the last to finish is cached). */
static int measuring_lock(const struct calibrate_req *q, const char *gpu)
{
    char *path = util_format("%s.measuring", q->path);
    int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int busy = errno == EWOULDBLOCK;
        close(fd);
        fd = -1;
        if (busy) {
            say(q, "waiting for another calibration of the targets (a tutor, or a check in another terminal) "
                   "to finish, to use its figures for %s", gpu);
            fd = util_lock(path);
        }
    }
    free(path);
    return fd;
}

int calibrate_prepare(const struct calibrate_req *q, struct calibrate_gpu *out, char *err, size_t errlen)
{
    struct calibration c = {0};
    const struct calibrate_gpu *hit;
    char gpu[96], hash[24], note[1200], why[1200];
    int busy = -1, rc = CALIBRATE_NONE, m;

    memset(out, 0, sizeof *out);
    if (calibrate_gpu_name(gpu, sizeof gpu))
        return CALIBRATE_NONE;
    calibrate_catalog_hash(q->cat, hash, sizeof hash);
    if (load_said(q, &c))
        return CALIBRATE_UNREADABLE;
    if (!q->force && (hit = calibrate_find(&c, gpu, hash))) {
        rc = calibrate_gpu_copy(out, hit) ? CALIBRATE_NONE : CALIBRATE_CACHED;
        goto out;
    }
    busy = measuring_lock(q, gpu);
    if (busy >= 0 && !q->force) {
        /* Whoever held the lock may have measured this very GPU. */
        calibrate_free(&c);
        if (load_said(q, &c)) {
            rc = CALIBRATE_UNREADABLE;
            goto out;
        }
        if ((hit = calibrate_find(&c, gpu, hash))) {
            rc = calibrate_gpu_copy(out, hit) ? CALIBRATE_NONE : CALIBRATE_CACHED;
            goto out;
        }
    }
    say_plan(q, gpu, &c);
    if ((m = calibrate_measure(q, gpu, out, err, errlen)) != 0) {
        rc = m < 0 ? -1 : CALIBRATE_NONE;
        goto out;
    }
    rc = CALIBRATE_MEASURED;
    if (calibrate_store(q->path, out, note, sizeof note, why, sizeof why) != CALIBRATE_OK)
        say(q, "the calibration is used for this check but not cached: %s", why);
    else if (note[0])
        say(q, "%s", note);
out:
    if (busy >= 0)
        close(busy);
    calibrate_free(&c);
    return rc;
}

/* ---- using it ----------------------------------------------------------- */

void calibrate_apply(struct check_opts *o, const struct calibrate_gpu *g, const struct lab *lab)
{
    const struct calibrate_lab *l = calibrate_lab(g, lab->id);
    if (o->target_min <= 0 && l && l->lowered && l->min > 0)
        o->target_min = l->min;
}

void calibrate_annotate(struct result *report, const struct calibrate_gpu *g, const struct catalog *cat)
{
    const struct calibrate_lab *l = report->lab ? calibrate_lab(g, report->lab) : NULL;
    struct rcalibration *c = &report->target_cal;

    /* Only a threshold this entry chose is explained by it. */
    if (!report->have_target || !l || report->target_min != l->min)
        return;
    c->have = 1;
    result_set_text(&c->gpu, g->name);
    result_set_text(&c->measured, g->measured);
    c->lowered = l->lowered;
    /* The figures that set the threshold: a further case's, when that is
     * where the solution fell furthest short. */
    result_set_text(&c->case_label, l->bound_case);
    c->solution_here = l->bound_case[0] ? l->bound_here : l->solution_here;
    c->catalog_solution = l->bound_case[0] ? l->bound_solution : l->catalog_solution;
    result_set_text(&c->catalog_gpu, cat->targets_gpu ? cat->targets_gpu : "");
    result_set_text(&c->why, l->why);
    result_refresh_target_json(report);
}

void calibrate_lab_line(const struct calibrate_lab *l, char *buf, size_t len)
{
    if (!l->why[0] && l->bound_case[0])
        snprintf(buf, len, "%s  %s at %s, where its solution falls furthest short: %.3g here, %.3g in the catalog; "
                           "threshold %g -> %g at %s, every case alike", l->id, l->metric, l->bound_case, l->bound_here,
                 l->bound_solution, l->catalog_min, l->min, l->case_label);
    else if (l->why[0])
        snprintf(buf, len, "%s  %s at %s: %s; threshold %g, as in the catalog", l->id, l->metric, l->case_label,
                 l->why, l->min);
    else if (l->lowered)
        snprintf(buf, len, "%s  %s at %s: its solution %.3g here, %.3g in the catalog; threshold %g -> %g", l->id,
                 l->metric, l->case_label, l->solution_here, l->catalog_solution, l->catalog_min, l->min);
    else
        snprintf(buf, len, "%s  %s at %s: its solution %.3g here, %.3g in the catalog; threshold %g, as in the "
                           "catalog", l->id, l->metric, l->case_label, l->solution_here, l->catalog_solution,
                 l->min);
}

void calibrate_report(const struct calibrate_gpu *g, calibrate_say_fn say_fn, void *ud)
{
    char line[2048], part[256];
    int lowered = 0, odd = 0;
    size_t used;

    if (!say_fn)
        return;
    used = (size_t)snprintf(line, sizeof line, "targets for %s: ", g->name);
    for (int i = 0; i < g->nlabs; i++) {
        const struct calibrate_lab *l = &g->labs[i];
        odd += l->why[0] != '\0';
        if (!l->lowered)
            continue;
        if (l->bound_case[0])
            snprintf(part, sizeof part, "%s%s %g -> %g, every case alike (its solution at %s: %.3g here, %.3g in "
                                        "the catalog)", lowered++ ? ", " : "lowered for ", l->id, l->catalog_min,
                     l->min, l->bound_case, l->bound_here, l->bound_solution);
        else
            snprintf(part, sizeof part, "%s%s %g -> %g (its solution: %.3g here, %.3g in the catalog)",
                     lowered++ ? ", " : "lowered for ", l->id, l->catalog_min, l->min, l->solution_here,
                     l->catalog_solution);
        if (used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s", part);
    }
    if (!lowered && used < sizeof line)
        snprintf(line + used, sizeof line - used, "no threshold lowered (%s)",
                 odd ? "as in the catalog" : "every reference solution within 5% of its catalog figure, or faster");
    else if (used < sizeof line)
        snprintf(line + used, sizeof line - used, "; the others as in the catalog");
    say_fn(ud, line);
    for (int i = 0; i < g->nlabs; i++)
        if (g->labs[i].why[0]) {
            snprintf(line, sizeof line, "lab %s: %s; its catalog target stands", g->labs[i].id, g->labs[i].why);
            say_fn(ud, line);
        }
}
