/* progress.c — see progress.h.  The file is small (ten labs), so every
 * update rewrites it whole; what makes that safe is the order: lock, re-read,
 * change, write a temporary, fsync, rename, fsync the folder, unlock. */
#include "model/progress.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/jsonw.h"
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
    if (p->nlabs == p->cap) {
        int ncap = p->cap ? 2 * p->cap : 16;
        struct progress_lab *n = realloc(p->labs, (size_t)ncap * sizeof *n);
        if (!n)
            return NULL;
        p->labs = n;
        p->cap = ncap;
    }
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

static void get_str(const cJSON *o, const char *key, char *dst, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    util_copy(dst, len, cJSON_IsString(v) ? v->valuestring : "");
}

static double get_num(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static void parse_lab(struct progress_lab *l, const cJSON *o)
{
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(o, "best");
    const cJSON *last = cJSON_GetObjectItemCaseSensitive(o, "last");
    char state[16];

    get_str(o, "state", state, sizeof state);
    l->on_target = !strcmp(state, "on_target");
    l->passed = l->on_target || !strcmp(state, "passed");
    get_str(o, "passed_on", state, sizeof state);
    l->cpu_only = l->passed && !strcmp(state, "cpu");
    l->attempts = (int)get_num(o, "attempts", 0);
    l->hints_used = (int)get_num(o, "hints_used", 0);
    get_str(o, "first_pass", l->first_pass, sizeof l->first_pass);
    get_str(o, "gpu", l->gpu, sizeof l->gpu);
    if (cJSON_IsObject(last)) {
        get_str(last, "status", l->last_status, sizeof l->last_status);
        get_str(last, "summary", l->last_summary, sizeof l->last_summary);
        get_str(last, "time", l->last_time, sizeof l->last_time);
    }
    if (cJSON_IsObject(best)) {
        struct progress_best *b = &l->best;
        b->have = 1;
        get_str(best, "case", b->case_label, sizeof b->case_label);
        b->n = (unsigned long long)get_num(best, "n", 0);
        b->ms = get_num(best, "ms", 0);
        b->gbps = get_num(best, "gbps", -1);
        b->pct_peak = get_num(best, "pct_peak", -1);
        b->ratio = get_num(best, "ratio", 0);
        b->rate = get_num(best, "rate", 0);
        get_str(best, "rate_unit", b->rate_unit, sizeof b->rate_unit);
        b->peak_gbps = get_num(best, "peak_gbps", -1);
        b->ref_gbps = get_num(best, "ref_gbps", -1);
        get_str(best, "ref_name", b->ref_name, sizeof b->ref_name);
    }
}

int progress_parse(struct progress *p, const char *text, char *err, size_t errlen)
{
    void *parsed;
    cJSON *root = NULL;
    const cJSON *labs, *o;
    int rc = PROGRESS_ERROR;

    progress_init(p);
    switch (jsonw_read_versioned(text, PROGRESS_SCHEMA, &parsed, err, errlen)) {
    case JSONW_READ_OK: root = parsed; break;
    case JSONW_READ_NEWER: rc = PROGRESS_NEWER; goto out;
    default: goto out;
    }
    labs = cJSON_GetObjectItemCaseSensitive(root, "labs");
    if (labs && !cJSON_IsObject(labs)) {
        snprintf(err, errlen, "\"labs\" is not an object");
        goto out;
    }
    cJSON_ArrayForEach(o, labs) {
        struct progress_lab *l;
        if (!cJSON_IsObject(o)) {
            snprintf(err, errlen, "labs.%s is not an object", o->string);
            goto out;
        }
        if (!(l = progress_lab(p, o->string, 1))) {
            snprintf(err, errlen, "bad lab id \"%s\" (or out of memory)", o->string);
            goto out;
        }
        parse_lab(l, o);
    }
    rc = PROGRESS_OK;
out:
    if (rc != PROGRESS_OK)
        progress_free(p);
    cJSON_Delete(root);
    return rc;
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

char *progress_format(const struct progress *p)
{
    cJSON *root = cJSON_CreateObject(), *labs;
    struct progress_lab *sorted = NULL;
    char *text = NULL;

    if (!root || !(labs = (cJSON_AddNumberToObject(root, "schema", PROGRESS_SCHEMA),
                           cJSON_AddObjectToObject(root, "labs"))))
        goto out;
    if (p->nlabs && !(sorted = malloc((size_t)p->nlabs * sizeof *sorted)))
        goto out;
    if (p->nlabs) {
        memcpy(sorted, p->labs, (size_t)p->nlabs * sizeof *sorted);
        qsort(sorted, (size_t)p->nlabs, sizeof *sorted, by_id);
    }
    for (int i = 0; i < p->nlabs; i++)
        format_lab(labs, &sorted[i]);
    text = cJSON_Print(root);
out:
    free(sorted);
    cJSON_Delete(root);
    return text;
}

/* ---- the file ----------------------------------------------------------- */

/* Takes the exclusive lock on path.lock; returns its fd, or -1 with errno.
 * The lock is only ever held for one read-change-write, so waiting is brief. */
static int lock_take(const char *path)
{
    char *lp = util_format("%s.lock", path);
    int fd = lp ? util_lock(lp) : -1;
    free(lp);
    return fd;
}

static void lock_drop(int fd)
{
    if (fd >= 0)
        close(fd);      /* closing releases the flock */
}

/* Renames a corrupt file aside; writes where to *note. */
static int move_aside(const char *path, const char *why, char *note, size_t notelen, char *err, size_t errlen)
{
    char aside[1024];
    if (util_move_aside(path, aside, sizeof aside) != 0) {
        snprintf(err, errlen, "%s is not valid progress (%s) and could not be moved aside: %s", path, why,
                 strerror(errno));
        return PROGRESS_ERROR;
    }
    snprintf(note, notelen, "%s was not valid progress (%s); kept it as %s and started afresh", path, why,
             aside);
    return PROGRESS_OK;
}

/* Reads path into p with the lock held (or, when locked is 0, without being
 * allowed to move a corrupt file). */
static int read_locked(const char *path, int locked, struct progress *p, char *note, size_t notelen, char *err,
                       size_t errlen)
{
    char why[200];
    char *text = util_read_file(path, NULL);
    int rc;

    progress_init(p);
    if (!text) {
        if (errno == ENOENT)
            return PROGRESS_OK;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return PROGRESS_ERROR;
    }
    rc = progress_parse(p, text, why, sizeof why);
    free(text);
    if (rc == PROGRESS_NEWER) {
        snprintf(err, errlen, "%s was %s; left it untouched (update the workbook, or use --progress PATH)",
                 path, why);
        return rc;
    }
    if (rc == PROGRESS_ERROR) {
        if (!locked) {
            snprintf(err, errlen, "%s is not valid progress (%s)", path, why);
            return rc;
        }
        return move_aside(path, why, note, notelen, err, errlen);
    }
    return PROGRESS_OK;
}

int progress_load(const char *path, struct progress *p, char *note, size_t notelen, char *err, size_t errlen)
{
    int fd = lock_take(path), rc;
    if (notelen)
        note[0] = '\0';
    /* A folder we cannot write to still has progress to show. */
    rc = read_locked(path, fd >= 0, p, note, notelen, err, errlen);
    lock_drop(fd);
    return rc;
}

/* Whether the mode bits of a file give its writer (by the owner, group or
 * other class this process falls in) the right to write it.  The bits, not
 * access(2): root may write anything, yet a student who made the file
 * read-only asked for it to be left alone. */
static int mode_writable(const struct stat *st)
{
    if (st->st_uid == geteuid())
        return (st->st_mode & S_IWUSR) != 0;
    if (st->st_gid == getegid())
        return (st->st_mode & S_IWGRP) != 0;
    return (st->st_mode & S_IWOTH) != 0;
}

int progress_update(const char *path, progress_fn fn, void *ud, struct progress *out, char *note,
                    size_t notelen, char *err, size_t errlen)
{
    struct progress p;
    struct stat st;
    char *text = NULL;
    int fd, rc, exists;

    if (notelen)
        note[0] = '\0';
    progress_init(&p);
    if ((fd = lock_take(path)) < 0) {
        snprintf(err, errlen, "cannot lock %s.lock: %s", path, strerror(errno));
        return PROGRESS_ERROR;
    }
    /* The file is replaced by a rename, which its own mode would not stop:
     * a read-only file is refused here, and a writable one keeps its mode. */
    exists = stat(path, &st) == 0;
    if (exists && !mode_writable(&st)) {
        snprintf(err, errlen, "%s is read-only (mode %04o); left it untouched (chmod u+w it to record progress)",
                 path, (unsigned)(st.st_mode & 07777));
        rc = PROGRESS_ERROR;
        goto out;
    }
    if ((rc = read_locked(path, 1, &p, note, notelen, err, errlen)) != PROGRESS_OK)
        goto out;
    if (fn(&p, ud) != 0)
        goto out;
    rc = PROGRESS_ERROR;
    if (!(text = progress_format(&p))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (util_write_file(path, text, strlen(text)) != 0 || (exists && chmod(path, st.st_mode & 07777) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    util_sync_dir(path);
    rc = PROGRESS_OK;
out:
    lock_drop(fd);
    free(text);
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
