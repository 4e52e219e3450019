// bank: lab=01 expect=pass cpu=no_gpu
// why: a correct lab 01 reduction whose block reads its rank in a thread-block cluster (%cluster_ctarank, 0 without clusters) into its sum: the emulator runs no clusters, so on the CPU the check says it needs a GPU, never pass or fail
/* Lab 01's solution with one addition: sdata[0] gets the block's cluster
 * rank added, which is 0 for every launch a plan may make (no cluster
 * dimensions), so the sums stay right on a GPU. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned rank;

    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    sdata[tid] = ((i < n) ? in[i] : 0) + (tid == 0 ? (int)rank : 0);
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
