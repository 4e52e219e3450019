/* catalog.c — parsing and validation of data/labs.json (see catalog.h).
 * Every error names the file and the JSON path of the offending value, so an
 * instructor who adds a lab finds the mistake without reading C. */
#include "model/catalog.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

#define MAX_N (1ull << 28)

/* Each family's entry point (family.h's row), each metric's row of METRIC_TABLE. */
static const char *family_entry(enum family_id id)
{
    switch (id) {
#define FAMILY_ENTRY_(e, name, b0, b1, b2, b3) \
    case e:                                    \
        return "lab_" #name;
        FAMILY_TABLE(FAMILY_ENTRY_)
#undef FAMILY_ENTRY_
    default:
        return NULL;
    }
}

static const struct {
    const char *name, *unit;
} metrics[] = {
#define METRIC_ROW_(e, name, unit) {name, unit},
    METRIC_TABLE(METRIC_ROW_)
#undef METRIC_ROW_
};

const char *family_name(enum family_id id) { return family_json_name(id); }
const char *metric_name(enum metric m) { return metrics[m].name; }
const char *metric_unit(enum metric m) { return metrics[m].unit; }

/* The parse state: where errors go. */
struct parser {
    const char *name;
    char *err;
    size_t errlen;
};

static int fail(struct parser *p, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, const char *path, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s: %s: %s", p->name, path, msg);
    return -1;
}

/* A member of obj that must exist and be of a kind (is, and what says it:
 * "a string"), its JSON path (BASE.KEY) in path[128]; NULL after fail when
 * it is missing or of another kind. */
static const cJSON *member(struct parser *p, const cJSON *obj, const char *base, const char *key,
                           cJSON_bool (*is)(const cJSON *const), const char *kind, char path[static 128])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    snprintf(path, 128, "%s%s%s", base, *base ? "." : "", key);
    if (!v)
        return fail(p, path, "missing"), NULL;
    if (!is(v))
        return fail(p, path, "must be %s", kind), NULL;
    return v;
}

/* As member, for one that may be missing: 1 with *out the member, 0 when
 * it is missing, -1 after fail when it is of another kind. */
static int optional(struct parser *p, const cJSON *obj, const char *base, const char *key,
                    cJSON_bool (*is)(const cJSON *const), const char *kind, char path[static 128], const cJSON **out)
{
    *out = NULL;
    if (!cJSON_GetObjectItemCaseSensitive(obj, key))
        return 0;
    return (*out = member(p, obj, base, key, is, kind, path)) ? 1 : -1;
}

/* A member of obj that must exist and be a string; returns a heap copy. */
static int get_string(struct parser *p, const cJSON *obj, const char *base, const char *key,
                      int allow_empty, char **out)
{
    char path[128];
    const cJSON *v = member(p, obj, base, key, cJSON_IsString, "a string", path);
    if (!v)
        return -1;
    if (!allow_empty && !v->valuestring[0])
        return fail(p, path, "must not be empty");
    if (!(*out = strdup(v->valuestring)))
        return fail(p, path, "out of memory");
    return 0;
}

static int get_number(struct parser *p, const cJSON *obj, const char *base, const char *key,
                      double lo, double hi, double *out)
{
    char path[128];
    const cJSON *v = member(p, obj, base, key, cJSON_IsNumber, "a number", path);
    if (!v)
        return -1;
    if (v->valuedouble < lo || v->valuedouble > hi)
        return fail(p, path, "%g is outside [%g, %g]", v->valuedouble, lo, hi);
    *out = v->valuedouble;
    return 0;
}

static int get_array(struct parser *p, const cJSON *obj, const char *base, const char *key,
                     int min_items, const cJSON **out)
{
    char path[128];
    const cJSON *v = member(p, obj, base, key, cJSON_IsArray, "an array", path);
    if (!v)
        return -1;
    if (cJSON_GetArraySize(v) < min_items)
        return fail(p, path, "needs at least %d item(s)", min_items);
    *out = v;
    return 0;
}

