// bank: lab=11 expect=fail cpu=fail
// why: reads only the first 90% of the input: one trial in twelve puts the unique maximum at the last element, so the trials catch it without a GPU, and every timed sample's new maximum can be in the rest
/* Looks only at n - n/10 elements, ten percent less to read.  On inputs
 * whose maximum has thousands of ties spread everywhere it is right; the
 * inputs with peaks put the maximum at a few random places, and each timed
 * sample plants a new one anywhere, so the missing tail shows soon. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define UNROLL 4
#define FULL_MASK 0xffffffffu

/* The larger of two keys over the warp, in lane 0 after five steps.  A
 * 64-bit shuffle is two 32-bit ones; the compiler splits it for us. */
static __device__ __forceinline__ unsigned long long warp_max(unsigned long long k)
{
    for (int offset = 16; offset > 0; offset >>= 1) {
        unsigned long long other = __shfl_down_sync(FULL_MASK, k, offset);
        k = other > k ? other : k;
    }
    return k;
}

/* *out = max(*out, key), atomically.  Read the word, and try to swap in our
 * key only while it is still larger than what is there: atomicCAS stores
 * only if the word is still the one we compared with, and returns what it
 * found either way, so a failed try tells us the newer word to compare
 * with.  Integer comparison of the whole 64-bit word: value and index are
 * compared and replaced together, never one without the other. */
static __device__ void atomic_max_key(unsigned long long *out, unsigned long long key)
{
    unsigned long long seen = *out;
    while (key > seen) {
        unsigned long long was = atomicCAS(out, seen, key);
        if (was == seen)
            break;              /* ours is in */
        seen = was;             /* someone else's got there first: compare again */
    }
}

/* Keeps (v, i) when it beats (best, at).  Each thread sees its indices in
 * increasing order, so strictly greater is enough to keep the first of its
 * ties; ties between threads are settled by the keys' low word. */
static __device__ __forceinline__ void consider(float v, unsigned i, float *best, unsigned *at)
{
    if (v > *best) {
        *best = v;
        *at = i;
    }
}

/* `head` (0..3) scalars come before the first 16-byte boundary of `in`, so
 * the float4 view below is always aligned whatever pointer we are given. */
__global__ void __launch_bounds__(BLOCK)
argmax_single_pass(const float *__restrict__ in, unsigned n, unsigned head,
                   unsigned long long *out)
{
    __shared__ unsigned long long warp_keys[WARPS];
    const float4 *vin = (const float4 *)(in + head);
    unsigned nvec = (n - head) / 4;
    unsigned tail = head + 4 * nvec;
    unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    unsigned stride = gridDim.x * BLOCK;
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;

    /* No value is -infinity, so the first one a thread sees replaces this. */
    float best = -__int_as_float(0x7f800000);
    unsigned at = 0xffffffffu;

    /* Index order within the thread: the head, the float4s, the tail. */
    if (tid < head)
        consider(in[tid], tid, &best, &at);
    unsigned i = tid;
    for (; i + (UNROLL - 1) * stride < nvec; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            v[k] = vin[i + k * stride];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            unsigned e = head + 4 * (i + k * stride);
            consider(v[k].x, e, &best, &at);
            consider(v[k].y, e + 1, &best, &at);
            consider(v[k].z, e + 2, &best, &at);
            consider(v[k].w, e + 3, &best, &at);
        }
    }
    for (; i < nvec; i += stride) {
        float4 v = vin[i];
        unsigned e = head + 4 * i;
        consider(v.x, e, &best, &at);
        consider(v.y, e + 1, &best, &at);
        consider(v.z, e + 2, &best, &at);
        consider(v.w, e + 3, &best, &at);
    }
    if (tid < n - tail)
        consider(in[tail + tid], tail + tid, &best, &at);

    /* A thread that saw nothing has the smallest key of all but 0. */
    unsigned long long key = warp_max(lab_argmax_key(best, at));
    if (lane == 0)
        warp_keys[warp] = key;
    __syncthreads();
    if (warp == 0) {
        key = warp_max(lane < WARPS ? warp_keys[lane] : 0ull);
        if (lane == 0)
            atomic_max_key(out, key);
    }
}

/* Blocks that fit on the whole GPU at once (lab 07's grid sizing), found on
 * the first call and kept: it depends on the device, not on the data. */
static unsigned resident_blocks(void)
{
    static unsigned cached;
    if (cached == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)
                != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, argmax_single_pass, BLOCK, 0) != cudaSuccess ||
            sms <= 0 || per_sm <= 0)
            return 1024;                /* a safe guess; do not cache it */
        cached = (unsigned)sms * (unsigned)per_sm;
    }
    return cached;
}

extern "C" void lab_argmax(const float *d_in, unsigned n, unsigned long long *d_out,
                           void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;                    /* a single pass needs none */
    unsigned misalign = (unsigned)(((uintptr_t)d_in / sizeof(float)) % 4);
    unsigned head = (4 - misalign) % 4;
    if (head > n)
        head = n;

    unsigned want = (n / 4 + BLOCK - 1) / BLOCK;
    unsigned blocks = resident_blocks();
    if (want < blocks)
        blocks = want;
    if (blocks == 0)
        blocks = 1;

    /* Key 0 is below every real key (it would be a NaN at index 2^32 - 1):
     * the first block's key always replaces it. */
    cudaMemsetAsync(d_out, 0, sizeof *d_out, s);
    unsigned part = n - n / 10;
    if (head > part)
        head = part;
    argmax_single_pass<<<blocks, BLOCK, 0, s>>>(d_in, part, head, d_out);
}
