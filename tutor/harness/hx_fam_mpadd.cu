/* hx_fam_mpadd.cu — family mpadd (lab 10): r = a + b for count 1024-bit
 * numbers of 32 little-endian 32-bit limbs, and the carry out of each.
 *
 * Inputs are generated on the device from (seed, salt, number, limb) with
 * integer hashing only, so the CPU reference and the input-unchanged check
 * regenerate them bit for bit.  Each number of a correctness trial takes one
 * of the patterns below (chosen by hash; the first nine numbers take every
 * pattern once, so any count >= 9 has them all), and a and b are swapped on a
 * coin flip:
 *     random                      a, b random
 *     full ripple                 a = all ones, b = 1: r = 0, carry out 1
 *     not                         a = ~b: r = all ones, no carry anywhere
 *     not plus one                a = ~b + 1 (b != 0): the carry of limb 0
 *                                 ripples to the top: r = 0, carry out 1
 *     stop midway                 no carries below limb s, a carry made at s
 *                                 that ripples up to limb m and stops there,
 *                                 random limbs above
 *     zero                        a = b = 0
 *     ones                        a = b = all ones: every limb makes a carry
 *     top                         random with both top bits set: carry out 1
 *     ripple from random          limb 0 makes a carry with a random r_0,
 *                                 limbs 1..31 are a = ~b: full ripple, r_0
 *                                 random, r_1..31 = 0, carry out 1
 * Timed inputs are all "random" or all "ripple from random" (the catalog's
 * input kinds "random" and "ripple"): the seed's vote + shuffle loop needs 32
 * rounds on the second.
 *
 * The check is exact: every limb of r and every carry_out.  Outputs are
 * poisoned first (r with random limbs, never the right ones, carry_out with
 * 0xa5a5a5a5, which is never a carry), and a guard of GUARD numbers past
 * the end of r and carry_out must stay untouched.
 */
#include <atomic>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "../lab.h"
#include "hx.h"

