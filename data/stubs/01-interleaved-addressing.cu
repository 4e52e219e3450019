/* Lab 01 — interleaved addressing.
 *
 * Your job: finish reduce_block() so that each block writes the sum of its
 * slice of `in` to out[blockIdx.x].  The launcher at the bottom is complete:
 * it runs the kernel pass after pass, each pass shrinking the array by a factor
 * of BLOCK, until one value is left in *d_out.  Read README.md first.
 */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    /* Threads past the end load 0, the identity of +, so the tree below never
     * needs to know where the array stops. */
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    /* TODO: reduce sdata[0..BLOCK) to sdata[0] with interleaved addressing:
     * at level s = 1, 2, 4, ... the threads whose tid is a multiple of 2*s
     * add sdata[tid + s] into sdata[tid].  Every thread must reach the same
     * __syncthreads() after each level. */

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