/* The items of arr, the array BASE.KEY, into out (room for them all): each
 * a non-empty string with none of the characters of `not` (NULL: any);
 * what says what an item must be. */
static int get_strings(struct parser *p, const cJSON *arr, const char *base, const char *key, const char *not,
                       const char *what, char **out)
{
    const cJSON *v;
    int i = 0;
    cJSON_ArrayForEach(v, arr) {
        char path[160];
        snprintf(path, sizeof path, "%s.%s[%d]", base, key, i);
        if (!cJSON_IsString(v) || !v->valuestring[0] || (not && strpbrk(v->valuestring, not)))
            return fail(p, path, "must be %s", what);
        if (!(out[i++] = strdup(v->valuestring)))
            return fail(p, path, "out of memory");
    }
    return 0;
}

/* An array of sizes, each an integer in [1, 2^28]. */
static int get_sizes(struct parser *p, const cJSON *obj, const char *base, const char *key,
                     unsigned long long **out, int *count)
{
    const cJSON *arr, *v;
    int i = 0;
    if (get_array(p, obj, base, key, 1, &arr))
        return -1;
    *count = cJSON_GetArraySize(arr);
    if (!(*out = calloc((size_t)*count, sizeof **out)))
        return fail(p, base, "out of memory");
    cJSON_ArrayForEach(v, arr) {
        char path[128];
        snprintf(path, sizeof path, "%s.%s[%d]", base, key, i);
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > (double)MAX_N ||
            v->valuedouble != (double)(unsigned long long)v->valuedouble)
            return fail(p, path, "must be an integer from 1 to 2^28");
        (*out)[i++] = (unsigned long long)v->valuedouble;
    }
    return 0;
}

static int parse_perf(struct parser *p, const cJSON *fam, const char *base, struct family_spec *f)
{
    const cJSON *arr, *v;
    int i = 0;
    if (get_array(p, fam, base, "perf", 1, &arr))
        return -1;
    f->nperf = cJSON_GetArraySize(arr);
    if (f->nperf > 8)
        return fail(p, base, "perf: at most 8 timed cases");
    if (!(f->perf = calloc((size_t)f->nperf, sizeof *f->perf)))
        return fail(p, base, "out of memory");
    cJSON_ArrayForEach(v, arr) {
        char path[128];
        double n;
        struct perf_spec *ps = &f->perf[i];
        snprintf(path, sizeof path, "%s.perf[%d]", base, i++);
        if (get_string(p, v, path, "label", 0, &ps->label) ||
            get_number(p, v, path, "n", 1, (double)MAX_N, &n))
            return -1;
        ps->n = (unsigned long long)n;
        if (cJSON_GetObjectItemCaseSensitive(v, "input")) {
            if (get_string(p, v, path, "input", 0, &ps->input))
                return -1;
        } else if (!(ps->input = strdup(""))) {
            return fail(p, path, "out of memory");
        }
        if (strchr(ps->label, ':') || strchr(ps->input, ':'))
            return fail(p, path, "labels and inputs may not contain ':'");
    }
    return 0;
}

