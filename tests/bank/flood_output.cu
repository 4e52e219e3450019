// bank: lab=01 expect=pass
// why: a correct reduction that prints about a megabyte of text on every call, tens of megabytes in all; the check must keep only the tail of the output (the rest counted as dropped), the grader must not stall, and the verdict is the reduction's
/* printf and fputs are allowed (for debugging), so a submission can write
 * as much as it likes.  The tutor reads all of it, keeps 64 KiB while the
 * harness runs and 8 KiB in the report, and counts the rest. */
#include <stdio.h>
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
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
    static char line[1025];

    if (!line[0]) {
        for (int i = 0; i < 1023; i++)
            line[i] = 'a' + i % 26;
        line[1023] = '\n';
    }
    for (int i = 0; i < 1024; i++)                /* the flood: 1 MiB a call */
        fputs(line, stdout);
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