namespace hx {

enum { MP_THREADS = 256, LIMBS = LAB_MP_LIMBS, GUARD = 64 };
static const uint32_t POISON = 0xa5a5a5a5u;

/* Limb q of a call's poison: random under a key drawn from the operating
 * system for that call, never the right limb, and nothing computed from it
 * (the complement of the sum, as it once was, gives the sum away). */
static uint32_t random_limb(uint64_t key, uint64_t q, uint32_t right)
{
    uint32_t p = (uint32_t)(draw(key, 0x9015, q) >> 32);
    return p == right ? p ^ 1u : p;
}

/* ---- inputs --------------------------------------------------------------- */

enum mp_kind { MP_MIXED, MP_RANDOM, MP_RIPPLE };
enum {
    PAT_RANDOM, PAT_FULL_RIPPLE, PAT_NOT, PAT_NOT_PLUS_ONE, PAT_STOP, PAT_ZERO, PAT_ONES,
    PAT_TOP, PAT_RIPPLE_ANY, NPAT
};

/* Everything that determines one pair of input arrays. */
struct mgen {
    uint64_t seed, salt;
    unsigned long long count;
    int kind;                   /* enum mp_kind */
};

/* Limb j of number i of a (which 0) or b (which 1): 32 random bits.  Index
 * i << 7 is the number's own hash; limbs use i << 7 | 64 | ..., never equal. */
__host__ __device__ static inline uint32_t mp_rand(const mgen &g, unsigned long long i, int which, int j)
{
    return (uint32_t)(draw(g.seed, g.salt, (uint64_t)i << 7 | 64u | (uint64_t)which << 5 | (uint64_t)j) >> 32);
}

__host__ __device__ static inline void mp_limb(const mgen &g, unsigned long long i, int j,
                                               uint32_t *pa, uint32_t *pb)
{
    uint64_t h = draw(g.seed, g.salt, (uint64_t)i << 7);
    int p;
    if (g.kind == MP_RANDOM)
        p = PAT_RANDOM;
    else if (g.kind == MP_RIPPLE)
        p = PAT_RIPPLE_ANY;
    else if (i < NPAT)
        p = (int)((i + below(mix(g.seed ^ g.salt), NPAT)) % NPAT);
    else
        p = (int)below(h, NPAT);

    uint32_t x = mp_rand(g, i, 0, j), y = mp_rand(g, i, 1, j), a, b;
    switch (p) {
    case PAT_RANDOM:
        a = x;
        b = y;
        break;
    case PAT_FULL_RIPPLE:
        a = 0xffffffffu;
        b = j == 0 ? 1u : 0u;
        break;
    case PAT_NOT:
        a = ~y;
        b = y;
        break;
    case PAT_NOT_PLUS_ONE:
        b = j == 0 && y == 0 ? 1u : y;
        a = j == 0 ? 0u - b : ~b;       /* limb 0: a + b = 2^32 */
        break;
    case PAT_STOP: {
        int s = (int)((h >> 8) & 15);                   /* starts at limb s in [0, 16) */
        int m = s + 1 + (int)below(mix(h), 31 - s);     /* stops at limb m in (s, 31] */
        if (j < s || j == m) {          /* a + b + 1 < 2^32: no carry out of these */
            a = x >> 1;
            b = y >> 1;
        } else if (j == s) {            /* a + b = 2^32: makes a carry */
            b = y | 1u;
            a = 0u - b;
        } else if (j < m) {             /* a + b = 2^32 - 1: passes it on */
            a = ~y;
            b = y;
        } else {
            a = x;
            b = y;
        }
        break;
    }
    case PAT_ZERO:
        a = b = 0;
        break;
    case PAT_ONES:
        a = b = 0xffffffffu;
        break;
    case PAT_TOP:
        a = j == LIMBS - 1 ? x | 0x80000000u : x;
        b = j == LIMBS - 1 ? y | 0x80000000u : y;
        break;
    default:                            /* PAT_RIPPLE_ANY */
        if (j == 0) {                   /* a > t, a + b = 2^32 + t: r_0 = t, carry */
            a = x | 0x80000000u;
            b = (y >> 1) - a;
        } else {
            a = ~y;
            b = y;
        }
        break;
    }
    if (h & 16) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    *pa = a;
    *pb = b;
}

static __global__ void mp_fill(mgen g, uint32_t *a, uint32_t *b)
{
    size_t n = (size_t)g.count * LIMBS, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += stride) {
        uint32_t x, y;
        mp_limb(g, k / LIMBS, (int)(k % LIMBS), &x, &y);
        a[k] = x;
        b[k] = y;
    }
}

/* Counts limbs of a or b that differ from what mp_fill wrote; remembers the
 * first. */
static __global__ void mp_compare(mgen g, const uint32_t *a, const uint32_t *b,
                                  unsigned long long *bad, unsigned long long *first)
{
    size_t n = (size_t)g.count * LIMBS, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += stride) {
        uint32_t x, y;
        mp_limb(g, k / LIMBS, (int)(k % LIMBS), &x, &y);
        if (a[k] != x || b[k] != y) {
            atomicAdd(bad, 1ull);
            atomicMin(first, (unsigned long long)k);
        }
    }
}

/* ---- the CPU reference ---------------------------------------------------- */

/* r = a + b over LIMBS limbs; returns the carry out. */
static uint32_t mp_add(const uint32_t *a, const uint32_t *b, uint32_t *r)
{
    uint64_t c = 0;
    for (int j = 0; j < LIMBS; j++) {
        uint64_t s = (uint64_t)a[j] + b[j] + c;
        r[j] = (uint32_t)s;
        c = s >> 32;
    }
    return (uint32_t)c;
}

static void mp_number(const mgen &g, unsigned long long i, uint32_t *a, uint32_t *b)
{
    for (int j = 0; j < LIMBS; j++)
        mp_limb(g, i, j, &a[j], &b[j]);
}

static uint32_t mp_expect(const mgen &g, unsigned long long i, uint32_t *r)
{
    uint32_t a[LIMBS], b[LIMBS];
    mp_number(g, i, a, b);
    return mp_add(a, b, r);
}

