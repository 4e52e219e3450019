/* check_argv.c — how a child of a check is started and bounded: the
 * judge's command line (with the sandbox prefix and room for a tool in
 * front), the time limits scaled by --timeout-scale, and the waits for the
 * GPU a child reports, which its limits forgive.  A leaf of check/: every
 * stage that starts a child calls here, and nothing here calls a stage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_stage.h"
#include "sys/util.h"

#define RUNNER_OUT "runner.out"

static double scale_of(const struct check_state *r)
{
    return r->o->timeout_scale > 0 ? r->o->timeout_scale : 1;
}

double check_timeout(const struct check_state *r)
{
    return r->lab->family->timeout_s * scale_of(r);
}

double check_bound(const struct check_state *r)
{
    return r->lab->check_timeout_s * scale_of(r);
}

double check_deadline(const struct check_state *r, double waited)
{
    return r->run_t0 ? r->run_t0 + check_bound(r) + waited : 0;
}

void waits_line(struct waits *w, const char *line)
{
    if (!strcmp(line, "@gpu wait") && !w->start)
        w->start = util_now();
    else if (!strcmp(line, "@gpu go") && w->start) {
        w->total += util_now() - w->start;
        w->start = 0;
    }
}

double waits_grace(const struct waits *w)
{
    double g = w->total + (w->start ? util_now() - w->start : 0);
    return g < GRACE_MAX_S ? g : GRACE_MAX_S;
}

/* Whether the target is judged on the case of this label (--quick times
 * only those). */
static int target_has_case(const struct target *t, const char *label)
{
    int hit = !strcmp(t->case_label, label);
    for (int i = 0; i < t->nalso; i++)
        hit |= !strcmp(t->also[i].case_label, label);
    return hit;
}

int judge_wrap_words(const struct check_state *r)
{
    int n = 0;
    while (r->o->wrap && r->o->wrap[n])
        n++;
    return n;
}

char *judge_runner_out(const struct check_state *r, const char *mode)
{
    /* The CPU judge's file apart from the GPU judge's: the hazard pass
     * runs beside the GPU judge, and each reads back only its own. */
    return util_format("%s/%s%s-%s", r->dir, r->emulated ? "cpu-" : "", mode, RUNNER_OUT);
}

/* The options every judge of the family takes, after its path. */
static int family_words(const struct check_state *r, char **argv, int a, const char *json, const char *mode)
{
    const struct family_spec *f = r->lab->family;
    argv[a++] = strdup("--json");
    argv[a++] = strdup(json);
    argv[a++] = strdup("--lab");
    argv[a++] = strdup(r->lab->id);
    argv[a++] = strdup("--family");
    argv[a++] = strdup(f->name);
    argv[a++] = strdup("--mode");
    argv[a++] = strdup(mode);
    argv[a++] = strdup("--seed");
    argv[a++] = util_format("%llu", r->seed);
    argv[a++] = strdup("--runner");
    argv[a++] = strdup(r->bin);
    argv[a++] = strdup("--runner-out");
    argv[a++] = judge_runner_out(r, mode);
    /* The emulator loads the student's PTX where a GPU loads the fatbin. */
    argv[a++] = strdup("--fatbin");
    argv[a++] = strdup(r->emulated ? r->ptx : r->fatbin);
    argv[a++] = strdup("--ptx");
    argv[a++] = strdup(r->ptx);
    argv[a++] = strdup("--plan-timeout");
    argv[a++] = util_format("%g", f->plan_timeout_s * scale_of(r));
    argv[a++] = strdup("--max-steps");
    argv[a++] = util_format("%d", f->max_steps);
    argv[a++] = strdup("--max-local");
    argv[a++] = util_format("%d", f->max_local_bytes);
    argv[a++] = strdup("--progress-fd");
    argv[a++] = util_format("%d", PROC_CHANNEL_FD);
    return a;
}

/* Where the judge runs: the CPU one's bound, or the GPU lock it takes
 * turns through. */
