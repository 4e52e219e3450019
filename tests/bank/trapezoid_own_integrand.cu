// bank: lab=09 expect=pass cpu=pass
// why: an honest kernel that evaluates the integrand with its own code from lab_params, multiplying by a correctly rounded reciprocal (__frcp_rn, rcp.rn.f32) where lab_f divides: within an ulp of lab_f, so right; the CPU judge's count of evaluations counts rcp as it counts div, so n + 1 evaluations are n + 1 whichever the kernel uses
/* f(x) = c0 + c1 * sin(pi * (w*x + phi)) * (1 / (1 + k * (x - m)^2)), one
 * point of the rule per thread of a grid-stride loop, the ends at half
 * weight; a block adds its threads' sums in shared memory. */
#include "lab.h"

#define BLOCK 256

static __device__ float own_f(float x)
{
    float d = x - lab_params.m;
    float wave = sinpif(fmaf(lab_params.w, x, lab_params.phi));
    return fmaf(lab_params.c1, wave * __frcp_rn(fmaf(lab_params.k * d, d, 1.0f)), lab_params.c0);
}

__global__ void points(float a, float h, unsigned n, float *out)
{
    __shared__ float part[BLOCK];
    float sum = 0.0f;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i <= n; i += gridDim.x * BLOCK)
        sum += (i == 0 || i == n ? 0.5f : 1.0f) * own_f(fmaf((float)i, h, a));
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
    unsigned blocks = n / BLOCK + 1;
    cudaMemsetAsync(d_out, 0, sizeof *d_out, s);
    points<<<blocks < 1024 ? blocks : 1024, BLOCK, 0, s>>>(a, (float)(((double)b - a) / n), n, d_out);
}
