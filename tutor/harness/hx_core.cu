/* hx_core.cu — the judge's main: reads the options the tutor passes, starts
 * the student's runner, sets up the device, runs the family's correctness
 * trials and then its timed cases, and writes the report.  The process exits
 * 0 whenever it wrote a report; the verdict is in the report, never in the
 * exit code.  Without a GPU it still asks the runner for the plan of every
 * trial and checks it, and says that nothing ran. */
#include <chrono>
#include <cuda.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <thread>

/* lab_params is the family's (hx_fam_trapezoid.cu), not this file's. */
#define LAB_NO_PARAMS
#include "../lab.h"
#include "hx.h"

namespace hx {

int report_write(const struct opts *o, const struct report *r);

static const char usage_text[] =
    "usage: labNN --json PATH [--lab NN] [--family F] [--seed S] [--mode check|sanitize|profile]\n"
    "             [--sizes N,N,...] [--perf LABEL:N[:INPUT]]...\n"
    "             [--budget-ms MS] [--min-samples K] [--max-samples K] [--profile-n N]\n"
    "             [--gpu-lock PATH [--gpu-lock-wait S] [--gpu-lock-init 0|1]]\n"
    "             --runner PATH [--runner-out PATH] --fatbin PATH [--ptx PATH]\n"
    "             [--plan-timeout S] [--max-steps K] [--max-blocks K] [--max-local BYTES]\n"
    "             [--progress-fd FD] [--repeat K] [--emu-max-n N] [--trace PATH] [--gate 0|1]\n"
    "       labNN --batch FILE      (sanitize-mode runs of several builds, one line of options each)\n"
    "The tutor builds and runs this program; see docs/harness.md.\n";

static int parse_sizes(struct opts *o, char *list)
{
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        unsigned long long n = strtoull(tok, &end, 10);
        if (*end || n == 0 || n > (1ull << 28) || o->nsizes >= MAX_SIZES)
            return -1;
        o->sizes[o->nsizes++] = n;
    }
    return 0;
}

static int parse_perf(struct opts *o, char *spec)
{
    struct perf_case *pc;
    char *label = strtok(spec, ":"), *num = strtok(NULL, ":"), *input = strtok(NULL, ":"), *end;

    if (!label || !num || o->nperf >= MAX_PERF)
        return -1;
    pc = &o->perf[o->nperf++];
    snprintf(pc->label, sizeof pc->label, "%s", label);
    snprintf(pc->input, sizeof pc->input, "%s", input ? input : "");
    pc->n = pc->n_catalog = strtoull(num, &end, 10);
    return (*end || pc->n == 0 || pc->n > (1ull << 28)) ? -1 : 0;
}

/* The options that set one field of struct opts as given, each read as its
 * field's type says: a path or name as it is, an int by atoi, a count in
 * base 10, a double by atof. */
enum opt_kind { OPT_TEXT, OPT_INT, OPT_COUNT, OPT_REAL };
template <typename T> struct opt_kind_of;
template <> struct opt_kind_of<const char *> { static constexpr enum opt_kind kind = OPT_TEXT; };
template <> struct opt_kind_of<int> { static constexpr enum opt_kind kind = OPT_INT; };
template <> struct opt_kind_of<unsigned long long> { static constexpr enum opt_kind kind = OPT_COUNT; };
template <> struct opt_kind_of<double> { static constexpr enum opt_kind kind = OPT_REAL; };
struct opt_field {
    const char *name;
    enum opt_kind kind;
    size_t at;                  /* the field's offset in struct opts */
};
#define OPT_FIELD(name, field) {name, opt_kind_of<decltype(opts::field)>::kind, offsetof(struct opts, field)}
static const struct opt_field opt_fields[] = {
    OPT_FIELD("--json", json_path),
    OPT_FIELD("--lab", lab),
    OPT_FIELD("--family", family),
    OPT_FIELD("--budget-ms", budget_ms),
    OPT_FIELD("--precise", precise),
    OPT_FIELD("--min-samples", min_samples),
    OPT_FIELD("--max-samples", max_samples),
    OPT_FIELD("--profile-n", profile_n),
    OPT_FIELD("--gpu-lock", gpu_lock),
    OPT_FIELD("--gpu-lock-wait", gpu_lock_wait_s),
    OPT_FIELD("--gpu-lock-init", gpu_lock_init),
    OPT_FIELD("--runner", runner),
    OPT_FIELD("--runner-out", runner_out),
    OPT_FIELD("--fatbin", fatbin),
    OPT_FIELD("--ptx", ptx),
    OPT_FIELD("--plan-timeout", plan_timeout_s),
    OPT_FIELD("--max-steps", max_steps),
    OPT_FIELD("--max-blocks", max_blocks),
    OPT_FIELD("--max-local", max_local_bytes),
    OPT_FIELD("--progress-fd", progress_fd),
    OPT_FIELD("--repeat", repeat),
    OPT_FIELD("--emu-max-n", emu_max_n),
    OPT_FIELD("--trace", trace_path),
    OPT_FIELD("--gate", gate),
};
#undef OPT_FIELD