static int device_words(const struct check_state *r, char **argv, int a)
{
    if (r->emulated) {
        /* No GPU to take turns with. */
        argv[a++] = strdup("--emu-max-n");
        argv[a++] = util_format("%llu", r->lab->family->emu_max_n);
        return a;
    }
    argv[a++] = strdup("--gpu-lock");
    argv[a++] = strdup(r->gpu_lock);
    argv[a++] = strdup("--gpu-lock-wait");
    argv[a++] = util_format("%d", GPU_WAIT_S);
    /* A lock given from outside is a grader's: many runs at once, and
     * even their start-ups must stay out of each other's timed sections. */
    argv[a++] = strdup("--gpu-lock-init");
    argv[a++] = strdup(r->o->gpu_lock ? "1" : "0");
    return a;
}

char **judge_argv(const struct check_state *r, const char *json, const char *mode, const unsigned long long *sizes,
                  int nsizes, unsigned flags)
{
    const int with_perf = (flags & JUDGE_PERF) != 0;
    const struct family_spec *f = r->lab->family;
    char **argv = calloc(96, sizeof *argv);
    int a = 0;
    size_t cap = (size_t)nsizes * 12 + 1;
    char *list = calloc(cap, 1);

    if (!argv || !list) {
        free(argv);
        free(list);
        return NULL;
    }
    for (int i = 0; r->o->wrap && r->o->wrap[i] && a < CHECK_WRAP_MAX; i++)
        argv[a++] = strdup(r->o->wrap[i]);
    argv[a++] = util_format("%s/judge_%s%s", r->tc->harness_dir, r->emulated ? "cpu_" : "", f->name);
    a = family_words(r, argv, a, json, mode);
    for (int i = 0; i < nsizes; i++) {
        size_t used = strlen(list);
        snprintf(list + used, cap - used, "%s%llu", i ? "," : "", sizes[i]);
    }
    argv[a++] = strdup("--sizes");
    argv[a++] = list;
    a = device_words(r, argv, a);
    if (flags & JUDGE_GATE) {
        argv[a++] = strdup("--gate");
        argv[a++] = strdup("1");
    }
    if (r->o->time_budget_ms > 0) {
        argv[a++] = strdup("--budget-ms");
        argv[a++] = util_format("%d", r->o->time_budget_ms);
    }
    /* The same bits on every call: the judge calls again on each input. */
    if (r->lab->deterministic) {
        argv[a++] = strdup("--repeat");
        argv[a++] = util_format("%d", CATALOG_REPEAT);
    }
    /* the target's cases are timed to the precision a verdict needs, the
     * others only to what is worth showing */
    char precise[128] = "";
    for (int i = 0; with_perf && i < f->nperf; i++)
        if (target_has_case(&r->lab->target, f->perf[i].label)) {
            size_t used = strlen(precise);
            snprintf(precise + used, sizeof precise - used, "%s%s", used ? "," : "", f->perf[i].label);
        }
    if (precise[0] && a < 92) {
        argv[a++] = strdup("--precise");
        argv[a++] = strdup(precise);
    }
    for (int i = 0; with_perf && i < f->nperf && a < 92; i++) {
        if (r->o->quick && !target_has_case(&r->lab->target, f->perf[i].label))
            continue;
        argv[a++] = strdup("--perf");
        argv[a++] = f->perf[i].input[0]
                        ? util_format("%s:%llu:%s", f->perf[i].label, f->perf[i].n, f->perf[i].input)
                        : util_format("%s:%llu", f->perf[i].label, f->perf[i].n);
    }
    argv[a] = NULL;
    int oom = 0;
    for (int i = 0; i < a; i++)
        oom |= !argv[i];
    if (oom) {
        for (int i = 0; i < a; i++)
            free(argv[i]);
        free(argv);
        return NULL;
    }
    return argv;
}

void judge_argv_free(char **argv)
{
    for (int i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}
