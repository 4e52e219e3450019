/* hx_poison.cuh — fresh random bits over whole device allocations before a
 * call, and the check after it that the bytes outside the result are still
 * those bits.
 *
 * Every byte of an output or scratch allocation gets bits drawn under a key
 * from the operating system (poison_bits), new for every call: nothing a
 * kernel left there before survives into the next call, so a memo of an
 * earlier result kept in the spare bytes of d_out or in scratch is gone,
 * and nothing written there can be predicted.  The bytes of an output
 * allocation that are not the result must hold the same bits after the
 * call: a kernel that writes there (to keep a memo for later, or past the
 * end of its result) is caught.  Byte b of a fill under key is byte b % 8
 * of mix(key + (b / 8) * golden): the host works any byte out alone
 * (tests/unit/test_judge_inputs.cu).
 *
 * A header of static functions and kernels: each family's translation unit
 * gets its own copy, and the judge's core (owned elsewhere) is unchanged.
 */
#ifndef HX_POISON_CUH
#define HX_POISON_CUH

#include <string.h>

#include "hx.h"

namespace hx {

enum { POISON_THREADS = 256 };

/* The 8 bytes of word w of a fill under key. */
__host__ __device__ static inline uint64_t poison_word(uint64_t key, unsigned long long w)
{
    return mix(key + w * 0x9e3779b97f4a7c15ull);
}

/* Byte b of a fill under key. */
__host__ __device__ static inline uint8_t poison_byte(uint64_t key, unsigned long long b)
{
    return (uint8_t)(poison_word(key, b >> 3) >> (8 * (b & 7)));
}

/* What one check found: bytes changed, and the first of them. */
struct poison_res {
    unsigned long long bad, first;
};

/* Where poison_check counts, in the judge's own module.  External linkage
 * (a judge holds one family, so one definition): a static variable's
 * device name carries a hash of its compilation, which the CPU judge's PTX,
 * compiled apart, does not share, and the emulating runtime finds a judge
 * variable by that name. */
__device__ struct poison_res poison_found;

/* Whether whole words may be stored and loaded at any byte: on the host,
 * little-endian (byte k of a word is its bits 8k to 8k+7, as a fill's
 * bytes are), through memcpy; on the device only where p is 8-byte
 * aligned. */
#if !defined(__CUDA_ARCH__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define POISON_ANY_ALIGN 1
#else
#define POISON_ANY_ALIGN 0
#endif

/* Thread t of stride's share of a fill of p[0, bytes) under key, word by
 * word (each word's bits worked out once): whole words where p is 8-byte
 * aligned (the allocations are) or the host may store them at any byte,
 * its bytes one by one elsewhere (an input's tail past an odd n on the
 * device) and in the last, partial word.  The kernel runs it on the
 * device, a CPU judge once as thread 0 of 1, the unit test for every
 * thread of a grid on the host. */
__host__ __device__ static inline void poison_fill_part(uint8_t *p, unsigned long long bytes, uint64_t key,
                                                        unsigned long long t, unsigned long long stride)
{
    int aligned = POISON_ANY_ALIGN || (uintptr_t)p % 8 == 0;
    for (unsigned long long w = t; w < (bytes + 7) / 8; w += stride) {
        uint64_t v = poison_word(key, w);
        unsigned long long lo = w * 8;
        if (aligned && lo + 8 <= bytes) {
#if POISON_ANY_ALIGN
            memcpy(p + lo, &v, 8);
#else
            ((uint64_t *)p)[w] = v;
#endif
            continue;
        }
        for (unsigned long long b = lo; b < lo + 8 && b < bytes; b++)
            p[b] = (uint8_t)(v >> (8 * (b - lo)));
    }
}

/* Thread t of stride's share of a check: the bytes of p[0, bytes) outside
 * [keep_lo, keep_hi) that differ from a fill under key, counted into *bad,
 * the first of them into *first.  A word inside [keep_lo, keep_hi) has
 * nothing to check; one outside it that holds the fill's word is passed
 * whole. */
__host__ __device__ static inline void poison_check_part(const uint8_t *p, unsigned long long bytes, uint64_t key,
                                                         unsigned long long keep_lo, unsigned long long keep_hi,
                                                         unsigned long long t, unsigned long long stride,
                                                         unsigned long long *bad, unsigned long long *first)
{
#if !POISON_ANY_ALIGN
    int aligned = (uintptr_t)p % 8 == 0;
#endif
    for (unsigned long long w = t; w < (bytes + 7) / 8; w += stride) {
#if POISON_ANY_ALIGN
        unsigned long long lo = w * 8, hi = lo + 8 < bytes ? lo + 8 : bytes;
        if (lo >= keep_lo && hi <= keep_hi)
            continue;
        uint64_t v = poison_word(key, w), now;
        if (hi == lo + 8 && (hi <= keep_lo || lo >= keep_hi) && (memcpy(&now, p + lo, 8), now == v))
            continue;
#else
        uint64_t v = poison_word(key, w);
        unsigned long long lo = w * 8, hi = lo + 8 < bytes ? lo + 8 : bytes;
        if (aligned && hi == lo + 8 && (hi <= keep_lo || lo >= keep_hi) && ((const uint64_t *)p)[w] == v)
            continue;
#endif
        for (unsigned long long b = lo; b < hi; b++)
            if ((b < keep_lo || b >= keep_hi) && p[b] != (uint8_t)(v >> (8 * (b - lo)))) {
                if (*bad == 0 || b < *first)
                    *first = b;
                ++*bad;
            }
    }
}

static __global__ void poison_fill_kernel(uint8_t *p, unsigned long long bytes, uint64_t key)
{
    poison_fill_part(p, bytes, key, blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x,
                     (unsigned long long)gridDim.x * blockDim.x);
}

/* One atomic per thread that found a changed byte (only a kernel that
 * wrote there pays for them). */
static __global__ void poison_check_kernel(const uint8_t *p, unsigned long long bytes, uint64_t key,
                                           unsigned long long keep_lo, unsigned long long keep_hi)
{
    unsigned long long bad = 0, first = 0;
    poison_check_part(p, bytes, key, keep_lo, keep_hi, blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x,
                      (unsigned long long)gridDim.x * blockDim.x, &bad, &first);
    if (bad) {
        atomicAdd(&poison_found.bad, bad);
        atomicMin(&poison_found.first, first);
    }
}

/* The grid for a fill or check of bytes: enough blocks to cover it in a few
 * strides, at most 1024. */
static inline int poison_grid(unsigned long long bytes)
{
    unsigned long long blocks = (bytes / 8 + POISON_THREADS - 1) / POISON_THREADS;
    return blocks < 1 ? 1 : blocks > 1024 ? 1024 : (int)blocks;
}

/* Fills p[0, bytes) with bits under key on c's stream; -1 after a CUDA
 * error (recorded).  On the emulator (the CPU judges), device memory is
 * the host's and its stream runs in order as it is called: the same fill
 * and check run natively there, the same bytes at a hundredth of the cost
 * of emulating them (they were four fifths of lab 01's judge). */
static inline int poison_fill(struct ctx *c, void *p, unsigned long long bytes, uint64_t key)
{
    if (bytes == 0)
        return 0;
    if (c->r->emulated) {
        poison_fill_part((uint8_t *)p, bytes, key, 0, 1);
        return 0;
    }
    poison_fill_kernel<<<poison_grid(bytes), POISON_THREADS, 0, c->s>>>((uint8_t *)p, bytes, key);
    HX_CHECK(cudaGetLastError());
    return 0;
}

/* After a call: the bytes of p[0, bytes) outside [keep_lo, keep_hi) that no
 * longer hold the fill under key.  Synchronises; *bad and *first (the
 * first changed byte's offset, meaningful when *bad > 0) are set; -1 after
 * a CUDA error. */
static inline int poison_check(struct ctx *c, const void *p, unsigned long long bytes, uint64_t key,
                               unsigned long long keep_lo, unsigned long long keep_hi, unsigned long long *bad,
                               unsigned long long *first)
{
    struct poison_res r = {0, ~0ull};
    if (c->r->emulated) {
        HX_CHECK(cudaStreamSynchronize(c->s));
        *bad = 0;
        *first = ~0ull;
        poison_check_part((const uint8_t *)p, bytes, key, keep_lo, keep_hi, 0, 1, bad, first);
        return 0;
    }
    HX_CHECK(cudaMemcpyToSymbolAsync(poison_found, &r, sizeof r, 0, cudaMemcpyHostToDevice, c->s));
    if (bytes > 0) {
        poison_check_kernel<<<poison_grid(bytes), POISON_THREADS, 0, c->s>>>((const uint8_t *)p, bytes, key, keep_lo,
                                                                            keep_hi);
        HX_CHECK(cudaGetLastError());
    }
    HX_CHECK(cudaMemcpyFromSymbolAsync(&r, poison_found, sizeof r, 0, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));
    *bad = r.bad;
    *first = r.first;
    return 0;
}

/* An output that moves: the result lives at one of the OUT_ARENA / 256
 * 256-byte-aligned places of an arena, all of which is poisoned before a
 * call and checked after it.  A call of a check (a trial, each repeat of a
 * deterministic lab) gets a place drawn afresh; a timed case keeps one for
 * all its samples, so that their plans stay the same.  On a GPU the arena
 * is 2 MiB, the driver's page of device memory: an allocation that large is
 * mapped on its own, so no slack of a smaller allocation, which nobody
 * poisons, shares the result's page.  On the emulator every allocation is
 * exactly its size (a byte past it is a fault), so 64 KiB give the result
 * its 256 places at a thirty-second of the poison's cost. */
enum { OUT_ARENA = 2 * 1024 * 1024, OUT_ARENA_EMULATED = 64 * 1024, OUT_ALIGN = 256 };

struct moving_out {
    uint8_t *arena;             /* bytes of it: OUT_ARENA, or OUT_ARENA_EMULATED */
    unsigned long long bytes;
    unsigned long long at;      /* the result's offset in it */
    unsigned long long size;    /* the result's bytes */
    uint64_t key;               /* the last fill's */
};

static inline int moving_out_setup(struct ctx *c, struct moving_out *m, unsigned long long size)
{
    m->size = size;
    m->at = 0;
    m->bytes = c->r->emulated ? OUT_ARENA_EMULATED : OUT_ARENA;
    HX_CHECK(cudaMalloc(&m->arena, m->bytes));
    return 0;
}

/* The result's place now. */
static inline void *moving_out_ptr(const struct moving_out *m)
{
    return m->arena + m->at;
}

/* A new place for the result, not the one it had (when there is another). */
static inline void moving_out_move(struct moving_out *m)
{
    unsigned long long places = m->bytes / OUT_ALIGN;
    unsigned long long to = below(poison_bits(), (uint32_t)(places - 1));
    m->at = (to >= m->at / OUT_ALIGN ? to + 1 : to) * OUT_ALIGN;
}

/* Fresh bits over the whole arena. */
static inline int moving_out_poison(struct ctx *c, struct moving_out *m)
{
    m->key = poison_bits();
    return poison_fill(c, m->arena, m->bytes, m->key);
}

/* 1 when every byte of the arena outside the result holds its poison; 0
 * when not, with msg saying where (as an offset from d_out); -1 after a
 * CUDA error. */
static inline int moving_out_intact(struct ctx *c, const struct moving_out *m, char *msg, size_t len)
{
    unsigned long long bad, first;
    if (poison_check(c, m->arena, m->bytes, m->key, m->at, m->at + m->size, &bad, &first))
        return -1;
    if (bad == 0)
        return 1;
    snprintf(msg, len, "the call wrote outside its result: %llu byte(s) around it in d_out's allocation "
             "changed, the first at d_out%+lld bytes (only the result's %llu may be written)",
             bad, (long long)first - (long long)m->at, m->size);
    return 0;
}

} /* namespace hx */

#endif /* HX_POISON_CUH */
