/* result.c — see result.h: the status table's columns, what a result
 * says read from its fields, dropping its emulator section, and freeing
 * and copying one.  Its JSON is result_json.c's,
 * its filling result_fill.c's. */
#include "model/result.h"

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

int status_from_name(const char *name)
{
    for (int i = 0; i < STATUS_COUNT; i++)
        if (name && !strcmp(names[i], name))
            return i;
    return -1;
}

static void free_strv(char **v, int n)
{
    for (int i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void result_free(struct result *r)
{
    free(r->tool);
    free(r->source_hash);
    free(r->target_note);
    free(r->target_cal.measured);
    free(r->target_cal.why);
    free(r->counters_tool);
    free(r->plan_violation);
    free(r->plan_checked_against);
    free_strv(r->plan_seen, r->plan_nseen);
    free(r->emu_not_run_n);
    free(r->mode);
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
    free(r->gpu_via.command);
    free(r->gpu_via.gpu);
    free(r->gpu_via.arch);
    free(r->gpu_via.cpu_status);
    free(r->gpu_via.failed);
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

/* The copy helpers: each replaces the pointer it is given by a copy of
 * what it points to, or by NULL (and a zero count) when memory runs out,
 * counting that in *bad; so that a copy stopped half way frees cleanly. */
static void copy_str(char **s, int *bad)
{
    if (*s && !(*s = strdup(*s)))
        (*bad)++;
}

static void *copy_mem(const void *p, int n, size_t size, int *count, int *bad)
{
    void *q = p && n > 0 ? malloc((size_t)n * size) : NULL;
    if (p && n > 0 && !q) {
        (*bad)++;
        *count = 0;
    }
    return q ? memcpy(q, p, (size_t)n * size) : NULL;
}

static void copy_strv(char ***v, int n, int *bad)
{
    int kept = n;
    char **c = copy_mem(*v, n, sizeof **v, &kept, bad);
    for (int i = 0; c && i < n; i++)
        copy_str(&c[i], bad);
    *v = c;
}

int result_copy(const struct result *r, struct result *out)
{
    int bad = 0;
    *out = *r;
    char **strs[] = {&out->tool, &out->lab, &out->family, &out->file, &out->summary, &out->source_hash,
                     &out->device_name, &out->device_cc, &out->mode, &out->target_metric, &out->target_case,
                     &out->target_note, &out->target_cal.gpu, &out->target_cal.measured, &out->target_cal.why,
                     &out->target_cal.catalog_gpu, &out->target_cal.case_label, &out->compile_log,
                     &out->sanitizer_note, &out->counters_tool, &out->counters_note, &out->gpu_via.command,
                     &out->gpu_via.gpu, &out->gpu_via.arch, &out->gpu_via.cpu_status, &out->gpu_via.failed,
                     &out->output, &out->plan_checked_against, &out->plan_violation};
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
        copy_str(strs[k], &bad);
    copy_strv(&out->plan_seen, r->plan_nseen, &bad);
    copy_strv(&out->viol_symbols, r->nviol, &bad);
    copy_strv(&out->viol_rules, r->nviol, &bad);
    copy_strv(&out->counter_names, r->ncounters, &bad);
    copy_strv(&out->messages, r->nmsgs, &bad);
    int keep = 0;
    out->emu_not_run_n = copy_mem(r->emu_not_run_n, r->emu_not_run, sizeof *r->emu_not_run_n, &keep, &bad);
    out->viol_defined = copy_mem(r->viol_defined, r->nviol, sizeof *r->viol_defined, &keep, &bad);
    out->counter_values = copy_mem(r->counter_values, r->ncounters, sizeof *r->counter_values, &keep, &bad);
    out->tests = copy_mem(r->tests, r->ntests, sizeof *r->tests, &out->ntests, &bad);
    for (int i = 0; out->tests && i < out->ntests; i++) {
        copy_str(&out->tests[i].name, &bad);
        copy_str(&out->tests[i].expected, &bad);
        copy_str(&out->tests[i].got, &bad);
        copy_str(&out->tests[i].message, &bad);
    }
    out->perf = copy_mem(r->perf, r->nperf, sizeof *r->perf, &out->nperf, &bad);
    for (int i = 0; out->perf && i < out->nperf; i++) {
        copy_str(&out->perf[i].label, &bad);
        copy_str(&out->perf[i].input, &bad);
        copy_str(&out->perf[i].rate_unit, &bad);
        copy_str(&out->perf[i].ref_name, &bad);
        copy_str(&out->perf[i].implausible_why, &bad);
    }
    out->target_also = copy_mem(r->target_also, r->ntarget_also, sizeof *r->target_also, &out->ntarget_also,
                                &bad);
    for (int i = 0; out->target_also && i < out->ntarget_also; i++)
        copy_str(&out->target_also[i].case_label, &bad);
    out->diags = copy_mem(r->diags, r->ndiags, sizeof *r->diags, &out->ndiags, &bad);
    for (int i = 0; out->diags && i < out->ndiags; i++) {
        copy_str(&out->diags[i].file, &bad);
        copy_str(&out->diags[i].severity, &bad);
        copy_str(&out->diags[i].message, &bad);
    }
    out->tech = copy_mem(r->tech, r->ntech, sizeof *r->tech, &out->ntech, &bad);
    for (int i = 0; out->tech && i < out->ntech; i++) {
        copy_str(&out->tech[i].name, &bad);
        copy_str(&out->tech[i].why, &bad);
    }
    out->san = copy_mem(r->san, r->nsan, sizeof *r->san, &out->nsan, &bad);
    for (int i = 0; out->san && i < out->nsan; i++) {
        copy_str(&out->san[i].tool, &bad);
        copy_str(&out->san[i].report, &bad);
    }
    if (bad) {
        result_free(out);
        return -1;
    }
    return 0;
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

const char *result_target_words(const struct result *r)
{
    return !result_target_perf(r) ? "not measured" : r->target_met ? "met" : "not met yet";
}

const char *result_target_verdict(int met)
{
    return met ? "met" : "not met";
}

const struct rperf *result_target_perf(const struct result *r)
{
    return r->have_target ? result_perf(r, r->target_case) : NULL;
}

void result_drop_emulator(struct result *r)
{
    free(r->emu_not_run_n);
    r->emu_not_run_n = NULL;
    r->emu_student_instr = r->emu_judge_instr = 0;
    r->emulated = 0;
    r->emu_max_n = 0;
    r->emu_not_run = 0;
}
