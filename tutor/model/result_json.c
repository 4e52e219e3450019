/* result_json.c — see result.h: reading a report's JSON, merging the
 * judge's into a check's result (and a build's, for --run-only), and
 * copying one through its JSON.
 * Lenient about missing keys (a bare harness report has no compile
 * section), strict about types.  The judge's sections (JUDGE_KEYS) are
 * read into typed fields like the rest, with what result_write.c needs to
 * write them back as the judge wrote them: which keys were there, which
 * were null. */
#include "model/result.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

/* The judge's keys a check report takes over whole (docs/harness.md 9.2),
 * in the order the report writes them. */
static const char *const JUDGE_KEYS[] = {"device", "tests", "first_failing_n", "tolerance_used", "perf",
                                         "mode", "phases", "plan", "emulator", NULL};

/* ---- reading ------------------------------------------------------------ */

static char *str(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return strdup(cJSON_IsString(v) ? v->valuestring : "");
}

/* The string, or NULL when absent. */
static char *str_or_null(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

/* A number, or dflt when absent or null. */
static double num(const cJSON *obj, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static int has_num(const cJSON *obj, const char *key)
{
    return cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(obj, key));
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

/* Whether obj's key is there, and null. */
static int is_null(const cJSON *obj, const char *key)
{
    return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(obj, key));
}

static int has(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key) != NULL;
}

static void parse_tests(const cJSON *root, struct result *r)
{
    const cJSON *a = arr(root, "tests", &r->ntests), *t;
    r->have_tests = has(root, "tests");
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
    r->first_failing_n = (unsigned long long)num(root, "first_failing_n", 0);
    r->have_first_failing = has(root, "first_failing_n");
    r->have_tolerance = has_num(root, "tolerance_used");
    r->tolerance_used = num(root, "tolerance_used", 0);
    r->mode = str_or_null(root, "mode");
}

/* A timing object's figures ({"samples", "median_ms", "min_ms",
 * "max_ms"}), the null ones marked in *nulls with the bits given. */
static void parse_timing(const cJSON *t, int *samples, double *median, double *min, double *max,
                         unsigned *nulls, unsigned bmed, unsigned bmin, unsigned bmax)
{
    *samples = (int)num(t, "samples", 0);
    *median = num(t, "median_ms", 0);
    *min = num(t, "min_ms", 0);
    *max = num(t, "max_ms", 0);
    *nulls |= (is_null(t, "median_ms") ? bmed : 0) | (is_null(t, "min_ms") ? bmin : 0) |
              (is_null(t, "max_ms") ? bmax : 0);
}

static void parse_perf(const cJSON *root, struct result *r)
{
    const cJSON *a = arr(root, "perf", &r->nperf), *p;
    int i = 0;
    r->have_perf = has(root, "perf");
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
        parse_timing(t, &x->samples, &x->median_ms, &x->min_ms, &x->max_ms, &x->nulls, RP_MEDIAN,
                     RP_MIN, RP_MAX);
        x->n_catalog = (unsigned long long)num(p, "n_catalog", 0);
        x->gbps = num(p, "gbps", -1);
        x->pct_peak = num(p, "pct_peak", -1);
        x->rate = num(p, "rate", 0);
        x->rate_unit = str(p, "rate_unit");
        x->peak_rate = num(p, "peak_rate", -1);
        x->ref_name = ref ? str(ref, "name") : strdup("");
        parse_timing(rt, &x->ref_samples, &x->ref_median_ms, &x->ref_min_ms, &x->ref_max_ms, &x->nulls,
                     RP_REF_MEDIAN, RP_REF_MIN, RP_REF_MAX);
        x->ratio = num(p, "ratio", 0);
        x->implausible = flag(p, "implausible");
        x->implausible_why = str(p, "implausible_why");
        x->nulls |= (is_null(p, "ratio") ? RP_RATIO : 0) | (is_null(p, "rate") ? RP_RATE : 0);
        x->keys = (has(p, "n_catalog") ? RP_N_CATALOG : 0) | (has(p, "peak_rate") ? RP_PEAK_RATE : 0) |
                  (has(p, "implausible_why") ? RP_WHY : 0);
    }
}

