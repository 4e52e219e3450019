/* result.c — see result.h.  Lenient about missing keys (a bare harness report
 * has no compile section), strict about types. */
#include "model/result.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
#define STATUS_NAME_(e, json, code, letter, meaning) json,
    STATUS_TABLE(STATUS_NAME_)
#undef STATUS_NAME_
};
static const char *const meanings[] = {
#define STATUS_MEANING_(e, json, code, letter, meaning) meaning,
    STATUS_TABLE(STATUS_MEANING_)
#undef STATUS_MEANING_
};
static const int codes[] = {
#define STATUS_CODE_(e, json, code, letter, meaning) code,
    STATUS_TABLE(STATUS_CODE_)
#undef STATUS_CODE_
};

static const char letters[] = {
#define STATUS_LETTER_(e, json, code, letter, meaning) letter,
    STATUS_TABLE(STATUS_LETTER_)
#undef STATUS_LETTER_
};

const char *status_name(enum status s) { return s < STATUS_COUNT ? names[s] : "?"; }
const char *status_meaning(enum status s) { return s < STATUS_COUNT ? meanings[s] : "?"; }
int status_exit_code(enum status s) { return s < STATUS_COUNT ? codes[s] : 4; }
char status_letter(enum status s) { return s < STATUS_COUNT ? letters[s] : '?'; }

const char *result_detail(const struct result *r)
{
    const char *m = status_meaning(r->status), *s = r->summary ? r->summary : "";
    size_t n = strlen(m);
    if (strncmp(s, m, n))
        return s;
    if (!s[n])
        return s + n;
    return !strncmp(s + n, ": ", 2) ? s + n + 2 : s;
}

int status_from_name(const char *name)
{
    for (int i = 0; i < STATUS_COUNT; i++)
        if (name && !strcmp(names[i], name))
            return i;
    return -1;
}

static char *str(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return strdup(cJSON_IsString(v) ? v->valuestring : "");
}

/* A number, or dflt when absent or null. */
static double num(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static int flag(const cJSON *obj, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

static const cJSON *arr(const cJSON *obj, const char *key, int *n)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    *n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
    return *n ? v : NULL;
}

static void parse_tests(const cJSON *root, struct result *r)
{
    const cJSON *a = arr(root, "tests", &r->ntests), *t;
    int i = 0;
    r->tests = calloc((size_t)r->ntests + 1, sizeof *r->tests);
    cJSON_ArrayForEach(t, a) {
        struct rtest *x = &r->tests[i++];
        x->name = str(t, "name");
        x->n = (unsigned long long)num(t, "n", 0);
        x->expected = str(t, "expected");
        x->got = str(t, "got");
        x->pass = flag(t, "pass");
        x->message = str(t, "message");
        x->have_expected = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t, "expected"));
        x->have_got = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t, "got"));
        x->have_message = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(t, "message"));
    }
}

static void parse_perf(const cJSON *root, struct result *r)
{
    const cJSON *a = arr(root, "perf", &r->nperf), *p;
    int i = 0;
    r->perf = calloc((size_t)r->nperf + 1, sizeof *r->perf);
    cJSON_ArrayForEach(p, a) {
        struct rperf *x = &r->perf[i++];
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "time");
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(p, "reference");
        const cJSON *rt = ref ? cJSON_GetObjectItemCaseSensitive(ref, "time") : NULL;
        x->label = str(p, "label");
        x->input = str(p, "input");
        x->n = (unsigned long long)num(p, "n", 0);
        x->bytes = num(p, "bytes", 0);
        x->samples = (int)num(t, "samples", 0);
        x->median_ms = num(t, "median_ms", 0);
        x->min_ms = num(t, "min_ms", 0);
        x->max_ms = num(t, "max_ms", 0);
        x->gbps = num(p, "gbps", -1);
        x->pct_peak = num(p, "pct_peak", -1);
        x->rate = num(p, "rate", 0);
        x->rate_unit = str(p, "rate_unit");
        x->ref_name = ref ? str(ref, "name") : strdup("");
        x->ref_median_ms = num(rt, "median_ms", 0);
        x->ratio = num(p, "ratio", 0);
        x->implausible = flag(p, "implausible");
        x->implausible_why = str(p, "implausible_why");
    }
}

/* target.also: the further cases of a target of several. */
static void parse_also(const cJSON *target, struct result *r)
{
    const cJSON *a = arr(target, "also", &r->ntarget_also), *c;
    int i = 0;
    r->target_also = calloc((size_t)r->ntarget_also + 1, sizeof *r->target_also);
    cJSON_ArrayForEach(c, a) {
        struct rtarget_case *x = &r->target_also[i++];
        x->case_label = str(c, "case");
        x->min = num(c, "min", 0);
        x->value = num(c, "value", -1);
        x->met = flag(c, "met");
        x->catalog_min = num(c, "catalog_min", 0);
    }
}

