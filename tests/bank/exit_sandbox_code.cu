// bank: lab=01 expect=runtime_error cpu=runtime_error
// why: a constructor ends the runner with a raw exit_group(121), a code the judge once read as "the sandbox could not be set up" (internal_error, a lab out of the grade); the sandbox's own failure now travels on a close-on-exec pipe, so every exit after the exec is the student's: runtime_error
/* A constructor runs before main, so before the first call: the process
 * ends as it starts. */
#include "lab.h"

/* A system call made with the `syscall` instruction itself (x86-64): it asks
 * the linker for nothing, so no symbol rule sees it.  Inline, because a
 * submission is one file. */
static inline long raw_syscall(long nr, long a)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a) : "rcx", "r11", "memory");
    return ret;
}
enum { RAW_EXIT_GROUP = 231 };   /* x86-64 */

__attribute__((constructor)) static void leave(void)
{
    raw_syscall(RAW_EXIT_GROUP, 121);
}

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
    launch_passes(d_in, n, d_out, d_scratch, s);
}
