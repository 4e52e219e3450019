// bank: lab=01 expect=rejected
// why: computes the sum correctly on the first call, then its launcher (which keeps a flag across calls) launches a kernel that returns the value remembered in a __device__ variable; a launcher sees no data, so the same call must give the same plan, and the judge asks for every plan twice
/* Uses only allowed symbols and is race-free.  Its launcher changes what it
 * launches from call to call: the plan check catches that before anything
 * runs (tests/bank/cached_on_device.cu keeps the flag on the device). */
#include "lab.h"

#define BLOCK 128

static __device__ int remembered;       /* survives between calls */

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
        out[blockIdx.x] = sdata[0];
}

__global__ void remember(const int *out)
{
    remembered = *out;
}

__global__ void replay(int *out)
{
    *out = remembered;
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    static int have_result;             /* the cheat: state across calls */
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + BLOCK - 1) / BLOCK };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    if (have_result) {
        replay<<<1, 1, 0, s>>>(d_out);
        return;
    }
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
    remember<<<1, 1, 0, s>>>(d_out);
    have_result = 1;
}
