/* ctx-scale.cu — one process's CUDA start as a judge has it, in steps:
 * "init" only asks how many devices there are (the driver's start),
 * "ctx" also makes the primary context, "full" (the default) also takes a
 * buffer of MiB (argv[2], default 64) and launches once; "hold" keeps
 * its context for argv[2] seconds.  ctx-scale.sh
 * runs many at once to see which step the driver takes one at a time. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cuda_runtime.h>

__global__ void fill(float *p, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = (float)i;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "full";
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
        return 1;
    if (!strcmp(mode, "init"))
        return 0;
    if (cudaFree(0) != cudaSuccess)
        return 1;
    if (!strcmp(mode, "ctx"))
        return 0;
    if (!strcmp(mode, "hold")) {      /* keep the context for argv[2] seconds */
        struct timespec t = {argc > 2 ? atoi(argv[2]) : 60, 0};
        nanosleep(&t, nullptr);
        return 0;
    }
    size_t n = (size_t)(argc > 2 ? atoi(argv[2]) : 64) << 18;
    float *p = nullptr;
    if (cudaMalloc(&p, n * sizeof *p) != cudaSuccess)
        return 1;
    fill<<<(unsigned)((n + 255) / 256), 256>>>(p, n);
    if (cudaDeviceSynchronize() != cudaSuccess)
        return 1;
    cudaFree(p);
    return 0;
}
