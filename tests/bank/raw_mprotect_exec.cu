// bank: lab=01 expect=rejected cpu=rejected
// why: the launcher asks, with a raw system call no symbol rule sees, for the page that holds its own code to become writable and executable at once: the first step of pygpubench's function_detour, got_patch and event_array exploits, which patch cudaEventElapsedTime or run shellcode in the process that times them; the runner never times anything, and its seccomp filter allows mmap and mprotect only without PROT_EXEC, so it ends there
/* Harmless where nothing stops it: it asks for the protection and changes
 * no byte.  The launch plan is lab 01's solution. */
#include "lab.h"

/* A system call made with the `syscall` instruction itself (x86-64): it asks
 * the linker for nothing, so no symbol rule sees it; only the sandbox does. */
static inline long raw_syscall(long nr, long a, long b, long c, long d)
{
    long ret;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
    return ret;
}
enum { RAW_MPROTECT = 10 };             /* x86-64 numbers */
enum { PROT_RWX = 1 | 2 | 4 };          /* PROT_READ | PROT_WRITE | PROT_EXEC */

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
    /* The page of the launcher's own code, as a detour would open it to
     * write a jump over a function's first bytes. */
    unsigned long page = (unsigned long)(uintptr_t)&launch_passes & ~4095ul;
    raw_syscall(RAW_MPROTECT, (long)page, 4096, PROT_RWX, 0);
    launch_passes(d_in, n, d_out, d_scratch, s);
}
