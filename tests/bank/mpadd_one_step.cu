// bank: lab=10 expect=fail
// why: moves each carry one limb up but never again (if instead of while)
/* The lecture's vote + shuffle loop with `if` where `while` belongs: a
 * carry is added to the limb above, but a carry that this addition creates
 * (the limb was 0xffffffff) is dropped.  Random inputs almost never need a
 * second step (a limb is all ones about once in 2^32), so only the
 * harness's designed carry chains catch it: every input of 33 numbers or
 * more has one of every length. */
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
    uint32_t c = sum < x;
    uint32_t out = __shfl_sync(FULL_MASK, c, 31);
    if (__any_sync(FULL_MASK, c)) {             /* BUG: should loop */
        c = __shfl_up_sync(FULL_MASK, c, 1);
        if (lane == 0)
            c = 0;
        sum += c;
        c = sum < c;
        out |= __shfl_sync(FULL_MASK, c, 31);
    }
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
