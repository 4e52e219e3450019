/* result_write.c — see result.h: a result as the report's JSON
 * (docs/harness.md section 9.1), every key result_parse reads, so that
 * parse(to_json(r)) is r; the judge's sections as the judge wrote them. */
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

void result_refresh_target_json(struct result *r)
{
    cJSON *t = r->have_target ? target_object(r) : NULL;
    char *text = t ? cJSON_PrintUnformatted(t) : NULL;
    if (r->target_json)
        cJSON_free(r->target_json);
    r->target_json = text;
    cJSON_Delete(t);
}

/* The judge's sections, as it wrote them. */
static void put_raw(cJSON *root, const struct result *r)
{
    for (int i = 0; i < r->nraw; i++) {
        cJSON *v = r->raw[i].json ? cJSON_Parse(r->raw[i].json) : NULL;
        if (v)
            cJSON_AddItemToObject(root, r->raw[i].key, v);
    }
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
    put_raw(root, r);
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
