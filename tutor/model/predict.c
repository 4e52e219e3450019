/* predict.c — data/predict.json and the model of predict.h: a kernel's
 * time from its counters, a reference's from its bytes and launches. */
#include "model/predict.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

static const struct {
    const char *key;
    size_t at;
} figures[] = {
#define PREDICT_ROW_(f, key, unit) {key, offsetof(struct predict_gpu, f)},
    PREDICT_FIGURES(PREDICT_ROW_)
#undef PREDICT_ROW_
};

static int fail(char *err, size_t errlen, const char *name, const char *path, const char *what)
{
    snprintf(err, errlen, "%s: %s: %s", name, path, what);
    return -1;
}

/* A figure's row: {"value": positive number, "source": non-empty text}. */
static int parse_figure(const cJSON *figs, const char *key, double *out, const char *name, const char *base,
                        char *err, size_t errlen)
{
    char path[160];
    const cJSON *row = cJSON_GetObjectItemCaseSensitive(figs, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, "value");
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(row, "source");
    snprintf(path, sizeof path, "%s.figures.%s", base, key);
    if (!row)
        return fail(err, errlen, name, path, "not there");
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0))
        return fail(err, errlen, name, path, "value must be a positive number");
    if (!cJSON_IsString(src) || !src->valuestring[0])
        return fail(err, errlen, name, path, "source must say where the figure comes from");
    *out = v->valuedouble;
    return 0;
}

static int parse_gpu(struct predict_gpu *g, const cJSON *j, const char *name, char *err, size_t errlen)
{
    char base[96];
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(j, "name");
    const cJSON *figs = cJSON_GetObjectItemCaseSensitive(j, "figures");
    snprintf(base, sizeof base, "gpus.%s", j->string);
    if (!(g->key = strdup(j->string)))
        return fail(err, errlen, name, base, "out of memory");
    if (!cJSON_IsString(nm) || !(g->name = strdup(nm->valuestring)))
        return fail(err, errlen, name, base, "name must be a string");
    if (!cJSON_IsObject(figs))
        return fail(err, errlen, name, base, "figures must be an object");
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (parse_figure(figs, figures[i].key, (double *)((char *)g + figures[i].at), name, base, err, errlen))
            return -1;
    return 0;
}

static int parse_ref(struct predict_ref *r, const cJSON *j, const char *name, char *err, size_t errlen)
{
    static const char *const keys[] = {"read_bytes", "write_bytes", "launches"};
    double *fields[] = {&r->read_bytes, &r->write_bytes, &r->launches};
    char path[128];
    if (!(r->family = strdup(j->string)))
        return fail(err, errlen, name, "references", "out of memory");
    for (int i = 0; i < 3; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, keys[i]);
        snprintf(path, sizeof path, "references.%s.%s", j->string, keys[i]);
        if (!cJSON_IsNumber(v) || v->valuedouble < 0)
            return fail(err, errlen, name, path, "must be a number, 0 or more");
        *fields[i] = v->valuedouble;
    }
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(j, "source");
    snprintf(path, sizeof path, "references.%s.source", j->string);
    if (!cJSON_IsString(src) || !src->valuestring[0])
        return fail(err, errlen, name, path, "must say what the reference moves and why");
    return 0;
}

int predict_parse(struct predict_model *m, const char *text, const char *name, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(text), *j;
    const cJSON *gpus = cJSON_GetObjectItemCaseSensitive(root, "gpus");
    const cJSON *refs = cJSON_GetObjectItemCaseSensitive(root, "references");
    const cJSON *def = cJSON_GetObjectItemCaseSensitive(root, "default_gpu");
    int rc = -1, i = 0;
    memset(m, 0, sizeof *m);
    if (!root) {
        fail(err, errlen, name, "(top)", "not JSON");
        goto out;
    }
    if (!cJSON_IsObject(gpus) || !cJSON_GetArraySize(gpus) || !cJSON_IsObject(refs)) {
        fail(err, errlen, name, "(top)", "needs objects gpus (not empty) and references");
        goto out;
    }
    m->gpus = calloc((size_t)cJSON_GetArraySize(gpus), sizeof *m->gpus);
    m->refs = calloc((size_t)cJSON_GetArraySize(refs) + 1, sizeof *m->refs);
    if (!m->gpus || !m->refs) {
        fail(err, errlen, name, "(top)", "out of memory");
        goto out;
    }
    cJSON_ArrayForEach(j, gpus) {
        if (parse_gpu(&m->gpus[i++], j, name, err, errlen))
            goto out;
        m->ngpus = i;
    }
    i = 0;
    cJSON_ArrayForEach(j, refs) {
        if (parse_ref(&m->refs[i++], j, name, err, errlen))
            goto out;
        m->nrefs = i;
    }
    if (!cJSON_IsString(def) || !(m->default_gpu = strdup(def->valuestring))) {
        fail(err, errlen, name, "default_gpu", "must be a string");
        goto out;
    }
    if (!predict_gpu_find(m, m->default_gpu)) {
        fail(err, errlen, name, "default_gpu", "names no GPU of gpus");
        goto out;
    }
    rc = 0;
out:
    cJSON_Delete(root);
    if (rc)
        predict_free(m);
    return rc;
}

