/* Lab 02 — strided index: reference solution.
 *
 * The same tree as lab 01, but the thread that works on pair k is thread k:
 * the active threads form one contiguous run at the start of the block, so
 * whole warps either work or sit out, and divergence only appears once fewer
 * than 32 threads are left.  The price is a strided shared-memory pattern
 * that piles several threads of a warp onto one bank: lab 03 fixes that.
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

    /* At level s, pair k is (2*s*k, 2*s*k + s).  Thread k takes it, so the
     * busy threads are 0, 1, 2, ... and not every (2*s)-th one.  With 128
     * threads, index stays below 2*64*127, far from overflowing. */
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        /* Every thread, busy or not, must reach the barrier. */
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
