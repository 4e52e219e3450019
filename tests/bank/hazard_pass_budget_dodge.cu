// bank: lab=03 expect=fail cpu=timeout
// why: missing_syncthreads.cu's race, plus a loop that spends the emulator's budget at the sizes the GPU check's hazard pass runs (n <= 4097) and about 25 ms a launch on a GPU (a tenth of a second made the trials' 2.5 s limit with the GPU shared by other tests): the hazard pass does not finish, which used to leave the GPU's pass standing with no race checker run (--no-sanitize); now an unfinished hazard pass makes the race checkers run, and racecheck fails it
/* Lab 03's tree without its barriers, hiding from the emulator behind a
 * long loop at small sizes. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    /* about 25 ms on a GPU; far past the emulator's budget at these sizes
     * (no thread index below 1024 comes to 7: the sum is untouched) */
    unsigned x = tid;
    for (unsigned k = 0; n <= 4097 && k < (1u << 28); k++)
        x = x * 1664525u + 1013904223u;
    sdata[tid] = ((i < n) ? in[i] : 0) + (x == 7u);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        /* the bug: no __syncthreads() here */
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
