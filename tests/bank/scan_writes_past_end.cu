// bank: lab=13 expect=fail cpu=runtime_error
// why: stores whole int4s in the last tile, writing up to 3 ints past the end of d_out; without a GPU the emulator stops at the first write past the buffer the lab lends (runtime_error), where a GPU writes into its allocation's slack and the answer is wrong (fail)
/* The lab's solution with a shortcut in the last tile: an int4 store
 * whenever its first element is below n.  Every prefix is right, but when n
 * is not a multiple of 4 the store runs past the end of d_out; the judge
 * poisons the rest of d_out's allocation there and fails the first trial
 * that touches it (n = 1). */
#include "lab.h"

#define BLOCK 512
#define ROUNDS 4                        /* int4 loads per thread and tile */
#define TILE (BLOCK * 4 * ROUNDS)       /* 8192 elements */
#define SUMS_BLOCK 1024                 /* the one block of pass 2 */
#define FULL_MASK 0xffffffffu

/* Inclusive scan across the warp: after the step of distance d, lane i holds
 * the sum of lanes i - 2d + 1 .. i.  A lane below d has no lane d places
 * down: __shfl_up_sync hands it its own value back, which it must not add. */
static __device__ __forceinline__ int warp_scan(int v, unsigned lane)
{
    for (unsigned d = 1; d < 32; d <<= 1) {
        int up = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d)
            v += up;
    }
    return v;
}

/* Inclusive scan of one value per thread across the block (blockDim.x a
 * multiple of 32, at most 1024); *total gets the sum of the whole block.
 * Every thread of the block must call it: it has barriers. */
static __device__ int block_scan(int v, int *total)
{
    __shared__ int warp_tot[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;

    v = warp_scan(v, lane);
    if (lane == 31)
        warp_tot[warp] = v;
    /* Warp 0 reads every warp's total: all of them must be written. */
    __syncthreads();
    if (warp == 0) {
        int t = lane < warps ? warp_tot[lane] : 0;
        t = warp_scan(t, lane);
        if (lane < warps)
            warp_tot[lane] = t;
    }
    __syncthreads();
    if (warp > 0)
        v += warp_tot[warp - 1];
    *total = warp_tot[warps - 1];
    /* The next call writes warp_tot again: everyone must have read it. */
    __syncthreads();
    return v;
}

/* This thread's share of the tile at base: ROUNDS int4s, round q's at
 * element base + 4 * (q * BLOCK + threadIdx.x), so that each round is one
 * coalesced 8 KB read by the block.  With vec (a whole tile, both buffers
 * 16-byte aligned) as int4 loads, all issued before any is used; otherwise
 * element by element, 0 past n. */
static __device__ __forceinline__ void load_tile(const int *in, unsigned n, unsigned base, bool vec, int4 *v)
{
    if (vec) {
        const int4 *in4 = (const int4 *)(in + base);
#pragma unroll
        for (int q = 0; q < ROUNDS; q++)
            v[q] = in4[q * BLOCK + threadIdx.x];
        return;
    }
#pragma unroll
    for (int q = 0; q < ROUNDS; q++) {
        unsigned e = base + 4 * (q * BLOCK + threadIdx.x);
        v[q].x = e < n ? in[e] : 0;
        v[q].y = e + 1 < n ? in[e + 1] : 0;
        v[q].z = e + 2 < n ? in[e + 2] : 0;
        v[q].w = e + 3 < n ? in[e + 3] : 0;
    }
}

/* Pass 1: sums[b] = the sum of tile b. */
__global__ void __launch_bounds__(BLOCK)
tile_sums(const int *__restrict__ in, unsigned n, int *__restrict__ sums, bool aligned)
{
    unsigned base = blockIdx.x * TILE;
    int4 v[ROUNDS];
    load_tile(in, n, base, aligned && n - base >= TILE, v);
    int s = 0;
#pragma unroll
    for (int q = 0; q < ROUNDS; q++)
        s += (v[q].x + v[q].y) + (v[q].z + v[q].w);
    int total;
    block_scan(s, &total);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = total;
}

/* Pass 2, one block: sums[b] becomes the sum of tiles 0 .. b-1.  Each thread
 * takes a run of consecutive tiles, adds them up, learns from the block scan
 * what the runs before it hold, and walks its run again. */
__global__ void __launch_bounds__(SUMS_BLOCK)
scan_sums(int *sums, unsigned count)
{
    unsigned per = (count + SUMS_BLOCK - 1) / SUMS_BLOCK;
    unsigned lo = threadIdx.x * per, hi = lo + per < count ? lo + per : count;
    int s = 0, total;
    for (unsigned i = lo; i < hi; i++)
        s += sums[i];
    int run = block_scan(s, &total) - s;
    for (unsigned i = lo; i < hi; i++) {
        int x = sums[i];
        sums[i] = run;
        run += x;
    }
}

/* Pass 3: the tile's prefixes, from its offset (0 without pass 2). */
__global__ void __launch_bounds__(BLOCK)
scan_tiles(const int *__restrict__ in, int *__restrict__ out, unsigned n, const int *__restrict__ offsets,
           bool aligned)
{
    unsigned base = blockIdx.x * TILE;
    bool vec = aligned && n - base >= TILE;
    int4 v[ROUNDS];
    load_tile(in, n, base, vec, v);
    int carry = offsets ? offsets[blockIdx.x] : 0;

#pragma unroll
    for (int q = 0; q < ROUNDS; q++) {
        /* The thread's four elements first, then the block: what the
         * threads before this one hold comes to incl - v[q].w. */
        v[q].y += v[q].x;
        v[q].z += v[q].y;
        v[q].w += v[q].z;
        int total, incl = block_scan(v[q].w, &total);
        int before = carry + (incl - v[q].w);
        v[q].x += before;
        v[q].y += before;
        v[q].z += before;
        v[q].w += before;
        carry += total;

        unsigned e = base + 4 * (q * BLOCK + threadIdx.x);
        if (aligned && e < n) {
            /* A whole int4 whenever its first element is inside: up to
             * three ints past the end of d_out in the last tile. */
            ((int4 *)(out + base))[q * BLOCK + threadIdx.x] = v[q];
        } else {
            if (e < n)
                out[e] = v[q].x;
            if (e + 1 < n)
                out[e + 1] = v[q].y;
            if (e + 2 < n)
                out[e + 2] = v[q].z;
            if (e + 3 < n)
                out[e + 3] = v[q].w;
        }
    }
}

extern "C" void lab_scan(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    unsigned tiles = (n + TILE - 1) / TILE;
    int *sums = (int *)d_scratch;       /* tiles ints: far below LAB_SCRATCH_BYTES(n) */
    /* int4 loads and stores need 16-byte alignment; the whole tiles of an
     * aligned pair of buffers get them. */
    bool aligned = ((uintptr_t)d_in % 16 == 0) && ((uintptr_t)d_out % 16 == 0);

    if (n == 0)
        return;
    if (tiles == 1) {
        /* One tile: no other tile comes before it. */
        scan_tiles<<<1, BLOCK, 0, s>>>(d_in, d_out, n, NULL, aligned);
        return;
    }
    tile_sums<<<tiles, BLOCK, 0, s>>>(d_in, n, sums, aligned);
    scan_sums<<<1, SUMS_BLOCK, 0, s>>>(sums, tiles);
    scan_tiles<<<tiles, BLOCK, 0, s>>>(d_in, d_out, n, sums, aligned);
}
