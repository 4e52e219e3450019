// bank: lab=08 expect=pass target=missed
// why: correct but misses the target
/* The most direct parallel sum: one atomicAdd per element, all on one
 * address.  The additions queue up in the L2, one after another, so this is
 * hundreds of times slower than CUB at 2^28 and must miss the target.
 *
 * It accumulates in a double (in d_scratch) on purpose: a float running sum
 * stops growing once it is 2^25 times the size of the elements (each
 * addition rounds back to the old sum), which the timed sizes would catch as
 * a wrong result.  In double the drift stays far inside the tolerance, so
 * this file tests one thing only: correct, but slow.  The shuffle in the
 * kernel just broadcasts a value every lane already has; it is there so that
 * the technique check passes too. */
#include "lab.h"

#define BLOCK 256
#define FULL_MASK 0xffffffffu

__global__ void add_each(const float *in, unsigned n, double *acc)
{
    /* Every lane is still here (blocks are whole warps): the full mask holds. */
    unsigned stride = __shfl_sync(FULL_MASK, gridDim.x * BLOCK, 0);
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += stride)
        atomicAdd(acc, (double)in[i]);
}

__global__ void store_float(const double *acc, float *out)
{
    *out = (float)*acc;
}

extern "C" void lab_reduce_float(const float *d_in, unsigned n, float *d_out,
                                 void *d_scratch, cudaStream_t s)
{
    double *acc = (double *)d_scratch;
    unsigned blocks = (n + BLOCK - 1) / BLOCK;
    if (blocks > 4096)
        blocks = 4096;
    cudaMemsetAsync(acc, 0, sizeof(double), s);
    add_each<<<blocks, BLOCK, 0, s>>>(d_in, n, acc);
    store_float<<<1, 1, 0, s>>>(acc, d_out);
}
