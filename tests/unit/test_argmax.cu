/* test_argmax.cu — lab 11's inputs and key (tutor/harness/hx_argmax.cuh,
 * lab.h's lab_argmax_key) on the CPU: the key orders (value, index) pairs
 * as argmax wants and comes apart again; the levels are floats in strict
 * order, never NaN, -0.0 or -infinity; the four modes and the peaks all
 * occur; the drawn values cover every exponent of both signs, subnormals,
 * +0.0 and neighbours a few ulps apart; the maximum has ties in nearly
 * every input; the judge's shortcut answer equals a full scan; a timed
 * sample's change always moves the answer, and
 * the answer after it equals a full scan of the changed input; and the
 * wrong kernels of the bank (last index of ties, a search from 0.0f, a 90%
 * prefix, comparing in 24.8 fixed point) are caught by every seed's trials or first 250 timed samples.  Built
 * by nvcc, run without a GPU. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "../../tutor/harness/hx_argmax.cuh"

using namespace hx;

/* The catalog's trial sizes for family argmax (data/labs.json). */
static const unsigned long long SIZES[] = {1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
                                           511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4097, 65535,
                                           65537, 999983, 1048576, 1234567, 4194301, 16777259};
#define N(a) ((int)(sizeof(a) / sizeof(a)[0]))
enum { SEEDS = 40, SMALL = 26 };        /* SIZES[0..SMALL) are cheap to scan whole */

/* A full scan: the key of the largest value at its first index. */
static unsigned long long scan_key(const agen &g, unsigned long long skip_from = ~0ull)
{
    unsigned long long best = 0;
    for (unsigned long long i = 0; i < g.n && i < skip_from; i++) {
        unsigned long long k = lab_argmax_key(am_value(g, i), (unsigned)i);
        best = k > best ? k : best;
    }
    return best;
}

static void the_key_orders_pairs_and_comes_apart(void)
{
    const float v[] = {-INFINITY, -3e38f, -2.5f, -1.0f, -1e-30f, 0.0f, 1e-30f, 1.0f, 2.5f, 3e38f, INFINITY};
    for (int a = 0; a < N(v); a++)
        for (int b = 0; b < N(v); b++)
            for (unsigned ia = 0; ia < 3; ia++)
                for (unsigned ib = 0; ib < 3; ib++) {
                    int better = v[a] > v[b] || (v[a] == v[b] && ia < ib);
                    int bigger = lab_argmax_key(v[a], ia) > lab_argmax_key(v[b], ib);
                    EXPECT(better == bigger);
                }
    for (int a = 0; a < N(v); a++) {
        unsigned long long k = lab_argmax_key(v[a], 123456789u);
        EXPECT(lab_argmax_value(k) == v[a] && lab_argmax_index(k) == 123456789u);
    }
    /* Key 0, the launchers' start, is below every real key. */
    EXPECT(lab_argmax_key(-INFINITY, 0xffffffffu) > 0);
}

/* Levels 0 .. K+1 are floats in strictly increasing order, never NaN,
 * -0.0 or -infinity; a negative input has only negative values; all four
 * modes and the peaks occur. */
static void values_are_ordered_and_never_nan_or_negative_zero(void)
{
    int modes[AM_MODES] = {0}, peaks = 0, bad = 0, infs = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++)
        for (int t = 0; t < N(SIZES); t++) {
            agen g = am_make(seed * 7919, 1 + (uint64_t)t, SIZES[t]);
            modes[g.mode]++;
            peaks += g.npeak > 0;
            for (int l = 0; l <= g.levels + 1; l++) {
                float x = am_value_of(g, l);
                bad += isnan(x) || (x == 0.0f && signbit(x)) || x == -INFINITY;
                bad += l > 0 && !(am_value_of(g, l - 1) < x);
                bad += g.mode == AM_NEGATIVE && !(x < 0.0f);
                infs += x == INFINITY;
                bad += x == INFINITY && !(g.inf_top && l == g.levels + 1);
            }
        }
    EXPECT(bad == 0);
    for (int m = 0; m < AM_MODES; m++)
        EXPECT(modes[m] > SEEDS * N(SIZES) / 8);
    EXPECT(peaks > SEEDS * N(SIZES) / 2 && peaks < SEEDS * N(SIZES));
    EXPECT(infs > 0);
}

/* The drawn range, measured on the values the trials' inputs hold (every
 * element of the small sizes, every level of the large ones, where each
 * level occurs about 16 times): every exponent of both signs, subnormals
 * of both signs, +0.0, values one unit in the last place apart, and the
 * maximum tied at several indices. */
