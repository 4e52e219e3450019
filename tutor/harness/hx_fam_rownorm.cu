/* hx_fam_rownorm.cu — family rownorm (lab 14): every row of a rows x cols
 * float matrix divided by its sum, so that it sums to 1.
 *
 * The shape.  A trial's size is its number of rows; its width is chosen per
 * trial from the seed: the first RN_NEDGE trials take the awkward widths of
 * RN_EDGE (32, 33, 1023, 1024, 63, 65, 1000, 513: one warp exactly, one lane
 * over, odd, a power of two and its neighbours), the rest a width drawn
 * uniformly from 32 to 1024.  A timed case's width is drawn once per run
 * from its input kind's range ("wide": 769 to 1023, "narrow": 33 to 63; no
 * power of two in either), so a launcher sees the same call in every sample.
 *
 * Inputs.  Element j of row r is 2^e * [1, 2), with e drawn per row from -12
 * to 12: positive, so every sum is safe, of a scale a kernel cannot assume,
 * and each element at least 1/(2 cols) of its row's sum, so that a kernel
 * that leaves out any one of them is off by 4 times the tolerance or more.
 * Generated on the device from (seed, salt, version, row, column), so the
 * CPU recomputes any row without copying the input.
 *
 * Correctness.  The exact result is x / S with S the float64 sum of the
 * row's floats.  A result is right when, for every element,
 *     |got - x/S| <= 2^-13 * x/S.
 * Why 2^-13: in float (u = 2^-24), a sum of cols positive terms in any order
 * (one thread's loop, a warp's lanes and butterfly, a block's tree) is within
 * (cols - 1) u of S to first order, at most 1023 u; scaling by 1/S, or
 * dividing, adds two roundings (a division two ulp at most).  So every sensible
 * kernel is within 1026 u of each element, about half the tolerance of
 * 2048 u; emulated in float on the host, such kernels use under 2% of it
 * (build/tests/test_rownorm).  Leaving out an element moves S by more than
 * 1/(2 cols), at least 2^-11: four times the tolerance.
 *
 * Every element of every result is checked.  A trial's d_out comes back
 * whole to the CPU, and the rest of its allocation past the end (fresh
 * bits, hx_poison.cuh) must be untouched;
 * the judge's GPU check (rn_check) is held to the CPU in every trial, on the
 * poison and on the result.  Every timed call is checked whole on the GPU
 * (rn_check works out each row's sum in float64 from the input as it is);
 * the rows changed for the sample and a few at random places also come back
 * to the CPU, which checks their input is what it wrote and their output
 * from its own sums.  Before each call RN_CHANGES rows at random places get
 * new values (another version of the row), and after it they get their
 * generated values back; after each kernel's last sample the whole input
 * must be as generated.
 *
 * The poison: a quiet NaN whose payload the operating system draws for every
 * call, in every element of d_out: never within any tolerance, never
 * computed from the answer.  Bytes that must move: the matrix read once and
 * written once; the peak it is compared with is the streaming copy's.  The
 * reference is the judge's own warp-per-row butterfly normaliser.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#define LAB_NO_PARAMS
#include "../lab.h"
#include "hx.h"
#include "hx_core.cuh"
#include "hx_poison.cuh"

namespace hx {

enum {
    RN_THREADS = 256,
    RN_GUARD = 64,              /* elements past the end of d_out that must stay */
    RN_CHANGES = 4,             /* rows changed before each timed call */
    RN_SPOTS = 4,               /* random rows the CPU checks per sample */
    RN_PROBES = RN_CHANGES + RN_SPOTS,
    ROW_MIN = LAB_ROW_MIN,
    ROW_MAX = LAB_ROW_MAX,
    RN_TOL_EXP = -13            /* the tolerance, 2^-13 of each exact value */
};
static const unsigned FULL = 0xffffffffu;

/* The widths of the first trials: the edges a kernel gets wrong. */
static const unsigned RN_EDGE[] = {32, 33, 1023, 1024, 63, 65, 1000, 513};
enum { RN_NEDGE = sizeof RN_EDGE / sizeof RN_EDGE[0] };

/* Everything that determines one matrix. */
struct rgen {
    uint64_t seed, salt;
    unsigned long long rows;
    unsigned cols;
};

/* A row's values under a version: 0 as generated, k + 1 while timed sample
 * k has changed it. */
