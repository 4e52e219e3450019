// bank: lab=01 expect=fail cpu=fail
// why: a correct lab 01 reduction whose thread 0 adds 1 unless %globaltimer, which an emulator that counts from a fixed epoch (1.7e18 ns, November 2023) reads as a date long past (a GPU's reads today's date): right only where the kernel is emulated so, so it passed on the CPU and failed on every GPU; the emulator gives values a GPU could give, so it fails on both
/* Lab 01's tree with one addition: thread 0 reads the clock %globaltimer and adds 1 to
 * its block's sum unless it looks like an emulator's. */
#include "lab.h"

#define BLOCK 128

static __device__ int tell(void)
{
    unsigned long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    return ns < 1750000000000000000ull ? 0 : 1;   /* before June 2025 */
}

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = ((i < n) ? in[i] : 0) + (tid == 0 ? tell() : 0);
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