static void values_cover_every_exponent(void)
{
    static int seen[2][256];
    int zero = 0, subnormal[2] = {0, 0}, adjacent = 0, zero_max_tied = 0, many_ties = 0;
    memset(seen, 0, sizeof seen);
    for (uint64_t seed = 1; seed <= 8; seed++)
        for (int t = 0; t < N(SIZES); t++) {
            agen g = am_make(seed, 1 + (uint64_t)t, SIZES[t]);
            for (int l = 0; l < g.levels + 1; l++) {
                float x = am_value_of(g, l);
                uint32_t u;
                memcpy(&u, &x, sizeof u);
                int neg = (int)(u >> 31), e = (int)((u >> 23) & 0xff);
                seen[neg][e]++;
                zero += x == 0.0f;
                subnormal[neg] += e == 0 && x != 0.0f;
                if (l > 0) {
                    uint32_t a = am_ordered_of(am_value_of(g, l - 1)), b = am_ordered_of(x);
                    adjacent += b - a <= 4;
                }
            }
            if (t >= SMALL)
                continue;
            aanswer a = am_answer(g);
            unsigned long long copies = 0;
            for (unsigned long long i = 0; i < g.n; i++)
                copies += am_level(g, i) == a.level;
            many_ties += copies >= 4;
            zero_max_tied += copies >= 2 && am_value_of(g, a.level) == 0.0f;
        }
    int missing = 0;
    for (int neg = 0; neg < 2; neg++)
        for (int e = 1; e < 255; e++)
            missing += seen[neg][e] == 0;
    printf("# exponents 1..254 of both signs: %d missing; subnormals %d negative, %d positive; +0.0 %d times; "
           "%d levels within 4 ulps of the one below; the maximum +0.0 and tied in %d inputs, tied 4 times or "
           "more in %d\n", missing, subnormal[1], subnormal[0], zero, adjacent, zero_max_tied, many_ties);
    EXPECT(missing == 0);
    EXPECT(subnormal[0] > 0 && subnormal[1] > 0);
    EXPECT(zero > 0 && zero_max_tied > 0);
    EXPECT(adjacent > 0);
    EXPECT(many_ties > 8 * SMALL / 4);
}

static void the_shortcut_answer_is_a_full_scan(void)
{
    int wrong = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++)
        for (int t = 0; t < SMALL; t++) {
            agen g = am_make(seed, 1 + (uint64_t)t, SIZES[t]);
            wrong += am_key(g, am_answer(g)) != scan_key(g);
        }
    EXPECT(wrong == 0);
    /* And on one large input, the whole 2^22. */
    agen g = am_make(99, 1000, 1u << 22);
    EXPECT(am_key(g, am_answer(g)) == scan_key(g));
}

/* Ties for the maximum, so that only the first index is right: counted on
 * the inputs of 64 elements or more. */
static void the_maximum_has_ties(void)
{
    int inputs = 0, tied = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++)
        for (int t = 0; t < SMALL; t++) {
            agen g = am_make(seed, 1 + (uint64_t)t, SIZES[t]);
            if (g.n < 64)
                continue;
            aanswer a = am_answer(g);
            unsigned long long copies = 0;
            for (unsigned long long i = 0; i < g.n; i++)
                copies += am_level(g, i) == a.level;
            inputs++;
            tied += copies >= 2;
        }
    printf("# %d of %d inputs of 64 elements or more have the maximum twice or more\n", tied, inputs);
    /* A single peak is the one way to have no tie: one input in three. */
    EXPECT(tied * 10 >= inputs * 5);
}

/* The answer after a sample's change, by a full scan of the changed input. */
static unsigned long long scan_changed(const agen &g, const achange &c)
{
    unsigned long long best = 0;
    for (unsigned long long i = 0; i < g.n; i++) {
        int l = i == c.idx ? c.level : am_level(g, i);
        unsigned long long k = lab_argmax_key(am_value_of(g, l), (unsigned)i);
        best = k > best ? k : best;
    }
    return best;
}

static void timed_changes_always_move_the_answer(void)
{
    int wrong = 0, still = 0, before = 0;
    for (uint64_t seed = 1; seed <= 8; seed++)
        for (int t = 0; t < SMALL; t++) {
            agen g = am_make(seed, 1000 + (uint64_t)t, SIZES[t]);
            aanswer a = am_answer(g);
            for (uint64_t k = 0; k < 12; k++) {
                achange c;
                aanswer after = am_change(g, a, k, &c);
                unsigned long long want = am_key(g, after);
                wrong += want != scan_changed(g, c);
                still += want == am_key(g, a);
                before += (k & 1) && after.level == a.level && after.first < a.first;
            }
        }
    EXPECT(wrong == 0);
    EXPECT(still == 0);
    printf("# %d odd samples put a copy of the maximum before its first index\n", before);
    EXPECT(before > 100);
}

