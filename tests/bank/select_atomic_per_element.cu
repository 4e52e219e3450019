// bank: lab=12 expect=pass target=missed
// why: correct but slow: one atomicAdd per survivor, every one on the same counter
/* The direct compaction: each thread takes an element, and a survivor asks
 * the counter for its place, if (keep) out[atomicAdd(count, 1)] = x.  Right
 * in any order, but the atomics on *d_count queue up one after another in
 * the L2, a hundred million of them at 2^28: it must miss the target.
 *
 * The keep decision goes through a ballot, and the ballot through a
 * population count kept by asm volatile (a popc the compiler could fold
 * away, it did: "technique missing" on the H100), only so that the
 * technique check passes and the time is what the check is about. */
#include "lab.h"

#define BLOCK 256
#define FULL_MASK 0xffffffffu

__global__ void select_per_element(const int *in, unsigned n, int *out, unsigned *count)
{
    unsigned lane = threadIdx.x % 32;
    unsigned stride = gridDim.x * BLOCK;
    /* Whole warps to the end, so that the ballot sees every lane. */
    unsigned end = (n + 31) / 32 * 32;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < end; i += stride) {
        int x = i < n ? in[i] : 0;
        unsigned vote = __ballot_sync(FULL_MASK, i < n && lab_keep(x)), kept;
        asm volatile("popc.b32 %0, %1;" : "=r"(kept) : "r"(vote));
        if (kept && ((vote >> lane) & 1u))
            out[atomicAdd(count, 1u)] = x;
    }
}

extern "C" void lab_select(const int *d_in, unsigned n, int *d_out, unsigned *d_count,
                           void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    unsigned blocks = (n + BLOCK - 1) / BLOCK;
    if (blocks > 4096)
        blocks = 4096;
    cudaMemsetAsync(d_count, 0, sizeof *d_count, s);
    select_per_element<<<blocks, BLOCK, 0, s>>>(d_in, n, d_out, d_count);
}
