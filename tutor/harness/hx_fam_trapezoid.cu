/* hx_fam_trapezoid.cu — family trapezoid (lab 09): the trapezoid rule with n
 * trapezoids for an integrand the judge draws for every call.
 *
 * The integrand.  lab.h's lab_f evaluates, in float,
 *     f(x) = c0 + c1 * sin(pi * (w*x + phi)) / (1 + k * (x - m)^2)
 * from the __constant__ block lab_params.  Every call, trials and timed
 * samples alike, draws its own parameters and interval from the seed:
 * 1/2 <= |c0| <= 2 with either sign, |c1| from |c0|/5 to |c0|/2 with either
 * sign, 1/2 <= w <= 2 (one to four periods over the domain), 0 <= phi < 2,
 * k from 1/4 to 4 (evenly in log k), -1 <= m <= 1; a and b in [-2, 2] with
 * b - a from 26% to 100% of that width.  Why this family:
 *   - no closed form: a sine over a quadratic has no elementary
 *     antiderivative (it takes exponential integrals of complex arguments,
 *     which CUDA's library does not have), so F(b) - F(a) is no shortcut and
 *     the n evaluations are the work;
 *   - a kernel cannot know it in advance: it lives in the module's memory,
 *     written by the judge before each call (student_global), and changes
 *     from one call to the next, so nothing computed for one call fits
 *     another, and a kernel that integrates a fixed function is wrong;
 *   - simple float errors: |f| stays within [|c0|/2, 3|c0|/2] (the wave
 *     never outweighs the level), so f keeps one sign and every error below
 *     is a fraction of |f| itself; sinpif reduces its argument exactly, and
 *     the division is correctly rounded (__fdiv_rn, half an ulp);
 *   - cheap: about thirty instructions and no memory traffic per point.
 *
 * Correctness.  The CPU reference is the rule itself in float64, on the float
 * a, b and parameters actually passed: h = (b-a)/n, expected = h * sum_i w_i
 * f(x_i) with x_i = a + i*h (x_n = b), w_0 = w_n = 1/2 and w_i = 1 inside.  A
 * result is right when
 *     |got - expected| <= 2^-12 * h * sum_i w_i |f(x_i)|   (= 2^-12 |expected|,
 *                                                          f having one sign).
 * What that bound covers, for a kernel that works in float (u = 2^-24):
 *   - the points: h = (b-a)/n in float is off by up to u relative, the same
 *     for every point, which moves the whole sum by at most about
 *     u * (b-a) * max|f'| * 2; (float)i is exact up to 2^24 and off by at most
 *     u relative above it (n reaches 2^28 when timing, 16777259 in the
 *     trials), and i*h and a + i*h add a rounding each.  So x_i moves by at
 *     most about 10u (|x| <= 2), and f by |f'| <= |c1| (pi w + 0.65 sqrt(k))
 *     <= 7.6 |c1| <= 3.8 |c0| <= 7.6 |f| times that: under 2^-17 of |f|, and
 *     most of it changes sign from point to point and cancels;
 *   - f itself: w*x + phi is rounded once (by up to 4u, |w*x + phi| < 8,
 *     which moves the sine by 13u), sinpif is within an ulp, the envelope
 *     and the division within a few, and the last fma half an ulp of |f|:
 *     under 24u |c1| + u |f| <= 25u |f|, about 2^-19 of |f|;
 *   - the summation, in any order (per-thread loops, warp shuffles, shared
 *     warp sums, one atomicAdd per block): to first order its error is at most
 *     (longest chain of additions) * u * sum |terms|, so what the two items
 *     above leave of the bound (about 95% of it) allows chains of about 3900
 *     additions in the worst case, and rounding errors that walk at random
 *     grow only like the square root of the chain.
 * A float emulation on the host of such kernels (x_i as x_first + k*step, as
 * a + i*h, or as a + (i/n)*(b-a); per-thread sums, shuffle trees, each
 * block's sum added in a random order; sinpif and the division modelled by
 * correctly rounded values) used under 1% of the bound at every trial size
 * with up to 1056 blocks of 256 threads, over 20 seeds; under 5% with 7 to
 * 65537 blocks, and 17% with a single block (chains of 65536 additions at
 * n = 16777259).  One atomicAdd per trapezoid into a single float drifts by
 * 1.5 to 390 times the bound from n = 10^6 up and fails; dropping the last 1%
 * of the points and scaling the rest up misses by 1.4 to 13 times the bound
 * at most sizes from 65537 up (not at all of them), so it fails too.
 *
 * Timing (compute bound: trapezoids per second, no GB/s).  Each sample draws
 * fresh parameters and a fresh interval, written before the L2 flush and the
 * first event, so a remembered result is wrong.  With no antiderivative the
 * sample is compared with the exact integral worked out on the host after
 * the sample, by composite Gauss-Legendre in double (32 panels of 8 points:
 * f is analytic within 1/2 of the real axis, its nearest poles being at
 * m +- i/sqrt(k), so on panels at most 1/8 wide the rule converges fast: it
 * agrees with a Richardson-extrapolated trapezoid sum in double to about
 * 1e-14 of the integral (tests/harness/test_trapezoid.cu checks 200 draws,
 * and that the error bound below holds); 256 evaluations, a few
 * microseconds, instead
 * of the 2^28 of a GPU reference in double, which would cost more than the
 * kernel timed), within the trapezoid rule's own error bound
 *     (b-a) * h^2 / 12 * max|f''|,  max|f''| <= |c1| ((pi w)^2 + 1.3 pi w sqrt(k) + 2k)
 * plus 2^-12 * (b-a) * (|c0| + |c1|), which is at least the correctness bound
 * above (h * sum_i w_i = b - a); the emulated kernels used at most 3% of it
 * at 2^24 and 2^28.  The reference is the harness's own
 * integrator: grid-stride sums, warp shuffles, shared warp sums, one
 * atomicAdd per block; it gets its parameters in the judge's own lab_params
 * (the judge includes lab.h too) and is verified the same way.
 *
 * Plausibility (rule 7).  Before the first timed case the family measures how
 * fast this GPU evaluates lab_f at all: a kernel in which every thread
 * evaluates it on four independent chains of points (enough independent work
 * to keep every pipe busy), adds the values in registers and writes one sum,
 * with no reduction and nothing else per point but the step to the next x.
 * Its evaluations per second are the case's peak_rate (Gtrap/s, the unit of
 * rate), and perf_finish calls a rate more than 10% above it implausible: a
 * kernel that integrates with far fewer than n + 1 evaluations (a few hundred
 * Gauss-Legendre points, every 16th point scaled up) passes the checks above
 * and fails there.  An honest kernel does the calibration's work plus its
 * loop's bookkeeping, its launch and its block sums, so it stays below the
 * peak.  Counted in the PTX, lab_f is about 30 instructions, the calibration
 * adds 2 per evaluation and its loop under 1, the reference solution's loop
 * about 5 per point: the solution should run at about 0.9 of the peak at
 * 2^28 (an estimate from those counts), and less at 2^24, where the launch
 * weighs more.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../lab.h"
#include "hx.h"
#include "hx_poison.cuh"

namespace hx {

enum {
    TRAP_THREADS = 256,
    PEAK_CHAINS = 4,            /* independent points per thread in the calibration */
    PEAK_STEPS = 1024,          /* points per chain */
    GL_PANELS = 32              /* of 8 Gauss-Legendre points each */
};

