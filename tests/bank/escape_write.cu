// bank: lab=01 expect=rejected cpu=rejected
// why: a correct reduction whose host code tries, once, to create ../../escape-write.marker (two folders above its work folder) with raw system calls in inline assembly, which no symbol check can see; the runner's sandbox allows no open, in the tutor as in the grader, so the file never appears and the launcher is stopped
/* The symbol rules look at what the object asks the linker for.  A system
 * call made with a `syscall` instruction asks for nothing, so only the
 * runner's seccomp filter stands between this file and the disk. */
#include <stdio.h>
#include "lab.h"

#define BLOCK 128

/* openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, 0644), no libc. */
static long raw_openat(const char *path)
{
    const long at_fdcwd = -100, flags = 01 | 0100 | 01000, mode = 0644;
#if defined(__x86_64__)
    long ret;
    register long r10 __asm__("r10") = mode;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(257L), "D"(at_fdcwd), "S"(path), "d"(flags), "r"(r10)
                     : "rcx", "r11", "memory");
    return ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = 56;
    register long x0 __asm__("x0") = at_fdcwd;
    register long x1 __asm__("x1") = (long)path;
    register long x2 __asm__("x2") = flags;
    register long x3 __asm__("x3") = mode;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
#else
    (void)path;
    return -38;     /* ENOSYS: no escape attempt on this architecture */
#endif
}

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

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    static int tried;
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + BLOCK - 1) / BLOCK };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    if (!tried) {                           /* the escape attempt */
        tried = 1;
        printf("escape attempt: openat(\"../../escape-write.marker\") = %ld\n",
               raw_openat("../../escape-write.marker"));
    }
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
