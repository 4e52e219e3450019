/* result_write.c — see result.h: a result as the report's JSON
 * (docs/harness.md section 9.1), every key result_parse reads, so that
 * parse(to_json(r)) is r; the judge's sections with the keys and nulls
 * the judge wrote. */
#include "model/result.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* A number, or null when it is none (below `none_below`). */
static void put_num(cJSON *o, const char *key, double v, double none_below)
{
    if (v < none_below)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static void put_compile(cJSON *root, const struct result *r)
{
    cJSON *c = cJSON_AddObjectToObject(root, "compile"), *diags;
    cJSON_AddBoolToObject(c, "ok", r->compile_ok);
    cJSON_AddNumberToObject(c, "seconds", r->compile_s);
    cJSON_AddStringToObject(c, "log", r->compile_log ? r->compile_log : "");
    diags = cJSON_AddArrayToObject(c, "diagnostics");
    for (int i = 0; i < r->ndiags; i++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "file", r->diags[i].file);
        cJSON_AddNumberToObject(d, "line", r->diags[i].line);
        cJSON_AddStringToObject(d, "severity", r->diags[i].severity);
        cJSON_AddStringToObject(d, "message", r->diags[i].message);
        cJSON_AddItemToArray(diags, d);
    }
}

static void put_rules(cJSON *root, const struct result *r)
{
    if (r->have_symbols) {
        cJSON *s = cJSON_AddObjectToObject(root, "symbols");
        if (r->symbols_checked)
            cJSON_AddBoolToObject(s, "checked", 1);
        cJSON *list = r->have_violations ? cJSON_AddArrayToObject(s, "violations") : NULL;
        for (int i = 0; list && i < r->nviol; i++) {
            cJSON *v = cJSON_CreateObject();
            cJSON_AddStringToObject(v, "symbol", r->viol_symbols[i]);
            cJSON_AddStringToObject(v, "rule", r->viol_rules[i]);
            if (r->viol_defined && r->viol_defined[i])
                cJSON_AddBoolToObject(v, "defined", 1);
            cJSON_AddItemToArray(list, v);
        }
    }
    cJSON *tech = r->have_tech ? cJSON_AddArrayToObject(root, "techniques") : NULL;
    for (int i = 0; tech && i < r->ntech; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", r->tech[i].name);
        cJSON_AddBoolToObject(t, "found", r->tech[i].found);
        cJSON_AddStringToObject(t, "why", r->tech[i].why);
        cJSON_AddItemToArray(tech, t);
    }
}

static void put_sanitizer(cJSON *root, const struct result *r)
{
    cJSON *s = cJSON_AddObjectToObject(root, "sanitizer");
    cJSON_AddBoolToObject(s, "ran", r->sanitizer_ran);
    if (r->sanitize_pending)
        cJSON_AddBoolToObject(s, "pending", 1);
    if (r->sanitizer_note && r->sanitizer_note[0])
        cJSON_AddStringToObject(s, "note", r->sanitizer_note);
    cJSON *tools = r->sanitizer_ran ? cJSON_AddArrayToObject(s, "tools") : NULL;
    for (int i = 0; tools && i < r->nsan; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "tool", r->san[i].tool);
        cJSON_AddBoolToObject(e, "clean", r->san[i].clean);
        if (r->san[i].seconds >= 0)
            cJSON_AddNumberToObject(e, "seconds", r->san[i].seconds);
        cJSON_AddStringToObject(e, "report", r->san[i].report);
        cJSON_AddItemToArray(tools, e);
    }
    if (r->have_sanitize_s)
        cJSON_AddNumberToObject(s, "seconds", r->sanitize_s);
}

static void put_counters(cJSON *root, const struct result *r)
{
    cJSON *c = cJSON_AddObjectToObject(root, "counters");
    if (r->counters_note && r->counters_note[0])
        cJSON_AddStringToObject(c, "note", r->counters_note);
    if (!r->counters_tool || !r->counters_tool[0])
        return;
    cJSON_AddStringToObject(c, "tool", r->counters_tool);
    cJSON_AddNumberToObject(c, "n", (double)r->counters_n);
    cJSON *m = cJSON_AddObjectToObject(c, "metrics");
    for (int i = 0; i < r->ncounters; i++)
        cJSON_AddNumberToObject(m, r->counter_names[i], r->counter_values[i]);
    cJSON_AddNumberToObject(c, "kernels", r->counters_kernels);
    cJSON_AddNumberToObject(c, "seconds", r->counters_s);
}

