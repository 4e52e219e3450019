/* hx_core.cuh — what every family's judge does alike, written once: the
 * input generated from a functor of the index and compared with it bit for
 * bit after a call, the one sentence of an input a call changed (a family
 * gives only what it counts and how it places the first), the input made
 * afresh for the reference, the "internal:" note of a judge that disagreed
 * with its own CPU or met an input kind it does not know, and the freeing
 * of a family's buffers.
 *
 * A header of static functions: the families' host tests (tests/harness/)
 * include a family's source and link without hx_core.cu, whose main would
 * be theirs. */
#ifndef HX_CORE_CUH
#define HX_CORE_CUH

#include <initializer_list>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hx.h"
#include "hx_judge.cuh"

namespace hx {

/* ---- internal errors -------------------------------------------------------- */

/* The judge's own reference or check disagreed with its CPU: the harness is
 * wrong, and the run says so (an "internal:" note, internal_error), never
 * blaming the kernel.  Returns -1. */
static inline int judge_internal(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline int judge_internal(struct ctx *c, const char *fmt, ...)
{
    char what[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    note(c->r, "internal: %s", what);
    set_error_text("the judge's own check disagreed with its CPU reference (an internal error, not the kernel's)");
    return -1;
}

/* A timed case of an input kind the family does not know (the catalog's
 * fault): noted as internal, with the kinds it knows.  Returns -1. */
static inline int perf_kind_unknown(struct ctx *c, const struct perf_case *pc, const char *kinds)
{
    note(c->r, "internal: perf case %s: unknown input kind \"%s\" (%s)", pc->label, pc->input, kinds);
    return -1;
}

/* ---- the input a call must leave as generated ------------------------------ */

/* What a comparison of the input with the generated one found. */
struct input_diff {
    long long bad;                  /* elements that differ; -1 after a CUDA error (recorded) */
    unsigned long long first;       /* the first of them, as a flat index */
    unsigned long long width;       /* the family's row width, for its place words (0: none) */
};

/* A family's words for its input: what a count of changed ones counts, and
 * the first one's place ("at index 7") from its flat index and the width. */
struct input_words {
    const char *unit;
    void (*place)(char *buf, size_t len, unsigned long long first, unsigned long long width);
};

/* The place of an array's first changed element: "at index 7". */
static inline void input_place_index(char *buf, size_t len, unsigned long long first, unsigned long long)
{
    snprintf(buf, len, "at index %llu", first);
}

/* The words of an input that is one array of elements. */
static const struct input_words input_array = {"element(s)", input_place_index};

/* When the input was found changed: after a trial's call, after the
 * student's timed samples, after the reference's. */
enum input_when { INPUT_CALLED, INPUT_TIMING, INPUT_TIMING_REFERENCE };

/* The verdict on d: 1 when nothing changed, -1 after the comparison's CUDA
 * error, else 0 with the one sentence of a changed input in msg: "the input
 * was modified[ while timing[ the reference]]: K <unit> differ, the first
 * <place>". */
static inline int input_verdict(struct input_diff d, enum input_when when, const struct input_words *w, char *msg,
                                size_t len)
{
    static const char *const when_words[] = {"", " while timing", " while timing the reference"};
    char place[96];
    if (d.bad <= 0)
        return d.bad < 0 ? -1 : 1;
    w->place(place, sizeof place, d.first, d.width);
    snprintf(msg, len, "the input was modified%s: %lld %s differ, the first %s", when_words[when], d.bad, w->unit,
             place);
    return 0;
}

/* input_verdict for a test: a changed input fails t with the sentence. */
static inline int input_verdict_test(struct input_diff d, enum input_when when, const struct input_words *w,
                                     struct test *t)
{
    int rc = input_verdict(d, when, w, t->message, sizeof t->message);
    if (rc == 0)
        t->pass = 0;
    return rc;
}

/* Writes want(i) into out[i] for every i in [0, n): the input generated.
 * Want is a __host__ __device__ functor of the index. */
template <typename T, typename Want> struct input_fill_body {
    Want want;
    T *out;
    unsigned long long n;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        for (unsigned long long i = t; i < n; i += stride)
            out[i] = want(i);
    }
};

/* Generates the input out[0, n) from want: a kernel named name, of grid ×
 * threads.  -1 after a CUDA error (recorded). */
template <typename T, typename Want>
static int input_generate(struct ctx *c, const char *name, unsigned grid, unsigned threads, T *out,
                          unsigned long long n, Want want)
{
    return judge_run(c, name, grid, threads, input_fill_body<T, Want>{want, out, n}, {{out, n * sizeof(T)}});
}

/* Between the student's last timed sample and the reference's first, where
 * each sample put back what it changed: the input must be as generated (d
 * says), and the reference gets it generated afresh all the same
 * (generate(), 0 or -1).  Returns like a verify (struct timed's between). */
template <typename Generate>
static int input_afresh(struct input_diff d, Generate generate, char *msg, size_t len)
{
    int same = input_verdict(d, INPUT_TIMING, &input_array, msg, len);
    return same <= 0 ? same : generate() ? -1 : 1;
}

/* Runs body b, which judge_flags every element it finds changed into
 * d_bad[0] (the count) and d_bad[1] (the first), on d_bad reset; brings
 * both back into h.  -1 after a CUDA error (recorded). */
template <typename Body>
static int input_count_into(struct ctx *c, const char *name, unsigned grid, unsigned threads,
                            unsigned long long *d_bad, const Body &b, unsigned long long h[2])
{
    HX_CHECK(cudaMemcpyAsync(d_bad, h, 2 * sizeof *h, cudaMemcpyHostToDevice, c->s));
    if (judge_run(c, name, grid, threads, b, {{d_bad, 2 * sizeof *h}}))
        return -1;
    HX_CHECK(cudaMemcpyAsync(h, d_bad, 2 * sizeof *h, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));
    return 0;
}

/* input_count_into as a diff. */
template <typename Body>
static struct input_diff input_count(struct ctx *c, const char *name, unsigned grid, unsigned threads,
                                     unsigned long long *d_bad, const Body &b)
{
    unsigned long long h[2] = {0, ~0ull};
    struct input_diff d = {-1, 0, 0};
    if (input_count_into(c, name, grid, threads, d_bad, b, h) == 0) {
        d.bad = (long long)h[0];
        d.first = h[1];
    }
    return d;
}

/* Counts the elements of in[0, n) whose bits differ from those of want(i)
 * (bit for bit, so a NaN written over the input is caught too).  Want is a
 * __host__ __device__ functor of the index. */
template <typename T, typename Want> struct input_compare_body {
    Want want;
    const T *in;
    unsigned long long n;
    unsigned long long *bad, *first;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        static_assert(sizeof(T) == sizeof(uint32_t), "an element is compared as 32 bits");
        for (unsigned long long i = t; i < n; i += stride) {
            T w = want(i);
            uint32_t a, b;
            memcpy(&a, &w, sizeof a);
            memcpy(&b, &in[i], sizeof b);
            if (a != b)
                judge_flag(bad, first, i);
        }
    }
};

/* The input in[0, n) against want(i): a comparison kernel named name, of
 * grid × threads, counting into d_bad[0, 2). */
template <typename T, typename Want>
static struct input_diff input_changed(struct ctx *c, const char *name, unsigned grid, unsigned threads,
                                       unsigned long long *d_bad, const T *in, unsigned long long n, Want want)
{
    return input_count(c, name, grid, threads, d_bad, input_compare_body<T, Want>{want, in, n, d_bad, d_bad + 1});
}

/* ---- a family's buffers ---------------------------------------------------- */

/* Frees each device allocation (NULL ones too, as cudaFree does). */
static inline void device_free(std::initializer_list<void *> ps)
{
    for (void *p : ps)
        cudaFree(p);
}

} /* namespace hx */

#endif /* HX_CORE_CUH */
