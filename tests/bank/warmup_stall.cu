// bank: lab=01 expect=pass
// why: lab 01's solution plus a probe launched first that counts calls at one n in __device__ memory and, on the second call in a row at the same n (the judge's second warm-up, whose time sets how many samples it takes), stalls 250 ms: the judge then takes only its minimum of 10 samples; pygpubench's warmup and incomplete_bypass exploits used the same trick to get fewer checked calls or a run cut short, but here every sample, warm-ups included, is checked, the warm-ups are never timed, and too few samples is no verdict, so the honest work is judged as it is (the report shows 10 samples)
/* Trials call once per n (no repeat in lab 01), so only the timed cases see
 * a second call in a row at one n; the stall is on the GPU, where the
 * launcher cannot see it and the plan stays the same on every call. */
#include "lab.h"

#define BLOCK 128
#define STALL_NS 250000000ull           /* 250 ms */

static __device__ unsigned seen_n;      /* 0 before the first call: n >= 1 */
static __device__ unsigned seen_calls;

static __device__ __forceinline__ unsigned long long now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* One thread: counts the calls at this n and stalls on the second. */
__global__ void stall_second_call(unsigned n)
{
    if (seen_n != n) {
        seen_n = n;
        seen_calls = 0;
    }
    if (++seen_calls == 2) {
        unsigned long long end = now_ns() + STALL_NS;
        while (now_ns() < end)
            __nanosleep(1000000);
    }
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

/* The multi-pass launcher of lab 01's solution, after the probe. */
extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + BLOCK - 1) / BLOCK };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    stall_second_call<<<1, 1, 0, s>>>(n);
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
