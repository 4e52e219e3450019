/* catalog.h — data/labs.json, the one catalog that drives the menu, the
 * harness sizes, the targets, the hints, the technique checks and the symbol
 * rules.  Loaded and validated once; every other module reads it from here. */
#ifndef CATALOG_H
#define CATALOG_H

#include <stddef.h>

#include "family.h"

#define CATALOG_SCHEMA 1
/* The lab<->harness contract this tutor builds against: LAB_CONTRACT_VERSION
 * in tutor/lab.h (tests/labs.sh keeps the two equal). */
#define CATALOG_CONTRACT 2
#define CATALOG_HINTS 3
/* How many calls on one input a "deterministic" lab's judge compares. */
#define CATALOG_REPEAT 5
/* A check's wall-clock bound from the judge's start to the last race
 * checker's end, when the lab names none ("check_timeout_s"). */
#define CATALOG_CHECK_TIMEOUT_S 60

/* The families (FAMILY_TABLE, enum family_id) are family.h's: one row
 * each, shared with the runner and the judges. */

/* Target metrics: what a perf entry's figure is compared with, and the
 * unit written after a figure of it in a table ("0.12x", "76%"). */
#define METRIC_TABLE(X)                                                    \
    X(METRIC_RATIO,    "ratio",    "x")                                   \
    X(METRIC_PCT_PEAK, "pct_peak", "%")                                   \
    X(METRIC_GBPS,     "gbps",     " GB/s")                               \
    X(METRIC_RATE,     "rate",     " G items/s")

enum metric {
#define METRIC_ENUM_(e, name, unit) e,
    METRIC_TABLE(METRIC_ENUM_)
#undef METRIC_ENUM_
    METRIC_COUNT
};

struct perf_spec {
    char *label;
    unsigned long long n;
    char *input;                /* "" for the family's default input */
};

struct family_spec {
    enum family_id id;
    const char *name;           /* from FAMILY_TABLE (family.h) */
    const char *entry;
    char *reference;
    int timeout_s;              /* the whole harness run */
    int trials_timeout_s;       /* its correctness trials, from the first to the last */
    double plan_timeout_s;      /* the longest a launcher may take to answer one call */
    int max_steps;              /* launches and memsets in one plan */
    int max_local_bytes;        /* local memory per thread of a launched kernel */
    unsigned long long *sizes;
    int nsizes;
    unsigned long long *sanitize_sizes;
    int nsanitize;
    struct perf_spec *perf;
    int nperf;
    /* Without a GPU: the largest trial size the CPU judge emulates (the
     * optional "emu_max_n", else CATALOG_EMU_MAX_N); larger ones are not run. */
    unsigned long long emu_max_n;
    /* On a GPU, after the trials pass: the largest trial size the hazard
     * pass runs on the CPU judge (the optional "hazard_max_n", else
     * CATALOG_HAZARD_MAX_N); it keeps that pass within 0.3 s. */
    unsigned long long hazard_max_n;
    /* The address space the CPU judge may take, in MiB (the optional
     * "emu_memory_mib", else CATALOG_EMU_MEMORY_MIB): its RLIMIT_AS, so a
     * kernel that asks the emulator for more gets a verdict and the host
     * keeps its memory. */
    int emu_memory_mib;
};

#define CATALOG_EMU_MAX_N (1ull << 20)
#define CATALOG_HAZARD_MAX_N 4097ull
#define CATALOG_EMU_MEMORY_MIB 2048

struct technique {
    char *name;
    char **ptx_any;             /* found when the PTX contains any of these */
    int nptx;
    char *why;
};

/* The counter a lab's lesson is about, as the CPU tier measures it without
 * a GPU (optional "lesson"; docs/harness.md, "Counters without a GPU"):
 * the emulator's COUNTER ("a+b": a sum of two), divided by OVER (another
 * counter, or "n", the size; NULL: not divided), at size N, must be at
 * most MAX or at least MIN (one of the two, the other 0) for the
 * technique NAME to be found; SOLUTION is the reference solution's
 * figure, WHAT the figure in words ("divergent branches per block"). */
struct lesson {
    char *name, *what, *why;
    char *counter, *over;
    unsigned long long n;
    double max, min, solution;
};

