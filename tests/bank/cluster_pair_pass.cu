// bank: lab=01 expect=pass cpu=pass
// why: a correct lab 01 tree on Hopper's thread block clusters: blocks go in pairs (__cluster_dims__(2,1,1)), each sums its slice in shared memory, and after cluster.sync() the pair's rank-0 block adds its partner's sum read through distributed shared memory (map_shared_rank); a second cluster.sync() keeps the partner's shared memory alive until then. Legal CUDA C the emulator could not parse before it ran clusters
/* Lab 01's tree, two blocks a cluster: the first block of each pair adds
 * the second's total, read from that block's shared memory. */
#include "lab.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define BLOCK 128

__global__ void __cluster_dims__(2, 1, 1) reduce_pair(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    cg::cluster_group pair = cg::this_cluster();
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    pair.sync();                       /* both totals are in place */
    if (pair.block_rank() == 0 && tid == 0) {
        int *other = pair.map_shared_rank(&sdata[0], 1);
        out[blockIdx.x / 2] = sdata[0] + *other;
    }
    pair.sync();                       /* the partner stays until it is read */
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + 2 * BLOCK - 1) / (2 * BLOCK) };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned pairs = (len + 2 * BLOCK - 1) / (2 * BLOCK);
        int *dst = (pairs == 1) ? d_out : bufs[which];
        reduce_pair<<<2 * pairs, BLOCK, 0, s>>>(src, dst, len);
        if (pairs == 1)
            break;
        src = dst;
        len = pairs;
        which ^= 1;
    }
}