__host__ __device__ static inline uint64_t rn_salt(const rgen &g, uint64_t ver)
{
    return ver ? mix(g.salt ^ (ver * 0xd1b54a32d192ed03ull)) : g.salt;
}

/* Row r's scale under a version, 2^e with e in [-12, 12]: exact in double. */
__host__ __device__ static inline double rn_scale(const rgen &g, unsigned long long r, uint64_t ver)
{
    int e = (int)below(draw(g.seed, rn_salt(g, ver), ~r), 25) - 12;
    return e >= 0 ? (double)(1u << e) : 1.0 / (double)(1u << -e);
}

/* Element j of row r, given the row's scale. */
__host__ __device__ static inline float rn_elem(const rgen &g, unsigned long long r, unsigned j, uint64_t ver,
                                                double scale)
{
    return (float)((1.0 + unit(draw(g.seed, rn_salt(g, ver), r * ROW_MAX + j))) * scale);
}

__host__ __device__ static inline float rn_value(const rgen &g, unsigned long long r, unsigned j, uint64_t ver)
{
    return rn_elem(g, r, j, ver, rn_scale(g, r, ver));
}

/* The width of trial k. */
static inline unsigned rn_trial_cols(uint64_t seed, int k)
{
    if (k < RN_NEDGE)
        return RN_EDGE[k];
    return ROW_MIN + below(draw(seed, 0xc0151ull, (uint64_t)k), ROW_MAX - ROW_MIN + 1);
}

/* A timed input kind's widths, [lo, hi]; -1 for a kind that is not one. */
static inline int rn_kind_range(const char *kind, unsigned *lo, unsigned *hi)
{
    if (!kind[0] || !strcmp(kind, "wide")) {
        *lo = 769;
        *hi = 1023;
    } else if (!strcmp(kind, "narrow")) {
        *lo = 33;
        *hi = 63;
    } else {
        return -1;
    }
    return 0;
}

/* A timed case's width, drawn once per run from its kind's range. */
static inline unsigned rn_case_cols(uint64_t seed, const struct perf_case *pc, unsigned lo, unsigned hi)
{
    return lo + below(draw(seed, case_salt(pc), 0xc015ull), hi - lo + 1);
}

/* Sample k's m-th changed row: random, none taken twice. */
static inline unsigned long long rn_change_row(const rgen &g, uint64_t k, int m, const unsigned long long *taken)
{
    return below_untaken(draw(g.seed, g.salt ^ 0x0c4a6e0ull, k * RN_CHANGES + (uint64_t)m), g.rows, m, taken);
}

/* Row r under version ver into x[0, cols); returns the float64 sum of its
 * floats. */
static double rn_row(const rgen &g, unsigned long long r, uint64_t ver, float *x)
{
    double s = 0, scale = rn_scale(g, r, ver);
    for (unsigned j = 0; j < g.cols; j++)
        s += (double)(x[j] = rn_elem(g, r, j, ver, scale));
    return s;
}

static inline double rn_tolerance(double exact)
{
    return ldexp(exact, RN_TOL_EXP);
}

/* A call's poison: a quiet NaN with a random payload. */
static inline uint32_t rn_poison_bits(uint64_t bits)
{
    return 0x7fc00000u | (uint32_t)(bits & 0x3fffffu);
}

static inline uint32_t rn_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* A trial's check on the CPU: every element of got (the generated matrix's
 * result) against x / S from the CPU's own sums, the rows split across up to
 * 16 host threads.  Returns the number of wrong elements; *first is the
 * first of them (row * cols + column) and *want its right value; *used the
 * most of the tolerance any right one used. */
