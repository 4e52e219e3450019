// bank: lab=10 expect=fail
// why: adds each limb on its own and drops every carry
/* Lane j adds limb j and stores it; the carry out of each limb is lost and
 * carry_out is always 0.  Any random input has carries, so this fails at
 * once.  A vote is there only so that the technique check passes and the
 * wrong numbers are what fails. */
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
    uint32_t sum = a[limb] + b[limb];
    /* Counts the carries, then ignores them. */
    unsigned lost = __ballot_sync(FULL_MASK, sum < a[limb]);
    r[limb] = sum;
    if (lane == 0)
        carry_out[num] = 0 * lost;
}

extern "C" void lab_mpadd(const uint32_t *a, const uint32_t *b, uint32_t *r,
                          uint32_t *carry_out, unsigned count, cudaStream_t s)
{
    if (count == 0)
        return;
    mpadd_kernel<<<(count + WARPS - 1) / WARPS, BLOCK, 0, s>>>(a, b, r, carry_out, count);
}
