// bank: lab=01 expect=rejected
// why: forks from its host code on the first call, 1024 children that spin forever (a fork bomb with a bound, so that even outside a sandbox it cannot take the machine); the symbol check must reject fork before anything runs, and in the sandbox ulimit -u and the PID namespace bound what gets through
/* The reduction itself is correct.  A submission has no reason to start
 * processes; this one would leave a thousand busy children behind if it
 * ever ran. */
#include <unistd.h>
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
    static int forked;

    for (int i = 0; !forked && i < 1024; i++)     /* the violation */
        if (fork() == 0)
            for (;;)
                ;
    forked = 1;
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
