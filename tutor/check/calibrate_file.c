/* calibrate_file.c — see calibrate.h: calibration.json, the entries in
 * memory, as JSON and on disk.  On disk it is one of sys/jsonfile.h's
 * files, as progress.json is: this file holds its fields and its words. */
#include "check/calibrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/progress.h"
#include "sys/jsonfile.h"
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

/* c's members of the file (jsonfile_put): an entry per GPU model, keyed by
 * its name. */
static int put_calibration(const void *obj, cJSON *root)
{
    const struct calibration *c = obj;
    cJSON *gpus = cJSON_AddObjectToObject(root, "gpus");
    if (!gpus)
        return -1;
    for (int i = 0; i < c->ngpus; i++) {
        cJSON *g = calibrate_gpu_json(&c->gpus[i]);
        if (!g)
            return -1;
        /* The key names the model; the entry need not say it twice. */
        cJSON_DeleteItemFromObjectCaseSensitive(g, "name");
        cJSON_AddItemToObject(gpus, c->gpus[i].name, g);
    }
    return 0;
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
    jsonfile_str(o, "metric", l->metric, sizeof l->metric);
    jsonfile_str(o, "case", l->case_label, sizeof l->case_label);
    l->catalog_min = jsonfile_num(o, "catalog_min", 0);
    l->catalog_solution = jsonfile_num(o, "catalog_solution", 0);
    l->runs = (int)jsonfile_num(o, "runs", 0);
    l->passed = (int)jsonfile_num(o, "passed", 0);
    l->solution_here = jsonfile_num(o, "solution_here", -1);
    l->min = jsonfile_num(o, "min", 0);
    l->lowered = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "lowered"));
    jsonfile_str(o, "why", l->why, sizeof l->why);
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "bound_by");
    if (cJSON_IsObject(b)) {
        jsonfile_str(b, "case", l->bound_case, sizeof l->bound_case);
        l->bound_here = jsonfile_num(b, "solution_here", -1);
        l->bound_solution = jsonfile_num(b, "catalog_solution", 0);
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
    jsonfile_str(o, "catalog", g->catalog, sizeof g->catalog);
    jsonfile_str(o, "measured", g->measured, sizeof g->measured);
    g->seconds = jsonfile_num(o, "seconds", 0);
    g->nruns = (int)jsonfile_num(o, "runs", 0);
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

/* The file's object into c (jsonfile_get). */
static int get_calibration(void *obj, const cJSON *root, char *why, size_t whylen)
{
    struct calibration *c = obj;
    const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(root, "gpus"), *v;

    if (!cJSON_IsObject(gpus)) {
        snprintf(why, whylen, "\"gpus\" is missing or not an object");
        return -1;
    }
    int n = cJSON_GetArraySize(gpus);
    if (n && !(c->gpus = calloc((size_t)n, sizeof *c->gpus))) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    cJSON_ArrayForEach(v, gpus) {
        if (parse_gpu(&c->gpus[c->ngpus], v, why, whylen)) {
            calibrate_free(c);
            return -1;
        }
        c->ngpus++;
    }
    return 0;
}

/* ---- the file ----------------------------------------------------------- */

/* calibration.json among the files this program owns: the rules are
 * jsonfile.h's (its mode bits are not among them); the words are its own. */
static const struct jsonfile_kind calibration_file = {
    .schema = CALIBRATE_SCHEMA,
    .size = sizeof(struct calibration),
    .get = get_calibration,
    .put = put_calibration,
    .what = "a valid calibration",
    .newer_advice = "",
    .aside_advice = "",
    .read_only = NULL,
};

int calibrate_parse(struct calibration *c, const char *text, char *err, size_t errlen)
{
    return jsonfile_parse(&calibration_file, c, text, err, errlen);
}

char *calibrate_format(const struct calibration *c)
{
    return jsonfile_format(CALIBRATE_SCHEMA, put_calibration, c);
}

int calibrate_load(const char *path, struct calibration *c, char *note, size_t notelen, char *err, size_t errlen)
{
    return jsonfile_load(path, &calibration_file, c, note, notelen, err, errlen);
}

/* calibrate_store's change: ud points to the entry, which takes the place
 * of its model's in the file. */
static int put_gpu(void *obj, void *ud)
{
    struct calibration *c = obj;
    const struct calibrate_gpu *g = *(const struct calibrate_gpu *const *)ud;
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
    int rc = jsonfile_update(path, &calibration_file, &c, put_gpu, &g, note, notelen, err, errlen);
    calibrate_free(&c);
    return rc;
}
