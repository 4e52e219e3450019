/* Lab 01 — interleaved addressing: reference solution.
 *
 * Each block sums its BLOCK-element slice with a shared-memory tree whose
 * working threads are picked by tid % (2*s); the launcher repeats passes until
 * one value is left.  Correct for every n, but slow on purpose: the labs that
 * follow remove its waste one step at a time.
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

    /* The tree: after level s, sdata[tid] holds the sum of 2*s inputs for
     * every tid that is a multiple of 2*s.  The modulo picks scattered threads
     * in every warp, so all warps stay busy with few active lanes: that waste
     * is what lab 02 removes. */
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        /* Outside the if: a barrier some threads skip is undefined. */
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