/* Sets the field option a names to v; -1 when no field has that name. */
static int parse_field(struct opts *o, const char *a, char *v)
{
    for (const struct opt_field &f : opt_fields) {
        if (strcmp(a, f.name))
            continue;
        char *at = (char *)o + f.at;
        switch (f.kind) {
        case OPT_TEXT: *(const char **)at = v; break;
        case OPT_INT: *(int *)at = atoi(v); break;
        case OPT_COUNT: *(unsigned long long *)at = strtoull(v, NULL, 10); break;
        case OPT_REAL: *(double *)at = atof(v); break;
        }
        return 0;
    }
    return -1;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    o->seed = (uint64_t)std::chrono::steady_clock::now().time_since_epoch().count();
    o->budget_ms = 200;
    o->min_samples = 10;
    o->max_samples = 1000;
    o->profile_n = 1ull << 24;
    o->gpu_lock_wait_s = 120;
    o->plan_timeout_s = 5;
    o->max_steps = 32;
    o->max_local_bytes = 4096;
    o->progress_fd = -1;
    o->repeat = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return -1;
        i++;
        if (!strcmp(a, "--seed")) {
            char *end;
            o->seed = strtoull(v, &end, 0);
            if (*end || !*v)
                return -1;
        } else if (!strcmp(a, "--mode")) {
            if (!strcmp(v, "check")) o->mode = MODE_CHECK;
            else if (!strcmp(v, "sanitize")) o->mode = MODE_SANITIZE;
            else if (!strcmp(v, "profile")) o->mode = MODE_PROFILE;
            else return -1;
        } else if (!strcmp(a, "--sizes")) {
            if (parse_sizes(o, v)) return -1;
        } else if (!strcmp(a, "--perf")) {
            if (parse_perf(o, v)) return -1;
        } else if (parse_field(o, a, v))
            return -1;
    }
    if (o->min_samples < 1 || o->max_samples < o->min_samples || o->max_steps < 1 ||
        o->max_steps > MAX_PLAN_STEPS || o->plan_timeout_s <= 0 || o->repeat < 1 || o->repeat > 100)
        return -1;
    return 0;
}

/* ---- device and peak bandwidth ------------------------------------------ */

static int device_describe(struct device *d)
{
    cudaDeviceProp p;
    int dev, clock_khz = 0, bus_bits = 0, l2 = 0;

    HX_CHECK(cudaGetDevice(&dev));
    HX_CHECK(cudaGetDeviceProperties(&p, dev));
    HX_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev));
    HX_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev));
    HX_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    snprintf(d->name, sizeof d->name, "%s", p.name);
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->sms = p.multiProcessorCount;
    d->l2_bytes = (size_t)l2;
    d->mem_bytes = p.totalGlobalMem;
    /* Double data rate: two transfers per clock on every bit of the bus. */
    d->theoretical_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
    return 0;
}

static void limits_of(const cudaDeviceProp &p, struct device_limits *l)
{
    for (int i = 0; i < 3; i++) {
        l->max_grid[i] = p.maxGridSize[i];
        l->max_block[i] = p.maxThreadsDim[i];
    }
    l->smem_optin = (int)p.sharedMemPerBlockOptin;
}

/* The same limits without a device: the stand-in's (an H100's). */
static void limits_standin(struct device_limits *l)
{
    const struct device_limits s = {{0x7fffffff, 65535, 65535}, {1024, 1024, 64}, 227 << 10};
    *l = s;
}

__global__ void peak_read(const int4 *in, size_t n4, int *sink)
{
    int acc = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride) {
        int4 v = in[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    /* A store the compiler cannot prove dead keeps every load alive. */
    if (acc == 0x7fedcba9)
        *sink = acc;
}

__global__ void peak_copy(const int4 *in, int4 *out, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride)
        out[i] = in[i];
}

struct peak_arg {
    struct ctx *c;
    int4 *buf;
    size_t n4;
    int copy;
    int grid;
};

static int peak_prepare(void *, int) { return 0; }
static int peak_verify(void *, int, char *, size_t) { return 1; }

