/* hx_select.cuh — lab 12's inputs and the order-free check of its output.
 * Host and device code, tested without a GPU (tests/unit/test_select.cu).
 *
 * Element i is 31 random bits and a last bit that decides whether it is
 * kept (lab.h: lab_keep keeps the odd ones), set with a probability the
 * input kind gives: none, 1/64, half, 63/64 or all.  The trials take the
 * kinds in turn, so the smallest sizes see an empty result and a full one,
 * and the timed cases use "half" unless the catalog names another kind.
 *
 * The survivors may come out in any order, so the output is compared as a
 * multiset: the count exactly, and two sums over the elements of
 * h_k(x) = mix(k ^ x) modulo 2^64, under two 64-bit keys k the judge draws
 * from the operating system when a timed case starts, never passed to the
 * student's code.  Addition does not care about order; a multiset that
 * differs (an element missing, doubled or changed) gives another pair of
 * sums except with a probability near 2^-128, and without the keys no
 * kernel can aim for a collision.  The trials check on the host exactly
 * (a sort when the sums disagree, to name the element).
 */
#ifndef HX_SELECT_CUH
#define HX_SELECT_CUH

#include <stdint.h>
#include <string.h>

#ifndef LAB_NO_PARAMS
#define LAB_NO_PARAMS           /* lab_params is lab 09's, not this family's */
#endif
#include "../lab.h"
#include "hx.h"

namespace hx {

enum { SEL_KINDS = 5 };

/* The share of elements kept, in 1/65536: none, sparse, half, dense, all. */
static const uint32_t sel_kind_frac[SEL_KINDS] = {0, 1024, 32768, 64512, 65536};
static const char *const sel_kind_name[SEL_KINDS] = {"none", "sparse", "half", "dense", "all"};

struct sgen {
    uint64_t seed, salt;
    unsigned long long n;
    uint32_t frac;              /* kept with probability frac / 65536 */
};

/* The kind by name (the catalog's perf input), or -1; "" is "half". */
static inline int sel_kind_of(const char *name)
{
    if (!name[0])
        return 2;
    for (int k = 0; k < SEL_KINDS; k++)
        if (!strcmp(name, sel_kind_name[k]))
            return k;
    return -1;
}

__host__ __device__ static inline int sel_value(const sgen &g, unsigned long long i)
{
    uint64_t b = draw(g.seed, g.salt, i);
    uint32_t keep = (uint32_t)(b & 0xffff) < g.frac;
    return (int)(((uint32_t)(b >> 32) & ~1u) | keep);
}

/* One key's hash of an element. */
__host__ __device__ static inline uint64_t sel_hash(uint64_t key, int x)
{
    return mix(key ^ (uint64_t)(uint32_t)x);
}

/* What the check compares: the count and the two sums. */
struct sprint {
    unsigned long long count;
    uint64_t sum[2];
};

__host__ __device__ static inline void sel_add(sprint *p, const uint64_t key[2], int x)
{
    p->count++;
    p->sum[0] += sel_hash(key[0], x);
    p->sum[1] += sel_hash(key[1], x);
}

__host__ __device__ static inline void sel_remove(sprint *p, const uint64_t key[2], int x)
{
    p->count--;
    p->sum[0] -= sel_hash(key[0], x);
    p->sum[1] -= sel_hash(key[1], x);
}

/* A timed sample's change: element idx gets value v.  Even samples flip
 * whether it is kept (the count moves by one); odd ones give it another
 * value that is kept (a survivor changes: the count stays, the sums move;
 * or one more survives).  A result kept from an earlier call is wrong
 * either way. */
static inline void sel_change(const sgen &g, uint64_t k, unsigned long long *idx, int *v)
{
    uint64_t bits = draw(g.seed, g.salt ^ 0x5e1ec7ull, k);
    *idx = below(bits, (uint32_t)g.n);
    int old = sel_value(g, *idx);
    uint32_t r = (uint32_t)mix(bits) & ~1u;
    int keep = (k & 1) ? 1 : !lab_keep(old);
    *v = (int)(r | (uint32_t)keep);
    if (*v == old)
        *v ^= 2;
}

} /* namespace hx */

#endif /* HX_SELECT_CUH */