static int parse_families(struct parser *p, const cJSON *root, struct catalog *cat)
{
    const cJSON *fams = cJSON_GetObjectItemCaseSensitive(root, "families"), *fam;
    int i = 0;
    if (!cJSON_IsObject(fams))
        return fail(p, "families", "missing or not an object");
    cat->nfamilies = cJSON_GetArraySize(fams);
    if (!(cat->families = calloc((size_t)cat->nfamilies + 1, sizeof *cat->families)))
        return fail(p, "families", "out of memory");
    cJSON_ArrayForEach(fam, fams) {
        char base[96];
        double timeout, trials, steps, local, emu = (double)CATALOG_EMU_MAX_N,
               hazard = (double)CATALOG_HAZARD_MAX_N, memory = CATALOG_EMU_MEMORY_MIB;
        struct family_spec *f = &cat->families[i++];
        int id;
        snprintf(base, sizeof base, "families.%s", fam->string);
        for (id = 1; id < FAMILY_END && strcmp(family_json_name(id), fam->string); id++)
            ;
        if (id == FAMILY_END)
            return fail(p, base, "unknown family \"%s\" (the harness has no such family)", fam->string);
        f->id = (enum family_id)id;
        f->name = family_json_name(id);
        f->entry = family_entry(f->id);
        if (get_string(p, fam, base, "reference", 0, &f->reference) ||
            get_number(p, fam, base, "timeout_s", 1, 3600, &timeout) ||
            get_number(p, fam, base, "trials_timeout_s", 1, 3600, &trials) ||
            get_number(p, fam, base, "plan_timeout_s", 0.1, 60, &f->plan_timeout_s) ||
            /* The judge keeps at most 64 steps of a plan (MAX_PLAN_STEPS). */
            get_number(p, fam, base, "max_steps", 1, 64, &steps) ||
            get_number(p, fam, base, "max_local_bytes", 0, 1 << 20, &local) ||
            get_sizes(p, fam, base, "sizes", &f->sizes, &f->nsizes) ||
            get_sizes(p, fam, base, "sanitize_sizes", &f->sanitize_sizes, &f->nsanitize) ||
            parse_perf(p, fam, base, f) ||
            (cJSON_GetObjectItemCaseSensitive(fam, "emu_max_n") &&
             get_number(p, fam, base, "emu_max_n", 1, 1 << 28, &emu)) ||
            (cJSON_GetObjectItemCaseSensitive(fam, "hazard_max_n") &&
             get_number(p, fam, base, "hazard_max_n", 1, 1 << 20, &hazard)) ||
            (cJSON_GetObjectItemCaseSensitive(fam, "emu_memory_mib") &&
             get_number(p, fam, base, "emu_memory_mib", 256, 1 << 20, &memory)))
            return -1;
        if (f->nsizes > 64)
            return fail(p, base, "sizes: at most 64");
        if (trials > timeout)
            return fail(p, base, "trials_timeout_s: %g is longer than timeout_s (%g)", trials, timeout);
        f->timeout_s = (int)timeout;
        f->trials_timeout_s = (int)trials;
        f->max_steps = (int)steps;
        f->max_local_bytes = (int)local;
        f->emu_max_n = (unsigned long long)emu;
        f->hazard_max_n = (unsigned long long)hazard;
        f->emu_memory_mib = (int)memory;
    }
    return 0;
}

static const struct family_spec *find_family(const struct catalog *cat, const char *name)
{
    for (int i = 0; i < cat->nfamilies; i++)
        if (!strcmp(cat->families[i].name, name))
            return &cat->families[i];
    return NULL;
}

static int parse_techniques(struct parser *p, const cJSON *lab, const char *base, struct lab *l)
{
    const cJSON *arr, *v;
    int i = 0;
    if (get_array(p, lab, base, "techniques", 0, &arr))
        return -1;
    l->ntech = cJSON_GetArraySize(arr);
    if (!(l->tech = calloc((size_t)l->ntech + 1, sizeof *l->tech)))
        return fail(p, base, "out of memory");
    cJSON_ArrayForEach(v, arr) {
        char path[128];
        const cJSON *pats;
        struct technique *t = &l->tech[i];
        snprintf(path, sizeof path, "%s.techniques[%d]", base, i++);
        if (get_string(p, v, path, "name", 0, &t->name) ||
            get_string(p, v, path, "why", 0, &t->why) ||
            get_array(p, v, path, "ptx_any", 1, &pats))
            return -1;
        t->nptx = cJSON_GetArraySize(pats);
        if (!(t->ptx_any = calloc((size_t)t->nptx, sizeof *t->ptx_any)))
            return fail(p, path, "out of memory");
        if (get_strings(p, pats, path, "ptx_any", NULL, "a non-empty string", t->ptx_any))
            return -1;
    }
    return 0;
}