static int peak_call(void *arg)
{
    struct peak_arg *a = (struct peak_arg *)arg;
    if (a->copy)
        peak_copy<<<a->grid, 256, 0, a->c->s>>>(a->buf, a->buf + a->n4 / 2, a->n4 / 2);
    else
        peak_read<<<a->grid, 256, 0, a->c->s>>>(a->buf, a->n4, (int *)a->c->flush);
    return 0;
}

/* Measures what this GPU's memory actually delivers, in this process, so that
 * "% of peak" compares like with like on any GPU. */
static int peak_measure(struct ctx *c)
{
    struct device *d = &c->r->dev;
    size_t bytes = (size_t)1 << 30;
    struct peak_arg a = {c, NULL, bytes / sizeof(int4), 0, d->sms * 8};
    struct timed t = {peak_prepare, peak_call, peak_verify, &a, NULL, NULL, NULL};
    struct timing tm;
    char msg[8];
    int saved_student = c->student_ran, rc = -1;
    /* A streaming kernel over 1 GiB varies little: 20 ms of samples (about
     * 55 of them on an H100) is plenty, and every check pays for it with
     * the GPU held alone. */
    struct opts quick = *c->o;
    const struct opts *saved_opts = c->o;
    quick.budget_ms = quick.budget_ms < 20 ? quick.budget_ms : 20;
    c->o = &quick;
    /* the peak only bounds what is plausible, 10% above it */
    c->rough = 1;

    if (d->mem_bytes < 4 * bytes)
        bytes /= 4;
    a.n4 = bytes / sizeof(int4);
    HX_TRY(cudaMalloc(&a.buf, bytes));
    HX_TRY(cudaMemsetAsync(a.buf, 0x5a, bytes, c->s));
    stage(STAGE_PEAK, 1, 2, "streaming read of %zu MiB", bytes >> 20);
    if (measure(c, &t, &tm, msg, sizeof msg))
        goto out;
    d->read_gbps = bytes / (tm.median_ms * 1e-3) / 1e9;
    a.copy = 1;
    stage(STAGE_PEAK, 2, 2, "streaming copy of %zu MiB", bytes >> 21);
    if (measure(c, &t, &tm, msg, sizeof msg))
        goto out;
    d->copy_gbps = bytes / (tm.median_ms * 1e-3) / 1e9;
    rc = 0;
out:
    c->o = saved_opts;
    c->rough = 0;
    c->student_ran = saved_student;
    if (a.buf)
        cudaFree(a.buf);
    return rc;
}

/* ---- the run ------------------------------------------------------------ */

static void sort_sizes(struct opts *o)
{
    for (int i = 1; i < o->nsizes; i++)
        for (int j = i; j > 0 && o->sizes[j - 1] > o->sizes[j]; j--) {
            unsigned long long t = o->sizes[j];
            o->sizes[j] = o->sizes[j - 1];
            o->sizes[j - 1] = t;
        }
}

static unsigned long long largest(const struct opts *o)
{
    unsigned long long m = 1;
    for (int i = 0; i < o->nsizes; i++)
        m = o->sizes[i] > m ? o->sizes[i] : m;
    if (o->mode == MODE_CHECK)
        for (int i = 0; i < o->nperf; i++)
            m = o->perf[i].n > m ? o->perf[i].n : m;
    if (o->mode == MODE_PROFILE && o->profile_n > m)
        m = o->profile_n;
    return m;
}

/* Why a run stopped early, for its test record: a plan's verdict, or the
 * CUDA error. */
static const char *failure_text(const struct ctx *c)
{
    if (c->plan_status)
        return c->plan_msg;
    return error_text() ? error_text() : "a CUDA error";
}

static int run_trials(struct ctx *c)
{
    struct report *r = c->r;
    for (int i = 0; i < c->o->nsizes; i++) {
        struct test *t = &r->tests[r->ntests++];
        unsigned long long n = c->o->sizes[i];
        gpu_yield(c);
        stage(STAGE_CORRECTNESS, i + 1, c->o->nsizes, "n=%llu", n);
        int again = 0;
        for (int j = 0; j < i; j++)
            again |= c->o->sizes[j] == n;
        snprintf(t->name, sizeof t->name, again ? "n=%llu, called again, new inputs" : "n=%llu", n);
        t->n = n;
        t->pass = 1;
        if (family_impl.trial(c, n, i, t)) {
            /* A trial a CUDA error cut short did not pass. */
            test_fail(t, "did not finish: %s", failure_text(c));
            r->first_failing_n = r->first_failing_n ? r->first_failing_n : n;
            return -1;
        }
        if (!t->pass && !r->first_failing_n)
            r->first_failing_n = n;
    }
    return 0;
}

static double seconds_since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