/* One more case a target must meet, on the target's metric. */
struct target_case {
    char *case_label;
    double min;
    double solution;            /* 0: not recorded */
};

#define TARGET_MAX_ALSO 3

/* A target is met when its first case (case_label, min, solution: the lab's
 * figure on the ladder, in progress and calibration) and every case of
 * `also` are.  The catalog writes either {"metric", "case", "min", ...} or
 * that with "also": [{"case", "min", "solution"}, ...] (docs/harness.md,
 * section 4): lab 15 must beat CUB where launches cost most as well as
 * match it where bandwidth rules. */
struct target {
    enum metric metric;
    char *case_label;           /* which perf entry, by label */
    double min;
    int provisional;            /* not yet calibrated on a GPU */
    double solution;            /* what the reference solution measured when min was
                                 * set (docs/ladder.md); 0: not recorded */
    struct target_case also[TARGET_MAX_ALSO];
    int nalso;
};

struct lab {
    char *id;                   /* "01" */
    char *slug;
    char *title;
    char *summary;
    char *dir;                  /* "labs/01-interleaved-addressing" */
    char *solution_dir;         /* "solutions/01-interleaved-addressing" */
    char *stub;                 /* "data/stubs/01-interleaved-addressing.cu": the stub as
                                 * handed out, kept apart from the student's copy in dir */
    const struct family_spec *family;
    struct target target;
    struct technique *tech;
    int ntech;
    char **counters;            /* ncu metrics the lesson is about (optional) */
    int ncounters;
    struct lesson lesson;       /* counter NULL: none */
    char *hints[CATALOG_HINTS];
    /* Which lab's pass opens this one: an index into catalog.labs, always
     * an earlier lab; -1 for the first lab, open from the start.  The
     * catalog's "opens_after" names it by id; without one it is the lab
     * before, so the core labs open one after another. */
    int opens_after;
    int bonus;                  /* "bonus": true — shown in the Bonus section, and graded
                                 * only when the grader's --labs names it */
    /* The float result must have the same bits on every call with the same
     * input: the judge calls the entry point CATALOG_REPEAT times on each
     * input (judge option --repeat) and compares (reduce families only). */
    int deterministic;
    /* The whole check's wall-clock bound: the judge, the race checkers and
     * the counters together, whatever the kernel prints or how slowly a
     * tool runs (optional "check_timeout_s", default CATALOG_CHECK_TIMEOUT_S;
     * time spent waiting for the GPU does not count). */
    double check_timeout_s;
};

struct symbol_rule {
    char *pattern;              /* fnmatch(3) pattern */
    char *rule;
};

struct catalog {
    char *targets_gpu;          /* the GPU the targets' solution figures were measured
                                 * on ("targets_gpu"); NULL: not recorded */
    struct family_spec *families;
    int nfamilies;
    struct lab *labs;
    int nlabs;
    char **allow;               /* undefined host symbols a kernel may use */
    int nallow;
    struct symbol_rule *deny;   /* why a symbol is not allowed */
    int ndeny;
    struct symbol_rule *deny_defined;   /* symbols a kernel may not define */
    int ndeny_defined;
};

/* Parses and validates catalog text.  On error returns -1 and writes one line
 * "NAME: labs[3].family: unknown family \"x\"" into err. */
int catalog_parse(struct catalog *cat, const char *text, const char *name, char *err, size_t errlen);

/* Reads and parses a file; errors as above (a missing file names its path). */
int catalog_load(struct catalog *cat, const char *path, const char *name, char *err, size_t errlen);

void catalog_free(struct catalog *cat);

/* Finds a lab by id ("1", "01") or slug; NULL when there is none. */
const struct lab *catalog_find(const struct catalog *cat, const char *key);

/* The lab after this one, or NULL for the last. */
const struct lab *catalog_next(const struct catalog *cat, const struct lab *lab);

/* The lab whose pass opens this one (its "opens_after", by default the lab
 * before it), or NULL for a lab that is open from the start. */
const struct lab *catalog_opener(const struct catalog *cat, const struct lab *lab);

const char *family_name(enum family_id id);
const char *metric_name(enum metric m);
const char *metric_unit(enum metric m);

#endif /* CATALOG_H */
