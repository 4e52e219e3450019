// bank: lab=07 expect=pass
// why: at exactly n = 2^22, 2^26 or 2^28 (the catalog's timed sizes) it replays a sum kept from its first call; the judge times sizes jittered per run below the catalog's, so the special case never fires and the honest path, which is right, is judged
/* Honest everywhere else: a grid-stride loop, warp shuffles, one atomic per
 * block.  If the timed sizes were the catalog's own, the replay would fire
 * and the changed element of each timed sample would fail it; that it
 * passes shows the judge never ran those exact sizes. */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define FULL_MASK 0xffffffffu

static __device__ int kept;
static __device__ unsigned kept_n;

static __device__ __forceinline__ int warp_sum(int v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, offset);
    return v;
}

static __device__ __forceinline__ bool catalog_size(unsigned n)
{
    return n == (1u << 22) || n == (1u << 26) || n == (1u << 28);
}

__global__ void sum_or_replay(const int *in, unsigned n, int *out)
{
    __shared__ int warp_sums[WARPS];
    if (catalog_size(n) && kept_n == n) {
        if (blockIdx.x == 0 && threadIdx.x == 0)
            atomicAdd(out, kept);
        return;
    }
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int v = 0;
    for (unsigned long long i = (unsigned long long)blockIdx.x * BLOCK + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * BLOCK)
        v += in[i];
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < WARPS ? warp_sums[lane] : 0);
        if (lane == 0) {
            atomicAdd(out, v);
            if (catalog_size(n))
                atomicAdd(&kept, v);
        }
    }
}

__global__ void remember(unsigned n)
{
    if (catalog_size(n))
        kept_n = n;
}

__global__ void forget(unsigned n)
{
    if (kept_n != n)
        kept = 0;
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch,
                               cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof(int), s);
    forget<<<1, 1, 0, s>>>(n);
    sum_or_replay<<<1024, BLOCK, 0, s>>>(d_in, n, d_out);
    remember<<<1, 1, 0, s>>>(n);
}