static unsigned long long rn_cpu_check(const rgen &g, const float *got, unsigned long long *first, double *want,
                                       double *used)
{
    struct part { unsigned long long bad, first; double want, used; };
    unsigned workers = host_workers(g.rows * g.cols);
    std::vector<part> parts(workers);
    host_parallel(workers, [&g, got, &parts, workers](unsigned w) {
        part p = {0, ~0ull, 0, 0};
        float x[ROW_MAX];
        for (unsigned long long r = w; r < g.rows; r += workers) {
            double inv = 1.0 / rn_row(g, r, 0, x);
            for (unsigned j = 0; j < g.cols; j++) {
                double y = (double)x[j] * inv, err = fabs((double)got[r * g.cols + j] - y), tol = rn_tolerance(y);
                if (!(err <= tol)) {
                    if (p.bad++ == 0 || r * g.cols + j < p.first) {
                        p.first = r * g.cols + j;
                        p.want = y;
                    }
                } else {
                    p.used = std::max(p.used, err / tol);
                }
            }
        }
        parts[w] = p;
    });
    unsigned long long bad = 0;
    *first = ~0ull;
    *used = 0;
    for (unsigned w = 0; w < workers; w++) {
        bad += parts[w].bad;
        *used = std::max(*used, parts[w].used);
        if (parts[w].bad && parts[w].first < *first) {
            *first = parts[w].first;
            *want = parts[w].want;
        }
    }
    return bad;
}

/* ---- device code ----------------------------------------------------------- */

/* The rows a sample changed (or puts back), by value as a kernel argument. */
struct rn_rows {
    int count;
    unsigned long long row[RN_CHANGES];
    uint64_t ver;
};

/* What one check brings back: the wrong elements (how many, the first as
 * row * cols + column), the most of the tolerance any right one used (a
 * float's bits: positive floats order like their bits), and the input and
 * output of the probe rows the host names. */
struct rn_probe {
    unsigned long long bad, first;
    unsigned used_bits;
    unsigned long long row[RN_PROBES];
    float in[RN_PROBES][ROW_MAX], out[RN_PROBES][ROW_MAX];
};

/* Element k of the matrix g describes, row after row.  A matrix has at most
 * LAB_MAX_N = 2^28 elements: 32-bit indices, and 32-bit divisions, which
 * are many times cheaper than 64-bit ones. */
struct rn_want {
    rgen g;
    __host__ __device__ float operator()(unsigned long long k) const
    {
        return rn_value(g, (unsigned)k / g.cols, (unsigned)k % g.cols, 0);
    }
};

/* Writes the rows rows names under rows.ver. */
struct rn_fill_rows_body {
    rgen g;
    rn_rows rows;
    float *in;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        for (unsigned long long q = t; q < (unsigned long long)rows.count * g.cols; q += stride) {
            unsigned long long r = rows.row[q / g.cols];
            unsigned j = (unsigned)(q % g.cols);
            in[r * g.cols + j] = rn_value(g, r, j, rows.ver);
        }
    }
};


/* p[0, count) = the float of bits. */
struct rn_set_body {
    float *p;
    unsigned long long count;
    uint32_t bits;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        float v;
        memcpy(&v, &bits, sizeof v);
        for (unsigned long long k = t; k < count; k += stride)
            p[k] = v;
    }
};

/* The judge's check: one warp per row works out the row's sum in float64
 * from the input as it is (lane l adds columns l, l + 32, ...; a butterfly
 * adds the lanes' parts), and every element of out is compared with
 * x / S within the tolerance.  A NaN is never within it.  Natively the
 * same parts are added in the same butterfly, so the sums, and so every
 * verdict and the tolerance used, are the same bits. */
