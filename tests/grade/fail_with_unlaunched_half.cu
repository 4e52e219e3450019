/* tests/grade: the bank's wrong_answer (lab 01: = where += belongs) with
 * a __half kernel it never launches, whose .f16 the emulator refused for
 * the whole file: the CPU tier then reached no verdict, the lab was
 * no_gpu, and a grading without a GPU left it out of graded_max_score
 * where a fail was due (issue 32).  tests/grade_cpu.sh grades it. */
#include <cuda_fp16.h>
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] = sdata[tid + s];        /* the bug: = instead of += */
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

__global__ void never_launched(const __half *in, __half *out)
{
    out[threadIdx.x] = __hadd(in[threadIdx.x], __float2half(1.0f));
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
