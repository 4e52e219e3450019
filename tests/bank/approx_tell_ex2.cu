// bank: lab=01 expect=fail cpu=no_gpu
// why: a correct lab 01 reduction whose thread 0 adds 1 when ex2.approx.ftz.f32 (what __expf and expf use) differs from the host C library's value on any of 64 inputs: true on a GPU, whose approximation is its own, and false on an emulator that ran the instruction with the host's function, so the kernel passed on the CPU and failed on every GPU; an approximation's bits are the GPU's own, so the emulator refuses it (needs a GPU) and never judges it
/* Lab 01's tree with one addition: thread 0 compares ex2.approx.ftz.f32 with
 * the host C library's value on 64 inputs and adds 1 to its block's sum if any differs. */
#include "lab.h"

#define BLOCK 128

/* what the C library of Debian 12 (glibc 2.36) gives for each input: the
 * value an emulator that runs ex2.approx with the host's function returns */
static __device__ const unsigned host_bits[64] = {
    0x3f8164d2, 0x3f82cd87, 0x3f843a29, 0x3f85aac3, 0x3f871f62, 0x3f88980f,
    0x3f8a14d5, 0x3f8b95c2, 0x3f8d1adf, 0x3f8ea43a, 0x3f9031dc, 0x3f91c3d3,
    0x3f935a2b, 0x3f94f4f0, 0x3f96942d, 0x3f9837f0, 0x3f99e046, 0x3f9b8d3a,
    0x3f9d3eda, 0x3f9ef532, 0x3fa0b051, 0x3fa27043, 0x3fa43516, 0x3fa5fed7,
    0x3fa7cd94, 0x3fa9a15b, 0x3fab7a3a, 0x3fad583f, 0x3faf3b79, 0x3fb123f6,
    0x3fb311c4, 0x3fb504f3, 0x3fb6fd92, 0x3fb8fbaf, 0x3fbaff5b, 0x3fbd08a4,
    0x3fbf179a, 0x3fc12c4d, 0x3fc346cd, 0x3fc5672a, 0x3fc78d75, 0x3fc9b9be,
    0x3fcbec15, 0x3fce248c, 0x3fd06334, 0x3fd2a81e, 0x3fd4f35b, 0x3fd744fd,
    0x3fd99d16, 0x3fdbfbb8, 0x3fde60f5, 0x3fe0ccdf, 0x3fe33f89, 0x3fe5b907,
    0x3fe8396a, 0x3feac0c7, 0x3fed4f30, 0x3fefe4ba, 0x3ff28177, 0x3ff5257d,
    0x3ff7d0df, 0x3ffa83b3, 0x3ffd3e0c, 0x40000000
};

static __device__ int approx_tell(void)
{
    int differs = 0;
    for (int k = 0; k < 64; k++) {
        float x = (float)(k + 1) * 0.015625f, got;
        asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(got) : "f"(x));
        differs |= __float_as_uint(got) != host_bits[k];
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
