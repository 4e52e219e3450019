/* hx_argmax.cuh — lab 11's inputs: floats on a grid of levels, so that the
 * largest value occurs many times and only its first index is right, and
 * the answer the judge expects.  Host and device code, tested without a
 * GPU (tests/unit/test_argmax.cu).
 *
 * Element i is (base + level(i)) * step, an exact float: step is a power of
 * two from 2^-8 to 2^8 and |base + level| stays below 2^14.  The base puts
 * every value below zero, around zero, or above it (a third of the draws
 * each), so a kernel that starts its search from 0.0f is wrong on all-
 * negative inputs.  level(i) is uniform in [0, K) with K = n/16 clamped to
 * [2, 4096]: the top level K-1 occurs about n/K times (16 or more once n is
 * 64 or more), scattered, so ties for the maximum are the rule and only the
 * first of them is right.  Two draws in three add "peaks" at level K, above
 * everything else (one peak in half of them, so that the maximum is unique
 * and anywhere; two to four in the rest, one in each of as many equal
 * stretches at a random place): a kernel that reads a prefix or a sample
 * finds a tie of the wrong level.
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

enum { AM_MAX_PEAKS = 4, AM_MAX_LEVELS = 4096 };

/* Everything that decides one input. */
struct agen {
    uint64_t seed, salt;
    unsigned long long n;
    int levels;                 /* K */
    int base;                   /* in units of step */
    float step;
    int mode;                   /* 0 all negative, 1 around zero, 2 all positive */
    int npeak;
    unsigned long long peak_at[AM_MAX_PEAKS];   /* ascending */
};

/* What argmax should return: the top level and its first index. */
struct aanswer {
    int level;
    unsigned long long first;
};

static inline agen am_make(uint64_t seed, uint64_t salt, unsigned long long n)
{
    agen g = {};
    g.seed = seed;
    g.salt = salt;
    g.n = n;
    unsigned long long k = n / 16;
    g.levels = (int)(k < 2 ? 2 : k > (unsigned long long)AM_MAX_LEVELS ? (unsigned long long)AM_MAX_LEVELS : k);
    uint64_t b = draw(seed, salt, ~0ull);
    g.step = (float)ldexp(1.0, (int)below(b, 17) - 8);
    b = mix(b);
    g.mode = (int)below(b, 3);
    b = mix(b);
    int lift = (int)below(b, 8);
    g.base = g.mode == 0 ? -(g.levels + 1 + lift) : g.mode == 1 ? -(g.levels / 2) : 1 + lift;
    b = mix(b);
    /* A third without peaks, a third with one (the maximum unique and
     * anywhere), a third with two to four. */
    static const int npeaks[6] = {0, 0, 1, 1, 2, 3 + (int)(mix(b) & 1)};
    g.npeak = npeaks[below(b, 6)];
    if ((unsigned long long)g.npeak > n)
        g.npeak = (int)n;
    for (int j = 0; j < g.npeak; j++) {
        unsigned long long stretch = n / (unsigned long long)g.npeak;
        g.peak_at[j] = (unsigned long long)j * stretch + below(draw(seed, salt, ~1ull - (uint64_t)j), (uint32_t)stretch);
    }
    return g;
}

__host__ __device__ static inline int am_level(const agen &g, unsigned long long i)
{
    for (int j = 0; j < g.npeak; j++)
        if (g.peak_at[j] == i)
            return g.levels;
    return (int)below(draw(g.seed, g.salt, i), (uint32_t)g.levels);
}

/* The value of a level: exact in float. */
__host__ __device__ static inline float am_value_of(const agen &g, int level)
{
    return (float)((double)(g.base + level) * (double)g.step);
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