/* One call's integrand and interval. */
struct tcase {
    float a, b;
    struct lab_integrand_params p;
};

/* A uniform double in [0, 1): draw j of case k of the stream (seed, salt). */
static double u01(uint64_t seed, uint64_t salt, uint64_t k, int j)
{
    return unit(draw(seed, salt, 16 * k + (uint64_t)j));
}

/* Case number k of the stream (seed, salt): the ranges are in the comment at
 * the top and in lab.h.  b - a covers 26% to 100% of [-2, 2] (a little over
 * a quarter, so that rounding a and b to float keeps it at least a quarter).
 * Never inlined: with it inlined, GCC 12 at -O3 (its SLP vectorizer) gave
 * the callers' (double)t.a and (double)t.b the doubles a and a + len from
 * before the rounding to float, so the references integrated over a
 * slightly other interval than the kernel got (tests/harness/test_trapezoid.cu
 * saw the rule off by up to 1e-8 of itself).  What leaves here is floats. */
static __attribute__((noinline)) struct tcase pick(uint64_t seed, uint64_t salt, uint64_t k)
{
    struct tcase t;
    double len = 4.0 * (0.26 + 0.74 * u01(seed, salt, k, 0));
    double a = -2.0 + (4.0 - len) * u01(seed, salt, k, 1);
    double c0 = (0.5 + 1.5 * u01(seed, salt, k, 2)) * (u01(seed, salt, k, 3) < 0.5 ? -1 : 1);
    double c1 = fabs(c0) * (0.2 + 0.3 * u01(seed, salt, k, 4)) * (u01(seed, salt, k, 5) < 0.5 ? -1 : 1);
    t.a = (float)a;
    t.b = (float)(a + len);
    t.p.c0 = (float)c0;
    t.p.c1 = (float)c1;
    t.p.w = (float)(0.5 + 1.5 * u01(seed, salt, k, 6));
    t.p.phi = (float)(2.0 * u01(seed, salt, k, 7));
    t.p.k = (float)(0.25 * pow(16.0, u01(seed, salt, k, 8)));
    t.p.m = (float)(-1.0 + 2.0 * u01(seed, salt, k, 9));
    return t;
}

