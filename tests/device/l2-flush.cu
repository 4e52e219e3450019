/* tests/device/l2-flush.cu — what the judge's L2 flush leaves for the kernel
 * timed after it.  The judge (tutor/harness/hx_time.cu, flush_l2) writes a
 * buffer twice the L2's size with cudaMemsetAsync before every sample; this
 * program times a plain grid-stride sum and CUB's DeviceReduce::Sum after
 * each of four flushes, as the judge samples: the input rewritten first (the
 * judge's prepare), then the flush, then the events around the one call.
 *   none         no flush: the input is still in the L2 (dirty);
 *   memset       the judge's flush: the L2 is left full of dirty lines;
 *   read         a kernel reads the buffer: the L2 is left full of clean lines;
 *   memset+read  both.
 * Measurement only, for docs/harness.md ("Each sample", why a memset).
 *
 * Build: nvcc -arch=sm_90 -O3 -std=c++17 -o l2-flush tests/device/l2-flush.cu
 * Usage: l2-flush [rounds]        (default 301; medians of rounds - 1)   */
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                       \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s failed at %s:%d: %s\n", #call, __FILE__, __LINE__,              \
                    cudaGetErrorString(err_));                                                 \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

enum { NONE, MEMSET, READ, BOTH, NMODES };
static const char *mode_name[NMODES] = {"none", "memset", "read", "memset+read"};

/* Reads every line of the buffer and writes nothing (its bytes are zero,
 * never the magic word): what it leaves in the L2 is clean. */
__global__ void read_flush(const int4 *p, size_t n, int *sink)
{
    int x = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x ^= p[i].x;
    if (x == 0x5eed1234)
        *sink = x;
}

/* The simplest full-speed sum: grid-stride loads, a warp sum, one atomic per warp. */
__global__ void plain_sum(const float *in, int n, float *out)
{
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        s += in[i];
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, s);
}

static float median(std::vector<float> &v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 301, l2 = 0, sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const size_t flush_bytes = 2 * (size_t)l2, max_n = (size_t)1 << 24;
    const int sizes[] = {(1 << 20) - 123, (1 << 22) - 12345, (1 << 24) - 12345};

    void *d_flush = NULL, *d_temp = NULL;
    float *d_in = NULL, *d_out = NULL;
    size_t temp_bytes = 0;
    cudaStream_t s;
    cudaEvent_t ev0, ev1;
    CUDA_CHECK(cudaMalloc(&d_flush, flush_bytes));
    CUDA_CHECK(cudaMemset(d_flush, 0, flush_bytes));
    CUDA_CHECK(cudaMalloc(&d_in, max_n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_out, sizeof(float)));
    CUDA_CHECK(cudaStreamCreate(&s));
    CUDA_CHECK(cudaEventCreate(&ev0));
    CUDA_CHECK(cudaEventCreate(&ev1));
    CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, (int)max_n, s));
    CUDA_CHECK(cudaMalloc(&d_temp, temp_bytes));

    printf("# L2 %d MiB, flush %zu MiB, %d rounds, median microseconds\n", l2 >> 20, flush_bytes >> 20, rounds);
    printf("%-12s %-5s %9s %9s %9s\n", "flush", "n", "plain", "CUB", "CUB/plain");
    for (int n : sizes)
        for (int m = 0; m < NMODES; m++) {
            std::vector<float> t[2];
            for (int r = 0; r < rounds; r++)
                for (int k = 0; k < 2; k++) {
                    CUDA_CHECK(cudaMemsetAsync(d_in, 0, (size_t)n * sizeof(float), s));
                    if (m == MEMSET || m == BOTH)
                        CUDA_CHECK(cudaMemsetAsync(d_flush, r & 0xff, flush_bytes, s));
                    if (m == READ || m == BOTH)
                        read_flush<<<sms * 8, 512, 0, s>>>((const int4 *)d_flush, flush_bytes / sizeof(int4),
                                                           (int *)d_flush);
                    if (k == 0)
                        CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(float), s));
                    CUDA_CHECK(cudaEventRecord(ev0, s));
                    if (k == 0)
                        plain_sum<<<sms * 4, 512, 0, s>>>(d_in, n, d_out);
                    else
                        CUDA_CHECK(cub::DeviceReduce::Sum(d_temp, temp_bytes, d_in, d_out, n, s));
                    CUDA_CHECK(cudaGetLastError());
                    CUDA_CHECK(cudaEventRecord(ev1, s));
                    CUDA_CHECK(cudaEventSynchronize(ev1));
                    float ms;
                    CUDA_CHECK(cudaEventElapsedTime(&ms, ev0, ev1));
                    if (r > 0)      /* the first round loads the modules */
                        t[k].push_back(ms * 1000.0f);
                }
            float plain = median(t[0]), cub = median(t[1]);
            printf("%-12s 2^%-3.0f %9.2f %9.2f %9.3f\n", mode_name[m], std::log2((double)n), plain, cub, cub / plain);
        }
    CUDA_CHECK(cudaFree(d_temp));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_flush));
    return 0;
}
