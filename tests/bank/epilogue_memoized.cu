// bank: lab=15 expect=fail cpu=fail
// why: forges determinism: block sums added with a float atomicAdd in finishing order, an order-free hash of the input taken on the way, and in the last block a table in __device__ memory from hash to the first result, handed back whenever the same input comes again; fence, ticket and shuffles all there, right within the tolerance, the same bits on every repeat within one loaded module, but the judge loads the module afresh before each run it compares, so the table is empty and the atomics' own bits show
/* The repeats of a deterministic lab run on the same input: a kernel that
 * can tell the input is the same could answer from memory.  The launcher
 * is the same on every call (one launch); the device decides. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define SLOTS 64
#define FULL_MASK 0xffffffffu

/* All of these survive between calls; the last block clears acc and hash. */
__device__ unsigned int blocks_done;
__device__ float acc;
__device__ unsigned long long hash;
__device__ unsigned long long memo_key[SLOTS];
__device__ float memo_sum[SLOTS];

static __device__ __forceinline__ unsigned long long mix(unsigned long long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

__global__ void sum_hash_memo(const float *in, unsigned n, float *out)
{
    __shared__ float warp_sums[WARPS];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned long long h = 0;
    float s = 0.0f;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) {
        s += in[i];
        h += mix(((unsigned long long)i << 32) | __float_as_uint(in[i]));
    }
    if (h)
        atomicAdd(&hash, h);            /* integers: order-free */
    s = warp_sum(s);
    if (lane == 0)
        warp_sums[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float b = 0.0f;
        for (int w = 0; w < WARPS; w++)
            b += warp_sums[w];
        atomicAdd(&acc, b);             /* floats: in finishing order */
        __threadfence();
        if (atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1) {
            __threadfence();
            float sum = atomicExch(&acc, 0.0f);
            unsigned long long key = mix(atomicExch(&hash, 0ull) ^ n) | 1;
            unsigned slot = (unsigned)(key % SLOTS);
            if (memo_key[slot] == key) {
                sum = memo_sum[slot];   /* the same input: the same answer */
            } else {
                memo_key[slot] = key;
                memo_sum[slot] = sum;
            }
            *out = sum;
        }
    }
}

extern "C" void lab_reduce_float(const float *d_in, unsigned n, float *d_out,
                                 void *d_scratch, cudaStream_t s)
{
    unsigned blocks = (n + BLOCK - 1) / BLOCK;
    (void)d_scratch;
    if (blocks > 1024)
        blocks = 1024;
    sum_hash_memo<<<blocks, BLOCK, 0, s>>>(d_in, n, d_out);
}
