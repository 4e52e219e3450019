// bank: lab=15 expect=pass cpu=pass
// why: the lesson's kernel with its two __threadfence() and atomicInc replaced by libcu++'s cuda::atomic_ref::fetch_add(1, memory_order_acq_rel), which nvcc writes atom.add.acq_rel.gpu.u32: the fence and the ticket in one instruction, legal and correct; the technique check read the words in one order only and said "memory fence: missing"
/* Lab 15 as the lesson teaches it, written with libcu++'s atomics. */
#include "lab.h"
#include <cuda/atomic>

#define BLOCK 512
#define WARPS (BLOCK / 32)
#define UNROLL 4
#define FULL_MASK 0xffffffffu

/* Blocks of the running launch that have published their partial sum.
 * Zero at load; the last block stores zero again. */
__device__ unsigned int blocks_done;

/* The sum of v over the warp, in every lane: __shfl_xor_sync pairs lanes
 * that differ in one bit, so each lane adds the same values in the same
 * order, and no lane's result depends on timing. */
static __device__ __forceinline__ float warp_sum(float v)
{
    for (int mask = 16; mask > 0; mask >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

/* The sum of one value per thread, valid in warp 0 (thread 0 uses it).
 * The tree's shape depends on the thread indices only.  warp_sums must
 * not be in use by an earlier call that some warp has not finished
 * reading: a barrier must lie between two calls. */
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

/* `head` (0..3) scalars come before the first 16-byte boundary of `in`, so
 * the float4 view below is always aligned whatever pointer we are given. */
__global__ void __launch_bounds__(BLOCK)
sum_last_block(const float *__restrict__ in, unsigned n, unsigned head,
               float *partials, float *out)
{
    __shared__ float warp_sums[WARPS];
    __shared__ bool is_last;
    const float4 *vin = (const float4 *)(in + head);
    unsigned nvec = (n - head) / 4;
    unsigned tail = head + 4 * nvec;          /* first element after them */
    unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    unsigned stride = gridDim.x * BLOCK;

    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    /* UNROLL loads in flight before any is used, the last round's
     * predicated rather than left to a loop of single loads: at 2^22 a
     * thread has about four float4s in all, and a call this short has no
     * time to wait for them one after another. */
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
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        /* The partial must be visible to every block before this one is
         * counted: without the fence the counter's update could reach the
         * memory before the partial does, and the last block would read a
         * stale value. */
        /* One acq_rel ticket: release orders the partial before it,
         * acquire orders the last block's reads after it. */
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> done(blocks_done);
        is_last = done.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1;
        if (is_last)
            done.store(0, cuda::memory_order_relaxed);    /* ready for the next call */
    }
    /* Every thread of the block learns the verdict; it also keeps the
     * second block_sum's writes to warp_sums after the first's reads. */
    __syncthreads();
    if (!is_last)
        return;

    /* The acquire was the ticket's; __syncthreads() passed it to the
     * block. */
    float t = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK)
        t += __ldcg(&partials[b]);
    t = block_sum(t, warp_sums);
    if (threadIdx.x == 0)
        *out = t;
}

/* Blocks that fit on the whole GPU at once, found on the first call: a
 * property of the device and the kernel, not of the data.  The grid must
 * be the same on every call with the same n, since it decides which
 * elements each partial sum holds, and so the bits of the result. */
static unsigned resident_blocks(void)
{
    static unsigned cached;
    if (cached == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)
                != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, sum_last_block, BLOCK, 0) != cudaSuccess ||
            sms <= 0 || per_sm <= 0)
            return 512;                 /* a safe guess; do not cache it */
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
     * than fit at once, and never more partials than d_scratch holds (it
     * has room for 16384 floats at any n). */
    unsigned want = (n / 4 + BLOCK - 1) / BLOCK;
    unsigned blocks = resident_blocks();
    if (want < blocks)
        blocks = want;
    if (blocks > LAB_SCRATCH_BYTES(n) / sizeof(float))
        blocks = (unsigned)(LAB_SCRATCH_BYTES(n) / sizeof(float));
    if (blocks == 0)
        blocks = 1;

    /* One launch; *d_out needs no zeroing, since the last block writes it
     * whole instead of adding into it. */
    sum_last_block<<<blocks, BLOCK, 0, s>>>(d_in, n, head, (float *)d_scratch,
                                            d_out);
}
