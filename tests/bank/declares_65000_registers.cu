// bank: lab=01 expect=pass cpu=no_gpu
// why: lab 01's solution whose kernel declares 65,000 registers in an inline-asm scope it never uses: ptxas keeps what is live (a handful) and the GPU runs it, but the emulator gives every declared register a slot in every thread of the blocks it holds at once (1.1 GB resident in the CPU judge for this kernel's 128-thread blocks, 4.1 GB for 1024-thread ones); it holds at most 8192 a function now, so without a GPU the kernel "needs a GPU" (graded as not passed there) instead of taking the host's memory
/* Registers a kernel declares are memory the emulator must hold for every
 * thread at once; a GPU holds only the ones ptxas allocates. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("{ .reg .b32 unused<65000>; }");

    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

/* Multi-pass launcher: pass k reduces `len` values to ceil(len / BLOCK) block
 * sums.  Passes alternate between two halves of the scratch buffer, and the
 * last pass (one block) writes straight into d_out. */
extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + BLOCK - 1) / BLOCK };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned blocks = (len + BLOCK - 1) / BLOCK;
        int *dst = (blocks == 1) ? d_out : bufs[which];
        reduce_block<<<blocks, BLOCK, 0, s>>>(src, dst, len);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
