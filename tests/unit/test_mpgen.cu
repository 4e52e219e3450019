/* test_mpgen.cu — lab 10's input design (tutor/harness/hx_mpgen.cuh) on the
 * CPU: every limb of a + b generates, propagates or kills as designed, every
 * input of 33 numbers or more has a chain of every length 0..32 (of 99 or
 * more, also through the top and stopping in the top limb), the timed kinds
 * at the timed size too, the carry-lookahead the judge's GPU adder uses
 * agrees with the limb-by-limb sum, a timed sample's changes always change
 * the sum and both make and cut long chains, adders that move a carry only
 * so far (or guess where to move it far) get some number of every such
 * input wrong, and the poison is never the right value.  Built by nvcc, run without a GPU. */
#include <stdio.h>
#include <vector>

#include "tap.h"
#include "../../tutor/harness/hx_mpgen.cuh"

using namespace hx;

static const uint64_t SEEDS[] = {1, 0x5eed, 281474976710655ull};
static const unsigned long long COUNTS[] = {1, 2, 3, 7, 31, 32, 33, 98, 99, 100, 257, 1000, 4099};
static const int KINDS[] = {MP_MIXED, MP_RANDOM, MP_RIPPLE};

#define N(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* What one number's a + b holds, found from the limbs alone. */
struct found {
    int kinds[MP_LIMBS];
    int all_prop;               /* every limb propagates: the length-32 run */
    int nchains;
    int start[MP_LIMBS], len[MP_LIMBS];     /* generate limb, propagate limbs after it */
};

static void scan(const uint32_t *a, const uint32_t *b, struct found *f)
{
    f->all_prop = 1;
    f->nchains = 0;
    for (int j = 0; j < MP_LIMBS; j++) {
        f->kinds[j] = mp_kind_of_sum(a[j], b[j]);
        f->all_prop &= f->kinds[j] == LK_PROP;
    }
    for (int j = 0; j < MP_LIMBS; j++)
        if (f->kinds[j] == LK_GEN) {
            int l = 0;
            while (j + 1 + l < MP_LIMBS && f->kinds[j + 1 + l] == LK_PROP)
                l++;
            f->start[f->nchains] = j;
            f->len[f->nchains++] = l;
        }
}

/* The longest carry chain of a number, 0 when none. */
static int longest(const uint32_t *a, const uint32_t *b)
{
    struct found f;
    int m = 0;
    scan(a, b, &f);
    for (int c = 0; c < f.nchains; c++)
        m = f.len[c] > m ? f.len[c] : m;
    return m;
}

/* Every limb does what the design says: propagate exactly where designed,
 * generate and kill where designed, and a free limb never propagates. */
static void limbs_as_designed(void)
{
    for (int s = 0; s < N(SEEDS); s++)
        for (int k = 0; k < N(KINDS); k++)
            for (int c = 0; c < N(COUNTS); c++) {
                mgen g = {SEEDS[s], 7, COUNTS[c], KINDS[k]};
                int bad = 0;
                for (unsigned long long i = 0; i < g.count; i++) {
                    uint32_t a[MP_LIMBS], b[MP_LIMBS];
                    mlay l;
                    mp_layout(g, i, &l);
                    mp_number(g, i, a, b);
                    for (int j = 0; j < MP_LIMBS; j++) {
                        int want = mp_design(&l, j), got = mp_kind_of_sum(a[j], b[j]);
                        if (want == LK_FREE ? got == LK_PROP : got != want)
                            bad++;
                    }
                }
                if (bad)
                    printf("#   seed %llu kind %d count %llu: %d limbs not as designed\n",
                           (unsigned long long)SEEDS[s], KINDS[k], g.count, bad);
                EXPECT(bad == 0);
            }
}

/* The chains found in a + b are the design's: the primary run (or, at
 * length 32, every limb propagating), and the second run when it is a
 * chain; any other chain has length 0. */