static int run_timed(struct ctx *c)
{
    struct report *r = c->r;
    auto t = std::chrono::steady_clock::now();
    if (!family_impl.compute_bound && peak_measure(c))
        return -1;
    r->peak_s = seconds_since(t);
    for (int i = 0; i < c->o->nperf; i++) {
        struct perf *p = &r->perf[r->nperf];
        stage(STAGE_TIMING, i + 1, c->o->nperf, "%s", c->o->perf[i].label);
        memset(p, 0, sizeof *p);
        p->c = c->o->perf[i];
        struct test *t = &r->tests[r->ntests];
        memset(t, 0, sizeof *t);
        snprintf(t->name, sizeof t->name, "timed %s", c->o->perf[i].label);
        t->n = p->c.n;
        t->pass = 1;
        if (family_impl.timed(c, &p->c, p)) {
            test_fail(t, "did not finish: %s", failure_text(c));
            r->ntests++;
            return -1;
        }
        /* Every timed call is verified: a wrong result there is a failure like
         * any other, recorded as a test. */
        if (!t->pass) {
            r->ntests++;
            return 0;
        }
        r->nperf++;
        /* Faster than the device allows means the work was not done: a
         * failure, with the figures kept so the student sees why. */
        if (p->implausible) {
            test_fail(t, "implausible: %s", p->implausible_why);
            r->ntests++;
            return 0;
        }
    }
    return 0;
}

static int any_failed(const struct report *r)
{
    for (int i = 0; i < r->ntests; i++)
        if (!r->tests[i].pass)
            return 1;
    return 0;
}

/* The timed cases' CPU references (family.expect, a float64 sum or the
 * scan's marks of up to 2^28 generated values: 0.05-0.1 s on 16 cores) are
 * worked out on a thread of their own once the runtime has found a GPU,
 * beside the compile that an early judge waits for at its gate, its set-up
 * and its trials, none of which reads them.  Not before: without a GPU
 * nothing is timed, and the sums would cost a 2-core machine 1.4 CPU
 * seconds a check for nothing.  The thread gets a copy of the context:
 * the run changes c->o while it measures the peak. */
static std::thread expect_thread;
static struct ctx expect_ctx;

static void expect_begin(const struct ctx *c)
{
    if (!family_impl.expect || c->o->mode != MODE_CHECK || c->o->nperf == 0)
        return;
    expect_ctx = *c;
    expect_thread = std::thread(family_impl.expect, &expect_ctx);
}

/* Waits for the references; the wait is reported (phases.expect_s). */
static void expect_join(struct ctx *c)
{
    if (!expect_thread.joinable())
        return;
    auto t = std::chrono::steady_clock::now();
    expect_thread.join();
    c->r->expect_s = seconds_since(t);
}

/* Whether this run's waits for the GPU spin (HX_SYNC=spin) rather than sleep. */
static int sync_spins(void)
{
    const char *sync = getenv("HX_SYNC");
    return sync && !strcmp(sync, "spin");
}

/* The timed section waits for the GPU spinning, the rest of the run asleep
 * (device_open).  A sample waits twice (its call, then its verification),
 * and a sleeping thread's wake-ups added about 0.1 ms a sample: on an H200 a
 * lab 15 check's timed section took 0.47 s spinning against 0.68 s.  The
 * figures are the GPU's events either way; the section holds the GPU
 * alone, so a spinning core keeps nothing else waiting.  The driver API's
 * cuCtxSetFlags changes a live context's mode; where it is missing (a
 * driver before CUDA 12.1) the waits stay as they are. */
static void sync_timing(int timing)
{
    static decltype(&cuCtxGetFlags) get_flags;
    static decltype(&cuCtxSetFlags) set_flags;
    static int looked;
    unsigned int flags;
    if (sync_spins())
        return;
    if (!looked) {
        enum cudaDriverEntryPointQueryResult q1, q2;
        looked = 1;
        if (cudaGetDriverEntryPointByVersion("cuCtxGetFlags", (void **)&get_flags, 12010, cudaEnableDefault,
                                             &q1) != cudaSuccess || q1 != cudaDriverEntryPointSuccess ||
            cudaGetDriverEntryPointByVersion("cuCtxSetFlags", (void **)&set_flags, 12010, cudaEnableDefault,
                                             &q2) != cudaSuccess || q2 != cudaDriverEntryPointSuccess)
            set_flags = NULL;
    }
    /* The scheduling bits only: the call sets every flag of the context. */
    if (set_flags && get_flags(&flags) == CUDA_SUCCESS)
        set_flags((flags & ~(unsigned)CU_CTX_SCHED_MASK) | (timing ? CU_CTX_SCHED_SPIN : CU_CTX_SCHED_BLOCKING_SYNC));
}

