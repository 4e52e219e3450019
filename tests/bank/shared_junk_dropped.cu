// bank: lab=03 expect=pass cpu=pass
// why: every thread reads its partner's word before the level's barrier, including threads past the live half whose partner lies in the never-written upper half of sdata; the value they read is junk and is dropped (only threads below s use it). Legal CUDA, and no sanitizer reports it; an emulator that made any read of undefined shared memory a hazard failed this honest kernel
/* Sequential addressing with the loads hoisted above the barrier. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[2 * BLOCK];    /* the upper half is never written */
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        int mine = sdata[tid];
        int other = sdata[tid + s];     /* junk for tid + s >= BLOCK: dropped below */
        __syncthreads();
        if (tid < s)
            sdata[tid] = mine + other;
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
