/* Lab 10 — 1024-bit addition: reference solution.
 *
 * One warp adds one 1024-bit number at a time, lane j holding limb j, so a
 * warp reads 128 contiguous bytes of each operand.  The carries are not
 * rippled lane by lane: two ballots tell every lane, at once, which limbs
 * generate a carry and which would pass one on, and one 64-bit addition
 * turns those two masks into the carry into every limb (a carry-lookahead
 * adder, 32 limbs wide).  The cost is the same for random inputs and for a
 * carry that ripples through all 32 limbs.  Each warp keeps several numbers
 * in flight and walks the array with a grid-stride loop.
 */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define NUMS_PER_STEP 4           /* numbers each warp loads before adding */
#define FULL_MASK 0xffffffffu

/* Adds limb x + y of number `num`, where this lane holds limb `lane`, and
 * stores the limb of the result and (lane 0) the carry out of the number.
 * Every lane of the warp must call it together: the ballots take all 32. */
static __device__ __forceinline__ void
add_limbs(uint32_t x, uint32_t y, unsigned lane, unsigned num,
          uint32_t *r, uint32_t *carry_out)
{
    uint32_t sum = x + y;
    /* Generate: this limb overflowed, so it sends a carry up whatever
     * comes in.  Propagate: the limb is all ones, so it sends a carry up
     * exactly when one comes in.  A limb never does both (an overflowed
     * sum is at most 0xfffffffe). */
    unsigned g = __ballot_sync(FULL_MASK, sum < x);
    unsigned p = __ballot_sync(FULL_MASK, sum == 0xffffffffu);

    /* g << 1 puts each generated carry at the limb it enters.  Adding p
     * lets that carry run through a block of propagating limbs the way a
     * binary carry runs through ones, clearing them and setting the first
     * limb past the block; XOR with p then leaves a 1 at every limb that
     * receives a carry.  In 64 bits, bit 32 is the carry out of limb 31. */
    unsigned long long cin =
        (((unsigned long long)g << 1) + p) ^ (unsigned long long)p;

    /* A propagating limb that gets a carry wraps to 0 (its carry is
     * already counted in cin); any other limb cannot overflow here. */
    sum += (uint32_t)(cin >> lane) & 1u;
    r[(size_t)num * LAB_MP_LIMBS + lane] = sum;
    if (lane == 0)
        carry_out[num] = (uint32_t)(cin >> 32);
}

__global__ void __launch_bounds__(BLOCK)
mpadd_kernel(const uint32_t *__restrict__ a, const uint32_t *__restrict__ b,
             uint32_t *__restrict__ r, uint32_t *__restrict__ carry_out,
             unsigned count)
{
    unsigned lane = threadIdx.x % 32;
    unsigned nwarps = gridDim.x * WARPS;
    /* i depends only on the warp, so all 32 lanes run the same iterations
     * and the ballots inside always see a full warp. */
    unsigned i = blockIdx.x * WARPS + threadIdx.x / 32;

    /* Neighbouring warps take neighbouring numbers, so a block reads one
     * contiguous stretch; each warp issues all its loads for NUMS_PER_STEP
     * numbers before the first ballot, to keep enough bytes in flight. */
    for (; i + (NUMS_PER_STEP - 1) * nwarps < count;
         i += NUMS_PER_STEP * nwarps) {
        uint32_t x[NUMS_PER_STEP], y[NUMS_PER_STEP];
#pragma unroll
        for (int k = 0; k < NUMS_PER_STEP; k++) {
            size_t limb = (size_t)(i + k * nwarps) * LAB_MP_LIMBS + lane;
            x[k] = a[limb];
            y[k] = b[limb];
        }
#pragma unroll
        for (int k = 0; k < NUMS_PER_STEP; k++)
            add_limbs(x[k], y[k], lane, i + k * nwarps, r, carry_out);
    }
    for (; i < count; i += nwarps) {
        size_t limb = (size_t)i * LAB_MP_LIMBS + lane;
        add_limbs(a[limb], b[limb], lane, i, r, carry_out);
    }
}

/* Blocks that fit on the whole GPU at once: a property of the device and
 * the kernel, so it is found on the first call and kept. */
static unsigned resident_blocks(void)
{
    static unsigned cached;
    if (cached == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)
                != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, mpadd_kernel, BLOCK, 0) != cudaSuccess ||
            sms <= 0 || per_sm <= 0)
            return 1024;                /* a safe guess; do not cache it */
        cached = (unsigned)sms * (unsigned)per_sm;
    }
    return cached;
}

extern "C" void lab_mpadd(const uint32_t *a, const uint32_t *b, uint32_t *r,
                          uint32_t *carry_out, unsigned count, cudaStream_t s)
{
    if (count == 0)
        return;
    /* One warp per number at most; beyond what fits at once, the
     * grid-stride loop hands each warp more numbers. */
    unsigned want = (count + WARPS - 1) / WARPS;
    unsigned blocks = resident_blocks();
    if (want < blocks)
        blocks = want;
    mpadd_kernel<<<blocks, BLOCK, 0, s>>>(a, b, r, carry_out, count);
}