/* Takes the GPU alone for the timed section, its CPU references at hand. */
static void own_for_timing(struct ctx *c)
{
    gpu_own(c);
    expect_join(c);
    sync_timing(1);
}

/* No GPU: the plan of every trial size is still asked for and checked,
 * against the PTX and a stand-in device, so that a launcher that breaks a
 * rule is told so on any machine. */
static enum status run_dry(struct ctx *c)
{
    static struct plan p, again;
    /* Addresses no allocation has: the runner sees numbers only. */
    const uintptr_t base = 0x7f3a00000000ull, gap = 0x100000000ull;
    limits_standin(&c->limits);
    if (plan_load(c, 0))
        return STATUS_INTERNAL_ERROR;
    for (int i = 0; i < c->o->nsizes; i++) {
        unsigned n = (unsigned)c->o->sizes[i];
        stage(STAGE_PLANS, i + 1, c->o->nsizes, "n=%u", n);
        struct call k = call_make(c, family_impl.id, n, (void *)base, (void *)(base + gap),
                                  (void *)(base + 2 * gap), (void *)(base + 3 * gap));
        k.a = 0.0f;
        k.b = 1.0f;
        if (family_dry_call)
            family_dry_call(c, n, i, &k);
        if (student_plan(c, &k, &p) || student_plan(c, &k, &again))
            return STATUS_INTERNAL_ERROR;       /* the plan's own verdict wins in main */
        if (!plan_same(&p, &again)) {
            student_differs(c, n);
            return STATUS_INTERNAL_ERROR;
        }
        if (c->r->nplan_text < MAX_SIZES)
            plan_describe(&p, &k, n, c->r->plan_text[c->r->nplan_text++], sizeof c->r->plan_text[0]);
    }
    c->r->plans_dry = 1;
    return STATUS_NO_GPU;
}

/* The device, once per process: found, described, its stream and events,
 * the limits plans are held to.  STATUS_PASS, STATUS_NO_GPU (nothing
 * found, noted), or STATUS_INTERNAL_ERROR. */
static enum status device_open(struct ctx *c)
{
    struct report *r = c->r;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);

    if (e != cudaSuccess || count == 0) {
        if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || count == 0)
            note(r, "no CUDA device: %s", e == cudaErrorInsufficientDriver
                                              ? "no NVIDIA driver is loaded on this machine"
                                              : "the NVIDIA driver sees no GPU");
        else
            note(r, "no CUDA device: %s", cudaGetErrorString(e));
        return STATUS_NO_GPU;
    }
    /* Waits for the GPU sleep instead of spinning (HX_SYNC=spin: the
     * runtime's default, which spins while fewer contexts than cores are
     * active): a grader runs many judges, each sanitized three times, whose
     * spinning took the cores their compiles and tools needed.  Timing
     * reads the GPU's events, so a wake-up's latency is not measured. */
    if (!sync_spins() && cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess)
        cudaGetLastError();     /* a refusal leaves the default: spinning, not an error a launch reports */
    /* The runner was forked at the start (no thread may run across a
     * fork), and the timed cases are final. */
    expect_begin(c);
    if (device_describe(&r->dev))
        return STATUS_INTERNAL_ERROR;
    r->have_dev = 1;
    if (emu_device)
        emu_device(c);
    if (check(cudaStreamCreate(&c->s), "cudaStreamCreate", __FILE__, __LINE__) ||
        check(cudaEventCreate(&c->ev0), "cudaEventCreate", __FILE__, __LINE__) ||
        check(cudaEventCreate(&c->ev1), "cudaEventCreate", __FILE__, __LINE__))
        return STATUS_INTERNAL_ERROR;
    cudaDeviceProp p;
    if (check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties", __FILE__, __LINE__))
        return STATUS_INTERNAL_ERROR;
    limits_of(p, &c->limits);
    return STATUS_PASS;
}

/* The L2 flush buffer and the family's buffers, for runs up to max_n.  The
 * CPU judge (emu_device) times nothing, so it has no flush buffer: twice
 * the L2 is address space its bound (the catalog's emu_memory_mib) keeps
 * for the student's kernel. */
static enum status judge_setup(struct ctx *c, unsigned long long max_n)
{
    c->flush_bytes = emu_device ? 0 : 2 * (c->r->dev.l2_bytes ? c->r->dev.l2_bytes : (64u << 20));
    if ((c->flush_bytes && check(cudaMalloc(&c->flush, c->flush_bytes), "cudaMalloc", __FILE__, __LINE__)) ||
        family_impl.setup(c, max_n))
        return STATUS_INTERNAL_ERROR;
    return STATUS_PASS;
}

/* One build's run once its device code is loaded: the profile, or the
 * trials and then the timed cases. */
