/* check_stage.h — what the stages of one check share, private to check*.c:
 * the run that is carried from stage to stage, the leaves' helpers, and
 * each stage's entry point.  Calls point one way: the orchestrator calls
 * the stages, the stages call the leaves, and no leaf calls a stage.
 *   check.c           the orchestrator: the order, --build-only / --run-only,
 *                     target, summary
 *   check_intake.c    the grader's intake rules          (stages, in order)
 *   check_build.c     compile, rules (symbols, includes, PTX), link the runner
 *   check_judge.c     run the judge with the runner: trials, timing
 *   check_via_run.c   the judge stage with --gpu-via: the CPU tier here, then
 *                     the judge through the GPU command (check_via_frames.c
 *                     reads the relay's frames; it calls check_judge.c's
 *                     judge_run, which runs through it by r->judge_elsewhere)
 *   check_sanitize.c  the race checkers around the judge
 *   check_counters.c  ncu's counters around the judge
 *   check_tell.c      progress, verdict, messages          (leaves)
 *   check_argv.c      a child's command line, limits and waits for the GPU
 *   check_cache.c     the test suite's compile cache
 *   check_nvcc.c      nvcc's steps, two at a time
 * Each stage records what it did in r->res and can end the check with a
 * verdict; only a broken workbook makes it return -1. */
#ifndef CHECK_STAGE_H
#define CHECK_STAGE_H

#include <stdatomic.h>

#include "check/check_opts.h"
#include "model/catalog.h"
#include "model/result.h"
#include "sys/toolchain.h"
#include "sys/proc.h"
#include "status.h"

#define COMPILE_TIMEOUT_S 180
/* What a violation found by the judge's plan checks is filed under. */
#define PLAN_SYMBOL "launch plan"
#define OUTPUT_KEEP 8192

/* How long a judge may wait for the GPU before it goes on regardless
 * (--gpu-lock-wait), and the most waiting a check forgives a child: a run
 * may wait twice (trials, then timing), and a judge that says it waits
 * gains no more than this. */
#define GPU_WAIT_S 120
/* The GPU lock every check on the machine shares (check.c, machine_lock). */
#define MACHINE_LOCK "/tmp/cudatutor-gpu.lock"
#define GRACE_MAX_S (2 * GPU_WAIT_S + 10)

/* Time a child spent waiting for the GPU, from its "@gpu wait" and
 * "@gpu go" lines: it does not count against the kernel's time limit. */
struct waits {
    double start;           /* when the open wait began; 0: none open */
    double total;
};

struct san_job;
struct hazard_job;
struct judge_job;
struct link_job;
struct profile_job;
struct via_call;

/* A run beside the judge at the far end of --gpu-via (a race checker): its
 * command line goes to the relay while the judge runs there; its channel's
 * lines come back as they come, then its output, its report file and how
 * it ended. */
struct via_job {
    char *const *argv;
    const char *cwd;
    double timeout_s;
    size_t output_cap;
    const char *file;               /* the report it writes, sent back */
    void (*on_line)(void *ud, const char *line);
    double (*grace)(void *ud);      /* its waits for the GPU, not counted */
    void *ud;
    struct proc_result pr;          /* how it ended, once done */
    int done;
    int lost;                       /* not done: the command ended first (pr.error says) */
};

