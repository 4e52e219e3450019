/* calibrate_rule.c — see calibrate.h: the pure rule (a threshold lowered
 * to this GPU, pinned by the unit tests to grade.sh's figures), the
 * catalog's hash, and using an entry: a check's threshold, its report's
 * target annotated, the lines that sum an entry up. */
#include "check/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sys/util.h"

/* ---- the rule ----------------------------------------------------------- */

/* Down to 3 significant digits, as grade.sh's sig3 (CALIBRATE_JQ): the same
 * operations in the same order, so that both land on the same double. */
static double sig3_down(double x)
{
    if (x <= 0)
        return x;
    double u = pow(10, floor(log10(x)) - 2);
    return u < 1 ? floor(x / u) / round(1 / u) : floor(x / u) * u;
}

double calibrate_threshold(double catalog_min, double catalog_solution, double solution_here, int *lowered)
{
    int low = catalog_solution > 0 && solution_here >= 0 && solution_here < CALIBRATE_SLACK * catalog_solution;
    if (lowered)
        *lowered = low;
    return low ? sig3_down(catalog_min * solution_here / catalog_solution) : catalog_min;
}

void calibrate_judge(struct calibrate_lab *l, const struct lab *lab, int runs, int passed, double lowest,
                     const char *statuses)
{
    double all[1 + TARGET_MAX_ALSO] = {lowest, -1, -1, -1};
    calibrate_judge_cases(l, lab, runs, passed, all, statuses);
}

void calibrate_judge_cases(struct calibrate_lab *l, const struct lab *lab, int runs, int passed,
                           const double *lowest_of, const char *statuses)
{
    double lowest = lowest_of[0];
    memset(l, 0, sizeof *l);
    util_copy(l->id, sizeof l->id, lab->id);
    util_copy(l->metric, sizeof l->metric, metric_name(lab->target.metric));
    util_copy(l->case_label, sizeof l->case_label, lab->target.case_label);
    l->catalog_min = lab->target.min;
    l->catalog_solution = lab->target.solution;
    l->runs = runs;
    l->passed = passed;
    l->solution_here = runs > 0 && passed == runs ? lowest : -1;
    l->min = lab->target.min;
    if (lab->target.solution <= 0)
        util_copy(l->why, sizeof l->why, "the catalog records no figure for its solution");
    else if (runs == 0)
        util_copy(l->why, sizeof l->why, "its reference solution is not in the workbook");
    else if (passed < runs || lowest < 0)
        snprintf(l->why, sizeof l->why, "its solution did not pass here (%s)", statuses);
    else {
        /* The case furthest short, as a share of its own figure; the
         * first case unless another is strictly further. */
        int b = -1;
        double share = lowest / l->catalog_solution;
        for (int k = 0; k < lab->target.nalso; k++) {
            const struct target_case *c = &lab->target.also[k];
            if (c->solution > 0 && lowest_of[1 + k] >= 0 && lowest_of[1 + k] / c->solution < share) {
                share = lowest_of[1 + k] / c->solution;
                b = k;
            }
        }
        if (b < 0) {
            l->min = calibrate_threshold(l->catalog_min, l->catalog_solution, lowest, &l->lowered);
        } else {
            util_copy(l->bound_case, sizeof l->bound_case, lab->target.also[b].case_label);
            l->bound_here = lowest_of[1 + b];
            l->bound_solution = lab->target.also[b].solution;
            l->min = calibrate_threshold(l->catalog_min, l->bound_solution, l->bound_here, &l->lowered);
        }
    }
}

void calibrate_catalog_hash(const struct catalog *cat, char *buf, size_t len)
{
    unsigned long long h = 0xcbf29ce484222325ull;
    for (int i = 0; i < cat->nlabs; i++) {
        const struct lab *l = &cat->labs[i];
        char line[256];
        snprintf(line, sizeof line, "%s|%s|%s|%.17g|%.17g\n", l->id, metric_name(l->target.metric),
                 l->target.case_label, l->target.min, l->target.solution);
        /* Further cases only where there are some: a catalog without any
         * keeps the hash its calibrations were cached under. */
        for (int k = 0; k < l->target.nalso; k++) {
            size_t used = strlen(line) - 1;
            snprintf(line + used, sizeof line - used, "|%s|%.17g|%.17g\n", l->target.also[k].case_label,
                     l->target.also[k].min, l->target.also[k].solution);
        }
        for (const char *c = line; *c; c++)
            h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    }
    snprintf(buf, len, "%016llx", h);
}

