/* Lab 05 — unroll the last warp: reference solution.
 *
 * Lab 04's tree spends its last six levels (s = 32 .. 1) paying for a full
 * block barrier and a loop test while only warp 0 has any work.  Here the
 * block loop stops at s = 64 and warp 0 finishes alone, with __syncwarp()
 * where its lanes must meet.  Since Volta the lanes of a warp are scheduled
 * independently, so the old lock-step trick with a volatile pointer and no
 * synchronisation is a data race: see README.md.
 */
#include "lab.h"

#define BLOCK 128
#define ELEMS (2 * BLOCK)   /* inputs per block */

/* Sums sdata[0..64) with the 32 lanes of one warp; the total ends up in
 * lane 0's return value.  The caller guarantees that sdata[0..64) is final
 * (a __syncthreads() came after the last write by another warp). */
static __device__ __forceinline__ int warp_tail(int *sdata, unsigned lane)
{
    /* Only lane k ever writes sdata[k] from here on, so v always equals
     * sdata[lane] and saves re-reading it.  The first step reads
     * sdata[32..64), which no lane writes: no barrier between its read and
     * its write. */
    int v = sdata[lane] + sdata[lane + 32];
    sdata[lane] = v;

    for (unsigned s = 16; s > 0; s >>= 1) {
        /* Publish the previous step's writes before anyone reads them. */
        __syncwarp();
        v += sdata[lane + s];
        /* Lane k + s must not overwrite sdata[k + s] until lane k has read
         * it: without this the read and the write race. */
        __syncwarp();
        sdata[lane] = v;
    }
    return v;
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

    /* The whole of warp 0 enters (tid < 32 is exactly that warp), so the
     * full-mask __syncwarp() calls inside are legal. */
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