/* Everything one check carries from stage to stage. */
struct check_state {
    const struct toolchain *tc;
    const struct catalog *cat;
    const struct lab *lab;
    const struct check_opts *o;
    struct result *res;     /* what the check found so far: the stages fill it */
    char *dir, *src, *obj, *bin, *keep, *ptx, *fatbin, *cubin, *deps;
    unsigned long long seed;
    char last_stage[160];
    double t0;
    int lock_fd;            /* held on the work folder for the whole check */
    char *gpu_lock;         /* the file the judges share the GPU through */
    char *lock_note;        /* why it is not the machine's (a message), or NULL */
    struct waits hx_waits;  /* the judge's waits for the GPU */
    double trials_t0;       /* when the judge began its trials; 0: not yet */
    double trials_w0;       /* its waits for the GPU by then */
    int trials_done;        /* it said "@passed correctness" */
    double run_t0;          /* when the judge started: the whole-check bound runs from here; 0: not yet */
    struct judge_job *early;    /* the GPU judge started beside the build, at its gate */
    struct judge_job *cpu_beside;   /* without a GPU, the CPU judge beside the GPU judge's dry run */
    struct link_job *link;  /* the runner's link, started beside the rules */
    double gate_wait_s;     /* how long the judge that runs waited there */
    int emulated;           /* the judge is the CPU one: no GPU, the PTX emulator */
    /* why a GPU check's hazard pass (the emulator at small sizes) did not
     * finish clean, "" when it did: the pass then needs the race
     * checkers' clean run, which force_sanitize asks for */
    char hazard_open[240];
    int force_sanitize;
    int hazard_wanted;      /* the judge now running is a GPU one the hazard pass follows */
    struct hazard_job *hz;  /* the hazard pass, once started beside the timing */
    struct profile_job *pj; /* without a GPU, the profiles run beside the trials (check_counters.c) */
    /* Called when the judge says its trials passed (the orchestrator
     * starts the race checkers then, to overlap the timing); NULL: none. */
    void (*trials_passed)(struct check_state *r);
    /* How the judge's process runs when it is not the CPU one: NULL, here
     * (proc_run); via_run, through --gpu-via (via_stage sets it).  Returns
     * as judge_run. */
    int (*judge_elsewhere)(struct check_state *r, const struct proc_spec *spec, struct proc_result *pr);
    char via_note[700];     /* why the GPU run through --gpu-via did not happen */
    double via_queued_s;    /* how long it waited to start */
    struct via_call *via_live;  /* the run through it while the judge runs; NULL otherwise */
    struct san_job *san;    /* the race checkers, once started */
    double san_t0;
    atomic_int san_cancel;
};