static void put_predicted(cJSON *root, const struct rpredicted *p)
{
    cJSON *c = cJSON_AddObjectToObject(root, "predicted"), *from;
    cJSON_AddStringToObject(c, "gpu", p->gpu);
    cJSON_AddStringToObject(c, "case", p->case_label);
    cJSON_AddNumberToObject(c, "n", (double)p->n);
    from = cJSON_AddArrayToObject(c, "from_n");
    for (int i = 0; i < 2; i++)
        cJSON_AddItemToArray(from, cJSON_CreateNumber((double)p->from_n[i]));
    cJSON_AddNumberToObject(c, "seconds", p->seconds);
    cJSON_AddNumberToObject(c, "reference_seconds", p->ref_seconds);
    cJSON_AddNumberToObject(c, "ratio", p->ratio);
    cJSON_AddStringToObject(c, "bound", p->bound);
}

static void put_calibration(cJSON *t, const struct rcalibration *cal)
{
    cJSON *c = cJSON_AddObjectToObject(t, "calibration");
    cJSON_AddStringToObject(c, "gpu", cal->gpu ? cal->gpu : "");
    cJSON_AddStringToObject(c, "measured", cal->measured ? cal->measured : "");
    cJSON_AddBoolToObject(c, "lowered", cal->lowered);
    if (cal->case_label && cal->case_label[0])
        cJSON_AddStringToObject(c, "case", cal->case_label);
    put_num(c, "solution_here", cal->solution_here, 0);
    put_num(c, "catalog_solution", cal->catalog_solution, 1e-300);
    if (cal->catalog_gpu && cal->catalog_gpu[0])
        cJSON_AddStringToObject(c, "catalog_gpu", cal->catalog_gpu);
    if (cal->why && cal->why[0])
        cJSON_AddStringToObject(c, "why", cal->why);
}

static cJSON *target_object(const struct result *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "metric", r->target_metric ? r->target_metric : "");
    cJSON_AddStringToObject(o, "case", r->target_case ? r->target_case : "");
    cJSON_AddNumberToObject(o, "min", r->target_min);
    if (r->target_catalog_min != 0)
        cJSON_AddNumberToObject(o, "catalog_min", r->target_catalog_min);
    cJSON_AddBoolToObject(o, "provisional", r->target_provisional);
    if (r->target_note)
        cJSON_AddStringToObject(o, "note", r->target_note);
    cJSON *also = r->ntarget_also ? cJSON_AddArrayToObject(o, "also") : NULL;
    for (int i = 0; also && i < r->ntarget_also; i++) {
        const struct rtarget_case *x = &r->target_also[i];
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "case", x->case_label);
        cJSON_AddNumberToObject(c, "min", x->min);
        if (x->catalog_min != 0)
            cJSON_AddNumberToObject(c, "catalog_min", x->catalog_min);
        put_num(c, "value", x->value, 0);
        cJSON_AddBoolToObject(c, "met", x->met);
        cJSON_AddItemToArray(also, c);
    }
    if (r->target_have_value)
        cJSON_AddNumberToObject(o, "value", r->target_value);
    else
        cJSON_AddNullToObject(o, "value");
    cJSON_AddBoolToObject(o, "met", r->target_met);
    if (r->target_cal.have)
        put_calibration(o, &r->target_cal);
    return o;
}

char *result_target_json(const struct result *r)
{
    cJSON *t = r->have_target ? target_object(r) : NULL;
    char *printed = t ? cJSON_PrintUnformatted(t) : NULL;
    char *text = printed ? strdup(printed) : NULL;
    if (printed)
        cJSON_free(printed);
    cJSON_Delete(t);
    return text;
}

