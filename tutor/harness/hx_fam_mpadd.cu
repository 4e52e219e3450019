/* hx_fam_mpadd.cu — family mpadd (lab 10): r = a + b for count 1024-bit
 * numbers of 32 little-endian 32-bit limbs, and the carry out of each.
 *
 * Inputs (hx_mpgen.cuh) are built from carry chains: every number has a
 * chain of a drawn length 0..32 at a drawn place among random limbs, and
 * every input of 33 numbers or more has every length, in trials and in
 * every timed case alike.  They are generated on the device from (seed,
 * salt, number, limb) with integer hashing only, so the CPU reference and
 * the input-unchanged check regenerate them bit for bit.
 *
 * A trial's check is exact and on the CPU: every limb of r and every
 * carry_out.  The outputs arrive poisoned with random bits under a key the
 * operating system gives for that call (never the right value, nothing
 * computed from the answer), and the rest of the allocations of r and
 * carry_out past their ends, fresh bits (hx_poison.cuh), must stay
 * untouched.  Each trial also holds the judge's
 * GPU check (below) to the CPU: it must find every number of the poison
 * wrong and none of a right result.
 *
 * Every timed call is verified whole.  Before it, MP_CHANGES numbers at
 * random places get new limbs that change their sums (chains made, joined,
 * cut, or another number), and a kernel of the judge writes fresh poison
 * into all of r and carry_out; after it, one kernel adds every number again
 * with the judge's own carry-lookahead (hx_mpgen.cuh's mp_carries) and
 * compares, and the changed numbers and a few more at random places come
 * back to the CPU to be checked against its own sums.  Then the changed
 * numbers get their generated limbs back, and after each kernel's last
 * sample the whole input must be as generated.  Only the student's call
 * lies between the timing events.
 */
#include <stdio.h>
#include <string.h>
#include <vector>

#include "hx_core.cuh"
#include "hx_mpgen.cuh"
#include "hx_poison.cuh"

namespace hx {

enum { MP_THREADS = 256, LIMBS = MP_LIMBS, GUARD = 64, MP_SPOTS = 8, MP_PROBES = MP_CHANGES + MP_SPOTS };
static const unsigned FULL = 0xffffffffu;

/* ---- device code ----------------------------------------------------------- */

/* Limb k of a and of b as g describes them (k counts limbs: number
 * k / LIMBS, its limb k % LIMBS). */
__host__ __device__ static inline void mp_limbs_at(const mgen &g, unsigned long long k, uint32_t *x, uint32_t *y)
{
    unsigned long long i = k / LIMBS;
    mlay l;
    mp_layout(g, i, &l);
    mp_limb(g, &l, i, (int)(k % LIMBS), x, y);
}

/* Writes the numbers g describes into a and b. */
struct mp_fill_body {
    mgen g;
    uint32_t *a, *b;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        unsigned long long n = g.count * LIMBS;
        for (unsigned long long k = t; k < n; k += stride)
            mp_limbs_at(g, k, &a[k], &b[k]);
    }
};

/* Counts limbs of a or b that differ from what mp_fill_body wrote;
 * remembers the first. */
struct mp_compare_body {
    mgen g;
    const uint32_t *a, *b;
    unsigned long long *bad, *first;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        unsigned long long n = g.count * LIMBS;
        for (unsigned long long k = t; k < n; k += stride) {
            uint32_t x, y;
            mp_limbs_at(g, k, &x, &y);
            if (a[k] != x || b[k] != y)
                judge_flag(bad, first, k);
        }
    }
};

/* The judge's adder, limb j of x + y: the limb's own sum s, whether it
 * generates a carry (bit j of g) or passes one on (bit j of p); then, from
 * mp_carries(g, p) = cin, limb j of the sum and the carry out.  A GPU has
 * lane j of a warp work out limb j and the ballots gather g and p, the
 * same cost for every chain; natively one loop gathers them. */
__host__ __device__ static inline uint32_t mp_limb_sum(uint32_t x, uint32_t y, int *gen, int *prop)
{
    uint32_t s = x + y;
    *gen = s < x;
    *prop = s == 0xffffffffu;
    return s;
}
__host__ __device__ static inline uint32_t mp_limb_result(uint32_t s, uint64_t cin, unsigned lane)
{
    return s + (uint32_t)((cin >> lane) & 1u);
}

