// bank: lab=01 expect=fail cpu=fail
// why: the cluster tree without the cluster.sync() before reading the partner's total: the first block may read it before the partner's tree has finished (__syncthreads() orders one block only); a race by line on the emulator, which orders another block's shared memory only by the cluster's barrier
/* Lab 01's tree, two blocks a cluster, with the first barrier of the
 * cluster missing: the partner's total is read while it is summed. */
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
    __syncthreads();                   /* orders this block only */
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