static void parse_device(const cJSON *root, struct result *r)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "device");
    r->device_null = cJSON_IsNull(v);
    if (!cJSON_IsObject(v))
        return;
    r->have_device = 1;
    r->device_name = str(v, "name");
    r->device_cc = str(v, "cc");
#define PARSE_FIGURE_(type, field, key, unmeasured) r->field = (type)num(v, key, 0);
    RESULT_DEVICE_FIGURES(PARSE_FIGURE_)
#undef PARSE_FIGURE_
}

static void parse_plan(const cJSON *root, struct result *r)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "plan");
    const cJSON *seen = cJSON_GetObjectItemCaseSensitive(p, "seen");
    const cJSON *s;
    r->plan_plans = has_num(p, "plans") ? (int)num(p, "plans", 0) : -1;
    r->plan_nseen = cJSON_IsArray(seen) ? cJSON_GetArraySize(seen) : 0;
    r->plan_seen = calloc((size_t)r->plan_nseen + 1, sizeof *r->plan_seen);
    const cJSON *list = r->plan_seen ? seen : NULL;
    int i = 0;
    cJSON_ArrayForEach(s, list)
        r->plan_seen[i++] = strdup(cJSON_IsString(s) ? s->valuestring : "");
    r->plan_checked_against = str(p, "checked_against");
    r->plan_violation = str_or_null(p, "violation");
    const cJSON *ph = cJSON_GetObjectItemCaseSensitive(root, "phases");
    if ((r->have_phases = cJSON_IsObject(ph))) {
        r->phase_init_s = num(ph, "init_s", 0);
        r->phase_correctness_s = num(ph, "correctness_s", 0);
        r->phase_gpu_wait_s = num(ph, "gpu_wait_s", 0);
        r->phase_timing_s = num(ph, "timing_s", 0);
    }
}

static void parse_emulator(const cJSON *root, struct result *r)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "emulator");
    const cJSON *not_run = cJSON_GetObjectItemCaseSensitive(v, "not_run");
    if (!cJSON_IsObject(v))
        return;
    const cJSON *s;
    r->emulated = 1;
    r->emu_max_n = (unsigned long long)num(v, "max_n", 0);
    r->emu_not_run = cJSON_IsArray(not_run) ? cJSON_GetArraySize(not_run) : 0;
    r->emu_not_run_n = calloc((size_t)r->emu_not_run + 1, sizeof *r->emu_not_run_n);
    const cJSON *list = r->emu_not_run_n ? not_run : NULL;
    int i = 0;
    cJSON_ArrayForEach(s, list)
        r->emu_not_run_n[i++] = cJSON_IsNumber(s) ? (unsigned long long)s->valuedouble : 0;
    r->emu_student_instr = (unsigned long long)num(v, "student_instructions", 0);
    r->emu_judge_instr = (unsigned long long)num(v, "judge_instructions", 0);
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

static void parse_target(const cJSON *root, struct result *r)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "target");
    if (!cJSON_IsObject(v))
        return;
    r->have_target = 1;
    r->target_metric = str(v, "metric");
    r->target_case = str(v, "case");
    r->target_min = num(v, "min", 0);
    r->target_value = num(v, "value", 0);
    r->target_have_value = has_num(v, "value");
    r->target_met = flag(v, "met");
    r->target_provisional = flag(v, "provisional");
    r->target_note = str_or_null(v, "note");
    r->target_catalog_min = num(v, "catalog_min", 0);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(v, "calibration");
    if (cJSON_IsObject(c)) {
        r->target_cal.have = 1;
        r->target_cal.lowered = flag(c, "lowered");
        r->target_cal.gpu = str(c, "gpu");
        r->target_cal.measured = str(c, "measured");
        r->target_cal.why = str(c, "why");
        r->target_cal.catalog_gpu = str(c, "catalog_gpu");
        r->target_cal.solution_here = num(c, "solution_here", -1);
        r->target_cal.catalog_solution = num(c, "catalog_solution", 0);
        r->target_cal.case_label = str(c, "case");
    }
    parse_also(v, r);
}

