// bank: lab=01 expect=timeout cpu=pass
// why: lab 01's solution whose first thread prints one number with a precision of 999999999 on every launch: the emulator handed width and precision to the host's snprintf as written, which took 4.8 GB of the CPU judge's memory and seconds a call; it clamps both to 512 now, so the kernel passes as a debugging print should, at no cost to the host (on the H200 the driver formats the text as asked, and the trials run past their time: timeout, 3 s at the bank's quarter limit)
/* printf is allowed in kernels; what one call may cost the judge's host is
 * bounded whatever its format asks for. */
#include <stdio.h>
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0)
        printf("%.999999999e\n", (double)n);

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

/* Multi-pass launcher: pass k reduces `len` values to ceil(len / BLOCK) block
 * sums.  Passes alternate between two halves of the scratch buffer, and the
 * last pass (one block) writes straight into d_out. */
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
