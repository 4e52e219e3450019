/* result_fill.c — see result.h: how a check's stages fill its result.
 * Every list grows by one entry at a time; out of memory loses the entry
 * (the report says less), never the result. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/result.h"
#include "sys/util.h"

/* Room for one more entry of `size` bytes in *items (holding n); NULL when
 * out of memory, the list left as it was. */
static void *grow(void *items, int n, size_t size)
{
    void *p = realloc(items, ((size_t)n + 2) * size);
    if (p)
        memset((char *)p + (size_t)n * size, 0, 2 * size);
    return p;
}

void result_set_text(char **dst, const char *text)
{
    char *s = strdup(text ? text : "");
    if (!s)
        return;
    free(*dst);
    *dst = s;
}

int result_init(struct result *r, const char *lab, const char *family, const char *file,
                unsigned long long seed)
{
    memset(r, 0, sizeof *r);
    r->schema = RESULT_SCHEMA;
    r->status = STATUS_INTERNAL_ERROR;
    r->seed = seed;
    r->have_seed = 1;
    r->plan_plans = -1;
    r->tool = strdup("cudatutor");
    r->lab = strdup(lab);
    r->family = strdup(family);
    r->file = strdup(file);
    r->messages = calloc(1, sizeof *r->messages);
    if (!r->tool || !r->lab || !r->family || !r->file || !r->messages) {
        result_free(r);
        return -1;
    }
    return 0;
}

void result_set_status(struct result *r, enum status s)
{
    r->status = s;
}

void result_add_message(struct result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = util_vformat(fmt, ap);
    va_end(ap);
    char **m = s ? grow(r->messages, r->nmsgs, sizeof *r->messages) : NULL;
    if (!m) {
        free(s);
        return;
    }
    r->messages = m;
    r->messages[r->nmsgs++] = s;
}

void result_set_compile(struct result *r, int ok, double seconds, const char *log)
{
    r->have_compile = 1;
    r->compile_ok = ok;
    r->compile_s = seconds;
    result_set_text(&r->compile_log, log);
}

void result_add_diag(struct result *r, const char *file, int line, const char *severity, const char *message)
{
    struct rdiag *d = grow(r->diags, r->ndiags, sizeof *r->diags);
    if (!d)
        return;
    r->diags = d;
    d = &r->diags[r->ndiags++];
    d->file = strdup(file);
    d->line = line;
    d->severity = strdup(severity);
    d->message = strdup(message);
}

void result_add_violation(struct result *r, const char *symbol, const char *rule, int defined)
{
    char **s = grow(r->viol_symbols, r->nviol, sizeof *s);
    if (s)
        r->viol_symbols = s;
    char **ru = s ? grow(r->viol_rules, r->nviol, sizeof *ru) : NULL;
    if (ru)
        r->viol_rules = ru;
    int *d = ru ? grow(r->viol_defined, r->nviol, sizeof *d) : NULL;
    if (!d)
        return;
    r->viol_defined = d;
    r->viol_symbols[r->nviol] = strdup(symbol);
    r->viol_rules[r->nviol] = strdup(rule);
    r->viol_defined[r->nviol++] = defined;
    r->have_violations = 1;
}

int result_has_violation(const struct result *r, const char *symbol)
{
    for (int i = 0; i < r->nviol; i++)
        if (!strcmp(r->viol_symbols[i], symbol))
            return 1;
    return 0;
}

void result_add_technique(struct result *r, const char *name, int found, const char *why)
{
    struct rtech *t = grow(r->tech, r->ntech, sizeof *r->tech);
    if (!t)
        return;
    r->tech = t;
    t = &r->tech[r->ntech++];
    t->name = strdup(name);
    t->found = found;
    t->why = strdup(why);
    r->have_tech = 1;
}

void result_add_san_tool(struct result *r, const char *tool, int clean, double seconds, const char *report)
{
    struct rsan *s = grow(r->san, r->nsan, sizeof *r->san);
    if (!s)
        return;
    r->san = s;
    s = &r->san[r->nsan++];
    s->tool = strdup(tool);
    s->clean = clean;
    s->seconds = seconds;
    s->report = strdup(report ? report : "");
}

void result_add_counter(struct result *r, const char *name, double value)
{
    char **n = grow(r->counter_names, r->ncounters, sizeof *n);
    if (n)
        r->counter_names = n;
    double *v = n ? grow(r->counter_values, r->ncounters, sizeof *v) : NULL;
    if (!v)
        return;
    r->counter_values = v;
    r->counter_names[r->ncounters] = strdup(name);
    r->counter_values[r->ncounters++] = value;
}

void result_add_target_case(struct result *r, const char *label, double min, double catalog_min,
                            double value, int met)
{
    struct rtarget_case *c = grow(r->target_also, r->ntarget_also, sizeof *c);
    if (!c)
        return;
    r->target_also = c;
    c = &r->target_also[r->ntarget_also++];
    c->case_label = strdup(label);
    c->min = min;
    c->catalog_min = catalog_min;
    c->value = value;
    c->met = met;
}