static void parse_compile(const cJSON *root, struct result *r)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "compile"), *d;
    const cJSON *a = c ? arr(c, "diagnostics", &r->ndiags) : NULL;
    int i = 0;
    r->have_compile = cJSON_IsObject(c);
    r->compile_ok = flag(c, "ok");
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
    r->have_symbols = cJSON_IsObject(s);
    r->symbols_checked = flag(s, "checked");
    r->have_violations = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s, "violations"));
    r->viol_symbols = calloc((size_t)r->nviol + 1, sizeof *r->viol_symbols);
    r->viol_rules = calloc((size_t)r->nviol + 1, sizeof *r->viol_rules);
    r->viol_defined = calloc((size_t)r->nviol + 1, sizeof *r->viol_defined);
    cJSON_ArrayForEach(v, a) {
        if (r->viol_defined)
            r->viol_defined[i] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(v, "defined"));
        r->viol_symbols[i] = str(v, "symbol");
        r->viol_rules[i++] = str(v, "rule");
    }
    r->have_tech = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "techniques"));
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
    r->have_sanitizer = cJSON_IsObject(s);
    r->sanitizer_ran = s ? flag(s, "ran") : 0;
    r->sanitize_pending = s ? flag(s, "pending") : 0;
    r->sanitizer_note = s ? str(s, "note") : strdup("");
    r->sanitize_s = s ? num(s, "seconds", 0) : 0;
    r->have_sanitize_s = has_num(s, "seconds");
    r->san = calloc((size_t)r->nsan + 1, sizeof *r->san);
    cJSON_ArrayForEach(v, a) {
        r->san[i].tool = str(v, "tool");
        r->san[i].clean = flag(v, "clean");
        r->san[i].seconds = num(v, "seconds", -1);
        r->san[i++].report = str(v, "report");
    }
}

static void parse_gpu_via(const cJSON *root, struct result *r)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "gpu_via");
    if (!cJSON_IsObject(v))
        return;
    r->gpu_via.have = 1;
    r->gpu_via.command = str(v, "command");
    r->gpu_via.ran = flag(v, "ran");
    r->gpu_via.queued_s = num(v, "queued_s", 0);
    r->gpu_via.gpu = str_or_null(v, "gpu");
    r->gpu_via.arch = str(v, "arch");
    r->gpu_via.cpu_status = str_or_null(v, "cpu_status");
    r->gpu_via.failed = str_or_null(v, "failed");
    r->gpu_via.retry_s = num(v, "retry_s", 0);
}

static void parse_counters(const cJSON *root, struct result *r)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "counters"), *v;
    const cJSON *m = c ? cJSON_GetObjectItemCaseSensitive(c, "metrics") : NULL;
    int i = 0;
    r->have_counters = cJSON_IsObject(c);
    r->counters_note = c ? str(c, "note") : strdup("");
    r->counters_tool = c ? str(c, "tool") : strdup("");
    r->counters_n = (unsigned long long)num(c, "n", 0);
    r->counters_kernels = (int)num(c, "kernels", 0);
    r->counters_s = num(c, "seconds", 0);
    r->ncounters = cJSON_IsObject(m) ? cJSON_GetArraySize(m) : 0;
    r->counter_names = calloc((size_t)r->ncounters + 1, sizeof *r->counter_names);
    r->counter_values = calloc((size_t)r->ncounters + 1, sizeof *r->counter_values);
    const cJSON *items = r->ncounters ? m : NULL;
    cJSON_ArrayForEach(v, items) {
        r->counter_names[i] = strdup(v->string);
        r->counter_values[i++] = cJSON_IsNumber(v) ? v->valuedouble : 0;
    }
}

