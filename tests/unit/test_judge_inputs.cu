/* test_judge_inputs.cu — the judge's verification rules, on the CPU: the
 * reduce families' generators and references, the poison, the float
 * tolerance against estimates from a subset, the timed samples' changes,
 * the jitter of the timed sizes and the plausibility rule (docs/harness.md,
 * "Verification").  Host code of the judge only: no GPU is touched. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../tutor/harness/hx_reduce.cuh"
#include "tap.h"

using hx::elem;
using hx::gen;
typedef hx::reduce_family<float> ffam;
typedef hx::reduce_family<int> ifam;

/* The family objects reference the lab entry points; nothing calls them. */
extern "C" void lab_reduce_int(const int *, unsigned, int *, void *, cudaStream_t) {}
extern "C" void lab_reduce_float(const float *, unsigned, float *, void *, cudaStream_t) {}

static const unsigned long long sizes[] = {1, 2, 15, 16, 17, 31, 1000, 65537, 1u << 20};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* Sums every element as the device writes it: what the reference's short
 * cut (bulk base values, then the large ones apart) must agree with. */
static void brute(const gen &g, double *sum, double *abs_sum)
{
    *sum = *abs_sum = 0;
    for (unsigned long long i = 0; i < g.n; i++) {
        double v = elem<float>::value(g, i);
        *sum += v;
        *abs_sum += fabs(v);
    }
}

static void float_reference_matches_every_element(void)
{
    for (int k = 0; k < NSIZES; k++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            gen g = elem<float>::make(seed * 7919, 5 + k, sizes[k]);
            ffam::sums r = ffam::reference(g);
            double s, a;
            brute(g, &s, &a);
            EXPECT(fabs(r.sum - s) <= 1e-9 * a);
            EXPECT(fabs(r.abs_sum - a) <= 1e-9 * a);
        }
}

static void float_large_values_are_sparse_distinct_and_everywhere(void)
{
    for (int k = 0; k < NSIZES; k++) {
        gen g = elem<float>::make(42, 9, sizes[k]);
        unsigned long long n = sizes[k];
        EXPECT(g.nbig == (n < hx::MAX_BIG ? (int)n : hx::MAX_BIG));
        unsigned long long stretch = n / g.nbig;
        for (int j = 0; j < g.nbig; j++) {
            /* One in each stretch: no part of the array is free of them. */
            EXPECT(g.big_at[j] >= j * stretch && g.big_at[j] < (j + 1) * stretch);
            EXPECT(fabs(g.big[j]) >= 0.125 * n * g.scale);
            EXPECT(g.big[j] * g.big[0] > 0);
        }
    }
}

/* Estimates from a subset: one element in 32 times 32 (the exploit the
 * sparse values are for), every other element times 2, and the first 99%
 * scaled up.  Each must fail at every seed.  Scaling by 1/f is caught by at
 * most (1/f - 1) * 2^11 times the tolerance when nothing large is missed
 * (20 for 99%, which saves 1% of the reading); one element in 32 misses
 * by 50 times or more whichever large values it happens to read. */
static void float_subset_estimates_miss_by_far(void)
{
    const unsigned long long n = 1u << 20;
    double worst[3] = {INFINITY, INFINITY, INFINITY};
    for (uint64_t seed = 1; seed <= 40; seed++) {
        gen g = elem<float>::make(seed * 104729, 1000, n);
        ffam::sums r = ffam::reference(g);
        double tol = ldexp(r.abs_sum, -11), est[3] = {0, 0, 0};
        for (unsigned long long i = 0; i < n; i += 32)
            est[0] += 32.0 * elem<float>::value(g, i);
        for (unsigned long long i = seed & 1; i < n; i += 2)
            est[1] += 2.0 * elem<float>::value(g, i);
        for (unsigned long long i = 0; i < n - n / 100; i++)
            est[2] += elem<float>::value(g, i) * ((double)n / (n - n / 100));
        for (int k = 0; k < 3; k++) {
            worst[k] = fmin(worst[k], fabs(est[k] - r.sum) / tol);
            EXPECT(!elem<float>::right(r.sum, r.abs_sum, (float)est[k]));
        }
    }
    printf("#   the closest estimates missed by %.0f (1/32), %.0f (1/2) and %.0f (99%%) times "
           "the tolerance\n", worst[0], worst[1], worst[2]);
    EXPECT(worst[0] > 50);
}

static void float_tolerance_is_the_documented_bound(void)
{
    double exact = 1000.0, abs_sum = 4096.0, tol = ldexp(abs_sum, -11);
    EXPECT(elem<float>::right(exact, abs_sum, (float)(exact + 0.99 * tol)));
    EXPECT(elem<float>::right(exact, abs_sum, (float)(exact - 0.99 * tol)));
    EXPECT(!elem<float>::right(exact, abs_sum, (float)(exact + 1.01 * tol)));
    EXPECT(!elem<float>::right(exact, abs_sum, (float)(exact - 1.01 * tol)));
    EXPECT(!elem<float>::right(exact, abs_sum, elem<float>::poison(exact)));
}