/* How number i of a result is wrong, for the messages. */
struct mp_wrong {
    unsigned long long i;
    int limb;                   /* the first wrong limb, -1: all limbs right */
    uint32_t want, got;         /* that limb */
    uint32_t want_c, got_c;     /* the carry out */
};

/* Compares a result number with the expected one; 1 when right. */
static int mp_same(unsigned long long i, const uint32_t *want, uint32_t want_c,
                   const uint32_t *got, uint32_t got_c, struct mp_wrong *w)
{
    w->i = i;
    w->limb = -1;
    w->want = w->got = 0;
    w->want_c = want_c;
    w->got_c = got_c;
    for (int j = 0; j < LIMBS; j++)
        if (got[j] != want[j]) {
            w->limb = j;
            w->want = want[j];
            w->got = got[j];
            break;
        }
    return w->limb < 0 && got_c == want_c;
}

/* "limb 3 expected 0x00000000, got 0xffffffff (...); carry_out ..." */
static void mp_describe(const struct mp_wrong *w, char *buf, size_t len)
{
    char limb[128], carry[96];
    if (w->limb < 0)
        snprintf(limb, sizeof limb, "every limb right");
    else
        snprintf(limb, sizeof limb, "limb %d expected 0x%08x, got 0x%08x%s", w->limb, w->want,
                 w->got, w->got == POISON ? " (the poison: never written)" : "");
    if (w->got_c == w->want_c)
        snprintf(carry, sizeof carry, "carry_out right (%u)", w->want_c);
    else
        snprintf(carry, sizeof carry, "carry_out expected %u, got %u%s", w->want_c, w->got_c,
                 w->got_c == POISON ? " (the poison: never written)" : "");
    snprintf(buf, len, "%.100s; %.90s", limb, carry);
}

/* Checks a whole result on the host, split across cores: counts the wrong
 * numbers and remembers the first.  Number `over` was last computed from
 * changed limbs: its expected sum is over_r and over_c. */
struct mp_all {
    const mgen *g;
    const uint32_t *r, *carry;
    unsigned long long over;
    const uint32_t *over_r;
    uint32_t over_c;
    std::atomic<unsigned long long> *first;
};

static double mp_chunk(unsigned long long lo, unsigned long long hi, const void *arg)
{
    const struct mp_all *m = (const struct mp_all *)arg;
    uint32_t want[LIMBS];
    struct mp_wrong w;
    double bad = 0;
    for (unsigned long long i = lo; i < hi; i++) {
        uint32_t want_c;
        if (i == m->over) {
            memcpy(want, m->over_r, sizeof want);
            want_c = m->over_c;
        } else {
            want_c = mp_expect(*m->g, i, want);
        }
        if (!mp_same(i, want, want_c, m->r + i * LIMBS, m->carry[i], &w)) {
            bad++;
            unsigned long long f = m->first->load();
            while (i < f && !m->first->compare_exchange_weak(f, i)) {
            }
        }
    }
    return bad;
}

/* ---- the reference kernel ------------------------------------------------- */

/* The lecture's loop: one warp per number, lane j holds limb j; carries move
 * up one lane per round while any lane has one.  Lane 31's carry, before each
 * shift, is the carry out (at most one round has one). */
static __global__ void __launch_bounds__(MP_THREADS)
mp_ref(const uint32_t *a, const uint32_t *b, uint32_t *r, uint32_t *carry_out, unsigned count)
{
    const unsigned full = 0xffffffffu;
    unsigned lane = threadIdx.x & 31;
    size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    size_t warps = (size_t)gridDim.x * blockDim.x / 32;

    /* i is the same for the whole warp: the loop and the votes are uniform. */
    for (size_t i = warp; i < count; i += warps) {
        size_t k = i * LIMBS + lane;
        uint32_t x = a[k], s = x + b[k];
        uint32_t c = s < x, out = 0;
        while (__any_sync(full, c)) {
            out |= c;                   /* lane 31's is the carry out */
            c = __shfl_up_sync(full, c, 1);
            if (lane == 0)
                c = 0;
            s += c;
            c = s < c;
        }
        r[k] = s;
        if (lane == 31)
            carry_out[i] = out;
    }
}

