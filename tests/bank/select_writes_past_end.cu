// bank: lab=12 expect=fail cpu=runtime_error
// why: writes an end marker at d_out[n], one past the buffer; without a GPU the emulator stops at the first write past the buffer the lab lends (runtime_error), where a GPU writes into its allocation's slack and the answer is wrong (fail)
/* Right survivors, right count, and then a sentinel "after the last
 * element" at d_out[n], which is past the room lab.h gives (d_out has n
 * ints).  The judge keeps a guard after d_out and checks it. */
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
    unsigned below = (1u << lane) - 1;          /* the lanes under this one */
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
        /* The warp's vote: one word per element slot, a bit per lane that
         * keeps its element; the same word in every lane. */
#pragma unroll
        for (int j = 0; j < VECS; j++)
#pragma unroll
            for (int c = 0; c < 4; c++) {
                ballot[j][c] = __ballot_sync(FULL_MASK, keep[j][c]);
                total += __popc(ballot[j][c]);
            }

        /* The block's warps line up, and thread 0 reserves room for all of
         * them with one atomicAdd: atomicAdd returns the count before its
         * addition, the first free place. */
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
            unsigned start = sum ? atomicAdd(count, sum) : 0;
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
                if (keep[j][c])
                    out[start + __popc(ballot[j][c] & below)] = x[j][c];
                start += __popc(ballot[j][c]);
            }
    }
}

__global__ void end_marker(int *out, unsigned n)
{
    out[n] = -1;
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

    /* The reservations count up from zero: *d_count is poisoned. */
    cudaMemsetAsync(d_count, 0, sizeof *d_count, s);
    select_warp_aggregated<<<blocks, BLOCK, 0, s>>>(d_in, n, vec, d_out, d_count);
    end_marker<<<1, 1, 0, s>>>(d_out, n);
}
