/* calibrate_file.c — see calibrate.h: calibration.json, the entries in
 * memory, as JSON and on disk.  The file follows progress.c's order (lock,
 * re-read, change, write a temporary, rename, sync the folder). */
#include "check/calibrate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/progress.h"
#include "sys/jsonw.h"
#include "sys/util.h"

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
    void *parsed;
    cJSON *root = NULL;
    const cJSON *gpus, *v;
    int rc = CALIBRATE_ERROR;

    memset(c, 0, sizeof *c);
    switch (jsonw_read_versioned(text, CALIBRATE_SCHEMA, &parsed, err, errlen)) {
    case JSONW_READ_OK: root = parsed; break;
    case JSONW_READ_NEWER: rc = CALIBRATE_NEWER; goto out;
    default: goto out;
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
