/* result.c — see result.h: the status table's columns, what a result
 * says read from its fields, dropping its emulator section, and freeing
 * and copying one.  Its JSON is result_json.c's,
 * its filling result_fill.c's. */
#include "model/result.h"

#include <stddef.h>
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

#define AT(f) offsetof(struct result, f)

/* What a result owns, listed once for result_free and result_copy alike:
 * its strings, and its arrays (COUNT elements of ELEM bytes), each with
 * the strings its elements own (an array of strings: one at offset 0).  A
 * field of struct result that owns memory is a row here. */
static const size_t owned_strings[] = {
    AT(tool), AT(lab), AT(family), AT(file), AT(summary), AT(source_hash), AT(device_name), AT(device_cc),
    AT(mode), AT(target_metric), AT(target_case), AT(target_note), AT(target_cal.gpu), AT(target_cal.measured),
    AT(target_cal.why), AT(target_cal.catalog_gpu), AT(target_cal.case_label), AT(compile_log),
    AT(sanitizer_note), AT(counters_tool), AT(counters_note), AT(gpu_via.command), AT(gpu_via.gpu),
    AT(gpu_via.arch), AT(gpu_via.cpu_status), AT(gpu_via.failed), AT(output), AT(plan_checked_against),
    AT(plan_violation),
};

struct owned_array {
    size_t ptr, count, elem;
    int nstrs;
    size_t strs[5];
};

#define STRV(p, n) {AT(p), AT(n), sizeof(char *), 1, {0}}
#define EL(T, f) offsetof(struct T, f)
static const struct owned_array owned_arrays[] = {
    STRV(plan_seen, plan_nseen), STRV(viol_symbols, nviol), STRV(viol_rules, nviol),
    STRV(counter_names, ncounters), STRV(messages, nmsgs),
    {AT(emu_not_run_n), AT(emu_not_run), sizeof(unsigned long long), 0, {0}},
    {AT(viol_defined), AT(nviol), sizeof(int), 0, {0}},
    {AT(counter_values), AT(ncounters), sizeof(double), 0, {0}},
    {AT(tests), AT(ntests), sizeof(struct rtest), 4,
     {EL(rtest, name), EL(rtest, expected), EL(rtest, got), EL(rtest, message)}},
    {AT(perf), AT(nperf), sizeof(struct rperf), 5,
     {EL(rperf, label), EL(rperf, input), EL(rperf, rate_unit), EL(rperf, ref_name), EL(rperf, implausible_why)}},
    {AT(target_also), AT(ntarget_also), sizeof(struct rtarget_case), 1, {EL(rtarget_case, case_label)}},
    {AT(diags), AT(ndiags), sizeof(struct rdiag), 3, {EL(rdiag, file), EL(rdiag, severity), EL(rdiag, message)}},
    {AT(tech), AT(ntech), sizeof(struct rtech), 2, {EL(rtech, name), EL(rtech, why)}},
    {AT(san), AT(nsan), sizeof(struct rsan), 2, {EL(rsan, tool), EL(rsan, report)}},
};
#define NOWNED_STRINGS (sizeof owned_strings / sizeof owned_strings[0])
#define NOWNED_ARRAYS (sizeof owned_arrays / sizeof owned_arrays[0])

static char **str_at(void *base, size_t off) { return (char **)((char *)base + off); }
static void **ptr_at(void *base, size_t off) { return (void **)((char *)base + off); }
static int count_at(void *base, size_t off) { return *(int *)((char *)base + off); }

void result_free(struct result *r)
{
    for (size_t k = 0; k < NOWNED_STRINGS; k++)
        free(*str_at(r, owned_strings[k]));
    for (size_t k = 0; k < NOWNED_ARRAYS; k++) {
        const struct owned_array *a = &owned_arrays[k];
        char *arr = *ptr_at(r, a->ptr);
        for (int i = 0; arr && i < count_at(r, a->count); i++)
            for (int s = 0; s < a->nstrs; s++)
                free(*str_at(arr + (size_t)i * a->elem, a->strs[s]));
        free(arr);
    }
    memset(r, 0, sizeof *r);
}

/* A string's copy in place of the pointer, or NULL when memory runs out
 * (counted in *bad), so that a copy stopped half way frees cleanly. */
static void copy_str(char **s, int *bad)
{
    if (*s && !(*s = strdup(*s)))
        (*bad)++;
}

int result_copy(const struct result *r, struct result *out)
{
    int bad = 0;
    *out = *r;
    for (size_t k = 0; k < NOWNED_STRINGS; k++)
        copy_str(str_at(out, owned_strings[k]), &bad);
    for (size_t k = 0; k < NOWNED_ARRAYS; k++) {
        const struct owned_array *a = &owned_arrays[k];
        void **p = ptr_at(out, a->ptr);
        int n = count_at(out, a->count);
        char *c = *p && n > 0 ? malloc((size_t)n * a->elem) : NULL;
        if (*p && n > 0 && !c)
            bad++;
        if (c)
            memcpy(c, *p, (size_t)n * a->elem);
        for (int i = 0; c && i < n; i++)
            for (int s = 0; s < a->nstrs; s++)
                copy_str(str_at(c + (size_t)i * a->elem, a->strs[s]), &bad);
        *p = c;
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
