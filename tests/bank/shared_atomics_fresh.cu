// bank: lab=01 expect=pass cpu=pass
// why: a correct block sum in one shared word: thread 0 zeroes it with atomicExch, every thread adds its element with atomicAdd (its old value dropped), and many threads set a shared flag to the same 1; all legal (racecheck reports none), where the emulator said "reads shared memory at offset 0, which no thread of the block has written" and called the flag a race
/* The slow and simple way to a block's sum: shared atomics. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int total;
    __shared__ int any;
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    if (tid == 0) {
        atomicExch(&total, 0);
        any = 0;
    }
    __syncthreads();
    int v = (i < n) ? in[i] : 0;
    atomicAdd(&total, v);
    if (v != 0)
        any = 1;            /* the same value from every thread that sets it */
    __syncthreads();
    if (tid == 0)
        out[blockIdx.x] = any ? total : 0;
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
