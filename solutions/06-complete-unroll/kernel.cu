/* Lab 06 — complete unrolling with templates: reference solution.
 *
 * The block size becomes a template parameter BS, so every level of the
 * tree is an `if (BS >= ...)` the compiler settles at compile time: no loop
 * counter, no shifts, no dead levels.  A switch in launch_pass() maps the
 * block size chosen at run time onto the five compiled versions, 64 to 1024.
 * Measured on an H100 at 2^28 ints: 128 threads 652 us, 256 threads 482 us;
 * THREADS below is the one to change when you try others.
 */
#include "lab.h"

#define THREADS 256          /* block size of the big passes: 64 .. 1024 */
#define MAX_THREADS 1024     /* the hardware's limit on threads per block */

/* One pass: block b sums in[b*2*BS ..) (up to 2*BS values) into out[b].
 * __launch_bounds__ tells the compiler the block size, so it keeps the
 * register count low enough for a 1024-thread block to launch at all. */
template <unsigned BS>
__global__ void __launch_bounds__(BS) reduce_unrolled(const int *in, int *out,
                                                      unsigned n)
{
    __shared__ int sdata[BS];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (2 * BS) + tid;

    /* First add during load (lab 04), each load guarded on its own. */
    int v = (i < n) ? in[i] : 0;
    if (i + BS < n)
        v += in[i + BS];
    sdata[tid] = v;
    __syncthreads();

    /* The block-wide levels.  BS is a constant, so each `if (BS >= ...)`
     * either vanishes or loses its test; the barriers stay outside the
     * `tid <` tests, where every thread reaches them.  v keeps a copy of
     * sdata[tid] (only this thread writes that word) to save a load. */
    if (BS >= 1024) {
        if (tid < 512) { v += sdata[tid + 512]; sdata[tid] = v; }
        __syncthreads();
    }
    if (BS >= 512) {
        if (tid < 256) { v += sdata[tid + 256]; sdata[tid] = v; }
        __syncthreads();
    }
    if (BS >= 256) {
        if (tid < 128) { v += sdata[tid + 128]; sdata[tid] = v; }
        __syncthreads();
    }
    if (BS >= 128) {
        if (tid < 64) { v += sdata[tid + 64]; sdata[tid] = v; }
        __syncthreads();
    }

    /* 64 partial sums left: warp 0, all 32 lanes of it, finishes them the
     * Volta-safe way of lab 05.  Nobody writes sdata[32..64) here, so the
     * first step needs no barrier; in the others, the lanes meet once so
     * that the previous writes are visible and once more so that every
     * read is done before any lane overwrites a word.  The trip count is a
     * constant: `#pragma unroll` turns the loop into straight-line code. */
    if (tid < 32) {
        v += sdata[tid + 32];
        sdata[tid] = v;
#pragma unroll
        for (unsigned s = 16; s > 0; s >>= 1) {
            __syncwarp();
            v += sdata[tid + s];
            __syncwarp();
            sdata[tid] = v;
        }
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

/* The run-time block size picks the compiled kernel.  Sizes below 64 are
 * not offered: the warp tail assumes 64 values in shared memory. */
static void launch_pass(unsigned threads, unsigned blocks, const int *src,
                        int *dst, unsigned len, cudaStream_t s)
{
    switch (threads) {
    case 1024: reduce_unrolled<1024><<<blocks, 1024, 0, s>>>(src, dst, len); break;
    case 512:  reduce_unrolled<512><<<blocks, 512, 0, s>>>(src, dst, len);   break;
    case 256:  reduce_unrolled<256><<<blocks, 256, 0, s>>>(src, dst, len);   break;
    case 128:  reduce_unrolled<128><<<blocks, 128, 0, s>>>(src, dst, len);   break;
    case 64:   reduce_unrolled<64><<<blocks, 64, 0, s>>>(src, dst, len);     break;
    }
}

/* Big passes use THREADS.  Once one block of at most MAX_THREADS can take
 * everything that is left, the smallest such block does, so the final pass
 * is a single launch instead of two. */
static unsigned pass_threads(unsigned len)
{
    unsigned t = 64;

    if (len > 2 * MAX_THREADS)
        return THREADS;
    while (2 * t < len)
        t *= 2;
    return t;
}

/* Multi-pass launcher: as in lab 05, but each pass may use its own block
 * size.  The first pass has the most blocks, so ceil(n / (2*THREADS)) ints
 * at the start of d_scratch hold any pass's output; the second half starts
 * there. */
extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch,
                     (int *)d_scratch + (n + 2 * THREADS - 1) / (2 * THREADS) };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;

    for (;;) {
        unsigned threads = pass_threads(len);
        unsigned blocks = (len + 2 * threads - 1) / (2 * threads);
        int *dst = (blocks == 1) ? d_out : bufs[which];
        launch_pass(threads, blocks, src, dst, len, s);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
