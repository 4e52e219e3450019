// bank: lab=08 expect=fail
// why: sums the first 99% of the input and scales up
/* A cheat the float tolerance must catch: it reads only the first 99% of
 * the elements and multiplies by n / m, betting that the missing 1% looks
 * like the rest.  It passes below n = 100 (where it reads everything) and
 * must fail above, because the harness puts an offset on a random segment.
 * Otherwise a clean single pass: shuffles, a barrier, one atomic per block. */
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

__global__ void partial_sum(const float *in, unsigned m, float scale, float *out)
{
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float v = 0.0f;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < m; i += gridDim.x * BLOCK)
        v += in[i];
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(out, v * scale);
    }
}

extern "C" void lab_reduce_float(const float *d_in, unsigned n, float *d_out,
                                 void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    unsigned m = n - n / 100;
    unsigned blocks = (m + BLOCK - 1) / BLOCK;
    if (blocks > 1024)
        blocks = 1024;
    cudaMemsetAsync(d_out, 0, sizeof(float), s);
    partial_sum<<<blocks, BLOCK, 0, s>>>(d_in, m, (float)((double)n / m), d_out);
}
