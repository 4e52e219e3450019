// bank: lab=01 expect=fail cpu=fail
// why: the bank's wrong answer (= where += belongs) beside a kernel that converts to __half and is never launched: the unlaunched kernel must not take the file out of judging (the emulator refused the whole file, so a wrong answer became no_gpu and left the grade's denominator)
/* Lab 01 with the overwrite slip of wrong_answer.cu, plus a helper kernel
 * in half precision that the launcher never calls.  Only launched kernels
 * count: the verdict is the slip's. */
#include "lab.h"
#include <cuda_fp16.h>

#define BLOCK 128

__global__ void to_half(const float *in, __half *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __float2half(in[i]);
}

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] = sdata[tid + s];        /* the slip: = instead of += */
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