/* Optional: the profiler counters a lesson's claim rests on. */
static int parse_counters(struct parser *p, const cJSON *lab, const char *base, struct lab *l)
{
    const cJSON *arr;
    char path[128];
    int has = optional(p, lab, base, "counters", cJSON_IsArray, "an array of ncu metric names", path, &arr);
    if (has <= 0)
        return has;
    l->ncounters = cJSON_GetArraySize(arr);
    if (!(l->counters = calloc((size_t)l->ncounters + 1, sizeof *l->counters)))
        return fail(p, path, "out of memory");
    return get_strings(p, arr, base, "counters", ", ", "one metric name", l->counters);
}

/* Optional: the lesson's counter, which the CPU tier holds the kernel to. */
static int parse_lesson(struct parser *p, const cJSON *lab, const char *base, struct lab *l)
{
    const cJSON *v, *bound;
    struct lesson *ls = &l->lesson;
    char path[128];
    double n;
    int has = optional(p, lab, base, "lesson", cJSON_IsObject, "an object", path, &v);
    if (has <= 0)
        return has;
    if (get_string(p, v, path, "name", 0, &ls->name) || get_string(p, v, path, "what", 0, &ls->what) ||
        get_string(p, v, path, "why", 0, &ls->why) || get_string(p, v, path, "counter", 0, &ls->counter) ||
        get_number(p, v, path, "n", 1, (double)l->family->emu_max_n, &n) ||
        get_number(p, v, path, "solution", 0, 1e18, &ls->solution))
        return -1;
    ls->n = (unsigned long long)n;
    if (cJSON_GetObjectItemCaseSensitive(v, "over") && get_string(p, v, path, "over", 0, &ls->over))
        return -1;
    int has_max = (bound = cJSON_GetObjectItemCaseSensitive(v, "max")) != NULL;
    if (has_max && get_number(p, v, path, "max", 1e-12, 1e18, &ls->max))
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(v, "min") && (has_max || get_number(p, v, path, "min", 1e-12, 1e18, &ls->min)))
        return has_max ? fail(p, path, "has both max and min: a bound is one of the two") : -1;
    if (ls->max <= 0 && ls->min <= 0)
        return fail(p, path, "needs max or min");
    if ((ls->max > 0 && ls->solution > ls->max) || (ls->min > 0 && ls->solution < ls->min))
        return fail(p, path, "the reference solution's figure %g does not meet its own bound", ls->solution);
    return 0;
}

/* Whether a family of the lab times a case of this label. */
static int has_case(const struct lab *l, const char *label)
{
    for (int i = 0; i < l->family->nperf; i++)
        if (!strcmp(l->family->perf[i].label, label))
            return 1;
    return 0;
}

/* target.also: the further cases a target must meet, each a perf label of
 * the lab's family that the target names only once. */
static int parse_also(struct parser *p, const cJSON *t, const char *base, struct lab *l)
{
    const cJSON *arr, *v;
    char path[160];
    int i = 0;
    if (!cJSON_GetObjectItemCaseSensitive(t, "also"))
        return 0;
    if (get_array(p, t, base, "also", 1, &arr))
        return -1;
    if (cJSON_GetArraySize(arr) > TARGET_MAX_ALSO)
        return fail(p, base, "also: at most %d more cases", TARGET_MAX_ALSO);
    cJSON_ArrayForEach(v, arr) {
        struct target_case *c = &l->target.also[i];
        snprintf(path, sizeof path, "%s.also[%d]", base, i);
        if (!cJSON_IsObject(v))
            return fail(p, path, "must be an object: {\"case\", \"min\", \"solution\"}");
        if (get_string(p, v, path, "case", 0, &c->case_label))
            return -1;
        l->target.nalso = ++i;
        if (get_number(p, v, path, "min", 0, 1e9, &c->min) ||
            (cJSON_GetObjectItemCaseSensitive(v, "solution") &&
             get_number(p, v, path, "solution", 1e-9, 1e9, &c->solution)))
            return -1;
        if (!has_case(l, c->case_label))
            return fail(p, path, "case: \"%s\" is not a perf label of family %s", c->case_label,
                        l->family->name);
        int twice = !strcmp(c->case_label, l->target.case_label);
        for (int k = 0; k + 1 < i; k++)
            twice |= !strcmp(c->case_label, l->target.also[k].case_label);
        if (twice)
            return fail(p, path, "case: \"%s\" is already a case of this target", c->case_label);
    }
    return 0;
}

