// bank: lab=05 expect=fail cpu=fail
// why: the warp tail times one shared-memory load with clock64(): slow (a race checker instruments shared accesses) takes the __syncwarp path racecheck then sees clean, fast takes the volatile lock-step tail, a race; the GPU's trials and racecheck pass it, and the CPU emulator's hazard pass, whose clocks advance as the GPU's do, judges the path the kernel really takes
/* A kernel that behaves well only while it is watched.  The clock tells
 * it: an instrumented shared load costs hundreds of cycles, a plain one a
 * few dozen.  The syncwarp in the watched path is also what the lab's
 * technique check looks for. */
#include "lab.h"

#define BLOCK 128
#define ELEMS (2 * BLOCK)
#define WATCHED_CYCLES 400

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * blockDim.x) + threadIdx.x;

    int v = (i < n) ? in[i] : 0;
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) {
        volatile int *vs = sdata;
        long long t0 = clock64();
        int probe = vs[tid];
        long long cycles = clock64() - t0;
        if (cycles + (probe & 0) > WATCHED_CYCLES) {
            v = vs[tid] + vs[tid + 32];
            for (unsigned s = 16; s > 0; s >>= 1) {
                __syncwarp();
                vs[tid] = v;
                __syncwarp();
                v += vs[tid + s];
            }
        } else {
            vs[tid] += vs[tid + 32];
            vs[tid] += vs[tid + 16];
            vs[tid] += vs[tid + 8];
            vs[tid] += vs[tid + 4];
            vs[tid] += vs[tid + 2];
            vs[tid] += vs[tid + 1];
            v = vs[tid];
        }
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + ELEMS - 1) / ELEMS };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned blocks = (len + ELEMS - 1) / ELEMS;
        int *dst = (blocks == 1) ? d_out : bufs[which];
        reduce_block<<<blocks, BLOCK, 0, s>>>(src, dst, len);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