static void parse_predicted(const cJSON *root, struct result *r)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "predicted");
    const cJSON *from = c ? cJSON_GetObjectItemCaseSensitive(c, "from_n") : NULL;
    struct rpredicted *p = &r->predicted;
    char *t;
    if (!(r->have_predicted = cJSON_IsObject(c)))
        return;
    t = str(c, "gpu");
    snprintf(p->gpu, sizeof p->gpu, "%s", t ? t : "");
    free(t);
    t = str(c, "case");
    snprintf(p->case_label, sizeof p->case_label, "%s", t ? t : "");
    free(t);
    t = str(c, "bound");
    snprintf(p->bound, sizeof p->bound, "%s", t ? t : "");
    free(t);
    p->n = (unsigned long long)num(c, "n", 0);
    for (int i = 0; i < 2; i++) {
        const cJSON *v = cJSON_GetArrayItem(from, i);
        p->from_n[i] = cJSON_IsNumber(v) ? (unsigned long long)v->valuedouble : 0;
    }
    p->seconds = num(c, "seconds", 0);
    p->ref_seconds = num(c, "reference_seconds", 0);
    p->ratio = num(c, "ratio", 0);
}

static void parse_messages(const cJSON *root, struct result *r)
{
    const cJSON *a = arr(root, "messages", &r->nmsgs), *v;
    int i = 0;
    r->messages = calloc((size_t)r->nmsgs + 1, sizeof *r->messages);
    cJSON_ArrayForEach(v, a)
        r->messages[i++] = strdup(cJSON_IsString(v) ? v->valuestring : "");
}

/* Everything but the schema and the status, which the callers check. */
static void parse_root(const cJSON *root, struct result *r)
{
    const cJSON *v;
    r->tool = str(root, "tool");
    r->lab = str(root, "lab");
    r->family = str(root, "family");
    r->file = str(root, "file");
    r->summary = str(root, "summary");
    r->stage = flag(root, "built") ? RESULT_BUILT : RESULT_JUDGED;
    r->source_hash = str_or_null(root, "source_hash");
    r->seed = (unsigned long long)num(root, "seed", 0);
    r->have_seed = has_num(root, "seed");
    parse_device(root, r);
    parse_emulator(root, r);
    parse_tests(root, r);
    parse_perf(root, r);
    parse_plan(root, r);
    parse_target(root, r);
    parse_compile(root, r);
    parse_rules(root, r);
    parse_gpu_via(root, r);
    parse_sanitizer(root, r);
    parse_counters(root, r);
    parse_predicted(root, r);
    parse_messages(root, r);
    r->have_output = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "output"));
    r->output = str(root, "output");
    r->run_s = num(root, "run_s", 0);
    r->have_run_s = has_num(root, "run_s");
    r->harness_s = num(root, "harness_s", 0);
    r->have_harness_s = has_num(root, "harness_s");
    r->hazard_pass_s = num(root, "hazard_pass_s", 0);
    r->have_hazard_pass_s = has_num(root, "hazard_pass_s");
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "timing"))) {
        r->total_s = num(v, "total_s", 0);
        r->have_total_s = has_num(v, "total_s");
    }
}

/* The status named at the top; -1 with a message in err when unknown. */
static int parse_status(const cJSON *root, char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "status");
    const char *name = cJSON_IsString(v) ? v->valuestring : "";
    int st = status_from_name(name);
    if (st < 0)
        snprintf(err, errlen, "unknown status \"%s\"", name);
    return st;
}

int result_parse(const char *json, struct result *r, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(json);
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
    if ((st = parse_status(root, err, errlen)) < 0) {
        cJSON_Delete(root);
        return -1;
    }
    r->status = (enum status)st;
    parse_root(root, r);
    cJSON_Delete(root);
    return 0;
}

int result_read_file(const char *path, struct result *r, char *err, size_t errlen)
{
    char *text = util_read_file(path, NULL);
    int rc;
    memset(r, 0, sizeof *r);
    if (!text) {
        snprintf(err, errlen, "cannot read %s", path);
        return -1;
    }
    rc = result_parse(text, r, err, errlen);
    free(text);
    return rc;
}

/* ---- merging the judge's report, and a build's -------------------------- */

#define SWAP(a, b)                                                                                 \
    do {                                                                                           \
        __typeof__(a) t_ = (a);                                                                    \
        (a) = (b);                                                                                 \
        (b) = t_;                                                                                  \
    } while (0)