/* ---- the integrand in float64 --------------------------------------------- */

/* The float64 twin of lab_f, on the same (float) parameters. */
static double f64(const struct lab_integrand_params *p, double x)
{
    double d = x - (double)p->m;
    double wave = sin(M_PI * ((double)p->w * x + (double)p->phi));
    return (double)p->c0 + (double)p->c1 * wave / (1.0 + (double)p->k * d * d);
}

/* A bound of |f''| over the whole line: see the top of the file. */
static double f2_bound(const struct lab_integrand_params *p)
{
    double pw = M_PI * fabs((double)p->w), k = (double)p->k;
    return fabs((double)p->c1) * (pw * pw + 2.0 * pw * (3.0 * sqrt(3.0) / 8.0) * sqrt(k) + 2.0 * k);
}

/* ---- the CPU reference ---------------------------------------------------- */

struct rule {
    const struct lab_integrand_params *p;
    double a, b, h;
    unsigned long long n;
};

static struct rule rule_of(const struct tcase *t, unsigned long long n)
{
    struct rule r = {&t->p, (double)t->a, (double)t->b, 0.0, n};
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
        double y = f64(r->p, x);
        s += i == 0 || i == r->n ? 0.5 * y : y;
    }
    return s;
}

struct expect {
    double value, tol;
};

/* The rule in float64 and the trial tolerance: f has one sign, so the sum of
 * |f| is |sum|. */
static struct expect reference(const struct rule &r)
{
    double sum = host_parallel_sum(r.n + 1, chunk_sum, &r);
    struct expect e = {r.h * sum, ldexp(r.h * fabs(sum), -12)};
    return e;
}

/* 8-point Gauss-Legendre on [-1, 1]: the positive nodes and their weights. */
static const double gl_x[4] = {0.1834346424956498049394761, 0.5255324099163289858177390,
                               0.7966664774136267395915539, 0.9602898564975362316835609};
static const double gl_w[4] = {0.3626837833783619829651504, 0.3137066458778872873379622,
                               0.2223810344533744705443560, 0.1012285362903762591525314};

/* The integral of f over [a, b], to about 1e-14 of it (see the top). */
static double integral(const struct lab_integrand_params *p, double a, double b)
{
    double width = (b - a) / GL_PANELS, s = 0;
    for (int j = 0; j < GL_PANELS; j++) {
        double mid = a + (j + 0.5) * width, r = 0.5 * width;
        for (int q = 0; q < 4; q++)
            s += gl_w[q] * r * (f64(p, mid - r * gl_x[q]) + f64(p, mid + r * gl_x[q]));
    }
    return s;
}

