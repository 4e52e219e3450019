// bank: lab=10 expect=fail
// why: a carry-lookahead only three stages deep: a carry reaches the limb above its own and passes through at most two all-ones limbs, so chains of 0, 1 or 2 propagating limbs come out right and longer ones lose their carry; random limbs never make a longer chain, so only the harness's chains of every length at random places catch it
/* Lane j holds limb j.  Each stage moves the carries that sit on a
 * propagating limb one limb further up; a full adder would repeat that
 * until nothing moves (or do it in one 64-bit addition), this one stops
 * after two. */
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
    unsigned long long g = __ballot_sync(FULL_MASK, sum < x);
    unsigned long long p = __ballot_sync(FULL_MASK, sum == 0xffffffffu);
    unsigned long long c1 = g << 1;             /* from the limb below */
    unsigned long long c2 = (c1 & p) << 1;      /* through one all-ones limb */
    unsigned long long c3 = (c2 & p) << 1;      /* through two */
    unsigned long long cin = c1 | c2 | c3;      /* BUG: a third is never tried */
    r[limb] = sum + (uint32_t)((cin >> lane) & 1u);
    if (lane == 0)
        carry_out[num] = (uint32_t)(cin >> 32) & 1u;
}

extern "C" void lab_mpadd(const uint32_t *a, const uint32_t *b, uint32_t *r,
                          uint32_t *carry_out, unsigned count, cudaStream_t s)
{
    if (count == 0)
        return;
    mpadd_kernel<<<(count + WARPS - 1) / WARPS, BLOCK, 0, s>>>(a, b, r, carry_out, count);
}
