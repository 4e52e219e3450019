/* hx_fam_trapezoid.cu — family trapezoid (lab 09): the trapezoid rule with n
 * trapezoids for one of the four integrands of lab.h.
 *
 * The student's file is compiled with -DLAB_INTEGRAND=k and the harness gets
 * --integrand k: both evaluate lab_integrand(k, x) in float.  Every trial draws
 * a fresh interval [a, b] from the seed inside the integrand's domain, with
 * b - a at least a quarter of the domain's width:
 *     0: x*x          [-2, 2]       2: expf(-0.5x)      [0, 8]
 *     1: sinf(x)      [0, 2*pi]     3: 1/(1+x*x)        [-4, 4]
 *
 * Correctness.  The CPU reference is the rule itself in float64, on the float
 * a and b actually passed: h = (b-a)/n, expected = h * sum_i w_i f(x_i) with
 * x_i = a + i*h (x_n = b), w_0 = w_n = 1/2 and w_i = 1 inside.  A result is
 * right when
 *     |got - expected| <= 2^-12 * h * sum_i w_i |f(x_i)|.
 * What that bound covers, for a kernel that works in float:
 *   - the points: h = (b-a)/n in float is off by up to about 2^-23 relative,
 *     the same for every point, which moves the whole sum by at most about
 *     2^-23 * (b-a) * max|f|; (float)i is exact up to 2^24 and off by at most
 *     2^-24 relative above it (n reaches 2^28 when timing, 16777259 in the
 *     trials), and i*h and a + i*h add a rounding each.  So x_i moves by a few
 *     2^-24 * (|a| + |i*h|), and f(x_i) by |f'| times that, a small fraction
 *     of the bound on these domains;
 *   - f itself: sinf, expf and the division are within a few ulp;
 *   - the summation, in any order (per-thread loops, warp shuffles, shared
 *     warp sums, one atomicAdd per block): to first order its error is at most
 *     (longest chain of additions) * 2^-24 * sum |terms|, so the bound allows
 *     chains of 4096 additions in the worst case, and rounding errors that
 *     walk at random grow only like the square root of the chain.
 * A float emulation on the host of such kernels (x_i as a + i*h or as
 * a + (b-a)*i/n; per-thread sums, shuffle trees, each block's sum added in
 * turn) stayed under 7% of the bound: at every trial size with up to 1056
 * blocks of 256 threads, and with 1 to 65537 blocks at n = 16777259.  One
 * atomicAdd per trapezoid into a single float drifts (by about 2% at 2^24,
 * DESIGN.md section 9) and fails, and so does dropping the last 1% of the
 * points and scaling the rest up (by 9 to 90 times the bound in that
 * emulation).
 *
 * Timing (compute bound: trapezoids per second, no GB/s).  Each sample gets a
 * fresh interval, so a remembered result is wrong, and is compared with the
 * exact integral from the antiderivative, within the rule's own error bound
 * (b-a) * h^2 / 12 * max|f''| plus 2^-12 * (b-a) * max|f| on [a, b] (which is
 * at least the correctness bound above, since h * sum_i w_i = b - a).  The
 * reference is the harness's own integrator: grid-stride sums, warp shuffles,
 * shared warp sums, one atomicAdd per block; it is verified the same way.
 */
#include <math.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <string.h>

#include "../lab.h"
#include "hx.h"

