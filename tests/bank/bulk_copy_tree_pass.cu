// bank: lab=01 expect=pass cpu=pass
// why: a correct lab 01 tree whose full blocks bring their slice into shared memory with one bulk copy (cuda::memcpy_async with aligned_size_t<16> on Hopper: cp.async.bulk completing on an mbarrier) and wait on the barrier before adding; legal CUDA C the emulator refused as "needs a GPU" before it ran bulk copies and mbarriers
/* Lab 01's tree.  A block whose slice is whole and 16-byte aligned has
 * thread 0 copy it into shared memory in one bulk copy that completes on a
 * block-scope cuda::barrier; a partial or misaligned slice is loaded by
 * each thread as usual. */
#include "lab.h"
#include <cuda/barrier>
#include <stdint.h>

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> loaded;
    __shared__ alignas(16) int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned base = blockIdx.x * blockDim.x;
    bool whole = base + BLOCK <= n && ((uintptr_t)(in + base) & 15) == 0;

    if (tid == 0)
        init(&loaded, blockDim.x);
    __syncthreads();
    if (whole) {
        if (tid == 0)
            cuda::memcpy_async(sdata, in + base, cuda::aligned_size_t<16>(sizeof sdata), loaded);
        loaded.arrive_and_wait();      /* the copy's bytes have landed */
    } else {
        sdata[tid] = base + tid < n ? in[base + tid] : 0;
        __syncthreads();
    }
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
