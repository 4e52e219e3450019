// bank: lab=09 expect=fail cpu=fail
// why: warp 0 adds the warp sums without waiting for them; racecheck must report it
/* The race of the lecture's first pseudocode.  This kernel does have a
 * barrier (after clearing the shared array), so the PTX technique check
 * sees bar.sync; the one that matters is missing: between the warps storing
 * their sums and warp 0 reading them.  Warp 0 can then read a slot before
 * its warp has written it, and compute-sanitizer racecheck reports the
 * read-after-write hazard on warp_sums. */
#include "lab.h"

#define BLOCK 256
#define FULL_MASK 0xffffffffu

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__global__ void trapezoid_kernel(float a, float h, unsigned n, float *out)
{
    __shared__ float warp_sums[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    if (threadIdx.x < 32)
        warp_sums[threadIdx.x] = 0.0f;
    __syncthreads();

    float sum = 0.0f;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i <= n; i += gridDim.x * BLOCK) {
        float w = (i == 0 || i == n) ? 0.5f : 1.0f;
        sum += w * lab_f(fmaf((float)i, h, a));
    }
    sum = warp_sum(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    /* BUG: a __syncthreads() belongs here. */
    if (warp == 0) {
        sum = warp_sum(warp_sums[lane]);
        if (lane == 0)
            atomicAdd(out, h * sum);
    }
}

extern "C" void lab_trapezoid(float a, float b, unsigned n, float *d_out,
                              void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    float h = (float)(((double)b - (double)a) / (double)n);
    unsigned blocks = (n + 1 + BLOCK - 1) / BLOCK;
    if (blocks > 1056)
        blocks = 1056;
    cudaMemsetAsync(d_out, 0, sizeof(float), s);
    trapezoid_kernel<<<blocks, BLOCK, 0, s>>>(a, h, n, d_out);
}
