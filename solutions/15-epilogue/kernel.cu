/* Lab 15 — epilogue: beat CUB: reference solution.
 *
 * One kernel and nothing else on the stream.  Every block sums its share of
 * the input (float4 loads, eight in flight per thread, warp shuffles, a
 * small shared array) and writes that partial sum to d_scratch.  Then each
 * block takes a ticket from a counter; the block that draws the last one
 * knows every other partial is written, adds them all in a fixed order and
 * writes *d_out.  No atomic touches a float, so the bits of the result
 * depend on the input and the grid alone, never on which block finished
 * first: the same on every run.
 *
 * The counter is a __device__ variable, zero when the judge loads the
 * module; the ticket wraps it back to zero on the last draw, so every
 * launch finds it at zero and no cudaMemsetAsync is needed.  d_scratch
 * could hold it too, but d_scratch is garbage at each call, so it would
 * need that memset before every launch: a second operation on the stream,
 * and on a call of a few microseconds that is what this lab is saving.
 *
 * At 2^22 a call lasts about 12 µs on an H100: some 3 µs to launch and
 * drain even an empty kernel, the reading, and about 1 µs of epilogue, the
 * partial's store, the ticket and the partials read back, one trip to L2
 * after another.  The shape of this kernel is about those trips and the
 * reading (README.md, "How our solution goes faster"):
 *   - one block of 1024 threads per SM, each thread with eight float4
 *     loads in flight: the whole 16 MB is asked for in one sweep, and there
 *     are only as many partials and tickets as SMs;
 *   - the first sweep's loads marked to leave the L2 first (see
 *     load_first_sweep below);
 *   - the fence and the ticket in one instruction (an atomic with release
 *     and acquire semantics) instead of a fence, then an atomic;
 *   - after the block sum only warp 0 goes on: it takes the ticket, and in
 *     the last block it adds the partials, its loads all in flight at once,
 *     with shuffles only: no second barrier, no second trip through shared
 *     memory.
 */
#include "lab.h"

#define BLOCK 1024
#define WARPS (BLOCK / 32)
#define BLOCKS_PER_SM 1
#define UNROLL 8
#define FULL_MASK 0xffffffffu

/* Blocks of the running launch that have published their partial sum.
 * Zero at load; the last ticket puts it back to zero. */
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
 * The tree's shape depends on the thread indices only. */
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

/* A cache policy for the L2: the lines it is given go out first. */
static __device__ __forceinline__ unsigned long long evict_first_policy(void)
{
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}

/* A float4 of the first sweep: by the read-only path (.nc: nothing writes
 * the input while the kernel runs), with no copy kept in L1 (nothing is
 * read twice), and under that policy in L2.  The judge flushes the L2
 * before every call by writing a buffer twice its size, as any kernel that
 * wrote more than the L2 holds would leave it: full of lines that must go
 * back to memory before their place can be taken, so a load that evicts
 * one costs a write as well as a read.  Our own lines, once read, are
 * never needed again; with the hint the L2 gives those up first, and
 * fewer of the writes happen.  Later sweeps (2^26, 2^28) load plainly: by
 * then the L2 holds our own lines, and a hint on every sweep measured
 * about 4% slower at 2^28. */
static __device__ __forceinline__ float4 load_first_sweep(const float4 *p,
                                                          unsigned long long policy)
{
    float4 v;
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p), "l"(policy));
    return v;
}

/* atomicInc(c, last) with release and acquire at GPU scope, in one
 * instruction.  Release: every write this thread made before it (its
 * block's partial) is visible to a thread that sees the new count.
 * Acquire: every read this thread makes after it, and after a
 * __syncwarp() its warp, sees the writes of the blocks that drew their
 * tickets before.
 * __threadfence() before and after a plain atomicInc gives the same order
 * (the lesson's version) at a higher price: two full fences, about 0.5 µs
 * more at 2^22 on an H100. */
static __device__ __forceinline__ unsigned ticket(unsigned *c, unsigned last)
{
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.inc.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(c), "r"(last)
                 : "memory");
    return old;
}

/* The partials p[0..count), added by one warp: lane l takes l, l + 32,
 * l + 64, ... in that order, eight loads in flight, then the lanes are
 * added by warp_sum.  The order is fixed by the indices alone.  Valid in
 * every lane of the calling warp. */
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
 * the float4 view below is always aligned whatever pointer we are given.
 * __launch_bounds__(BLOCK, 1): one block per SM is all we launch, so the
 * compiler may give each thread up to 64 registers; eight float4s in
 * flight are 32 of them.  Kept to 32 in all (so that two blocks could share
 * an SM), a kernel like this one issues four loads and waits for the first
 * before it issues the fifth. */
__global__ void __launch_bounds__(BLOCK, BLOCKS_PER_SM)
sum_last_block(const float *__restrict__ in, unsigned n, unsigned head,
               float *partials, float *out)
{
    __shared__ float warp_sums[WARPS];
    const float4 *vin = (const float4 *)(in + head);
    unsigned nvec = (n - head) / 4;
    unsigned tail = head + 4 * nvec;          /* first element after them */
    unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    unsigned stride = gridDim.x * BLOCK;
    unsigned long long policy = evict_first_policy();

    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    /* UNROLL loads in flight before any is used, the last round's
     * predicated rather than left to a loop of single loads: at 2^22 one
     * round covers the whole input (132 SMs x 1024 threads x 8 float4s on
     * an H100), and a call this short has no time to wait for the loads
     * one after another. */
    for (unsigned i = tid; i < nvec; i += UNROLL * stride) {
        bool first = i == tid;
        float4 v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            unsigned j = i + k * stride;
            v[k] = j >= nvec ? make_float4(0.0f, 0.0f, 0.0f, 0.0f)
                 : first     ? load_first_sweep(&vin[j], policy)
                             : vin[j];
        }
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

    /* After the block sum only warp 0 has work left; the others leave. */
    float v = block_sum((s0 + s1) + (s2 + s3), warp_sums);
    if (threadIdx.x >= 32)
        return;
    unsigned last = 0;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        /* The partial above is visible to every block before this block is
         * counted: the ticket's release half. */
        last = ticket(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
    }
    /* The rest of the warp learns the verdict from lane 0; __syncwarp()
     * orders their reads below after lane 0's ticket, its acquire half. */
    __syncwarp();
    if (!__shfl_sync(FULL_MASK, last, 0))
        return;

    float t = warp_sum_partials(partials, gridDim.x);
    if (threadIdx.x == 0)
        *out = t;
}

/* Blocks that fit on the whole GPU at once, at most BLOCKS_PER_SM on each
 * SM, found on the first call: a property of the device and the kernel,
 * not of the data.  The grid must be the same on every call with the same
 * n, since it decides which elements each partial sum holds, and so the
 * bits of the result. */
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
            return 256;                 /* a safe guess; do not cache it */
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