/* ---- what the stages tell (check_tell.c) ---- */
void check_progress(struct check_state *r, enum stage_id stage, int i, int n, const char *detail);
void check_set_status(struct check_state *r, enum status s);
enum status check_get_status(const struct check_state *r);
void check_message(struct check_state *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last `keep` bytes of text, from a line boundary where possible. */
const char *check_tail(const char *text, size_t keep);

/* ---- a child of the check: command line, limits, waits (check_argv.c) ---- */
/* The catalog's run limit, scaled by --timeout-scale. */
double check_timeout(const struct check_state *r);
/* The whole check's bound (the lab's check_timeout_s, scaled), and the
 * time (util_now's clock) by which a child of the run stage must have
 * ended: from the judge's start, plus `waited`, the seconds the child (and
 * the judge before it) spent waiting for the GPU.  0 before the judge
 * started. */
double check_bound(const struct check_state *r);
double check_deadline(const struct check_state *r, double waited);
/* What a judge's command line asks beyond its mode and sizes. */
enum judge_flags {
    JUDGE_PERF = 1,         /* the family's timed cases */
    JUDGE_GATE = 2,         /* started before the build is whole (--gate) */
};
/* The judge's command line for mode "check", "sanitize" or "profile", with
 * the sandbox prefix (--wrap) in front (judge_wrap_words words, before which
 * a tool, a sanitizer or ncu, is put in front of the judge); NULL when out
 * of memory. */
char **judge_argv(const struct check_state *r, const char *json, const char *mode, const unsigned long long *sizes,
                  int nsizes, unsigned flags);
void judge_argv_free(char **argv);
/* The number of words of the --wrap prefix in front of a judge_argv. */
int judge_wrap_words(const struct check_state *r);
/* The file where the runner of a judge in this mode (the CPU judge's when
 * r->emulated) writes what the student's host code printed; NULL when out
 * of memory. */
char *judge_runner_out(const struct check_state *r, const char *mode);
/* A child's "@gpu wait" / "@gpu go" line, and the seconds of waiting it
 * is forgiven (at most GRACE_MAX_S). */
void waits_line(struct waits *w, const char *line);
double waits_grace(const struct waits *w);

/* ---- check_build.c ---- */
int stage_compile(struct check_state *r);
int stage_rules(struct check_state *r);
/* The runner's link needs only the object: link_begin starts it once the
 * compile is whole, to run beside the rules, and stage_link takes its end
 * (or links then, when none was started).  link_end stops and forgets one
 * no stage took (the rules ended the check); nothing when none runs. */
void link_begin(struct check_state *r);
void link_end(struct check_state *r);
int stage_link(struct check_state *r);

/* ---- check_judge.c ---- */
/* One run of the judge (the CPU one when r->emulated): 0, or 1 when the run
 * through --gpu-via did not happen (r->via_note says why), or -1 when the
 * workbook is broken. */
int judge_run(struct check_state *r);
/* Starts the GPU judge before the build, waiting at its gate, where the
 * check allows it (see check_judge.c); judge_run then opens the gate, and
 * on a machine that shows no GPU starts the CPU judge beside it.
 * judge_early_end stops those the check will not use (the build failed);
 * nothing when none was started. */
void judge_early_begin(struct check_state *r);
void judge_early_end(struct check_state *r);
/* Whether this build has the family's CPU judge. */
int judge_cpu_exists(const struct check_state *r);
int stage_judge(struct check_state *r);
/* The hazard pass (the CPU judge at the small trial sizes) in a thread of
 * its own: hazard_begin starts it when the GPU judge's trials passed, so
 * that it overlaps the timing (it needs no GPU); does nothing when it runs
 * already or r->hazard_wanted is 0.  hazard_end waits for it; with
 * `record` its verdict goes into the report (stage_judge), otherwise it is
 * stopped first and forgotten.  Returns 0, or -1 when it could not run. */
void hazard_begin(struct check_state *r);
int hazard_end(struct check_state *r, int record);

/* ---- check_via_run.c, check_via_frames.c ---- */
/* proc_run for the judge when its GPU is elsewhere: the same spec, run
 * through r->o->gpu_via and the relay; the same result.  Returns as
 * judge_run. */
int via_run(struct check_state *r, const struct proc_spec *spec, struct proc_result *pr);
/* The judge stage with --gpu-via: the CPU tier here, then the GPU judge
 * through the command; the CPU tier's verdict stands when the GPU run does
 * not happen, with a message that says why. */
int via_stage(struct check_state *r);
/* Starts job beside the judge now running through --gpu-via (the relay
 * runs it there): 0, or -1 when no such run is in flight, or the judge has
 * ended.  Its result is in job->pr once job->done, when via_run returns. */
int via_submit(struct check_state *r, struct via_job *job);

/* ---- check_sanitize.c ---- */
void san_begin(struct check_state *r);
/* Beside a pass whose race checkers are pending (--sanitize-later), the
 * lines a grader needs to run them over several builds at once:
 * CHECK_SAN_BATCH_FILE in the work folder (check_opts.h). */
void san_batch_write(struct check_state *r);
void san_end(struct check_state *r, int record);
int stage_sanitize(struct check_state *r);

/* ---- check_counters.c ---- */
int stage_counters(struct check_state *r);
/* Without a GPU: the profiles stage_counters needs start now, beside the
 * CPU judge's trials, on the host's other core (nothing when they run
 * already or cannot start: stage_counters then runs them itself). */
void counters_ahead(struct check_state *r);
/* Stops and forgets them, if stage_counters did not take them. */
void counters_ahead_end(struct check_state *r);
/* ---- the trace of one call (check_trace.c) ---- */
/* The CPU judge's profile of one call at o->trace_n with o->trace set:
 * its steps in that file, how it ended in the result (a hazard's message
 * among them).  0; -1 when the judge could not run. */
int stage_trace(struct check_state *r);

/* check_cache.c: nvcc's results by what went in, when the test suite
 * names a folder for them ($CUDATUTOR_COMPILE_CACHE).  cache_key hashes
 * nvcc, the flags (no paths), lab.h and the source; NULL when a file cannot
 * be read.  cache_fetch puts a stored compile's files in place of this
 * run's and returns 0 with nvcc's exit code and log (the source's path put
 * back), or -1 when there is none.  cache_store keeps this run's compile if
 * it read nothing that the key does not cover.  cache_lock waits for the
 * key's lock (another check compiling the same) and returns its descriptor
 * to close when done, or -1 (then compile without it). */
char *cache_key(const struct check_state *r, char *const *flags);
int cache_fetch(const struct check_state *r, const char *dir, const char *key, int *exit_code, char **log);
void cache_store(const struct check_state *r, const char *dir, const char *key, int exit_code, const char *log);
int cache_lock(const char *dir, const char *key);

#endif /* CHECK_STAGE_H */
