/* Lab 04 — first add during load: reference solution.
 *
 * In lab 03 half the threads retire after the load without adding anything.
 * Here every block covers 2*BLOCK elements and each thread adds two of them
 * on the way into shared memory: the first level of the tree is done in
 * registers, and a pass needs half as many blocks.
 */
#include "lab.h"

#define BLOCK 128
#define ELEMS (2 * BLOCK)   /* inputs per block */

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;

    /* Two loads, a block apart, so each warp still reads 32 consecutive
     * ints per load.  Each load is guarded on its own: in the last block the
     * first may be inside the array and the second past its end.  The index
     * i + blockDim.x stays below n + 2*BLOCK: no unsigned wrap-around. */
    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
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
