/* hx_report.cu — writes the harness's one JSON object (schema in
 * docs/harness.md).  Written to a temporary file and renamed, so a reader
 * never sees half a report: a missing file means the run died. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hx.h"

namespace hx {

static const char *const status_json[] = {
#define STATUS_JSON_(e, json, code, letter, meaning) json,
    STATUS_TABLE(STATUS_JSON_)
#undef STATUS_JSON_
};

static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", f);
        else if (ch == '\t')
            fputs("\\t", f);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* JSON has no NaN or infinity: a figure that is not finite becomes null. */
static void put_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void put_timing(FILE *f, const char *key, const struct timing *t)
{
    fprintf(f, "\"%s\": {\"samples\": %d, \"median_ms\": ", key, t->samples);
    put_num(f, t->median_ms);
    fputs(", \"min_ms\": ", f);
    put_num(f, t->min_ms);
    fputs(", \"max_ms\": ", f);
    put_num(f, t->max_ms);
    fprintf(f, ", \"seconds\": %.3f}", t->seconds);
}

static void put_device(FILE *f, const struct device *d)
{
    fputs("\"device\": {\"name\": ", f);
    put_str(f, d->name);
    fprintf(f, ", \"cc\": \"%d.%d\", \"sms\": %d, \"l2_bytes\": %zu, \"mem_bytes\": %zu, "
               "\"theoretical_gbps\": ", d->cc_major, d->cc_minor, d->sms, d->l2_bytes, d->mem_bytes);
    put_num(f, d->theoretical_gbps);
    /* Not measured (a compute-bound family, or a run that stopped early): null. */
    fputs(", \"read_gbps\": ", f);
    put_num(f, d->read_gbps > 0 ? d->read_gbps : NAN);
    fputs(", \"copy_gbps\": ", f);
    put_num(f, d->copy_gbps > 0 ? d->copy_gbps : NAN);
    fputs("}", f);
}

static void put_test(FILE *f, const struct test *t)
{
    fputs("    {\"name\": ", f);
    put_str(f, t->name);
    fprintf(f, ", \"n\": %llu, \"expected\": ", t->n);
    put_str(f, t->expected);
    fputs(", \"got\": ", f);
    put_str(f, t->got);
    fprintf(f, ", \"pass\": %s, \"message\": ", t->pass ? "true" : "false");
    put_str(f, t->message);
    fputc('}', f);
}

static void put_perf(FILE *f, const struct perf *p, const char *reference)
{
    fputs("    {\"label\": ", f);
    put_str(f, p->c.label);
    fputs(", \"input\": ", f);
    put_str(f, p->c.input[0] ? p->c.input : "default");
    fprintf(f, ", \"n\": %llu, \"n_catalog\": %llu, \"bytes\": %.0f, ", p->c.n, p->c.n_catalog,
            p->bytes);
    put_timing(f, "time", &p->t);
    fputs(", \"gbps\": ", f);
    put_num(f, p->gbps > 0 ? p->gbps : NAN);
    fputs(", \"pct_peak\": ", f);
    put_num(f, p->pct_peak > 0 ? p->pct_peak : NAN);
    fputs(", \"rate\": ", f);
    put_num(f, p->rate);
    fputs(", \"rate_unit\": ", f);
    put_str(f, p->rate_unit ? p->rate_unit : "");
    /* Compute-bound families: the rate this GPU's arithmetic allows. */
    fputs(", \"peak_rate\": ", f);
    put_num(f, p->peak_rate > 0 ? p->peak_rate : NAN);
    fputs(", \"reference\": {\"name\": ", f);
    put_str(f, reference ? reference : "");
    fputs(", ", f);
    put_timing(f, "time", &p->ref);
    fputs("}, \"ratio\": ", f);
    put_num(f, p->ratio);
    fprintf(f, ", \"implausible\": %s", p->implausible ? "true" : "false");
    if (p->implausible) {
        fputs(", \"implausible_why\": ", f);
        put_str(f, p->implausible_why);
    }
    fputc('}', f);
}

