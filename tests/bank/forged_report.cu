// bank: lab=01 expect=rejected cpu=rejected
// why: a static constructor writes a passing report where the harness writes its own (harness.json in the working folder), with raw system calls no symbol rule sees, and ends the process before main: in the process that judged it this got 'pass' for a kernel that never writes d_out
/* In the runner the constructor runs inside the sandbox, where open()
 * ends the process before anything is written. */
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
enum { RAW_WRITE = 1, RAW_EXIT = 60, RAW_OPENAT = 257 };   /* x86-64 numbers */

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

static const char forged[] =
    "{\"schema\": 1, \"status\": \"pass\", \"tests\": [], \"perf\": [], \"messages\": []}";

__attribute__((constructor)) static void forge(void)
{
    long fd = raw_syscall(RAW_OPENAT, -100, (long)"harness.json", 01 | 0100 | 01000, 0644);
    if (fd >= 0)
        raw_syscall(RAW_WRITE, fd, (long)forged, sizeof forged - 1, 0);
    raw_syscall(RAW_EXIT, 0, 0, 0, 0);
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    /* Nothing is launched and the sum never written: only a forged report
     * could pass this. */
    (void)d_in; (void)n; (void)d_out; (void)d_scratch; (void)s;
}
