// bank: lab=01 expect=fail cpu=fail
// why: every lane of a warp calls __shfl_down_sync(0xffff, v, s), whose mask names lanes 0 to 15 only: undefined for lanes 16 to 31 (the CUDA guide: each calling thread must be in the mask); a GPU gives the right sum, so only the emulator's mask rule fails it
/* A warp-shuffle block sum with a half-warp mask copied from a 16-lane
 * example.  Lane 0's result is right on a GPU all the same. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int warp_sums[BLOCK / 32];
    unsigned tid = threadIdx.x, lane = tid % 32;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    int v = (i < n) ? in[i] : 0;
    for (int s = 16; s > 0; s /= 2)
        v += __shfl_down_sync(0xffff, v, s);    /* the slip: half the mask */
    if (lane == 0)
        warp_sums[tid / 32] = v;
    __syncthreads();
    if (tid == 0) {
        int t = 0;
        for (int w = 0; w < BLOCK / 32; w++)
            t += warp_sums[w];
        out[blockIdx.x] = t;
    }
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