#ifdef __CUDA_ARCH__
/* Lane's limb of the sum of the warp's number; *out its carry out. */
static __device__ __forceinline__ uint32_t mp_warp_add(uint32_t x, uint32_t y, unsigned lane, uint32_t *out)
{
    int gen, prop;
    uint32_t s = mp_limb_sum(x, y, &gen, &prop);
    uint64_t cin = mp_carries(__ballot_sync(FULL, gen), __ballot_sync(FULL, prop));
    *out = (uint32_t)(cin >> 32);
    return mp_limb_result(s, cin, lane);
}
#endif

/* The same sum natively, all limbs of number x + y into r; returns the carry out. */
static inline uint32_t mp_host_add(const uint32_t *x, const uint32_t *y, uint32_t *r)
{
    uint32_t g = 0, p = 0, s[LIMBS];
    for (unsigned j = 0; j < LIMBS; j++) {
        int gen, prop;
        s[j] = mp_limb_sum(x[j], y[j], &gen, &prop);
        g |= (uint32_t)gen << j;
        p |= (uint32_t)prop << j;
    }
    uint64_t cin = mp_carries(g, p);
    for (unsigned j = 0; j < LIMBS; j++)
        r[j] = mp_limb_result(s[j], cin, j);
    return (uint32_t)(cin >> 32);
}

/* The judge's sums of a + b, for a body B that derives from mp_sums<B> and
 * has a, b and count: every number added again, one warp per number on a
 * GPU (i is the same for the whole warp: the ballots see all 32 lanes), one
 * number at a time natively.  B::limb(i, lane, right, out) gets each limb's
 * right value and the number's carry out, and says whether the limb is
 * wrong; B::wrong_number(i) runs once for a number with a wrong limb. */
template <typename B> struct mp_sums {
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        const B &d = *static_cast<const B *>(this);
#ifdef __CUDA_ARCH__
        unsigned lane = (unsigned)(t & 31);
        for (unsigned long long i = t / 32; i < d.count; i += stride / 32) {
            size_t k = i * LIMBS + lane;
            uint32_t out, right = mp_warp_add(d.a[k], d.b[k], lane, &out);
            if (__any_sync(FULL, d.limb(i, lane, right, out)) && lane == 0)
                d.wrong_number(i);
        }
#else
        (void)d;
        (void)t;
        (void)stride;
#endif
    }
    void host() const
    {
        const B &d = *static_cast<const B *>(this);
        for (unsigned long long i = 0; i < d.count; i++) {
            uint32_t right[LIMBS], out = mp_host_add(d.a + i * LIMBS, d.b + i * LIMBS, right);
            int any = 0;
            for (unsigned lane = 0; lane < LIMBS; lane++)
                any |= d.limb(i, lane, right[lane], out);
            if (any)
                d.wrong_number(i);
        }
    }
};

/* Writes a call's poison: every limb of r and every carry random under the
 * key, drawn again where it would be right.  The sums are worked out only
 * for that. */
struct mp_poison_body : mp_sums<mp_poison_body> {
    const uint32_t *a, *b;
    uint32_t *r, *carry_out;
    unsigned long long count;
    uint64_t key;
    /* Limb lane of number i, whose right limb there is right and carry out
     * out: poisoned, never wrong. */
    __host__ __device__ int limb(unsigned long long i, unsigned lane, uint32_t right, uint32_t out) const
    {
        r[i * LIMBS + lane] = mp_poison(key, i * LIMBS + lane, right);
        if (lane == 0)
            carry_out[i] = mp_poison(mp_carry_key(key), i, out);
        return 0;
    }
    __host__ __device__ void wrong_number(unsigned long long) const {}
};

/* What one check brings back to the host: the wrong numbers, and the limbs
 * of a few numbers (the host names which) for the CPU to check itself. */
