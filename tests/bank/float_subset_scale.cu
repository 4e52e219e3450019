// bank: lab=08 expect=fail cpu=pass
// why: above 2^25 elements (the timed sizes, past every trial) reads one element in 32 and multiplies by 32; the float inputs hold sparse large values at random places, so any subset misses by far more than the tolerance
/* An estimate, not a sum: the average of a strided sample is a fine guess
 * for inputs that look alike everywhere, and 32 times less to read.  Below
 * 2^25 it reads everything, so every trial passes; the timed cases get the
 * guess.  Otherwise a clean single pass: shuffles, a barrier, one atomic
 * per block. */
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

__global__ void strided_sum(const float *in, unsigned n, unsigned step, float *out)
{
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float v = 0.0f;
    for (unsigned long long i = ((unsigned long long)blockIdx.x * BLOCK + threadIdx.x) * step; i < n;
         i += (unsigned long long)gridDim.x * BLOCK * step)
        v += in[i];
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(out, v * (float)step);
    }
}

extern "C" void lab_reduce_float(const float *d_in, unsigned n, float *d_out,
                                 void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    unsigned step = n >= (1u << 25) ? 32 : 1;
    cudaMemsetAsync(d_out, 0, sizeof(float), s);
    strided_sum<<<1024, BLOCK, 0, s>>>(d_in, n, step, d_out);
}