static int parse_target(struct parser *p, const cJSON *lab, const char *base, struct lab *l)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(lab, "target"), *prov;
    char path[128], *metric = NULL;
    int m, rc = -1;

    snprintf(path, sizeof path, "%s.target", base);
    if (!cJSON_IsObject(t))
        return fail(p, path, "missing or not an object");
    if (get_string(p, t, path, "metric", 0, &metric) ||
        get_string(p, t, path, "case", 0, &l->target.case_label) ||
        get_number(p, t, path, "min", 0, 1e9, &l->target.min))
        goto out;
    for (m = 0; m < METRIC_COUNT && strcmp(metrics[m].name, metric); m++)
        ;
    if (m == METRIC_COUNT) {
        fail(p, path, "metric: unknown metric \"%s\" (ratio, pct_peak, gbps or rate)", metric);
        goto out;
    }
    l->target.metric = (enum metric)m;
    if (!has_case(l, l->target.case_label)) {
        fail(p, path, "case: \"%s\" is not a perf label of family %s", l->target.case_label,
             l->family->name);
        goto out;
    }
    prov = cJSON_GetObjectItemCaseSensitive(t, "provisional");
    l->target.provisional = cJSON_IsTrue(prov);
    if (cJSON_GetObjectItemCaseSensitive(t, "solution") &&
        get_number(p, t, path, "solution", 1e-9, 1e9, &l->target.solution))
        goto out;
    if (parse_also(p, t, path, l))
        goto out;
    /* pct_peak is a fraction of the measured peak (0.8 = 80%), and more than
     * 1.10 of it is implausible (docs/harness.md, section 4): a figure above
     * that is a percent typed for a fraction, a target no kernel can meet. */
    if (l->target.metric == METRIC_PCT_PEAK) {
        int bad = l->target.min > 1.1 || l->target.solution > 1.1;
        for (int i = 0; i < l->target.nalso; i++)
            bad |= l->target.also[i].min > 1.1 || l->target.also[i].solution > 1.1;
        if (bad) {
            fail(p, path, "pct_peak is a fraction of the measured peak (0.8 = 80%%), at most 1.1: "
                          "min %g, solution %g", l->target.min, l->target.solution);
            goto out;
        }
    }
    rc = 0;
out:
    free(metric);
    return rc;
}

/* Optional: "deterministic": true, judged by calling the entry point again
 * on the same input, which the reduce families' judges do (--repeat). */
static int parse_deterministic(struct parser *p, const cJSON *lab, const char *base, struct lab *l)
{
    const cJSON *v;
    char path[128];
    int has = optional(p, lab, base, "deterministic", cJSON_IsBool, "true or false", path, &v);
    if (has <= 0)
        return has;
    l->deterministic = cJSON_IsTrue(v);
    if (l->deterministic && l->family->id != FAMILY_REDUCE_INT && l->family->id != FAMILY_REDUCE_FLOAT)
        return fail(p, path, "family %s cannot judge it (only the reduce families call again on one input)",
                    l->family->name);
    return 0;
}

/* Optional: "check_timeout_s", the whole check's wall-clock bound. */
static int parse_check_timeout(struct parser *p, const cJSON *lab, const char *base, struct lab *l)
{
    l->check_timeout_s = CATALOG_CHECK_TIMEOUT_S;
    if (!cJSON_GetObjectItemCaseSensitive(lab, "check_timeout_s"))
        return 0;
    return get_number(p, lab, base, "check_timeout_s", 10, 3600, &l->check_timeout_s);
}

