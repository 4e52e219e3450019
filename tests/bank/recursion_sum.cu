// bank: lab=01 expect=pass cpu=pass
// why: a correct block sum by a recursive device function (each call adds the halves of its range, four elements at the bottom: six levels for 128), and a lane-dependent recursion depth in the first warp (a Fibonacci number of each lane's index, added times zero): legal CUDA C, where the emulator refused recursion as "needs a GPU"
/* Lab 01 with the tree written as recursion: thread 0 adds its block's
 * shared slice by halves.  The weight of each element is also worked out
 * in the first warp by a recursion as deep as the lane's index says, and
 * multiplied by zero. */
#include "lab.h"

#define BLOCK 128

__device__ int tree_sum(const int *s, unsigned lo, unsigned hi)
{
    if (hi - lo <= 4) {
        int t = 0;
        for (unsigned k = lo; k < hi; k++)
            t += s[k];
        return t;
    }
    unsigned mid = lo + (hi - lo) / 2;
    return tree_sum(s, lo, mid) + tree_sum(s, mid, hi);
}

__device__ int fib(int k)
{
    return k < 2 ? k : fib(k - 1) + fib(k - 2);
}

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    int zero = blockIdx.x == 0 && tid < 32 ? fib((int)(tid % 9)) * (int)(n == 0) : 0;
    sdata[tid] = ((i < n) ? in[i] : 0) + zero;
    __syncthreads();
    if (tid == 0)
        out[blockIdx.x] = tree_sum(sdata, 0, BLOCK);
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
