// bank: lab=14 expect=pass cpu=no_gpu
// why: lab 14's reference solution with each value scaled by __fdividef(v, sum) instead of a multiply by 1.0f / sum: honest and within the lab's tolerance; div.approx's bits are the GPU's own, so on the CPU the check says it needs a GPU (never pass or fail), and on a GPU the hazard pass cannot run it, so compute-sanitizer's clean bill decides: it must pass there
/* Lab 14's reference solution, dividing with __fdividef.
 *
 * One warp per row.  A row has at most LAB_ROW_MAX = 1024 floats, so each
 * lane keeps its share of it (at most 32 values) in registers: the matrix is
 * read once and written once.  The lanes' partial sums meet in a butterfly of
 * __shfl_xor_sync, after which every lane holds the whole row's sum, and
 * every lane scales its own values.
 */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define PER_LANE (LAB_ROW_MAX / 32)     /* a lane's values in the widest row */
#define FULL_MASK 0xffffffffu

/* Five exchanges with the lane 16, 8, 4, 2 and 1 places away (the lane
 * whose number differs in that one bit): each pair swaps what it has and
 * both add, so after the last step every lane holds the sum of all 32. */
static __device__ __forceinline__ float warp_allreduce_sum(float v)
{
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, d);
    return v;
}

__global__ void __launch_bounds__(BLOCK)
rownorm_warp(const float *__restrict__ in, unsigned rows, unsigned cols, float *__restrict__ out)
{
    unsigned lane = threadIdx.x % 32;
    unsigned row = blockIdx.x * WARPS + threadIdx.x / 32;

    /* row is the same for all 32 lanes, so a warp leaves whole: the
     * shuffles below always see every lane of it. */
    if (row >= rows)
        return;
    const float *x = in + (size_t)row * cols;
    float *y = out + (size_t)row * cols;

    /* Lane j takes columns j, j + 32, j + 64, ...: each step of the loop is
     * one coalesced read of 128 bytes by the warp.  The loop stops where the
     * row does (the same step for every lane), and all its loads are issued
     * before the sum below waits for any of them. */
    float v[PER_LANE];
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        if (32 * k >= cols)
            break;
        unsigned j = lane + 32 * k;
        v[k] = j < cols ? x[j] : 0.0f;
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        if (32 * k >= cols)
            break;
        s += v[k];
    }

    /* Every lane needs the sum, not only lane 0. */
    float sum = warp_allreduce_sum(s);

#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        if (32 * k >= cols)
            break;
        unsigned j = lane + 32 * k;
        if (j < cols)
            y[j] = __fdividef(v[k], sum);
    }
}

extern "C" void lab_rownorm(const float *d_in, unsigned rows, unsigned cols, float *d_out, cudaStream_t s)
{
    if (rows == 0)
        return;
    /* One warp per row, WARPS rows per block. */
    unsigned blocks = (rows + WARPS - 1) / WARPS;
    rownorm_warp<<<blocks, BLOCK, 0, s>>>(d_in, rows, cols, d_out);
}
