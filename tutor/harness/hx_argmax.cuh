/* hx_argmax.cuh — lab 11's inputs: floats on a ladder of levels, so that
 * the largest value occurs many times and only its first index is right,
 * and the answer the judge expects.  Host and device code, tested without
 * a GPU (tests/unit/test_argmax.cu).
 *
 * Level l (0 <= l < K + 2) is one float, strictly increasing with l: its
 * bits are chosen in the float's own order (lab.h's key: sign flipped for a
 * positive float, all bits for a negative one), at a random place in the
 * l-th of K + 2 equal steps of a window of that order.  So every value is an
 * exact float, never NaN, and never -0.0 (a step that holds +0.0 takes it,
 * one that would take -0.0 takes the next float below).  The window decides
 * what the values are like, one of four in turn by consecutive salts:
 *   full      every finite float, both signs, all 254 exponents, about 16
 *             levels in each, subnormals and +0.0 among them; in half the
 *             draws the level above the peaks (a timed sample's new
 *             maximum) is +infinity;
 *   negative  every value negative, from near -FLT_MAX to a random top that
 *             is often a negative subnormal: a kernel that starts its search
 *             from 0.0f is wrong;
 *   tiny      around zero: subnormals of both signs, +0.0 and small normals
 *             up to a random exponent below 2^-86; in half the draws +0.0
 *             is the top level, so that the maximum is +0.0, tied;
 *   narrow    K + 2 floats a few units in the last place apart, at a random
 *             place of either sign: values only their last bits tell apart.
 * A kernel that compares anything but the floats themselves (fixed point,
 * a scaled int, a truncated exponent) takes two of them for one somewhere.
 * -infinity is not drawn (see docs/harness.md).
 *
 * level(i) is uniform in [0, K) with K = n/16 clamped to [2, 4096]: the top
 * level K-1 occurs about n/K times (16 or more once n is 64 or more),
 * scattered, so ties for the maximum are the rule and only the first of
 * them is right.  Two salts in three add "peaks" at level K, above
 * everything else (one peak in half of them, so that the maximum is unique
 * and anywhere, the last element in one salt of twelve; two to four in the
 * rest, one in each of as many equal stretches at a random place): a
 * kernel that reads a prefix or a sample finds a tie of the wrong level.
 *
 * Without peaks the answer is the first index of the highest level present;
 * with them, the first peak.  The host finds it without reading the whole
 * array: with peaks it is peak_at[0]; without, the scan stops at the first
 * element of level K-1, the highest possible (usually within a few
 * thousand elements).
 */
#ifndef HX_ARGMAX_CUH
#define HX_ARGMAX_CUH

#include <math.h>
#include <stdint.h>

#ifndef LAB_NO_PARAMS
#define LAB_NO_PARAMS           /* lab_params is lab 09's, not this family's */
#endif
#include "../lab.h"
#include "hx.h"