namespace hx {

enum { TRAP_THREADS = 256 };

/* ---- the integrands in float64 ------------------------------------------ */

/* The float64 twin of lab_integrand. */
static double f64(int id, double x)
{
    switch (id) {
    case 0: return x * x;
    case 1: return sin(x);
    case 2: return exp(-0.5 * x);
    default: return 1.0 / (1.0 + x * x);
    }
}

static double antiderivative(int id, double x)
{
    switch (id) {
    case 0: return x * x * x / 3.0;
    case 1: return -cos(x);
    case 2: return -2.0 * exp(-0.5 * x);
    default: return atan(x);
    }
}

/* Bounds of |f''| over the whole domain: 2; |sin| <= 1; exp(-x/2)/4 <= 1/4 for
 * x >= 0; |6x^2 - 2| / (1+x^2)^3 <= 2, its value at 0. */
static const double f2_max[LAB_INTEGRAND_COUNT] = {2.0, 1.0, 0.25, 2.0};

/* max |f| on [a, b]. */
static double f_max(int id, double a, double b)
{
    switch (id) {
    case 0: return fmax(a * a, b * b);
    case 1: return 1.0;
    case 2: return exp(-0.5 * a);               /* decreasing */
    default: return a <= 0 && b >= 0 ? 1.0 : 1.0 / (1.0 + fmin(a * a, b * b));
    }
}

static const double dom_lo[LAB_INTEGRAND_COUNT] = {-2.0, 0.0, 0.0, -4.0};
static const double dom_hi[LAB_INTEGRAND_COUNT] = {2.0, 6.283185307179586, 8.0, 4.0};

struct interval {
    float a, b;
};

/* Interval number k of the stream (seed, salt): b - a covers 26% to 100% of
 * the domain (a little over a quarter, so that rounding a and b to float keeps
 * it at least a quarter). */
static struct interval pick(int id, uint64_t seed, uint64_t salt, uint64_t k)
{
    double lo = dom_lo[id], w = dom_hi[id] - lo;
    double len = w * (0.26 + 0.74 * unit(draw(seed, salt, 2 * k)));
    double a = lo + (w - len) * unit(draw(seed, salt, 2 * k + 1));
    struct interval iv = {(float)a, (float)(a + len)};
    return iv;
}

/* ---- the CPU reference ---------------------------------------------------- */

struct rule {
    int id;
    double a, b, h;
    unsigned long long n;
};

static struct rule rule_of(int id, struct interval iv, unsigned long long n)
{
    struct rule r = {id, (double)iv.a, (double)iv.b, 0.0, n};
    r.h = (r.b - r.a) / (double)n;
    return r;
}

/* Points lo..hi-1 of the n+1 points of the rule, weighted. */
static double chunk_sum(unsigned long long lo, unsigned long long hi, const void *arg)
{
    const struct rule *r = (const struct rule *)arg;
    double s = 0;
    for (unsigned long long i = lo; i < hi; i++) {
        double x = i == r->n ? r->b : r->a + (double)i * r->h;
        double y = f64(r->id, x);
        s += i == 0 || i == r->n ? 0.5 * y : y;
    }
    return s;
}

static double chunk_abs(unsigned long long lo, unsigned long long hi, const void *arg)
{
    const struct rule *r = (const struct rule *)arg;
    double s = 0;
    for (unsigned long long i = lo; i < hi; i++) {
        double x = i == r->n ? r->b : r->a + (double)i * r->h;
        double y = fabs(f64(r->id, x));
        s += i == 0 || i == r->n ? 0.5 * y : y;
    }
    return s;
}

struct expect {
    double value, tol;
};

static struct expect reference(const struct rule &r)
{
    double sum = host_parallel_sum(r.n + 1, chunk_sum, &r);
    /* Only sin changes sign: the others' sum is already a sum of |f|. */
    double abs_sum = r.id == 1 ? host_parallel_sum(r.n + 1, chunk_abs, &r) : sum;
    struct expect e = {r.h * sum, ldexp(r.h * abs_sum, -12)};
    return e;
}

/* The exact integral and the timed tolerance (see the top of the file). */
static struct expect exact(int id, struct interval iv, unsigned long long n)
{
    double a = iv.a, b = iv.b, h = (b - a) / (double)n;
    struct expect e = {antiderivative(id, b) - antiderivative(id, a),
                       (b - a) * h * h / 12.0 * f2_max[id] + ldexp((b - a) * f_max(id, a, b), -12)};
    return e;
}

/* ---- the reference integrator ------------------------------------------- */

/* One thread per point in a grid-stride loop, warp sums by shuffle, the warp
 * sums through shared memory, one atomicAdd per block.  F is a template
 * parameter so that the switch in lab_integrand folds away. */
template <int F>
static __global__ void __launch_bounds__(TRAP_THREADS)
trap_ref(float a, float b, float h, unsigned n, float *out)
{
    __shared__ float warp_sums[TRAP_THREADS / 32];
    unsigned stride = gridDim.x * blockDim.x;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float s = 0.0f;

    /* i <= n: n + 1 points; n <= 2^28, so i + stride cannot wrap. */
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride) {
        float y = lab_integrand(F, i == n ? b : a + (float)i * h);
        s += i == 0 || i == n ? 0.5f * y : y;
    }
    for (int d = 16; d > 0; d >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, d);
    if (lane == 0)
        warp_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int d = 16; d > 0; d >>= 1)
            s += __shfl_down_sync(0xffffffffu, s, d);
        if (lane == 0)
            atomicAdd(out, s * h);
    }
}

