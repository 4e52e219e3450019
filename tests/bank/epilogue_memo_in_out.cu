// bank: lab=15 expect=fail cpu=runtime_error
// why: forges determinism through d_out's spare bytes: block sums added with a float atomicAdd in finishing order, an order-free hash of the input, and the first result kept beside the result in d_out (bytes 8 to 20 of its allocation), handed back whenever the same input comes again; the module loaded afresh does not clear d_out, but the judge poisons every byte of its allocation with fresh bits before each call, moves the result between repeats and fails a call that wrote outside the result
/* The repeats of a deterministic lab run on the same input: a kernel that
 * can tell the input is the same could answer from memory, and the spare
 * bytes of d_out are memory the judge's reload of the module leaves alone.
 * The launcher is the same on every call (one launch). */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

/* The last block clears acc and hash; a fresh module starts them at 0. */
__device__ unsigned int blocks_done;
__device__ float acc;
__device__ unsigned long long hash;

/* The memo, in d_out's spare bytes: the result is out[0], and the 252
 * bytes after it are free for the taking in a 256-byte allocation.  A
 * module loaded afresh does not clear them. */
#define MEMO_KEY(out) ((unsigned long long *)((out) + 2))
#define MEMO_SUM(out) ((out)[4])

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
            if (*MEMO_KEY(out) == key) {
                sum = MEMO_SUM(out);    /* the same input: the same answer */
            } else {
                *MEMO_KEY(out) = key;
                MEMO_SUM(out) = sum;
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
