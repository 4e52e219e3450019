/* rubric.c — see rubric.h.  The rules run in one fixed order and the
 * first that fails is the one reported, so a bad rubric always gets the
 * same sentence; not_graded may name only statuses status.h knows, and
 * gradescope's visibilities only the ones Gradescope accepts (a typo there
 * would grade silently otherwise). */
#include "model/rubric.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/result.h"
#include "sys/sha256.h"
#include "sys/util.h"

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

/* An optional field: absent, null and false take the default. */
static int absent(const cJSON *v)
{
    return !v || cJSON_IsNull(v) || cJSON_IsFalse(v);
}

/* A number >= 0. */
static int num(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0;
}

/* Both points of a lab or of the default, when they are numbers >= 0. */
static int points(const cJSON *o, struct rubric_points *p)
{
    const cJSON *c = get(o, "correctness"), *f = get(o, "performance");
    if (!num(c) || !num(f))
        return -1;
    p->correctness = c->valuedouble;
    p->performance = f->valuedouble;
    return 0;
}

/* An optional fraction in [0, 1]; dflt when absent. */
static int fraction(const cJSON *v, double dflt, double *out)
{
    if (absent(v)) {
        *out = dflt;
        return 0;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1)
        return -1;
    *out = v->valuedouble;
    return 0;
}

static int visibility(const cJSON *v, const char *dflt, char **out)
{
    static const char *const ok[] = {"visible", "hidden", "after_due_date", "after_published"};
    if (absent(v)) {
        *out = strdup(dflt);
        return *out ? 0 : -1;
    }
    for (size_t i = 0; cJSON_IsString(v) && i < sizeof ok / sizeof ok[0]; i++)
        if (!strcmp(v->valuestring, ok[i])) {
            *out = strdup(ok[i]);
            return *out ? 0 : -1;
        }
    return -1;
}

/* The checks in load_rubric's order; the first problem, or NULL.  Fills rb
 * as it goes. */
static const char *validate(const cJSON *root, struct rubric *rb, char *buf, size_t len)
{
    const cJSON *labs = get(root, "labs"), *v;
    const cJSON *schema = get(root, "schema");
    if (!cJSON_IsNumber(schema) || schema->valuedouble != RUBRIC_SCHEMA)
        return "schema must be 1";
    if (!cJSON_IsObject(labs))
        return "labs must be an object of lab ids";
    rb->labs = calloc((size_t)cJSON_GetArraySize(labs) + 1, sizeof *rb->labs);
    if (!rb->labs)
        return "out of memory";
    cJSON_ArrayForEach(v, labs) {
        struct rubric_lab *l = &rb->labs[rb->nlabs];
        if (points(v, &l->points))
            return "every lab needs correctness and performance points (numbers >= 0)";
        if (!(l->id = strdup(v->string)))
            return "out of memory";
        rb->nlabs++;
    }
    v = get(root, "default");
    if (!cJSON_IsNull(v) && v) {
        if (points(v, &rb->fallback))
            return "default needs correctness and performance points";
        rb->have_default = 1;
    }
    v = get(root, "performance");
    if (v && !cJSON_IsNull(v) && !cJSON_IsObject(v))
        return "performance.partial_from must be between 0 and 1";
    if (fraction(get(v, "partial_from"), 0.5, &rb->partial_from))
        return "performance.partial_from must be between 0 and 1";
    if (fraction(get(root, "fail_credit"), 0, &rb->fail_credit))
        return "fail_credit must be between 0 and 1";
    v = get(root, "rejected_penalty");
    if (!absent(v) && !num(v))
        return "rejected_penalty must be a number >= 0";
    rb->rejected_penalty = absent(v) ? 0 : v->valuedouble;
    v = get(root, "not_graded");
    if (absent(v)) {
        rb->not_graded[STATUS_NO_GPU] = rb->not_graded[STATUS_INTERNAL_ERROR] = 1;
    } else {
        const cJSON *s;
        if (!cJSON_IsArray(v))
            return "not_graded must be a list of statuses";
        cJSON_ArrayForEach(s, v) {
            int st = cJSON_IsString(s) ? status_from_name(s->valuestring) : -1;
            if (st < 0) {
                snprintf(buf, len, "not_graded: \"%s\" is not a status (status.h names them)",
                         cJSON_IsString(s) ? s->valuestring : "?");
                return buf;
            }
            rb->not_graded[st] = 1;
        }
    }
    v = get(root, "gradescope");
    if (v && !cJSON_IsNull(v) && !cJSON_IsObject(v))
        return "gradescope must be an object";
    if (visibility(get(v, "visibility"), "visible", &rb->visibility))
        return "gradescope.visibility must be visible, hidden, after_due_date or after_published";
    if (visibility(get(v, "stdout_visibility"), "hidden", &rb->stdout_visibility))
        return "gradescope.stdout_visibility must be visible, hidden, after_due_date or after_published";
    return NULL;
}

int rubric_parse(struct rubric *rb, const char *text, size_t len, const char *name, char *err, size_t errlen)
{
    char buf[256], hex[2 * SHA256_BYTES + 1];
    const char *problem;
    int rc = -1;

    memset(rb, 0, sizeof *rb);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        int line = 1;
        for (const char *p = text; at && p < at && p < text + len; p++)
            line += *p == '\n';
        snprintf(err, errlen, "%s is not valid JSON: a parse error at line %d", name, line);
        goto done;
    }
    if (!cJSON_IsObject(root)) {
        snprintf(err, errlen, "%s is not valid JSON: not an object", name);
        goto done;
    }
    if ((problem = validate(root, rb, buf, sizeof buf))) {
        snprintf(err, errlen, "%s: %s", name, problem);
        goto done;
    }
    sha256_hex(text, len, hex);
    memcpy(rb->sha256, hex, 16);
    rb->sha256[16] = '\0';
    rc = 0;
done:
    cJSON_Delete(root);
    if (rc)
        rubric_free(rb);
    return rc;
}

int rubric_load(struct rubric *rb, const char *path, char *err, size_t errlen)
{
    size_t len = 0;
    char *text = util_read_file(path, &len);
    memset(rb, 0, sizeof *rb);
    if (!text) {
        if (errno == ENOENT)
            snprintf(err, errlen, "no rubric at %s", path);
        else
            snprintf(err, errlen, "cannot read the rubric %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = rubric_parse(rb, text, len, path, err, errlen);
    free(text);
    return rc;
}

void rubric_free(struct rubric *rb)
{
    for (int i = 0; rb->labs && i < rb->nlabs; i++)
        free(rb->labs[i].id);
    free(rb->labs);
    free(rb->visibility);
    free(rb->stdout_visibility);
    memset(rb, 0, sizeof *rb);
}

const struct rubric_points *rubric_points(const struct rubric *rb, const char *lab)
{
    for (int i = 0; i < rb->nlabs; i++)
        if (!strcmp(rb->labs[i].id, lab))
            return &rb->labs[i].points;
    return rb->have_default ? &rb->fallback : NULL;
}

int rubric_check_labs(const struct rubric *rb, const char *name, const char *const *ids, int n,
                      char *err, size_t errlen)
{
    for (int i = 0; i < n; i++)
        if (!rubric_points(rb, ids[i])) {
            snprintf(err, errlen, "%s has no points for lab %s (and no default)", name, ids[i]);
            return -1;
        }
    return 0;
}
