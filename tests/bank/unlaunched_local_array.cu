// bank: lab=01 expect=pass cpu=pass
// why: a right reduction (eight 1024-thread blocks, a grid-stride loop, a shared tree, one atomicAdd a block) beside a kernel it never launches whose threads keep a 508 KB local array: a GPU reserves a launch the local memory of the kernel it runs, and the emulator now does too (the .local places of the functions a kernel can run); when it gave every thread the local memory of the whole module, the first launch needed 4.2 GB and the check ended "needs a GPU" at the CPU judge's memory bound after seconds of junk-filling
/* The judge refuses a launched kernel whose threads use more local memory
 * than the catalog allows; this one is never launched, and what it costs
 * the emulator is bounded by the CPU judge's memory limit. */
#include "lab.h"

#define BLOCK 1024
#define BLOCKS 8
#define BIG 127000

__global__ void never_launched(const int *in, int *out, unsigned n)
{
    volatile int big[BIG];
    for (unsigned i = threadIdx.x; i < BIG; i += blockDim.x)
        big[i] = in[i % n];
    out[0] = big[n % BIG];
}

__global__ void reduce_grid(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    int sum = 0;

    for (unsigned i = blockIdx.x * BLOCK + tid; i < n; i += BLOCKS * BLOCK)
        sum += in[i];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(out, sdata[0]);
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof *d_out, s);
    reduce_grid<<<BLOCKS, BLOCK, 0, s>>>(d_in, d_out, n);
}