/* A timed sample changes one element: a result from before the change must
 * fail, by a wide margin for floats, by any margin for ints. */
static void timed_changes_defeat_a_kept_result(void)
{
    gen g = elem<float>::make(77, 1001, 1u << 16);
    ffam::sums r = ffam::reference(g);
    double least = INFINITY;
    for (uint64_t k = 0; k < 2000; k++) {
        uint64_t bits = hx::mix(k * 0x51ed27ull);
        unsigned long long i = hx::below(bits, (uint32_t)g.n);
        float old = elem<float>::value(g, i), nv = elem<float>::change(g, i, old, hx::mix(bits), r.abs_sum);
        double want = r.sum - old + nv, abs_sum = r.abs_sum - fabs((double)old) + fabs((double)nv);
        EXPECT(!elem<float>::right(want, abs_sum, (float)r.sum));
        least = fmin(least, fabs((double)nv - old) / ldexp(abs_sum, -11));
    }
    printf("#   the smallest float change was %.0f times the tolerance\n", least);
    EXPECT(least >= 100);

    for (uint64_t salt = 1001; salt < 1001 + hx::INT_SHAPES; salt++) {
        gen gi = elem<int>::make(77, salt, 1000);
        for (uint64_t k = 0; k < 2000; k++) {
            unsigned long long i = k % 1000;
            int old = elem<int>::value(gi, i), nv = elem<int>::change(gi, i, old, hx::mix(k), 0);
            int s = elem<int>::stretch(gi, i);
            EXPECT(nv != old);
            EXPECT(nv >= gi.st_lo[s] && nv <= gi.st_hi[s]);
        }
    }
}

/* Whatever the shape, the positive elements add up to at most INT_MAX and
 * the negative ones to at least -INT_MAX (so no sum of any of them, in any
 * order, overflows), every element lies in its stretch, and the stretches
 * cover [0, n). */
static void int_values_cannot_overflow_in_any_order(void)
{
    int shapes[hx::INT_SHAPES] = {0};
    for (int k = 0; k < NSIZES; k++)
        for (uint64_t salt = 1; salt <= 8; salt++) {
            gen g = elem<int>::make(3, salt, sizes[k]);
            long long most = 0, least = 0;
            unsigned long long start = 0;
            shapes[g.shape]++;
            for (int s = 0; s < g.nstretch; s++) {
                long long len = (long long)(g.st_end[s] - start);
                EXPECT(len > 0 && g.st_lo[s] <= g.st_hi[s]);
                most += len * (g.st_hi[s] > 0 ? g.st_hi[s] : 0);
                least += len * (g.st_lo[s] < 0 ? g.st_lo[s] : 0);
                start = g.st_end[s];
            }
            EXPECT(start == g.n);
            EXPECT(most <= INT_MAX && least >= -(long long)INT_MAX);
            for (unsigned long long i = 0; i < sizes[k] && i < 4096; i++) {
                int s = elem<int>::stretch(g, i), v = elem<int>::value(g, i);
                EXPECT(v >= g.st_lo[s] && v <= g.st_hi[s]);
            }
        }
    for (int sh = 0; sh < hx::INT_SHAPES; sh++)
        EXPECT(shapes[sh] > 0);
}

/* reduce_int's partial sums reach 2^30 in some trial of every few sizes: a
 * reduction that keeps a block's partial in 30 bits fails. */
static void int_partial_sums_reach_2_to_the_30(void)
{
    const unsigned long long ns[] = {65535, 65537, 999983, 1048576};
    long long top = 0;
    for (int k = 0; k < 4; k++) {
        gen g = elem<int>::make(11, 26 + (uint64_t)k, ns[k]);
        long long s = 0;
        for (unsigned long long i = 0; i < g.n; i++) {
            s += elem<int>::value(g, i);
            top = llabs(s) > top ? llabs(s) : top;
        }
    }
    printf("#   the largest |prefix| over four trials: %lld\n", top);
    EXPECT(top >= 1ll << 30);
}

/* The poison tells nothing: fresh bits every call, never the answer. */
static void int_poison_is_fresh_and_never_the_answer(void)
{
    int same = 0, prev = elem<int>::poison(0);
    for (int k = 0; k < 1000; k++) {
        int p = elem<int>::poison((double)k);
        EXPECT((double)p != (double)k);
        same += p == prev;
        prev = p;
    }
    EXPECT(same < 3);
}

/* Runs a fill or check part for every thread of the grid the judge
 * launches for bytes, as the device would. */
