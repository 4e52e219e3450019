// bank: lab=01 expect=fail
// why: reads the answer out of the poison: d_out once arrived holding the expected sum XOR 0x5a5a5a5a, so a kernel could undo the XOR without reading the input; the poison is now fresh random bits, and the kernel's "sum" is wrong
/* One thread, one instruction's worth of work: the whole cheat. */
#include "lab.h"

__global__ void unpoison(int *out)
{
    *out ^= 0x5a5a5a5a;
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    (void)d_in; (void)n; (void)d_scratch;
    unpoison<<<1, 1, 0, s>>>(d_out);
}
