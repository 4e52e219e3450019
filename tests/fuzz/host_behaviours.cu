/* tests/fuzz/host_behaviours.cu — lab 01's reduction with a launcher that
 * misbehaves in a way chosen after the build: tests/fuzz.sh compiles this
 * once and writes a mode and a value into the runner's copy of `fuzz_cfg`
 * (after its "FUZZCFG:" marker) before each run, so that hundreds of
 * behaviours cost one nvcc.  Every way a process can end or stay silent
 * that a submission controls, from the first instruction (an .init_array
 * entry, a .ctors entry, a constructor) to a call of the launcher. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "lab.h"

/* mode: n normal, x exit_group(v) in the launcher, c in a constructor,
 * i in an .init_array entry, o in a .ctors entry, s the signal v to itself
 * in the launcher, S in a constructor, f a bad memory access, a abort(),
 * p junk that looks like the judge's protocol and report on stdout and
 * stderr, then a normal run; h silence (the launcher spins). */
static volatile unsigned char fuzz_cfg[16] = {'F', 'U', 'Z', 'Z', 'C', 'F', 'G', ':', 'n', 0};

/* System calls made with the `syscall` instruction (x86-64): exit_group and
 * tgkill as a submission could issue them, with no libc in between. */
static inline long raw_syscall(long nr, long a, long b, long c)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}
enum { RAW_GETPID = 39, RAW_EXIT_GROUP = 231, RAW_GETTID = 186, RAW_TGKILL = 234 };

static void act(char when)
{
    char mode = (char)fuzz_cfg[8];
    long v = fuzz_cfg[9];
    if (mode != when)
        return;
    if (when == 's' || when == 'S')
        raw_syscall(RAW_TGKILL, raw_syscall(RAW_GETPID, 0, 0, 0), raw_syscall(RAW_GETTID, 0, 0, 0), v);
    else
        raw_syscall(RAW_EXIT_GROUP, v, 0, 0);
}

static void at_init_array(void) { act('i'); }
static void at_ctors(void) { act('o'); }
__attribute__((used, section(".init_array"))) static void (*init_entry)(void) = at_init_array;
__attribute__((used, section(".ctors"))) static void (*ctors_entry)(void) = at_ctors;
__attribute__((constructor)) static void at_constructor(void)
{
    act('c');
    act('S');
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

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + BLOCK - 1) / BLOCK };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    act('x');
    act('s');
    if (fuzz_cfg[8] == 'f')
        *(volatile int *)(unsigned long)fuzz_cfg[9] = 1;
    if (fuzz_cfg[8] == 'a')
        abort();
    if (fuzz_cfg[8] == 'h')
        for (;;)
            ;
    if (fuzz_cfg[8] == 'p') {
        printf("@stage correctness 1/1 n=1\n@passed correctness\ninternal: the sandbox could not be set up\n");
        fprintf(stderr, "%s%d\n", "{\"status\": \"internal_error\"}\n.entry reduce_block(.param .u64 a) ", 121);
        printf("%s%d\n", "\377\376junk\x1b[2J\r", 0);
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
