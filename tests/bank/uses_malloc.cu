// bank: lab=01 expect=rejected
// why: allocates its own buffer for the partial sums with cudaMalloc (and frees it) instead of using d_scratch; the symbol check must reject cudaMalloc and cudaFree
/* Correct sums, but rule 2 of lab.h: no allocation.  cudaMalloc and
 * cudaFree also synchronise the device, which would distort the timing. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] : 0;
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
    unsigned first = (n + BLOCK - 1) / BLOCK;
    int *mine = NULL;
    int *bufs[2];
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    (void)d_scratch;
    if (cudaMalloc((void **)&mine, 2 * (size_t)first * sizeof(int) + sizeof(int))
            != cudaSuccess)
        return;
    bufs[0] = mine;
    bufs[1] = mine + first;
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
    cudaFree(mine);
}
