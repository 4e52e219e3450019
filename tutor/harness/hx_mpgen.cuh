/* hx_mpgen.cuh — lab 10's inputs, made of carry chains: the design of each
 * 1024-bit number, its limbs, the changes a timed sample makes, the carry
 * arithmetic the judge trusts and the poison.  Host and device code alike,
 * so that the GPU fills the input, the CPU computes the reference from the
 * same functions, and tests/unit/test_mpgen.cu checks the design without a
 * GPU.
 *
 * A limb of a + b does one of three things with a carry: it generates one
 * (a_j + b_j >= 2^32, whatever comes in), propagates one (a_j + b_j =
 * 0xffffffff: a carry in goes straight out) or kills one (a_j + b_j <=
 * 0xfffffffe: a carry in stops there).  A chain of length L is a generate
 * limb followed by L propagate limbs: its carry lands L + 1 limbs up, in the
 * carry out when the last propagate limb is limb 31.  Random limbs propagate
 * once in 2^32, so an adder that moves a carry only one or two limbs is right
 * on nearly every random number: the lengths have to be built on purpose.
 *
 * Every number gets a primary run at a place drawn for it:
 *     length 0..31  a generate limb at s, then L propagate limbs; the place
 *                   is anywhere it fits, through the top (s + L = 31: the
 *                   carry out) or stopping in the top limb (s + L = 30 and
 *                   limb 31 kills: no carry out)
 *     length 32     every limb propagates and no carry comes in: r is all
 *                   ones, carry out 0
 * and, half the time, a second run in the larger stretch left free: a chain
 * again, or an idle run (a kill limb, then propagate limbs that no carry
 * reaches).  Every other limb is free: random, or all zero, all ones, or
 * with both top bits set (a style per number), and never propagates, so the
 * runs are exactly as designed.  a and b are swapped on a coin flip.
 *
 * How long the primary run is depends on the input's kind:
 *     mixed   (trials)          uniform in 0..32
 *     random  (timed "random")  0..3 for 7 numbers in 8, uniform otherwise:
 *                               mostly cheap for an adder that loops once
 *                               per limb the carry moves
 *     ripple  (timed "ripple")  24..31 for 3 numbers in 4, uniform otherwise
 * and in every input some numbers are anchors whose run is fixed: up to 99
 * of them, one in each of as many equal stretches of the array at a random
 * index inside it, taking the 33 lengths in each of the 3 places (rotated
 * by the seed).  So every input of 33 numbers or more holds every length,
 * every input of 99 or more every length in every place, and nothing about
 * an input or a number tells whether long carries are in it.
 */
#ifndef HX_MPGEN_CUH
#define HX_MPGEN_CUH

#include <string.h>

#include "../lab.h"
#include "hx.h"

