/* Lab 16 — grid sync: one kernel, one grid-wide barrier: reference solution.
 *
 * One cooperative launch and nothing else on the stream.  Every block sums
 * its share of the input (float4 loads, eight in flight per thread, warp
 * shuffles, a small shared array) and writes that partial sum to
 * d_scratch[blockIdx.x].  Then the whole grid meets at
 * cg::this_grid().sync(): past it, every block's partial is written and
 * visible to every other block.  Block 0's first warp adds the partials in
 * a fixed order and writes *d_out, so the bits of the result depend on the
 * input and the grid alone: the same on every run.
 *
 * The barrier only works when every block of the grid is resident on the
 * GPU at once: a block that waits at it holds its SM, and a block that has
 * not started yet would never get one.  So the grid is launched with
 * cudaLaunchCooperativeKernel, which refuses a grid larger than the GPU
 * holds (cudaErrorCooperativeLaunchTooLarge) instead of hanging, and its
 * size comes from the occupancy calculator: blocks per SM times SMs.
 *
 * Against lab 15's ticket the barrier costs about the same: each block
 * makes one atomic on a counter in L2 and one of them reads the partials
 * back; here every block waits for the slowest instead of leaving.  On an
 * H200 this runs at 1.19× CUB at 2^22 and 1.005× at 2^28, lab 15's
 * solution at 1.23× and 1.00× (it also hints its first sweep's loads out
 * of the L2 first).  What the grid sync buys is a second phase that the
 * whole grid can share (a scan's second pass, a normalisation by the
 * total), which a ticket only gives to one block.
 */
#include <cooperative_groups.h>

#include "lab.h"

namespace cg = cooperative_groups;

#define BLOCK 1024
#define WARPS (BLOCK / 32)
#define BLOCKS_PER_SM 1
#define UNROLL 8
#define FULL_MASK 0xffffffffu

/* The sum of v over the warp, in every lane: __shfl_xor_sync pairs lanes
 * that differ in one bit, so each lane adds the same values in the same
 * order, and no lane's result depends on timing. */
static __device__ __forceinline__ float warp_sum(float v)
{
    for (int mask = 16; mask > 0; mask >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

/* The sum of one value per thread, valid in warp 0 (thread 0 uses it),
 * by a tree whose shape depends on the thread indices only. */
static __device__ float block_sum(float v, float *warp_sums)
{
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    /* Warp 0 reads what the other warps wrote: all of them must be done. */
    __syncthreads();
    return warp == 0 ? warp_sum(lane < WARPS ? warp_sums[lane] : 0.0f) : 0.0f;
}

/* The partials p[0..count), added by one warp: lane l takes l, l + 32,
 * l + 64, ... in that order, eight loads in flight, then the lanes are
 * added by warp_sum.  The order is fixed by the indices alone. */
static __device__ float warp_sum_partials(const float *p, unsigned count)
{
    unsigned lane = threadIdx.x % 32;
    float t = 0.0f;
    for (unsigned b = lane; b < count; b += 32 * 8) {
        float x[8];
#pragma unroll
        for (int k = 0; k < 8; k++)     /* __ldcg: from L2, past this SM's L1 */
            x[k] = b + 32 * k < count ? __ldcg(&p[b + 32 * k]) : 0.0f;
#pragma unroll
        for (int k = 0; k < 8; k++)
            t += x[k];
    }
    return warp_sum(t);
}

/* `head` (0..3) scalars come before the first 16-byte boundary of `in`, so
 * the float4 view below is aligned whatever pointer we are given.  Every
 * thread of every block must reach the grid barrier: no thread returns
 * before it. */
__global__ void __launch_bounds__(BLOCK, BLOCKS_PER_SM)
sum_grid_sync(const float *__restrict__ in, unsigned n, unsigned head,
              float *partials, float *out)
{
    __shared__ float warp_sums[WARPS];
    cg::grid_group grid = cg::this_grid();
    const float4 *vin = (const float4 *)(in + head);
    unsigned nvec = (n - head) / 4;
    unsigned tail = head + 4 * nvec;          /* first element after them */
    unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    unsigned stride = gridDim.x * BLOCK;

    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    /* UNROLL loads in flight before any is used, the last round's
     * predicated rather than left to a loop of single loads. */
    for (unsigned i = tid; i < nvec; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            v[k] = i + k * stride < nvec ? vin[i + k * stride]
                                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            s0 += v[k].x;
            s1 += v[k].y;
            s2 += v[k].z;
            s3 += v[k].w;
        }
    }
    if (tid < head)
        s0 += in[tid];
    if (tid < n - tail)
        s1 += in[tail + tid];

    float v = block_sum((s0 + s1) + (s2 + s3), warp_sums);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = v;

    /* Every block's partial is written, and visible to every thread of the
     * grid, once the grid is past this line. */
    grid.sync();

    if (blockIdx.x != 0 || threadIdx.x >= 32)
        return;
    float t = warp_sum_partials(partials, gridDim.x);
    if (threadIdx.x == 0)
        *out = t;
}

/* Blocks that fit on the whole GPU at once, at most BLOCKS_PER_SM on each
 * SM, found on the first call: a property of the device and the kernel,
 * not of the data.  A cooperative grid may not be larger. */
static unsigned resident_blocks(void)
{
    static unsigned cached;
    if (cached == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)
                != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, sum_grid_sync, BLOCK, 0) != cudaSuccess ||
            sms <= 0 || per_sm <= 0)
            return 1;                   /* one block always fits; do not cache it */
        if (per_sm > BLOCKS_PER_SM)
            per_sm = BLOCKS_PER_SM;
        cached = (unsigned)sms * (unsigned)per_sm;
    }
    return cached;
}

extern "C" void lab_reduce_float(const float *d_in, unsigned n, float *d_out,
                                 void *d_scratch, cudaStream_t s)
{
    unsigned misalign = (unsigned)(((uintptr_t)d_in / sizeof(float)) % 4);
    unsigned head = (4 - misalign) % 4;
    if (head > n)
        head = n;

    /* Enough blocks that every thread gets at least one float4, never more
     * than fit at once (d_scratch holds 16384 partials at any n, more than
     * any GPU holds blocks of 1024 threads). */
    unsigned want = (n / 4 + BLOCK - 1) / BLOCK;
    unsigned blocks = resident_blocks();
    if (want < blocks)
        blocks = want;
    if (blocks == 0)
        blocks = 1;

    /* A cooperative launch takes its arguments as an array of pointers,
     * one per kernel parameter, each to a value of that parameter's type. */
    const float *in = d_in;
    float *partials = (float *)d_scratch, *out = d_out;
    void *args[] = {&in, &n, &head, &partials, &out};
    cudaLaunchCooperativeKernel((const void *)sum_grid_sync, dim3(blocks), dim3(BLOCK),
                                args, 0, s);
}