static enum status run_build(struct ctx *c)
{
    struct report *r = c->r;
    r->init_s = seconds_since(c->t0) - r->wait_s - r->gate_s;
    /* Back to shared after a timed section when the run holds the lock to
     * its end: tearing down touches the GPU too. */
    const int keep = c->o->gpu_lock_init;
    if (c->o->mode == MODE_PROFILE) {
        /* ncu replays the kernel and times it: it needs the GPU alone. */
        gpu_own(c);
        int failed = family_impl.profile(c, c->o->profile_n);
        gpu_release(c);
        if (keep)
            gpu_share(c);
        return failed ? STATUS_RUNTIME_ERROR : STATUS_PASS;
    }
    gpu_share(c);
    auto t = std::chrono::steady_clock::now();
    int failed = run_trials(c);
    r->correctness_s = seconds_since(t);
    if (!keep)
        gpu_release(c);
    if (failed)
        return STATUS_RUNTIME_ERROR;
    if (any_failed(r))
        return STATUS_FAIL;
    if (c->o->mode == MODE_CHECK && c->o->nperf > 0) {
        /* The tutor starts the race checkers on this line; their trials
         * wait for the timed section below to finish. */
        progress_line("@passed correctness");
        own_for_timing(c);
        t = std::chrono::steady_clock::now();
        failed = run_timed(c);
        sync_timing(0);
        r->timing_s = seconds_since(t);
        gpu_release(c);
        if (keep)
            gpu_share(c);
        if (failed)
            return STATUS_RUNTIME_ERROR;
        if (any_failed(r))
            return STATUS_FAIL;
    }
    return STATUS_PASS;
}

/* The family's look into the device code just loaded, where it has one. */
static int family_bind(struct ctx *c)
{
    return family_impl.bind ? family_impl.bind(c) : 0;
}

static enum status run(struct ctx *c)
{
    enum status st = device_open(c);
    if (st == STATUS_NO_GPU)
        return c->o->runner ? run_dry(c) : STATUS_NO_GPU;
    if (st != STATUS_PASS || plan_load(c, 1))
        return STATUS_INTERNAL_ERROR;
    /* Every file the run reads is read: a CPU judge, which runs the
     * student's code in this process, gives up opening, exec and the
     * network for the rest of it. */
    if (emu_seal_judge && emu_seal_judge(c))
        return STATUS_INTERNAL_ERROR;
    if (judge_setup(c, largest(c->o)) != STATUS_PASS || family_bind(c))
        return STATUS_INTERNAL_ERROR;
    return run_build(c);
}

/* The options' derived values, before the run: sizes in order, the timed
 * sizes jittered, the bound on blocks per launch. */
static void opts_settle(struct opts *o)
{
    sort_sizes(o);
    perf_jitter(o);
    if (!o->max_blocks) {
        const unsigned long long floor = BLOCKS_FLOOR;
        unsigned long long need = BLOCKS_PER_ITEM * largest(o);
        o->max_blocks = need > floor ? need : floor;
    }
}

/* The launcher's stream: a number only the judge knows, not 0, 1 or 2
 * (the default streams), and no real stream of this process. */
static void token_draw(struct ctx *c)
{
    if (getrandom(&c->token, sizeof c->token, 0) != (ssize_t)sizeof c->token)
        c->token = (uint64_t)c->t0.time_since_epoch().count() * 0x9e3779b97f4a7c15ull;
    c->token |= 0x5700000000000000ull;
}

/* Whose the run's end is, once it ended: a plan that broke a rule decides;
 * a judge's check gone wrong or a CUDA error is the workbook's before the
 * student's code ran and the student's after. */
static void verdict_settle(struct ctx *c)
{
    struct report &r = *c->r;
    /* A plan that broke a rule, or a launcher that crashed or hung, decides
     * the verdict, whatever the run made of it. */
    if (c->plan_status) {
        r.status = c->plan_status;
        note(&r, "%s", c->plan_msg);
        snprintf(r.plan_violation, sizeof r.plan_violation, "%s", c->plan_msg);
    }
    r.plans = c->plans;
    /* A judge's GPU check that disagreed with the CPU is the harness's
     * fault, unless the student's device code had run in this context by
     * then: a kernel can write any of the judge's device memory, and a
     * verdict a submission can make "not graded" would be its to choose. */
    for (int i = 0; i < r.nmsgs; i++)
        if (!strncmp(r.messages[i], "internal:", 9)) {
            if (!c->student_ran) {
                r.status = STATUS_INTERNAL_ERROR;
            } else if (r.status != STATUS_INTERNAL_ERROR) {
                r.status = STATUS_FAIL;
                note(&r, "the judge's own GPU check went wrong after the kernel had run in its "
                         "context: a kernel that writes outside its buffers does that");
            }
        }
    /* A CUDA error ends the run; whose it was depends on whether the student's
     * code had run yet. */
    if (error_text()) {
        if (r.status == STATUS_RUNTIME_ERROR && !c->student_ran && !c->plan_status)
            r.status = STATUS_INTERNAL_ERROR;
        note(&r, "%s", error_text());
    }
}

