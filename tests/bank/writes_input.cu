// bank: lab=01 expect=fail
// why: reduces in place in d_in, casting away const; the sum is right but the input is destroyed, and the harness checks that d_in is unchanged
/* The textbook in-place tree on global memory (each block folds its own
 * slice of the array onto its first element), with the first pass run on
 * the caller's input.  Rule 5 of lab.h: the input is read-only. */
#include "lab.h"

#define BLOCK 128

/* Block b folds data[b*BLOCK .. ) in place and copies the total to
 * out[b].  __syncthreads() also orders global memory within a block. */
__global__ void fold_in_place(int *data, int *out, unsigned n)
{
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s && i + s < n)
            data[i] += data[i + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = data[i];
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + BLOCK - 1) / BLOCK };
    int *src = const_cast<int *>(d_in);     /* the bug */
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned blocks = (len + BLOCK - 1) / BLOCK;
        int *dst = (blocks == 1) ? d_out : bufs[which];
        fold_in_place<<<blocks, BLOCK, 0, s>>>(src, dst, len);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
