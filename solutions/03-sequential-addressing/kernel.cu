/* Lab 03 — sequential addressing: reference solution.
 *
 * The tree runs backwards: the stride starts at half the block and halves
 * each level, and thread tid adds sdata[tid + s] into sdata[tid].  The busy
 * threads are still contiguous (no divergence until the last warp), and now
 * the 32 lanes of a warp touch 32 consecutive words, one per bank, so
 * shared memory serves each warp in a single pass.
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

    /* Fold the upper half of the live range onto the lower half.  Halving
     * only works because BLOCK is a power of two: with 96 threads the first
     * level would drop one element. */
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        /* Outside the if: the threads with tid >= s must arrive too. */
        __syncthreads();
    }

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