typedef void (*trap_kernel)(float, float, float, unsigned, float *);

/* ---- the family ----------------------------------------------------------- */

static struct {
    int id;                     /* the integrand */
    trap_kernel ref;            /* trap_ref<id> */
    int grid;                   /* the reference's grid: every SM full */
    float *d_out;
    void *d_scratch;
    size_t scratch_bytes;
} tf;

/* A quiet NaN: never within any tolerance. */
static float poison_value(void)
{
    uint32_t bits = 0x7fc0dead;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Poisons the output and the scratch: a kernel that never writes *d_out, or
 * accumulates into it without zeroing it, or reads scratch it never wrote,
 * sees garbage. */
static int poison(struct ctx *c, unsigned long long n)
{
    static float p;     /* static: the async copy reads it after we return */
    p = poison_value();
    HX_CHECK(cudaMemcpyAsync(tf.d_out, &p, sizeof p, cudaMemcpyHostToDevice, c->s));
    size_t sb = LAB_SCRATCH_BYTES(n);
    HX_CHECK(cudaMemsetAsync(tf.d_scratch, 0xab, sb < tf.scratch_bytes ? sb : tf.scratch_bytes, c->s));
    return 0;
}

static int ref_call(struct ctx *c, struct interval iv, unsigned n)
{
    float h = (float)(((double)iv.b - (double)iv.a) / n);
    unsigned blocks = (n + TRAP_THREADS) / TRAP_THREADS;        /* ceil((n + 1) / 256) */
    if (blocks > (unsigned)tf.grid)
        blocks = (unsigned)tf.grid;
    HX_CHECK(cudaMemsetAsync(tf.d_out, 0, sizeof(float), c->s));
    tf.ref<<<blocks, TRAP_THREADS, 0, c->s>>>(iv.a, iv.b, h, n, tf.d_out);
    HX_CHECK(cudaGetLastError());
    return 0;
}

static int trap_setup(struct ctx *c, unsigned long long max_n)
{
    int per_sm = 0;

    tf.id = c->o->integrand;
    switch (tf.id) {
    case 0: tf.ref = trap_ref<0>; break;
    case 1: tf.ref = trap_ref<1>; break;
    case 2: tf.ref = trap_ref<2>; break;
    case 3: tf.ref = trap_ref<3>; break;
    default:
        note(c->r, "internal: --integrand %d is not one of 0..%d", tf.id, LAB_INTEGRAND_COUNT - 1);
        return -1;
    }
    HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tf.ref, TRAP_THREADS, 0));
    tf.grid = c->r->dev.sms * (per_sm > 0 ? per_sm : 1);
    tf.scratch_bytes = LAB_SCRATCH_BYTES(max_n);
    HX_CHECK(cudaMalloc(&tf.d_out, 256));
    HX_CHECK(cudaMalloc(&tf.d_scratch, tf.scratch_bytes));
    return 0;
}

static void trap_teardown(struct ctx *)
{
    cudaFree(tf.d_out);
    cudaFree(tf.d_scratch);
}

static struct call trap_call_of(const struct ctx *c, unsigned n, struct interval iv)
{
    struct call k = call_make(c, PLAN_TRAPEZOID, n, NULL, tf.d_out, tf.d_scratch, NULL);
    k.a = iv.a;
    k.b = iv.b;
    return k;
}