/* A figure the judge wrote as null (bit set in nulls), else its value. */
static void put_or_null(cJSON *o, const char *key, double v, int null)
{
    if (null)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static void put_timing(cJSON *o, const char *key, int samples, double median, double min, double max,
                       unsigned nulls, unsigned bmed, unsigned bmin, unsigned bmax)
{
    cJSON *t = cJSON_AddObjectToObject(o, key);
    cJSON_AddNumberToObject(t, "samples", samples);
    put_or_null(t, "median_ms", median, (nulls & bmed) != 0);
    put_or_null(t, "min_ms", min, (nulls & bmin) != 0);
    put_or_null(t, "max_ms", max, (nulls & bmax) != 0);
}

static void put_device(cJSON *root, const struct result *r)
{
    if (r->device_null)
        cJSON_AddNullToObject(root, "device");
    if (!r->have_device)
        return;
    cJSON *d = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(d, "name", r->device_name ? r->device_name : "");
    cJSON_AddStringToObject(d, "cc", r->device_cc ? r->device_cc : "");
#define PUT_FIGURE_(type, field, key, unmeasured) put_or_null(d, key, r->field, unmeasured && r->field <= 0);
    RESULT_DEVICE_FIGURES(PUT_FIGURE_)
#undef PUT_FIGURE_
}

static void put_tests(cJSON *root, const struct result *r)
{
    cJSON *a = cJSON_AddArrayToObject(root, "tests");
    for (int i = 0; a && i < r->ntests; i++) {
        const struct rtest *x = &r->tests[i];
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", x->name ? x->name : "");
        cJSON_AddNumberToObject(t, "n", (double)x->n);
        if (x->have_expected)
            cJSON_AddStringToObject(t, "expected", x->expected);
        if (x->have_got)
            cJSON_AddStringToObject(t, "got", x->got);
        cJSON_AddBoolToObject(t, "pass", x->pass);
        if (x->have_message)
            cJSON_AddStringToObject(t, "message", x->message);
        cJSON_AddItemToArray(a, t);
    }
}

static void put_perf(cJSON *root, const struct result *r)
{
    cJSON *a = cJSON_AddArrayToObject(root, "perf");
    for (int i = 0; a && i < r->nperf; i++) {
        const struct rperf *x = &r->perf[i];
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "label", x->label ? x->label : "");
        cJSON_AddStringToObject(p, "input", x->input ? x->input : "");
        cJSON_AddNumberToObject(p, "n", (double)x->n);
        if (x->keys & RP_N_CATALOG)
            cJSON_AddNumberToObject(p, "n_catalog", (double)x->n_catalog);
        cJSON_AddNumberToObject(p, "bytes", x->bytes);
        put_timing(p, "time", x->samples, x->median_ms, x->min_ms, x->max_ms, x->nulls, RP_MEDIAN, RP_MIN,
                   RP_MAX);
        put_or_null(p, "gbps", x->gbps, x->gbps < 0);
        put_or_null(p, "pct_peak", x->pct_peak, x->pct_peak < 0);
        put_or_null(p, "rate", x->rate, (x->nulls & RP_RATE) != 0);
        cJSON_AddStringToObject(p, "rate_unit", x->rate_unit ? x->rate_unit : "");
        if (x->keys & RP_PEAK_RATE)
            put_or_null(p, "peak_rate", x->peak_rate, x->peak_rate < 0);
        cJSON *ref = cJSON_AddObjectToObject(p, "reference");
        cJSON_AddStringToObject(ref, "name", x->ref_name ? x->ref_name : "");
        put_timing(ref, "time", x->ref_samples, x->ref_median_ms, x->ref_min_ms, x->ref_max_ms, x->nulls,
                   RP_REF_MEDIAN, RP_REF_MIN, RP_REF_MAX);
        put_or_null(p, "ratio", x->ratio, (x->nulls & RP_RATIO) != 0);
        cJSON_AddBoolToObject(p, "implausible", x->implausible);
        if (x->keys & RP_WHY)
            cJSON_AddStringToObject(p, "implausible_why", x->implausible_why ? x->implausible_why : "");
        cJSON_AddItemToArray(a, p);
    }
}

static void put_plan(cJSON *root, const struct result *r)
{
    cJSON *p = cJSON_AddObjectToObject(root, "plan");
    cJSON_AddNumberToObject(p, "plans", r->plan_plans);
    cJSON_AddStringToObject(p, "checked_against", r->plan_checked_against ? r->plan_checked_against : "");
    if (r->plan_violation)
        cJSON_AddStringToObject(p, "violation", r->plan_violation);
    else
        cJSON_AddNullToObject(p, "violation");
    cJSON *seen = cJSON_AddArrayToObject(p, "seen");
    for (int i = 0; seen && r->plan_seen && i < r->plan_nseen; i++)
        cJSON_AddItemToArray(seen, cJSON_CreateString(r->plan_seen[i]));
}

static void put_emulator(cJSON *root, const struct result *r)
{
    cJSON *e = cJSON_AddObjectToObject(root, "emulator");
    cJSON_AddNumberToObject(e, "max_n", (double)r->emu_max_n);
    cJSON *a = cJSON_AddArrayToObject(e, "not_run");
    for (int i = 0; a && r->emu_not_run_n && i < r->emu_not_run; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)r->emu_not_run_n[i]));
    cJSON_AddNumberToObject(e, "student_instructions", (double)r->emu_student_instr);
    cJSON_AddNumberToObject(e, "judge_instructions", (double)r->emu_judge_instr);
}

/* The judge's sections (docs/harness.md 9.2), the keys it wrote, in the
 * report's order. */
