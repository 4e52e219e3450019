/* progress.c — see progress.h.  The file is small (ten labs), so every
 * update rewrites it whole, by sys/jsonfile's rules; this file holds what
 * is progress's own: its fields, which labs are open, and its words. */
#include "model/progress.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sys/jsonfile.h"
#include "sys/util.h"

static const char *const state_names[] = {
#define LAB_STATE_NAME_(e, json, label) json,
    LAB_STATE_TABLE(LAB_STATE_NAME_)
#undef LAB_STATE_NAME_
};
static const char *const state_labels[] = {
#define LAB_STATE_LABEL_(e, json, label) label,
    LAB_STATE_TABLE(LAB_STATE_LABEL_)
#undef LAB_STATE_LABEL_
};

const char *lab_state_name(enum lab_state s) { return s < LAB_STATE_COUNT ? state_names[s] : "?"; }
const char *lab_state_label(enum lab_state s) { return s < LAB_STATE_COUNT ? state_labels[s] : "?"; }

const char *progress_state_label(const struct progress_lab *pl, enum lab_state s)
{
    return s == LAB_PASSED && pl && pl->cpu_only ? "passed CPU" : lab_state_label(s);
}

char *progress_path(const char *root, const char *flag)
{
    const char *env = getenv("CUDATUTOR_PROGRESS");
    if (flag && *flag)
        return strdup(flag);
    if (env && *env)
        return strdup(env);
    return util_format("%s/progress.json", root);
}

void progress_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void progress_init(struct progress *p)
{
    memset(p, 0, sizeof *p);
}

void progress_free(struct progress *p)
{
    free(p->labs);
    memset(p, 0, sizeof *p);
}

struct progress_lab *progress_lab(struct progress *p, const char *id, int create)
{
    for (int i = 0; i < p->nlabs; i++)
        if (!strcmp(p->labs[i].id, id))
            return &p->labs[i];
    if (!create || !*id || strlen(id) >= sizeof p->labs[0].id)
        return NULL;
    struct progress_lab *n = util_grow(p->labs, &p->cap, (size_t)p->nlabs + 1, sizeof *n);
    if (!n)
        return NULL;
    p->labs = n;
    struct progress_lab *l = &p->labs[p->nlabs++];
    memset(l, 0, sizeof *l);
    util_copy(l->id, sizeof l->id, id);
    return l;
}

const struct progress_lab *progress_find(const struct progress *p, const char *id)
{
    return progress_lab((struct progress *)p, id, 0);
}

/* ---- JSON --------------------------------------------------------------- */

static void parse_lab(struct progress_lab *l, const cJSON *o)
{
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(o, "best");
    const cJSON *last = cJSON_GetObjectItemCaseSensitive(o, "last");
    char state[16];

    jsonfile_str(o, "state", state, sizeof state);
    l->on_target = !strcmp(state, "on_target");
    l->passed = l->on_target || !strcmp(state, "passed");
    jsonfile_str(o, "passed_on", state, sizeof state);
    l->cpu_only = l->passed && !strcmp(state, "cpu");
    l->attempts = (int)jsonfile_num(o, "attempts", 0);
    l->hints_used = (int)jsonfile_num(o, "hints_used", 0);
    jsonfile_str(o, "first_pass", l->first_pass, sizeof l->first_pass);
    jsonfile_str(o, "gpu", l->gpu, sizeof l->gpu);
    if (cJSON_IsObject(last)) {
        jsonfile_str(last, "status", l->last_status, sizeof l->last_status);
        jsonfile_str(last, "summary", l->last_summary, sizeof l->last_summary);
        jsonfile_str(last, "time", l->last_time, sizeof l->last_time);
    }
    if (cJSON_IsObject(best)) {
        struct progress_best *b = &l->best;
        b->have = 1;
        jsonfile_str(best, "case", b->case_label, sizeof b->case_label);
        b->n = (unsigned long long)jsonfile_num(best, "n", 0);
        b->ms = jsonfile_num(best, "ms", 0);
        b->gbps = jsonfile_num(best, "gbps", -1);
        b->pct_peak = jsonfile_num(best, "pct_peak", -1);
        b->ratio = jsonfile_num(best, "ratio", 0);
        b->rate = jsonfile_num(best, "rate", 0);
        jsonfile_str(best, "rate_unit", b->rate_unit, sizeof b->rate_unit);
        b->peak_gbps = jsonfile_num(best, "peak_gbps", -1);
        b->ref_gbps = jsonfile_num(best, "ref_gbps", -1);
        jsonfile_str(best, "ref_name", b->ref_name, sizeof b->ref_name);
    }
}