namespace hx {

enum { AM_MAX_PEAKS = 4, AM_MAX_LEVELS = 4096, AM_MODES = 4 };
enum { AM_FULL, AM_NEGATIVE, AM_TINY, AM_NARROW };

/* lab.h's order of floats as unsigned ints: -FLT_MAX, -0.0, +0.0, +inf. */
static const uint32_t AM_O_MIN = 0x00800000u, AM_O_NEG_ZERO = 0x7fffffffu, AM_O_ZERO = 0x80000000u,
                      AM_O_MAX = 0xff7fffffu, AM_O_INF = 0xff800000u;

/* Everything that decides one input. */
struct agen {
    uint64_t seed, salt;
    unsigned long long n;
    int levels;                 /* K */
    int mode;                   /* AM_FULL .. AM_NARROW */
    int inf_top;                /* level K + 1 is +infinity */
    uint32_t lo, step;          /* level l's value lies in [lo + l*step, lo + (l+1)*step - 2], in order */
    int npeak;
    unsigned long long peak_at[AM_MAX_PEAKS];   /* ascending */
};

/* What argmax should return: the top level and its first index. */
struct aanswer {
    int level;
    unsigned long long first;
};

/* A float from its place in the order (lab_argmax_value's mapping). */
__host__ __device__ static inline float am_float_of(uint32_t ordered)
{
    return lab_argmax_value((unsigned long long)ordered << 32);
}

static inline uint32_t am_ordered_of(float v)
{
    return (uint32_t)(lab_argmax_key(v, 0) >> 32);
}

static inline agen am_make(uint64_t seed, uint64_t salt, unsigned long long n)
{
    agen g = {};
    g.seed = seed;
    g.salt = salt;
    g.n = n;
    unsigned long long k = n / 16;
    g.levels = (int)(k < 2 ? 2 : k > (unsigned long long)AM_MAX_LEVELS ? (unsigned long long)AM_MAX_LEVELS : k);
    uint64_t b = draw(seed, salt, ~0ull);
    /* The modes in turn over consecutive salts, from a place the seed picks. */
    g.mode = (int)((salt + (draw(seed, 0, ~2ull) & 3)) % AM_MODES);
    uint64_t span = (uint64_t)g.levels + 2;     /* levels 0 .. K+1 */
    uint64_t lo, hi;                            /* the window, in order */
    b = mix(b);
    switch (g.mode) {
    case AM_FULL:
        lo = AM_O_MIN;
        hi = AM_O_MAX;
        g.inf_top = (int)(b & 1);
        break;
    case AM_NEGATIVE:
        lo = AM_O_MIN + below(b, 1u << 30);
        hi = AM_O_NEG_ZERO - 1 - below(mix(b), 1u << 29);
        break;
    case AM_TINY: {
        /* 2^23 places per exponent: subnormals and up to 40 exponents more. */
        uint64_t below_zero = (1ull << 23) * (1 + below(b, 40)), above = (1ull << 23) * (1 + below(mix(b), 40));
        lo = AM_O_ZERO - below_zero;
        hi = AM_O_ZERO + above;
        if (mix(b ^ 0x2e0) & 1) {
            /* +0.0 in the top level below the peaks' (K - 1): the maximum
             * of an input without peaks is +0.0, at many places. */
            uint64_t step = (hi - lo) / span;
            lo = AM_O_ZERO - ((uint64_t)g.levels - 1) * step - below(mix(b ^ 0x2e1), (uint32_t)(step - 1));
            hi = lo + span * step;
        }
        break;
    }
    default: {
        uint64_t step = 2 + below(b, 62);
        uint64_t room = (uint64_t)AM_O_MAX - AM_O_MIN - span * step;
        lo = AM_O_MIN + (uint64_t)(unit(mix(b)) * (double)room);
        hi = lo + span * step;
        break;
    }
    }
    g.lo = (uint32_t)lo;
    g.step = (uint32_t)((hi - lo) / span);
    b = mix(b);
    /* The peaks in turn over consecutive salts, as the modes, from a place
     * the seed picks: a third without peaks, a third with one (the maximum
     * unique), a third with two to four.  One peak is anywhere, except
     * once in every twelve salts, where it is the last element: a check's
     * trials are consecutive salts, so every check has a trial whose
     * answer a kernel that leaves out the end of the input misses. */
    static const int npeaks[6] = {0, 0, 1, 1, 2, 3 + (int)(mix(b) & 1)};
    int turn = (int)((salt + draw(seed, 0, ~3ull) % 12) % 12);
    g.npeak = npeaks[turn % 6];
    if ((unsigned long long)g.npeak > n)
        g.npeak = (int)n;
    for (int j = 0; j < g.npeak; j++) {
        unsigned long long stretch = n / (unsigned long long)g.npeak;
        g.peak_at[j] = (unsigned long long)j * stretch + below(draw(seed, salt, ~1ull - (uint64_t)j), (uint32_t)stretch);
    }
    if (turn == 2)
        g.peak_at[0] = n - 1;
    return g;
}

__host__ __device__ static inline int am_level(const agen &g, unsigned long long i)
{
    for (int j = 0; j < g.npeak; j++)
        if (g.peak_at[j] == i)
            return g.levels;
    return (int)below(draw(g.seed, g.salt, i), (uint32_t)g.levels);
}

/* The value of a level: at a random place of its step (never the step's
 * last place, so that moving off -0.0 keeps the order strict). */
__host__ __device__ static inline float am_value_of(const agen &g, int level)
{
    if (g.inf_top && level == g.levels + 1)
        return am_float_of(AM_O_INF);
    uint32_t at = g.lo + (uint32_t)level * g.step;
    uint32_t o = at + below(draw(g.seed, g.salt ^ 0x1e7e1ull, (uint64_t)level), g.step - 1);
    if (at <= AM_O_ZERO && AM_O_ZERO <= at + (g.step - 2))
        o = AM_O_ZERO;
    else if (o == AM_O_NEG_ZERO)
        o = AM_O_NEG_ZERO - 1;
    return am_float_of(o);
}

__host__ __device__ static inline float am_value(const agen &g, unsigned long long i)
{
    return am_value_of(g, am_level(g, i));
}

/* The answer, from the design (see the top of this file). */
static inline aanswer am_answer(const agen &g)
{
    aanswer a = {-1, 0};
    if (g.npeak > 0) {
        a.level = g.levels;
        a.first = g.peak_at[0];
        return a;
    }
    for (unsigned long long i = 0; i < g.n; i++) {
        int l = am_level(g, i);
        if (l > a.level) {
            a.level = l;
            a.first = i;
            if (l == g.levels - 1)
                break;
        }
    }
    return a;
}

static inline unsigned long long am_key(const agen &g, const aanswer &a)
{
    return lab_argmax_key(am_value_of(g, a.level), (unsigned)a.first);
}

/* A timed sample's change: one element gets a new level.  Even samples put
 * a new maximum (level K+1, above everything) at a random index; odd ones
 * put a copy of the current maximum before its first index, so the answer's
 * index moves and only a kernel that keeps the first tie follows it (when
 * the first index is 0 there is no room before it: a new maximum instead).
 * Returns the answer after the change. */
struct achange {
    unsigned long long idx;
    int level;
};

static inline aanswer am_change(const agen &g, const aanswer &want, uint64_t k, achange *c)
{
    uint64_t bits = draw(g.seed, g.salt ^ 0xa26c3ull, k);
    aanswer after;
    if ((k & 1) && want.first > 0) {
        c->idx = below(bits, (uint32_t)want.first);
        c->level = want.level;
    } else {
        c->idx = below(bits, (uint32_t)g.n);
        c->level = g.levels + 1;
    }
    after.level = c->level;
    after.first = c->idx;
    return after;
}

} /* namespace hx */

#endif /* HX_ARGMAX_CUH */