struct mp_probe {
    unsigned long long bad, first;          /* wrong numbers, the first of them */
    unsigned long long idx[MP_PROBES];
    uint32_t a[MP_PROBES][LIMBS], b[MP_PROBES][LIMBS], r[MP_PROBES][LIMBS], c[MP_PROBES];
};

/* Numbers the host writes into a and b. */
struct mp_patch {
    unsigned long long idx[MP_CHANGES];
    uint32_t a[MP_CHANGES][LIMBS], b[MP_CHANGES][LIMBS];
};

/* Adds every number again and compares with r and carry_out; one atomic
 * per wrong number on a GPU. */
struct mp_check_body : mp_sums<mp_check_body> {
    const uint32_t *a, *b, *r, *carry_out;
    unsigned long long count;
    struct mp_probe *res;
    /* Whether limb lane of number i is wrong, its right limb being right
     * and the number's carry out out. */
    __host__ __device__ int limb(unsigned long long i, unsigned lane, uint32_t right, uint32_t out) const
    {
        return r[i * LIMBS + lane] != right || (lane == 0 && carry_out[i] != out);
    }
    __host__ __device__ void wrong_number(unsigned long long i) const { judge_flag(&res->bad, &res->first, i); }
};

/* Copies nprobe probes' limbs of a, b, r and their carries out. */
struct mp_gather_body {
    struct mp_probe *res;
    const uint32_t *a, *b, *r, *carry_out;
    unsigned nprobe;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        for (unsigned long long q = t; q < (unsigned long long)nprobe * LIMBS; q += stride) {
            unsigned m = (unsigned)(q / LIMBS), lane = (unsigned)(q % LIMBS);
            size_t k = (size_t)res->idx[m] * LIMBS + lane;
            res->a[m][lane] = a[k];
            res->b[m][lane] = b[k];
            res->r[m][lane] = r[k];
            if (lane == 0)
                res->c[m] = carry_out[res->idx[m]];
        }
    }
};

/* Writes n patch numbers into a and b. */
struct mp_apply_body {
    const struct mp_patch *p;
    uint32_t *a, *b;
    unsigned n;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        for (unsigned long long q = t; q < (unsigned long long)n * LIMBS; q += stride) {
            unsigned m = (unsigned)(q / LIMBS), lane = (unsigned)(q % LIMBS);
            size_t k = (size_t)p->idx[m] * LIMBS + lane;
            a[k] = p->a[m][lane];
            b[k] = p->b[m][lane];
        }
    }
};

/* The lecture's loop, timed as the reference: one warp per number, lane j
 * holds limb j; carries move up one lane per round while any lane has one.
 * Lane 31's carry, before each shift, is the carry out (at most one round
 * has one). */
