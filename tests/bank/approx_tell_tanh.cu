// bank: lab=01 expect=fail cpu=no_gpu
// why: a correct lab 01 reduction whose thread 0 adds 1 when tanh.approx.f32 (inline PTX) differs from the host C library's value on any of 64 inputs: true on a GPU, whose approximation is its own, and false on an emulator that ran the instruction with the host's function, so the kernel passed on the CPU and failed on every GPU; an approximation's bits are the GPU's own, so the emulator refuses it (needs a GPU) and never judges it
/* Lab 01's tree with one addition: thread 0 compares tanh.approx.f32 with
 * the host C library's value on 64 inputs and adds 1 to its block's sum if any differs. */
#include "lab.h"

#define BLOCK 128

/* what the C library of Debian 12 (glibc 2.36) gives for each input: the
 * value an emulator that runs tanh.approx with the host's function returns */
static __device__ const unsigned host_bits[64] = {
    0x3d3fdc09, 0x3dbf7082, 0x3e0f0ee8, 0x3e3dc7fc, 0x3e6bb32e, 0x3e8c51cd,
    0x3ea23833, 0x3eb77a9e, 0x3ecc0959, 0x3edfd736, 0x3ef2d998, 0x3f028438,
    0x3f0b2f12, 0x3f136bb8, 0x3f1b3998, 0x3f22991f, 0x3f298b95, 0x3f301305,
    0x3f36321f, 0x3f3bec1c, 0x3f4144a4, 0x3f463fae, 0x3f4ae176, 0x3f4f2e5b,
    0x3f532ad5, 0x3f56db63, 0x3f5a447c, 0x3f5d6a85, 0x3f6051ca, 0x3f62fe74,
    0x3f657483, 0x3f67b7cc, 0x3f69cbf5, 0x3f6bb475, 0x3f6d7491, 0x3f6f0f5b,
    0x3f7087b7, 0x3f71e058, 0x3f731bc2, 0x3f743c4f, 0x3f75442d, 0x3f763560,
    0x3f7711c7, 0x3f77db1e, 0x3f7892fd, 0x3f793adc, 0x3f79d416, 0x3f7a5feb,
    0x3f7adf80, 0x3f7b53e2, 0x3f7bbe09, 0x3f7c1ed6, 0x3f7c771a, 0x3f7cc792,
    0x3f7d10ed, 0x3f7d53ca, 0x3f7d90ba, 0x3f7dc843, 0x3f7dfade, 0x3f7e28fb,
    0x3f7e52fe, 0x3f7e7945, 0x3f7e9c24, 0x3f7ebbe9
};

static __device__ int approx_tell(void)
{
    /* 0 at run time; unknown to the compiler, so that ptxas cannot fold
     * the instruction on constant inputs with its own arithmetic */
    unsigned z = blockDim.x >> 16;
    int differs = 0;
    for (unsigned k = z; k < z + 64; k++) {
        float x = (float)(k + 1) * 0.046875f, got;
        asm volatile("tanh.approx.f32 %0, %1;" : "=f"(got) : "f"(x));
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