static void chains_as_designed(void)
{
    for (int s = 0; s < N(SEEDS); s++)
        for (int k = 0; k < N(KINDS); k++) {
            mgen g = {SEEDS[s], 11, 4099, KINDS[k]};
            int bad = 0;
            for (unsigned long long i = 0; i < g.count; i++) {
                uint32_t a[MP_LIMBS], b[MP_LIMBS];
                struct found f;
                mlay l;
                mp_layout(g, i, &l);
                mp_number(g, i, a, b);
                scan(a, b, &f);
                if (l.len == MP_LIMBS) {
                    bad += !f.all_prop;
                    continue;
                }
                int primary = 0, second = 0;
                for (int c = 0; c < f.nchains; c++) {
                    if (f.start[c] == l.start && f.len[c] == l.len)
                        primary = 1;
                    else if (l.xlen >= 0 && l.xgen && f.start[c] == l.xstart && f.len[c] == l.xlen)
                        second = 1;
                    else if (f.len[c] != 0)
                        bad++;
                }
                bad += !primary || (l.xlen >= 0 && l.xgen && !second);
                /* Through the top: a carry out; stopping in the top limb: none. */
                if (l.start + l.len == MP_LIMBS - 1) {
                    uint32_t r[MP_LIMBS];
                    bad += mp_add(a, b, r) != 1;
                }
                if (l.top_kill)
                    bad += l.start + l.len != MP_LIMBS - 2 || f.kinds[MP_LIMBS - 1] != LK_KILL;
            }
            if (bad)
                printf("#   seed %llu kind %d: %d numbers whose chains differ from the design\n",
                       (unsigned long long)SEEDS[s], KINDS[k], bad);
            EXPECT(bad == 0);
        }
}

/* Which lengths, and in which places, one input holds, from a + b alone. */
struct cover {
    int any[MP_LENGTHS];        /* a chain (or, at 32, a whole number) of this length */
    int out[MP_LENGTHS];        /* a chain of this length whose last limb is the top */
    int top[MP_LENGTHS];        /* one whose carry lands in the top limb, which kills it */
};

static void cover_of(const mgen &g, struct cover *cv)
{
    memset(cv, 0, sizeof *cv);
    for (unsigned long long i = 0; i < g.count; i++) {
        uint32_t a[MP_LIMBS], b[MP_LIMBS];
        struct found f;
        mp_number(g, i, a, b);
        scan(a, b, &f);
        cv->any[MP_LIMBS] |= f.all_prop;
        for (int c = 0; c < f.nchains; c++) {
            int end = f.start[c] + f.len[c];
            cv->any[f.len[c]] = 1;
            cv->out[f.len[c]] |= end == MP_LIMBS - 1;
            cv->top[f.len[c]] |= end == MP_LIMBS - 2 && f.kinds[MP_LIMBS - 1] == LK_KILL;
        }
    }
}

/* "" when every length is covered as it must be, else the first gap. */
static int covered(const struct cover *cv, unsigned long long count, char *gap, size_t len)
{
    for (int L = 0; L <= MP_LIMBS; L++) {
        if (!cv->any[L]) {
            snprintf(gap, len, "no chain of length %d", L);
            return 0;
        }
        if (count >= MP_ANCHORS && L < MP_LIMBS && !cv->out[L]) {
            snprintf(gap, len, "no chain of length %d through the top", L);
            return 0;
        }
        if (count >= MP_ANCHORS && L < MP_LIMBS - 1 && !cv->top[L]) {
            snprintf(gap, len, "no chain of length %d stopping in the top limb", L);
            return 0;
        }
    }
    return 1;
}

/* Every input of 33 numbers or more holds every length, whatever the seed,
 * salt and kind; of 99 or more, in every place. */
static void every_length_in_every_input(void)
{
    for (int s = 0; s < N(SEEDS); s++)
        for (int k = 0; k < N(KINDS); k++)
            for (int c = 0; c < N(COUNTS); c++) {
                if (COUNTS[c] < MP_LENGTHS)
                    continue;
                for (uint64_t salt = 1; salt < 40; salt += 13) {
                    mgen g = {SEEDS[s], salt, COUNTS[c], KINDS[k]};
                    struct cover cv;
                    char gap[96];
                    cover_of(g, &cv);
                    if (!covered(&cv, g.count, gap, sizeof gap)) {
                        printf("#   seed %llu salt %llu kind %d count %llu: %s\n", (unsigned long long)SEEDS[s],
                               (unsigned long long)salt, KINDS[k], g.count, gap);
                        EXPECT(0);
                    }
                }
            }
}

/* The timed kinds at the timed size, less a jitter: every length in every
 * place, and the two kinds as different as they are meant to be (ripple's
 * numbers mostly have a long chain, random's mostly not). */
