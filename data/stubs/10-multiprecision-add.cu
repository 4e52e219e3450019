/* Lab 10 — 1024-bit addition: carries by vote and shuffle.
 *
 * Your job: make lab_mpadd() compute r_i = a_i + b_i for count numbers of
 * 1024 bits (32 little-endian 32-bit limbs each, number i at limbs
 * [32i, 32i+32)) and carry_out[i] = the carry out of the top limb.
 *
 * The launcher and the data layout are done: one warp per number, lane j
 * holds limb j, so each warp reads 128 contiguous bytes of a and of b.
 * What is missing is the carries: as shipped, every limb is added on its
 * own and the carries are thrown away.  Look for TODO.  Read README.md
 * first: it shows a simple loop, then a faster way.
 */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

__global__ void __launch_bounds__(BLOCK)
mpadd_kernel(const uint32_t *__restrict__ a, const uint32_t *__restrict__ b,
             uint32_t *__restrict__ r, uint32_t *__restrict__ carry_out,
             unsigned count)
{
    unsigned lane = threadIdx.x % 32;
    unsigned num = blockIdx.x * WARPS + threadIdx.x / 32;

    /* The whole warp leaves together (num is the same for its 32 lanes),
     * so the warp-wide votes and shuffles below always see all 32 lanes. */
    if (num >= count)
        return;

    size_t limb = (size_t)num * LAB_MP_LIMBS + lane;
    uint32_t x = a[limb], y = b[limb];
    uint32_t sum = x + y;

    /* TODO: propagate the carries.  This limb overflowed if sum < x; its
     * carry belongs to limb lane + 1, and adding it there can overflow
     * again.  Resolve them across the warp (__any_sync, __shfl_up_sync,
     * __ballot_sync), and remember the carry that leaves limb 31: it is
     * carry_out[num]. */

    r[limb] = sum;
    if (lane == 0)
        carry_out[num] = 0;             /* TODO: the carry out of limb 31 */
}

extern "C" void lab_mpadd(const uint32_t *a, const uint32_t *b, uint32_t *r,
                          uint32_t *carry_out, unsigned count, cudaStream_t s)
{
    if (count == 0)
        return;
    /* One warp per number. */
    unsigned blocks = (count + WARPS - 1) / WARPS;
    mpadd_kernel<<<blocks, BLOCK, 0, s>>>(a, b, r, carry_out, count);
}