/* Why a judge refuses a run of this family before it starts: NULL, or the
 * note. */
static const char *family_refusal(const struct opts *o, char *buf, size_t len)
{
    if (o->family && strcmp(o->family, family_json_name(family_impl.id)))
        snprintf(buf, len, "this harness runs family %s, not %s", family_json_name(family_impl.id), o->family);
    else if (o->repeat > 1 && !family_impl.repeats)
        snprintf(buf, len, "family %s cannot judge --repeat (the same bits on every call)",
                 family_json_name(family_impl.id));
    else
        return NULL;
    return buf;
}

/* ---- several builds in one process (--batch) ----------------------------- */

/* A grader's race checkers run a tool once over several passes of this
 * family instead of once a pass: each compute-sanitizer process costs a
 * CUDA context, which the driver creates one at a time across the machine,
 * and the tool's start-up (docs/harness.md 4.1).  FILE has one line per
 * build: the options of its own sanitize-mode run, words split by tabs.
 * Every runner is forked before the first CUDA call, the device and the
 * family's buffers are set up once, and then each build in turn loads its
 * device code, runs its trials, unloads it and writes its report.  The
 * first build that does not pass ends the batch: the ones after it get no
 * report, and the grader, which counts a batch only when the tool found
 * nothing and every build passed, runs each alone. */
struct batch {
    int n;
    struct opts o[BATCH_MAX];
    char *text;                 /* the file, split in place: the options point into it */
};

static int batch_read(const char *path, struct batch *b)
{
    FILE *f = fopen(path, "re");
    size_t cap = 1 << 16, len = 0;
    if (!f || !(b->text = (char *)malloc(cap + 1))) {
        if (f)
            fclose(f);
        return -1;
    }
    len = fread(b->text, 1, cap, f);
    int whole = feof(f) && !ferror(f);
    fclose(f);
    if (!whole)
        return -1;
    b->text[len] = 0;
    for (char *line = b->text, *next; *line; line = next) {
        char *argv[128] = {(char *)"judge"};
        int argc = 1;
        next = strchr(line, '\n');
        if (!next)
            return -1;
        *next++ = 0;
        if (b->n == BATCH_MAX)
            return -1;
        for (char *w = line; w && argc < 127; argc++) {
            argv[argc] = w;
            if ((w = strchr(w, '\t')))
                *w++ = 0;
        }
        struct opts *o = &b->o[b->n++];
        if (parse_args(argc, argv, o) || !o->json_path || !o->runner || !o->fatbin || o->mode != MODE_SANITIZE ||
            o->gate || o->progress_fd != b->o[0].progress_fd)
            return -1;
        if ((o->gpu_lock || b->o[0].gpu_lock) &&
            (!o->gpu_lock || !b->o[0].gpu_lock || strcmp(o->gpu_lock, b->o[0].gpu_lock)))
            return -1;
    }
    return b->n > 0 ? 0 : -1;
}

