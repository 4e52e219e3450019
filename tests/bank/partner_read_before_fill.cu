// bank: lab=01 expect=fail cpu=fail
// why: pairs of blocks each store their tree's total in d_scratch, and the even block of a pair at once reads its partner's slot and adds it, with nothing making it wait for the partner's store: it may read the slot before it is filled (scratch holds junk); the emulator records that read and names it when the partner's store comes after it, where before it surfaced only as a wrong sum
/* Lab 01's tree, whose blocks pair up through d_scratch without any
 * ordering between the partner's store and the read. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_pairs(const int *in, int *out, int *slots, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        slots[blockIdx.x] = sdata[0];
        if (blockIdx.x % 2 == 0)       /* the partner may not have stored yet */
            out[blockIdx.x / 2] = sdata[0] + (blockIdx.x + 1 < gridDim.x ? slots[blockIdx.x + 1] : 0);
    }
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    unsigned blocks0 = (n + BLOCK - 1) / BLOCK;
    int *slots = (int *)d_scratch;
    int *bufs[2] = { slots + blocks0, slots + blocks0 + (blocks0 + 1) / 2 };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned blocks = (len + BLOCK - 1) / BLOCK;
        unsigned pairs = (blocks + 1) / 2;
        int *dst = (pairs == 1) ? d_out : bufs[which];
        reduce_pairs<<<blocks, BLOCK, 0, s>>>(src, dst, slots, len);
        if (pairs == 1)
            break;
        src = dst;
        len = pairs;
        which ^= 1;
    }
}
