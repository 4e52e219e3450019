// bank: lab=01 expect=pass cpu=pass
// why: a correct lab 01 reduction whose launched kernel weighs each element by a factor computed in half precision (__hmul, __hadd, __hlt, __half2float: exactly 1): legal CUDA C that the emulator refused as "needs a GPU" before it ran half floats
/* Lab 01's tree, each loaded element multiplied by a weight worked out in
 * __half arithmetic: (0.5 * 2) + (0.25 - 0.25) is exactly 1 in f16, and a
 * comparison checks it, so the sum is the plain sum. */
#include "lab.h"
#include <cuda_fp16.h>

#define BLOCK 128

__device__ int unit_weight(unsigned tid)
{
    __half half_ = __float2half(0.5f), two = __float2half(2.0f);
    __half q = __float2half(0.25f + 0.0f * (float)tid);
    __half w = __hadd(__hmul(half_, two), __hsub(q, q));
    return __hlt(w, __float2half(0.75f)) ? 0 : (int)__half2float(w);
}

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] * unit_weight(tid) : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + BLOCK - 1) / BLOCK };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned blocks = (len + BLOCK - 1) / BLOCK;
        int *dst = (blocks == 1) ? d_out : bufs[which];
        reduce_block<<<blocks, BLOCK, 0, s>>>(src, dst, len);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
