// bank: lab=05 expect=fail cpu=fail
// why: the classic volatile-only warp tail, no __syncwarp: a data race since Volta (independent thread scheduling); racecheck must report it, the sums may be wrong too, and the lab 05 technique check finds no warp primitive
/* The 2007-era unroll-last-warp: it assumed the 32 lanes of a warp run in
 * lock-step, so that every lane's read of sdata[tid + s] happens before any
 * lane's write.  `volatile` only stops the compiler keeping values in
 * registers; nothing orders the lanes against each other. */
#include "lab.h"

#define BLOCK 128
#define ELEMS (2 * BLOCK)

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;

    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) {
        volatile int *vs = sdata;       /* the bug: volatile is not a barrier */
        vs[tid] += vs[tid + 32];
        vs[tid] += vs[tid + 16];
        vs[tid] += vs[tid + 8];
        vs[tid] += vs[tid + 4];
        vs[tid] += vs[tid + 2];
        vs[tid] += vs[tid + 1];
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

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