static __global__ void __launch_bounds__(MP_THREADS)
mp_ref(const uint32_t *a, const uint32_t *b, uint32_t *r, uint32_t *carry_out, unsigned count)
{
    unsigned lane = threadIdx.x & 31;
    size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    size_t warps = (size_t)gridDim.x * blockDim.x / 32;

    /* i is the same for the whole warp: the loop and the votes are uniform. */
    for (size_t i = warp; i < count; i += warps) {
        size_t k = i * LIMBS + lane;
        uint32_t x = a[k], s = x + b[k];
        uint32_t c = s < x, out = 0;
        while (__any_sync(FULL, c)) {
            out |= c;                   /* lane 31's is the carry out */
            c = __shfl_up_sync(FULL, c, 1);
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

/* ---- host side: what is wrong with a number --------------------------------- */

/* How number i of a result is wrong, for the messages. */
struct mp_wrong {
    unsigned long long i;
    int limb;                   /* the first wrong limb, -1: all limbs right */
    uint32_t want, got, pz;     /* that limb, and the poison it held */
    uint32_t want_c, got_c, pz_c;
};

/* Compares a result number with the expected one; 1 when right.  key is the
 * call's poison key, to tell a limb never written. */
static int mp_same(unsigned long long i, const uint32_t *want, uint32_t want_c, const uint32_t *got,
                   uint32_t got_c, uint64_t key, struct mp_wrong *w)
{
    w->i = i;
    w->limb = -1;
    w->want = w->got = w->pz = 0;
    w->want_c = want_c;
    w->got_c = got_c;
    w->pz_c = mp_poison(mp_carry_key(key), i, want_c);
    for (int j = 0; j < LIMBS; j++)
        if (got[j] != want[j]) {
            w->limb = j;
            w->want = want[j];
            w->got = got[j];
            w->pz = mp_poison(key, i * LIMBS + (unsigned long long)j, want[j]);
            break;
        }
    return w->limb < 0 && got_c == want_c;
}

/* "limb 3 expected 0x00000000, got 0xffffffff (...); carry_out ..." */
static void mp_describe(const struct mp_wrong *w, char *buf, size_t len)
{
    char limb[128], carry[112];
    if (w->limb < 0)
        snprintf(limb, sizeof limb, "every limb right");
    else
        snprintf(limb, sizeof limb, "limb %d expected 0x%08x, got 0x%08x%s", w->limb, w->want, w->got,
                 w->got == w->pz ? " (the poison: never written)" : "");
    if (w->got_c == w->want_c)
        snprintf(carry, sizeof carry, "carry_out right (%u)", w->want_c);
    else
        snprintf(carry, sizeof carry, "carry_out expected %u, got %u%s", w->want_c, w->got_c,
                 w->got_c == w->pz_c ? " (the poison: never written)" : "");
    snprintf(buf, len, "%.100s; %.100s", limb, carry);
}

/* ---- the family ----------------------------------------------------------- */

static struct {
    uint32_t *d_a, *d_b, *d_r, *d_carry;    /* (cap + GUARD) numbers each */
    unsigned long long cap;
    unsigned long long *d_bad;              /* [0] count, [1] first limb */
    struct mp_probe *d_probe;
    struct mp_patch *d_patch;
    int grid, ref_grid;
    std::vector<uint32_t> want_r, want_c, buf_r, buf_c;     /* host copies */
} mf;

/* Blocks for a warp-per-number kernel over count numbers. */
static unsigned warp_blocks(unsigned long long count)
{
    unsigned long long want = (count + MP_THREADS / 32 - 1) / (MP_THREADS / 32);
    return (unsigned)(want < (unsigned long long)mf.grid ? (want ? want : 1) : (unsigned long long)mf.grid);
}

static int generate(struct ctx *c, const mgen &g)
{
    size_t bytes = (size_t)g.count * LIMBS * sizeof(uint32_t);
    return judge_run(c, "mp_fill", mf.grid, MP_THREADS, mp_fill_body{g, mf.d_a, mf.d_b},
                     {{mf.d_a, bytes}, {mf.d_b, bytes}});
}

/* The first changed limb's place: its number and its limb. */
static void mp_place(char *buf, size_t len, unsigned long long first, unsigned long long)
{
    snprintf(buf, len, "in number %llu (limb %llu)", first / LIMBS, first % LIMBS);
}

static const struct input_words mp_words = {"limb(s) of a or b", mp_place};

/* The limbs of a and b against what mp_fill_body wrote. */
static struct input_diff changed(struct ctx *c, const mgen &g)
{
    return input_count(c, "mp_compare", mf.grid, MP_THREADS, mf.d_bad,
                       mp_compare_body{g, mf.d_a, mf.d_b, mf.d_bad, mf.d_bad + 1});
}

/* Runs the judge's check over count numbers and brings back its counts and
 * the limbs of the nprobe numbers in p->idx (into *p). */
static int mp_verify_all(struct ctx *c, unsigned long long count, struct mp_probe *p, int nprobe)
{
    p->bad = 0;
    p->first = ~0ull;
    HX_CHECK(cudaMemcpyAsync(mf.d_probe, p, offsetof(struct mp_probe, a), cudaMemcpyHostToDevice, c->s));
    if (judge_run(c, "mp_check", warp_blocks(count), MP_THREADS,
                  mp_check_body{{}, mf.d_a, mf.d_b, mf.d_r, mf.d_carry, count, mf.d_probe}, {{mf.d_probe, sizeof *p}}))
        return -1;
    if (nprobe > 0 &&
        judge_run(c, "mp_gather", (unsigned)nprobe, 32,
                  mp_gather_body{mf.d_probe, mf.d_a, mf.d_b, mf.d_r, mf.d_carry, (unsigned)nprobe},
                  {{mf.d_probe, sizeof *p}}))
        return -1;
    HX_CHECK(cudaMemcpyAsync(p, mf.d_probe, sizeof *p, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));
    return 0;
}

/* Writes n numbers into a and b. */
static int mp_write(struct ctx *c, const unsigned long long *idx, const uint32_t (*na)[LIMBS],
                    const uint32_t (*nb)[LIMBS], int n)
{
    static struct mp_patch up;
    if (n <= 0)
        return 0;
    memcpy(up.idx, idx, n * sizeof idx[0]);
    memcpy(up.a, na, n * sizeof na[0]);
    memcpy(up.b, nb, n * sizeof nb[0]);
    /* A pageable source: the copy has read it when it returns. */
    HX_CHECK(cudaMemcpyAsync(mf.d_patch, &up, sizeof up, cudaMemcpyHostToDevice, c->s));
    size_t bytes = (size_t)(mf.cap + GUARD) * LIMBS * sizeof(uint32_t);
    if (judge_run(c, "mp_apply", (unsigned)n, 32, mp_apply_body{mf.d_patch, mf.d_a, mf.d_b, (unsigned)n},
                  {{mf.d_a, bytes}, {mf.d_b, bytes}}))
        return -1;
    /* The student's code runs in this context and could read the patch: it
     * names the numbers that changed, all a kernel that keeps its earlier
     * sums would need to redo only those. */
    HX_CHECK(cudaMemsetAsync(mf.d_patch, 0, sizeof up, c->s));
    return 0;
}

static int mp_poison_on_device(struct ctx *c, unsigned long long count, uint64_t key)
{
    return judge_run(c, "mp_poison", warp_blocks(count), MP_THREADS,
                     mp_poison_body{{}, mf.d_a, mf.d_b, mf.d_r, mf.d_carry, count, key},
                     {{mf.d_r, (size_t)count * LIMBS * sizeof(uint32_t)}, {mf.d_carry, (size_t)count * sizeof(uint32_t)}});
}

static int mp_setup(struct ctx *c, unsigned long long max_n)
{
    size_t limbs = (size_t)(max_n + GUARD) * LIMBS;
    int per_sm = 0;

    mf.cap = max_n;
    mf.grid = c->r->dev.sms * 8;
    /* The timed reference's grid; a CPU judge times nothing, and asking
     * there would load the judge's PTX for no kernel of its own. */
    if (!c->r->emulated)
        HX_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, mp_ref, MP_THREADS, 0));
    mf.ref_grid = c->r->dev.sms * (per_sm > 0 ? per_sm : 1);
    HX_CHECK(cudaMalloc(&mf.d_a, limbs * sizeof(uint32_t)));
    HX_CHECK(cudaMalloc(&mf.d_b, limbs * sizeof(uint32_t)));
    HX_CHECK(cudaMalloc(&mf.d_r, limbs * sizeof(uint32_t)));
    HX_CHECK(cudaMalloc(&mf.d_carry, (size_t)(max_n + GUARD) * sizeof(uint32_t)));
    HX_CHECK(cudaMalloc(&mf.d_bad, 2 * sizeof(unsigned long long)));
    HX_CHECK(cudaMalloc(&mf.d_probe, sizeof(struct mp_probe)));
    HX_CHECK(cudaMalloc(&mf.d_patch, sizeof(struct mp_patch)));
    return 0;
}

static void mp_teardown(struct ctx *)
{
    device_free({mf.d_a, mf.d_b, mf.d_r, mf.d_carry, mf.d_bad, mf.d_probe, mf.d_patch});
}

static struct call mp_call_of(const struct ctx *c, unsigned long long n)
{
    return call_make(c, FAMILY_MPADD, (unsigned)n, mf.d_a, mf.d_b, mf.d_r, mf.d_carry);
}

static int mp_trial(struct ctx *c, unsigned long long n, int k, struct test *t)
{
    mgen g = {c->o->seed, 1 + (uint64_t)k, n, MP_MIXED};
    size_t nl = (size_t)n * LIMBS, gl = (size_t)GUARD * LIMBS;
    unsigned long long carries = 0, bad = 0;
    struct mp_wrong w0 = {0, -1, 0, 0, 0, 0, 0, 0}, w;
    static struct mp_probe probe;

    /* The expected sums; the poison, random, then past the ends fresh bits. */
    uint64_t key = poison_bits(), ckey = mp_carry_key(key), rkey = poison_bits(), tkey = poison_bits();
    size_t r_tail = ((size_t)mf.cap * LIMBS + gl - nl) * sizeof(uint32_t);
    size_t c_tail = ((size_t)mf.cap + GUARD - n) * sizeof(uint32_t);
    mf.want_r.resize(nl);
    mf.want_c.resize(n);
    mf.buf_r.resize(nl);
    mf.buf_c.resize(n);
    for (unsigned long long i = 0; i < n; i++) {
        uint32_t a[LIMBS], b[LIMBS];
        mp_number(g, i, a, b);
        mf.want_c[i] = mp_add(a, b, &mf.want_r[i * LIMBS]);
        carries += mf.want_c[i];
        mf.buf_c[i] = mp_poison(ckey, i, mf.want_c[i]);
    }
    for (size_t q = 0; q < nl; q++)
        mf.buf_r[q] = mp_poison(key, q, mf.want_r[q]);

    if (generate(c, g))
        return -1;
    HX_CHECK(cudaMemcpyAsync(mf.d_r, mf.buf_r.data(), nl * sizeof(uint32_t), cudaMemcpyHostToDevice, c->s));
    HX_CHECK(cudaMemcpyAsync(mf.d_carry, mf.buf_c.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, c->s));
    if (poison_fill(c, mf.d_r + nl, r_tail, rkey) || poison_fill(c, mf.d_carry + n, c_tail, tkey))
        return -1;
    /* The judge's GPU check on the poison: every number is wrong. */
    if (mp_verify_all(c, n, &probe, 0))
        return -1;
    if (probe.bad != n || probe.first != 0)
        return judge_internal(c, "the judge's GPU check found %llu of %llu poisoned numbers wrong (first %llu) "
                              "before the call (trial n=%llu)", probe.bad, n, probe.first, n);
    struct call call = mp_call_of(c, n);
    if (student_run(c, &call))
        return -1;
    HX_CHECK(cudaGetLastError());
    HX_CHECK(cudaMemcpyAsync(mf.buf_r.data(), mf.d_r, nl * sizeof(uint32_t), cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaMemcpyAsync(mf.buf_c.data(), mf.d_carry, n * sizeof(uint32_t), cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));

    snprintf(t->expected, sizeof t->expected, "%llu sums, %llu with carry out", n, carries);
    for (unsigned long long i = 0; i < n; i++)
        if (!mp_same(i, &mf.want_r[i * LIMBS], mf.want_c[i], &mf.buf_r[i * LIMBS], mf.buf_c[i], key, &w)
            && bad++ == 0)
            w0 = w;
    if (bad) {
        char how[220];
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

    unsigned long long past, at;
    if (poison_check(c, mf.d_r + nl, r_tail, rkey, 0, 0, &past, &at))
        return -1;
    if (past > 0) {
        unsigned long long q = at / sizeof(uint32_t);
        test_fail(t, "wrote past the end of r: limb %llu of number %llu changed, but count is %llu", q % LIMBS,
                  n + q / LIMBS, n);
        return 0;
    }
    if (poison_check(c, mf.d_carry + n, c_tail, tkey, 0, 0, &past, &at))
        return -1;
    if (past > 0) {
        test_fail(t, "wrote past the end of carry_out: carry_out[%llu] changed, but count is %llu",
                  n + at / sizeof(uint32_t), n);
        return 0;
    }

    int same = input_verdict_test(changed(c, g), INPUT_CALLED, &mp_words, t);
    if (same <= 0)
        return same;
    /* A right result, by the CPU: the judge's GPU check must agree. */
    if (mp_verify_all(c, n, &probe, 0))
        return -1;
    if (probe.bad != 0)
        return judge_internal(c, "the judge's GPU check found %llu of %llu numbers wrong (first %llu) that "
                              "the CPU found right (trial n=%llu)", probe.bad, n, probe.first, n);
    return 0;
}

/* ---- timing ---- */

struct mrun {
    struct ctx *c;
    mgen g;
    int reference;              /* 1: time the harness's kernel */
    int nchange;
    unsigned long long idx[MP_CHANGES];             /* the numbers changed for this sample */
    uint32_t na[MP_CHANGES][LIMBS], nb[MP_CHANGES][LIMBS];  /* their limbs for it */
    uint64_t key;               /* this call's poison */
    struct mp_probe probe;
    struct call call;
    struct plan plan, first;    /* this sample's plan; the case's first */
    int have_first;
};

/* Each sample changes a few numbers at random places so that their sums
 * change (hx_mpgen.cuh, mp_change), then poisons every output: a result
 * computed once and kept, or left from an earlier call, is wrong. */
static int mp_prepare(void *arg, int k)
{
    struct mrun *r = (struct mrun *)arg;
    struct ctx *c = r->c;

    r->nchange = r->g.count < MP_CHANGES ? (int)r->g.count : (int)MP_CHANGES;
    for (int m = 0; m < r->nchange; m++) {
        r->idx[m] = mp_change_index(r->g, (uint64_t)k, m, r->idx);
        mp_number(r->g, r->idx[m], r->na[m], r->nb[m]);
        mp_change(r->g, (uint64_t)k, m, r->na[m], r->nb[m]);
    }
    if (mp_write(c, r->idx, r->na, r->nb, r->nchange))
        return -1;
    r->key = poison_bits();
    if (mp_poison_on_device(c, r->g.count, r->key))
        return -1;
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

/* What number i of a and b holds during sample r: its change, or as
 * generated. */
static void mp_current(const struct mrun *r, unsigned long long i, uint32_t *a, uint32_t *b)
{
    for (int m = 0; m < r->nchange; m++)
        if (r->idx[m] == i) {
            memcpy(a, r->na[m], sizeof r->na[m]);
            memcpy(b, r->nb[m], sizeof r->nb[m]);
            return;
        }
    mp_number(r->g, i, a, b);
}

/* Judges sample k from the check's probe: 1 right, 0 wrong (msg says
 * why), -1 when the judge itself is wrong. */
static int mp_judge(struct mrun *r, int k, char *msg, size_t len)
{
    struct mp_probe *p = &r->probe;
    const char *who = r->reference ? "the reference" : "timed";
    uint32_t a[LIMBS], b[LIMBS], want[LIMBS], want_c;
    struct mp_wrong w;
    char how[220];

    /* The input the CPU knows, where the probes read it. */
    for (int m = 0; m < MP_PROBES; m++) {
        mp_current(r, p->idx[m], a, b);
        if (memcmp(a, p->a[m], sizeof a) || memcmp(b, p->b[m], sizeof b)) {
            snprintf(msg, len, "%s sample %d: the call modified the input: number %llu of a or b is not "
                     "what the judge wrote", who, k, p->idx[m]);
            return 0;
        }
    }
    if (p->bad > 0) {
        unsigned long long i = p->first;
        uint32_t got[LIMBS], got_c;
        if (i >= r->g.count)
            return judge_internal(r->c, "%s sample %d: the GPU check counted %llu wrong numbers but named "
                                  "number %llu", who, k, p->bad, i);
        HX_CHECK(cudaMemcpy(a, mf.d_a + i * LIMBS, sizeof a, cudaMemcpyDeviceToHost));
        HX_CHECK(cudaMemcpy(b, mf.d_b + i * LIMBS, sizeof b, cudaMemcpyDeviceToHost));
        HX_CHECK(cudaMemcpy(got, mf.d_r + i * LIMBS, sizeof got, cudaMemcpyDeviceToHost));
        HX_CHECK(cudaMemcpy(&got_c, mf.d_carry + i, sizeof got_c, cudaMemcpyDeviceToHost));
        want_c = mp_add(a, b, want);
        if (mp_same(i, want, want_c, got, got_c, r->key, &w))
            return judge_internal(r->c, "%s sample %d: the GPU check found number %llu wrong, the CPU right",
                                  who, k, i);
        mp_describe(&w, how, sizeof how);
        snprintf(msg, len, "%s sample %d (%d numbers had new sums): %llu of %llu numbers wrong; the "
                 "first, number %llu: %.150s", who, k, r->nchange, p->bad, r->g.count, i, how);
        return 0;
    }
    for (int m = 0; m < MP_PROBES; m++) {
        want_c = mp_add(p->a[m], p->b[m], want);
        if (!mp_same(p->idx[m], want, want_c, p->r[m], p->c[m], r->key, &w)) {
            mp_describe(&w, how, sizeof how);
            return judge_internal(r->c, "%s sample %d: the GPU check passed number %llu, the CPU did not: %.120s",
                                  who, k, p->idx[m], how);
        }
    }
    return 1;
}

/* After each call: the whole result checked on the GPU, the changed numbers
 * and a few at random places on the CPU too; then the changed numbers get
 * their generated limbs back. */
static int mp_verify(void *arg, int k, char *msg, size_t len)
{
    struct mrun *r = (struct mrun *)arg;
    struct mp_probe *p = &r->probe;
    uint32_t oa[MP_CHANGES][LIMBS], ob[MP_CHANGES][LIMBS];

    for (int m = 0; m < MP_PROBES; m++)
        p->idx[m] = m < r->nchange ? r->idx[m]
                  : below(draw(r->g.seed, r->g.salt ^ 0x5b075ull, (uint64_t)k * MP_SPOTS + (uint64_t)m),
                          (uint32_t)r->g.count);
    if (mp_verify_all(r->c, r->g.count, p, MP_PROBES))
        return -1;
    int ok = mp_judge(r, k, msg, len);
    for (int m = 0; m < r->nchange; m++)
        mp_number(r->g, r->idx[m], oa[m], ob[m]);
    if (mp_write(r->c, r->idx, oa, ob, r->nchange))
        return -1;
    return ok;
}

/* After a kernel's last sample: the input must be as generated (every
 * change was undone), before the reference runs on it and after. */
static int mp_after(void *arg, char *msg, size_t len)
{
    struct mrun *r = (struct mrun *)arg;
    return input_verdict(changed(r->c, r->g), r->reference ? INPUT_TIMING_REFERENCE : INPUT_TIMING, &mp_words, msg,
                         len);
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
    int rc;

    if (kind < 0)
        return perf_kind_unknown(c, pc, "random, ripple, mixed");
    static struct mrun r;       /* static: large, and the patch copies read from it */
    memset(&r, 0, sizeof r);
    r.c = c;
    r.g.seed = c->o->seed;
    r.g.salt = case_salt(pc);
    r.g.count = pc->n;
    r.g.kind = kind;
    r.call = mp_call_of(c, pc->n);
    struct timed tm = {mp_prepare, mp_call, mp_verify, &r, &r.reference, mp_after, NULL};

    if (generate(c, r.g))
        return -1;
    if ((rc = measure_both(c, &tm, p, t)) != 0)
        return rc < 0 ? -1 : 0;
    /* Bytes that must move: a and b read once, r and carry_out written once. */
    p->bytes = (double)pc->n * (3.0 * LIMBS * sizeof(uint32_t) + sizeof(uint32_t));
    p->rate_unit = "Gnum/s";
    perf_finish(c, &family_impl, p, (double)pc->n);
    return 0;
}

static int mp_profile(struct ctx *c, unsigned long long n)
{
    mgen g = {c->o->seed, 4242, n, MP_MIXED};
    if (generate(c, g) || mp_poison_on_device(c, n, poison_bits()))
        return -1;
    struct call call = mp_call_of(c, n);
    return student_profile(c, &call);
}

const struct family family_impl = {FAMILY_MPADD, "harness vote + shuffle carry loop", 1, 0, mp_setup,
                                   mp_trial, mp_timed, mp_profile, mp_teardown, NULL, 0, NULL};

} /* namespace hx */
