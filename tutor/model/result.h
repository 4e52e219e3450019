/* result.h — a check's result: the state a check fills stage by stage
 * (result_set_*, result_add_*), the verdict every front end reads, and its
 * JSON (docs/harness.md section 9), written by result_to_json and read by
 * result_parse, the only two places that know the report's keys.  A check
 * in this process hands its result over as it is; the JSON is written only
 * where it leaves the process (--json, --out, the tutor's pipe, the
 * grader's files) and read where it comes in (the judge's report, those
 * files).  What a student sees is what an instructor grades. */
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

/* The keys of a perf entry the judge may write as null, or (an older
 * judge) leave out: one bit each in rperf's nulls and keys. */
enum rperf_key {
    RP_MEDIAN = 1, RP_MIN = 2, RP_MAX = 4, RP_REF_MEDIAN = 8, RP_REF_MIN = 16, RP_REF_MAX = 32,
    RP_RATIO = 64, RP_RATE = 128, RP_PEAK_RATE = 256, RP_N_CATALOG = 512, RP_WHY = 1024
};

struct rperf {
    char *label, *input;
    unsigned long long n, n_catalog;
    double bytes;
    int samples;
    double median_ms, min_ms, max_ms;
    double gbps, pct_peak;          /* < 0: not applicable (compute bound) */
    double rate;
    char *rate_unit;
    double peak_rate;               /* compute bound: the rate this GPU allows; < 0: none */
    char *ref_name;
    int ref_samples;
    double ref_median_ms, ref_min_ms, ref_max_ms;
    double ratio;
    int implausible;
    char *implausible_why;          /* the judge's sentence; "" when plausible */
    unsigned nulls;                 /* enum rperf_key: written as null (the figure reads 0) */
    unsigned keys;                  /* enum rperf_key: the optional keys there */
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
    double seconds;                 /* < 0: not told (an older report) */
    char *report;                   /* the first lines of the tool's report */
};

/* target.calibration: the threshold came from this GPU's calibration
 * (tutor/check/calibrate.h), and what it was measured from. */
