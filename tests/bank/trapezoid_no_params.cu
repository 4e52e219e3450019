// bank: lab=09 expect=rejected
// why: opts out of lab.h's lab_params (LAB_NO_PARAMS) and brings its own lab_f, x*x: the judge finds no lab_params in the module to write the integrand to and rejects the file (without a GPU, the CPU judge loads its PTX and rejects it alike)
/* The integrand reaches a kernel only through lab_params, which lab.h
 * defines in every kernel file.  A file that defines LAB_NO_PARAMS (meant for
 * the harness's own sources) gets neither it nor lab_f, and can integrate a
 * function of its choice; the judge looks lab_params up by name in the
 * loaded module before the first trial, and its absence is a rejection, not
 * a wrong answer the kernel could hope to get away with. */
#define LAB_NO_PARAMS
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

static __device__ __forceinline__ float lab_f(float x)
{
    return x * x;
}

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__global__ void trapezoid_kernel(float a, float b, float h, unsigned n, float *out)
{
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    float sum = 0.0f;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i <= n; i += gridDim.x * BLOCK) {
        float y = lab_f(i == n ? b : fmaf((float)i, h, a));
        sum += i == 0 || i == n ? 0.5f * y : y;
    }
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
    trapezoid_kernel<<<blocks, BLOCK, 0, s>>>(a, b, h, n, d_out);
}