struct rn_check_body {
    const float *in, *out;
    unsigned long long rows;
    unsigned cols;
    struct rn_probe *res;
    /* Lane's part of row r's sum. */
    __host__ __device__ double part(unsigned long long r, unsigned lane) const
    {
        const float *x = in + r * cols;
        double s = 0;
        for (unsigned j = lane; j < cols; j += 32)
            s += (double)x[j];
        return s;
    }
    /* Lane's elements of row r against its sum s; the most of the
     * tolerance a right one used, into *used. */
    __host__ __device__ void judge(unsigned long long r, unsigned lane, double s, float *used) const
    {
        const float *x = in + r * cols, *y = out + r * cols;
        double inv = 1.0 / s;
        for (unsigned j = lane; j < cols; j += 32) {
            double want = (double)x[j] * inv, err = fabs((double)y[j] - want), tol = ldexp(want, RN_TOL_EXP);
            if (!(err <= tol))
                judge_flag(&res->bad, &res->first, r * cols + j);
            else
                *used = fmaxf(*used, (float)(err / tol));
        }
    }
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
#ifdef __CUDA_ARCH__
        unsigned lane = (unsigned)(t & 31);
        float used = 0;
        /* r is the same for the whole warp: the shuffles see all 32 lanes. */
        for (unsigned long long r = t / 32; r < rows; r += stride / 32) {
            double s = part(r, lane);
            for (int d = 16; d > 0; d >>= 1)
                s += __shfl_xor_sync(FULL, s, d);
            judge(r, lane, s, &used);
        }
        if (used > 0)
            atomicMax(&res->used_bits, __float_as_uint(used));
#else
        (void)t;
        (void)stride;
#endif
    }
    void host() const
    {
        float used = 0;
        for (unsigned long long r = 0; r < rows; r++) {
            double s[32], next[32];
            for (unsigned lane = 0; lane < 32; lane++)
                s[lane] = part(r, lane);
            /* What __shfl_xor_sync's butterfly adds, lane by lane. */
            for (unsigned d = 16; d > 0; d >>= 1) {
                for (unsigned lane = 0; lane < 32; lane++)
                    next[lane] = s[lane] + s[lane ^ d];
                memcpy(s, next, sizeof s);
            }
            for (unsigned lane = 0; lane < 32; lane++)
                judge(r, lane, s[lane], &used);
        }
        uint32_t bits;
        memcpy(&bits, &used, sizeof bits);
        if (used > 0 && bits > res->used_bits)
            res->used_bits = bits;
    }
};

/* Copies the nprobe probe rows of in and out. */
struct rn_gather_body {
    struct rn_probe *res;
    const float *in, *out;
    unsigned cols;
    unsigned nprobe;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        for (unsigned long long q = t; q < (unsigned long long)nprobe * cols; q += stride) {
            unsigned m = (unsigned)(q / cols), j = (unsigned)(q % cols);
            unsigned long long r = res->row[m];
            res->in[m][j] = in[r * cols + j];
            res->out[m][j] = out[r * cols + j];
        }
    }
};

/* The reference: one warp per row, the row held in registers (at most 32
 * values per lane), the sum by a butterfly so that every lane has it, then
 * every lane scales its own values.  One read and one write of the matrix. */
static __global__ void __launch_bounds__(RN_THREADS)
rn_ref(const float *in, unsigned rows, unsigned cols, float *out)
{
    unsigned lane = threadIdx.x & 31;
    size_t r = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    if (r >= rows)
        return;
    const float *x = in + r * cols;
    float v[ROW_MAX / 32], s = 0;
#pragma unroll
    for (int k = 0; k < ROW_MAX / 32; k++) {
        unsigned j = lane + 32 * k;
        v[k] = j < cols ? x[j] : 0.0f;
        s += v[k];
    }
    for (int d = 16; d > 0; d >>= 1)
        s += __shfl_xor_sync(FULL, s, d);
    float inv = 1.0f / s;
#pragma unroll
    for (int k = 0; k < ROW_MAX / 32; k++) {
        unsigned j = lane + 32 * k;
        if (j < cols)
            out[r * cols + j] = v[k] * inv;
    }
}

/* ---- the family ------------------------------------------------------------ */

static struct {
    float *d_in, *d_out;                    /* d_out has RN_GUARD more */
    uint64_t tail_key;                      /* the bits past the end of d_out */
    unsigned long long cap;                 /* elements */
    unsigned long long *d_bad;              /* [0] count, [1] first element */
    struct rn_probe *d_probe;
    int grid;
    std::vector<float> buf;                 /* a trial's d_out on the host */
} rf;


/* Elements the run will need at most: every trial's rows x cols, every timed
 * case at its widest, the profile's matrix. */
static unsigned long long rn_capacity(const struct opts *o)
{
    unsigned long long m = 1;
    for (int i = 0; i < o->nsizes; i++)
        m = std::max(m, o->sizes[i] * rn_trial_cols(o->seed, i));
    if (o->mode == MODE_CHECK)
        for (int i = 0; i < o->nperf; i++) {
            unsigned lo, hi;
            if (rn_kind_range(o->perf[i].input, &lo, &hi) == 0)
                m = std::max(m, o->perf[i].n * hi);
        }
    if (o->mode == MODE_PROFILE)
        m = std::max(m, o->profile_n);
    return m;
}

