/* Lab 14 — the butterfly: every row divided by its sum.
 *
 * Your job: make lab_rownorm() divide every row of the rows x cols matrix
 * d_in by the row's sum, into d_out, so that each row of d_out sums to 1.
 *
 * The launcher and the data layout are done: one warp per row, lane j holds
 * columns j, j + 32, j + 64, ... in registers.  What is missing is the sum:
 * as shipped, every lane divides by the sum of its own values only.  Look
 * for TODO.  Read README.md first.
 */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define PER_LANE (LAB_ROW_MAX / 32)     /* a lane's values in the widest row */
#define FULL_MASK 0xffffffffu

/* Must return, in every lane, the sum of v over all 32 lanes. */
static __device__ __forceinline__ float warp_allreduce_sum(float v)
{
    /* TODO: five exchange-and-add steps with __shfl_xor_sync(FULL_MASK, v, d)
     * for d = 16, 8, 4, 2, 1.  (__shfl_down_sync would leave the sum in lane
     * 0 only.) */
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
    float inv = 1.0f / warp_allreduce_sum(s);

#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        if (32 * k >= cols)
            break;
        unsigned j = lane + 32 * k;
        if (j < cols)
            y[j] = v[k] * inv;
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
