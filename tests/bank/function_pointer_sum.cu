// bank: lab=01 expect=pass cpu=pass
// why: a correct lab 01 tree whose levels add through a function pointer that differs between lanes (odd lanes call one adder, even lanes another: one indirect call, two callees in every warp): legal CUDA C, where the emulator refused "an indirect call" as needing a GPU
/* Lab 01's tree; each level's addition goes through a pointer that odd
 * and even threads set to two different functions doing the same sum. */
#include "lab.h"

#define BLOCK 128

__device__ __noinline__ int add_plain(int a, int b)
{
    return a + b;
}

__device__ __noinline__ int add_swapped(int a, int b)
{
    return b + a;
}

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int (*add)(int, int) = (tid & 1) ? add_swapped : add_plain;

    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] = add(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = add(sdata[0], 0);
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