/* The exact integral and the timed tolerance (see the top of the file). */
static struct expect exact(const struct tcase *t, unsigned long long n)
{
    double a = t->a, b = t->b, h = (b - a) / (double)n;
    double level = fabs((double)t->p.c0) + fabs((double)t->p.c1);
    struct expect e = {integral(&t->p, a, b),
                       (b - a) * h * h / 12.0 * f2_bound(&t->p) + ldexp((b - a) * level, -12)};
    return e;
}

/* ---- the harness's kernels ------------------------------------------------ */

/* The reference integrator: one thread per point in a grid-stride loop, warp
 * sums by shuffle, the warp sums through shared memory, one atomicAdd per
 * block.  lab_f reads the judge's own lab_params. */
static __global__ void __launch_bounds__(TRAP_THREADS)
trap_ref(float a, float b, float h, unsigned n, float *out)
{
    __shared__ float warp_sums[TRAP_THREADS / 32];
    unsigned stride = gridDim.x * blockDim.x;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float s = 0.0f;

    /* i <= n: n + 1 points; n <= 2^28, so i + stride cannot wrap. */
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i <= n; i += stride) {
        float y = lab_f(i == n ? b : a + (float)i * h);
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

/* The calibration: PEAK_CHAINS * PEAK_STEPS evaluations of lab_f per thread
 * at points spread over [lo, lo + dx * all of them), on independent chains so
 * that no evaluation waits for another, summed in registers and written once
 * per thread (the write keeps the compiler from dropping the work).  Nothing
 * but the step to the next point goes with each evaluation: no kernel that
 * evaluates lab_f once per point can go faster. */
static __global__ void __launch_bounds__(TRAP_THREADS)
trap_peak(float lo, float dx, float *sink)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    float step = (float)(gridDim.x * blockDim.x * PEAK_CHAINS) * dx;
    float x[PEAK_CHAINS], s[PEAK_CHAINS];

#pragma unroll
    for (int j = 0; j < PEAK_CHAINS; j++) {
        x[j] = fmaf((float)(t * PEAK_CHAINS + j), dx, lo);
        s[j] = 0.0f;
    }
    for (int i = 0; i < PEAK_STEPS; i++) {
#pragma unroll
        for (int j = 0; j < PEAK_CHAINS; j++) {
            s[j] += lab_f(x[j]);
            x[j] += step;
        }
    }
    float total = 0.0f;
#pragma unroll
    for (int j = 0; j < PEAK_CHAINS; j++)
        total += s[j];
    sink[t] = total;
}

/* ---- the family ----------------------------------------------------------- */