static int valid_id(const char *id)
{
    return strlen(id) == 2 && isdigit((unsigned char)id[0]) && isdigit((unsigned char)id[1]);
}

static int valid_slug(const char *s)
{
    for (; *s; s++)
        if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-')
            return 0;
    return 1;
}

/* The optional "bonus" flag and "opens_after" id of labs[i]: the lab whose
 * pass opens it must come earlier in the catalog, so the labs open in an
 * order a student can follow and no lab waits on itself. */
static int parse_opening(struct parser *p, const cJSON *v, const char *base, int i, struct catalog *cat)
{
    struct lab *l = &cat->labs[i];
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(v, "bonus");
    const cJSON *after = cJSON_GetObjectItemCaseSensitive(v, "opens_after");
    char path[64];

    if (b && !cJSON_IsBool(b)) {
        snprintf(path, sizeof path, "%s.bonus", base);
        return fail(p, path, "must be true or false");
    }
    l->bonus = cJSON_IsTrue(b);
    l->opens_after = i - 1;
    /* The Bonus section is the end of the list: the tutor draws it so. */
    if (!l->bonus && i > 0 && cat->labs[i - 1].bonus)
        return fail(p, base, "a core lab (no \"bonus\": true) may not follow a bonus lab");
    if (!after)
        return 0;
    snprintf(path, sizeof path, "%s.opens_after", base);
    if (!cJSON_IsString(after))
        return fail(p, path, "must be a lab id");
    for (int k = 0; k < i; k++)
        if (!strcmp(cat->labs[k].id, after->valuestring)) {
            l->opens_after = k;
            return 0;
        }
    return fail(p, path, "\"%s\" is not a lab before this one", after->valuestring);
}

static int parse_lab(struct parser *p, const cJSON *v, int i, struct catalog *cat)
{
    char base[32], *family = NULL;
    const cJSON *hints;
    struct lab *l = &cat->labs[i];
    int rc = -1;

    snprintf(base, sizeof base, "labs[%d]", i);
    if (!cJSON_IsObject(v))
        return fail(p, base, "must be an object");
    if (get_string(p, v, base, "id", 0, &l->id) || get_string(p, v, base, "slug", 0, &l->slug) ||
        get_string(p, v, base, "title", 0, &l->title) ||
        get_string(p, v, base, "summary", 0, &l->summary) ||
        get_string(p, v, base, "family", 0, &family))
        goto out;
    if (!valid_id(l->id)) {
        fail(p, base, "id: \"%s\" must be two digits", l->id);
        goto out;
    }
    if (!valid_slug(l->slug)) {
        fail(p, base, "slug: \"%s\" may hold only a-z, 0-9 and '-'", l->slug);
        goto out;
    }
    for (int k = 0; k < i; k++)
        if (!strcmp(cat->labs[k].id, l->id)) {
            fail(p, base, "id: \"%s\" is used twice", l->id);
            goto out;
        }
    if (!(l->family = find_family(cat, family))) {
        char path[64];
        snprintf(path, sizeof path, "%s.family", base);
        fail(p, path, "unknown family \"%s\"", family);
        goto out;
    }
    l->dir = util_format("labs/%s-%s", l->id, l->slug);
    l->solution_dir = util_format("solutions/%s-%s", l->id, l->slug);
    l->stub = util_format("data/stubs/%s-%s.cu", l->id, l->slug);
    if (!l->dir || !l->solution_dir || !l->stub) {
        fail(p, base, "out of memory");
        goto out;
    }
    if (parse_opening(p, v, base, i, cat))
        goto out;
    if (parse_target(p, v, base, l) || parse_techniques(p, v, base, l) ||
        parse_counters(p, v, base, l) || parse_lesson(p, v, base, l) || parse_deterministic(p, v, base, l) ||
        parse_check_timeout(p, v, base, l) || get_array(p, v, base, "hints", CATALOG_HINTS, &hints))
        goto out;
    if (cJSON_GetArraySize(hints) != CATALOG_HINTS) {
        char path[64];
        snprintf(path, sizeof path, "%s.hints", base);
        fail(p, path, "needs exactly %d hints, from a nudge to nearly the code", CATALOG_HINTS);
        goto out;
    }
    if (get_strings(p, hints, base, "hints", NULL, "a non-empty string", l->hints))
        goto out;
    rc = 0;
out:
    free(family);
    return rc;
}