/* A run on the CPU judge: where it ran, up to which size, what it left out. */
static void put_emulator(FILE *f, const struct report *r)
{
    fprintf(f, "  \"emulator\": {\"max_n\": %llu, \"not_run\": [", r->emu_max_n);
    for (int i = 0; i < r->nnot_run; i++)
        fprintf(f, "%s%llu", i ? ", " : "", r->not_run[i]);
    fprintf(f, "], \"student_instructions\": %llu, \"judge_instructions\": %llu},\n",
            r->emu_student_instr, r->emu_judge_instr);
}

/* The temporary report report_prepare opened, NULL until then. */
static FILE *prepared;

int report_prepare(const struct opts *o)
{
    char tmp[4096];
    if (!o->json_path || prepared)
        return 0;
    snprintf(tmp, sizeof tmp, "%s.tmp", o->json_path);
    if (!(prepared = fopen(tmp, "w"))) {
        perror(tmp);
        return -1;
    }
    return 0;
}

int report_write(const struct opts *o, const struct report *r)
{
    char tmp[4096];
    FILE *f;

    if (!o->json_path)
        return 0;
    snprintf(tmp, sizeof tmp, "%s.tmp", o->json_path);
    if (!(f = prepared ? prepared : fopen(tmp, "w"))) {
        perror(tmp);
        return -1;
    }
    fprintf(f, "{\n  \"schema\": %d,\n  \"tool\": \"cudatutor-harness\",\n  \"lab\": ", SCHEMA);
    put_str(f, o->lab ? o->lab : "");
    fputs(",\n  \"family\": ", f);
    put_str(f, family_json_name(family_impl.id));
    fprintf(f, ",\n  \"status\": \"%s\",\n  \"seed\": %llu,\n  \"mode\": \"%s\",\n  ",
            status_json[r->status], (unsigned long long)r->seed,
            o->mode == MODE_CHECK ? "check" : o->mode == MODE_SANITIZE ? "sanitize" : "profile");
    if (r->have_dev)
        put_device(f, &r->dev);
    else
        fputs("\"device\": null", f);
    fputs(",\n  \"tests\": [\n", f);
    for (int i = 0; i < r->ntests; i++) {
        put_test(f, &r->tests[i]);
        fputs(i + 1 < r->ntests ? ",\n" : "\n", f);
    }
    fputs("  ],\n  \"first_failing_n\": ", f);
    if (r->first_failing_n)
        fprintf(f, "%llu", r->first_failing_n);
    else
        fputs("null", f);
    if (r->has_tol)
        fprintf(f, ",\n  \"tolerance_used\": %.6g", r->tol_used);
    fputs(",\n  \"perf\": [\n", f);
    for (int i = 0; i < r->nperf; i++) {
        put_perf(f, &r->perf[i], r->reference);
        fputs(i + 1 < r->nperf ? ",\n" : "\n", f);
    }
    fputs("  ],\n  \"messages\": [", f);
    for (int i = 0; i < r->nmsgs; i++) {
        fputs(i ? ", " : "", f);
        put_str(f, r->messages[i]);
    }
    fprintf(f, "],\n  \"plan\": {\"plans\": %ld, \"checked_against\": \"%s\", \"violation\": ",
            r->plans, r->plans_dry ? "ptx" : r->emulated ? "emulator" : r->have_dev ? "gpu" : "none");
    if (r->plan_violation[0])
        put_str(f, r->plan_violation);
    else
        fputs("null", f);
    fputs(", \"seen\": [", f);
    for (int i = 0; i < r->nplan_text; i++) {
        fputs(i ? ", " : "", f);
        put_str(f, r->plan_text[i]);
    }
    fputs("]", f);
    fprintf(f, "},\n  \"phases\": {\"init_s\": %.3f, \"correctness_s\": %.3f, \"gpu_wait_s\": %.3f, "
               "\"timing_s\": %.3f, \"gate_s\": %.3f, \"peak_s\": %.3f, \"expect_s\": %.3f, \"hold_late\": %ld},\n",
               r->init_s, r->correctness_s, r->wait_s, r->timing_s, r->gate_s, r->peak_s, r->expect_s, r->hold_late);
    if (r->emulated)
        put_emulator(f, r);
    fprintf(f, "  \"elapsed_s\": %.3f\n}\n", r->elapsed_s);
    if (fclose(f) != 0 || rename(tmp, o->json_path) != 0) {
        perror(o->json_path);
        return -1;
    }
    return 0;
}

} /* namespace hx */