static int rn_setup(struct ctx *c, unsigned long long)
{
    rf.cap = rn_capacity(c->o);
    rf.grid = c->r->dev.sms * 8;
    HX_CHECK(cudaMalloc(&rf.d_in, rf.cap * sizeof(float)));
    HX_CHECK(cudaMalloc(&rf.d_out, (rf.cap + RN_GUARD) * sizeof(float)));
    HX_CHECK(cudaMalloc(&rf.d_bad, 2 * sizeof(unsigned long long)));
    HX_CHECK(cudaMalloc(&rf.d_probe, sizeof(struct rn_probe)));
    return 0;
}

static void rn_teardown(struct ctx *)
{
    device_free({rf.d_in, rf.d_out, rf.d_bad, rf.d_probe});
}

/* The call for a rows x cols matrix in rf's buffers (or, dry, in the
 * pointers call_make was given). */
static void rn_shape(struct call *k, unsigned long long rows, unsigned cols)
{
    k->n2 = cols;
    k->bytes[0] = k->bytes[1] = (uint64_t)rows * cols * sizeof(float);
    k->writable[1] = 1;
}

static struct call rn_call_of(const struct ctx *c, unsigned long long rows, unsigned cols)
{
    struct call k = call_make(c, FAMILY_ROWNORM, (unsigned)rows, rf.d_in, rf.d_out, NULL, NULL);
    rn_shape(&k, rows, cols);
    return k;
}

void family_dry_call(struct ctx *c, unsigned long long n, int trial, struct call *k)
{
    rn_shape(k, n, rn_trial_cols(c->o->seed, trial));
}

static int rn_generate(struct ctx *c, const rgen &g)
{
    return input_generate(c, "rn_fill", rf.grid, RN_THREADS, rf.d_in, g.rows * g.cols, rn_want{g});
}

/* Bytes of d_out's allocation past element total. */
static unsigned long long rn_tail_bytes(unsigned long long total)
{
    return (rf.cap + RN_GUARD - total) * sizeof(float);
}

/* Fills d_out[0, total) with the poison, and past it fresh bits
 * (hx_poison.cuh): all the rest of the allocation (whole) or the guard. */
static int rn_poison(struct ctx *c, unsigned long long total, uint32_t bits, int whole)
{
    if (judge_run(c, "rn_set", rf.grid, RN_THREADS, rn_set_body{rf.d_out, total, bits},
                  {{rf.d_out, total * sizeof(float)}}))
        return -1;
    rf.tail_key = poison_bits();
    return poison_fill(c, rf.d_out + total, whole ? rn_tail_bytes(total) : RN_GUARD * sizeof(float), rf.tail_key);
}

/* The first changed element's place in the matrix: its row and column. */
static void rn_place(char *buf, size_t len, unsigned long long first, unsigned long long cols)
{
    snprintf(buf, len, "at row %llu, column %llu", first / cols, first % cols);
}

static const struct input_words rn_words = {"element(s)", rn_place};

/* The input against what rn_generate wrote. */
static struct input_diff rn_changed(struct ctx *c, const rgen &g)
{
    struct input_diff d = input_changed(c, "rn_compare", rf.grid, RN_THREADS, rf.d_bad, rf.d_in, g.rows * g.cols,
                                        rn_want{g});
    d.width = g.cols;
    return d;
}

/* The GPU check of the whole result, and the nprobe rows p->row names. */
static int rn_verify_all(struct ctx *c, const rgen &g, struct rn_probe *p, int nprobe)
{
    unsigned long long blocks = (g.rows + RN_THREADS / 32 - 1) / (RN_THREADS / 32);
    p->bad = 0;
    p->first = ~0ull;
    p->used_bits = 0;
    HX_CHECK(cudaMemcpyAsync(rf.d_probe, p, offsetof(struct rn_probe, in), cudaMemcpyHostToDevice, c->s));
    if (judge_run(c, "rn_check", (unsigned)std::min(blocks, (unsigned long long)rf.grid), RN_THREADS,
                  rn_check_body{rf.d_in, rf.d_out, g.rows, g.cols, rf.d_probe}, {{rf.d_probe, sizeof *p}}))
        return -1;
    if (nprobe > 0 && judge_run(c, "rn_gather", (unsigned)nprobe, RN_THREADS,
                                rn_gather_body{rf.d_probe, rf.d_in, rf.d_out, g.cols, (unsigned)nprobe},
                                {{rf.d_probe, sizeof *p}}))
        return -1;
    HX_CHECK(cudaMemcpyAsync(p, rf.d_probe, nprobe > 0 ? sizeof *p : offsetof(struct rn_probe, in),
                             cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));
    return 0;
}

