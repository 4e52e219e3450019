// bank: lab=10 expect=fail
// why: every limb is right but carry_out is never written
/* A correct carry-lookahead adder that forgets the last output: the carry
 * out of the top limb.  carry_out is poisoned before each call, so the
 * check must fail even where every limb of r is right. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

__global__ void mpadd_kernel(const uint32_t *a, const uint32_t *b, uint32_t *r,
                             unsigned count)
{
    unsigned lane = threadIdx.x % 32;
    unsigned num = blockIdx.x * WARPS + threadIdx.x / 32;
    if (num >= count)
        return;
    size_t limb = (size_t)num * LAB_MP_LIMBS + lane;
    uint32_t x = a[limb];
    uint32_t sum = x + b[limb];
    unsigned g = __ballot_sync(FULL_MASK, sum < x);
    unsigned p = __ballot_sync(FULL_MASK, sum == 0xffffffffu);
    unsigned long long cin = (((unsigned long long)g << 1) + p) ^ (unsigned long long)p;
    r[limb] = sum + ((uint32_t)(cin >> lane) & 1u);
    /* BUG: bit 32 of cin is the carry out; it never reaches carry_out. */
}

extern "C" void lab_mpadd(const uint32_t *a, const uint32_t *b, uint32_t *r,
                          uint32_t *carry_out, unsigned count, cudaStream_t s)
{
    (void)carry_out;
    if (count == 0)
        return;
    mpadd_kernel<<<(count + WARPS - 1) / WARPS, BLOCK, 0, s>>>(a, b, r, count);
}
