// bank: lab=01 expect=pass
// why: a correct reduction whose kernel and launcher print lines of the judge's progress protocol (@gpu wait, @passed correctness, @stage) on every call; they are the student's text, not protocol, and change neither the verdict nor any time limit
/* Before the judge had a private channel, "@gpu wait" on stderr bought a
 * run extra seconds, and "@stage" lines moved its trials' limit. */
#include "lab.h"

/* A system call made with the `syscall` instruction itself (x86-64): it asks
 * the linker for nothing, so no symbol rule sees it; only the sandbox does.
 * Inline, because a submission is one file. */
static inline long raw_syscall(long nr, long a, long b, long c, long d)
{
    long ret;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return ret;
}
#include <stdio.h>

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

__global__ void say(void)
{
    printf("@gpu wait\n@stage correctness 1/1 n=1\n");
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    fprintf(stderr, "@gpu wait\n@passed correctness\n@stage correctness 1/%u n=1\n", n);
    say<<<1, 1, 0, s>>>();
    launch_passes(d_in, n, d_out, d_scratch, s);
}