static void timed_inputs_hold_every_length(void)
{
    const int kinds[] = {MP_RANDOM, MP_RIPPLE};
    for (int k = 0; k < 2; k++) {
        mgen g = {0x5eed, 1000 + 4242, (1ull << 21) - 12345, kinds[k]};
        struct cover cv;
        char gap[96];
        cover_of(g, &cv);
        if (!covered(&cv, g.count, gap, sizeof gap)) {
            printf("#   kind %d: %s\n", kinds[k], gap);
            EXPECT(0);
        }
        unsigned long long long_ones = 0;
        for (unsigned long long i = 0; i < g.count; i += 97) {
            uint32_t a[MP_LIMBS], b[MP_LIMBS];
            mp_number(g, i, a, b);
            long_ones += longest(a, b) >= 16;
        }
        double share = (double)long_ones / (double)((g.count + 96) / 97);
        printf("#   kind %d: %.2f of numbers have a chain of 16 or more\n", kinds[k], share);
        EXPECT(kinds[k] == MP_RIPPLE ? share > 0.7 : share < 0.15);
    }
}

/* Anchors: min(count, 99) of them, every one a different run. */
static void anchors_one_per_stretch(void)
{
    const unsigned long long counts[] = {1, 5, 33, 98, 99, 100, 1000, 65537};
    for (int c = 0; c < N(counts); c++) {
        mgen g = {3, 17, counts[c], MP_MIXED};
        int seen[MP_ANCHORS] = {0}, n = 0, twice = 0;
        for (unsigned long long i = 0; i < g.count; i++) {
            int len, place;
            if (mp_anchor(g, i, &len, &place)) {
                n++;
                twice += seen[place * MP_LENGTHS + len]++ > 0;
            }
        }
        unsigned long long want = counts[c] < MP_ANCHORS ? counts[c] : (unsigned long long)MP_ANCHORS;
        if ((unsigned long long)n != want || twice)
            printf("#   count %llu: %d anchors (want %llu), %d repeated\n", counts[c], n, want, twice);
        EXPECT((unsigned long long)n == want && twice == 0);
    }
}

/* The lookahead from the generate and propagate masks gives every carry
 * mp_add gives, on every number of every kind. */
static void lookahead_agrees_with_serial(void)
{
    for (int k = 0; k < N(KINDS); k++) {
        mgen g = {77, 5, 4099, KINDS[k]};
        int bad = 0;
        for (unsigned long long i = 0; i < g.count; i++) {
            uint32_t a[MP_LIMBS], b[MP_LIMBS], r[MP_LIMBS];
            uint32_t gen = 0, prop = 0;
            mp_number(g, i, a, b);
            uint32_t out = mp_add(a, b, r);
            for (int j = 0; j < MP_LIMBS; j++) {
                gen |= (uint32_t)(mp_kind_of_sum(a[j], b[j]) == LK_GEN) << j;
                prop |= (uint32_t)(mp_kind_of_sum(a[j], b[j]) == LK_PROP) << j;
            }
            uint64_t cin = mp_carries(gen, prop);
            for (int j = 0; j < MP_LIMBS; j++)
                bad += a[j] + b[j] + (uint32_t)((cin >> j) & 1) != r[j];
            bad += (uint32_t)(cin >> 32) != out;
        }
        EXPECT(bad == 0);
    }
}

/* An adder whose carries pass through at most `depth` propagating limbs
 * (a lookahead that many stages deep), or, with guess set, one that moves
 * carries all the way only when limbs 1 and 31 propagate and one limb
 * otherwise (tests/bank/mpadd_lookahead_short.cu, mpadd_ripple_detect.cu).
 * Returns 1 when it gets the number right. */
static int short_adder_right(const uint32_t *a, const uint32_t *b, int depth, int guess)
{
    uint32_t want[MP_LIMBS], gen = 0, prop = 0;
    uint32_t want_c = mp_add(a, b, want);
    for (int j = 0; j < MP_LIMBS; j++) {
        gen |= (uint32_t)(mp_kind_of_sum(a[j], b[j]) == LK_GEN) << j;
        prop |= (uint32_t)(mp_kind_of_sum(a[j], b[j]) == LK_PROP) << j;
    }
    if (guess)
        depth = ((prop >> 1) & 1) && ((prop >> 31) & 1) ? MP_LIMBS : 0;
    uint64_t step = (uint64_t)gen << 1, cin = step;
    for (int d = 0; d < depth; d++) {
        step = (step & prop) << 1;
        cin |= step;
    }
    for (int j = 0; j < MP_LIMBS; j++)
        if (a[j] + b[j] + (uint32_t)((cin >> j) & 1) != want[j])
            return 0;
    return (uint32_t)(cin >> 32) == want_c;
}

/* Every input of 33 numbers or more has a number that each of those adders
 * gets wrong, at every depth short of the whole number; at 31 they are
 * right everywhere. */