static void fill_as_launched(uint8_t *p, unsigned long long bytes, uint64_t key)
{
    unsigned long long threads = (unsigned long long)hx::poison_grid(bytes) * hx::POISON_THREADS;
    for (unsigned long long t = 0; t < threads; t++)
        hx::poison_fill_part(p, bytes, key, t, threads);
}

static void check_as_launched(const uint8_t *p, unsigned long long bytes, uint64_t key, unsigned long long keep_lo,
                              unsigned long long keep_hi, unsigned long long *bad, unsigned long long *first)
{
    unsigned long long threads = (unsigned long long)hx::poison_grid(bytes) * hx::POISON_THREADS;
    *bad = 0;
    *first = ~0ull;
    for (unsigned long long t = 0; t < threads; t++) {
        unsigned long long b = 0, f = 0;
        hx::poison_check_part(p, bytes, key, keep_lo, keep_hi, t, threads, &b, &f);
        if (b && f < *first)
            *first = f;
        *bad += b;
    }
}

/* Every byte of an allocation gets the poison (aligned or not, any size:
 * the output arena, the scratch of the timed sizes), fresh for every key:
 * two fills differ in nearly every byte, so nothing of a call before it
 * is left and nothing of it can be foreseen. */
static void whole_allocations_are_poisoned(void)
{
    const unsigned long long sizes_b[] = {1, 7, 8, 9, 4099, hx::OUT_ARENA, LAB_SCRATCH_BYTES(1000003),
                                          LAB_SCRATCH_BYTES(1u << 26)};
    unsigned long long unpoisoned = 0, same = 0, total = 0;
    for (unsigned k = 0; k < sizeof sizes_b / sizeof sizes_b[0]; k++)
        for (int shift = 0; shift < 2; shift++) {
            unsigned long long bytes = sizes_b[k];
            uint8_t *mem = (uint8_t *)aligned_alloc(64, bytes + 64), *p = mem + shift * 3;
            uint64_t key = hx::poison_bits(), key2 = hx::poison_bits();
            memset(mem, 0, bytes + 64);
            fill_as_launched(p, bytes, key);
            for (unsigned long long b = 0; b < bytes; b++)
                unpoisoned += p[b] != hx::poison_byte(key, b);
            fill_as_launched(p, bytes, key2);
            for (unsigned long long b = 0; b < bytes; b++)
                same += p[b] == hx::poison_byte(key, b);
            for (unsigned long long b = bytes; b < bytes + 64 - shift * 3; b++)
                unpoisoned += p[b] != 0;        /* and nothing past it */
            total += bytes;
            free(mem);
        }
    printf("#   %llu bytes poisoned twice: %llu not poisoned, %llu the same under a second key\n", total,
           unpoisoned, same);
    EXPECT(unpoisoned == 0);
    EXPECT(same < total / 128);
}

/* The check after a call: any byte changed outside the result is found
 * (the first of them named), the result's own bytes are free, and an
 * untouched arena passes. */
static void bytes_around_the_result_are_checked(void)
{
    const unsigned long long bytes = hx::OUT_ARENA;
    uint8_t *p = (uint8_t *)aligned_alloc(256, bytes);
    uint64_t key = hx::poison_bits();
    unsigned long long bad, first, missed = 0, wrong = 0;
    fill_as_launched(p, bytes, key);
    check_as_launched(p, bytes, key, 512, 516, &bad, &first);
    EXPECT(bad == 0);
    for (uint64_t k = 0; k < 300; k++) {
        unsigned long long at = hx::below(hx::mix(k), (uint32_t)bytes);
        uint8_t was = p[at];
        p[at] ^= (uint8_t)(1 + hx::below(hx::mix(~k), 255));
        check_as_launched(p, bytes, key, 512, 516, &bad, &first);
        if (at >= 512 && at < 516)
            wrong += bad != 0;
        else
            missed += bad != 1 || first != at;
        p[at] = was;
    }
    /* A memo beside the result: 12 bytes after it. */
    memset(p + 520, 0x42, 12);
    check_as_launched(p, bytes, key, 512, 516, &bad, &first);
    EXPECT(bad >= 11 && first == 520);
    free(p);
    EXPECT(missed == 0 && wrong == 0);
}

/* The output moves: every move goes to another 256-byte-aligned place of
 * the arena with room for the result, and the places are spread over it. */
static void the_output_moves(void)
{
    hx::moving_out m = {};
    m.size = 8;
    m.bytes = hx::OUT_ARENA;
    static int seen[hx::OUT_ARENA / hx::OUT_ALIGN];
    int stayed = 0, bad = 0;
    for (int k = 0; k < 200000; k++) {
        unsigned long long before = m.at;
        hx::moving_out_move(&m);
        stayed += m.at == before;
        bad += m.at % hx::OUT_ALIGN != 0 || m.at + m.size > hx::OUT_ARENA;
        seen[m.at / hx::OUT_ALIGN]++;
    }
    int places = 0;
    for (int i = 0; i < hx::OUT_ARENA / hx::OUT_ALIGN; i++)
        places += seen[i] > 0;
    EXPECT(stayed == 0 && bad == 0);
    EXPECT(places == hx::OUT_ARENA / hx::OUT_ALIGN);
}

