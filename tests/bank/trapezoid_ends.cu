// bank: lab=09 expect=fail
// why: gives the two end points weight 1 instead of 1/2
/* Sums h * (f(x_0) + f(x_1) + ... + f(x_n)): every point at full weight.
 * That is the trapezoid rule plus h * (f(a) + f(b)) / 2, an error of about
 * 1/(2n) of the result, well over the tolerance at small n unless
 * f(a) + f(b) happens to vanish.  The rest is a correct multi-warp kernel. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__global__ void trapezoid_kernel(float a, float h, unsigned n, float *out)
{
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    float sum = 0.0f;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i <= n; i += gridDim.x * BLOCK)
        sum += lab_f(fmaf((float)i, h, a));     /* BUG: no half weights */
    sum = warp_sum(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = warp_sum(lane < WARPS ? warp_sums[lane] : 0.0f);
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
