// bank: lab=01 expect=timeout cpu=pass
// why: a correct reduction whose every thread printfs on every call, under the race checkers (this line names the sanitizer, so bank.sh runs them): instrumented printf is slow, and the tools once ran to 3x the judge's limit (about 190 s); the check now has one wall-clock bound, its catalog's check_timeout_s, and ends in timeout at it, the message naming the bound; without a GPU no sanitizer runs and the emulator formats the prints at once, so the same kernel passes (a fault of time alone)
/* printf is allowed in kernels (for debugging); its cost is the
 * submission's, bounded by the check's wall clock. */
#include <stdio.h>
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    printf("block %u thread %u of a reduction over %u elements\n", blockIdx.x, tid, n);
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* The multi-pass launcher of lab 01's solution. */
static void launch_passes(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
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

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    launch_passes(d_in, n, d_out, d_scratch, s);
}
