/* Lab 05 — unroll the last warp.
 *
 * Your job: write warp_tail(), which finishes the tree inside warp 0 once
 * only 64 partial sums are left, without block barriers but with the
 * warp-level synchronisation that Volta and later GPUs need.  The kernel
 * already stops its block loop at s = 64 and calls warp_tail(); the
 * launcher is complete.  Read README.md first: the classic version of this
 * code, with `volatile` and nothing else, is wrong on today's GPUs.
 */
#include "lab.h"

#define BLOCK 128
#define ELEMS (2 * BLOCK)   /* inputs per block */

/* Sums sdata[0..64) with the 32 lanes of one warp; the total must end up in
 * lane 0's return value.  The caller guarantees that sdata[0..64) is final
 * (a __syncthreads() came after the last write by another warp). */
static __device__ __forceinline__ int warp_tail(int *sdata, unsigned lane)
{
    /* TODO: six steps, s = 32, 16, 8, 4, 2, 1: lane k adds sdata[k + s]
     * into its running sum and stores it to sdata[k].  Between one lane's
     * read of a word and another lane's write of it, the lanes must meet
     * at __syncwarp() (or use __shfl_down_sync and skip shared memory). */
    return sdata[lane];
}

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;

    /* First add during load, as in lab 04. */
    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    /* Block-wide levels only while more than one warp has work.  With 128
     * threads that is the single level s = 64; its barrier also makes
     * sdata[0..64) visible to warp 0. */
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    /* The whole of warp 0 enters (tid < 32 is exactly that warp), so
     * full-mask warp primitives are legal inside. */
    if (tid < 32) {
        v = warp_tail(sdata, tid);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

/* Multi-pass launcher, as in lab 04: ELEMS inputs per block per pass. */
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
