/* Lab 03 — sequential addressing.
 *
 * Your job: finish reduce_block() with a tree whose stride starts at half
 * the block and halves every level, so that neighbouring threads read
 * neighbouring words of shared memory.  The launcher at the bottom is
 * complete.  Read README.md first.
 */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    /* Zero past the end: the tree stays the same whatever n is. */
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    /* TODO: the tree, with s = blockDim.x / 2, then half that, down to 1.
     * At each level the threads with tid < s add sdata[tid + s] into
     * sdata[tid]; then every thread waits at __syncthreads(). */

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* Multi-pass launcher, unchanged from lab 01: each pass turns `len` values
 * into ceil(len / BLOCK) block sums, ping-ponging between the two halves of
 * the scratch buffer, until a single block writes *d_out. */
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