static void parse_compile(const cJSON *root, struct result *r)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "compile"), *d;
    const cJSON *a = c ? arr(c, "diagnostics", &r->ndiags) : NULL;
    int i = 0;
    r->compile_log = c ? str(c, "log") : strdup("");
    r->compile_s = c ? num(c, "seconds", 0) : 0;
    r->diags = calloc((size_t)r->ndiags + 1, sizeof *r->diags);
    cJSON_ArrayForEach(d, a) {
        struct rdiag *x = &r->diags[i++];
        x->file = str(d, "file");
        x->line = (int)num(d, "line", 0);
        x->severity = str(d, "severity");
        x->message = str(d, "message");
    }
}

static void parse_rules(const cJSON *root, struct result *r)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "symbols"), *v;
    const cJSON *a = s ? arr(s, "violations", &r->nviol) : NULL;
    int i = 0;
    r->viol_symbols = calloc((size_t)r->nviol + 1, sizeof *r->viol_symbols);
    r->viol_rules = calloc((size_t)r->nviol + 1, sizeof *r->viol_rules);
    r->viol_defined = calloc((size_t)r->nviol + 1, sizeof *r->viol_defined);
    cJSON_ArrayForEach(v, a) {
        if (r->viol_defined)
            r->viol_defined[i] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "defined"));
        r->viol_symbols[i] = str(v, "symbol");
        r->viol_rules[i++] = str(v, "rule");
    }
    a = arr(root, "techniques", &r->ntech);
    r->tech = calloc((size_t)r->ntech + 1, sizeof *r->tech);
    i = 0;
    cJSON_ArrayForEach(v, a) {
        r->tech[i].name = str(v, "name");
        r->tech[i].found = flag(v, "found");
        r->tech[i++].why = str(v, "why");
    }
}

static void parse_sanitizer(const cJSON *root, struct result *r)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "sanitizer"), *v;
    const cJSON *a = s ? arr(s, "tools", &r->nsan) : NULL;
    int i = 0;
    r->sanitizer_ran = s ? flag(s, "ran") : 0;
    r->sanitizer_note = s ? str(s, "note") : strdup("");
    r->sanitize_s = s ? num(s, "seconds", 0) : 0;
    r->san = calloc((size_t)r->nsan + 1, sizeof *r->san);
    cJSON_ArrayForEach(v, a) {
        r->san[i].tool = str(v, "tool");
        r->san[i].clean = flag(v, "clean");
        r->san[i++].report = str(v, "report");
    }
}

static void parse_counters(const cJSON *root, struct result *r)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "counters"), *v;
    const cJSON *m = c ? cJSON_GetObjectItemCaseSensitive(c, "metrics") : NULL;
    int i = 0;
    r->counters_note = c ? str(c, "note") : strdup("");
    r->ncounters = cJSON_IsObject(m) ? cJSON_GetArraySize(m) : 0;
    r->counter_names = calloc((size_t)r->ncounters + 1, sizeof *r->counter_names);
    r->counter_values = calloc((size_t)r->ncounters + 1, sizeof *r->counter_values);
    const cJSON *items = r->ncounters ? m : NULL;
    cJSON_ArrayForEach(v, items) {
        r->counter_names[i] = strdup(v->string);
        r->counter_values[i++] = cJSON_IsNumber(v) ? v->valuedouble : 0;
    }
}

static void parse_messages(const cJSON *root, struct result *r)
{
    const cJSON *a = arr(root, "messages", &r->nmsgs), *v;
    int i = 0;
    r->messages = calloc((size_t)r->nmsgs + 1, sizeof *r->messages);
    cJSON_ArrayForEach(v, a)
        r->messages[i++] = strdup(cJSON_IsString(v) ? v->valuestring : "");
}

