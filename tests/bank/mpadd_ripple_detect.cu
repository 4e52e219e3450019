// bank: lab=10 expect=fail
// why: guesses from two limbs whether a number needs long carries: when limbs 1 and 31 both propagate (the shape of a carry from limb 0 rippling to the top, as the old "ripple" inputs were) it runs the full vote + shuffle loop, otherwise it moves each carry one limb and drops the rest; right on random numbers and on full ripples, wrong on a chain of any other length or place, which every input now has
/* The guess costs one extra ballot; the one-step path is the lecture's loop
 * with `if` for `while`. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

__global__ void mpadd_kernel(const uint32_t *a, const uint32_t *b, uint32_t *r,
                             uint32_t *carry_out, unsigned count)
{
    unsigned lane = threadIdx.x % 32;
    unsigned num = blockIdx.x * WARPS + threadIdx.x / 32;
    if (num >= count)
        return;
    size_t limb = (size_t)num * LAB_MP_LIMBS + lane;
    uint32_t x = a[limb];
    uint32_t sum = x + b[limb];
    uint32_t c = sum < x, out = 0;
    unsigned p = __ballot_sync(FULL_MASK, sum == 0xffffffffu);
    /* BUG: two limbs do not tell where the long chains are. */
    int ripple = (p >> 1 & 1u) && (p >> 31 & 1u);
    do {
        out |= __shfl_sync(FULL_MASK, c, 31);
        c = __shfl_up_sync(FULL_MASK, c, 1);
        if (lane == 0)
            c = 0;
        sum += c;
        c = sum < c;
    } while (ripple && __any_sync(FULL_MASK, c));
    out |= __shfl_sync(FULL_MASK, c, 31);
    r[limb] = sum;
    if (lane == 0)
        carry_out[num] = out;
}

extern "C" void lab_mpadd(const uint32_t *a, const uint32_t *b, uint32_t *r,
                          uint32_t *carry_out, unsigned count, cudaStream_t s)
{
    if (count == 0)
        return;
    mpadd_kernel<<<(count + WARPS - 1) / WARPS, BLOCK, 0, s>>>(a, b, r, carry_out, count);
}
