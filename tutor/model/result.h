/* result.h — a check's verdict as the tutor, the CLI and grade.sh read it:
 * parsed from the JSON that `check` writes (docs/harness.md), which embeds the
 * harness's own report.  Reading only this JSON keeps every front end honest:
 * what a student sees is what an instructor grades. */
#ifndef RESULT_H
#define RESULT_H

#include <stddef.h>

#include "status.h"

#define RESULT_SCHEMA 1

struct rtest {
    char *name;
    unsigned long long n;
    char *expected, *got;           /* "" when absent, like every string here */
    int pass;
    char *message;
    int have_expected, have_got, have_message;  /* the key was there: the grader's text
                                                 * tells "" from absent, as jq's // did */
};

struct rperf {
    char *label, *input;
    unsigned long long n;
    double bytes;
    int samples;
    double median_ms, min_ms, max_ms;
    double gbps, pct_peak;          /* < 0: not applicable (compute bound) */
    double rate;
    char *rate_unit;
    char *ref_name;
    double ref_median_ms;
    double ratio;
    int implausible;
    char *implausible_why;          /* the judge's sentence; "" when plausible */
};

struct rdiag {
    char *file;
    int line;
    char *severity;
    char *message;
};

struct rtech {
    char *name;
    int found;
    char *why;
};

struct rsan {
    char *tool;
    int clean;
    char *report;                   /* the first lines of the tool's report */
};

/* target.calibration: the threshold came from this GPU's calibration
 * (tutor/check/calibrate.h), and what it was measured from. */
struct rcalibration {
    int have;
    int lowered;                    /* below the catalog's */
    char *gpu;                      /* the GPU model it was measured on */
    char *catalog_gpu;              /* where the catalog's figures come from; "" when unknown */
    double solution_here;           /* the reference solution's figure here; < 0: none */
    double catalog_solution;        /* and in the catalog; 0: none */
    char *case_label;               /* a target of several cases: the case of those two
                                     * figures when it is not the first; "" otherwise */
};

/* A further case of a target (target.also): met with the first and the
 * others, or the target is not. */
struct rtarget_case {
    char *case_label;
    double min;
    double value;                   /* < 0: the case was not timed */
    int met;
    double catalog_min;             /* the catalog's threshold when another judged; 0: the same */
};

struct result {
    int schema;
    char *lab, *family, *file, *summary;
    enum status status;
    unsigned long long seed;
    int have_device;
    char *device_name, *device_cc;
    double theoretical_gbps, read_gbps, copy_gbps;
    int emulated;                   /* judged on the CPU emulator, no GPU ("emulator") */
    unsigned long long emu_max_n;   /* the largest size it ran */
    struct rtest *tests;
    int ntests;
    unsigned long long first_failing_n;     /* 0: none */
    struct rperf *perf;
    int nperf;
    int have_target;
    char *target_metric, *target_case;
    double target_min, target_value;
    int target_have_value;          /* target.value is a number (null before a timing) */
    int target_met;
    double target_catalog_min;      /* the catalog's threshold when another judged; 0: the same */
    struct rcalibration target_cal;
    struct rtarget_case *target_also;   /* the target's further cases, in catalog order */
    int ntarget_also;
    char *target_json;              /* the target object as the check wrote it (one line), for
                                     * reports that quote it whole; NULL: no target */
    char *compile_log;
    struct rdiag *diags;
    int ndiags;
    char **viol_symbols, **viol_rules;
    int *viol_defined;          /* the file defines the symbol; else it calls it */
    int nviol;
    struct rtech *tech;
    int ntech;
    int sanitizer_ran;
    char *sanitizer_note;
    struct rsan *san;
    int nsan;
    char **counter_names;           /* ncu metrics, when they were read */
    double *counter_values;
    int ncounters;
    char *counters_note;
    char *output;
    char **messages;
    int nmsgs;
    double compile_s, run_s, sanitize_s, total_s;
    int have_seed, have_total_s;    /* seed and timing.total_s were there */
};

/* Parses check JSON (or a bare harness report).  Returns 0, or -1 with a
 * message in err; on error r holds nothing that needs freeing. */
int result_parse(const char *json, struct result *r, char *err, size_t errlen);

void result_free(struct result *r);

const char *status_name(enum status s);
const char *status_meaning(enum status s);
int status_exit_code(enum status s);
/* The status as one character in the grader's summary table. */
char status_letter(enum status s);
/* -1 when the name is unknown. */
int status_from_name(const char *name);

/* What the summary says beyond its status's meaning: every check's summary
 * opens with status_meaning and ": " (check.c), and a screen that shows
 * the meaning as its heading shows only the rest.  The whole summary when
 * it does not open so (an older report); "" when it is the meaning alone. */
const char *result_detail(const struct result *r);

/* The perf entry the lab's target is measured on (its first case), or NULL. */
const struct rperf *result_target_perf(const struct result *r);
/* The perf entry of the case of this label, or NULL. */
const struct rperf *result_perf(const struct result *r, const char *label);
/* The diagnostic a compile error is told by: the first error, which a
 * warning printed before it (a NUL byte's "null character(s) ignored")
 * must not hide; the first diagnostic when none is an error; NULL. */
const struct rdiag *result_first_error(const struct result *r);
/* How violation I's symbol is named: "defines" or "uses". */
const char *result_violation_verb(const struct result *r, int i);

#endif /* RESULT_H */
