// bank: lab=01 expect=pass cpu=no_gpu
// why: a correct lab 01 reduction whose thread 0 also computes 2^0 in half precision with the approximate ex2.approx.f16 (through inline PTX) and adds 1 less than it: the emulator does not run the approximate half functions (their bits on the GPU are not measured), so on the CPU the check says it needs a GPU, never pass or fail
/* Lab 01's solution with one addition: thread 0 adds ex2.approx.f16(0)
 * less one, which is 0 (2^0 is exact in any approximation), so the sums
 * stay right on a GPU. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned short one = 0x3c00;           /* 1.0 in half precision */

    if (tid == 0)
        asm volatile("ex2.approx.f16 %0, %1;" : "=h"(one) : "h"((unsigned short)0));
    sdata[tid] = ((i < n) ? in[i] : 0) + (one == 0x3c00 ? 0 : 1000);
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