static void timed_sizes_are_jittered_from_the_seed(void)
{
    hx::opts a = {}, b = {};
    const unsigned long long ns[] = {1ull << 22, 1ull << 26, 1ull << 28, 1000};
    for (int i = 0; i < 4; i++) {
        snprintf(a.perf[i].label, sizeof a.perf[i].label, "case%d", i);
        a.perf[i].n = a.perf[i].n_catalog = ns[i];
    }
    a.nperf = 4;
    b = a;
    a.seed = b.seed = 12345;
    hx::perf_jitter(&a);
    hx::perf_jitter(&b);
    int moved = 0;
    for (int i = 0; i < 4; i++) {
        EXPECT(a.perf[i].n == b.perf[i].n);            /* --seed reproduces it */
        EXPECT(a.perf[i].n <= ns[i] && a.perf[i].n >= ns[i] - ns[i] / 64 && a.perf[i].n >= 1);
        moved += a.perf[i].n != ns[i];
    }
    EXPECT(moved >= 3);
    int differ = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        hx::opts c = b;
        for (int i = 0; i < 4; i++)
            c.perf[i].n = ns[i];
        c.seed = seed;
        hx::perf_jitter(&c);
        differ += c.perf[2].n != a.perf[2].n;
    }
    EXPECT(differ >= 19);
}

static void plausibility_rule(void)
{
    hx::report r = {};
    hx::ctx c = {};
    c.r = &r;
    r.dev.read_gbps = 3000;
    r.dev.copy_gbps = 2800;
    hx::family bw = {}, compute = {};
    compute.compute_bound = 1;
    hx::perf p = {};

    /* 4 GB in 1.3 ms is 3077 GB/s: within 10% of the read peak. */
    p.bytes = 4e9;
    p.t.median_ms = 1.3;
    hx::perf_finish(&c, &bw, &p, 1e9);
    EXPECT(!p.implausible);
    /* In 1.0 ms it is 4000 GB/s: no kernel read all of that. */
    p.t.median_ms = 1.0;
    hx::perf_finish(&c, &bw, &p, 1e9);
    EXPECT(p.implausible);
    EXPECT(strstr(p.implausible_why, "faster than the streaming read") != NULL);
    bw.peak_is_copy = 1;
    p.t.median_ms = 1.2;                /* 3333 GB/s against a 2800 copy peak */
    hx::perf_finish(&c, &bw, &p, 1e9);
    EXPECT(p.implausible);
    /* The baseline read the same 4 GB at 3200 GB/s: 3333 is within 10% of
     * it, though 19% above the copy peak measured low. */
    p.ref.median_ms = 1.25;
    hx::perf_finish(&c, &bw, &p, 1e9);
    EXPECT(!p.implausible);
    /* 4000 GB/s is past both. */
    p.t.median_ms = 1.0;
    hx::perf_finish(&c, &bw, &p, 1e9);
    EXPECT(p.implausible);
    EXPECT(strstr(p.implausible_why, "on the same input") != NULL);
    p.ref.median_ms = 0;

    /* Compute bound: against the rate the family measured. */
    hx::perf q = {};
    q.rate_unit = "Gtrap/s";
    q.peak_rate = 100;
    q.t.median_ms = 10;                 /* 1e9 items: 100 G/s */
    hx::perf_finish(&c, &compute, &q, 1e9);
    EXPECT(!q.implausible);
    q.t.median_ms = 8;                  /* 125 G/s */
    hx::perf_finish(&c, &compute, &q, 1e9);
    EXPECT(q.implausible);
    EXPECT(strstr(q.implausible_why, "faster than this GPU can evaluate") != NULL);
    q.peak_rate = 0;                    /* nothing measured: nothing claimed */
    hx::perf_finish(&c, &compute, &q, 1e9);
    EXPECT(!q.implausible);
}

TAP_MAIN(T(float_reference_matches_every_element), T(float_large_values_are_sparse_distinct_and_everywhere),
         T(float_subset_estimates_miss_by_far), T(float_tolerance_is_the_documented_bound),
         T(timed_changes_defeat_a_kept_result), T(int_values_cannot_overflow_in_any_order),
         T(int_partial_sums_reach_2_to_the_30),
         T(int_poison_is_fresh_and_never_the_answer), T(whole_allocations_are_poisoned),
         T(bytes_around_the_result_are_checked), T(the_output_moves), T(timed_sizes_are_jittered_from_the_seed),
         T(plausibility_rule))