static int parse_rules(struct parser *p, const cJSON *hs, const char *key,
                       struct symbol_rule **out, int *count)
{
    const cJSON *arr, *v;
    int i = 0;
    if (get_array(p, hs, "host_symbols", key, 0, &arr))
        return -1;
    *count = cJSON_GetArraySize(arr);
    if (!(*out = calloc((size_t)*count + 1, sizeof **out)))
        return fail(p, "host_symbols", "out of memory");
    cJSON_ArrayForEach(v, arr) {
        char path[64];
        snprintf(path, sizeof path, "host_symbols.%s[%d]", key, i);
        if (get_string(p, v, path, "pattern", 0, &(*out)[i].pattern) ||
            get_string(p, v, path, "rule", 0, &(*out)[i].rule))
            return -1;
        i++;
    }
    return 0;
}

static int parse_symbols(struct parser *p, const cJSON *root, struct catalog *cat)
{
    const cJSON *hs = cJSON_GetObjectItemCaseSensitive(root, "host_symbols"), *allow;
    if (!cJSON_IsObject(hs))
        return fail(p, "host_symbols", "missing or not an object");
    if (get_array(p, hs, "host_symbols", "allow", 1, &allow))
        return -1;
    cat->nallow = cJSON_GetArraySize(allow);
    if (!(cat->allow = calloc((size_t)cat->nallow, sizeof *cat->allow)))
        return fail(p, "host_symbols", "out of memory");
    if (get_strings(p, allow, "host_symbols", "allow", NULL, "a non-empty string", cat->allow))
        return -1;
    return parse_rules(p, hs, "deny", &cat->deny, &cat->ndeny) ||
           parse_rules(p, hs, "deny_defined", &cat->deny_defined, &cat->ndeny_defined) ? -1 : 0;
}

int catalog_parse(struct catalog *cat, const char *text, const char *name, char *err, size_t errlen)
{
    struct parser p = {name, err, errlen};
    cJSON *root = cJSON_Parse(text);
    const cJSON *labs, *v;
    double schema;
    int i = 0, rc = -1;

    memset(cat, 0, sizeof *cat);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        int line = 1;
        for (const char *c = text; at && c < at; c++)
            line += *c == '\n';
        snprintf(err, errlen, "%s: line %d: not valid JSON", name, line);
        return -1;
    }
    if (get_number(&p, root, "", "schema", 0, 1e9, &schema))
        goto out;
    if ((int)schema != CATALOG_SCHEMA) {
        fail(&p, "schema", "version %d; this tutor reads version %d", (int)schema, CATALOG_SCHEMA);
        goto out;
    }
    double contract;
    if (get_number(&p, root, "", "contract", 0, 1e9, &contract))
        goto out;
    if ((int)contract != CATALOG_CONTRACT) {
        fail(&p, "contract", "the labs are written for lab.h contract %d; this tutor provides %d",
             (int)contract, CATALOG_CONTRACT);
        goto out;
    }
    /* Optional: where "the catalog's figure" was measured, for the words of
     * a target that calibration scaled to another GPU. */
    if (cJSON_GetObjectItemCaseSensitive(root, "targets_gpu") &&
        get_string(&p, root, "", "targets_gpu", 0, &cat->targets_gpu))
        goto out;
    if (parse_families(&p, root, cat) || parse_symbols(&p, root, cat) ||
        get_array(&p, root, "", "labs", 1, &labs))
        goto out;
    cat->nlabs = cJSON_GetArraySize(labs);
    if (!(cat->labs = calloc((size_t)cat->nlabs, sizeof *cat->labs))) {
        fail(&p, "labs", "out of memory");
        goto out;
    }
    cJSON_ArrayForEach(v, labs) {
        if (parse_lab(&p, v, i, cat))
            goto out;
        i++;
    }
    rc = 0;