static void put_judge(cJSON *root, const struct result *r)
{
    put_device(root, r);
    if (r->have_tests)
        put_tests(root, r);
    if (r->have_first_failing)
        put_or_null(root, "first_failing_n", (double)r->first_failing_n, r->first_failing_n == 0);
    if (r->have_tolerance)
        cJSON_AddNumberToObject(root, "tolerance_used", r->tolerance_used);
    if (r->have_perf)
        put_perf(root, r);
    if (r->mode)
        cJSON_AddStringToObject(root, "mode", r->mode);
    if (r->have_phases) {
        cJSON *ph = cJSON_AddObjectToObject(root, "phases");
        cJSON_AddNumberToObject(ph, "init_s", r->phase_init_s);
        cJSON_AddNumberToObject(ph, "correctness_s", r->phase_correctness_s);
        cJSON_AddNumberToObject(ph, "gpu_wait_s", r->phase_gpu_wait_s);
        cJSON_AddNumberToObject(ph, "timing_s", r->phase_timing_s);
    }
    if (r->plan_plans >= 0)
        put_plan(root, r);
    if (r->emulated)
        put_emulator(root, r);
}

static void put_gpu_via(cJSON *root, const struct rgpu_via *v)
{
    cJSON *o = cJSON_AddObjectToObject(root, "gpu_via");
    cJSON_AddStringToObject(o, "command", v->command ? v->command : "");
    cJSON_AddBoolToObject(o, "ran", v->ran);
    if (v->queued_s > 0)
        cJSON_AddNumberToObject(o, "queued_s", v->queued_s);
    if (v->gpu)
        cJSON_AddStringToObject(o, "gpu", v->gpu);
    cJSON_AddStringToObject(o, "arch", v->arch ? v->arch : "");
    if (v->cpu_status)
        cJSON_AddStringToObject(o, "cpu_status", v->cpu_status);
    if (v->failed) {
        cJSON_AddStringToObject(o, "failed", v->failed);
        cJSON_AddNumberToObject(o, "retry_s", v->retry_s);
    }
}

static void put_head(cJSON *root, const struct result *r)
{
    cJSON_AddNumberToObject(root, "schema", r->schema);
    cJSON_AddStringToObject(root, "tool", r->tool ? r->tool : "");
    cJSON_AddStringToObject(root, "lab", r->lab ? r->lab : "");
    cJSON_AddStringToObject(root, "family", r->family ? r->family : "");
    cJSON_AddStringToObject(root, "status", status_name(r->status));
    if (r->have_seed)
        cJSON_AddNumberToObject(root, "seed", (double)r->seed);
    cJSON_AddStringToObject(root, "file", r->file ? r->file : "");
    if (r->stage == RESULT_BUILT)
        cJSON_AddBoolToObject(root, "built", 1);
    if (r->source_hash)
        cJSON_AddStringToObject(root, "source_hash", r->source_hash);
    cJSON *msgs = cJSON_AddArrayToObject(root, "messages");
    for (int i = 0; msgs && i < r->nmsgs; i++)
        cJSON_AddItemToArray(msgs, cJSON_CreateString(r->messages[i]));
}

char *result_to_json(const struct result *r, int formatted)
{
    cJSON *root = cJSON_CreateObject();
    char *text = NULL;

    if (!root)
        return NULL;
    put_head(root, r);
    if (r->have_compile)
        put_compile(root, r);
    put_rules(root, r);
    if (r->have_run_s)
        cJSON_AddNumberToObject(root, "run_s", r->run_s);
    if (r->have_output)
        cJSON_AddStringToObject(root, "output", r->output ? r->output : "");
    put_judge(root, r);
    if (r->have_harness_s)
        cJSON_AddNumberToObject(root, "harness_s", r->harness_s);
    if (r->have_hazard_pass_s)
        cJSON_AddNumberToObject(root, "hazard_pass_s", r->hazard_pass_s);
    if (r->gpu_via.have)
        put_gpu_via(root, &r->gpu_via);
    if (r->have_sanitizer)
        put_sanitizer(root, r);
    if (r->have_counters)
        put_counters(root, r);
    if (r->have_predicted)
        put_predicted(root, &r->predicted);
    if (r->have_target)
        cJSON_AddItemToObject(root, "target", target_object(r));
    if (r->have_total_s)
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(root, "timing"), "total_s", r->total_s);
    if (r->summary)
        cJSON_AddStringToObject(root, "summary", r->summary);
    char *printed = formatted ? cJSON_Print(root) : cJSON_PrintUnformatted(root);
    /* cJSON's allocator is the C library's unless a caller changed it; a
     * copy keeps the contract "free it with free" either way. */
    text = printed ? strdup(printed) : NULL;
    if (printed)
        cJSON_free(printed);
    cJSON_Delete(root);
    return text;
}