/* The file's object into p (jsonfile_get). */
static int get_progress(void *obj, const cJSON *root, char *why, size_t whylen)
{
    struct progress *p = obj;
    const cJSON *labs = cJSON_GetObjectItemCaseSensitive(root, "labs"), *o;

    if (labs && !cJSON_IsObject(labs)) {
        snprintf(why, whylen, "\"labs\" is not an object");
        return -1;
    }
    cJSON_ArrayForEach(o, labs) {
        struct progress_lab *l;
        if (!cJSON_IsObject(o)) {
            snprintf(why, whylen, "labs.%s is not an object", o->string);
            goto fail;
        }
        if (!(l = progress_lab(p, o->string, 1))) {
            snprintf(why, whylen, "bad lab id \"%s\" (or out of memory)", o->string);
            goto fail;
        }
        parse_lab(l, o);
    }
    return 0;
fail:
    progress_free(p);
    return -1;
}

/* A string, or null for "" (never set). */
static void put_str(cJSON *o, const char *key, const char *s)
{
    if (*s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const struct progress_lab *)a)->id, ((const struct progress_lab *)b)->id);
}

static void format_lab(cJSON *labs, const struct progress_lab *l)
{
    cJSON *o = cJSON_AddObjectToObject(labs, l->id);
    if (!o)
        return;
    cJSON_AddStringToObject(o, "state", l->on_target ? "on_target" : l->passed ? "passed" : "open");
    cJSON_AddNumberToObject(o, "attempts", l->attempts);
    put_str(o, "first_pass", l->first_pass);
    if (l->cpu_only)
        cJSON_AddStringToObject(o, "passed_on", "cpu");
    if (l->best.have) {
        const struct progress_best *b = &l->best;
        cJSON *bo = cJSON_AddObjectToObject(o, "best");
        cJSON_AddStringToObject(bo, "case", b->case_label);
        cJSON_AddNumberToObject(bo, "n", (double)b->n);
        cJSON_AddNumberToObject(bo, "ms", b->ms);
        cJSON_AddNumberToObject(bo, "gbps", b->gbps);
        cJSON_AddNumberToObject(bo, "pct_peak", b->pct_peak);
        cJSON_AddNumberToObject(bo, "ratio", b->ratio);
        cJSON_AddNumberToObject(bo, "rate", b->rate);
        cJSON_AddStringToObject(bo, "rate_unit", b->rate_unit);
        cJSON_AddNumberToObject(bo, "peak_gbps", b->peak_gbps);
        cJSON_AddNumberToObject(bo, "ref_gbps", b->ref_gbps);
        cJSON_AddStringToObject(bo, "ref_name", b->ref_name);
    } else {
        cJSON_AddNullToObject(o, "best");
    }
    if (l->last_status[0]) {
        cJSON *lo = cJSON_AddObjectToObject(o, "last");
        cJSON_AddStringToObject(lo, "status", l->last_status);
        cJSON_AddStringToObject(lo, "summary", l->last_summary);
        cJSON_AddStringToObject(lo, "time", l->last_time);
    } else {
        cJSON_AddNullToObject(o, "last");
    }
    cJSON_AddNumberToObject(o, "hints_used", l->hints_used);
    put_str(o, "gpu", l->gpu);
}

/* p's members of the file (jsonfile_put): its labs, in the order of their ids. */
static int put_progress(const void *obj, cJSON *root)
{
    const struct progress *p = obj;
    cJSON *labs = cJSON_AddObjectToObject(root, "labs");
    struct progress_lab *sorted = NULL;

    if (!labs || (p->nlabs && !(sorted = malloc((size_t)p->nlabs * sizeof *sorted))))
        return -1;
    if (p->nlabs) {
        memcpy(sorted, p->labs, (size_t)p->nlabs * sizeof *sorted);
        qsort(sorted, (size_t)p->nlabs, sizeof *sorted, by_id);
    }
    for (int i = 0; i < p->nlabs; i++)
        format_lab(labs, &sorted[i]);
    free(sorted);
    return 0;
}

