/* emu_lowest.h — where a divergent warp runs next: the lowest PC of its
 * lanes able to run, the lanes there, and the next PC above (emu_warp.c).
 * Header only, a leaf.  Private to tutor/emu/. */
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
