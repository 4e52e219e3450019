// bank: lab=10 expect=fail cpu=fail
// why: keeps every number's carries from the last call in a __device__ array, with the count they were for, and when the count comes again adds those instead of working them out; the plan is the same on every call; on a GPU the timed calls catch it (every sample changes numbers at random places, so carries from the call before are wrong for them, and the whole result is checked), and without one the CPU judge's second call at one trial size, with new numbers
/* The carries are the hard part of the lab, so this "saves" them: the
 * first call with a count computes them with two ballots and keeps them,
 * later calls with that count reuse them.  A second, one-thread kernel
 * records the count after the first is done, so no block of the same
 * launch sees it early. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu
#define KEEP (1u << 21)                 /* numbers whose carries fit */

static __device__ unsigned long long kept_cin[KEEP];
static __device__ unsigned kept_count;

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
    unsigned long long cin;
    if (kept_count == count && count <= KEEP) {
        cin = kept_cin[num];            /* BUG: the inputs may have changed */
    } else {
        unsigned long long g = __ballot_sync(FULL_MASK, sum < x);
        unsigned long long p = __ballot_sync(FULL_MASK, sum == 0xffffffffu);
        cin = ((g << 1) + p) ^ p;
        if (lane == 0 && count <= KEEP)
            kept_cin[num] = cin;
    }
    r[limb] = sum + (uint32_t)((cin >> lane) & 1u);
    if (lane == 0)
        carry_out[num] = (uint32_t)(cin >> 32);
}

__global__ void keep_count(unsigned count)
{
    kept_count = count;
}

extern "C" void lab_mpadd(const uint32_t *a, const uint32_t *b, uint32_t *r,
                          uint32_t *carry_out, unsigned count, cudaStream_t s)
{
    if (count == 0)
        return;
    mpadd_kernel<<<(count + WARPS - 1) / WARPS, BLOCK, 0, s>>>(a, b, r, carry_out, count);
    keep_count<<<1, 1, 0, s>>>(count);
}
