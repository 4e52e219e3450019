// bank: lab=07 expect=runtime_error cpu=runtime_error
// why: a grid-stride int4 reduction that reads its last int4 whole even when n stops inside it, and throws the lanes past n away: the sum is right, but d_in[n..] is not the kernel's to read (lab.h: d_in[0..n)), and where the buffer ends at n a GPU faults; the emulator is lent d_in as n elements and names the read past them, where it passed unseen inside the judge's larger allocation
/* Lab 07's grid-stride loop over int4s, with the tail folded into the
 * loop: the last int4 is loaded whole and its lanes past n are masked
 * after the load instead of not being loaded. */
#include "lab.h"

#define THREADS 256

__global__ void reduce_int4(const int *in, unsigned n, int *out)
{
    __shared__ int warp_sums[THREADS / 32];
    const int4 *v = reinterpret_cast<const int4 *>(in);
    unsigned n4 = (n + 3) / 4;                  /* rounds up: the over-read */
    int sum = 0;
    for (unsigned i = blockIdx.x * THREADS + threadIdx.x; i < n4; i += gridDim.x * THREADS) {
        int4 q = v[i];
        unsigned at = 4 * i;
        sum += q.x + (at + 1 < n ? q.y : 0) + (at + 2 < n ? q.z : 0) + (at + 3 < n ? q.w : 0);
    }
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        int total = 0;
        for (int w = 0; w < THREADS / 32; w++)
            total += warp_sums[w];
        atomicAdd(out, total);
    }
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof *d_out, s);
    unsigned blocks = (n + 4 * THREADS - 1) / (4 * THREADS);
    reduce_int4<<<blocks < 264 ? blocks : 264, THREADS, 0, s>>>(d_in, n, d_out);
}