static struct {
    int grid;                   /* the reference's grid: every SM full */
    int peak_grid;              /* the calibration's */
    float *d_out;               /* out's place now */
    struct moving_out out;
    void *d_scratch;
    size_t scratch_bytes;
    float *d_sink;              /* the calibration's one value per thread */
    void *student_params;       /* the student's lab_params, in its module */
    /* What the copies to the two lab_params read: kept in place until the
     * stream has run them (every call ends with a synchronisation). */
    struct lab_integrand_params for_student, for_ref;
    double peak_rate;           /* lab_f evaluations per second / 1e9; 0: not yet */
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
 * sees garbage.  *d_out a NaN, the rest of its arena and the scratch fresh
 * bits (hx_poison.cuh): all of the scratch (whole) or what a call of n may
 * use (a timed sample). */
static int poison(struct ctx *c, unsigned long long n, int whole)
{
    static float p;     /* static: the async copy reads it after we return */
    p = poison_value();
    if (moving_out_poison(c, &tf.out))
        return -1;
    HX_CHECK(cudaMemcpyAsync(tf.d_out, &p, sizeof p, cudaMemcpyHostToDevice, c->s));
    size_t sb = LAB_SCRATCH_BYTES(n);
    return poison_fill(c, tf.d_scratch, whole || sb > tf.scratch_bytes ? tf.scratch_bytes : sb, poison_bits());
}

/* Writes the integrand of the next call on c->s, ahead of it: into the
 * student's lab_params, or (reference) into the judge's own. */
static int set_params(struct ctx *c, const struct lab_integrand_params *p, int reference)
{
    if (reference) {
        tf.for_ref = *p;
        HX_CHECK(cudaMemcpyToSymbolAsync(lab_params, &tf.for_ref, sizeof tf.for_ref, 0,
                                         cudaMemcpyHostToDevice, c->s));
    } else {
        tf.for_student = *p;
        HX_CHECK(cudaMemcpyAsync(tf.student_params, &tf.for_student, sizeof tf.for_student,
                                 cudaMemcpyHostToDevice, c->s));
    }
    return 0;
}

static int ref_call(struct ctx *c, const struct tcase *t, unsigned n)
{
    float h = (float)(((double)t->b - (double)t->a) / n);
    unsigned blocks = (n + TRAP_THREADS) / TRAP_THREADS;        /* ceil((n + 1) / 256) */
    if (blocks > (unsigned)tf.grid)
        blocks = (unsigned)tf.grid;
    HX_CHECK(cudaMemsetAsync(tf.d_out, 0, sizeof(float), c->s));
    trap_ref<<<blocks, TRAP_THREADS, 0, c->s>>>(t->a, t->b, h, n, tf.d_out);
    HX_CHECK(cudaGetLastError());
    return 0;
}

/* The contract's one channel to the kernel, in the device code just
 * loaded: without it, or with another layout, the kernel would integrate
 * something the judge never drew. */
static int trap_bind(struct ctx *c)
{
    size_t bytes = 0;
    if (student_global(c, "lab_params", &tf.student_params, &bytes))
        return student_reject(c, "the kernel's device code has no lab_params: lab 09's file must "
                                 "include lab.h and evaluate the integrand with lab_f, whose "
                                 "parameters the harness writes there before every call");
    if (bytes != sizeof(struct lab_integrand_params))
        return student_reject(c, "the kernel's lab_params holds %zu bytes where lab.h's (contract "
                                 "%d) holds %zu: compile against this tutor's lab.h",
                              bytes, LAB_CONTRACT_VERSION, sizeof(struct lab_integrand_params));
    return 0;
}

static int trap_setup(struct ctx *c, unsigned long long max_n)
{
    int per_sm = 0;

    /* The grids of what is timed; a CPU judge times nothing, and asking
     * there would load the judge's PTX for no kernel of its own. */
    if (!c->r->emulated)
        HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, trap_ref, TRAP_THREADS, 0));
    tf.grid = c->r->dev.sms * (per_sm > 0 ? per_sm : 1);
    per_sm = 0;
    if (!c->r->emulated)
        HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, trap_peak, TRAP_THREADS, 0));
    tf.peak_grid = c->r->dev.sms * (per_sm > 0 ? per_sm : 1);
    tf.scratch_bytes = LAB_SCRATCH_BYTES(max_n);
    if (moving_out_setup(c, &tf.out, sizeof(float)))
        return -1;
    tf.d_out = (float *)moving_out_ptr(&tf.out);
    HX_CHECK(cudaMalloc(&tf.d_scratch, tf.scratch_bytes));
    HX_CHECK(cudaMalloc(&tf.d_sink, (size_t)tf.peak_grid * TRAP_THREADS * sizeof(float)));
    return 0;
}

static void trap_teardown(struct ctx *)
{
    cudaFree(tf.out.arena);
    cudaFree(tf.d_scratch);
    cudaFree(tf.d_sink);
}

static struct call trap_call_of(const struct ctx *c, unsigned n, const struct tcase *t)
{
    struct call k = call_make(c, FAMILY_TRAPEZOID, n, NULL, tf.d_out, tf.d_scratch, NULL);
    k.a = t->a;
    k.b = t->b;
    return k;
}

