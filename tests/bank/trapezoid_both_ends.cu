// bank: lab=09 expect=pass cpu=pass
// why: an honest kernel that evaluates the integrand twice at every interior point (each thread takes whole trapezoids, both ends, 2n evaluations): the CPU judge's count of evaluations (at least n + 1, lab_f dividing once each) holds it right, as it must
/* Each thread adds whole trapezoids, h/2 * (f(x_i) + f(x_i+1)), over a
 * grid-stride loop; a block adds its threads' sums in shared memory and
 * one thread adds the block's into *out. */
#include "lab.h"

#define BLOCK 256

__global__ void trapezoids(float a, float h, unsigned n, float *out)
{
    __shared__ float part[BLOCK];
    float sum = 0.0f;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
        sum += 0.5f * (lab_f(fmaf((float)i, h, a)) + lab_f(fmaf((float)(i + 1), h, a)));
    part[threadIdx.x] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, h * part[0]);
}

extern "C" void lab_trapezoid(float a, float b, unsigned n, float *d_out, void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    unsigned blocks = (n + BLOCK - 1) / BLOCK;
    cudaMemsetAsync(d_out, 0, sizeof *d_out, s);
    trapezoids<<<blocks < 1024 ? blocks : 1024, BLOCK, 0, s>>>(a, (float)(((double)b - a) / n), n, d_out);
}