/* ---- the file ----------------------------------------------------------- */

/* progress.json among the files this program owns: the rules are
 * jsonfile.h's, the mode bits among them; the words are progress's. */
static const struct jsonfile_kind progress_file = {
    .schema = PROGRESS_SCHEMA,
    .size = sizeof(struct progress),
    .get = get_progress,
    .put = put_progress,
    .what = "valid progress",
    .newer_advice = " (update the workbook, or use --progress PATH)",
    .aside_advice = " and started afresh",
    .read_only = " (chmod u+w it to record progress)",
};

int progress_parse(struct progress *p, const char *text, char *err, size_t errlen)
{
    return jsonfile_parse(&progress_file, p, text, err, errlen);
}

char *progress_format(const struct progress *p)
{
    return jsonfile_format(PROGRESS_SCHEMA, put_progress, p);
}

cJSON *progress_view(const struct progress *p, const struct catalog *cat, int unlock_all)
{
    cJSON *root = cJSON_CreateObject(), *labs = NULL;
    if (!root || !cJSON_AddNumberToObject(root, "schema", PROGRESS_SCHEMA) || put_progress(p, root) != 0 ||
        !(labs = cJSON_GetObjectItemCaseSensitive(root, "labs"))) {
        cJSON_Delete(root);
        return NULL;
    }
    /* The labs without a record yet, as a fresh record reads; then each
     * lab's state as shown, which the file keeps only in part. */
    for (int i = 0; i < cat->nlabs; i++) {
        const char *id = cat->labs[i].id;
        cJSON *o = cJSON_GetObjectItemCaseSensitive(labs, id);
        if (!o) {
            o = cJSON_AddObjectToObject(labs, id);
            cJSON_AddNumberToObject(o, "attempts", 0);
            cJSON_AddNullToObject(o, "first_pass");
            cJSON_AddNullToObject(o, "best");
            cJSON_AddNullToObject(o, "last");
            cJSON_AddNumberToObject(o, "hints_used", 0);
            cJSON_AddNullToObject(o, "gpu");
        }
        cJSON_DeleteItemFromObjectCaseSensitive(o, "state");
        cJSON_AddStringToObject(o, "state", lab_state_name(progress_state(p, cat, i, unlock_all)));
    }
    return root;
}

int progress_load(const char *path, struct progress *p, char *note, size_t notelen, char *err, size_t errlen)
{
    return jsonfile_load(path, &progress_file, p, note, notelen, err, errlen);
}

/* progress_update's fn as a jsonfile_change: its nonzero abandons. */
struct progress_apply {
    progress_fn fn;
    void *ud;
};

static int apply(void *obj, void *ud)
{
    const struct progress_apply *a = ud;
    return a->fn(obj, a->ud) != 0;
}

int progress_update(const char *path, progress_fn fn, void *ud, struct progress *out, char *note,
                    size_t notelen, char *err, size_t errlen)
{
    struct progress p;
    struct progress_apply a = {fn, ud};
    int rc = jsonfile_update(path, &progress_file, &p, apply, &a, note, notelen, err, errlen);
    if (rc == PROGRESS_OK && out)
        *out = p;
    else
        progress_free(&p);
    return rc;
}

/* ---- recording ---------------------------------------------------------- */