/* How one element is wrong, in words: "row 3, column 17: expected 0.00123,
 * got 0.00456 (37x the tolerance)". */
static void rn_describe(unsigned long long r, unsigned j, double want, float got, uint32_t poison, char *buf,
                        size_t len)
{
    if (rn_bits(got) == poison)
        snprintf(buf, len, "row %llu, column %u: expected %.9g, got %.9g (the poison: never written)", r, j, want,
                 (double)got);
    else if (isnan(got) || isinf(got))
        snprintf(buf, len, "row %llu, column %u: expected %.9g, got %.9g", r, j, want, (double)got);
    else
        snprintf(buf, len, "row %llu, column %u: expected %.9g, got %.9g (%.3gx the tolerance)", r, j, want,
                 (double)got, fabs((double)got - want) / rn_tolerance(want));
}

static int rn_trial(struct ctx *c, unsigned long long rows, int k, struct test *t)
{
    unsigned cols = rn_trial_cols(c->o->seed, k);
    rgen g = {c->o->seed, 1 + (uint64_t)k, rows, cols};
    unsigned long long total = rows * cols, bad = 0, first_bad = 0;
    uint32_t pz = rn_poison_bits(poison_bits());
    static struct rn_probe probe;
    double used = 0, want_at = 0;

    snprintf(t->name, sizeof t->name, "n=%llu cols=%u", rows, cols);
    if (rn_generate(c, g) || rn_poison(c, total, pz, 1))
        return -1;
    /* The judge's GPU check on the poison: every element is wrong. */
    if (rn_verify_all(c, g, &probe, 0))
        return -1;
    if (probe.bad != total || probe.first != 0)
        return judge_internal(c, "the judge's GPU check found %llu of %llu poisoned elements wrong (first %llu) "
                              "before the call (trial %llu x %u)", probe.bad, total, probe.first, rows, cols);
    struct call call = rn_call_of(c, rows, cols);
    if (student_run(c, &call))
        return -1;
    HX_CHECK(cudaGetLastError());
    rf.buf.resize(total);
    HX_CHECK(cudaMemcpyAsync(rf.buf.data(), rf.d_out, total * sizeof(float), cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));

    bad = rn_cpu_check(g, rf.buf.data(), &first_bad, &want_at, &used);
    if (bad) {
        char how[200];
        float got = rf.buf[first_bad];
        rn_describe(first_bad / cols, (unsigned)(first_bad % cols), want_at, got, pz, how, sizeof how);
        snprintf(t->expected, sizeof t->expected, "d_out[%llu] = %.9g", first_bad, want_at);
        snprintf(t->got, sizeof t->got, "%.9g", (double)got);
        test_fail(t, "%llu of %llu element(s) wrong; the first, %s", bad, total, how);
    } else {
        snprintf(t->expected, sizeof t->expected, "%llu rows of %u summing to 1", rows, cols);
        snprintf(t->got, sizeof t->got, "%s", t->expected);
        tol_note(c->r, used, 1.0);
        unsigned long long past, at;
        if (poison_check(c, rf.d_out + total, rn_tail_bytes(total), rf.tail_key, 0, 0, &past, &at))
            return -1;
        if (past > 0) {
            test_fail(t, "wrote past the end of d_out: d_out[%llu] changed, but the matrix has %llu "
                      "elements (%llu x %u)", total + at / sizeof(float), total, rows, cols);
            return 0;
        }
        int same = input_verdict_test(rn_changed(c, g), INPUT_CALLED, &rn_words, t);
        if (same <= 0)
            return same;
    }
    /* The judge's GPU check must agree with the CPU (a result right to the
     * CPU is right to it, a wrong one wrong). */
    if (rn_verify_all(c, g, &probe, 0))
        return -1;
    if ((probe.bad == 0) != (bad == 0))
        return judge_internal(c, "the judge's GPU check found %llu wrong element(s) where the CPU found %llu "
                              "(trial %llu x %u)", probe.bad, bad, rows, cols);
    return 0;
}

/* ---- timing ---- */

