// bank: lab=01 expect=pass cpu=no_gpu
// why: lab 01's solution beside a kernel it never launches whose threads keep a 508 KB local array: the GPU reserves local memory for the kernels it launches, and the launched one has none, but the emulator gave every thread of every launch the local memory of the whole module, 4.2 GB of address space (1 GB resident) for each of lab 01's launches, and under a grading host's ulimit -v 4194304 the emulator ran out of it and the lab was internal_error, not graded; the CPU judge now runs under the catalog's address-space bound (emu_memory_mib, 2048 MiB), and a kernel that runs the emulator out of it "needs a GPU" (graded as not passed there) instead of taking the host's memory
/* The judge refuses a launched kernel whose threads use more local memory
 * than the catalog allows; this one is never launched, and what it costs
 * the emulator is bounded by the CPU judge's memory limit. */
#include "lab.h"

__global__ void never_launched(const int *in, int *out, unsigned n)
{
    volatile int big[127000];
    for (unsigned i = threadIdx.x; i < 127000; i += blockDim.x)
        big[i] = in[i % n];
    out[0] = big[n % 127000];
}

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    /* Threads past the end load 0, the identity of +, so the tree below never
     * needs to know where the array stops. */
    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();

    /* The tree: after level s, sdata[tid] holds the sum of 2*s inputs for
     * every tid that is a multiple of 2*s.  The modulo picks scattered threads
     * in every warp, so all warps stay busy with few active lanes: that waste
     * is what lab 02 removes. */
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        /* Outside the if: a barrier some threads skip is undefined. */
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
