// bank: lab=07 expect=pass cpu=pass
// why: an honest kernel whose blocks each take room from the device heap four times, fill it, sum it and free it, so that blocks running side by side reuse each other's freed words: the GPU's allocator orders a free before the malloc that hands the words out again, and the emulator's race check, which held the second block's stores to the first's ("race on the device heap + 8064 ... blocks that share a word need atomics"), now starts a handed-out block afresh
/* Four rounds a block: its first thread takes room for the threads' sums,
 * each thread writes its share of the round's elements, the first thread adds
 * them and frees the room; one atomicAdd a block at the end. */
#include "lab.h"
__global__ void k(const int *in, unsigned n, int *out)
{
    __shared__ int *buf;
    int total = 0;
    for (int round = 0; round < 4; round++) {
        if (threadIdx.x == 0) buf = (int *)malloc(blockDim.x * sizeof(int));
        __syncthreads();
        int sum = 0;
        for (unsigned i = (blockIdx.x * 4 + round) * blockDim.x + threadIdx.x; i < n; i += gridDim.x * 4 * blockDim.x) sum += in[i];
        buf[threadIdx.x] = sum;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (unsigned j = 0; j < blockDim.x; j++) total += buf[j];
            free(buf);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, total);
}
extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof(int), s);
    k<<<64, 128, 0, s>>>(d_in, n, d_out);
}