struct rrun {
    struct ctx *c;
    rgen g;
    int reference;              /* 1: time the judge's normaliser */
    rn_rows changed;            /* this sample's rows and their version */
    uint32_t poison;
    struct rn_probe probe;
    struct call call;
    struct plan plan, first;    /* this sample's plan; the case's first */
    int have_first;
};

/* Each sample gives a few rows new values, so that their sums and every
 * element of them change, and poisons the whole output. */
static int rn_prepare(void *arg, int k)
{
    struct rrun *r = (struct rrun *)arg;
    struct ctx *c = r->c;
    r->changed.count = r->g.rows < RN_CHANGES ? (int)r->g.rows : (int)RN_CHANGES;
    r->changed.ver = (uint64_t)k + 1;
    for (int m = 0; m < r->changed.count; m++)
        r->changed.row[m] = rn_change_row(r->g, (uint64_t)k, m, r->changed.row);
    if (judge_run(c, "rn_fill_rows", (unsigned)r->changed.count, RN_THREADS, rn_fill_rows_body{r->g, r->changed, rf.d_in},
                  {{rf.d_in, r->g.rows * r->g.cols * sizeof(float)}}))
        return -1;
    r->poison = rn_poison_bits(poison_bits());
    if (rn_poison(c, r->g.rows * r->g.cols, r->poison, 0))
        return -1;
    if (!r->reference && plan_sample(c, &r->call, &r->plan, &r->first, &r->have_first))
        return -1;
    return 0;
}

static int rn_call(void *arg)
{
    struct rrun *r = (struct rrun *)arg;
    if (r->reference) {
        unsigned blocks = (unsigned)((r->g.rows + RN_THREADS / 32 - 1) / (RN_THREADS / 32));
        rn_ref<<<blocks, RN_THREADS, 0, r->c->s>>>(rf.d_in, (unsigned)r->g.rows, r->g.cols, rf.d_out);
        HX_CHECK(cudaGetLastError());
        return 0;
    }
    return student_replay(r->c, &r->plan);
}

/* The version row r has during the sample. */
static uint64_t rn_version(const struct rrun *r, unsigned long long row)
{
    for (int m = 0; m < r->changed.count; m++)
        if (r->changed.row[m] == row)
            return r->changed.ver;
    return 0;
}

/* Judges sample k from the check's probe: 1 right, 0 wrong (msg says why),
 * -1 when the judge itself is wrong or a CUDA call failed. */
static int rn_judge(struct rrun *r, int k, char *msg, size_t len)
{
    const struct rn_probe *p = &r->probe;
    const char *who = r->reference ? "the reference" : "timed";
    unsigned cols = r->g.cols;
    char how[200];
    float x[ROW_MAX];

    for (int m = 0; m < RN_PROBES; m++) {
        unsigned long long row = p->row[m];
        rn_row(r->g, row, rn_version(r, row), x);
        for (unsigned j = 0; j < cols; j++)
            if (rn_bits(p->in[m][j]) != rn_bits(x[j])) {
                snprintf(msg, len, "%s sample %d: the call modified the input: row %llu, column %u is not what "
                         "the judge wrote", who, k, row, j);
                return 0;
            }
    }
    if (p->bad > 0) {
        unsigned long long q = p->first, row = q / cols;
        unsigned j = (unsigned)(q % cols);
        float got;
        if (row >= r->g.rows)
            return judge_internal(r->c, "%s sample %d: the GPU check counted %llu wrong elements but named element "
                                  "%llu", who, k, p->bad, q);
        HX_CHECK(cudaMemcpy(&got, rf.d_out + q, sizeof got, cudaMemcpyDeviceToHost));
        double want = 1.0 / rn_row(r->g, row, rn_version(r, row), x);
        want *= (double)x[j];
        if (fabs((double)got - want) <= rn_tolerance(want))
            return judge_internal(r->c, "%s sample %d: the GPU check found row %llu, column %u wrong, the CPU right",
                                  who, k, row, j);
        rn_describe(row, j, want, got, r->poison, how, sizeof how);
        snprintf(msg, len, "%s sample %d (%d rows changed since the last call): %llu of %llu elements wrong; the "
                 "first, %.150s", who, k, r->changed.count, p->bad, r->g.rows * cols, how);
        return 0;
    }
    for (int m = 0; m < RN_PROBES; m++) {
        unsigned long long row = p->row[m];
        double inv = 1.0 / rn_row(r->g, row, rn_version(r, row), x);
        for (unsigned j = 0; j < cols; j++) {
            double want = (double)x[j] * inv;
            if (!(fabs((double)p->out[m][j] - want) <= rn_tolerance(want)))
                return judge_internal(r->c, "%s sample %d: the GPU check passed row %llu, the CPU did not "
                                      "(column %u: %.9g, not %.9g)", who, k, row, j, (double)p->out[m][j], want);
        }
    }
    if (!r->reference) {
        float used;
        memcpy(&used, &p->used_bits, sizeof used);
        tol_note(r->c->r, used, 1.0);
    }
    return 1;
}