static void short_adders_fail(void)
{
    for (int s = 0; s < N(SEEDS); s++)
        for (int k = 0; k < N(KINDS); k++)
            for (int c = 0; c < N(COUNTS); c++) {
                if (COUNTS[c] < MP_LENGTHS)
                    continue;
                mgen g = {SEEDS[s], 1 + (uint64_t)c, COUNTS[c], KINDS[k]};
                int right[MP_LIMBS + 1], guess_right = 1;
                for (int d = 0; d <= MP_LIMBS - 1; d++)
                    right[d] = 1;
                for (unsigned long long i = 0; i < g.count; i++) {
                    uint32_t a[MP_LIMBS], b[MP_LIMBS];
                    mp_number(g, i, a, b);
                    for (int d = 0; d <= MP_LIMBS - 1; d++)
                        right[d] &= short_adder_right(a, b, d, 0);
                    guess_right &= short_adder_right(a, b, 0, 1);
                }
                for (int d = 0; d < MP_LIMBS - 1; d++)
                    if (right[d]) {
                        printf("#   seed %llu kind %d count %llu: depth %d passes\n",
                               (unsigned long long)SEEDS[s], KINDS[k], g.count, d);
                        EXPECT(0);
                    }
                EXPECT(right[MP_LIMBS - 1]);
                EXPECT(!guess_right);
            }
}

/* A timed sample's changes: distinct numbers, always a different sum, and
 * over many samples both new long chains and cut ones. */
static void changes_change_the_sum(void)
{
    const int kinds[] = {MP_RANDOM, MP_RIPPLE};
    for (int k = 0; k < 2; k++) {
        mgen g = {9, 1042, 100000, kinds[k]};
        int same = 0, repeated = 0, made = 0, cut = 0;
        for (uint64_t sample = 0; sample < 500; sample++) {
            unsigned long long idx[MP_CHANGES];
            for (int m = 0; m < MP_CHANGES; m++) {
                uint32_t a[MP_LIMBS], b[MP_LIMBS], r0[MP_LIMBS], r1[MP_LIMBS];
                idx[m] = mp_change_index(g, sample, m, idx);
                for (int t = 0; t < m; t++)
                    repeated += idx[t] == idx[m];
                mp_number(g, idx[m], a, b);
                int before = longest(a, b);
                uint32_t c0 = mp_add(a, b, r0);
                mp_change(g, sample, m, a, b);
                uint32_t c1 = mp_add(a, b, r1);
                same += c0 == c1 && !memcmp(r0, r1, sizeof r0);
                int after = longest(a, b);
                made += before < 8 && after >= 16;
                cut += before >= 16 && after < 8;
            }
        }
        printf("#   kind %d: %d changes made a chain of 16+, %d cut one below 8\n", kinds[k], made, cut);
        EXPECT(same == 0);
        EXPECT(repeated == 0);
        EXPECT(made > 0 && cut > 0);
    }
    /* Fewer numbers than changes cannot be distinct: the caller makes fewer. */
    mgen tiny = {9, 1042, MP_CHANGES, MP_MIXED};
    unsigned long long idx[MP_CHANGES];
    int repeated = 0;
    for (int m = 0; m < MP_CHANGES; m++) {
        idx[m] = mp_change_index(tiny, 3, m, idx);
        for (int t = 0; t < m; t++)
            repeated += idx[t] == idx[m];
    }
    EXPECT(repeated == 0);
}

/* The poison is drawn again when it would be the right value. */
static void poison_never_right(void)
{
    int bad = 0;
    for (uint64_t q = 0; q < 100000; q++) {
        uint64_t key = 0x1234567890abcdefull ^ (q >> 10);
        uint32_t first = mp_poison(key, q, 0);      /* right = 0 never hides the first draw */
        if (first == 0)
            continue;
        bad += mp_poison(key, q, first) == first;   /* the right value: drawn again */
        bad += mp_poison(key, q, first ^ 1) != first;
    }
    EXPECT(bad == 0);
    EXPECT(mp_poison(mp_carry_key(5), 0, 0) != 0 && mp_poison(mp_carry_key(5), 0, 1) != 1);
}

TAP_MAIN(T(limbs_as_designed), T(chains_as_designed), T(every_length_in_every_input),
         T(timed_inputs_hold_every_length), T(anchors_one_per_stretch), T(lookahead_agrees_with_serial), T(short_adders_fail),
         T(changes_change_the_sum), T(poison_never_right))
