// bank: lab=01 expect=rejected cpu=rejected
// why: big_local_array.cu's 256 KiB local array moved into a __noinline__ device function the kernel calls: a kernel's local memory is its callees' too (ptxas counts the cumulative stack, and inlines such a call), so the judge's max_local_bytes rule refuses it as it refuses the array in the kernel itself; the emulator reported only the kernel's own .local bytes (none), ran it, and ended at its memory bound ("needs a GPU")
/* The sum through a helper that keeps a quarter-megabyte array a thread;
 * the kernel itself declares no local memory. */
#include "lab.h"

#define BIG 65536

static __device__ __noinline__ int through_big(const int *in, unsigned i, unsigned n)
{
    volatile int big[BIG];
    big[i % BIG] = in[i];
    return i < n ? big[i % BIG] : 0;
}

__global__ void reduce_through_helper(const int *in, int *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, through_big(in, i, n));
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof *d_out, s);
    reduce_through_helper<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);
}