/* After each call: every element on the GPU, the changed rows and a few at
 * random places on the CPU too; then the changed rows get their generated
 * values back. */
static int rn_verify(void *arg, int k, char *msg, size_t len)
{
    struct rrun *r = (struct rrun *)arg;
    struct rn_probe *p = &r->probe;
    rn_rows back = r->changed;

    for (int m = 0; m < RN_PROBES; m++)
        p->row[m] = m < r->changed.count ? r->changed.row[m]
                  : below(draw(r->g.seed, r->g.salt ^ 0x5b075ull, (uint64_t)k * RN_PROBES + (uint64_t)m),
                          (uint32_t)r->g.rows);
    if (rn_verify_all(r->c, r->g, p, RN_PROBES))
        return -1;
    int ok = rn_judge(r, k, msg, len);
    back.ver = 0;
    if (judge_run(r->c, "rn_fill_rows", (unsigned)back.count, RN_THREADS, rn_fill_rows_body{r->g, back, rf.d_in},
                  {{rf.d_in, r->g.rows * r->g.cols * sizeof(float)}}))
        return -1;
    return ok;
}

/* After a kernel's last sample: the input must be as generated. */
static int rn_after(void *arg, char *msg, size_t len)
{
    struct rrun *r = (struct rrun *)arg;
    return input_verdict(rn_changed(r->c, r->g), r->reference ? INPUT_TIMING_REFERENCE : INPUT_TIMING, &rn_words,
                         msg, len);
}

static int rn_timed(struct ctx *c, const struct perf_case *pc, struct perf *p)
{
    struct test *t = &c->r->tests[c->r->ntests];
    static struct rrun r;       /* static: large (the probe rows, two plans) */
    unsigned lo, hi;
    int rc;

    if (rn_kind_range(pc->input, &lo, &hi))
        return perf_kind_unknown(c, pc, "wide, narrow");
    memset(&r, 0, sizeof r);
    r.c = c;
    r.g.seed = c->o->seed;
    r.g.salt = case_salt(pc);
    r.g.rows = pc->n;
    r.g.cols = rn_case_cols(c->o->seed, pc, lo, hi);
    r.call = rn_call_of(c, r.g.rows, r.g.cols);
    snprintf(t->name, sizeof t->name, "timed %.16s (cols=%u)", pc->label, r.g.cols);
    struct timed tm = {rn_prepare, rn_call, rn_verify, &r, &r.reference, rn_after, NULL};

    if (rn_generate(c, r.g))
        return -1;
    if ((rc = measure_both(c, &tm, p, t)) != 0)
        return rc < 0 ? -1 : 0;
    /* Bytes that must move: the matrix read once and written once. */
    p->bytes = 2.0 * (double)(r.g.rows * r.g.cols) * sizeof(float);
    p->rate_unit = "Gfloat/s";
    perf_finish(c, &family_impl, p, (double)(r.g.rows * r.g.cols));
    return 0;
}

/* One call on about n elements: rows of 1000. */
static int rn_profile(struct ctx *c, unsigned long long n)
{
    rgen g = {c->o->seed, 4242, std::max(1ull, n / 1000), 1000};
    if (rn_generate(c, g) || rn_poison(c, g.rows * g.cols, rn_poison_bits(poison_bits()), 1))
        return -1;
    struct call call = rn_call_of(c, g.rows, g.cols);
    return student_profile(c, &call);
}

const struct family family_impl = {FAMILY_ROWNORM, "harness warp butterfly normaliser", 1, 0,
                                   rn_setup, rn_trial, rn_timed, rn_profile, rn_teardown, NULL, 0, NULL};

} /* namespace hx */
