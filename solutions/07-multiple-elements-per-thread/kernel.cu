/* Lab 07 — multiple elements per thread: reference solution.
 *
 * Algorithm cascading: launch only as many threads as the GPU holds at once
 * and let each one add hundreds of elements in a register before any
 * cooperation starts.  Each thread walks the array with a grid-stride loop
 * of 16-byte int4 loads, four of them in flight per step; each warp then
 * sums its lanes in one instruction, each block combines its warps through
 * shared memory, and each block adds its total to *d_out with one
 * atomicAdd.  One kernel, one pass, after a memset that zeroes *d_out.
 */
#include "lab.h"

#define THREADS 1024                  /* threads per block: 2 blocks fill an SM */
#define WARPS (THREADS / 32)
#define UNROLL 4                      /* int4 loads in flight per thread */
#define FALLBACK_BLOCKS 1024          /* if the device queries fail */

/* The sum of v over the 32 lanes of a full warp, valid in lane 0 (and, on
 * sm_80 and later, in every lane).  Ampere added an instruction that does
 * it at once (redux.sync); older GPUs take five shuffle steps. */
static __device__ __forceinline__ int warp_sum(int v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);
#else
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
#endif
}

static __device__ __forceinline__ int int4_sum(int4 a)
{
    return (a.x + a.y) + (a.z + a.w);
}

/* __launch_bounds__ with THREADS and 2048 / THREADS blocks per SM caps the
 * registers at 32 a thread, so a full SM's worth of threads stays
 * resident: their loads in flight are what hides memory latency. */
__global__ void __launch_bounds__(THREADS, 2048 / THREADS)
reduce_grid(const int *__restrict__ in, unsigned n, int *out)
{
    __shared__ int warp_sums[WARPS];
    unsigned tid = threadIdx.x;
    unsigned gtid = blockIdx.x * THREADS + tid;
    unsigned stride = gridDim.x * THREADS;

    /* An int4 load needs a 16-byte aligned address.  cudaMalloc gives 256,
     * but the contract does not promise it, so split the array into a
     * scalar head (0..3 ints up to the first aligned address), an int4
     * body, and a scalar tail (0..3 ints after it). */
    unsigned head = (unsigned)(((16 - ((uintptr_t)in & 15)) & 15) / sizeof(int));
    if (head > n)
        head = n;
    const int4 *body = reinterpret_cast<const int4 *>(in + head);
    unsigned n4 = (n - head) / 4;
    unsigned tail = head + 4 * n4;

    /* Head and tail: at most three ints each, taken by the first threads. */
    int sum = 0;
    if (gtid < head)
        sum += in[gtid];
    if (gtid < n - tail)
        sum += in[tail + gtid];

    /* The body.  Consecutive lanes read consecutive int4s (512 coalesced
     * bytes per warp per load), and the four loads of a step are
     * independent, so they are all issued before the first one returns.
     * n4 < 2^26 and stride < 2^20, so i + 3 * stride cannot wrap. */
    unsigned i = gtid;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        int4 a = __ldg(body + i);
        int4 b = __ldg(body + i + stride);
        int4 c = __ldg(body + i + 2 * stride);
        int4 d = __ldg(body + i + 3 * stride);
        sum += (int4_sum(a) + int4_sum(b)) + (int4_sum(c) + int4_sum(d));
    }
    for (; i < n4; i += stride)
        sum += int4_sum(__ldg(body + i));

    /* Block total: warp sums, then warp 0 sums the WARPS of them.  The
     * barrier is reached by every thread: nothing above returns early. */
    unsigned lane = tid & 31, warp = tid >> 5;
    sum = warp_sum(sum);
    if (lane == 0)
        warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = warp_sum(lane < WARPS ? warp_sums[lane] : 0);
        /* One atomic per block: about a thousand on an H100, not n. */
        if (lane == 0)
            atomicAdd(out, sum);
    }
}

/* Blocks that fill the GPU once: SMs times resident blocks per SM.  The
 * answer depends only on the device, and the queries cost microseconds,
 * which is a lot next to a 10 us reduction: remember it per device.  (This
 * caches a property of the GPU, never a result.) */
static unsigned full_grid(void)
{
    static int known_dev = -1;
    static unsigned known_blocks;
    int dev, sms, per_sm;

    if (cudaGetDevice(&dev) != cudaSuccess)
        return FALLBACK_BLOCKS;
    if (dev == known_dev)
        return known_blocks;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)
            != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_grid,
                                                      THREADS, 0)
            != cudaSuccess ||
        sms <= 0 || per_sm <= 0)
        return FALLBACK_BLOCKS;
    known_dev = dev;
    known_blocks = (unsigned)sms * (unsigned)per_sm;
    return known_blocks;
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    /* Small inputs need fewer blocks: give every thread at least one int4,
     * so that n = 1 launches one block and not a thousand idle ones. */
    unsigned want = (n + 4 * THREADS - 1) / (4 * THREADS);
    unsigned blocks = full_grid();

    (void)d_scratch;          /* single pass: no partial sums to keep */
    if (blocks > want)
        blocks = want;

    /* The blocks add into *d_out, which the harness poisoned. */
    cudaMemsetAsync(d_out, 0, sizeof(int), s);
    reduce_grid<<<blocks, THREADS, 0, s>>>(d_in, n, d_out);
}
