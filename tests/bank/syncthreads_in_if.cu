// bank: lab=01 expect=fail cpu=fail
// why: lab 01's tree with __syncthreads() inside if (tid % (2*s) == 0), the slip labs 01 and 03 warn of: a barrier in code whose condition differs between threads is undefined (the CUDA guide); a GPU sums it right and its sanitizers stay quiet, so only the hazard pass's barrier rule (every non-exited thread at one __syncthreads()) fails it, on the CPU and on a GPU check alike
/* The threads that skip the if go on to the next level without waiting,
 * and the ones that stop at the barrier wait for threads that never come
 * but exit; the sum happens to come out right. */
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
        if (tid % (2 * s) == 0) {
            sdata[tid] += sdata[tid + s];
            __syncthreads();                    /* the slip: inside the if */
        }
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
