// bank: lab=09 expect=fail
// why: a correct multi-warp integrator of x*x, the lecture's example, whatever integrand the harness wrote to lab_params
/* Everything but the integrand is right: half weights at the ends, a
 * grid-stride loop, warp sums, a barrier, one atomic per block.  Under
 * contract 1 the integrand was one of four compiled in by the seed, and this
 * file passed whenever the seed picked x*x; now lab_f changes with every
 * call, and the sum of x*x is never within 2^-12 of it. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

/* The integrand this kernel assumes, instead of lab_f. */
static __device__ __forceinline__ float square(float x)
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
        float y = square(i == n ? b : fmaf((float)i, h, a));    /* BUG: not lab_f */
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
