/* check_opts.h — what a caller asks of one check (check.h): the options
 * and the progress callback.  A header of its own so that the stages, which
 * read the options, depend on it and not on the orchestrator. */
#ifndef CHECK_OPTS_H
#define CHECK_OPTS_H

#include "stage.h"

/* Progress: the stage (stage.h), i of n where that means something, and
 * what it is at in words. */
typedef void (*check_progress_fn)(void *ud, enum stage_id stage, int i, int n, const char *detail);

/* The most words a wrap prefix may have: the judge's argv is built in a
 * fixed table, and a prefix is a program with a few arguments (a grader's
 * sandbox is five). */
#define CHECK_WRAP_MAX 24

/* The race checkers: compute-sanitizer's tools, each run around a judge
 * in sanitize mode, by a check or by a grader's batch. */
#define CHECK_SAN_TOOLS {"racecheck", "synccheck", "memcheck"}
/* compute-sanitizer's options in every such run, whoever makes it: the
 * judge alone is watched (the runner it starts has no GPU code); the tool
 * exits CHECK_SAN_EXIT when it found something; API errors are not its to
 * report, since the judge checks every driver call's result itself and
 * some fail by design (it counts a kernel's parameters by asking until the
 * driver says there is none).  Then each tool watches the student's
 * kernels by name (--kernel-name kne=NAME), up to CHECK_SAN_KERNELS_MAX of
 * them; a module of more is watched whole. */
#define CHECK_SAN_EXIT 86
#define CHECK_STR_(x) #x
#define CHECK_STR(x) CHECK_STR_(x)
#define CHECK_SAN_OPTIONS(tool)                                                                  \
    "--target-processes", "application-only", "--tool", (tool), "--error-exitcode",            \
        CHECK_STR(CHECK_SAN_EXIT), "--print-limit", "20", "--report-api-errors", "no"
#define CHECK_SAN_KERNELS_MAX 12
/* A grader's split check (sanitize_later below) leaves this file in the
 * work folder beside a pass whose race checkers are pending, so that the
 * grader can run each tool once over several builds (the judge's --batch,
 * docs/harness.md 4.1): one line per tool, tab-separated, the tool,
 * compute-sanitizer, the kernels it watches (comma-separated;
 * empty: all), then the judge and its sanitize-mode options.  No file
 * when a word holds a tab or a line break: the grader then runs that
 * build's checkers alone. */
#define CHECK_SAN_BATCH_FILE "sanitize-batch.tsv"

/* The size a trace draws (one or two blocks of a lab's launch), and its
 * steps file's name in the trace's work folder. */
#define CHECK_TRACE_N 64
#define CHECK_TRACE_FILE "steps.txt"

struct check_opts {
    const char *file;               /* NULL: the lab's own kernel.cu */
    unsigned long long seed;
    int have_seed;                  /* 0: a fresh random seed */
    int sanitize;                   /* run compute-sanitizer when it is installed */
    int quick;                      /* time only the target's case */
    int counters;                   /* read the lesson's profiler counters with ncu */
    int time_budget_ms;             /* GPU time per timed kernel and case; 0: the harness's */
    int build_only;                 /* stop after compile, rules and link; keep the
                                       build in work_dir/build.json */
    int run_only;                   /* start from the build --build-only left in
                                       work_dir: no compile, same seed */
    /* A grader's split of one --run-only check in two, so that its race
     * checkers, seconds long, run apart from the GPU's timed sections
     * instead of holding them up (docs/harness.md 4.1): */
    int sanitize_later;             /* judge and time only; a pass's result says the
                                       race checkers are pending */
    const char *sanitize_from;      /* that result: run only its race checkers, and
                                       end with the whole verdict */
    const char *sanitized;          /* comma-separated: of those, the tools that ran
                                       clean over this build in a grader's batch (their
                                       reports are where the tool's own run writes it) */
    char *const *wrap;              /* argv prefix for the harness (a sandbox), or NULL;
                                       at most CHECK_WRAP_MAX words */
    double timeout_scale;           /* multiplies the catalog's limits; 0 means 1 */
    double target_min;              /* the target's threshold on this GPU (a grader's
                                       calibration); 0: the catalog's */
    const char *work_dir;           /* NULL: build/check/NN under the workbook */
    const char *gpu_lock;           /* the file runs on one GPU share it through
                                       (docs/harness.md); given, each run holds it
                                       from start to end (a grader's many runs);
                                       NULL: build/check/gpu.lock, held only
                                       around trials and timing */
    /* The GPU elsewhere (tutor/check/check_via.h): a command that runs its
     * arguments on a machine sharing this folder ("srun -p gpu
     * --gres=gpu:1", "ssh host --").  Given, the CPU tier judges here first
     * and the GPU judge then runs through it; NULL: the judge runs here. */
    const char *gpu_via;
    double gpu_via_wait_s;          /* how long its GPU run may wait to start; 0: VIA_WAIT_S */
    const char *gpu_arch;           /* the GPU there ("sm_90"): what the kernel is built
                                       for; NULL: the toolchain's arch */
    const char *gpu_name;           /* its model, as nvidia-smi names it (calibration's key) */
    const char *gpu_via_error;      /* why asking the GPU there failed: the GPU run is
                                       not tried, the CPU tier's verdict stands */
    double gpu_via_retry_s;         /* with gpu_via_error: when the command is tried again */
    const char *gpu_via_memo;       /* gpu-via.json, where a failure is remembered; NULL: none */
    /* `cudatutor trace`: after the build, only the CPU judge's profile of
     * one call at trace_n, its launches' steps written to this file
     * (check_trace.c); NULL: a check. */
    const char *trace;
    unsigned long long trace_n;     /* 0: CHECK_TRACE_N */
    check_progress_fn progress;
    void *ud;
};

#endif /* CHECK_OPTS_H */
