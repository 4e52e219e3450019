// bank: lab=14 expect=fail
// why: sums the row with __shfl_down_sync, so only lane 0 has the sum and the other lanes scale by partial sums
/* The lab's solution with lab 08's warp sum in place of the butterfly.
 * After the five steps lane 0 holds the row's sum, but lane i > 0 holds a
 * sum of part of the row with some values counted twice (where lane i + d
 * is past 31, the shuffle returns lane i's own value), so nearly every
 * column outside lane 0's is divided by the wrong number (99% of them in
 * build/tests/test_rownorm).  Every trial fails, at n = 1 already. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define PER_LANE (LAB_ROW_MAX / 32)     /* a lane's values in the widest row */
#define FULL_MASK 0xffffffffu

static __device__ __forceinline__ float warp_allreduce_sum(float v)
{
    /* Lab 08's reduction: right in lane 0 only. */
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, d);
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