int predict_load(struct predict_model *m, const char *path, char *err, size_t errlen)
{
    char *text = util_read_file(path, NULL);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (!text) {
        memset(m, 0, sizeof *m);
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = predict_parse(m, text, base, err, errlen);
    free(text);
    return rc;
}

void predict_free(struct predict_model *m)
{
    for (int i = 0; m->gpus && i < m->ngpus; i++) {
        free(m->gpus[i].key);
        free(m->gpus[i].name);
    }
    for (int i = 0; m->refs && i < m->nrefs; i++)
        free(m->refs[i].family);
    free(m->gpus);
    free(m->refs);
    free(m->default_gpu);
    memset(m, 0, sizeof *m);
}

const struct predict_gpu *predict_gpu_find(const struct predict_model *m, const char *key)
{
    if (!key)
        key = m->default_gpu;
    for (int i = 0; key && i < m->ngpus; i++)
        if (!strcmp(m->gpus[i].key, key))
            return &m->gpus[i];
    /* a device's name ("NVIDIA H200 NVL") holds a key */
    for (int i = 0; key && i < m->ngpus; i++)
        if (strstr(key, m->gpus[i].key))
            return &m->gpus[i];
    return NULL;
}

const struct predict_ref *predict_ref_find(const struct predict_model *m, const char *family)
{
    for (int i = 0; family && i < m->nrefs; i++)
        if (!strcmp(m->refs[i].family, family))
            return &m->refs[i];
    return NULL;
}

double *predict_count_field(struct predict_counts *c, const char *name)
{
#define PREDICT_FIND_(f, nm)  \
    if (!strcmp(name, nm))    \
        return &c->f;
    PREDICT_COUNTERS(PREDICT_FIND_)
#undef PREDICT_FIND_
    return NULL;
}

void predict_extrapolate(const struct predict_counts *a, const struct predict_counts *b, double n,
                         struct predict_counts *out)
{
    double dn = b->n - a->n, span = log(b->n / a->n), at = log(n / b->n);
    *out = *b;
    out->n = n;
    if (!(dn > 0) || !(span > 0))
        return;
#define PREDICT_LINE_(f, nm) out->f = b->f + (b->f - a->f) / dn * (n - b->n);
    PREDICT_COUNTERS(PREDICT_LINE_)
#undef PREDICT_LINE_
    out->launches = b->launches + (b->launches - a->launches) / span * at;
    /* a count that would fall below zero past the two sizes is none */
#define PREDICT_FLOOR_(f, nm) out->f = out->f > 0 ? out->f : 0;
    PREDICT_COUNTERS(PREDICT_FLOOR_)
#undef PREDICT_FLOOR_
    out->launches = out->launches >= 1 ? round(out->launches) : 1;
    out->resident = b->resident;
    out->fixed_grid = a->threads > 0 && b->threads / a->threads < 0.9 * (b->n / a->n);
}

void predict_kernel(const struct predict_gpu *g, const struct predict_counts *c, struct predict_time *t)
{
    double per_s = g->sms * g->clock_ghz * 1e9, core;
    double per_thread = c->threads > 0 ? c->n / c->threads : 0;
    t->dram_s = (c->uniq_rd + c->uniq_wr) * 32 / (g->dram_gbs * 1e9);
    t->l2_s = (c->gl_ld_sec + c->gl_st_sec) * 32 / (g->l2_gbs * 1e9);
    t->issue_s = c->warp_inst / (per_s * g->issue_per_clock);
    t->shared_s = (c->sh_ld_wf + c->sh_st_wf) / (per_s * g->shared_wf_per_clock);
    t->latency_s = c->resident > 0 && per_thread < PREDICT_HIDES_LATENCY && !c->fixed_grid
                 ? c->blocks / (g->sms * c->resident) * g->wave_us * 1e-6 : 0;
    /* one update a block (a block's sum added into the result) reaches the
     * word spread over the kernel's time and is served meanwhile; more
     * than that (a warp's or a thread's) queue at the word's L2 slice */
    t->atomic_s = c->atom_hot > c->blocks ? c->atom_hot * g->atomic_ns * 1e-9 : 0;
    t->fixed_s = (c->launches * g->launch_us + g->call_us) * 1e-6;
    core = t->issue_s + t->shared_s;
    t->seconds = t->dram_s;
    t->bound = "DRAM";
    if (t->l2_s > t->seconds)
        t->seconds = t->l2_s, t->bound = "L2";
    if (core > t->seconds)
        t->seconds = core, t->bound = "instructions";
    if (t->latency_s > t->seconds)
        t->seconds = t->latency_s, t->bound = "latency";
    if (t->atomic_s > t->seconds)
        t->seconds = t->atomic_s, t->bound = "atomics";
    t->seconds += t->fixed_s;
}

void predict_reference(const struct predict_gpu *g, const struct predict_ref *r, double n, struct predict_time *t)
{
    memset(t, 0, sizeof *t);
    t->dram_s = n * (r->read_bytes + r->write_bytes) / (g->dram_gbs * 1e9);
    t->fixed_s = (r->launches * g->launch_us + g->call_us) * 1e-6;
    t->seconds = t->dram_s + t->fixed_s;
    t->bound = "DRAM";
}

void predict_time_words(double seconds, char *buf, size_t len)
{
    if (seconds >= 1e-3)
        snprintf(buf, len, "%.2f ms", seconds * 1e3);
    else if (seconds >= 1e-4)
        snprintf(buf, len, "%.0f µs", seconds * 1e6);
    else
        snprintf(buf, len, "%.1f µs", seconds * 1e6);
}
