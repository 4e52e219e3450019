// bank: lab=01 expect=rejected cpu=rejected
// why: before its real passes the launcher launches a grid of 2^31-1 x 65535 x 65535 blocks, within every device limit, that would run for years; a launch may have at most 4 times the largest judged size in blocks (at least 2^20), so the plan check refuses it, naming the rule
/* The blocks return at once: only their number matters. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

__global__ void idle(void)
{
}

/* The multi-pass launcher of lab 01's solution. */
static void launch_passes(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
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

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    idle<<<dim3(0x7fffffffu, 65535, 65535), 1, 0, s>>>();
    launch_passes(d_in, n, d_out, d_scratch, s);
}
