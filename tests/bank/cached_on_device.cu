// bank: lab=01 expect=fail
// why: the same plan on every call, but the kernel keeps a flag and a sum in __device__ variables: it computes the sum on the first call and only writes the remembered value on later ones; the judge gives every call fresh inputs, so later calls are wrong
/* The cache lives where the launcher cannot see it, on the device, so the
 * plans agree; only fresh inputs for every call (rule 6 of lab.h) catch it. */
#include "lab.h"

static __device__ int have_sum, remembered;     /* survive between calls */

/* One block of 1024 threads: a grid-stride sum, or the remembered value. */
__global__ void sum_or_remember(const int *in, unsigned n, int *out)
{
    __shared__ int total;
    if (have_sum) {
        if (threadIdx.x == 0)
            *out = remembered;
        return;
    }
    if (threadIdx.x == 0)
        total = 0;
    __syncthreads();
    int v = 0;
    for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
        v += in[i];
    atomicAdd(&total, v);
    __syncthreads();
    if (threadIdx.x == 0) {
        *out = remembered = total;
        have_sum = 1;
    }
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    sum_or_remember<<<1, 1024, 0, s>>>(d_in, n, d_out);
}
