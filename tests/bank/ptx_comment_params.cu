// bank: lab=01 expect=pass cpu=pass
// why: inline assembly puts comments into the PTX that declare the kernel with other parameters ("// .entry NAME(.param .u64 a, ...)", a block comment, a 4 KiB .b8 array, a .pragma string) ahead of its real .entry; a judge that read the PTX's text would refuse the launches or the driver its questions (internal_error); parameters come from the driver (the emulator's declarations without a GPU), and the kernel, which is right, passes on both (tests/fuzz.sh checks the no-GPU side)
/* Comments are PTX like any other text of the file. */
#include "lab.h"

#define BLOCK 128

__device__ __noinline__ int lookalike(int x)
{
    asm volatile("// .entry _Z12reduce_blockPKiPij(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d)\n\t"
                 "/* .entry _Z12reduce_blockPKiPij(\n\t.param .u64 e,\n\t.param .u64 f,\n\t.param .u64 g,\n\t"
                 ".param .u64 h\n\t) \"*/\n\t"
                 "// .entry _Z12reduce_blockPKiPij( .param .b8 q[4096] )\n\t"
                 ".pragma \".entry _Z12reduce_blockPKiPij(.param .u64 s, .param .u64 t, .param .u64 u, .param .u64 v)\";");
    return x;
}

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? lookalike(in[i]) : 0;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
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
