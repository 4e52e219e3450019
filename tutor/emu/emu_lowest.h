/* emu_lowest.h — where a divergent warp runs next: the lowest PC of its
 * lanes able to run, the lanes there, and the next PC above (emu_warp.c);
 * the lanes a guard lets run, and setting lanes' PCs.  Header only, a leaf.  Private to tutor/emu/. */
#ifndef EMU_LOWEST_H
#define EMU_LOWEST_H

#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#ifdef __SSE2__
/* Lanes 4J..4J+3 of BITS as four lanes of all ones or zeros. */
static inline __m128i lanes4(__m128i bits, int j)
{
    const __m128i sel = _mm_slli_epi32(_mm_set_epi32(8, 4, 2, 1), 4 * j);
    return _mm_cmpeq_epi32(_mm_and_si128(bits, sel), sel);
}

/* The least of four unsigned words, each biased by 2^31 (a signed compare
 * orders them as unsigned). */
static inline uint32_t least4(__m128i biased)
{
    uint32_t v[4];
    _mm_storeu_si128((__m128i *)v, biased);
    uint32_t a = (int32_t)v[0] < (int32_t)v[1] ? v[0] : v[1];
    uint32_t b = (int32_t)v[2] < (int32_t)v[3] ? v[2] : v[3];
    return ((int32_t)a < (int32_t)b ? a : b) ^ 0x80000000u;
}

static inline __m128i min_biased(__m128i a, __m128i b)
{
    __m128i lt = _mm_cmplt_epi32(a, b);
    return _mm_or_si128(_mm_and_si128(lt, a), _mm_andnot_si128(lt, b));
}
#endif

/* The lanes whose predicate (bit 0 of each of the 32 lanes of G) is set:
 * a guard's mask, four lanes at a time where the machine can. */
static inline uint32_t emu_pred_bits(const uint64_t *g)
{
    uint32_t bits = 0;
#ifdef __SSE2__
    for (int j = 0; j < 8; j++) {
        /* bit 0 of each lane to the sign of its low word, the four low words side by side */
        __m128i a = _mm_slli_epi32(_mm_loadu_si128((const __m128i *)(g + 4 * j)), 31);
        __m128i b = _mm_slli_epi32(_mm_loadu_si128((const __m128i *)(g + 4 * j + 2)), 31);
        __m128 ab = _mm_shuffle_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), _MM_SHUFFLE(2, 0, 2, 0));
        bits |= (uint32_t)_mm_movemask_ps(ab) << (4 * j);
    }
#else
    for (uint32_t l = 0; l < 32; l++)
        bits |= (uint32_t)(g[l] & 1) << l;
#endif
    return bits;
}

/* PCS's lanes of MASK set to PC: a blend of all 32, four at a time,
 * where the mask has many lanes, else lane by lane. */
static inline void emu_set_pcs(uint32_t *pcs, uint32_t mask, uint32_t pc)
{
#ifdef __SSE2__
    uint32_t n = mask - ((mask >> 1) & 0x55555555u);    /* its lanes counted without a call */
    n = (n & 0x33333333u) + ((n >> 2) & 0x33333333u);
    if (((((n + (n >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24) >= 12) {
        const __m128i v = _mm_set1_epi32((int)pc), bits = _mm_set1_epi32((int)mask);
        for (int j = 0; j < 8; j++) {
            __m128i m = lanes4(bits, j), *p = (__m128i *)(pcs + 4 * j);
            _mm_storeu_si128(p, _mm_or_si128(_mm_and_si128(m, v), _mm_andnot_si128(m, _mm_loadu_si128(p))));
        }
        return;
    }
#endif
    for (uint32_t m = mask; m; m &= m - 1)
        pcs[__builtin_ctz(m)] = pc;
}

/* The lowest PC of PCS's lanes of RUN; the lanes of SEEN at it in *MASK,
 * and the lowest PC above it of a lane of SEEN in *REST (UINT32_MAX:
 * none).  Over all 32 lanes without branches (four at a time where the
 * machine can): cheaper than walking the masks' bits in the divergent
 * code of a tree's levels.  A lane outside a mask counts as UINT32_MAX. */
static inline uint32_t emu_lowest_pc(const uint32_t *pcs, uint32_t run, uint32_t seen, uint32_t *mask,
                          uint32_t *rest)
{
#ifdef __SSE2__
    const __m128i bias = _mm_set1_epi32((int)0x80000000u), ones = _mm_set1_epi32(-1);
    const __m128i vrun = _mm_set1_epi32((int)run), vseen = _mm_set1_epi32((int)seen);
    __m128i lo = _mm_set1_epi32(INT32_MAX);
    for (int j = 0; j < 8; j++) {
        __m128i p = _mm_or_si128(_mm_loadu_si128((const __m128i *)(pcs + 4 * j)),
                                 _mm_andnot_si128(lanes4(vrun, j), ones));
        lo = min_biased(lo, _mm_xor_si128(p, bias));
    }
    uint32_t pc = least4(lo);
    const __m128i vpc = _mm_xor_si128(_mm_set1_epi32((int)pc), bias);
    __m128i above = _mm_set1_epi32(INT32_MAX);
    uint32_t m = 0;
    for (int j = 0; j < 8; j++) {
        __m128i p = _mm_or_si128(_mm_loadu_si128((const __m128i *)(pcs + 4 * j)),
                                 _mm_andnot_si128(lanes4(vseen, j), ones));
        p = _mm_xor_si128(p, bias);
        m |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(p, vpc))) << (4 * j);
        __m128i gt = _mm_cmpgt_epi32(p, vpc);
        above = min_biased(above, _mm_or_si128(_mm_and_si128(gt, p),
                                               _mm_andnot_si128(gt, _mm_set1_epi32(INT32_MAX))));
    }
    *mask = m;
    *rest = least4(above);
    return pc;
#else
    /* (bit - 1) is all ones for a lane outside the mask, zero for one in it */
    uint32_t pc = UINT32_MAX, m = 0, above = UINT32_MAX;
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t p = pcs[l] | (((run >> l) & 1) - 1);
        pc = p < pc ? p : pc;
    }
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t p = pcs[l] | (((seen >> l) & 1) - 1);
        m |= (uint32_t)(p == pc) << l;
        p = p > pc ? p : UINT32_MAX;
        above = p < above ? p : above;
    }
    *mask = m;
    *rest = above;
    return pc;
#endif
}

#endif
