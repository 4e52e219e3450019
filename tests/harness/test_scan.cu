/* test_scan.cu — the scan family's host arithmetic, without a GPU: the CPU's
 * marks and the prefixes worked out from them agree with a running sum, no
 * prefix of any input (changed or not) leaves int, a timed sample's changes
 * are where and what the judge says and make a result kept from the sample
 * before wrong, and the poison is never right.  It includes the family's
 * source, so it sees its static functions; nothing here touches a device. */
#include <limits.h>

#include "../../tutor/harness/hx_fam_scan.cu"
#include "tap.h"

using namespace hx;

static const unsigned long long sizes[] = {1, 2, 3, 4095, 4096, 4097, 8193, 65537, (1u << 20) + 3};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* The running sum of g, with ch applied, as a vector. */
static std::vector<long long> brute(const gen &g, const sc_changes *ch)
{
    std::vector<long long> p(g.n);
    long long s = 0;
    for (unsigned long long i = 0; i < g.n; i++) {
        long long v = elem<int>::value(g, i);
        for (int m = 0; ch && m < ch->count; m++)
            if (ch->idx[m] == i)
                v = ch->val[m];
        p[i] = (s += v);
    }
    return p;
}

/* Every mark, and the prefix at every index (at 2000 places for the
 * largest), from the marks as from the running sum. */
static void marks_match_running_sum(void)
{
    for (int k = 0; k < NSIZES; k++)
        for (uint64_t seed = 1; seed <= 2; seed++) {
            gen g = elem<int>::make(seed * 7919, 3 + k, sizes[k]);
            std::vector<long long> m = sc_marks(g), p = brute(g, NULL);
            EXPECT(m.size() == (g.n + SC_MARK - 1) / SC_MARK + 1);
            EXPECT(m[0] == 0 && m.back() == p.back());
            for (size_t b = 1; b + 1 < m.size(); b++)
                EXPECT(m[b] == p[b * SC_MARK - 1]);
            unsigned long long step = g.n > 100000 ? g.n / 2000 : 1;
            for (unsigned long long i = 0; i < g.n; i += step)
                EXPECT(sc_prefix_at(g, m, i) == p[i]);
            EXPECT(sc_prefix_at(g, m, g.n - 1) == p.back());
        }
}

/* No prefix of the generated input, nor of any sample's changed input,
 * leaves the range of int: every element of a kernel's result is exact. */
static void no_prefix_overflows(void)
{
    for (int k = 0; k < NSIZES; k++) {
        gen g = elem<int>::make(42, 1000 + k, sizes[k]);
        EXPECT((long long)g.range * (long long)g.n <= INT_MAX);
        for (uint64_t s = 0; s < 3; s++) {
            sc_changes ch = sc_changes_of(g, s);
            std::vector<long long> p = brute(g, &ch);
            long long lo = 0, hi = 0;
            for (long long x : p) {
                lo = std::min(lo, x);
                hi = std::max(hi, x);
            }
            EXPECT(lo >= INT_MIN && hi <= INT_MAX);
        }
    }
}

/* A sample changes min(n, 4) distinct elements, each to another value of
 * the range; the undo puts the generated values back; and the right prefix
 * the judge works out from the reference and the deltas is the running sum
 * of the changed input. */
static void changes_are_what_the_judge_says(void)
{
    for (int k = 0; k < NSIZES; k++) {
        gen g = elem<int>::make(99, 7 + k, sizes[k]);
        std::vector<long long> base = brute(g, NULL);
        for (uint64_t s = 0; s < 20; s++) {
            sc_changes ch = sc_changes_of(g, s), u = sc_undo_of(g, ch);
            EXPECT(ch.count == (int)std::min<unsigned long long>(g.n, SC_CHANGES));
            for (int m = 0; m < ch.count; m++) {
                int old = elem<int>::value(g, ch.idx[m]);
                EXPECT(ch.idx[m] < g.n);
                for (int q = 0; q < m; q++)
                    EXPECT(ch.idx[q] != ch.idx[m]);
                EXPECT(ch.val[m] != old && ch.delta[m] == (long long)ch.val[m] - old);
                EXPECT(ch.val[m] >= -g.range && ch.val[m] <= g.range);
                EXPECT(u.idx[m] == ch.idx[m] && u.val[m] == old && u.delta[m] == 0);
            }
            if (g.n > 100000)
                continue;
            std::vector<long long> p = brute(g, &ch);
            for (unsigned long long i = 0; i < g.n; i++)
                EXPECT(sc_right(base[i], ch, i) == p[i]);
        }
    }
}

/* A result kept from sample s is wrong in sample s + 1, from the first
 * place where the two samples' changes differ on. */
