// bank: lab=01 expect=fail
// why: the partial last block tests i < n - 1 instead of i <= n - 1, dropping the last element whenever n is not a multiple of the block size
/* Full blocks take a fast path with no bounds test; the last, partial block
 * tests its index against "the last index" and gets the comparison wrong.
 * Sizes that are multiples of 128 pass; 1, 2, 3, 33, 129, ... do not. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int full = (blockIdx.x + 1) * blockDim.x <= n;
    int v = 0;

    if (full)
        v = in[i];
    else if (i < n - 1)                 /* the bug: should be i <= n - 1 */
        v = in[i];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

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