/* ---- the family ----------------------------------------------------------- */

static struct {
    uint32_t *d_a, *d_b, *d_r, *d_carry;    /* (cap + GUARD) numbers each */
    unsigned long long cap;
    unsigned long long *d_bad;              /* [0] count, [1] first limb */
    int grid, ref_grid;
    std::vector<uint32_t> want_r, want_c, buf_r, buf_c;     /* host copies */
} mf;

static int generate(struct ctx *c, const mgen &g)
{
    mp_fill<<<mf.grid, MP_THREADS, 0, c->s>>>(g, mf.d_a, mf.d_b);
    HX_CHECK(cudaGetLastError());
    return 0;
}

/* Returns the number of input limbs that changed, or -1. */
static long long changed(struct ctx *c, const mgen &g, unsigned long long *first)
{
    unsigned long long h[2] = {0, ~0ull};
    HX_CHECK(cudaMemcpyAsync(mf.d_bad, h, sizeof h, cudaMemcpyHostToDevice, c->s));
    mp_compare<<<mf.grid, MP_THREADS, 0, c->s>>>(g, mf.d_a, mf.d_b, mf.d_bad, mf.d_bad + 1);
    HX_CHECK(cudaGetLastError());
    HX_CHECK(cudaMemcpyAsync(h, mf.d_bad, sizeof h, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));
    *first = h[1];
    return (long long)h[0];
}

static int mp_setup(struct ctx *c, unsigned long long max_n)
{
    size_t limbs = (size_t)(max_n + GUARD) * LIMBS;
    int per_sm = 0;

    mf.cap = max_n;
    mf.grid = c->r->dev.sms * 8;
    HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mp_ref, MP_THREADS, 0));
    mf.ref_grid = c->r->dev.sms * (per_sm > 0 ? per_sm : 1);
    HX_CHECK(cudaMalloc(&mf.d_a, limbs * sizeof(uint32_t)));
    HX_CHECK(cudaMalloc(&mf.d_b, limbs * sizeof(uint32_t)));
    HX_CHECK(cudaMalloc(&mf.d_r, limbs * sizeof(uint32_t)));
    HX_CHECK(cudaMalloc(&mf.d_carry, (size_t)(max_n + GUARD) * sizeof(uint32_t)));
    HX_CHECK(cudaMalloc(&mf.d_bad, 2 * sizeof(unsigned long long)));
    return 0;
}

static void mp_teardown(struct ctx *)
{
    cudaFree(mf.d_a);
    cudaFree(mf.d_b);
    cudaFree(mf.d_r);
    cudaFree(mf.d_carry);
    cudaFree(mf.d_bad);
}

static struct call mp_call_of(const struct ctx *c, unsigned long long n)
{
    return call_make(c, PLAN_MPADD, (unsigned)n, mf.d_a, mf.d_b, mf.d_r, mf.d_carry);
}