static int batch_main(const char *path, std::chrono::steady_clock::time_point t0)
{
    static struct batch b;
    static struct report rep[BATCH_MAX];
    static struct ctx cs[BATCH_MAX];
    struct ctx dev = {};
    unsigned long long max_n = 1;
    char why[160];
    int i = 0;

    if (batch_read(path, &b)) {
        fprintf(stderr, "judge: --batch %s: not a batch this judge runs (one line per build, each a "
                        "sanitize-mode run with --json, --runner and --fatbin, the same GPU lock; at most %d)\n",
                path, BATCH_MAX);
        return 2;
    }
    if (emu_prepare) {
        fputs("judge: --batch needs a GPU judge: the CPU judge seals itself after one build's files\n", stderr);
        return 2;
    }
    progress_open(b.o[0].progress_fd);
    /* Before the first CUDA call: every runner is forked. */
    for (i = 0; i < b.n; i++) {
        struct ctx *c = &cs[i];
        *c = (struct ctx){};
        c->o = &b.o[i];
        c->r = &rep[i];
        c->t0 = t0;
        c->lock_fd = -1;
        token_draw(c);
        opts_settle(&b.o[i]);
        rep[i].seed = b.o[i].seed;
        rep[i].reference = family_impl.reference;
        if (family_refusal(c->o, why, sizeof why)) {
            note(&rep[i], "%s", why);
            rep[i].status = STATUS_INTERNAL_ERROR;
        }
        plan_select(i);
        plan_start(c);
        max_n = largest(c->o) > max_n ? largest(c->o) : max_n;
    }
    dev.o = &b.o[0];
    dev.r = &rep[0];
    dev.t0 = t0;
    gpu_lock_open(&dev);
    gpu_share(&dev);
    enum status st = device_open(&dev);
    if (st == STATUS_PASS)
        st = judge_setup(&dev, max_n);
    for (i = 0; i < b.n; i++) {
        struct ctx *c = &cs[i];
        auto t = std::chrono::steady_clock::now();
        plan_select(i);
        /* The device is the batch's; the trials see only its handles. */
        c->s = dev.s;
        c->ev0 = dev.ev0;
        c->ev1 = dev.ev1;
        c->flush = dev.flush;
        c->flush_bytes = dev.flush_bytes;
        c->limits = dev.limits;
        c->r->dev = rep[0].dev;
        c->r->have_dev = rep[0].have_dev;
        c->t0 = t;
        if (st != STATUS_PASS) {
            if (i > 0)
                note(c->r, "the batch's device could not be set up: see its first build's report");
            c->r->status = st;
        } else if (c->r->status == STATUS_PASS) {
            /* The batch's share of the GPU, which the build's trials step
             * out of for a timed section that waits. */
            c->lock_fd = dev.lock_fd;
            c->lock_state = dev.lock_state;
            c->r->status = plan_load(c, 1) || family_bind(c) ? STATUS_INTERNAL_ERROR : run_build(c);
            dev.lock_state = c->lock_state;
            c->lock_fd = -1;
        }
        verdict_settle(c);
        plan_end(c);
        c->r->elapsed_s = seconds_since(t);
        if (report_write(c->o, c->r) || c->r->status != STATUS_PASS || error_text())
            break;
        /* A timed section that queued meanwhile goes before the next build:
         * a batch lasts seconds, and the grader's timed sections would
         * otherwise wait for the whole of it. */
        gpu_release(&dev);
        gpu_share(&dev);
    }
    /* The builds the batch did not reach: their runners go, unasked. */
    for (int j = i + 1; j < b.n; j++) {
        plan_select(j);
        plan_end(&cs[j]);
    }
    if (st == STATUS_PASS && !error_text())
        family_impl.teardown(&dev);
    gpu_release(&dev);
    free(b.text);
    return 0;
}

} /* namespace hx */

int main(int argc, char **argv)
{
    static hx::opts o;
    static hx::report r;
    hx::ctx c = {};
    auto t0 = std::chrono::steady_clock::now();
    char why[160];

    /* One hardware queue per context instead of eight: the harness and the
     * lab contract use a single stream, so nothing is lost, and creating
     * the context, which the driver serialises across processes, gets about
     * three times cheaper (0.07 s instead of 0.2 s on an H100): that is most
     * of what a grader's many short runs wait for.  Read at the first CUDA
     * call, so it must be set before any; a setting from outside wins. */
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
    if (argc == 3 && !strcmp(argv[1], "--batch"))
        return hx::batch_main(argv[2], t0);
    if (hx::parse_args(argc, argv, &o) || !o.json_path) {
        fputs(hx::usage_text, stderr);
        return 2;
    }
    c.o = &o;
    c.r = &r;
    c.t0 = t0;
    hx::progress_open(o.progress_fd);
    hx::token_draw(&c);
    /* Before the first CUDA call: the runner is forked, and a process with
     * a CUDA context must not fork. */
    hx::plan_start(&c);
    hx::gpu_lock_open(&c);
    if (o.gpu_lock_init)
        hx::gpu_share(&c);
    r.seed = o.seed;
    r.reference = hx::family_impl.reference;
    hx::opts_settle(&o);
    if (hx::emu_prepare)
        hx::emu_prepare(&o, &r);
    hx::progress_line("@seed %llu", (unsigned long long)o.seed);

    if (hx::family_refusal(&o, why, sizeof why)) {
        hx::note(&r, "%s", why);
        r.status = STATUS_INTERNAL_ERROR;
    } else {
        r.status = hx::run(&c);
        if (hx::emu_finish)
            hx::emu_finish(&c);
    }
    /* A run that ended before its timed section: the references are not
     * needed, but the thread writes the family's memory until it ends. */
    hx::expect_join(&c);
    hx::verdict_settle(&c);
    hx::plan_end(&c);
    r.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (hx::report_write(&o, &r))
        return 4;
    /* After a sticky error the context is gone; tearing down would only fail. */
    if (!hx::error_text() && r.have_dev)
        hx::family_impl.teardown(&c);
    return 0;
}
