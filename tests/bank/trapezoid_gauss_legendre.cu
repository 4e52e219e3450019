// bank: lab=09 expect=fail cpu=fail
// why: from n = 65536 up it integrates with 256 Gauss-Legendre points instead of n + 1: right within the tolerance, but the timed rate is far above the measured peak of lab_f evaluations (implausible); without a GPU the CPU judge counts the evaluations (lanes at div or rcp, lab_f dividing once each) and fails the first trial from n = 65536 with fewer than n + 1
/* The shortcut a closed form would give, without one: f is smooth, so 32
 * panels of 8-point Gauss-Legendre reach the integral to about float
 * precision, and for n >= 65536 the trapezoid rule itself is within 1e-7 of
 * the integral, far inside 2^-12 of it.  So every trial passes (below 65536
 * the kernel does the real work), and so does every timed sample's check
 * against the exact integral.  What gives it away is the time: one block of
 * 256 evaluations for 2^28 trapezoids is thousands of times faster than this
 * GPU can evaluate lab_f at n + 1 points, which the judge measures in the
 * same run, and a rate above 1.1 times that peak fails as implausible. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu
#define PANELS (BLOCK / 8)
#define SHORTCUT_FROM 65536u

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

/* The block's sum of v into *out, with one atomicAdd of scale * sum. */
static __device__ __forceinline__ void block_add(float v, float scale, float *out)
{
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < WARPS ? warp_sums[lane] : 0.0f);
        if (lane == 0)
            atomicAdd(out, scale * v);
    }
}

/* The honest rule, for the small trials. */
__global__ void trapezoid_kernel(float a, float b, float h, unsigned n, float *out)
{
    float sum = 0.0f;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i <= n; i += gridDim.x * BLOCK) {
        float y = lab_f(i == n ? b : fmaf((float)i, h, a));
        sum += i == 0 || i == n ? 0.5f * y : y;
    }
    block_add(sum, h, out);
}

/* One block: thread t evaluates node t % 8 of panel t / 8. */
__global__ void gauss_kernel(float a, float b, float *out)
{
    /* 8-point Gauss-Legendre on [-1, 1]: positive nodes and their weights. */
    const float node[4] = {0.18343464f, 0.52553241f, 0.79666648f, 0.96028986f};
    const float weight[4] = {0.36268378f, 0.31370665f, 0.22238103f, 0.10122854f};
    unsigned panel = threadIdx.x / 8, q = threadIdx.x % 8;
    float half = 0.5f * (b - a) / PANELS;
    float mid = a + (2.0f * panel + 1.0f) * half;
    float x = q < 4 ? mid - half * node[q] : mid + half * node[q - 4];
    block_add(weight[q % 4] * lab_f(x), half, out);
}

extern "C" void lab_trapezoid(float a, float b, unsigned n, float *d_out,
                              void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof(float), s);
    if (n >= SHORTCUT_FROM) {
        gauss_kernel<<<1, BLOCK, 0, s>>>(a, b, d_out);
        return;
    }
    float h = (float)(((double)b - (double)a) / (double)n);
    unsigned blocks = (n + 1 + BLOCK - 1) / BLOCK;
    trapezoid_kernel<<<blocks, BLOCK, 0, s>>>(a, b, h, n, d_out);
}