int result_parse(const char *json, struct result *r, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(json);
    const cJSON *v;
    char *status = NULL;
    int st;

    memset(r, 0, sizeof *r);
    if (!root || !cJSON_IsObject(root)) {
        snprintf(err, errlen, "not a JSON object");
        cJSON_Delete(root);
        return -1;
    }
    r->schema = (int)num(root, "schema", 0);
    if (r->schema < 1 || r->schema > RESULT_SCHEMA) {
        snprintf(err, errlen, "result schema %d; this tutor reads 1 to %d", r->schema, RESULT_SCHEMA);
        cJSON_Delete(root);
        return -1;
    }
    status = str(root, "status");
    if ((st = status_from_name(status)) < 0) {
        snprintf(err, errlen, "unknown status \"%s\"", status ? status : "");
        free(status);
        cJSON_Delete(root);
        return -1;
    }
    free(status);
    r->status = (enum status)st;
    r->lab = str(root, "lab");
    r->family = str(root, "family");
    r->file = str(root, "file");
    r->summary = str(root, "summary");
    r->seed = (unsigned long long)num(root, "seed", 0);
    r->have_seed = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(root, "seed"));
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "device")) && cJSON_IsObject(v)) {
        r->have_device = 1;
        r->device_name = str(v, "name");
        r->device_cc = str(v, "cc");
        r->theoretical_gbps = num(v, "theoretical_gbps", 0);
        r->read_gbps = num(v, "read_gbps", 0);
        r->copy_gbps = num(v, "copy_gbps", 0);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "emulator")) && cJSON_IsObject(v)) {
        r->emulated = 1;
        r->emu_max_n = (unsigned long long)num(v, "max_n", 0);
    }
    parse_tests(root, r);
    r->first_failing_n = (unsigned long long)num(root, "first_failing_n", 0);
    parse_perf(root, r);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "target")) && cJSON_IsObject(v)) {
        r->have_target = 1;
        r->target_metric = str(v, "metric");
        r->target_case = str(v, "case");
        r->target_min = num(v, "min", 0);
        r->target_value = num(v, "value", 0);
        r->target_have_value = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(v, "value"));
        r->target_json = cJSON_PrintUnformatted(v);
        r->target_met = flag(v, "met");
        r->target_catalog_min = num(v, "catalog_min", 0);
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "calibration");
        if (cJSON_IsObject(c)) {
            r->target_cal.have = 1;
            r->target_cal.lowered = flag(c, "lowered");
            r->target_cal.gpu = str(c, "gpu");
            r->target_cal.catalog_gpu = str(c, "catalog_gpu");
            r->target_cal.solution_here = num(c, "solution_here", -1);
            r->target_cal.catalog_solution = num(c, "catalog_solution", 0);
            r->target_cal.case_label = str(c, "case");
        }
        parse_also(v, r);
    }
    parse_compile(root, r);
    parse_rules(root, r);
    parse_sanitizer(root, r);
    parse_counters(root, r);
    parse_messages(root, r);
    r->output = str(root, "output");
    r->run_s = num(root, "run_s", 0);
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "timing"))) {
        r->total_s = num(v, "total_s", 0);
        r->have_total_s = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(v, "total_s"));
    }
    cJSON_Delete(root);
    return 0;
}

static void free_strv(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void result_free(struct result *r)
{
    free(r->lab);
    free(r->family);
    free(r->file);
    free(r->summary);
    free(r->device_name);
    free(r->device_cc);
    for (int i = 0; r->tests && i < r->ntests; i++) {
        free(r->tests[i].name);
        free(r->tests[i].expected);
        free(r->tests[i].got);
        free(r->tests[i].message);
    }
    free(r->tests);
    for (int i = 0; r->perf && i < r->nperf; i++) {
        free(r->perf[i].label);
        free(r->perf[i].input);
        free(r->perf[i].rate_unit);
        free(r->perf[i].ref_name);
        free(r->perf[i].implausible_why);
    }
    free(r->perf);
    free(r->target_metric);
    free(r->target_case);
    free(r->target_cal.gpu);
    free(r->target_cal.catalog_gpu);
    free(r->target_cal.case_label);
    for (int i = 0; r->target_also && i < r->ntarget_also; i++)
        free(r->target_also[i].case_label);
    free(r->target_also);
    if (r->target_json)
        cJSON_free(r->target_json);
    free(r->compile_log);
    for (int i = 0; r->diags && i < r->ndiags; i++) {
        free(r->diags[i].file);
        free(r->diags[i].severity);
        free(r->diags[i].message);
    }
    free(r->diags);
    free_strv(r->viol_symbols, r->nviol);
    free_strv(r->viol_rules, r->nviol);
    free(r->viol_defined);
    for (int i = 0; r->tech && i < r->ntech; i++) {
        free(r->tech[i].name);
        free(r->tech[i].why);
    }
    free(r->tech);
    free(r->sanitizer_note);
    for (int i = 0; r->san && i < r->nsan; i++) {
        free(r->san[i].tool);
        free(r->san[i].report);
    }
    free(r->san);
    free_strv(r->counter_names, r->ncounters);
    free(r->counter_values);
    free(r->counters_note);
    free(r->output);
    free_strv(r->messages, r->nmsgs);
    memset(r, 0, sizeof *r);
}

const struct rperf *result_perf(const struct result *r, const char *label)
{
    for (int i = 0; label && i < r->nperf; i++)
        if (!strcmp(r->perf[i].label, label))
            return &r->perf[i];
    return NULL;
}

const struct rdiag *result_first_error(const struct result *r)
{
    for (int i = 0; i < r->ndiags; i++)
        if (r->diags[i].severity && !strcmp(r->diags[i].severity, "error"))
            return &r->diags[i];
    return r->ndiags ? &r->diags[0] : NULL;
}

const char *result_violation_verb(const struct result *r, int i)
{
    return r->viol_defined && i >= 0 && i < r->nviol && r->viol_defined[i] ? "defines" : "uses";
}

const struct rperf *result_target_perf(const struct result *r)
{
    return r->have_target ? result_perf(r, r->target_case) : NULL;
}
