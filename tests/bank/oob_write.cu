// bank: lab=01 expect=runtime_error cpu=runtime_error
// why: each block's sum is stored 1 TiB past d_out, an address no allocation covers: the launch faults with an illegal address
/* A stray pointer: the block sums should go to the scratch buffer, but they
 * are written at d_out plus a huge offset.  The first launch traps, and the
 * harness must report a runtime error, not a wrong sum or a crash of its
 * own. */
#include "lab.h"

#define BLOCK 128
#define FAR ((size_t)1 << 38)   /* ints: 2^40 bytes, one TiB */

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
        out[FAR + blockIdx.x] = sdata[0];   /* the bug */
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    reduce_block<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, s>>>(d_in, d_out, n);
}
