/* test_select.cu — lab 12's inputs and its order-free check
 * (tutor/harness/hx_select.cuh) on the CPU: each input kind keeps the share
 * of elements it names (none and all exactly), and the odd bit is the only
 * thing that decides; the trials see every kind; the keyed sums do not
 * care about order, and removing an element undoes adding it; outputs that
 * are wrong in the ways the bank's kernels are (an element missing,
 * doubled, changed, or one survivor written over another with the count
 * right) never give the survivors' sums; a timed sample's change always
 * changes the count or the sums; and rounding n down to whole warps loses
 * survivors at every seed.  Built by nvcc, run without a GPU. */
#include <algorithm>
#include <stdio.h>
#include <vector>

#include "tap.h"
#include "../../tutor/harness/hx_select.cuh"

using namespace hx;

/* The catalog's trial sizes for family select (data/labs.json). */
static const unsigned long long SIZES[] = {1, 2, 3, 4, 5, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
                                           511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4097, 65535,
                                           65537, 999983, 1048576, 1234567, 4194301, 16777259};
#define N(a) ((int)(sizeof(a) / sizeof(a)[0]))
enum { SEEDS = 20 };

static sprint print_of(const std::vector<int> &v, const uint64_t key[2])
{
    sprint p = {0, {0, 0}};
    for (int x : v)
        sel_add(&p, key, x);
    return p;
}

static int same(const sprint &a, const sprint &b)
{
    return a.count == b.count && a.sum[0] == b.sum[0] && a.sum[1] == b.sum[1];
}

static void kinds_keep_what_they_name(void)
{
    const unsigned long long n = 1 << 20;
    for (int k = 0; k < SEL_KINDS; k++) {
        sgen g = {7, 3, n, sel_kind_frac[k]};
        unsigned long long kept = 0;
        for (unsigned long long i = 0; i < n; i++)
            kept += lab_keep(sel_value(g, i));
        double share = (double)kept / n, want = sel_kind_frac[k] / 65536.0;
        printf("# %-6s keeps %.4f (asked %.4f)\n", sel_kind_name[k], share, want);
        EXPECT(k == 0 ? kept == 0 : k == SEL_KINDS - 1 ? kept == n : fabs(share - want) < 0.01);
    }
    EXPECT(sel_kind_of("") == 2 && sel_kind_of("half") == 2 && sel_kind_of("all") == 4 && sel_kind_of("x") < 0);
}

/* Every kind, in the trials of every seed (kind = (trial + seed) % 5). */
static void trials_see_every_kind(void)
{
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        int seen[SEL_KINDS] = {0}, small_none = 0, small_all = 0;
        for (int t = 0; t < N(SIZES); t++) {
            int k = (int)((t + seed) % SEL_KINDS);
            seen[k] = 1;
            small_none |= k == 0 && SIZES[t] <= 5;
            small_all |= k == SEL_KINDS - 1 && SIZES[t] <= 5;
        }
        int all = 1;
        for (int k = 0; k < SEL_KINDS; k++)
            all &= seen[k];
        EXPECT(all && small_none && small_all);
    }
}

static void sums_ignore_order_and_undo(void)
{
    uint64_t key[2] = {0x1234567890abcdefull, 0xfedcba0987654321ull};
    sgen g = {11, 5, 100000, sel_kind_frac[2]};
    std::vector<int> v;
    for (unsigned long long i = 0; i < g.n; i++)
        if (lab_keep(sel_value(g, i)))
            v.push_back(sel_value(g, i));
    sprint a = print_of(v, key);
    std::reverse(v.begin(), v.end());
    std::rotate(v.begin(), v.begin() + 777, v.end());
    EXPECT(same(a, print_of(v, key)));
    sprint b = a;
    sel_add(&b, key, 12345);
    sel_remove(&b, key, 12345);
    EXPECT(same(a, b));
}

/* The ways an output goes wrong, each tried many times: never the same sums. */
static void wrong_outputs_never_match(void)
{
    int collisions = 0, tries = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        uint64_t key[2] = {mix(seed), mix(~seed)};
        sgen g = {seed, 9, 2000, sel_kind_frac[seed % 4 + 1]};
        std::vector<int> v;
        for (unsigned long long i = 0; i < g.n; i++)
            if (lab_keep(sel_value(g, i)))
                v.push_back(sel_value(g, i));
        if (v.size() < 3)
            continue;
        sprint want = print_of(v, key);
        std::vector<int> w = v;
        w.pop_back();                                   /* one missing */
        collisions += same(want, print_of(w, key));
        w = v;
        w.push_back(v[0]);                              /* one doubled */
        collisions += same(want, print_of(w, key));
        w = v;
        w[1] ^= 2;                                      /* one changed */
        collisions += same(want, print_of(w, key));
        w = v;
        w[2] = w[1];                                    /* one over another, count right */
        collisions += same(want, print_of(w, key)) && v[2] != v[1];
        w = v;
        w[0] = w[0] + 2;                                /* two changed so that a plain sum holds */
        w[1] = w[1] - 2;
        collisions += same(want, print_of(w, key));
        tries += 5;
    }
    printf("# %d wrong outputs, %d with the survivors' sums\n", tries, collisions);
    EXPECT(tries > 900 && collisions == 0);
}

static void timed_changes_always_change_the_answer(void)
{
    int unchanged = 0, count_moves = 0;
    uint64_t key[2] = {3, 4};
    for (int kind = 0; kind < SEL_KINDS; kind++) {
        sgen g = {5, 1000, 4097, sel_kind_frac[kind]};
        for (uint64_t k = 0; k < 200; k++) {
            unsigned long long idx;
            int v, old;
            sel_change(g, k, &idx, &v);
            old = sel_value(g, idx);
            EXPECT(idx < g.n);
            sprint a = {0, {0, 0}}, b;
            if (lab_keep(old))
                sel_add(&a, key, old);
            b = a;
            if (lab_keep(old))
                sel_remove(&b, key, old);
            if (lab_keep(v))
                sel_add(&b, key, v);
            unchanged += same(a, b);
            count_moves += a.count != b.count;
            EXPECT((k & 1) ? lab_keep(v) : lab_keep(v) != lab_keep(old));
        }
    }
    EXPECT(unchanged == 0);
    EXPECT(count_moves >= SEL_KINDS * 100);
}

/* select_drops_tail: only n rounded down to 32 is compacted. */
static void a_dropped_tail_is_caught(void)
{
    int caught = 0;
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        int wrong = 0;
        for (int t = 0; t < N(SIZES) && SIZES[t] < 100000; t++) {
            sgen g = {seed, 1 + (uint64_t)t, SIZES[t], sel_kind_frac[(t + seed) % SEL_KINDS]};
            for (unsigned long long i = g.n & ~31ull; i < g.n; i++)
                wrong |= lab_keep(sel_value(g, i));
        }
        caught += wrong;
    }
    EXPECT(caught == SEEDS);
}

TAP_MAIN(T(kinds_keep_what_they_name), T(trials_see_every_kind), T(sums_ignore_order_and_undo),
         T(wrong_outputs_never_match), T(timed_changes_always_change_the_answer), T(a_dropped_tail_is_caught))
