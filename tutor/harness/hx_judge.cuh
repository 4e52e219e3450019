/* hx_judge.cuh — the judge's own kernels, one body for both judges.
 *
 * A body is a struct whose `operator()(t, stride)` is thread t's share of
 * the work when stride threads share it (a grid-stride loop): on a GPU
 * judge_run launches it as a kernel of grid × threads; in a CPU judge
 * (c->r->emulated) device memory is the host's and the stream runs in
 * order, so the same body runs natively, once, as thread 0 of 1 — the same
 * bytes as the emulated kernel at a hundredth of its cost, and the judge's
 * PTX module need not be loaded at all.  A body whose work is shared out
 * by warps (ballots across a number's limbs) cannot run as one thread; it
 * has a `host()` of its own instead, built from the same __host__
 * __device__ pieces as its device code.
 *
 * Within a body, judge_flag (a wrong element: count it, keep the smallest
 * index) and judge_add (a sum mod 2^64 across all threads) are atomics on
 * a GPU, whole warps first, and plain stores natively.
 *
 * $HX_JUDGE_CROSSCHECK (a CPU judge only, for tests/harness/native.sh)
 * runs every body both ways on the same bytes — natively, then the kernel
 * on the emulator from the judge's PTX — and a byte that differs in what
 * the call names as the body's output is an internal error naming the
 * body and the byte.
 */
#ifndef HX_JUDGE_CUH
#define HX_JUDGE_CUH

#include <initializer_list>
#include <stdlib.h>
#include <string.h>

#include "hx.h"

namespace hx {

/* One range of memory a body writes: what the cross-check compares. */
struct judge_span {
    void *p;
    size_t bytes;
};

/* A wrong element i: counted into *bad, the smallest such i into *first. */
__host__ __device__ static inline void judge_flag(unsigned long long *bad, unsigned long long *first,
                                                  unsigned long long i)
{
#ifdef __CUDA_ARCH__
    atomicAdd(bad, 1ull);
    atomicMin(first, i);
#else
    ++*bad;
    if (i < *first)
        *first = i;
#endif
}

/* *sum += v mod 2^64, v being this thread's part.  On a GPU every lane of
 * the warp must call it (the warp's parts are added by shuffles first). */
__host__ __device__ static inline void judge_add(unsigned long long *sum, unsigned long long v)
{
#ifdef __CUDA_ARCH__
    for (int d = 16; d > 0; d >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(sum, v);
#else
    *sum += v;
#endif
}

template <typename Body> static __global__ void judge_kernel(Body b)
{
    b(blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x, (unsigned long long)gridDim.x * blockDim.x);
}

/* The native run: the body's own host() where it has one, else thread 0 of 1. */
template <typename Body> static inline auto judge_host(const Body &b, int) -> decltype(b.host())
{
    return b.host();
}
template <typename Body> static inline void judge_host(const Body &b, long)
{
    b(0, 1);
}

/* Runs b natively and then as a kernel on the emulator, each on the bytes
 * outs held before; 0 when they agree, else -1 with the judge's error
 * recorded. */
template <typename Body>
static int judge_crosscheck(struct ctx *c, const char *name, unsigned grid, unsigned threads, const Body &b,
                            std::initializer_list<judge_span> outs)
{
    size_t total = 0, at = 0;
    for (const judge_span &s : outs)
        total += s.bytes;
    uint8_t *before = (uint8_t *)malloc(total + 1), *native = (uint8_t *)malloc(total + 1);
    int rc = -1;
    if (!before || !native)
        goto out;
    for (const judge_span &s : outs)
        memcpy(before + at, s.p, s.bytes), at += s.bytes;
    judge_host(b, 0);
    at = 0;
    for (const judge_span &s : outs) {
        memcpy(native + at, s.p, s.bytes);
        memcpy(s.p, before + at, s.bytes);
        at += s.bytes;
    }
    judge_kernel<<<grid, threads, 0, c->s>>>(b);
    if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(c->s) != cudaSuccess)
        goto out;
    at = 0;
    for (const judge_span &s : outs) {
        for (size_t i = 0; i < s.bytes; i++)
            if (((const uint8_t *)s.p)[i] != native[at + i]) {
                note(c->r, "internal: the judge's %s natively and on the emulator differ at byte %zu of "
                           "its output %zu", name, i, (size_t)(&s - outs.begin()));
                set_error_text("the judge's own kernel and its native twin disagree (an internal error, "
                               "not the kernel's)");
                goto out;
            }
        at += s.bytes;
    }
    rc = 0;
out:
    free(before);
    free(native);
    return rc;
}

/* Runs body b (named name, writing only outs) on c's stream: a kernel of
 * grid × threads on a GPU, natively in a CPU judge (in order: what the
 * stream held before has run).  -1 after a CUDA error (recorded). */
template <typename Body>
static int judge_run(struct ctx *c, const char *name, unsigned grid, unsigned threads, const Body &b,
                     std::initializer_list<judge_span> outs)
{
    if (c->r->emulated) {
        HX_CHECK(cudaStreamSynchronize(c->s));
        if (emu_crosscheck && emu_crosscheck())
            return judge_crosscheck(c, name, grid, threads, b, outs);
        judge_host(b, 0);
        return 0;
    }
    judge_kernel<<<grid, threads, 0, c->s>>>(b);
    HX_CHECK(cudaGetLastError());
    return 0;
}

} /* namespace hx */

#endif /* HX_JUDGE_CUH */