static int trap_trial(struct ctx *c, unsigned long long n, int k, struct test *t)
{
    struct interval iv = pick(tf.id, c->o->seed, 1 + (uint64_t)k, 0);
    struct rule r = rule_of(tf.id, iv, n);
    struct expect want = reference(r);
    float got;

    struct call call = trap_call_of(c, (unsigned)n, iv);
    if (poison(c, n) || student_run(c, &call))
        return -1;
    HX_CHECK(cudaGetLastError());
    HX_CHECK(cudaMemcpyAsync(&got, tf.d_out, sizeof got, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));

    snprintf(t->expected, sizeof t->expected, "%.9g", want.value);
    snprintf(t->got, sizeof t->got, "%.9g", (double)got);
    if (fabs((double)got - want.value) <= want.tol)
        return 0;
    float p = poison_value();
    if (!memcmp(&p, &got, sizeof got))
        test_fail(t, "d_out was never written: it still holds the poison value");
    else
        test_fail(t, "wrong integral over [%.9g, %.9g] with %llu trapezoids: off by %.3g "
                     "(tolerance %.3g)", (double)iv.a, (double)iv.b, n,
                  (double)got - want.value, want.tol);
    return 0;
}

/* ---- timing ---- */

struct trun {
    struct ctx *c;
    unsigned n;
    uint64_t salt;
    int reference;              /* 1: time the harness's integrator */
    struct interval iv;         /* this sample's interval */
    struct plan *plan;          /* its plan */
};

/* Each sample integrates over a fresh interval, so a result remembered from
 * an earlier call is wrong. */
static int trap_prepare(void *arg, int k)
{
    struct trun *r = (struct trun *)arg;
    r->iv = pick(tf.id, r->c->o->seed, r->salt, (uint64_t)k);
    /* A fresh interval is a new call, so the plan is asked for anew (and
     * may differ from the last one by the arguments a and b). */
    if (!r->reference) {
        struct call call = trap_call_of(r->c, r->n, r->iv);
        if (student_plan(r->c, &call, r->plan))
            return -1;
    }
    return poison(r->c, r->n);
}

static int trap_call(void *arg)
{
    struct trun *r = (struct trun *)arg;
    if (r->reference)
        return ref_call(r->c, r->iv, r->n);
    return student_replay(r->c, r->plan);
}

static int trap_verify(void *arg, int k, char *msg, size_t len)
{
    struct trun *r = (struct trun *)arg;
    struct expect want = exact(tf.id, r->iv, r->n);
    float got;
    HX_CHECK(cudaMemcpy(&got, tf.d_out, sizeof got, cudaMemcpyDeviceToHost));
    if (fabs((double)got - want.value) <= want.tol)
        return 1;
    snprintf(msg, len, "%s sample %d (a fresh interval [%.9g, %.9g]): expected %.9g (the exact "
                       "integral), got %.9g, tolerance %.3g",
             r->reference ? "the reference" : "timed", k, (double)r->iv.a, (double)r->iv.b,
             want.value, (double)got, want.tol);
    return 0;
}

static int trap_timed(struct ctx *c, const struct perf_case *pc, struct perf *p)
{
    struct test *t = &c->r->tests[c->r->ntests];
    static struct plan plan;
    struct trun r = {c, (unsigned)pc->n, case_salt(pc), 0, {0, 0}, &plan};
    struct timed tm = {trap_prepare, trap_call, trap_verify, &r, &r.reference, NULL, NULL};

    int rc = measure_both(c, &tm, p, t);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    p->bytes = 0;               /* compute bound: nothing to stream */
    p->rate_unit = "Gtrap/s";
    perf_finish(c, &family_impl, p, (double)pc->n);
    return 0;
}

static int trap_profile(struct ctx *c, unsigned long long n)
{
    struct interval iv = pick(tf.id, c->o->seed, 4242, 0);
    static struct plan plan;
    struct call call = trap_call_of(c, (unsigned)n, iv);
    if (poison(c, n) || student_plan(c, &call, &plan))
        return -1;
    HX_CHECK(cudaStreamSynchronize(c->s));
    /* ncu --nvtx --nvtx-include "student/" profiles only what is in here. */
    nvtxRangePushA("student");
    if (student_replay(c, &plan))
        return -1;
    HX_CHECK(cudaGetLastError());
    HX_CHECK(cudaStreamSynchronize(c->s));
    nvtxRangePop();
    return 0;
}

const struct family family_impl = {"trapezoid", PLAN_TRAPEZOID, "harness warp-shuffle integrator", 0, 1,
                                   trap_setup, trap_trial, trap_timed, trap_profile,
                                   trap_teardown, NULL};

} /* namespace hx */