/* (int)(x * 256) as the GPU converts it: toward zero, saturating. */
static int fixed_point(float x)
{
    double v = (double)x * 256.0;
    return v >= 2147483647.0 ? INT_MAX : v <= -2147483648.0 ? INT_MIN : (int)v;
}

/* The bank's wrong kernels, emulated: each must be caught by every seed,
 * in its trials or (the prefix) in the first 250 samples of the 2^28
 * case. */
static void the_banks_wrong_kernels_are_caught(void)
{
    int last_caught = 0, zero_caught = 0, prefix_caught = 0, fixed_caught = 0, trials_caught = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        int last = 0, zero = 0, prefix = 0, fixed = 0, trials = 0;
        /* Without a GPU nothing is timed: the trials alone, up to the CPU
         * judge's 2^20, must catch the prefix (tests/bank/argmax_prefix.cu). */
        for (int t = 0; t < N(SIZES) && SIZES[t] <= (1u << 20); t++) {
            agen g = am_make(seed, 1 + (uint64_t)t, SIZES[t]);
            trials |= am_answer(g).first >= g.n - g.n / 10;
        }
        for (int t = 0; t < SMALL; t++) {
            agen g = am_make(seed, 1 + (uint64_t)t, SIZES[t]);
            aanswer a = am_answer(g);
            unsigned long long want = am_key(g, a), last_k = 0, zero_k = lab_argmax_key(0.0f, 0), fixed_k = 0;
            for (unsigned long long i = 0; i < g.n; i++) {
                float x = am_value(g, i);
                /* tests/bank/argmax_fixed_point.cu: keys of (int)(x * 256) */
                unsigned long long fk = ((unsigned long long)((unsigned)fixed_point(x) ^ 0x80000000u) << 32) |
                                        (unsigned)~i;
                fixed_k = fk > fixed_k ? fk : fixed_k;
                /* index, not ~index: the last of equal values wins */
                unsigned long long k = (lab_argmax_key(x, 0) & ~0xffffffffull) | i;
                last_k = k > last_k ? k : last_k;
                zero_k = x > 0.0f && lab_argmax_key(x, (unsigned)i) > zero_k ? lab_argmax_key(x, (unsigned)i) : zero_k;
            }
            last |= ((last_k & ~0xffffffffull) | ~(unsigned)last_k) != want;
            zero |= zero_k != want;
            unsigned fi = ~(unsigned)fixed_k;
            fixed |= lab_argmax_key(am_value(g, fi), fi) != want;
            prefix |= a.first >= g.n - g.n / 10;
        }
        /* The 2^28 case (the target's, the one --quick times) takes about
         * 570 samples of a solution's 0.35 ms on an H100 at the tutor's
         * 200 ms budget, 285 at grade.sh's 100 ms: 250 are counted here. */
        agen g = am_make(seed, 1000 + 28, 1u << 28);
        aanswer a = am_answer(g);
        for (uint64_t k = 0; k < 250; k++) {
            achange c;
            aanswer after = am_change(g, a, k, &c);
            prefix |= after.first >= g.n - g.n / 10;
        }
        last_caught += last;
        zero_caught += zero;
        prefix_caught += prefix;
        fixed_caught += fixed;
        trials_caught += trials;
    }
    printf("# caught, of %d seeds: last index %d, start from 0.0f %d, a 90%% prefix %d (by the trials alone "
           "%d), 24.8 fixed point %d\n", SEEDS, last_caught, zero_caught, prefix_caught, trials_caught, fixed_caught);
    EXPECT(fixed_caught == SEEDS);
    EXPECT(last_caught == SEEDS);
    EXPECT(zero_caught == SEEDS);
    EXPECT(prefix_caught == SEEDS);
    EXPECT(trials_caught == SEEDS);
}

TAP_MAIN(T(the_key_orders_pairs_and_comes_apart), T(values_are_ordered_and_never_nan_or_negative_zero),
         T(values_cover_every_exponent),
         T(the_shortcut_answer_is_a_full_scan), T(the_maximum_has_ties), T(timed_changes_always_move_the_answer),
         T(the_banks_wrong_kernels_are_caught))