static void record_best(struct progress_lab *l, const struct result *r)
{
    const struct rperf *tp = result_target_perf(r);
    if (!tp || tp->implausible || tp->median_ms <= 0)
        return;
    if (l->best.have && tp->ratio <= l->best.ratio)
        return;
    struct progress_best *b = &l->best;
    memset(b, 0, sizeof *b);
    b->have = 1;
    util_copy(b->case_label, sizeof b->case_label, tp->label);
    b->n = tp->n;
    b->ms = tp->median_ms;
    b->gbps = tp->gbps;
    b->pct_peak = tp->pct_peak;
    b->ratio = tp->ratio;
    b->rate = tp->rate;
    util_copy(b->rate_unit, sizeof b->rate_unit, tp->rate_unit);
    b->peak_gbps = r->read_gbps > 0 ? r->read_gbps : -1;
    /* bytes / (ms * 1e-3 s) / 1e9 */
    b->ref_gbps = tp->ref_median_ms > 0 && tp->bytes > 0 && tp->gbps >= 0 ? tp->bytes / (tp->ref_median_ms * 1e6) : -1;
    util_copy(b->ref_name, sizeof b->ref_name, tp->ref_name);
}

/* The lab's fields that a check changes: an attempt, the last verdict, a
 * pass, on target, the best timed pass and the GPU. */
static void record_lab(struct progress_lab *l, const struct result *r, const char *when)
{
    l->attempts++;
    util_copy(l->last_status, sizeof l->last_status, status_name(r->status));
    util_copy(l->last_summary, sizeof l->last_summary, r->summary);
    util_copy(l->last_time, sizeof l->last_time, when);
    if (r->have_device && r->device_name[0] && !r->emulated)
        util_copy(l->gpu, sizeof l->gpu, r->device_name);
    if (r->status != STATUS_PASS)
        return;
    if (!l->passed)
        util_copy(l->first_pass, sizeof l->first_pass, when);
    l->cpu_only = r->emulated && (l->cpu_only || !l->passed);
    l->passed = 1;
    if (r->have_target && r->target_met)
        l->on_target = 1;
    record_best(l, r);
}

struct progress_change progress_record_check(struct progress *p, const struct catalog *cat, const struct result *r,
                                             const char *when)
{
    struct progress_change c = {.lab = -1};
    const struct lab *lab = cat ? catalog_find(cat, r->lab) : NULL;
    int nlabs = lab ? cat->nlabs : 0;
    unsigned char *locked = nlabs ? calloc((size_t)nlabs, 1) : NULL;
    struct progress_lab *l = progress_lab(p, r->lab, 1);

    if (lab) {
        c.lab = (int)(lab - cat->labs);
        c.was = progress_state(p, cat, c.lab, 0);
        for (int k = 0; locked && k < nlabs; k++)
            locked[k] = progress_state(p, cat, k, 0) == LAB_LOCKED;
    }
    if (l)
        record_lab(l, r, when);
    if (lab) {
        c.now = progress_state(p, cat, c.lab, 0);
        for (int k = 0; locked && k < nlabs && c.nopened < PROGRESS_OPENED_MAX; k++)
            if (locked[k] && progress_state(p, cat, k, 0) != LAB_LOCKED)
                c.opened[c.nopened++] = k;
    }
    free(locked);
    return c;
}

int progress_check_fn(struct progress *p, void *ud)
{
    struct progress_check *c = ud;
    c->change = progress_record_check(p, c->cat, c->r, c->when);
    return 0;
}

int progress_record_hint(struct progress *p, const char *id, int k)
{
    struct progress_lab *l = progress_lab(p, id, 1);
    if (!l)
        return 0;
    if (k > l->hints_used)
        l->hints_used = k;
    return l->hints_used;
}

int progress_hint_fn(struct progress *p, void *ud)
{
    struct progress_hint *h = ud;
    const struct progress_lab *l = progress_find(p, h->id);
    int used = l ? l->hints_used : 0;
    h->shown = h->k ? h->k : used < CATALOG_HINTS ? used + 1 : CATALOG_HINTS;
    progress_record_hint(p, h->id, h->shown);
    return 0;
}

enum lab_state progress_state(const struct progress *p, const struct catalog *cat, int i, int unlock_all)
{
    const struct progress_lab *l = progress_find(p, cat->labs[i].id), *prev;
    const struct lab *opener = catalog_opener(cat, &cat->labs[i]);
    if (l && l->on_target)
        return LAB_ON_TARGET;
    if (l && l->passed)
        return LAB_PASSED;
    if (!opener || unlock_all)
        return LAB_OPEN;
    prev = progress_find(p, opener->id);
    return prev && prev->passed ? LAB_OPEN : LAB_LOCKED;
}
