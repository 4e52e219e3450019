// bank: lab=14 expect=fail cpu=runtime_error
// why: writes the whole last 32-column step of a row, past its end, when cols is not a multiple of 32; without a GPU the emulator stops at the first write past the buffer the lab lends (runtime_error), where a GPU writes into its allocation's slack and the answer is wrong (fail)
/* The lab's solution without the guard on the store: the lanes past the
 * row's end write 0 into the first columns of the next row (which that
 * row's warp may or may not overwrite, depending on which warp runs last)
 * and, in the last row, past the end of d_out, into the judge's guard.  It
 * passes 1 row of 32 and fails at 2 rows of 33. */
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
    float inv = 1.0f / warp_allreduce_sum(s);

#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        if (32 * k >= cols)
            break;
        unsigned j = lane + 32 * k;
        y[j] = v[k] * inv;              /* no j < cols: the last step writes past the row */
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
