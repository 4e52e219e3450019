// bank: lab=01 expect=rejected cpu=rejected
// why: the launcher puts a host file (/usr/include/stdio.h, which every build view holds, the grader's too) into its object with .incbin and asks for a memset of d_out whose size is the file's first 8 bytes; the judge refuses it (past the end of d_out) and its message describes the memset instead of printing the size, which would print the file (tests/fuzz.sh looks for a random file's bytes in the report)
/* The assembler reads any file the compiler can: a number the launcher
 * hands the judge can carry 8 of its bytes. */
#include "lab.h"

__asm__(".section .rodata\n"
        ".balign 8\n"
        "host_name_bytes:\n"
        ".incbin \"/usr/include/stdio.h\"\n"
        ".zero 16\n"
        ".previous\n");
extern "C" const unsigned long long host_name_bytes[2];

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

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

/* The multi-pass launcher of lab 01's solution. */
static void launch_passes(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
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

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    cudaMemsetAsync(d_out, 0, host_name_bytes[0] | 8, s);
    launch_passes(d_in, n, d_out, d_scratch, s);
}
