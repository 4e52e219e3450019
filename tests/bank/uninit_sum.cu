// bank: lab=03 expect=fail cpu=fail
// why: `int sum;` is never set before the loop adds into it. A GPU register holds whatever it held, often 0 in a fresh launch, so the sum can come out right on the GPU; the emulator fills registers with junk and names the variable read before anything was stored in it where its value reaches d_out, on the CPU and in the GPU check's hazard pass
/* Sequential addressing, each thread first adding two elements into a
 * register it forgot to zero. */
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;

    int sum;
    for (unsigned k = i; k < n && k < i + 2 * blockDim.x; k += blockDim.x)
        sum += in[k];
    sdata[tid] = i < n ? sum : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    unsigned per = 2 * BLOCK;
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + per - 1) / per };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned blocks = (len + per - 1) / per;
        int *dst = (blocks == 1) ? d_out : bufs[which];
        reduce_block<<<blocks, BLOCK, 0, s>>>(src, dst, len);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