/* The typed fields of one judge key, from h to r. */
static void take_fields(struct result *r, struct result *h, const char *key)
{
    if (!strcmp(key, "device")) {
        SWAP(r->have_device, h->have_device);
        SWAP(r->device_null, h->device_null);
        SWAP(r->device_name, h->device_name);
        SWAP(r->device_cc, h->device_cc);
#define TAKE_FIGURE_(type, field, key, unmeasured) r->field = h->field;
        RESULT_DEVICE_FIGURES(TAKE_FIGURE_)
#undef TAKE_FIGURE_
    } else if (!strcmp(key, "mode")) {
        SWAP(r->mode, h->mode);
    } else if (!strcmp(key, "tests")) {
        SWAP(r->have_tests, h->have_tests);
        SWAP(r->tests, h->tests);
        SWAP(r->ntests, h->ntests);
    } else if (!strcmp(key, "first_failing_n")) {
        r->have_first_failing = h->have_first_failing;
        r->first_failing_n = h->first_failing_n;
    } else if (!strcmp(key, "tolerance_used")) {
        r->have_tolerance = h->have_tolerance;
        r->tolerance_used = h->tolerance_used;
    } else if (!strcmp(key, "perf")) {
        SWAP(r->have_perf, h->have_perf);
        SWAP(r->perf, h->perf);
        SWAP(r->nperf, h->nperf);
    } else if (!strcmp(key, "plan")) {
        r->plan_plans = h->plan_plans;
        SWAP(r->plan_nseen, h->plan_nseen);
        SWAP(r->plan_seen, h->plan_seen);
        SWAP(r->plan_checked_against, h->plan_checked_against);
        SWAP(r->plan_violation, h->plan_violation);
    } else if (!strcmp(key, "phases")) {
        r->have_phases = h->have_phases;
        r->phase_init_s = h->phase_init_s;
        r->phase_correctness_s = h->phase_correctness_s;
        r->phase_gpu_wait_s = h->phase_gpu_wait_s;
        r->phase_timing_s = h->phase_timing_s;
    } else if (!strcmp(key, "emulator")) {
        r->emulated = h->emulated;
        r->emu_max_n = h->emu_max_n;
        SWAP(r->emu_not_run, h->emu_not_run);
        SWAP(r->emu_not_run_n, h->emu_not_run_n);
        r->emu_student_instr = h->emu_student_instr;
        r->emu_judge_instr = h->emu_judge_instr;
    }
}

int result_merge_judge(struct result *r, const char *json, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(json);
    struct result h = {0};
    int st;

    if (!root || !cJSON_IsObject(root)) {
        snprintf(err, errlen, "not a JSON object");
        cJSON_Delete(root);
        return -1;
    }
    if ((st = parse_status(root, err, errlen)) < 0) {
        cJSON_Delete(root);
        return -1;
    }
    parse_root(root, &h);
    r->status = (enum status)st;
    if (h.have_seed)
        r->seed = h.seed;
    for (int k = 0; JUDGE_KEYS[k]; k++)
        if (cJSON_GetObjectItemCaseSensitive(root, JUDGE_KEYS[k]))
            take_fields(r, &h, JUDGE_KEYS[k]);
    for (int i = 0; i < h.nmsgs; i++)
        result_add_message(r, "%s", h.messages[i]);
    if (has_num(root, "elapsed_s")) {
        r->harness_s = num(root, "elapsed_s", 0);
        r->have_harness_s = 1;
    }
    result_free(&h);
    cJSON_Delete(root);
    return 0;
}

void result_take_build(struct result *r, struct result *b)
{
    SWAP(r->have_compile, b->have_compile);
    SWAP(r->compile_ok, b->compile_ok);
    SWAP(r->compile_s, b->compile_s);
    SWAP(r->compile_log, b->compile_log);
    SWAP(r->diags, b->diags);
    SWAP(r->ndiags, b->ndiags);
    SWAP(r->have_symbols, b->have_symbols);
    SWAP(r->symbols_checked, b->symbols_checked);
    SWAP(r->have_violations, b->have_violations);
    SWAP(r->viol_symbols, b->viol_symbols);
    SWAP(r->viol_rules, b->viol_rules);
    SWAP(r->viol_defined, b->viol_defined);
    SWAP(r->nviol, b->nviol);
    SWAP(r->have_tech, b->have_tech);
    SWAP(r->tech, b->tech);
    SWAP(r->ntech, b->ntech);
}