out:
    cJSON_Delete(root);
    if (rc)
        catalog_free(cat);
    return rc;
}

int catalog_load(struct catalog *cat, const char *path, const char *name, char *err, size_t errlen)
{
    char *text = util_read_file(path, NULL);
    if (!text) {
        memset(cat, 0, sizeof *cat);
        snprintf(err, errlen, "%s: %s", name, strerror(errno));
        return -1;
    }
    int rc = catalog_parse(cat, text, name, err, errlen);
    free(text);
    return rc;
}

static void free_rules(struct symbol_rule *r, int n)
{
    for (int i = 0; r && i < n; i++) {
        free(r[i].pattern);
        free(r[i].rule);
    }
    free(r);
}

void catalog_free(struct catalog *cat)
{
    for (int i = 0; cat->families && i < cat->nfamilies; i++) {
        struct family_spec *f = &cat->families[i];
        free(f->reference);
        free(f->sizes);
        free(f->sanitize_sizes);
        for (int j = 0; f->perf && j < f->nperf; j++) {
            free(f->perf[j].label);
            free(f->perf[j].input);
        }
        free(f->perf);
    }
    free(cat->families);
    free(cat->targets_gpu);
    for (int i = 0; cat->labs && i < cat->nlabs; i++) {
        struct lab *l = &cat->labs[i];
        free(l->id);
        free(l->slug);
        free(l->title);
        free(l->summary);
        free(l->dir);
        free(l->solution_dir);
        free(l->stub);
        free(l->target.case_label);
        for (int j = 0; j < l->target.nalso; j++)
            free(l->target.also[j].case_label);
        for (int j = 0; l->tech && j < l->ntech; j++) {
            free(l->tech[j].name);
            free(l->tech[j].why);
            for (int k = 0; l->tech[j].ptx_any && k < l->tech[j].nptx; k++)
                free(l->tech[j].ptx_any[k]);
            free(l->tech[j].ptx_any);
        }
        free(l->tech);
        for (int j = 0; l->counters && j < l->ncounters; j++)
            free(l->counters[j]);
        free(l->counters);
        free(l->lesson.name);
        free(l->lesson.what);
        free(l->lesson.why);
        free(l->lesson.counter);
        free(l->lesson.over);
        for (int j = 0; j < CATALOG_HINTS; j++)
            free(l->hints[j]);
    }
    free(cat->labs);
    for (int i = 0; cat->allow && i < cat->nallow; i++)
        free(cat->allow[i]);
    free(cat->allow);
    free_rules(cat->deny, cat->ndeny);
    free_rules(cat->deny_defined, cat->ndeny_defined);
    memset(cat, 0, sizeof *cat);
}

const struct lab *catalog_find(const struct catalog *cat, const char *key)
{
    char id[8];
    char *end;
    long num = strtol(key, &end, 10);

    if (*key && !*end && num >= 0 && num < 100)
        snprintf(id, sizeof id, "%02ld", num);
    else
        util_copy(id, sizeof id, "");
    for (int i = 0; i < cat->nlabs; i++)
        if (!strcmp(cat->labs[i].id, id) || !strcmp(cat->labs[i].slug, key))
            return &cat->labs[i];
    return NULL;
}

const struct lab *catalog_next(const struct catalog *cat, const struct lab *lab)
{
    long i = lab - cat->labs;
    return (i >= 0 && i + 1 < cat->nlabs) ? &cat->labs[i + 1] : NULL;
}

const struct lab *catalog_opener(const struct catalog *cat, const struct lab *lab)
{
    long i = lab - cat->labs;
    if (i < 0 || i >= cat->nlabs || lab->opens_after < 0 || lab->opens_after >= i)
        return NULL;
    return &cat->labs[lab->opens_after];
}
