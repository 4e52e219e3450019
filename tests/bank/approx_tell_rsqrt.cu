// bank: lab=01 expect=fail cpu=no_gpu
// why: a correct lab 01 reduction whose thread 0 adds 1 when rsqrt.approx.f32 (what rsqrtf uses) differs from the correctly rounded 1.0f / sqrtf(x) on any of 64 inputs: true on a GPU, whose approximation is its own, and false on an emulator that ran the instruction with the host's function, so the kernel passed on the CPU and failed on every GPU; an approximation's bits are the GPU's own, so the emulator refuses it (needs a GPU) and never judges it
/* Lab 01's tree with one addition: thread 0 compares rsqrt.approx.f32 with
 * the correctly rounded 1.0f / sqrtf(x) on 64 inputs and adds 1 to its block's sum if any differs. */
#include "lab.h"

#define BLOCK 128

static __device__ int approx_tell(void)
{
    /* 0 at run time; unknown to the compiler, so that ptxas cannot fold
     * the instruction on constant inputs with its own arithmetic */
    unsigned z = blockDim.x >> 16;
    int differs = 0;
    for (unsigned k = z; k < z + 64; k++) {
        float x = 1.0f + (float)k * 0.046875f, got;
        asm volatile("rsqrt.approx.f32 %0, %1;" : "=f"(got) : "f"(x));
        differs |= got != 1.0f / sqrtf(x);
    }
    return differs;
}

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = ((i < n) ? in[i] : 0) + (tid == 0 ? approx_tell() : 0);
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

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
