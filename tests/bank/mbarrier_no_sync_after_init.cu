// bank: lab=01 expect=runtime_error cpu=fail
// why: the cuda::barrier tree without the __syncthreads() after init: other threads may arrive at the barrier before thread 0 has initialised it (the CUDA guide: init must happen before any thread uses the barrier); a hazard on the emulator, which holds an mbarrier's uses to its init; on the H200 the early arrivals crash the kernel (unspecified launch failure)
/* Lab 01's tree, each level ended by a block-scope cuda::barrier that every
 * thread of the block arrives at and waits on. */
#include "lab.h"
#include <cuda/barrier>

#define BLOCK 128
#define PER_THREAD 16      /* elements each thread adds before the tree */

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> level;
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned base = blockIdx.x * BLOCK * PER_THREAD + threadIdx.x;
    int sum = 0;

    if (tid == 0)
        init(&level, blockDim.x);
    for (unsigned k = 0; k < PER_THREAD; k++)
        if (base + k * BLOCK < n)
            sum += in[base + k * BLOCK];
    sdata[tid] = sum;
    level.arrive_and_wait();           /* too soon: init may not have happened */
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        level.arrive_and_wait();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    unsigned chunk = BLOCK * PER_THREAD;
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + chunk - 1) / chunk };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned blocks = (len + chunk - 1) / chunk;
        int *dst = (blocks == 1) ? d_out : bufs[which];
        reduce_block<<<blocks, BLOCK, 0, s>>>(src, dst, len);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