static int trap_trial(struct ctx *c, unsigned long long n, int k, struct test *t)
{
    struct tcase tc = pick(c->o->seed, 1 + (uint64_t)k, 0);
    struct rule r = rule_of(&tc, n);
    struct expect want = reference(r);
    float got;

    moving_out_move(&tf.out);
    tf.d_out = (float *)moving_out_ptr(&tf.out);
    struct call call = trap_call_of(c, (unsigned)n, &tc);
    if (poison(c, n, 1) || set_params(c, &tc.p, 0))
        return -1;
    unsigned long long divided = emu_divisions ? emu_divisions() : 0;
    if (student_run(c, &call))
        return -1;
    HX_CHECK(cudaGetLastError());
    HX_CHECK(cudaMemcpyAsync(&got, tf.d_out, sizeof got, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));

    snprintf(t->expected, sizeof t->expected, "%.9g", want.value);
    snprintf(t->got, sizeof t->got, "%.9g", (double)got);
    if (fabs((double)got - want.value) <= want.tol) {
        char why[200];
        int whole = moving_out_intact(c, &tf.out, why, sizeof why);
        if (whole == 0)
            test_fail(t, "%s", why);
        if (whole <= 0)
            return whole;
        /* The rule's work is its n + 1 evaluations, each a division: on a
         * GPU a kernel that does less is timed faster than the integrand
         * can be evaluated (implausible); on the emulator it is counted. */
        if (emu_divisions && (divided = emu_divisions() - divided) < n + 1) {
            test_fail(t, "right within the tolerance, but from %llu evaluations of lab_f where the rule "
                         "has %llu points (n + 1): a kernel must evaluate the integrand at every point",
                      divided, n + 1);
            return 0;
        }
        tol_note(c->r, fabs((double)got - want.value), want.tol);
        return 0;
    }
    float p = poison_value();
    if (!memcmp(&p, &got, sizeof got))
        test_fail(t, "d_out was never written: it still holds the poison value");
    else
        test_fail(t, "wrong integral over [%.9g, %.9g] with %llu trapezoids: off by %.3g "
                     "(tolerance %.3g)", (double)tc.a, (double)tc.b, n,
                  (double)got - want.value, want.tol);
    return 0;
}

/* ---- the calibration ------------------------------------------------------ */

struct peak_run {
    struct ctx *c;
};

static int peak_prepare(void *, int) { return 0; }
static int peak_verify(void *, int, char *, size_t) { return 1; }

static int peak_call(void *arg)
{
    struct peak_run *r = (struct peak_run *)arg;
    double evals = (double)tf.peak_grid * TRAP_THREADS * PEAK_CHAINS * PEAK_STEPS;
    trap_peak<<<tf.peak_grid, TRAP_THREADS, 0, r->c->s>>>(-2.0f, (float)(4.0 / evals), tf.d_sink);
    return 0;
}

/* Measures tf.peak_rate, with the GPU held alone (the timed section), on an
 * integrand drawn like any other: lab_f's cost does not depend on it. */
static int peak_measure(struct ctx *c)
{
    struct peak_run r = {c};
    struct timed t = {peak_prepare, peak_call, peak_verify, &r, NULL, NULL, NULL};
    struct timing tm;
    char msg[8];
    int saved_student = c->student_ran, rc;
    /* About a millisecond a sample on an H100 and steady: 20 ms of samples
     * (never fewer than the minimum) is plenty. */
    struct opts quick = *c->o;
    const struct opts *saved_opts = c->o;
    quick.budget_ms = quick.budget_ms < 20 ? quick.budget_ms : 20;

    struct tcase tc = pick(c->o->seed, 0x9eac, 0);
    if (set_params(c, &tc.p, 1))
        return -1;
    stage(STAGE_PEAK, 1, 1, "how fast this GPU evaluates lab_f");
    c->o = &quick;
    c->rough = 1;   /* it bounds what is plausible, 10% above it */
    rc = measure(c, &t, &tm, msg, sizeof msg);
    c->rough = 0;
    c->o = saved_opts;
    c->student_ran = saved_student;
    if (rc)
        return -1;
    double evals = (double)tf.peak_grid * TRAP_THREADS * PEAK_CHAINS * PEAK_STEPS;
    tf.peak_rate = tm.median_ms > 0 ? evals / (tm.median_ms * 1e-3) / 1e9 : 0;
    return 0;
}