static int mp_trial(struct ctx *c, unsigned long long n, int k, struct test *t)
{
    mgen g = {c->o->seed, 1 + (uint64_t)k, n, MP_MIXED};
    size_t nl = (size_t)n * LIMBS, gl = (size_t)GUARD * LIMBS;
    unsigned long long carries = 0, bad = 0, first;
    struct mp_wrong w0 = {0, -1, 0, 0, 0, 0}, w;

    /* The expected sums; the poison, random, then the guard. */
    uint64_t key = poison_bits();
    mf.want_r.resize(nl);
    mf.want_c.resize(n);
    mf.buf_r.resize(nl + gl);
    mf.buf_c.resize(n + GUARD);
    for (unsigned long long i = 0; i < n; i++) {
        mf.want_c[i] = mp_expect(g, i, &mf.want_r[i * LIMBS]);
        carries += mf.want_c[i];
    }
    for (size_t q = 0; q < nl; q++)
        mf.buf_r[q] = random_limb(key, q, mf.want_r[q]);
    for (size_t q = nl; q < nl + gl; q++)
        mf.buf_r[q] = POISON;

    if (generate(c, g))
        return -1;
    HX_CHECK(cudaMemcpyAsync(mf.d_r, mf.buf_r.data(), (nl + gl) * sizeof(uint32_t),
                             cudaMemcpyHostToDevice, c->s));
    HX_CHECK(cudaMemsetAsync(mf.d_carry, 0xa5, (n + GUARD) * sizeof(uint32_t), c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));      /* buf_r is read again below */
    struct call call = mp_call_of(c, n);
    if (student_run(c, &call))
        return -1;
    HX_CHECK(cudaGetLastError());
    HX_CHECK(cudaMemcpyAsync(mf.buf_r.data(), mf.d_r, (nl + gl) * sizeof(uint32_t),
                             cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaMemcpyAsync(mf.buf_c.data(), mf.d_carry, (n + GUARD) * sizeof(uint32_t),
                             cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));

    snprintf(t->expected, sizeof t->expected, "%llu sums, %llu with carry out", n, carries);
    for (unsigned long long i = 0; i < n; i++)
        if (!mp_same(i, &mf.want_r[i * LIMBS], mf.want_c[i], &mf.buf_r[i * LIMBS], mf.buf_c[i], &w)
            && bad++ == 0)
            w0 = w;
    if (bad) {
        char how[200];
        mp_describe(&w0, how, sizeof how);
        if (w0.limb >= 0) {
            snprintf(t->expected, sizeof t->expected, "number %llu limb %d: 0x%08x", w0.i, w0.limb, w0.want);
            snprintf(t->got, sizeof t->got, "0x%08x", w0.got);
        } else {
            snprintf(t->expected, sizeof t->expected, "number %llu carry_out: %u", w0.i, w0.want_c);
            snprintf(t->got, sizeof t->got, "%u", w0.got_c);
        }
        test_fail(t, "%llu of %llu number(s) wrong; the first, number %llu: %s", bad, n, w0.i, how);
        return 0;
    }
    snprintf(t->got, sizeof t->got, "%s", t->expected);

    for (size_t q = nl; q < nl + gl; q++)
        if (mf.buf_r[q] != POISON) {
            test_fail(t, "wrote past the end of r: limb %zu of number %llu changed, but count is %llu",
                      (q - nl) % LIMBS, n + (q - nl) / LIMBS, n);
            return 0;
        }
    for (unsigned long long i = n; i < n + GUARD; i++)
        if (mf.buf_c[i] != POISON) {
            test_fail(t, "wrote past the end of carry_out: carry_out[%llu] changed, but count is %llu", i, n);
            return 0;
        }

    long long changed_limbs = changed(c, g, &first);
    if (changed_limbs < 0)
        return -1;
    if (changed_limbs > 0)
        test_fail(t, "the input was modified: %lld limb(s) of a or b differ, the first in number %llu (limb %llu)",
                  changed_limbs, first / LIMBS, first % LIMBS);
    return 0;
}

/* ---- timing ---- */

struct mrun {
    struct ctx *c;
    mgen g, other;              /* the case's inputs; where changed numbers come from */
    int reference;              /* 1: time the harness's kernel */
    unsigned long long idx;     /* the number changed for this sample */
    uint32_t na[LIMBS], nb[LIMBS], nr[LIMBS], nc;   /* its new limbs and sum */
    uint32_t poison[LIMBS];
    uint32_t oa[LIMBS], ob[LIMBS];                  /* its original limbs */
    struct call call;
    struct plan plan, first;    /* this sample's plan; the case's first */
    int have_first;
};

/* Each sample replaces one number, at a random place, with another of the
 * case's kind, and poisons every output: a result computed once and copied,
 * or left from an earlier call, is wrong. */
static int mp_prepare(void *arg, int k)
{
    struct mrun *r = (struct mrun *)arg;
    struct ctx *c = r->c;
    size_t nl = (size_t)r->g.count * LIMBS;
    uint64_t key = poison_bits();

    r->idx = below(draw(r->g.seed, r->g.salt ^ 0xabcdef, (uint64_t)k), (uint32_t)r->g.count);
    mp_number(r->other, (unsigned long long)k, r->na, r->nb);
    r->nc = mp_add(r->na, r->nb, r->nr);
    for (int j = 0; j < LIMBS; j++)
        r->poison[j] = random_limb(key, (uint64_t)j, r->nr[j]);
    /* Pageable sources: each copy has read its source when it returns. */
    HX_CHECK(cudaMemcpyAsync(mf.d_a + r->idx * LIMBS, r->na, sizeof r->na, cudaMemcpyHostToDevice, c->s));
    HX_CHECK(cudaMemcpyAsync(mf.d_b + r->idx * LIMBS, r->nb, sizeof r->nb, cudaMemcpyHostToDevice, c->s));
    HX_CHECK(cudaMemsetAsync(mf.d_r, 0xa5, nl * sizeof(uint32_t), c->s));
    HX_CHECK(cudaMemsetAsync(mf.d_carry, 0xa5, r->g.count * sizeof(uint32_t), c->s));
    HX_CHECK(cudaMemcpyAsync(mf.d_r + r->idx * LIMBS, r->poison, sizeof r->poison,
                             cudaMemcpyHostToDevice, c->s));
    if (!r->reference && plan_sample(c, &r->call, &r->plan, &r->first, &r->have_first))
        return -1;
    return 0;
}

static int mp_call(void *arg)
{
    struct mrun *r = (struct mrun *)arg;
    if (r->reference) {
        unsigned long long warps = r->g.count, blocks = (warps + MP_THREADS / 32 - 1) / (MP_THREADS / 32);
        if (blocks > (unsigned long long)mf.ref_grid)
            blocks = (unsigned long long)mf.ref_grid;
        mp_ref<<<(unsigned)blocks, MP_THREADS, 0, r->c->s>>>(mf.d_a, mf.d_b, mf.d_r, mf.d_carry,
                                                             (unsigned)r->g.count);
        HX_CHECK(cudaGetLastError());
    } else if (student_replay(r->c, &r->plan)) {
        return -1;
    }
    return 0;
}

/* Checks the changed number, then puts its original limbs back. */
static int mp_verify(void *arg, int k, char *msg, size_t len)
{
    struct mrun *r = (struct mrun *)arg;
    uint32_t got[LIMBS], got_c;
    struct mp_wrong w;

    HX_CHECK(cudaMemcpy(got, mf.d_r + r->idx * LIMBS, sizeof got, cudaMemcpyDeviceToHost));
    HX_CHECK(cudaMemcpy(&got_c, mf.d_carry + r->idx, sizeof got_c, cudaMemcpyDeviceToHost));
    mp_number(r->g, r->idx, r->oa, r->ob);
    HX_CHECK(cudaMemcpy(mf.d_a + r->idx * LIMBS, r->oa, sizeof r->oa, cudaMemcpyHostToDevice));
    HX_CHECK(cudaMemcpy(mf.d_b + r->idx * LIMBS, r->ob, sizeof r->ob, cudaMemcpyHostToDevice));
    if (mp_same(r->idx, r->nr, r->nc, got, got_c, &w))
        return 1;
    char how[200];
    mp_describe(&w, how, sizeof how);
    snprintf(msg, len, "%s sample %d (number %llu changed since the last call): %s",
             r->reference ? "the reference" : "timed", k, r->idx, how);
    return 0;
}

/* After a timing loop: every number of the last call's result, on the host.
 * The last sample's changed number has its original limbs back in a and b,
 * but r and carry_out still hold its sum with the changed limbs. */
static int mp_check_all(struct mrun *r, char *msg, size_t len)
{
    size_t nl = (size_t)r->g.count * LIMBS;
    std::atomic<unsigned long long> first(~0ull);
    struct mp_all m = {&r->g, NULL, NULL, r->idx, r->nr, r->nc, &first};
    uint32_t want[LIMBS], want_c;
    struct mp_wrong w;

    mf.buf_r.resize(nl);
    mf.buf_c.resize(r->g.count);
    HX_CHECK(cudaMemcpy(mf.buf_r.data(), mf.d_r, nl * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    HX_CHECK(cudaMemcpy(mf.buf_c.data(), mf.d_carry, r->g.count * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    m.r = mf.buf_r.data();
    m.carry = mf.buf_c.data();
    double bad = host_parallel_sum(r->g.count, mp_chunk, &m);
    if (bad == 0)
        return 1;
    unsigned long long i = first.load();
    if (i == r->idx) {
        memcpy(want, r->nr, sizeof want);
        want_c = r->nc;
    } else {
        want_c = mp_expect(r->g, i, want);
    }
    mp_same(i, want, want_c, &mf.buf_r[i * LIMBS], mf.buf_c[i], &w);
    char how[200];
    mp_describe(&w, how, sizeof how);
    snprintf(msg, len, "%s: %.0f of %llu numbers wrong after the last call; number %llu: %.120s",
             r->reference ? "the reference" : "timed", bad, r->g.count, i, how);
    return 0;
}

static int mp_after(void *arg, char *msg, size_t len)
{
    return mp_check_all((struct mrun *)arg, msg, len);
}

static int mp_kind_of(const char *s)
{
    if (!s[0] || !strcmp(s, "random"))
        return MP_RANDOM;
    if (!strcmp(s, "ripple"))
        return MP_RIPPLE;
    if (!strcmp(s, "mixed"))
        return MP_MIXED;
    return -1;
}

static int mp_timed(struct ctx *c, const struct perf_case *pc, struct perf *p)
{
    struct test *t = &c->r->tests[c->r->ntests];
    int kind = mp_kind_of(pc->input);
    unsigned long long first;
    int rc;

    if (kind < 0) {
        note(c->r, "internal: perf case %s: unknown input kind \"%s\" (random, ripple, mixed)",
             pc->label, pc->input);
        return -1;
    }
    static struct mrun r;       /* static: prepare's async copies read its arrays */
    memset(&r, 0, sizeof r);
    r.c = c;
    r.g.seed = c->o->seed;
    r.g.salt = case_salt(pc);
    r.g.count = pc->n;
    r.g.kind = kind;
    r.other = r.g;
    r.other.salt += 0x5eed;
    r.call = mp_call_of(c, pc->n);
    struct timed tm = {mp_prepare, mp_call, mp_verify, &r, &r.reference, mp_after, NULL};

    if (generate(c, r.g))
        return -1;
    if ((rc = measure_both(c, &tm, p, t)) != 0)
        return rc < 0 ? -1 : 0;
    long long bad = changed(c, r.g, &first);
    if (bad < 0)
        return -1;
    if (bad > 0) {
        test_fail(t, "the input was modified while timing: %lld limb(s) of a or b differ", bad);
        return 0;
    }
    p->bytes = (double)pc->n * (3.0 * LIMBS * sizeof(uint32_t) + sizeof(uint32_t));
    p->rate_unit = "Gnum/s";
    perf_finish(c, &family_impl, p, (double)pc->n);
    return 0;
}

static int mp_profile(struct ctx *c, unsigned long long n)
{
    mgen g = {c->o->seed, 4242, n, MP_MIXED};
    if (generate(c, g))
        return -1;
    HX_CHECK(cudaMemsetAsync(mf.d_r, 0xa5, (size_t)n * LIMBS * sizeof(uint32_t), c->s));
    HX_CHECK(cudaMemsetAsync(mf.d_carry, 0xa5, (size_t)n * sizeof(uint32_t), c->s));
    static struct plan plan;
    struct call call = mp_call_of(c, n);
    if (student_plan(c, &call, &plan))
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

const struct family family_impl = {"mpadd", PLAN_MPADD, "harness vote + shuffle carry loop", 1, 0, mp_setup,
                                   mp_trial, mp_timed, mp_profile, mp_teardown, NULL};

} /* namespace hx */
