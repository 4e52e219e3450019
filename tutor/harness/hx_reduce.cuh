/* hx_reduce.cuh — the reduce_int and reduce_float families: one template,
 * instantiated once per element type by hx_fam_reduce_int.cu and
 * hx_fam_reduce_float.cu, so that each family object references only its own
 * lab entry point.
 *
 * Inputs are generated on the device from (seed, salt, index) and the CPU
 * reference sums the same values on the host.  Integers: values in [-R, R]
 * with R * n < 2^31, so no partial sum can overflow in any order.  Floats:
 * positive values of a random scale, a random sixteenth of the array offset
 * (possibly negative, so parts cancel), and up to 16 sparse large values of
 * one random sign, one in each sixteenth at a random place, each 1/8 to 1/4
 * of what the rest adds up to: an estimate from a subset of the elements
 * misses at least one of them, by 50 times the tolerance or more.  The
 * tolerance |got - exact| <= 2^-11 * sum |x| covers any summation tree
 * whose longest chain has up to 8192 additions (docs/harness.md).
 *
 * Every timed sample changes the input first (one element, at a random
 * place; for floats by at least 1/16 of sum |x|, 128 times the tolerance)
 * and its result is verified after the second event; the input is checked
 * unchanged after the student's last sample and generated afresh before the
 * reference is timed.
 *
 * A lab that asks for the same bits on every run (--repeat K, lab 15) has
 * every trial's input, and every timed case's before it is timed, summed K
 * times, the student's module loaded afresh before each repeat, and every
 * result compared bit for bit with the first.
 */
#ifndef HX_REDUCE_CUH
#define HX_REDUCE_CUH

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <type_traits>

#include "../lab.h"
#include "hx.h"
#include "hx_core.cuh"
#include "hx_cub.h"
#include "hx_poison.cuh"

