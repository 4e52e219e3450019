// bank: lab=08 expect=fail cpu=pass
// why: above 2^25 elements sums the input on its first call and afterwards reads back the sum it kept in a __device__ variable, adjusted by one element; every timed sample changes an element at a random place by 1/16 of the sum of magnitudes or more, so the kept sum is far off
/* The launcher is the same on every call (the plan check passes): the
 * kernel decides on the device, from a flag it keeps between calls, whether
 * to sum or to replay.  Below 2^25 elements it always sums, so the trials
 * pass; the timed cases read one element in place of 2^26. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

static __device__ float kept;           /* survives between calls */
static __device__ unsigned kept_n;

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__global__ void sum_or_replay(const float *in, unsigned n, float *out)
{
    __shared__ float warp_sums[WARPS];
    if (n >= (1u << 25) && kept_n == n) {
        if (blockIdx.x == 0 && threadIdx.x == 0)
            atomicAdd(out, kept);
        return;
    }
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    float v = 0.0f;
    for (unsigned long long i = (unsigned long long)blockIdx.x * BLOCK + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * BLOCK)
        v += in[i];
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0) {
            atomicAdd(out, v);
            atomicAdd(&kept, v);
        }
    }
}

__global__ void remember(unsigned n)
{
    kept_n = n;
}

__global__ void forget(unsigned n)
{
    if (kept_n != n)
        kept = 0.0f;
}

extern "C" void lab_reduce_float(const float *d_in, unsigned n, float *d_out,
                                 void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof(float), s);
    forget<<<1, 1, 0, s>>>(n);
    sum_or_replay<<<1024, BLOCK, 0, s>>>(d_in, n, d_out);
    remember<<<1, 1, 0, s>>>(n);
}
