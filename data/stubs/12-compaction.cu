/* Lab 12 — stream compaction with warp-aggregated atomics.
 *
 * Your job: give every survivor (an element lab_keep keeps) its own place in
 * d_out with one atomicAdd per block and chunk instead of one per survivor.
 * The loads are done: each block takes chunks of CHUNK elements in turn, 512
 * to each warp, and every lane holds 16 elements and knows which it keeps;
 * so is the shared-memory plumbing that lines the warps of a block up.
 * Missing: the warp's vote (__ballot_sync, __popc), the block's one
 * reservation, each lane's rank among the survivors of a ballot, and the
 * launcher's start value for *d_count.  Look for TODO.  Read README.md
 * first.
 */
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define VECS 4                          /* int4 loads per lane per chunk */
#define WARP_CHUNK (32 * VECS * 4)      /* elements per warp per chunk: 512 */
#define CHUNK (WARPS * WARP_CHUNK)      /* elements per block per chunk: 4096 */
#define FULL_MASK 0xffffffffu

/* Element c of int4 number q, or "not there" past n.  vec: the input is
 * 16-byte aligned, so whole int4 loads are allowed. */
static __device__ __forceinline__ void load4(const int *in, unsigned long long q, unsigned n, int vec,
                                             int x[4], bool there[4])
{
    unsigned long long e = 4 * q;
    if (vec && e + 3 < n) {
        int4 v = ((const int4 *)in)[q];
        x[0] = v.x; x[1] = v.y; x[2] = v.z; x[3] = v.w;
        there[0] = there[1] = there[2] = there[3] = true;
        return;
    }
    for (int c = 0; c < 4; c++) {
        there[c] = e + c < n;
        x[c] = there[c] ? in[e + c] : 0;
    }
}

__global__ void __launch_bounds__(BLOCK)
select_warp_aggregated(const int *__restrict__ in, unsigned n, int vec, int *__restrict__ out,
                       unsigned *count)
{
    __shared__ unsigned warp_start[WARPS];      /* first a warp's count, then its start */
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    unsigned long long chunks = ((unsigned long long)n + CHUNK - 1) / CHUNK;

    /* chunk is the same for the whole block: the barriers below are met by
     * every thread, and every ballot sees 32 lanes. */
    for (unsigned long long chunk = blockIdx.x; chunk < chunks; chunk += gridDim.x) {
        unsigned long long first4 = chunk * (CHUNK / 4) + warp * (WARP_CHUNK / 4);
        int x[VECS][4];
        bool keep[VECS][4];
        unsigned ballot[VECS][4], total = 0;

        /* All loads first: sixteen elements per lane in flight at once. */
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            bool there[4];
            load4(in, first4 + j * 32 + lane, n, vec, x[j], there);
#pragma unroll
            for (int c = 0; c < 4; c++)
                keep[j][c] = there[c] && lab_keep(x[j][c]);
        }
        /* TODO (1): the warp's vote.  For each element slot [j][c], every lane
         * says whether it keeps its element: ballot[j][c] =
         * __ballot_sync(FULL_MASK, keep[j][c]) has bit L set when lane L
         * does, the same word in every lane.  total must become the warp's
         * survivors in the whole chunk: the sum of __popc(ballot[j][c]).
         * As shipped each lane only knows about itself. */
#pragma unroll
        for (int j = 0; j < VECS; j++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                ballot[j][c] = keep[j][c] ? 1u << lane : 0u;
                total += keep[j][c];
            }

        /* The block's warps line up: thread 0 turns their counts into
         * starts, one after the other, and reserves room for all of them. */
        if (lane == 0)
            warp_start[warp] = total;
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned sum = 0;
            for (int w = 0; w < WARPS; w++) {
                unsigned t = warp_start[w];
                warp_start[w] = sum;
                sum += t;
            }
            /* TODO (2): the block's one reservation.  start must become
             * atomicAdd(count, sum) (when sum is not 0): atomicAdd returns
             * the count before its addition, the first free place.  As
             * shipped nothing is reserved and every block writes from 0. */
            unsigned start = 0;
            for (int w = 0; w < WARPS; w++)
                warp_start[w] += start;
        }
        __syncthreads();
        /* Lane 0 reads for the warp: the next chunk's count, which lane 0
         * alone writes, cannot overtake a read by another lane. */
        unsigned start = __shfl_sync(FULL_MASK, lane == 0 ? warp_start[warp] : 0u, 0);

        /* Each survivor's place: after the warp's survivors of the ballots
         * before, and after the lanes below it that keep theirs in this one. */
#pragma unroll
        for (int j = 0; j < VECS; j++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                /* TODO (3): this lane's rank among the lanes that keep their
                 * element of this ballot: how many lanes below it (the bits
                 * of (1u << lane) - 1) have their bit set in ballot[j][c].
                 * One __popc does it.  As shipped every lane writes at the
                 * same place. */
                unsigned rank = 0;
                if (keep[j][c])
                    out[start + rank] = x[j][c];
                start += __popc(ballot[j][c]);
            }
    }
}

/* Blocks that fit on the whole GPU at once (lab 07's grid sizing), found on
 * the first call and kept: it depends on the device, not on the data. */
static unsigned resident_blocks(void)
{
    static unsigned cached;
    if (cached == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)
                != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, select_warp_aggregated, BLOCK, 0) != cudaSuccess ||
            sms <= 0 || per_sm <= 0)
            return 1024;                /* a safe guess; do not cache it */
        cached = (unsigned)sms * (unsigned)per_sm;
    }
    return cached;
}

extern "C" void lab_select(const int *d_in, unsigned n, int *d_out, unsigned *d_count,
                           void *d_scratch, cudaStream_t s)
{
    (void)d_scratch;
    int vec = ((uintptr_t)d_in % 16) == 0;

    /* A block per chunk, no more blocks than chunks or than fit at once. */
    unsigned long long chunks = ((unsigned long long)n + CHUNK - 1) / CHUNK;
    unsigned blocks = resident_blocks();
    if (chunks < blocks)
        blocks = (unsigned)chunks;
    if (blocks == 0)
        blocks = 1;

    /* TODO (4): the reservations count up from zero, but *d_count is
     * poisoned before every call: set it to 0 with cudaMemsetAsync on
     * stream s, before the kernel. */
    select_warp_aggregated<<<blocks, BLOCK, 0, s>>>(d_in, n, vec, d_out, d_count);
}
