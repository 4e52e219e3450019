// bank: lab=01 expect=fail cpu=no_gpu
// why: a correct lab 01 reduction whose thread 0 adds 1 when ex2.approx.ftz.f32 (what __expf and expf use) differs from the host C library's value on any of 64 inputs: true on a GPU, whose approximation is its own, and false on an emulator that ran the instruction with the host's function, so the kernel passed on the CPU and failed on every GPU; an approximation's bits are the GPU's own, so the emulator refuses it (needs a GPU) and never judges it
/* Lab 01's tree with one addition: thread 0 compares ex2.approx.ftz.f32 with
 * the host C library's value on 64 inputs and adds 1 to its block's sum if any differs. */
#include "lab.h"

#define BLOCK 128

/* what the C library of Debian 12 (glibc 2.36) gives for each input: the
 * value an emulator that runs ex2.approx with the host's function returns */
static __device__ const unsigned host_bits[64] = {
    0x3f800000, 0x3fc473be, 0x3f96c170, 0x3fe76086, 0x3fb18e83, 0x3f884164,
    0x3fd11f57, 0x3fa07a8b, 0x3ff64cc2, 0x3fbd0221, 0x3f910b16, 0x3fde9c21,
    0x3faad42f, 0x3f8317b1, 0x3fc932d1, 0x3f9a65e0, 0x3fecf79d, 0x3fb5d8b7,
    0x3f8b8c24, 0x3fd62cc8, 0x3fa45b1e, 0x3ffc4025, 0x3fc19329, 0x3f948c31,
    0x3fe3fcfe, 0x3faef4c7, 0x3f864282, 0x3fce0f3f, 0x3f9e20d7, 0x3ff2b147,
    0x3fba3d74, 0x3f8eeb41, 0x3fdb5978, 0x3fa853ac, 0x3f812c2b, 0x3fc64070,
    0x3f9822f8, 0x3fe97f1e, 0x3fb32ee5, 0x3f8980eb, 0x3fd309bf, 0x3fa1f2e1,
    0x3ff88e5a, 0x3fbebd5d, 0x3f925f39, 0x3fe0a62b, 0x3fac64ca, 0x3f844b1d,
    0x3fcb0aa5, 0x3f9bcff3, 0x3fef2351, 0x3fb78329, 0x3f8cd364, 0x3fd82309,
    0x3fa5dc8b, 0x3ffe8fb1, 0x3fc3591b, 0x3f95e88c, 0x3fe613a4, 0x3fb08f10,
    0x3f877d5c, 0x3fcff279, 0x3f9f93a9, 0x3ff4ea68
};

static __device__ int approx_tell(void)
{
    /* 0 at run time; unknown to the compiler, so that ptxas cannot fold
     * the instruction on constant inputs with its own arithmetic */
    unsigned z = blockDim.x >> 16;
    int differs = 0;
    for (unsigned k = z; k < z + 64; k++) {
        float x = (float)((k * 2654435761u) >> 8) * 0x1p-24f, got;   /* [0, 1), all 24 bits */
        asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(got) : "f"(x));
        differs |= __float_as_uint(got) != host_bits[k - z];
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
