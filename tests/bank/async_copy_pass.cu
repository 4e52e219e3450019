// bank: lab=01 expect=pass cpu=pass
// why: a correct lab 01 tree whose block loads its slice with __pipeline_memcpy_async (cp.async.ca.shared.global), commits and waits for it before the barrier: legal CUDA C the emulator refused as "needs a GPU" before it ran cp.async
/* Lab 01's tree, its elements brought into shared memory by an
 * asynchronous copy (threads past the end store a zero instead). */
#include "lab.h"
#include <cuda_pipeline.h>

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n)
        __pipeline_memcpy_async(&sdata[tid], &in[i], sizeof(int));
    else
        sdata[tid] = 0;
    __pipeline_commit();
    __pipeline_wait_prior(0);          /* the copy has landed */
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
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
