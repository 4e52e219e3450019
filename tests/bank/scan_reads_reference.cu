// bank: lab=13 expect=fail cpu=runtime_error
// why: never scans: finds the judge's reference scan d_ref in device memory (one allocation stride past d_out, from the pointers it is given) and copies it, patching in the sample's few changed elements (pygpubench's gc_copy, copying the expected output, done from the device); while the judge kept d_ref there during every call this passed on the H100 (0.49x CUB at 2^28, its target missed: correctness credit without a scan); the judge now scrubs d_ref, CUB's temporary storage and the marks before every call and makes the reference again after it, so the kernel reads a constant, finds no changes it can use, and leaves the poison: fail
/* The lab's solution with its launcher replaced.  Its kernels stay in the
 * file and are never launched: the technique check reads the PTX, not the
 * plan, so they keep "shuffle up" and "block barrier" in it, as a cheater
 * would keep them.
 *
 * Where the reference is.  The judge allocates d_in (max_n ints), d_out
 * (max_n + 64) and d_ref (max_n) one after another (tutor/harness/
 * hx_fam_scan.cu, sc_setup), and cudaMalloc hands allocations that large
 * out at a fixed stride, so d_ref is as far from d_out as d_out is from
 * d_in (on the H100 with CUDA 13: 1 GiB apart, each below the last; the
 * launcher printed the pointers).  The launcher sees the pointers as
 * numbers and n, so it computes that place; the kernels take it as the
 * distance back from d_scratch, an integer, not as a pointer.
 *
 * What it reads.  d_ref[i] - d_ref[i-1] is what the judge generated at i; a
 * trial's input is exactly that, a timed sample's differs at a few places
 * (hx_fam_scan.cu, sc_prepare).  find_changes lists them (at most CAP) in
 * d_scratch; copy_reference writes d_ref[i] plus the deltas at or before i.
 * Three reads and a write of n ints against a scan's one and one: slow
 * (today: pass, target missed), but no scan at all.  If the list
 * overflows, the span did not lead to the reference: d_out keeps its poison
 * and the check fails, naming it. */
#include <stdio.h>

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
        if (vec) {
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

/* ---- the cheat ------------------------------------------------------------- */

#define CAP 64                          /* changed elements listed, at most */
#define CHEAT_BLOCK 256
#define CHEAT_GRID 1024

/* In d_scratch: the elements where d_in differs from what d_ref says the
 * judge generated. */
struct changes {
    unsigned count;
    unsigned idx[CAP];
    int delta[CAP];
};

/* The judge's reference, span bytes before d_scratch; NULL when the
 * launcher found the layout unlike the judge's. */
static __device__ __forceinline__ const int *reference_at(const char *scratch, unsigned long long span)
{
    return span ? (const int *)(scratch - span) : NULL;
}

__global__ void find_changes(const int *in, const char *scratch, unsigned long long span, unsigned n,
                             struct changes *ch)
{
    const int *ref = reference_at(scratch, span);
    if (!ref) {
        if (blockIdx.x == 0 && threadIdx.x == 0)
            ch->count = CAP + 1;
        return;
    }
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int generated = ref[i] - (i ? ref[i - 1] : 0);
        if (in[i] != generated) {
            if (*(volatile unsigned *)&ch->count > CAP)
                return;                 /* not the reference: stop counting */
            unsigned m = atomicAdd(&ch->count, 1u);
            if (m < CAP) {
                ch->idx[m] = i;
                ch->delta[m] = in[i] - generated;
            }
        }
    }
}

__global__ void copy_reference(const char *scratch, unsigned long long span, unsigned n,
                               const struct changes *ch, int *out)
{
    __shared__ unsigned s_idx[CAP];
    __shared__ int s_delta[CAP];
    const int *ref = reference_at(scratch, span);
    unsigned count = ch->count;

    if (count > CAP) {
        if (blockIdx.x == 0 && threadIdx.x == 0)
            printf("scan_reads_reference: no copy of the judge's reference %llu bytes before d_scratch; "
                   "d_out keeps its poison\n", span);
        return;
    }
    for (unsigned m = threadIdx.x; m < count; m += blockDim.x) {
        s_idx[m] = ch->idx[m];
        s_delta[m] = ch->delta[m];
    }
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int v = ref[i];
        for (unsigned m = 0; m < count; m++)
            if (s_idx[m] <= i)
                v += s_delta[m];
        out[i] = v;
    }
}

extern "C" void lab_scan(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    uintptr_t in = (uintptr_t)d_in, out = (uintptr_t)d_out, scratch = (uintptr_t)d_scratch;
    /* d_ref one stride past d_out, the stride d_out - d_in (modulo 2^64,
     * so it holds whichever way the allocations go). */
    uintptr_t ref = out + (out - in);
    unsigned long long span = scratch - ref;
    struct changes *ch = (struct changes *)d_scratch;
    unsigned blocks = (n + CHEAT_BLOCK - 1) / CHEAT_BLOCK;
    if (blocks > CHEAT_GRID)
        blocks = CHEAT_GRID;

    cudaMemsetAsync(ch, 0, sizeof ch->count, s);
    find_changes<<<blocks, CHEAT_BLOCK, 0, s>>>(d_in, (const char *)d_scratch, span, n, ch);
    copy_reference<<<blocks, CHEAT_BLOCK, 0, s>>>((const char *)d_scratch, span, n, ch, d_out);
}