namespace hx {

enum { MAX_BIG = 16, MAX_STRETCH = 2, INT_SHAPES = 4 };

/* Everything that determines one input array. */
struct gen {
    uint64_t seed, salt;
    unsigned long long n;
    int shape;                          /* int: 0 walk, 1 rise, 2 rise then fall, 3 fall then rise */
    int nstretch;                       /* int: element i of stretch s, i < st_end[s], is in [st_lo, st_hi] */
    unsigned long long st_end[MAX_STRETCH];
    int st_lo[MAX_STRETCH], st_hi[MAX_STRETCH];
    double scale, delta;                /* float: base scale, segment offset */
    unsigned long long seg_lo, seg_hi;  /* float: the offset segment */
    int nbig;                           /* float: the sparse large values */
    unsigned long long big_at[MAX_BIG];
    double big[MAX_BIG];
};

/* The input of n elements under seed and salt, before its type draws the
 * rest of its description. */
static inline gen gen_of(uint64_t seed, uint64_t salt, unsigned long long n)
{
    gen g = {};
    g.seed = seed;
    g.salt = salt;
    g.n = n;
    return g;
}

template <typename T> struct elem;

/* One stretch of an int input: elements up to end, uniform in [lo, hi]. */
static inline void int_stretch(gen &g, unsigned long long end, int lo, int hi)
{
    g.st_end[g.nstretch] = end;
    g.st_lo[g.nstretch] = lo;
    g.st_hi[g.nstretch] = hi;
    g.nstretch++;
}

/* A stretch of len elements that moves the prefix by 5/8 to all of INT_MAX
 * in one direction: each element between 5/8 of INT_MAX / len and all of
 * it, so len of them add up to at most INT_MAX (at least 5/8 of it: 2^30
 * and more), whatever else they are added with. */
static inline void int_slope(gen &g, unsigned long long end, unsigned long long len, int sign)
{
    int b = (int)((unsigned long long)INT_MAX / len);
    int a = (int)(((long long)b * 5 + 7) / 8);
    if (sign > 0)
        int_stretch(g, end, a, b);
    else
        int_stretch(g, end, -b, -a);
}

template <> struct elem<int> {
    static constexpr const char *rate_unit = "Gint/s";
    /* Four shapes, taken in turn by consecutive salts (so that every few
     * trials of a size meet all of them): a walk of small values of both
     * signs, [-R, R] with R * n <= INT_MAX (and R <= 2^20); a rise, every
     * element positive, the last prefix 5/8 of INT_MAX or more; a rise
     * over a random first part (a quarter to three quarters of n), then a
     * fall as steep; and the same falling first.  In every shape the
     * positive elements together add up to at most INT_MAX and the
     * negative ones to at least -INT_MAX: no sum of any of the elements,
     * in any order, leaves int (lab.h), and yet prefixes come within a
     * factor of 2 of either end of its range. */
    static gen make(uint64_t seed, uint64_t salt, unsigned long long n)
    {
        gen g = gen_of(seed, salt, n);
        uint64_t b = draw(seed, salt, ~0ull);
        g.shape = (int)((salt + (draw(seed, 0, ~0ull) & 3)) % INT_SHAPES);
        unsigned long long m = n / 4 + below(b, (uint32_t)(n / 2 + 1));
        if (g.shape >= 2 && (m == 0 || m >= n))
            g.shape = 1;                /* n = 1: no room for two stretches */
        if (g.shape == 0) {
            unsigned long long r = (unsigned long long)INT_MAX / n;
            int range = (int)(r < (1u << 20) ? r : (1u << 20));
            int_stretch(g, n, -range, range);
        } else if (g.shape == 1) {
            int_slope(g, n, n, 1);
        } else {
            int sign = g.shape == 2 ? 1 : -1;
            int_slope(g, m, m, sign);
            int_slope(g, n, n - m, -sign);
        }
        return g;
    }
    /* The stretch element i is in. */
    __host__ __device__ static int stretch(const gen &g, unsigned long long i)
    {
        int s = 0;
        while (s + 1 < g.nstretch && i >= g.st_end[s])
            s++;
        return s;
    }
    __host__ __device__ static int value(const gen &g, unsigned long long i)
    {
        int s = stretch(g, i);
        return g.st_lo[s] + (int)below(draw(g.seed, g.salt, i), (uint32_t)((long long)g.st_hi[s] - g.st_lo[s] + 1));
    }
    /* Integers have no sparse values: every element is a base one. */
    __host__ __device__ static int base(const gen &g, unsigned long long i) { return value(g, i); }
    static constexpr enum family_id id = FAMILY_REDUCE_INT;
    /* A poison that tells nothing about the answer: fresh random bits for
     * every call, drawn again in the rare case they equal the answer (a
     * poison computed from the answer, as it once was, gives it away). */
    static int poison(double expected)
    {
        int p;
        do
            p = (int)(uint32_t)(poison_bits() >> 32);
        while ((double)p == expected);
        return p;
    }
    /* A timed sample's new value for element i: another of its stretch's
     * range, so that no sum of any elements can overflow still (every
     * change is far above a tolerance of zero). */
    static int change(const gen &g, unsigned long long i, int old, uint64_t bits, double)
    {
        int s = stretch(g, i), lo = g.st_lo[s], hi = g.st_hi[s];
        int v = lo + (int)below(bits, (uint32_t)((long long)hi - lo + 1));
        if (v == old)
            v = old < hi ? old + 1 : old - 1;
        return v;
    }
    static double tolerance(double) { return 0; }
    static int right(double expected, double, int got) { return (double)got == expected; }
    static void show(char *buf, size_t len, double v) { snprintf(buf, len, "%.0f", v); }
    static void bits(char *buf, size_t len, int v) { snprintf(buf, len, "%d", v); }
};

template <> struct elem<float> {
    static constexpr const char *rate_unit = "Gfloat/s";
    static gen make(uint64_t seed, uint64_t salt, unsigned long long n)
    {
        gen g = gen_of(seed, salt, n);
        uint64_t b = draw(seed, salt, ~0ull);
        g.scale = ldexp(1.0, (int)below(b, 13) - 6);
        b = mix(b);
        g.delta = g.scale * (4.0 + 4.0 * unit(b)) * ((b & 1) ? -1.0 : 1.0);
        unsigned long long len = n / 16 ? n / 16 : 1;
        g.seg_lo = below(mix(b), (uint32_t)(n - len + 1));
        g.seg_hi = g.seg_lo + len;
        /* One large value in each of nbig equal stretches, at a random place
         * in it, n * scale * [1/8, 1/4) in size (the base values add up to
         * about n * scale), all of one random sign so that together they
         * never cancel: missing one misses by 50 times the tolerance or
         * more, missing them all by a thousand times.  Distinct places, so
         * the host can add them apart. */
        g.nbig = n < MAX_BIG ? (int)n : MAX_BIG;
        unsigned long long stretch = n / (unsigned long long)g.nbig;
        double sign = (mix(b ^ 0xb16) & 1) ? -1.0 : 1.0;
        for (int j = 0; j < g.nbig; j++) {
            uint64_t d = draw(seed, salt, ~1ull - (uint64_t)j);
            g.big_at[j] = (unsigned long long)j * stretch + below(d, (uint32_t)stretch);
            g.big[j] = sign * (double)n * g.scale * (0.125 + 0.125 * unit(mix(d)));
        }
        return g;
    }
    /* An element before its sparse large part and before rounding. */
    __host__ __device__ static double unrounded(const gen &g, unsigned long long i)
    {
        double v = g.scale * (0.5 + unit(draw(g.seed, g.salt, i)));
        return i >= g.seg_lo && i < g.seg_hi ? v + g.delta : v;
    }
    /* A value without its sparse large part: what the host sums in bulk. */
    __host__ __device__ static float base(const gen &g, unsigned long long i)
    {
        return (float)unrounded(g, i);
    }
    /* The element itself: the large part is added before rounding, once. */
    __host__ __device__ static float value(const gen &g, unsigned long long i)
    {
        double v = unrounded(g, i);
        for (int j = 0; j < g.nbig; j++)
            if (g.big_at[j] == i)
                v += g.big[j];
        return (float)v;
    }
    static constexpr enum family_id id = FAMILY_REDUCE_FLOAT;
    static float poison(double)
    {
        uint32_t bits = 0x7fc0dead;     /* a quiet NaN: never within tolerance */
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    /* A timed sample's new value for one element: the old one moved by
     * 1/16 to 1/8 of sum |x|, up or down, which is 128 times the tolerance
     * or more even after the move itself raises sum |x|: a result kept from
     * any earlier call is wrong by far more than rounding can explain. */
    static float change(const gen &, unsigned long long, float old, uint64_t bits, double abs_sum)
    {
        double m = abs_sum * (0.0625 + 0.0625 * unit(bits)) * ((bits & 1) ? -1.0 : 1.0);
        return (float)((double)old + m);
    }
    static double tolerance(double abs_sum) { return ldexp(abs_sum, -11); }
    static int right(double expected, double abs_sum, float got)
    {
        return fabs((double)got - expected) <= tolerance(abs_sum);
    }
    static void show(char *buf, size_t len, double v) { snprintf(buf, len, "%.9g", v); }
    /* A result's bits and value: two floats that print alike may differ. */
    static void bits(char *buf, size_t len, float v)
    {
        uint32_t b;
        memcpy(&b, &v, sizeof b);
        snprintf(buf, len, "0x%08x (%.9g)", b, (double)v);
    }
};

/* Element i of the input g describes. */
template <typename T> struct elem_want {
    gen g;
    __host__ __device__ T operator()(unsigned long long i) const { return elem<T>::value(g, i); }
};

template <typename T> struct reduce_family {
    struct sums { double sum, abs_sum; };

    T *d_in, *d_out;                    /* d_out: out's place now */
    struct moving_out out;
    unsigned long long cap;             /* elements of d_in */
    uint64_t tail_key;                  /* the bits past d_in[n] */
    void *d_scratch, *d_cub;
    size_t scratch_bytes, cub_bytes;
    unsigned long long *d_bad;          /* [0] count, [1] first index */
    int grid;
    /* The timed cases' CPU references, worked out by expect() ahead. */
    struct memo { uint64_t salt; unsigned long long n; sums s; } memos[MAX_PERF];
    int nmemos;

    /* ---- the CPU reference ---- */

    static double chunk_sum(unsigned long long lo, unsigned long long hi, const void *arg)
    {
        const gen *g = (const gen *)arg;
        double s = 0;
        for (unsigned long long i = lo; i < hi; i++)
            s += (double)elem<T>::base(*g, i);
        return s;
    }
    static double chunk_abs(unsigned long long lo, unsigned long long hi, const void *arg)
    {
        const gen *g = (const gen *)arg;
        double s = 0;
        for (unsigned long long i = lo; i < hi; i++)
            s += fabs((double)elem<T>::base(*g, i));
        return s;
    }
    static sums reference(const gen &g)
    {
        sums r = {host_parallel_sum(g.n, chunk_sum, &g), 0};
        /* Only the float tolerance needs sum |x|. */
        if (!std::is_integral<T>::value)
            r.abs_sum = host_parallel_sum(g.n, chunk_abs, &g);
        /* The sparse large values, one by one: their places are distinct. */
        for (int j = 0; j < g.nbig; j++) {
            double full = (double)elem<T>::value(g, g.big_at[j]);
            double part = (double)elem<T>::base(g, g.big_at[j]);
            r.sum += full - part;
            r.abs_sum += fabs(full) - fabs(part);
        }
        return r;
    }

    /* The reference of g: from the memo when expect() worked it out. */
    sums reference_of(const gen &g) const
    {
        for (int i = 0; i < nmemos; i++)
            if (memos[i].salt == g.salt && memos[i].n == g.n)
                return memos[i].s;
        return reference(g);
    }

    void expect(struct ctx *c)
    {
        nmemos = 0;
        for (int i = 0; i < c->o->nperf && i < MAX_PERF; i++) {
            gen g = elem<T>::make(c->o->seed, case_salt(&c->o->perf[i]), c->o->perf[i].n);
            memos[nmemos].salt = g.salt;
            memos[nmemos].n = g.n;
            memos[nmemos].s = reference(g);
            nmemos++;
        }
    }

    int generate(struct ctx *c, const gen &g)
    {
        return input_generate(c, "fill", grid, 256, d_in, g.n, elem_want<T>{g});
    }

    /* Poisons the output and the scratch with fresh bits (hx_poison.cuh):
     * a kernel that skips a write, or reads scratch it never wrote, sees
     * garbage, and nothing kept in them from an earlier call survives.
     * The whole of d_out's arena; the result itself a value that is never
     * the answer; of the scratch, all of it (whole) or the part a call of
     * n may use (a timed sample: the rest holds an earlier sample's bits). */
    T last_poison;  /* the value d_out was last poisoned with */

    int poison(struct ctx *c, unsigned long long n, double expected, int whole)
    {
        static T p;     /* static: the async copy reads it after we return */
        p = last_poison = elem<T>::poison(expected);
        if (moving_out_poison(c, &out))
            return -1;
        HX_CHECK(cudaMemcpyAsync(d_out, &p, sizeof p, cudaMemcpyHostToDevice, c->s));
        size_t sb = LAB_SCRATCH_BYTES(n);
        return poison_fill(c, d_scratch, whole || sb > scratch_bytes ? scratch_bytes : sb, poison_bits());
    }

    /* A check's call (a trial, a repeat): d_in past n and every buffer of
     * the judge's that the call has no use for, CUB's temporary storage
     * and the counters, get fresh bits too, so that a kernel finds nothing
     * there that an earlier call left; d_in past n must keep them. */
    int poison_rest(struct ctx *c, unsigned long long n)
    {
        tail_key = poison_bits();
        if (poison_fill(c, d_in + n, (cap - n) * sizeof(T), tail_key) ||
            poison_fill(c, d_cub, cub_bytes, poison_bits()) ||
            poison_fill(c, d_bad, 2 * sizeof(unsigned long long), poison_bits()))
            return -1;
        return 0;
    }

    /* 1 when d_in past n holds poison_rest's bits still; else 0 with t
     * failed (or -1 after a CUDA error). */
    int input_tail_intact(struct ctx *c, unsigned long long n, struct test *t, const char *when)
    {
        unsigned long long past, at;
        if (poison_check(c, d_in + n, (cap - n) * sizeof(T), tail_key, 0, 0, &past, &at))
            return -1;
        if (past == 0)
            return 1;
        test_fail(t, "%swrote past the end of d_in, which is read-only: d_in[%llu] changed, but n is %llu", when,
                  n + at / sizeof(T), n);
        return 0;
    }

    /* The result at a new place of the arena (a check's call). */
    void move(void)
    {
        moving_out_move(&out);
        d_out = (T *)moving_out_ptr(&out);
    }

    /* 1 when the call left d_out's arena alone outside the result; else 0
     * with t failed (or -1 after a CUDA error). */
    int intact(struct ctx *c, struct test *t, const char *when)
    {
        char why[200];
        int rc = moving_out_intact(c, &out, why, sizeof why);
        if (rc == 0)
            test_fail(t, "%s%s", when, why);
        return rc;
    }

    /* The input against what generate wrote. */
    struct input_diff changed(struct ctx *c, const gen &g)
    {
        return input_changed(c, "compare", grid, 256, d_bad, d_in, g.n, elem_want<T>{g});
    }

    int setup(struct ctx *c, unsigned long long max_n)
    {
        scratch_bytes = LAB_SCRATCH_BYTES(max_n);
        cap = max_n;
        grid = c->r->dev.sms * 8;
        HX_CHECK(cudaMalloc(&d_in, max_n * sizeof(T)));
        if (moving_out_setup(c, &out, sizeof(T)))
            return -1;
        d_out = (T *)moving_out_ptr(&out);
        HX_CHECK(cudaMalloc(&d_scratch, scratch_bytes));
        HX_CHECK(cudaMalloc(&d_bad, 2 * sizeof(unsigned long long)));
        HX_CHECK(hx_cub_sum(NULL, cub_bytes, d_in, d_out, (int)max_n, c->s));
        HX_CHECK(cudaMalloc(&d_cub, cub_bytes));
        return 0;
    }

    void teardown(struct ctx *)
    {
        device_free({d_in, out.arena, d_scratch, d_bad, d_cub});
    }

    struct call call_of(struct ctx *c, unsigned long long n) const
    {
        return call_make(c, elem<T>::id, (unsigned)n, d_in, d_out, d_scratch, NULL);
    }

    /* The result of one more call on the input in d_in, with d_out moved
     * to a new place and everything poisoned afresh; 1, or 0 when the call
     * wrote outside its result (t failed), or -1 after a CUDA error or a
     * plan's verdict. */
    int call_again(struct ctx *c, unsigned long long n, double expected, T *got, struct test *t, const char *when)
    {
        move();
        if (poison(c, n, expected, 1) || poison_rest(c, n))
            return -1;
        struct call call = call_of(c, n);
        if (student_run(c, &call))
            return -1;
        HX_CHECK(cudaGetLastError());
        HX_CHECK(cudaMemcpyAsync(got, d_out, sizeof *got, cudaMemcpyDeviceToHost, c->s));
        HX_CHECK(cudaStreamSynchronize(c->s));
        int rc = intact(c, t, when);
        return rc <= 0 ? rc : input_tail_intact(c, n, t, when);
    }

    /* The same bits on every call (a lab with "deterministic", check mode):
     * runs 2 to o->repeat on the input in d_in, each with d_out at another
     * place, d_out's arena and all of the scratch poisoned afresh, and on
     * the device code loaded afresh, must give exactly `first`, a result
     * already found right.  A float sum
     * whose blocks meet through atomicAdd takes them in the order they
     * finish, which changes from call to call, and so do its last bits.
     * 1: every run agreed; 0: one did not (t fails, naming both); -1: a
     * CUDA error or a plan's verdict. */
    int same_bits(struct ctx *c, unsigned long long n, double expected, T first, struct test *t)
    {
        for (int k = 2; c->o->mode == MODE_CHECK && k <= c->o->repeat; k++) {
            T got;
            char now[48], then[48], when[48];
            /* Each run on fresh copies of the kernels' own variables, with
             * the output moved and every byte around it and of the scratch
             * fresh: a kernel that remembers run 1's result (under a hash
             * of the input, say), in its own memory, in d_out's spare bytes
             * or at a fixed place, and hands it back must not look
             * deterministic. */
            snprintf(when, sizeof when, "run %d on the same input: ", k);
            if (student_reload(c))
                return -1;
            int rc = call_again(c, n, expected, &got, t, when);
            if (rc <= 0)
                return rc;
            if (!memcmp(&got, &first, sizeof got))
                continue;
            elem<T>::bits(now, sizeof now, got);
            elem<T>::bits(then, sizeof then, first);
            elem<T>::show(t->got, sizeof t->got, (double)got);
            if (!memcmp(&got, &last_poison, sizeof got))
                test_fail(t, "run %d on the same input left d_out unwritten (it still holds the poison); "
                             "run 1 gave %s", k, then);
            else
                test_fail(t, "run %d gave %s, run 1 gave %s on the same input: the sum depends on the "
                             "order the blocks finish, and this lab asks for the same bits every run",
                          k, now, then);
            return 0;
        }
        return 1;
    }

    int trial(struct ctx *c, unsigned long long n, int k, struct test *t)
    {
        gen g = elem<T>::make(c->o->seed, 1 + k, n);
        sums want = reference(g);
        T got;

        move();
        if (generate(c, g) || poison(c, n, want.sum, 1) || poison_rest(c, n))
            return -1;
        struct call call = call_of(c, n);
        if (student_run(c, &call))
            return -1;
        HX_CHECK(cudaGetLastError());
        HX_CHECK(cudaMemcpyAsync(&got, d_out, sizeof got, cudaMemcpyDeviceToHost, c->s));
        HX_CHECK(cudaStreamSynchronize(c->s));

        elem<T>::show(t->expected, sizeof t->expected, want.sum);
        elem<T>::show(t->got, sizeof t->got, (double)got);
        if (!elem<T>::right(want.sum, want.abs_sum, got)) {
            if (!memcmp(&last_poison, &got, sizeof got))
                test_fail(t, "d_out was never written: it still holds the poison value");
            else
                test_fail(t, "wrong sum: off by %.9g", (double)got - want.sum);
            return 0;
        }
        int whole = intact(c, t, "");
        if (whole > 0)
            whole = input_tail_intact(c, n, t, "");
        if (whole <= 0)
            return whole;
        if (!std::is_integral<T>::value)
            tol_note(c->r, fabs((double)got - want.sum), elem<T>::tolerance(want.abs_sum));
        int same = same_bits(c, n, want.sum, got, t);
        if (same <= 0)
            return same;
        return input_verdict_test(changed(c, g), INPUT_CALLED, &input_array, t) < 0 ? -1 : 0;
    }

    /* ---- timing ---- */

    /* One timed case's samples: what prepare, call and verify share. */
    struct timed_case {
        reduce_family *f;
        struct ctx *c;
        gen g;
        sums want;
        int reference;          /* 1: time CUB instead of the student */
        unsigned long long idx; /* the element changed for this sample */
        T old_v, new_v;
        struct call call;
        struct plan *plan, *first;  /* this sample's plan; the case's first */
        int have_first;
    };

    /* Each sample changes one element at a random place, so a result
     * remembered from an earlier call is wrong. */
    static int prepare(void *arg, int k)
    {
        timed_case *r = (timed_case *)arg;
        uint64_t bits = draw(r->g.seed, r->g.salt ^ 0xabcdef, (uint64_t)k);
        r->idx = below(bits, (uint32_t)r->g.n);
        r->old_v = elem<T>::value(r->g, r->idx);
        r->new_v = elem<T>::change(r->g, r->idx, r->old_v, mix(bits), r->want.abs_sum);
        static T v;
        v = r->new_v;
        HX_CHECK(cudaMemcpyAsync(r->f->d_in + r->idx, &v, sizeof v, cudaMemcpyHostToDevice, r->c->s));
        if (!r->reference && plan_sample(r->c, &r->call, r->plan, r->first, &r->have_first))
            return -1;
        return r->f->poison(r->c, r->g.n, r->want.sum - r->old_v + r->new_v, 0);
    }

    /* Each verify put its element back: the input as generated (input_afresh). */
    static int between(void *arg, char *msg, size_t len)
    {
        timed_case *r = (timed_case *)arg;
        return input_afresh(r->f->changed(r->c, r->g), [r] { return r->f->generate(r->c, r->g); }, msg, len);
    }

    static int call(void *arg)
    {
        timed_case *r = (timed_case *)arg;
        if (r->reference)
            HX_CHECK(hx_cub_sum(r->f->d_cub, r->f->cub_bytes, r->f->d_in, r->f->d_out,
                                            (int)r->g.n, r->c->s));
        else if (student_replay(r->c, r->plan))
            return -1;
        return 0;
    }

    static int verify(void *arg, int k, char *msg, size_t len)
    {
        timed_case *r = (timed_case *)arg;
        double want = r->want.sum - (double)r->old_v + (double)r->new_v;
        double abs_sum = r->want.abs_sum - fabs((double)r->old_v) + fabs((double)r->new_v);
        T got, old_v = r->old_v;
        HX_CHECK(cudaMemcpy(&got, r->f->d_out, sizeof got, cudaMemcpyDeviceToHost));
        HX_CHECK(cudaMemcpy(r->f->d_in + r->idx, &old_v, sizeof old_v, cudaMemcpyHostToDevice));
        char why[200];
        int whole = moving_out_intact(r->c, &r->f->out, why, sizeof why);
        if (whole < 0)
            return -1;
        if (whole == 0) {
            snprintf(msg, len, "%s sample %d: %s", r->reference ? "the reference" : "timed", k, why);
            return 0;
        }
        if (elem<T>::right(want, abs_sum, got)) {
            if (!std::is_integral<T>::value && !r->reference)
                tol_note(r->c->r, fabs((double)got - want), elem<T>::tolerance(abs_sum));
            return 1;
        }
        char e[64], g[64];
        elem<T>::show(e, sizeof e, want);
        elem<T>::show(g, sizeof g, (double)got);
        snprintf(msg, len, "%s sample %d (one element changed since the last call): expected %s, got %s",
                 r->reference ? "the reference" : "timed", k, e, g);
        return 0;
    }

    int timed(struct ctx *c, const struct perf_case *pc, struct perf *p, const struct family *fam)
    {
        struct test *t = &c->r->tests[c->r->ntests];
        static struct plan plan, first_plan;
        timed_case r = {this, c, elem<T>::make(c->o->seed, case_salt(pc), pc->n), {0, 0}, 0, 0, 0, 0,
                 call_of(c, pc->n), &plan, &first_plan, 0};
        struct timed tm = {prepare, call, verify, &r, &r.reference, NULL, between};
        int rc;

        r.want = reference_of(r.g);
        if (generate(c, r.g))
            return -1;
        /* The same bits at the timed size too, outside the timed region:
         * more blocks, more orders they can finish in. */
        if (c->o->repeat > 1 && c->o->mode == MODE_CHECK) {
            T got;
            if ((rc = call_again(c, pc->n, r.want.sum, &got, t, "before timing: ")) <= 0)
                return rc;
            elem<T>::show(t->expected, sizeof t->expected, r.want.sum);
            elem<T>::show(t->got, sizeof t->got, (double)got);
            if (!elem<T>::right(r.want.sum, r.want.abs_sum, got)) {
                test_fail(t, "before timing, on the case's own input: off by %.9g", (double)got - r.want.sum);
                return 0;
            }
            if ((rc = same_bits(c, pc->n, r.want.sum, got, t)) <= 0)
                return rc;
            /* A failed timed sample names its values in its message. */
            t->expected[0] = t->got[0] = '\0';
        }
        /* One place for the result through all the samples: their plans
         * must be the same. */
        move();
        r.call = call_of(c, pc->n);
        if ((rc = measure_both(c, &tm, p, t)) != 0)
            return rc < 0 ? -1 : 0;
        p->bytes = (double)pc->n * sizeof(T);
        p->rate_unit = elem<T>::rate_unit;
        perf_finish(c, fam, p, (double)pc->n);
        return 0;
    }

    int profile(struct ctx *c, unsigned long long n)
    {
        gen g = elem<T>::make(c->o->seed, 4242, n);
        if (generate(c, g) || poison(c, n, 0, 1))
            return -1;
        HX_CHECK(cudaStreamSynchronize(c->s));
        struct call call = call_of(c, n);
        return student_profile(c, &call);
    }
};

} /* namespace hx */

/* Defines hx::family_impl for element type T (its family: elem<T>::id). */
#define HX_REDUCE_FAMILY(T)                                                                    \
    namespace hx {                                                                             \
    static reduce_family<T> fam;                                                               \
    static int fam_setup(struct ctx *c, unsigned long long n) { return fam.setup(c, n); }      \
    static int fam_trial(struct ctx *c, unsigned long long n, int k, struct test *t)          \
    {                                                                                          \
        return fam.trial(c, n, k, t);                                                          \
    }                                                                                          \
    static int fam_timed(struct ctx *c, const struct perf_case *pc, struct perf *p)           \
    {                                                                                          \
        return fam.timed(c, pc, p, &family_impl);                                              \
    }                                                                                          \
    static int fam_profile(struct ctx *c, unsigned long long n) { return fam.profile(c, n); }  \
    static void fam_teardown(struct ctx *c) { fam.teardown(c); }                               \
    static void fam_expect(struct ctx *c) { fam.expect(c); }                                   \
    const struct family family_impl = {elem<T>::id, "CUB DeviceReduce::Sum", 0, 0, fam_setup,         \
                                       fam_trial, fam_timed, fam_profile, fam_teardown,        \
                                       fam_expect, 1, NULL};                                   \
    }

#endif /* HX_REDUCE_CUH */