/* ---- using it ----------------------------------------------------------- */

void calibrate_apply(struct check_opts *o, const struct calibrate_gpu *g, const struct lab *lab)
{
    const struct calibrate_lab *l = calibrate_lab(g, lab->id);
    if (o->target_min <= 0 && l && l->lowered && l->min > 0)
        o->target_min = l->min;
}

void calibrate_annotate(struct result *report, const struct calibrate_gpu *g, const struct catalog *cat)
{
    const struct calibrate_lab *l = report->lab ? calibrate_lab(g, report->lab) : NULL;
    struct rcalibration *c = &report->target_cal;

    /* Only a threshold this entry chose is explained by it. */
    if (!report->have_target || !l || report->target_min != l->min)
        return;
    c->have = 1;
    result_set_text(&c->gpu, g->name);
    result_set_text(&c->measured, g->measured);
    c->lowered = l->lowered;
    /* The figures that set the threshold: a further case's, when that is
     * where the solution fell furthest short. */
    result_set_text(&c->case_label, l->bound_case);
    c->solution_here = l->bound_case[0] ? l->bound_here : l->solution_here;
    c->catalog_solution = l->bound_case[0] ? l->bound_solution : l->catalog_solution;
    result_set_text(&c->catalog_gpu, cat->targets_gpu ? cat->targets_gpu : "");
    result_set_text(&c->why, l->why);
}

void calibrate_lab_line(const struct calibrate_lab *l, char *buf, size_t len)
{
    if (!l->why[0] && l->bound_case[0])
        snprintf(buf, len, "%s  %s at %s, where its solution falls furthest short: %.3g here, %.3g in the catalog; "
                           "threshold %g -> %g at %s, every case alike", l->id, l->metric, l->bound_case, l->bound_here,
                 l->bound_solution, l->catalog_min, l->min, l->case_label);
    else if (l->why[0])
        snprintf(buf, len, "%s  %s at %s: %s; threshold %g, as in the catalog", l->id, l->metric, l->case_label,
                 l->why, l->min);
    else if (l->lowered)
        snprintf(buf, len, "%s  %s at %s: its solution %.3g here, %.3g in the catalog; threshold %g -> %g", l->id,
                 l->metric, l->case_label, l->solution_here, l->catalog_solution, l->catalog_min, l->min);
    else
        snprintf(buf, len, "%s  %s at %s: its solution %.3g here, %.3g in the catalog; threshold %g, as in the "
                           "catalog", l->id, l->metric, l->case_label, l->solution_here, l->catalog_solution,
                 l->min);
}

void calibrate_report(const struct calibrate_gpu *g, calibrate_say_fn say_fn, void *ud)
{
    char line[2048], part[256];
    int lowered = 0, odd = 0;
    size_t used;

    if (!say_fn)
        return;
    used = (size_t)snprintf(line, sizeof line, "targets for %s: ", g->name);
    for (int i = 0; i < g->nlabs; i++) {
        const struct calibrate_lab *l = &g->labs[i];
        odd += l->why[0] != '\0';
        if (!l->lowered)
            continue;
        if (l->bound_case[0])
            snprintf(part, sizeof part, "%s%s %g -> %g, every case alike (its solution at %s: %.3g here, %.3g in "
                                        "the catalog)", lowered++ ? ", " : "lowered for ", l->id, l->catalog_min,
                     l->min, l->bound_case, l->bound_here, l->bound_solution);
        else
            snprintf(part, sizeof part, "%s%s %g -> %g (its solution: %.3g here, %.3g in the catalog)",
                     lowered++ ? ", " : "lowered for ", l->id, l->catalog_min, l->min, l->solution_here,
                     l->catalog_solution);
        if (used < sizeof line)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s", part);
    }
    if (!lowered && used < sizeof line)
        snprintf(line + used, sizeof line - used, "no threshold lowered (%s)",
                 odd ? "as in the catalog" : "every reference solution within 5% of its catalog figure, or faster");
    else if (used < sizeof line)
        snprintf(line + used, sizeof line - used, "; the others as in the catalog");
    say_fn(ud, line);
    for (int i = 0; i < g->nlabs; i++)
        if (g->labs[i].why[0]) {
            snprintf(line, sizeof line, "lab %s: %s; its catalog target stands", g->labs[i].id, g->labs[i].why);
            say_fn(ud, line);
        }
}
