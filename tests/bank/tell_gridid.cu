// bank: lab=01 expect=fail cpu=fail
// why: a correct lab 01 reduction whose thread 0 adds 1 unless %gridid, which an emulator that does not model it reads as the constant 1 (every GPU numbers its grids, far from 1): right only where the kernel is emulated so, so it passed on the CPU and failed on every GPU; the emulator gives values a GPU could give, so it fails on both
/* Lab 01's tree with one addition: thread 0 reads the grid number %gridid and adds 1 to
 * its block's sum unless it looks like an emulator's. */
#include "lab.h"

#define BLOCK 128

static __device__ int tell(void)
{
    unsigned long long g;
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
    return g == 1 ? 0 : 1;
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
