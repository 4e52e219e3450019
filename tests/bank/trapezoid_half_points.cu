// bank: lab=09 expect=fail cpu=fail
// why: from n = 65536 up it applies the rule with half as many trapezoids: right within the tolerance, but twice the work rate an honest kernel can reach, above 1.1 times the measured peak of lab_f evaluations (implausible); without a GPU the CPU judge counts the evaluations (lanes at div or rcp, lab_f dividing once each) and fails the first trial from n = 65536 with fewer than n + 1
/* A subtler skip than a handful of points: still a grid-stride trapezoid
 * rule, correct in every other way, but on (n + 1) / 2 strips of twice the
 * width.  For n >= 65536 its own error, (b-a) (2h)^2 / 12 max|f''|, is under
 * 1e-6 of the integral, so the trials and the timed samples' checks pass.
 * It reports n trapezoids in the time of half of them: the reference
 * solution, which evaluates every point, runs at about 0.9 of the peak the
 * judge measures, so this one runs at about 1.8 of it and is implausible. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu
#define SHORTCUT_FROM 65536u

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

/* The reference solution's kernel: interior points on a float counter, the
 * two ends once, warp sums, a barrier, one atomic per block. */
__global__ void trapezoid_kernel(float a, float b, float h, unsigned n, float *out)
{
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned stride = gridDim.x * BLOCK;
    unsigned first = blockIdx.x * BLOCK + threadIdx.x + 1;
    float x0 = fmaf((float)first, h, a), step = (float)stride * h;
    float sum = 0.0f, k = 0.0f;

    for (unsigned i = first; i < n; i += stride, k += 1.0f)
        sum += lab_f(fmaf(k, step, x0));
    if (blockIdx.x == 0 && threadIdx.x == 0)
        sum += 0.5f * (lab_f(a) + lab_f(b));
    sum = warp_sum(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = warp_sum(lane < WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(out, h * sum);
    }
}

extern "C" void lab_trapezoid(float a, float b, unsigned n, float *d_out,
                              void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    /* The cheat: half the strips once the rule's error no longer shows. */
    unsigned strips = n >= SHORTCUT_FROM ? (n + 1) / 2 : n;
    float h = (float)(((double)b - (double)a) / (double)strips);
    unsigned blocks = (strips - 1 + BLOCK - 1) / BLOCK;
    if (blocks > 1056)
        blocks = 1056;
    if (blocks == 0)
        blocks = 1;
    cudaMemsetAsync(d_out, 0, sizeof(float), s);
    trapezoid_kernel<<<blocks, BLOCK, 0, s>>>(a, b, h, strips, d_out);
}
