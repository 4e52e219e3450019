// bank: lab=07 expect=rejected cpu=rejected
// why: right, with the lesson's shuffles, but its 96 running values kept in registers take 112 a thread, and it launches 1024-thread blocks: 112 x 1024 is more than an SM's 65536 registers, so the driver says the kernel takes at most 576 threads a block and the judge refuses the plan (a launch would fail: too many resources requested); it passed on the emulator, whose PTX registers are unlimited, until the CPU judge read the count ptxas wrote in the cubin
/* A cascade gone too far: 96 running values a thread, all in registers,
 * in the largest block there is.  ptxas needs 112 registers a thread for
 * them; an SM has 65536, 64 a thread for 1024 threads.  The values are
 * never needed (n is never 2^32 - 1), but the compiler cannot know it. */
#include "lab.h"

#define KEEP 96
#define THREADS 1024

__global__ void k(const int *in, unsigned n, int *out)
{
    int keep[KEEP];
#pragma unroll
    for (int j = 0; j < KEEP; j++)
        keep[j] = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int v = in[i];
#pragma unroll
        for (int j = 0; j < KEEP; j++)
            keep[j] = keep[j] * (j + 3) + (v ^ j);
    }
    int t = 0;
#pragma unroll
    for (int j = 0; j < KEEP; j++)
        t ^= keep[j] * (j + 1);
    if (n == 0xffffffffu)
        out[1] = t;

    int s = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        s += in[i];
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, s);
}

void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof(int), s);
    k<<<132, THREADS, 0, s>>>(d_in, n, d_out);
}