/* ---- timing ---- */

struct trun {
    struct ctx *c;
    unsigned n;
    uint64_t salt;
    int reference;              /* 1: time the harness's integrator */
    struct tcase t;             /* this sample's integrand and interval */
    struct plan *plan;          /* its plan */
};

/* Each sample integrates a fresh integrand over a fresh interval, so a result
 * remembered from an earlier call is wrong.  Its parameters are written here,
 * before the L2 flush and the first event: outside the timed region. */
static int trap_prepare(void *arg, int k)
{
    struct trun *r = (struct trun *)arg;
    r->t = pick(r->c->o->seed, r->salt, (uint64_t)k);
    /* A fresh interval is a new call, so the plan is asked for anew (and
     * may differ from the last one by the arguments a and b). */
    if (!r->reference) {
        struct call call = trap_call_of(r->c, r->n, &r->t);
        if (student_plan(r->c, &call, r->plan))
            return -1;
    }
    return set_params(r->c, &r->t.p, r->reference) || poison(r->c, r->n, 0) ? -1 : 0;
}

static int trap_call(void *arg)
{
    struct trun *r = (struct trun *)arg;
    if (r->reference)
        return ref_call(r->c, &r->t, r->n);
    return student_replay(r->c, r->plan);
}

static int trap_verify(void *arg, int k, char *msg, size_t len)
{
    struct trun *r = (struct trun *)arg;
    struct expect want = exact(&r->t, r->n);
    float got;
    char why[200];
    HX_CHECK(cudaMemcpy(&got, tf.d_out, sizeof got, cudaMemcpyDeviceToHost));
    int whole = moving_out_intact(r->c, &tf.out, why, sizeof why);
    if (whole <= 0) {
        if (whole == 0)
            snprintf(msg, len, "%s sample %d: %s", r->reference ? "the reference" : "timed", k, why);
        return whole;
    }
    if (fabs((double)got - want.value) <= want.tol) {
        if (!r->reference)
            tol_note(r->c->r, fabs((double)got - want.value), want.tol);
        return 1;
    }
    snprintf(msg, len, "%s sample %d (a fresh integrand over [%.9g, %.9g]): expected %.9g (the "
                       "exact integral), got %.9g, tolerance %.3g",
             r->reference ? "the reference" : "timed", k, (double)r->t.a, (double)r->t.b,
             want.value, (double)got, want.tol);
    return 0;
}

static int trap_timed(struct ctx *c, const struct perf_case *pc, struct perf *p)
{
    struct test *t = &c->r->tests[c->r->ntests];
    static struct plan plan;
    struct trun r = {c, (unsigned)pc->n, case_salt(pc), 0, {}, &plan};
    struct timed tm = {trap_prepare, trap_call, trap_verify, &r, &r.reference, NULL, NULL};

    /* Once per run, before the first case: every case is judged by it. */
    if (tf.peak_rate <= 0 && peak_measure(c))
        return -1;
    int rc = measure_both(c, &tm, p, t);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    p->bytes = 0;               /* compute bound: nothing to stream */
    p->rate_unit = "Gtrap/s";
    p->peak_rate = tf.peak_rate;
    perf_finish(c, &family_impl, p, (double)pc->n);
    return 0;
}

static int trap_profile(struct ctx *c, unsigned long long n)
{
    struct tcase tc = pick(c->o->seed, 4242, 0);
    struct call call = trap_call_of(c, (unsigned)n, &tc);
    if (poison(c, n, 1) || set_params(c, &tc.p, 0))
        return -1;
    return student_profile(c, &call);
}

const struct family family_impl = {FAMILY_TRAPEZOID, "harness warp-shuffle integrator", 0, 1,
                                   trap_setup, trap_trial, trap_timed, trap_profile,
                                   trap_teardown, NULL, 0, trap_bind};

} /* namespace hx */
