// bank: lab=01 expect=pass cpu=pass
// why: a correct block sum whose threads past n return first, and whose warps then call __ballot_sync and __shfl_down_sync with the full mask: legal (the CUDA guide asks it of the non-exited threads the mask names), and it adds only lanes that are there; the emulator said "mask names lane 1, which has exited"
/* Threads past the end leave at once.  The rest count themselves with a
 * ballot and add by shuffles, taking a neighbour's value only when that
 * neighbour is one of them. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int warp_sums[BLOCK / 32];
    unsigned tid = threadIdx.x, lane = tid % 32;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i >= n)
        return;
    int v = in[i];
    unsigned here = __popc(__ballot_sync(0xffffffffu, 1));
    for (unsigned s = 16; s > 0; s /= 2) {
        int other = __shfl_down_sync(0xffffffffu, v, s);
        if (lane + s < here)
            v += other;
    }
    if (lane == 0)
        warp_sums[tid / 32] = v;
    __syncthreads();
    if (tid == 0) {
        unsigned left = n - blockIdx.x * blockDim.x;
        unsigned warps = (left < BLOCK ? left + 31 : BLOCK) / 32;
        int t = 0;
        for (unsigned w = 0; w < warps; w++)
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
