// bank: lab=14 expect=pass
// why: correct but misses the target: one thread per row, so no load of a warp is coalesced
/* The most direct normaliser: thread r walks row r twice, once to add it up
 * and once to scale it.  The float sum of up to 1024 positive values in one
 * chain is within the tolerance (docs/harness.md, section 3.8), so every
 * result is right; but the 32 threads of a warp read 32 different rows, a
 * row length apart, so each load instruction touches 32 cache lines for 128
 * useful bytes, and the second walk reads the row again.  It must pass and
 * miss the target (tests/device/bonus-b.sh checks both).  The one shuffle,
 * with a lane mask of 0, exchanges nothing: it is there so that the
 * technique check passes and the speed is all this file tests. */
#include "lab.h"

#define BLOCK 256

__global__ void rownorm_thread(const float *__restrict__ in, unsigned rows, unsigned cols,
                               float *__restrict__ out)
{
    unsigned row = __shfl_xor_sync(0xffffffffu, blockIdx.x * BLOCK + threadIdx.x, 0);
    if (row >= rows)
        return;
    const float *x = in + (size_t)row * cols;
    float *y = out + (size_t)row * cols;
    float s = 0.0f;
    for (unsigned j = 0; j < cols; j++)
        s += x[j];
    float inv = 1.0f / s;
    for (unsigned j = 0; j < cols; j++)
        y[j] = x[j] * inv;
}

extern "C" void lab_rownorm(const float *d_in, unsigned rows, unsigned cols, float *d_out, cudaStream_t s)
{
    if (rows == 0)
        return;
    rownorm_thread<<<(rows + BLOCK - 1) / BLOCK, BLOCK, 0, s>>>(d_in, rows, cols, d_out);
}
