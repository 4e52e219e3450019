/* sts-wavefronts.cu — why ncu can count more shared-store wavefronts than
 * shared-store instructions for a store no two lanes share a bank in (lab
 * 07's solution: one lane a warp stores its warp's sum).  The same single-
 * lane stores, once alone and once right after each warp's stream of
 * global loads (lab 07's shape), so the one difference between the two
 * kernels is the L1 traffic in flight around the stores.  Run under ncu by
 * tests/device/sts-wavefronts.sh. */
#include <cstdio>
#include <cuda_runtime.h>

#define THREADS 1024

/* lane 0 of each warp stores one word: one request, one wavefront */
__device__ __forceinline__ void block_total(int v, int *out)
{
    __shared__ int sums[THREADS / 32];
    if ((threadIdx.x & 31) == 0)
        sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        int t = 0;
        for (int w = 0; w < THREADS / 32; w++)
            t += sums[w];
        atomicAdd(out, t);
    }
}

__global__ void stores_alone(const int4 *in, unsigned n4, int *out)
{
    (void)in;
    block_total((int)(threadIdx.x + n4), out);
}

__global__ void stores_after_loads(const int4 *in, unsigned n4, int *out)
{
    int v = 0;
    for (unsigned i = blockIdx.x * THREADS + threadIdx.x; i < n4; i += gridDim.x * THREADS) {
        int4 a = __ldg(in + i);
        v += a.x + a.y + a.z + a.w;
    }
    v = __reduce_add_sync(0xffffffffu, v);
    block_total(v, out);
}

int main()
{
    const unsigned n = 1u << 20, n4 = n / 4, blocks = 256;
    int4 *in;
    int *out;
    if (cudaMalloc(&in, n * sizeof(int)) || cudaMalloc(&out, sizeof(int)) || cudaMemset(in, 1, n * sizeof(int)))
        return 1;
    stores_alone<<<blocks, THREADS>>>(in, n4, out);
    stores_after_loads<<<blocks, THREADS>>>(in, n4, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
