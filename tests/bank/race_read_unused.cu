// bank: lab=05 expect=fail cpu=fail
// why: lab 05's solution plus one shared read by warp 1 of a word warp 0's tail writes, with no barrier between them; the value is copied into a word nobody reads, so every sum is right and the GPU's trials pass it, on every run: only racecheck (and, without a GPU, the emulator's hazard pass) can fail it, which makes it the kernel that shows a race checker's finding, not a wrong sum, deciding a verdict
/* A race that changes no result.  Tid 32 copies sdata[0] into sdata[127]
 * while warp 0 is still adding into sdata[0]: which value it copies is
 * timing, but nothing reads sdata[127] after the last block barrier, so
 * the sums stay right.  A race checker reports it all the same: the rule is
 * about the unordered accesses, not about whether the value mattered. */
#include "lab.h"

#define BLOCK 128
#define ELEMS (2 * BLOCK)

static __device__ __forceinline__ int warp_tail(int *sdata, unsigned lane)
{
    int v = sdata[lane] + sdata[lane + 32];
    sdata[lane] = v;
    for (unsigned s = 16; s > 0; s >>= 1) {
        __syncwarp();
        v += sdata[lane + s];
        __syncwarp();
        sdata[lane] = v;
    }
    return v;
}

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;

    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) {
        v = warp_tail(sdata, tid);
        if (tid == 0)
            out[blockIdx.x] = v;
    } else if (tid == 32) {
        /* volatile: the copy is never read, and would otherwise be dropped. */
        volatile int *vs = sdata;
        vs[BLOCK - 1] = vs[0];
    }
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + ELEMS - 1) / ELEMS };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned blocks = (len + ELEMS - 1) / ELEMS;
        int *dst = (blocks == 1) ? d_out : bufs[which];
        reduce_block<<<blocks, BLOCK, 0, s>>>(src, dst, len);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