namespace hx {

enum {
    MP_LIMBS = LAB_MP_LIMBS,
    MP_LENGTHS = MP_LIMBS + 1,                  /* run lengths 0..32 */
    MP_PLACES = 3,
    MP_ANCHORS = MP_LENGTHS * MP_PLACES,
    MP_CHANGES = 8,                             /* numbers a timed sample changes */
};

enum mp_kind { MP_MIXED, MP_RANDOM, MP_RIPPLE };
enum mp_limb_kind { LK_KILL, LK_GEN, LK_PROP, LK_FREE };       /* LK_FREE: kill or generate */
enum mp_place { PLACE_ANY, PLACE_OUT, PLACE_TOP };
enum mp_fill { FILL_RANDOM, FILL_ZERO, FILL_ONES, FILL_HIGH };

/* Everything that determines one pair of input arrays. */
struct mgen {
    uint64_t seed, salt;
    unsigned long long count;
    int kind;                   /* enum mp_kind */
};

/* One number's design. */
struct mlay {
    int len;                    /* the primary run: 0..31 a chain, 32 all propagate */
    int start;                  /* its generate limb */
    int place;                  /* enum mp_place */
    int top_kill;               /* limb 31 kills the chain's carry */
    int anchor;                 /* the run was fixed by the anchors */
    int xstart, xlen;           /* the second run, xlen < 0: none */
    int xgen;                   /* it starts with a generate limb (else a kill) */
    int fill;                   /* enum mp_fill */
    int swap;                   /* a and b trade places */
};

/* What limb a + b does with a carry: generate, propagate or kill. */
__host__ __device__ static inline int mp_kind_of_sum(uint32_t a, uint32_t b)
{
    uint64_t s = (uint64_t)a + b;
    return s > 0xffffffffull ? LK_GEN : s == 0xffffffffull ? LK_PROP : LK_KILL;
}

/* Whether number i is an anchor; if so the run it must carry.  The array is
 * cut into min(count, 99) stretches of at least one number, and one number
 * at a random index in each is the anchor of (stretch + rotation) mod 99. */
__host__ __device__ static inline int mp_anchor(const mgen &g, unsigned long long i, int *len, int *place)
{
    unsigned long long n = g.count, m = n < MP_ANCHORS ? n : (unsigned long long)MP_ANCHORS;
    if (n == 0)
        return 0;
    unsigned long long s = i * m / n;
    /* Stretch s is [s n / m, (s + 1) n / m); the guess is off by one at most. */
    while (s > 0 && s * n / m > i)
        s--;
    while (s + 1 < m && (s + 1) * n / m <= i)
        s++;
    unsigned long long lo = s * n / m, hi = (s + 1) * n / m;
    if (i != lo + below(draw(g.seed, g.salt ^ 0xa4c40ull, s), (uint32_t)(hi - lo)))
        return 0;
    unsigned rot = below(draw(g.seed, g.salt ^ 0xa4c40ull, ~0ull), MP_ANCHORS);
    unsigned which = (unsigned)((s + rot) % MP_ANCHORS);
    *len = (int)(which % MP_LENGTHS);
    *place = (int)(which / MP_LENGTHS);
    return 1;
}

/* The design of number i.  Separate hashes for separate choices, so that
 * none of them hints at another. */
__host__ __device__ static inline void mp_layout(const mgen &g, unsigned long long i, mlay *l)
{
    uint64_t h = draw(g.seed, g.salt, (uint64_t)i << 7);
    uint64_t h_len = mix(h), h_start = mix(h_len), h_xstart = mix(h_start), h_xlen = mix(h_xstart);
    int len, place;
    int brief = g.kind == MP_RANDOM && (h & 7) != 0;

    l->anchor = mp_anchor(g, i, &len, &place);
    if (!l->anchor) {
        if (brief)
            len = (int)below(h_len, 4);
        else if (g.kind == MP_RIPPLE && (h & 3) != 0)
            len = 24 + (int)below(h_len, 8);
        else
            len = (int)below(h_len, MP_LENGTHS);
        unsigned p = (unsigned)(h >> 3) & 7;
        place = p < 2 ? PLACE_OUT : p < 3 ? PLACE_TOP : PLACE_ANY;
    }
    unsigned f = (unsigned)(h >> 6) & 15;
    l->fill = f == 0 ? FILL_ZERO : f == 1 ? FILL_ONES : f == 2 ? FILL_HIGH : FILL_RANDOM;
    l->swap = (int)(h >> 10) & 1;
    l->xgen = (int)(h >> 11) & 1;
    l->len = len;
    l->top_kill = 0;
    l->xlen = -1;
    l->xstart = 0;
    if (len == MP_LIMBS) {              /* nothing generates: no room for more */
        l->start = 0;
        l->place = PLACE_ANY;
        return;
    }
    if (place == PLACE_OUT || len == MP_LIMBS - 1) {
        place = PLACE_OUT;
        l->start = MP_LIMBS - 1 - len;
    } else if (place == PLACE_TOP) {
        l->start = MP_LIMBS - 2 - len;
        l->top_kill = 1;
    } else {
        l->start = (int)below(h_start, (uint32_t)(MP_LIMBS - len));
    }
    l->place = place;

    /* The second run goes in the larger free stretch: below the generate
     * limb, or from the limb after the chain's last to the top (that limb
     * ends the chain: the run starts with a kill or a generate, and a free
     * limb never propagates).  Nothing goes above a chain that stops in the
     * top limb. */
    int below_n = l->start, above_lo = l->start + len + 1;
    int above_n = l->top_kill ? 0 : MP_LIMBS - above_lo;
    int lo = below_n >= above_n ? 0 : above_lo, room = below_n >= above_n ? below_n : above_n;
    if (room < 1 || !((h >> 12) & 1))
        return;
    int most = brief ? (room < 4 ? room : 4) : room;
    l->xlen = (int)below(h_xlen, (uint32_t)most);             /* 0 .. most - 1 */
    l->xstart = lo + (int)below(h_xstart, (uint32_t)(room - l->xlen));
}

/* What limb j of a number of design l is meant to do. */
__host__ __device__ static inline int mp_design(const mlay *l, int j)
{
    if (l->len == MP_LIMBS)
        return LK_PROP;
    if (j == l->start)
        return LK_GEN;
    if (j > l->start && j <= l->start + l->len)
        return LK_PROP;
    if (l->top_kill && j == MP_LIMBS - 1)
        return LK_KILL;
    if (l->xlen >= 0 && j == l->xstart)
        return l->xgen ? LK_GEN : LK_KILL;
    if (l->xlen >= 0 && j > l->xstart && j <= l->xstart + l->xlen)
        return LK_PROP;
    return LK_FREE;
}

/* A limb pair of the given kind from 64 random bits: x and y as they come
 * when they already do it, else their complements (a generating pair's
 * complements kill and the other way round), and a fixed repair in the one
 * case in 2^32 where x + y propagates and must not. */
__host__ __device__ static inline void mp_make(int kind, int fill, uint64_t bits, uint32_t *pa, uint32_t *pb)
{
    uint32_t x = (uint32_t)bits, y = (uint32_t)(bits >> 32);
    uint64_t s = (uint64_t)x + y;

    if (kind == LK_FREE) {
        if (fill == FILL_ZERO) {
            *pa = *pb = 0;
            return;
        }
        if (fill == FILL_ONES) {
            *pa = *pb = 0xffffffffu;
            return;
        }
        if (fill == FILL_HIGH) {
            *pa = x | 0x80000000u;
            *pb = y | 0x80000000u;
            return;
        }
        kind = s > 0xffffffffull ? LK_GEN : LK_KILL;
    }
    if (kind == LK_PROP) {
        *pa = ~y;
        *pb = y;
    } else if (s == 0xffffffffull) {
        /* Generate: 0xffffffff + (y | 1) >= 2^32.  Kill: one less. */
        *pa = kind == LK_GEN ? 0xffffffffu : y ? x : x - 1;
        *pb = kind == LK_GEN ? y | 1u : y ? y - 1 : y;
    } else if ((kind == LK_GEN) == (s > 0xffffffffull)) {
        *pa = x;
        *pb = y;
    } else {
        *pa = ~x;
        *pb = ~y;
    }
}

/* Limb j of number i (design l) of a and b. */
__host__ __device__ static inline void mp_limb(const mgen &g, const mlay *l, unsigned long long i, int j,
                                               uint32_t *pa, uint32_t *pb)
{
    uint32_t x, y;
    mp_make(mp_design(l, j), l->fill, draw(g.seed, g.salt, (uint64_t)i << 7 | 64u | (uint64_t)j), &x, &y);
    *pa = l->swap ? y : x;
    *pb = l->swap ? x : y;
}

/* Number i of a and b, all its limbs. */
__host__ __device__ static inline void mp_number(const mgen &g, unsigned long long i, uint32_t *a, uint32_t *b)
{
    mlay l;
    mp_layout(g, i, &l);
    for (int j = 0; j < MP_LIMBS; j++)
        mp_limb(g, &l, i, j, &a[j], &b[j]);
}

/* ---- carries ------------------------------------------------------------- */

/* r = a + b over all limbs, one at a time; returns the carry out.  The CPU
 * reference: nothing in it can be wrong. */
__host__ __device__ static inline uint32_t mp_add(const uint32_t *a, const uint32_t *b, uint32_t *r)
{
    uint64_t c = 0;
    for (int j = 0; j < MP_LIMBS; j++) {
        uint64_t s = (uint64_t)a[j] + b[j] + c;
        r[j] = (uint32_t)s;
        c = s >> 32;
    }
    return (uint32_t)c;
}

/* The carry into every limb (bit j) and the carry out (bit 32), from the
 * limbs that generate (g) and propagate (p): each generated carry enters the
 * limb above (g << 1); adding p makes it run through a block of propagating
 * limbs as a binary carry runs through ones, and XOR with p marks every limb
 * it passed.  The judge's GPU adder uses this; test_mpgen.cu holds it to
 * mp_add on every length. */
__host__ __device__ static inline uint64_t mp_carries(uint32_t g, uint32_t p)
{
    return (((uint64_t)g << 1) + p) ^ p;
}

/* ---- timed samples --------------------------------------------------------- */

/* Sample k's m-th changed number: its index, distinct from the sample's
 * other changes (an index taken already moves to the next free one). */
static inline unsigned long long mp_change_index(const mgen &g, uint64_t k, int m, const unsigned long long *taken)
{
    unsigned long long n = g.count;
    unsigned long long i = below(draw(g.seed, g.salt ^ 0xc4a6e0ull, k * MP_CHANGES + (uint64_t)m), (uint32_t)n);
    for (int t = 0; t < m && (unsigned long long)m < n; t++)
        if (taken[t] == i) {
            i = (i + 1) % n;
            t = -1;                     /* look again from the first */
        }
    return i;
}

/* Sample k's m-th change of number i, applied to a and b (which hold the
 * number as generated): replaced by another designed number, a stretch made
 * to propagate (a chain created or lengthened, or two joined), a
 * propagating limb made to kill or generate (a chain cut), or one bit
 * flipped.  The sum always changes: if the change happened to keep it, bit 0
 * of limb 0 of a flips too. */
static inline void mp_change(const mgen &g, uint64_t k, int m, uint32_t *a, uint32_t *b)
{
    uint64_t h = draw(g.seed, g.salt ^ 0xc4a6e1ull, k * MP_CHANGES + (uint64_t)m);
    uint64_t h1 = mix(h), h2 = mix(h1), h3 = mix(h2);
    uint32_t before[MP_LIMBS], after[MP_LIMBS];
    uint32_t cb = mp_add(a, b, before);
    int props = 0;

    for (int j = 0; j < MP_LIMBS; j++)
        props += mp_kind_of_sum(a[j], b[j]) == LK_PROP;
    int how = (int)(h & 3);
    if (how == 2 && props == 0)
        how = 1;                        /* nothing to cut: make a chain instead */
    switch (how) {
    case 0: {
        mgen o = g;
        o.salt = g.salt ^ 0x0be4e11ull;
        o.kind = MP_MIXED;
        mp_number(o, below(h1, (uint32_t)g.count), a, b);
        break;
    }
    case 1: {
        int j = (int)below(h1, MP_LIMBS), len = 1 + (int)below(h2, (uint32_t)(MP_LIMBS - j));
        for (int q = j; q < j + len; q++)
            a[q] = ~b[q];
        if (j > 0 && (h & 4))           /* and a carry to run through it */
            mp_make(LK_GEN, FILL_RANDOM, h3, &a[j - 1], &b[j - 1]);
        break;
    }
    case 2: {
        int t = (int)below(h1, (uint32_t)props);
        for (int j = 0; j < MP_LIMBS; j++)
            if (mp_kind_of_sum(a[j], b[j]) == LK_PROP && t-- == 0) {
                mp_make((h & 4) ? LK_GEN : LK_KILL, FILL_RANDOM, h3, &a[j], &b[j]);
                break;
            }
        break;
    }
    default:
        a[below(h1, MP_LIMBS)] ^= 1u << below(h2, 32);
        break;
    }
    uint32_t ca = mp_add(a, b, after);
    if (ca == cb && !memcmp(before, after, sizeof before))
        a[0] ^= 1u;
}

/* ---- poison -------------------------------------------------------------- */

/* Limb (or carry) q of a call's poison under that call's key, drawn from
 * the operating system: random bits, drawn again while they equal the right
 * value.  Nothing else about the answer goes in. */
__host__ __device__ static inline uint32_t mp_poison(uint64_t key, uint64_t q, uint32_t right)
{
    uint64_t h = key + q * 0x9e3779b97f4a7c15ull;
    uint32_t p;
    do {
        h = mix(h);
        p = (uint32_t)(h >> 32);
    } while (p == right);
    return p;
}

/* The carries' key, from the limbs' key. */
__host__ __device__ static inline uint64_t mp_carry_key(uint64_t key)
{
    return mix(key ^ 0xca77ca77ca77ca77ull);
}

} /* namespace hx */

#endif /* HX_MPGEN_CUH */