struct rcalibration {
    int have;
    int lowered;                    /* below the catalog's */
    char *gpu;                      /* the GPU model it was measured on */
    char *measured;                 /* when; "" when unknown */
    char *why;                      /* why the catalog's threshold stands untested; "" */
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

/* gpu_via: the GPU judge ran (or was to run) through a GPU command
 * (--gpu-via, tutor/check/check_via.h). */
struct rgpu_via {
    int have;
    char *command;
    int ran;                        /* the GPU's report is the check's */
    double queued_s;                /* how long it waited to start; 0: not told */
    char *gpu;                      /* the GPU there, as nvidia-smi names it; NULL: not told */
    char *arch;                     /* what the kernel was built for ("sm_90") */
    char *cpu_status;               /* the CPU tier's verdict; NULL: it did not run */
    char *failed;                   /* why the GPU side did not judge: its command failed, now
                                       or lately; NULL: it judged, or was not needed */
    double retry_s;                 /* with failed: seconds until the command is tried again */
};

/* Where a check stopped short of its verdict on purpose. */
enum result_stage {
    RESULT_JUDGED,                  /* ran as far as its verdict took it */
    RESULT_BUILT,                   /* --build-only: compiled, checked and linked; not run */
};

/* The device's figures in the judge's "device" section, one row each: the
 * field's type and name, its key, and whether 0 means not measured (null
 * in the JSON, read back as 0). */
#define RESULT_DEVICE_FIGURES(X)                            \
    X(int, device_sms, "sms", 0)                            \
    X(double, device_l2_bytes, "l2_bytes", 0)               \
    X(double, device_mem_bytes, "mem_bytes", 0)             \
    X(double, theoretical_gbps, "theoretical_gbps", 0)      \
    X(double, read_gbps, "read_gbps", 1)                    \
    X(double, copy_gbps, "copy_gbps", 1)

struct result {
    int schema;
    char *tool;                     /* who wrote it: "cudatutor", "cudatutor-harness" */
    char *lab, *family, *file, *summary;
    enum status status;
    enum result_stage stage;
    char *source_hash;              /* FNV-1a of the file (--build-only, --run-only); NULL: none */
    unsigned long long seed;
    /* The judge's sections (docs/harness.md 9.2), typed: device, mode,
     * tests, first_failing_n, tolerance_used, perf, plan, phases, emulator. */
    int have_device;
    int device_null;                /* "device": null (the judge never had one) */
    char *device_name, *device_cc;
#define RESULT_DEVICE_FIELD_(type, field, key, unmeasured) type field;
    RESULT_DEVICE_FIGURES(RESULT_DEVICE_FIELD_)
#undef RESULT_DEVICE_FIELD_
    char *mode;                     /* "check", "sanitize", "profile"; NULL: absent */
    int emulated;                   /* judged on the CPU emulator, no GPU ("emulator") */
    unsigned long long emu_max_n;   /* the largest size it ran */
    unsigned long long *emu_not_run_n;  /* emulator.not_run: the sizes above it (emu_not_run of them) */
    unsigned long long emu_student_instr, emu_judge_instr;
    struct rtest *tests;
    int ntests;
    int have_tests;                 /* the judge's "tests" key was there */
    unsigned long long first_failing_n;     /* 0: none */
    int have_first_failing;         /* the key was there (null when first_failing_n is 0) */
    int have_tolerance;
    double tolerance_used;
    struct rperf *perf;
    int nperf;
    int have_perf;                  /* the judge's "perf" key was there */
    int have_target;
    char *target_metric, *target_case;
    double target_min, target_value;
    int target_have_value;          /* target.value is a number (null before a timing) */
    int target_met;
    int target_provisional;
    char *target_note;              /* NULL: none */
    double target_catalog_min;      /* the catalog's threshold when another judged; 0: the same */
    struct rcalibration target_cal;
    struct rtarget_case *target_also;   /* the target's further cases, in catalog order */
    int ntarget_also;
    int have_compile, compile_ok;
    char *compile_log;
    struct rdiag *diags;
    int ndiags;
    int have_symbols, symbols_checked, have_violations;
    char **viol_symbols, **viol_rules;
    int *viol_defined;          /* the file defines the symbol; else it calls it */
    int nviol;
    int have_tech;
    struct rtech *tech;
    int ntech;
    int have_sanitizer, have_sanitize_s;
    int sanitizer_ran;
    int sanitize_pending;           /* a pass whose race checkers a second run owes
                                       (check --sanitize-later, a grader's): not a verdict yet */
    char *sanitizer_note;           /* "" when none */
    struct rsan *san;
    int nsan;
    int have_counters;
    char *counters_tool;            /* "ncu" when it read them; "" when only a note */
    unsigned long long counters_n;  /* the size profiled */
    int counters_kernels;
    double counters_s;
    char **counter_names;           /* ncu metrics, when they were read */
    double *counter_values;
    int ncounters;
    char *counters_note;            /* "" when none */
    /* Without a GPU: the time model/predict.h predicts from the emulator's
     * counters at the target's size, and the reference's by the same model
     * (docs/predicted-time.md); never a measurement. */
    int have_predicted;
    struct rpredicted {
        char gpu[48];               /* "NVIDIA H200" */
        char case_label[24];        /* the target's case, "2^28" */
        unsigned long long n, from_n[2];    /* the size predicted, the two sizes counted */
        double seconds, ref_seconds, ratio; /* ratio: the reference's time over yours; 0 none */
        char bound[24];             /* the model's largest term: "DRAM", "issue", ... */
    } predicted;
    struct rgpu_via gpu_via;
    int have_output;
    char *output;
    char **messages;
    int nmsgs;
    int plan_plans;                 /* plan.plans: the plans asked for and accepted; -1: absent */
    int plan_nseen;                 /* plan.seen's length (without a GPU, each trial's plan) */
    char **plan_seen;               /* each plan in words */
    char *plan_checked_against;     /* "gpu", "emulator", "ptx", "none" */
    char *plan_violation;           /* plan.violation; NULL: none */
    int emu_not_run;                /* emulator.not_run's length */
    int have_phases;
    double phase_init_s, phase_correctness_s, phase_gpu_wait_s, phase_timing_s;
    double compile_s, run_s, sanitize_s, total_s, harness_s, hazard_pass_s;
    int have_run_s, have_harness_s, have_hazard_pass_s;
    int have_seed, have_total_s;    /* seed and timing.total_s were there */
};

/* Parses check JSON (or a bare harness report).  Returns 0, or -1 with a
 * message in err; on error r holds nothing that needs freeing. */
int result_parse(const char *json, struct result *r, char *err, size_t errlen);

/* result_parse of a report file.  -1 with a message in err when it cannot
 * be read or is no report. */
int result_read_file(const char *path, struct result *r, char *err, size_t errlen);

/* The report as JSON text, indented with `formatted`; NULL when out of
 * memory (free it with free).  result_parse reads back the same result. */
char *result_to_json(const struct result *r, int formatted);

void result_free(struct result *r);

/* ---- filling a result (result_fill.c): a check's stages ---------------- */

/* A fresh check's result: schema, tool, lab, family, file and seed, status
 * internal_error until a stage decides.  -1 when out of memory. */
int result_init(struct result *r, const char *lab, const char *family, const char *file,
                unsigned long long seed);
void result_set_status(struct result *r, enum status s);
void result_add_message(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets *dst to a copy of text ("" for NULL), freeing what it held. */
void result_set_text(char **dst, const char *text);
void result_set_compile(struct result *r, int ok, double seconds, const char *log);
void result_add_diag(struct result *r, const char *file, int line, const char *severity, const char *message);
/* The violations list exists once the rules were checked. */
void result_add_violation(struct result *r, const char *symbol, const char *rule, int defined);
int result_has_violation(const struct result *r, const char *symbol);
void result_add_technique(struct result *r, const char *name, int found, const char *why);
void result_add_san_tool(struct result *r, const char *tool, int clean, double seconds, const char *report);
void result_add_counter(struct result *r, const char *name, double value);
void result_add_target_case(struct result *r, const char *label, double min, double catalog_min,
                            double value, int met);

/* Moves the judge's report (JSON text) into the check's result: status,
 * seed, device, tests, first_failing_n, tolerance_used, perf, mode,
 * phases, plan and emulator replace the result's, its messages are added
 * to the result's, elapsed_s becomes harness_s (docs/harness.md 9.2).
 * -1 with a message in err when the text is no judge report. */
int result_merge_judge(struct result *r, const char *json, char *err, size_t errlen);

/* A build's sections into r, as --run-only resumes it: compile, symbols,
 * violations and techniques; r's own go to b, to be freed with it. */
void result_take_build(struct result *r, struct result *b);

/* Takes the emulator's section out (a GPU's report replaced the CPU
 * tier's): not emulated any more. */
void result_drop_emulator(struct result *r);
/* A copy of r into out, field by field (result_free's twin: a field that
 * one frees the other copies).  0, or -1 when out of memory (out then
 * holds nothing to free). */
int result_copy(const struct result *r, struct result *out);

/* The target object as result_to_json writes it, on one line, for reports
 * that quote it whole (free it with free); NULL without a target or
 * memory. */
char *result_target_json(const struct result *r);

const char *status_name(enum status s);
const char *status_meaning(enum status s);
int status_exit_code(enum status s);
/* The status as one character in the grader's summary table. */
char status_letter(enum status s);
/* -1 when the name is unknown. */
int status_from_name(const char *name);

/* ---- the headline (result_cause.c) ------------------------------------- */

/* Why a fail failed, told from the report: the first failing test (a
 * race the emulator stopped, a barrier or warp operation it stopped, a
 * timing faster than the GPU allows, else a wrong result), then a race
 * checker's findings, then a missing technique.  What it is about goes to
 * what ("1025", "shared memory at offset 64", "block barrier");
 * FAIL_CAUSE_NONE for any other status or a fail the report does not
 * explain. */
enum fail_cause result_cause(const struct result *r, char *what, size_t len);

/* A verdict's headline, the one line every front end leads with: a fail's
 * cause in status.h's words and what it is about ("wrong result at n =
 * 1025", "race on shared memory at offset 64", "technique missing: warp
 * shuffle"); any other status's meaning. */
void result_headline(const struct result *r, char *buf, size_t len);

/* A fail's summary: its headline, ": ", and what the report shows of it
 * (expected and got, the two threads of a race, why the technique is
 * asked for).  check.c writes it; the grader's text and every screen read it. */
void result_fail_words(const struct result *r, char *buf, size_t len);

/* The one command that draws a fail where it happened (status.h's
 * FAIL_PICTURE and the cause's DRAWN): "see it: cudatutor trace 03 (t in
 * the tutor)", with the file after the lab when the check was of another
 * file than LAB's kernel.cu; a missing technique only when it is LAB's
 * lesson counted where the picture marks it (NULL LAB: never).  "" when
 * the picture does not show the verdict. */
struct lab;
void result_picture(const struct result *r, const struct lab *lab, char *buf, size_t len);

/* What the summary says beyond its headline: every check's summary opens
 * with result_headline and ": " (check.c), and a screen that shows the
 * headline as its heading shows only the rest.  A report written before
 * fails had headlines of their own opens with the status's meaning
 * instead, which is stripped alike; the whole summary when it opens with
 * neither; "" when it is the headline alone. */
const char *result_detail(const struct result *r);

/* Where a result stands against its target, the one wording of it: "not
 * measured" (its case was not timed), "met", or "not met yet" (work to do,
 * as the student reads it).  The grader's text, a verdict, says "met" or
 * "not met": result_target_verdict. */
const char *result_target_words(const struct result *r);
const char *result_target_verdict(int met);

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
