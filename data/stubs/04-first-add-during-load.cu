/* Lab 04 — first add during load.
 *
 * Your job: change the load in reduce_block() so that each thread fetches
 * two elements, BLOCK apart, and stores their sum.  The launcher below
 * already gives every block 2*BLOCK elements, so until you do, half of the
 * input is never read and the sum comes out wrong.  The tree is lab 03's.
 * Read README.md first.
 */
#include "lab.h"

#define BLOCK 128
#define ELEMS (2 * BLOCK)   /* inputs per block */

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;

    /* TODO: this block owns in[blockIdx.x * 2*blockDim.x ...] up to
     * 2*blockDim.x elements, but only the first half is loaded here.  Also
     * load in[i + blockDim.x] and add it, guarding each of the two loads
     * against n on its own. */
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    /* Lab 03's tree: contiguous threads, conflict-free addresses. */
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* Multi-pass launcher: the same loop as before, but a block now consumes
 * ELEMS values, so each pass shrinks the array 256-fold and the partial
 * sums of the first pass need only ceil(n / ELEMS) ints of scratch. */
extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + ELEMS - 1) / ELEMS };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned blocks = (len + ELEMS - 1) / ELEMS;
        int *dst = (blocks == 1) ? d_out : bufs[which];
        reduce_block<<<blocks, BLOCK, 0, s>>>(src, dst, len);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
