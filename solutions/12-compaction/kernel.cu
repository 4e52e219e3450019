/* Lab 12 — stream compaction with warp-aggregated atomics: reference
 * solution.
 *
 * Each warp takes chunks of CHUNK elements in turn (a grid-stride loop over
 * chunks, the grid sized to the GPU).  Per chunk every lane loads four int4
 * and asks, for each of its 16 elements, __ballot_sync(keep): the ballot's
 * bits say which lanes keep their element, __popc of it how many.  Lane 0
 * then reserves room for the whole chunk's survivors with one atomicAdd on
 * *d_count, shuffles the start to every lane, and each lane writes each of
 * its survivors at start + (the survivors of the ballots before) + (the
 * lanes below it in this ballot that keep theirs): __popc(ballot & lanes
 * below).  One atomic per 512 elements instead of one per survivor, and
 * every survivor's place known without asking anyone.
 */
#include "lab.h"

#define BLOCK 256
#define VECS 4                          /* int4 loads per lane per chunk */
#define CHUNK (32 * VECS * 4)           /* elements per warp per chunk: 512 */
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
    unsigned lane = threadIdx.x % 32;
    unsigned below = (1u << lane) - 1;  /* the lanes under this one */
    unsigned long long warp = (blockIdx.x * (unsigned long long)BLOCK + threadIdx.x) / 32;
    unsigned long long warps = (unsigned long long)gridDim.x * BLOCK / 32;
    unsigned long long chunks = ((unsigned long long)n + CHUNK - 1) / CHUNK;

    /* chunk is the same for the whole warp: every ballot sees 32 lanes. */
    for (unsigned long long chunk = warp; chunk < chunks; chunk += warps) {
        int x[VECS][4];
        bool keep[VECS][4];
        unsigned ballot[VECS][4], total = 0;

        /* All loads first: sixteen elements per lane in flight at once. */
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            bool there[4];
            load4(in, chunk * (CHUNK / 4) + j * 32 + lane, n, vec, x[j], there);
#pragma unroll
            for (int c = 0; c < 4; c++)
                keep[j][c] = there[c] && lab_keep(x[j][c]);
        }
#pragma unroll
        for (int j = 0; j < VECS; j++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                ballot[j][c] = __ballot_sync(FULL_MASK, keep[j][c]);
                total += __popc(ballot[j][c]);
            }

        /* One reservation for the chunk; lane 0 asks, everyone learns. */
        unsigned start = 0;
        if (lane == 0 && total > 0)
            start = atomicAdd(count, total);
        start = __shfl_sync(FULL_MASK, start, 0);

#pragma unroll
        for (int j = 0; j < VECS; j++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                if (keep[j][c])
                    out[start + __popc(ballot[j][c] & below)] = x[j][c];
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

    /* A warp per chunk, no more warps than chunks, no more blocks than fit. */
    unsigned long long chunks = ((unsigned long long)n + CHUNK - 1) / CHUNK;
    unsigned long long want = (chunks + BLOCK / 32 - 1) / (BLOCK / 32);
    unsigned blocks = resident_blocks();
    if (want < blocks)
        blocks = (unsigned)want;
    if (blocks == 0)
        blocks = 1;

    /* The reservations count up from zero: *d_count is poisoned. */
    cudaMemsetAsync(d_count, 0, sizeof *d_count, s);
    select_warp_aggregated<<<blocks, BLOCK, 0, s>>>(d_in, n, vec, d_out, d_count);
}
