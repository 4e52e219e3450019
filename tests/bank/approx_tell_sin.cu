// bank: lab=01 expect=fail cpu=no_gpu
// why: a correct lab 01 reduction whose thread 0 adds 1 when sin.approx.f32 (what __sinf uses) differs from the host C library's value on any of 64 inputs: true on a GPU, whose approximation is its own, and false on an emulator that ran the instruction with the host's function, so the kernel passed on the CPU and failed on every GPU; an approximation's bits are the GPU's own, so the emulator refuses it (needs a GPU) and never judges it
/* Lab 01's tree with one addition: thread 0 compares sin.approx.f32 with
 * the host C library's value on 64 inputs and adds 1 to its block's sum if any differs. */
#include "lab.h"

#define BLOCK 128

/* what the C library of Debian 12 (glibc 2.36) gives for each input: the
 * value an emulator that runs sin.approx with the host's function returns */
static __device__ const unsigned host_bits[64] = {
    0x3dc8bd36, 0x3e47c5c2, 0x3e94a032, 0x3ec3ef16, 0x3ef15aea, 0x3f0e39da,
    0x3f22679a, 0x3f3504f3, 0x3f45e403, 0x3f54db32, 0x3f61c598, 0x3f6c835e,
    0x3f74fa0b, 0x3f7b14bf, 0x3f7ec46d, 0x3f800000, 0x3f7ec46d, 0x3f7b14be,
    0x3f74fa0a, 0x3f6c835e, 0x3f61c597, 0x3f54db30, 0x3f45e404, 0x3f3504f3,
    0x3f226799, 0x3f0e39d9, 0x3ef15ae6, 0x3ec3ef10, 0x3e94a033, 0x3e47c5c1,
    0x3dc8bd30, 0xb3bbbd2e, 0xbdc8bd47, 0xbe47c5cd, 0xbe94a038, 0xbec3ef15,
    0xbef15aeb, 0xbf0e39db, 0xbf22679b, 0xbf3504f5, 0xbf45e403, 0xbf54db34,
    0xbf61c598, 0xbf6c8361, 0xbf74fa0b, 0xbf7b14be, 0xbf7ec46d, 0xbf800000,
    0xbf7ec46d, 0xbf7b14be, 0xbf74fa09, 0xbf6c835d, 0xbf61c598, 0xbf54db2f,
    0xbf45e403, 0xbf3504ef, 0xbf226797, 0xbf0e39db, 0xbef15ae3, 0xbec3ef15,
    0xbe94a028, 0xbe47c5bc, 0xbdc8bd04, 0x343bbd2e
};

static __device__ int approx_tell(void)
{
    /* 0 at run time; unknown to the compiler, so that ptxas cannot fold
     * the instruction on constant inputs with its own arithmetic */
    unsigned z = blockDim.x >> 16;
    int differs = 0;
    for (unsigned k = z; k < z + 64; k++) {
        float x = (float)(k + 1) * 0.0981747704f, got;
        asm volatile("sin.approx.f32 %0, %1;" : "=f"(got) : "f"(x));
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
