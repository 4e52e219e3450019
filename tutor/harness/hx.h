/* hx.h — the judge's core: options, the report, CUDA error capture, the
 * plan of the student's launcher, the timing loop and the input generator
 * that every family shares.
 *
 * A judge binary is the core (hx_core.cu, hx_report.cu, hx_time.cu,
 * hx_lock.cu, hx_plan.cu, hx_sandbox.cu) plus one family (hx_fam_*.cu).  It
 * is built once and never linked with student code: the student's host code
 * runs in the runner (tutor/runner/), a separate sandboxed process without a
 * GPU, and reaches the judge only as launch plans (hx_plan.cu), which the
 * judge checks and replays.  The student's device code is loaded from its
 * fatbin into the judge's context.  A CPU judge is the same objects (with
 * hx_emu.cu and hx_cub_emu.cu) linked against the emulating runtime,
 * tutor/emu/emu_rt.c, instead of libcudart: the kernels run on the PTX
 * emulator, the student's loaded from its PTX.
 */
#ifndef HX_H
#define HX_H

#include <chrono>
#include <functional>
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "../stage.h"
#include "../status.h"
#include "../runner/plan.h"

namespace hx {

enum { SCHEMA = 1, BATCH_MAX = 16, MAX_SIZES = 64, MAX_PERF = 8, MAX_TESTS = MAX_SIZES + MAX_PERF, MAX_MSGS = 16 };

enum mode { MODE_CHECK, MODE_SANITIZE, MODE_PROFILE };

/* One timed configuration from the catalog: a size and an input kind. */
struct perf_case {
    char label[32];
    unsigned long long n;       /* as run: the catalog's n less a jitter drawn per run */
    unsigned long long n_catalog;
    char input[16];             /* "" or a family-specific kind ("ripple") */
};

struct opts {
    const char *lab;
    const char *family;
    const char *json_path;
    uint64_t seed;
    enum mode mode;
    unsigned long long sizes[MAX_SIZES];
    int nsizes;
    struct perf_case perf[MAX_PERF];
    int nperf;
    double budget_ms;           /* GPU time to spend per timed kernel and case */
    /* The cases the verdict depends on, by label, comma-separated: timed
     * until their median is known to 0.05%; the others, shown but judged
     * by nothing, to 0.5%.  NULL: every case to 0.05%. */
    const char *precise;
    int min_samples, max_samples;
    unsigned long long profile_n;
    const char *gpu_lock;       /* NULL, or the GPU lock file (hx_lock.cu) */
    double gpu_lock_wait_s;     /* the longest wait for it before going on regardless */
    int gpu_lock_init;          /* hold it shared from before the first CUDA call */
    /* The student's code: the runner to start, its output file, the device
     * code to load (or, without a GPU, the PTX to check plans against). */
    const char *runner, *runner_out, *fatbin, *ptx;
    double plan_timeout_s;      /* the longest a launcher may take to answer */
    int max_steps;              /* launches and memsets in one plan */
    unsigned long long max_blocks;  /* blocks in one launch (0: BLOCKS_PER_ITEM times the largest size) */
    int max_local_bytes;        /* local memory per thread of a launched kernel */
    int progress_fd;            /* where @ lines go: never stdout or stderr */
    /* 1: started before the student's files exist (the check compiles
     * meanwhile): the runner and device code are read only after a 'g' on
     * stdin; end of input before it withdraws the run (--gate). */
    int gate;
    /* Calls of the entry point on each input that must give the same bits
     * (reduce families, check mode): 1 judges one call, as most labs do. */
    int repeat;
    /* The CPU judges: the largest trial size emulated (--emu-max-n); 0 is
     * hx_emu.cu's default. */
    unsigned long long emu_max_n;
    /* The CPU judges, a profile: where the student's launches' trace goes
     * (--trace, hx_emu.cu; `cudatutor trace`); NULL: none. */
    const char *trace_path;
};

struct test {
    char name[48];
    unsigned long long n;
    char expected[64];
    char got[64];
    int pass;
    char message[240];
};

struct timing {
    int samples;
    double median_ms, min_ms, max_ms;
    /* Wall time of the whole loop: warm-ups, samples and every sample's
     * preparation and verification, of which the events see only the calls. */
    double seconds;
};

struct perf {
    struct perf_case c;
    double bytes;               /* bytes that must move: each input read once, outputs written once */
    struct timing t;            /* the student's kernel */
    struct timing ref;          /* the reference (CUB or the family's own) on the same data */
    double gbps;                /* bytes / median, 0 when the family is compute bound */
    double pct_peak;            /* gbps / measured peak, 0 when not applicable */
    double rate;                /* items per second, in units of 1e9 */
    const char *rate_unit;      /* "Gint/s", "Gfloat/s", "Gtrap/s", "Gnum/s" */
    double ratio;               /* reference median / student median: > 1 is faster than the reference */
    /* Compute-bound families: the most items per second (in 1e9) the
     * device's arithmetic allows for this case, measured in the same run by
     * the family; 0 where bandwidth is the limit instead. */
    double peak_rate;
    int implausible;
    char implausible_why[240];  /* the sentence the verdict shows */
};

struct device {
    char name[256];
    int cc_major, cc_minor, sms;
    size_t l2_bytes, mem_bytes;
    double theoretical_gbps;    /* from the memory clock and bus width */
    double read_gbps;           /* measured: a streaming read kernel */
    double copy_gbps;           /* measured: a streaming copy, read + write */
};

struct report {
    enum status status;
    uint64_t seed;
    struct device dev;
    int have_dev;
    struct test tests[MAX_TESTS];
    int ntests;
    unsigned long long first_failing_n;     /* 0: none */
    struct perf perf[MAX_PERF];
    int nperf;
    const char *reference;
    char messages[MAX_MSGS][320];
    int nmsgs;
    double elapsed_s;
    /* Where the seconds went: set-up (process, context, allocations), the
     * correctness trials, the wait for the GPU lock, the timed cases. */
    double init_s, correctness_s, wait_s, timing_s;
    double gate_s;              /* --gate: the wait for the check's build, not in init_s */
    long hold_late;             /* timed samples whose hold let go before the host had queued the call (hx_time.cu) */
    double peak_s;              /* of timing_s: the streaming peak's measurement */
    double expect_s;            /* the timed section's wait for its CPU references (family.expect) */
    /* Families with a tolerance: the largest |got - expected| / tolerance of
     * any result they accepted, trials and timed samples alike (how close the
     * kernel came to failing; 0 for exact families, which leave has_tol 0). */
    int has_tol;
    double tol_used;
    long plans;                 /* launch plans asked for and accepted */
    int plans_dry;              /* checked without a GPU, against the PTX */
    char plan_violation[300];   /* the plan's verdict, when one failed */
    /* Without a GPU: each trial's plan in words, for the student and tests. */
    char plan_text[MAX_SIZES][320];
    int nplan_text;
    /* The CPU judges (hx_emu.cu): the run was emulated, at the trial sizes
     * up to emu_max_n; the larger ones are not_run.  The instructions the
     * student's kernels and the judge's own executed, over all threads. */
    int emulated;
    unsigned long long emu_max_n, not_run[MAX_SIZES];
    int nnot_run;
    unsigned long long emu_student_instr, emu_judge_instr;
};

enum lock_state { LOCK_NONE, LOCK_SHARED, LOCK_OWNED };

/* What the plan checks hold a launch to: the device's own limits. */
struct device_limits {
    int max_grid[3], max_block[3];
    int smem_optin;             /* dynamic + static shared memory per block, at most */
};

/* Everything a family needs while it runs. */
struct ctx {
    const struct opts *o;
    struct report *r;
    cudaStream_t s;
    cudaEvent_t ev0, ev1;
    void *flush;                /* written before every timed sample to evict the L2 */
    size_t flush_bytes;
    int student_ran;            /* CUDA errors after this are the kernel's, not ours */
    int flush_round;
    std::chrono::steady_clock::time_point t0;   /* when main began */
    int lock_fd;                /* the GPU lock (hx_lock.cu), or -1 */
    enum lock_state lock_state;
    uint64_t token;             /* what the runner gets for cudaStream_t: never a real stream */
    struct device_limits limits;
    enum status plan_status;    /* 0 (pass): no plan failed; else the verdict of the one that did */
    char plan_msg[300];
    long plans;                 /* plans asked for and accepted */
    int rough;                  /* measure() stops at the looser precision (hx_time.cu) */
    int *hold;                  /* host-mapped: a timed call's launches wait on it (hx_time.cu) */
};

/* A family: how to run one correctness trial and one timed case.  Each
 * function returns 0 when it ran (pass or fail is in the record) and -1 after
 * a CUDA error, which check() has already recorded. */
struct family {
    enum family_id id;          /* its row of family.h: its name, entry point and buffers */
    const char *reference;
    int peak_is_copy;           /* mixed read/write traffic: compare with the copy peak */
    int compute_bound;          /* no GB/s: report items per second only */
    int (*setup)(struct ctx *c, unsigned long long max_n);
    int (*trial)(struct ctx *c, unsigned long long n, int trial, struct test *t);
    int (*timed)(struct ctx *c, const struct perf_case *pc, struct perf *p);
    int (*profile)(struct ctx *c, unsigned long long n);
    void (*teardown)(struct ctx *c);
    /* Optional: the host-side work of the timed cases (their CPU references),
     * done on a thread of its own from the judge's start (hx_core.cu), while
     * the compile, the set-up and the trials go on, and joined before the
     * first timed case.  Host memory and c->o only: it gets a copy of the
     * context, and nothing else may touch what it writes until the join. */
    void (*expect)(struct ctx *c);
    /* Whether trial and timed honour o->repeat (the same bits on every call
     * with one input); a family that cannot refuses --repeat above 1. */
    int repeats;
    /* Optional: once the student's device code is loaded (each build's, in
     * a batch), after setup: finds what the family writes in it (lab 09's
     * lab_params).  0, or -1 with the verdict recorded (student_reject). */
    int (*bind)(struct ctx *c);
};

extern const struct family family_impl;

/* ---- the student's launcher (hx_plan.cu, hx_sandbox.cu) ---------------- */

/* RUNNER_OUTPUT_CAP: what the runner may print.  The bound on blocks per
 * launch is BLOCKS_PER_ITEM times the largest size the run calls with (a
 * block per element, four times over, is more than any lab needs), and
 * never under BLOCKS_FLOOR (a grid sized by the device, not by n). */
enum { RUNNER_OUTPUT_CAP = 1 << 20, BLOCKS_PER_ITEM = 4, BLOCKS_FLOOR = 1 << 20 };

struct runner {
    int pid;
    int fd;                     /* the judge's end of the socketpair */
    int go;                     /* deferred: the pipe the child waits on before it
                                   opens anything; -1 once told (or not deferred) */
    int report;                 /* deferred: the set-up report's read end, -1 after */
};

/* Starts the runner in its sandbox with one socket; its stdout and stderr go
 * to out_path, capped at out_cap bytes.  Before any CUDA call.  Returns 0
 * once the runner is executing (no student code has run before that), or
 * -1 with why set when the workbook could not start it: the sandbox's own
 * failure, never the student's. */
int runner_start(struct runner *r, const char *path, const char *out_path, size_t out_cap,
                 char *why, size_t len);
/* The same fork, before any CUDA call, for a runner whose file does not
 * exist yet (a judge started while the check still compiles, --gate): the
 * child waits, opening nothing, until runner_go. */
int runner_start_deferred(struct runner *r, const char *path, const char *out_path, size_t out_cap,
                          char *why, size_t len);
/* Lets a deferred runner go on: 0 once it is executing, -1 with why set as
 * runner_start's.  0 at once for a runner that was not deferred. */
int runner_go(struct runner *r, char *why, size_t len);
/* Closes the socket and reaps the runner; why says how it ended. */
void runner_stop(struct runner *r, char *why, size_t len);
/* How a runner that was executing ended (a wait status), in words that
 * carry no number the submission chose. */
void runner_describe(int status, char *why, size_t len);

/* One call of the lab's entry point, as the runner gets it: device pointers
 * (as numbers) with the bytes behind each, the ones a memset may touch. */
struct call {
    enum family_id family;
    unsigned n;
    unsigned n2;                /* a second size: rownorm's cols; else 0 */
    uint64_t ptr[4];
    uint64_t bytes[4];
    int writable[4];
    uint64_t stream;            /* the token */
    float a, b;
};

/* A call of family f on these buffers (their sizes follow from f and n),
 * with c's token for the stream. */
struct call call_make(const struct ctx *c, enum family_id f, unsigned n, const void *p0,
                      const void *p1, const void *p2, const void *p3);

/* Optional, defined by a family whose calls n alone does not describe
 * (rownorm: its cols, and the bytes behind its buffers): completes the call
 * of trial `trial` of size n, so that a run without a GPU asks for the plans
 * the trials would.  Weak: the other families leave it out. */
void family_dry_call(struct ctx *c, unsigned long long n, int trial, struct call *k) __attribute__((weak));

/* One checked step of a plan, ready to replay. */
struct step {
    uint32_t kind, kernel;
    unsigned grid[3], block[3], shmem;
    uint64_t ptr, bytes;
    int value;
    int cooperative;            /* a launch through cuLaunchCooperativeKernel */
    uint32_t argbytes;
    uint8_t args[PLAN_MAX_ARGBYTES];
};

enum { MAX_PLAN_STEPS = 64 };   /* the catalog's max_steps is at most this */

struct plan {
    int nsteps;
    struct step steps[MAX_PLAN_STEPS];
};

/* Starts the runner (before CUDA), then, with the device up (gpu) or not,
 * loads the kernels and tells the runner their parameters. */
int plan_start(struct ctx *c);
/* Which build's runner and device code the calls here mean: 0 unless the
 * judge runs a batch (hx_core.cu). */
void plan_select(int build);
int plan_load(struct ctx *c, int gpu);
/* The runner's pid while it runs, else 0. */
int plan_runner_pid(void);
void plan_end(struct ctx *c);
/* Asks the runner for the plan of call k and checks every step.  0, or -1
 * with c->plan_status and c->plan_msg set (rejected, runtime_error, timeout). */
int student_plan(struct ctx *c, const struct call *k, struct plan *p);
/* The address and size of a __constant__ or __device__ variable of the
 * student's device code (lab.h declares the ones the judge writes, such as
 * lab 09's integrand parameters); -1 when the module has no such variable or
 * no GPU loaded it.  The student's kernels can read it, their host code can
 * never reach it. */
int student_global(struct ctx *c, const char *name, void **dptr, size_t *bytes);
/* Loads the student's device code afresh, every __device__ variable back to
 * its first value, and replays later plans on it: a result a kernel keeps
 * in its own memory does not survive.  The caller has synchronised: no
 * kernel of the old copy may still run.  0, or -1 after a driver error
 * (recorded). */
int student_reload(struct ctx *c);
/* Records that the student's code breaks the contract in a way the family
 * found (rejected, with this reason) and returns -1. */
int student_reject(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Launches a checked plan on c->s; -1 after a CUDA error (recorded). */
int student_replay(struct ctx *c, const struct plan *p);
/* Plan (twice: the two must agree), then replay. */
int student_run(struct ctx *c, const struct call *k);
/* Profile mode: the plan of call k, then its replay alone inside the
 * "student" NVTX range, synchronised on both sides, so that ncu --nvtx
 * --nvtx-include "student/" measures the student's kernels and nothing of
 * the judge's.  0, or -1 (recorded). */
int student_profile(struct ctx *c, const struct call *k);
int plan_same(const struct plan *a, const struct plan *b);
/* Records that two plans for the same call differed (rejected). */
int student_differs(struct ctx *c, unsigned n);
/* "n=1000: _Z1kPKiPij<<<8,128,0>>> memset(out+0,0,4)": a plan in words,
 * blocks and threads counted over all dimensions, pointers named by the
 * buffer they are in. */
void plan_describe(const struct plan *p, const struct call *k, unsigned n, char *buf, size_t len);
/* A timed sample's plan: asked for afresh, and the same as the case's first
 * (*have_first tells whether there is one yet), else the run is rejected. */
int plan_sample(struct ctx *c, const struct call *k, struct plan *p, struct plan *first, int *have_first);

/* ---- the CPU tier (hx_emu.cu) ------------------------------------------- */

/* Defined only in the CPU judges, the judge's objects linked against the
 * emulating runtime (tutor/emu/emu_rt.c); the GPU judges leave them out,
 * so each call site tests for the function first.  emu_prepare, before the
 * run: marks the report emulated, keeps the trial sizes up to the
 * emulation bound (the rest are listed as not run) and drops the timed
 * cases (no time is measured on a CPU).  emu_bind, before each replay of a
 * call: names its buffers for the emulator's messages.  emu_finish, after
 * the run: turns how the emulator stopped the student's code into the
 * verdict (a hazard fails, the budget is a timeout, a form it does not
 * emulate needs a GPU). */
void emu_prepare(struct opts *o, struct report *r) __attribute__((weak));
/* After the device is described, before the family's setup: sizes the
 * judge's own kernels for the emulator. */
void emu_device(struct ctx *c) __attribute__((weak));
void emu_bind(struct ctx *c, const struct call *k) __attribute__((weak));
void emu_finish(struct ctx *c) __attribute__((weak));
/* The lanes of the student's kernels that ran a div or rcp so far: what
 * the emulator counts exactly where a GPU's rate is the evidence (lab 09's
 * integrand divides once an evaluation). */
unsigned long long emu_divisions(void) __attribute__((weak));
/* After the student's module is loaded and before the family's setup: the
 * CPU judge opens its report and puts its system-call filter on itself
 * (tutor/emu/emu_seal.h).  0, or -1 after noting why (the workbook's
 * failure: no student code has run). */
int emu_seal_judge(struct ctx *c) __attribute__((weak));
/* Opens the report's temporary file now, for report_write to fill later
 * (a sealed judge cannot open it then).  0, or -1. */
int report_prepare(const struct opts *o);
/* 1 when $HX_JUDGE_CROSSCHECK asks every judge body to run both natively
 * and on the emulator, and the two to agree (hx_judge.cuh). */
int emu_crosscheck(void) __attribute__((weak));

/* ---- CUDA errors ------------------------------------------------------ */

/* Records the first failing CUDA call (name, file, line, CUDA's message) and
 * returns -1; returns 0 for cudaSuccess. */
int check(cudaError_t e, const char *call, const char *file, int line);

#define HX_CHECK(call) do { if (hx::check((call), #call, __FILE__, __LINE__)) return -1; } while (0)
#define HX_TRY(call) do { if (hx::check((call), #call, __FILE__, __LINE__)) goto out; } while (0)

/* The recorded error, or NULL when none happened; set_error_text records
 * one (the first wins) that did not come from a runtime call. */
const char *error_text(void);
void set_error_text(const char *text);

/* Seconds on a monotonic clock. */
double now_s(void);

/* ---- messages and progress -------------------------------------------- */

void note(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Progress lines ("@stage ...", "@gpu ...") go to the private channel fd
 * the tutor passes (--progress-fd), never to stdout or stderr, where the
 * student's kernels print: nothing they print can pass for protocol. */
void progress_open(int fd);
void progress_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void stage(enum stage_id s, int i, int count, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void test_fail(struct test *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records how much of the tolerance an accepted result used. */
static inline void tol_note(struct report *r, double error, double tolerance)
{
    double f = tolerance > 0 ? error / tolerance : (error > 0 ? 1e300 : 0);
    r->has_tol = 1;
    if (f > r->tol_used)
        r->tol_used = f;
}

/* ---- sharing the GPU (hx_lock.cu) ------------------------------------ */

/* Opens o->gpu_lock, if any; without one every call below does nothing. */
int gpu_lock_open(struct ctx *c);
/* Waits (at most o->gpu_lock_wait_s) until no timed section runs, and holds
 * the GPU shared (nothing to do when it does already); -1 when the wait ran
 * out (the caller goes on regardless). */
int gpu_share(struct ctx *c);
/* Between trials: if a timed section waits, lets go of the shared hold and
 * takes it again after the timed sections queued (gpu_share); otherwise,
 * or holding nothing shared, does nothing. */
int gpu_yield(struct ctx *c);
/* Lets go of a shared hold, waits (at most o->gpu_lock_wait_s) until nothing
 * else runs on the GPU and holds it alone; -1 when the wait ran out (the
 * caller times anyway). */
int gpu_own(struct ctx *c);
/* Lets go of whichever hold gpu_share or gpu_own took. */
void gpu_release(struct ctx *c);

/* ---- timing ------------------------------------------------------------- */

/* One timed kernel: prepare runs before the L2 flush (poison, mutate input),
 * call is the only thing between the two events, verify reads the result. */
struct timed {
    int (*prepare)(void *arg, int sample);
    int (*call)(void *arg);
    /* 1: right; 0: wrong (message in msg); -1: CUDA error. */
    int (*verify)(void *arg, int sample, char *msg, size_t len);
    void *arg;
    int *reference;             /* set to 1 to time the reference instead */
    /* Optional, after the last sample of each kernel: a check of the whole
     * output; returns like verify. */
    int (*after)(void *arg, char *msg, size_t len);
    /* Optional, after the student's samples and before the reference's: the
     * input checked unchanged and made afresh; returns like verify. */
    int (*between)(void *arg, char *msg, size_t len);
};

/* Warms up, then times samples until their median has settled (its error
 * at most 0.05% of it, 0.5% with c->rough: hx_time.cu), at least min_samples and at most
 * max(min_samples, budget/estimate) and max_samples, each after an L2
 * flush and followed by a synchronisation and a verification.  Returns 0,
 * 1 when a sample's result was wrong (msg says which), -1 on a CUDA error. */
int measure(struct ctx *c, const struct timed *t, struct timing *out, char *msg, size_t len);

/* Times the student's kernel, then (after t->between, if any) the reference
 * on the same data (after setting *t->reference).  A wrong student result fails rec (rec->pass = 0)
 * and returns 1; a wrong reference is the harness's fault: noted as
 * "internal:" and -1, like a CUDA error.  Returns 0 when both were right. */
int measure_both(struct ctx *c, const struct timed *t, struct perf *p, struct test *rec);

/* Evicts the L2 by writing a buffer twice its size on the stream. */
int flush_l2(struct ctx *c);

/* Each timed case's n becomes the catalog's less up to 1/64 of it, drawn
 * from the seed: a kernel cannot special-case a size it cannot know,
 * --seed still reproduces the run, and the ratio to the reference, taken on
 * the same n, does not move. */
void perf_jitter(struct opts *o);

/* Fills the perf record's derived figures from its timings and the device;
 * a figure the device cannot reach marks the case implausible, with the
 * sentence the verdict shows in implausible_why. */
void perf_finish(const struct ctx *c, const struct family *f, struct perf *p, double items);

/* The host threads a CPU pass over n elements is shared by: the cores, at
 * most 16; one below 2^20 elements (a few milliseconds, less than the
 * threads cost). */
unsigned host_workers(unsigned long long n);

/* Runs part(w) for every w in [0, workers), part 0 on the calling thread and
 * the others on threads of their own, and returns when all are done.  A part
 * whose thread cannot start runs on the calling thread: the CPU judge lives
 * under an address-space bound that a thread's stack can cross, and a
 * reference must not become a crash. */
void host_parallel(unsigned workers, const std::function<void(unsigned)> &part);

/* Runs fn(i) for i in [0, n) split across the host's cores and returns the sum
 * of the per-chunk results (the CPU references are sums). */
double host_parallel_sum(unsigned long long n, double (*chunk)(unsigned long long lo, unsigned long long hi, const void *arg), const void *arg);

/* ---- inputs ------------------------------------------------------------- */

/* A counter-based generator: the value at index i depends only on the seed,
 * the trial's salt and i, so the device fills the input and the host computes
 * the reference without either copying it. */
__host__ __device__ static inline uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

__host__ __device__ static inline uint64_t draw(uint64_t seed, uint64_t salt, uint64_t i)
{
    return mix(seed ^ mix(salt * 0x2545f4914f6cdd1dull + i));
}

/* The salt of a timed case's inputs, from its label: the same case gets the
 * same inputs for a seed whichever other cases run with it (--quick). */
static inline uint64_t case_salt(const struct perf_case *pc)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = pc->label; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return 1000 + (h & 0xffffff);
}

/* 64 random bits from the operating system (getrandom), for poison: never
 * derived from the seed or the inputs, so no kernel can predict them. */
uint64_t poison_bits(void);

/* A uniform integer in [0, range) from 32 random bits, without a division. */
__host__ __device__ static inline uint32_t below(uint64_t bits, uint32_t range)
{
    return (uint32_t)(((bits >> 32) * (uint64_t)range) >> 32);
}

/* The m-th of a sample's distinct places below n (n < 2^32): below(bits,
 * n), moved on to the next place while one of taken[0, m) holds it, so
 * that the m places differ whenever m < n. */
static inline unsigned long long below_untaken(uint64_t bits, unsigned long long n, int m,
                                               const unsigned long long *taken)
{
    unsigned long long i = below(bits, (uint32_t)n);
    for (int t = 0; t < m && (unsigned long long)m < n; t++)
        if (taken[t] == i) {
            i = (i + 1) % n;
            t = -1;                     /* look again from the first */
        }
    return i;
}

/* A uniform double in [0, 1). */
__host__ __device__ static inline double unit(uint64_t bits)
{
    return (double)(bits >> 11) * (1.0 / 9007199254740992.0);
}

} /* namespace hx */

#endif /* HX_H */
