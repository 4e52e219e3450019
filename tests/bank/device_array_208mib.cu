// bank: lab=01 expect=pass cpu=pass
// why: a right reduction whose blocks pass their partial sums through a 208 MiB __device__ array: a GPU holds it in its own memory, the emulator in the host's, within the CPU judge's address-space bound (the catalog's emu_memory_mib, 2048 MiB), where it passes; tests/grade_cpu.sh checks that under a catalog that sets 256 MiB it "needs a GPU" and names the bound (there the emulator runs out with an array past about 165 MiB, and the launcher's host code, which holds a copy of the array, past about 245 MiB)
/* Each block leaves its sum 4 MiB from the last one's in a large module array, and
 * the block's first thread adds it from there. */
#include "lab.h"

#define BLOCK 1024
#define BLOCKS 8
#define SPILL_WORDS (52u << 20)

__device__ int spill[SPILL_WORDS];

__global__ void reduce_spilled(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    int sum = 0;

    for (unsigned i = blockIdx.x * BLOCK + tid; i < n; i += BLOCKS * BLOCK)
        sum += in[i];
    sdata[tid] = sum;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) {
        spill[blockIdx.x << 20] = sdata[0];
        atomicAdd(out, spill[blockIdx.x << 20]);
    }
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    cudaMemsetAsync(d_out, 0, sizeof *d_out, s);
    reduce_spilled<<<BLOCKS, BLOCK, 0, s>>>(d_in, d_out, n);
}