static void kept_results_are_wrong(void)
{
    const unsigned long long n = 10007;
    gen g = elem<int>::make(5, 77, n);
    for (uint64_t s = 0; s < 50; s++) {
        sc_changes a = sc_changes_of(g, s), b = sc_changes_of(g, s + 1);
        std::vector<long long> pa = brute(g, &a), pb = brute(g, &b);
        unsigned long long diff = 0;
        for (unsigned long long i = 0; i < n; i++)
            diff += pa[i] != pb[i];
        EXPECT(diff > 0);
        /* The last prefix too, unless the deltas happen to cancel. */
        long long da = 0, db = 0;
        for (int m = 0; m < a.count; m++) {
            da += a.delta[m];
            db += b.delta[m];
        }
        EXPECT((pa.back() != pb.back()) == (da != db));
    }
}

/* The bank's scan without carries on the CPU
 * (tests/bank/scan_no_block_carry.cu): every tile of 8192 scanned from 0.
 * The trial check passes it up to one tile and fails it from 8193 on, first
 * at the tile's first element; the right result passes. */
static void tile_local_scan_fails_past_one_tile(void)
{
    const unsigned tile = 8192;
    for (unsigned long long n : {1ull, 4097ull, 8191ull, 8192ull, 8193ull, 16385ull, 65537ull}) {
        gen g = elem<int>::make(3, 11, n);
        std::vector<int> out(n);
        long long s = 0;
        for (unsigned long long i = 0; i < n; i++) {
            if (i % tile == 0)
                s = 0;
            out[i] = (int)(s += elem<int>::value(g, i));
        }
        unsigned long long first = ~0ull;
        long long want = 0, last = 0;
        unsigned long long bad = sc_cpu_check(g, out.data(), &first, &want, &last);
        if (n <= tile) {
            EXPECT(bad == 0);
        } else {
            EXPECT(bad > 0 && first == tile);
        }
        std::vector<long long> p = brute(g, NULL);
        for (unsigned long long i = 0; i < n; i++)
            out[i] = (int)p[i];
        EXPECT(sc_cpu_check(g, out.data(), &first, &want, &last) == 0 && last == p.back());
    }
}

/* The reference's hash: any one element changed (to any value) or two
 * swapped changes it; adding in another order does not. */
static void reference_hash_sees_any_change(void)
{
    const unsigned long long n = 4096;
    gen g = elem<int>::make(8, 21, n);
    std::vector<long long> p = brute(g, NULL);
    int changed = 0, swapped = 0;
    for (uint64_t trial = 0; trial < 2000; trial++) {
        uint64_t key = mix(trial + 1);
        unsigned long long h = 0, back = 0;
        for (unsigned long long i = 0; i < n; i++)
            h += sc_hash_term(key, i, (int)p[i]);
        for (unsigned long long i = n; i-- > 0;)
            back += sc_hash_term(key, i, (int)p[i]);
        EXPECT(h == back);
        unsigned long long i = below(mix(trial), (uint32_t)n), j = (i + 1 + below(mix(~trial), n - 1)) % n;
        int v = (int)p[i] + 1 + (int)below(mix(trial * 3), 1000);
        changed += h - sc_hash_term(key, i, (int)p[i]) + sc_hash_term(key, i, v) != h;
        if (p[i] != p[j])
            swapped += h - sc_hash_term(key, i, (int)p[i]) - sc_hash_term(key, j, (int)p[j]) +
                       sc_hash_term(key, i, (int)p[j]) + sc_hash_term(key, j, (int)p[i]) != h;
        else
            swapped++;
    }
    EXPECT(changed == 2000 && swapped == 2000);
}

/* The poison is never the right value, changes with the key, and holds
 * nothing of the answer: for a fixed key and place it is the same whatever
 * the right value is, unless it had to be drawn again. */
static void poison_is_never_right(void)
{
    int redrawn = 0, same_key = 0;
    for (uint64_t q = 0; q < 200000; q++) {
        uint64_t key = mix(q * 31 + 7);
        long long right = (long long)(int)(uint32_t)mix(q);
        int p = sc_poison(key, q, right);
        EXPECT((long long)p != right);
        /* Forcing a collision makes it draw again. */
        int first = sc_poison(key, q, INT_MIN - 1ll);
        if (first != sc_poison(key, q, first))
            redrawn++;
        same_key += sc_poison(key, q, 0) == sc_poison(key ^ 1, q, 0);
    }
    EXPECT(redrawn == 200000);
    EXPECT(same_key < 5);
}

TAP_MAIN(T(marks_match_running_sum), T(no_prefix_overflows), T(changes_are_what_the_judge_says),
         T(kept_results_are_wrong), T(tile_local_scan_fails_past_one_tile),
         T(reference_hash_sees_any_change), T(poison_is_never_right))
