// bank: lab=07 expect=pass cpu=pass
// why: an honest kernel whose blocks keep their threads' sums in a block from device malloc, freed by the block's first thread: legal CUDA C the emulator refused as "needs a GPU: malloc is not emulated"; it now emulates the device heap (a 16-byte aligned block per call, 8 MiB per emulator, a request past half of it needing a GPU)
/* Each block's first thread takes room for its threads' sums from the device
 * heap, every thread writes its grid-stride sum there, and the first thread
 * adds them, adds the total into *out and gives the room back. */
#include "lab.h"
__global__ void k(const int *in, unsigned n, int *out)
{
    __shared__ int *buf;
    if (threadIdx.x == 0) buf = (int *)malloc(blockDim.x * sizeof(int));
    __syncthreads();
    int sum = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
    buf[threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        int t = 0;
        for (unsigned j = 0; j < blockDim.x; j++) t += buf[j];
        atomicAdd(out, t);
        free(buf);
    }
}
extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof(int), s);
    k<<<64, 128, 0, s>>>(d_in, n, d_out);
}
