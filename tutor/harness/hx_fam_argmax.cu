/* hx_fam_argmax.cu — family argmax (lab 11): the largest float of an array
 * and the first index where it occurs, as one 64-bit key (lab.h,
 * lab_argmax_key).
 *
 * Inputs (hx_argmax.cuh) sit on a ladder of levels, so the maximum occurs
 * many times and only its first index is right; the levels are floats of
 * every exponent and both signs, or all negative, or subnormals around
 * +0.0, or a few ulps apart; two in three inputs have rare "peaks" above
 * everything else at random places.  The check is exact: the key must
 * equal the expected one.  The output is poisoned with random bits from
 * the operating system before every call, and every other byte of its
 * allocation and of the scratch with fresh bits (d_out is 8 bytes at a
 * place of a 2 MiB arena, drawn afresh for every trial: hx_poison.cuh);
 * the bytes around the result must be unchanged after the call.
 *
 * Every timed sample changes one element first (a new maximum somewhere, or
 * a copy of the maximum before its first index: hx_argmax.cuh, am_change)
 * and its key is checked after the second event, and the arena around it;
 * the element is put back after the check, the input is checked unchanged
 * after the student's last sample and generated afresh before the
 * reference, CUB's DeviceReduce::ArgMax, is timed on it (it keeps the
 * first index of ties too).
 */
#include <stdio.h>
#include <string.h>

#include "hx_argmax.cuh"
#include "hx_core.cuh"
#include "hx_cub.h"
#include "hx_poison.cuh"

namespace hx {

/* Element i of the input g describes. */
struct am_want {
    agen g;
    __host__ __device__ float operator()(unsigned long long i) const { return am_value(g, i); }
};

static struct {
    float *d_in;
    unsigned long long *d_out;          /* out's place now */
    struct moving_out out;
    void *d_scratch, *d_cub;
    size_t scratch_bytes, cub_bytes;
    float *d_ref_max;                   /* CUB's outputs */
    int64_t *d_ref_idx;
    unsigned long long *d_bad;          /* [0] count, [1] first index */
    int grid;
    unsigned long long last_poison;
} af;

static int am_generate(struct ctx *c, const agen &g)
{
    return input_generate(c, "am_fill", af.grid, 256, af.d_in, g.n, am_want{g});
}

/* Fresh random bits in *d_out (never the answer), in the rest of its
 * arena and in the scratch: all of it (whole) or the part a call of n may
 * use (a timed sample). */
static int am_poison(struct ctx *c, unsigned long long n, unsigned long long want, int whole)
{
    static unsigned long long p;        /* static: the async copy reads it later */
    do
        p = poison_bits();
    while (p == want);
    af.last_poison = p;
    if (moving_out_poison(c, &af.out))
        return -1;
    HX_CHECK(cudaMemcpyAsync(af.d_out, &p, sizeof p, cudaMemcpyHostToDevice, c->s));
    size_t sb = LAB_SCRATCH_BYTES(n);
    return poison_fill(c, af.d_scratch, whole || sb > af.scratch_bytes ? af.scratch_bytes : sb, poison_bits());
}

/* The result at a new place of its arena. */
static void am_move(void)
{
    moving_out_move(&af.out);
    af.d_out = (unsigned long long *)moving_out_ptr(&af.out);
}

/* The input against what am_generate wrote. */
static struct input_diff am_changed(struct ctx *c, const agen &g)
{
    return input_changed(c, "am_compare", af.grid, 256, af.d_bad, af.d_in, g.n, am_want{g});
}

/* A key in words: "3.5 at index 17". */
static void am_show(char *buf, size_t len, unsigned long long key)
{
    snprintf(buf, len, "%.9g at index %u", (double)lab_argmax_value(key), lab_argmax_index(key));
}

/* Why got is not want, in the student's terms.  cur(i) is element i as the
 * call saw it (for the message about a key that names the wrong value). */
static void am_explain(char *buf, size_t len, const agen &g, unsigned long long want, unsigned long long got,
                       unsigned long long poison, float (*cur)(const agen &, unsigned long long, const void *),
                       const void *arg)
{
    float wv = lab_argmax_value(want), gv = lab_argmax_value(got);
    unsigned wi = lab_argmax_index(want), gi = lab_argmax_index(got);
    if (got == poison) {
        snprintf(buf, len, "d_out was never written: it still holds the poison value");
    } else if (gi >= g.n) {
        snprintf(buf, len, "the key names index %u, past the end (n = %llu)", gi, g.n);
    } else if (cur(g, gi, arg) != gv) {
        snprintf(buf, len, "the key says %.9g at index %u, but d_in[%u] is %.9g: the value and the index "
                 "come from different elements", (double)gv, gi, gi, (double)cur(g, gi, arg));
    } else if (gv == wv && gi > wi) {
        snprintf(buf, len, "the maximum is right, but index %u is not its first: it occurs at %u already "
                 "(ties go to the smallest index)", gi, wi);
    } else if (gv < wv) {
        snprintf(buf, len, "%.9g is not the maximum: d_in[%u] = %.9g is larger", (double)gv, wi, (double)wv);
    } else {
        snprintf(buf, len, "wrong key 0x%016llx", got);
    }
}

static float am_generated(const agen &g, unsigned long long i, const void *) { return am_value(g, i); }

static int am_setup(struct ctx *c, unsigned long long max_n)
{
    af.scratch_bytes = LAB_SCRATCH_BYTES(max_n);
    af.grid = c->r->dev.sms * 8;
    HX_CHECK(cudaMalloc(&af.d_in, max_n * sizeof(float)));
    if (moving_out_setup(c, &af.out, sizeof(unsigned long long)))
        return -1;
    af.d_out = (unsigned long long *)moving_out_ptr(&af.out);
    HX_CHECK(cudaMalloc(&af.d_scratch, af.scratch_bytes));
    HX_CHECK(cudaMalloc(&af.d_ref_max, sizeof(float)));
    HX_CHECK(cudaMalloc(&af.d_ref_idx, sizeof(int64_t)));
    HX_CHECK(cudaMalloc(&af.d_bad, 2 * sizeof(unsigned long long)));
    HX_CHECK(hx_cub_argmax(NULL, af.cub_bytes, af.d_in, af.d_ref_max, af.d_ref_idx,
                           (int64_t)max_n, c->s));
    HX_CHECK(cudaMalloc(&af.d_cub, af.cub_bytes));
    return 0;
}

static void am_teardown(struct ctx *)
{
    device_free({af.d_in, af.out.arena, af.d_scratch, af.d_ref_max, af.d_ref_idx, af.d_bad, af.d_cub});
}

static struct call am_call_of(const struct ctx *c, unsigned long long n)
{
    return call_make(c, FAMILY_ARGMAX, (unsigned)n, af.d_in, af.d_out, af.d_scratch, NULL);
}

static int am_trial(struct ctx *c, unsigned long long n, int k, struct test *t)
{
    agen g = am_make(c->o->seed, 1 + (uint64_t)k, n);
    aanswer a = am_answer(g);
    unsigned long long want = am_key(g, a), got;

    am_move();
    if (am_generate(c, g) || am_poison(c, n, want, 1))
        return -1;
    struct call call = am_call_of(c, n);
    if (student_run(c, &call))
        return -1;
    HX_CHECK(cudaGetLastError());
    HX_CHECK(cudaMemcpyAsync(&got, af.d_out, sizeof got, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));

    am_show(t->expected, sizeof t->expected, want);
    if (got == af.last_poison)
        snprintf(t->got, sizeof t->got, "0x%016llx (the poison)", got);
    else
        am_show(t->got, sizeof t->got, got);
    if (got != want) {
        char why[200];
        am_explain(why, sizeof why, g, want, got, af.last_poison, am_generated, NULL);
        test_fail(t, "%s", why);
        return 0;
    }
    char around[200];
    int whole = moving_out_intact(c, &af.out, around, sizeof around);
    if (whole <= 0) {
        if (whole == 0)
            test_fail(t, "%s", around);
        return whole;
    }
    return input_verdict_test(am_changed(c, g), INPUT_CALLED, &input_array, t) < 0 ? -1 : 0;
}

/* ---- timing ---- */

struct arun {
    struct ctx *c;
    agen g;
    aanswer want;               /* of the input as generated */
    aanswer now;                /* of this sample's input */
    achange change;
    float old_v;
    int reference;              /* 1: time CUB instead of the student */
    struct call call;
    struct plan plan, first;
    int have_first;
};

/* Element i as this sample's call saw it: the changed one, or generated. */
static float am_current(const agen &g, unsigned long long i, const void *arg)
{
    const struct arun *r = (const struct arun *)arg;
    return i == r->change.idx ? am_value_of(g, r->change.level) : am_value(g, i);
}

static int am_prepare(void *arg, int k)
{
    struct arun *r = (struct arun *)arg;
    static float v;             /* static: the async copy reads it later */
    r->now = am_change(r->g, r->want, (uint64_t)k, &r->change);
    r->old_v = am_value(r->g, r->change.idx);
    v = am_value_of(r->g, r->change.level);
    HX_CHECK(cudaMemcpyAsync(af.d_in + r->change.idx, &v, sizeof v, cudaMemcpyHostToDevice, r->c->s));
    if (!r->reference && plan_sample(r->c, &r->call, &r->plan, &r->first, &r->have_first))
        return -1;
    return am_poison(r->c, r->g.n, am_key(r->g, r->now), 0);
}

static int am_call(void *arg)
{
    struct arun *r = (struct arun *)arg;
    if (r->reference)
        HX_CHECK(hx_cub_argmax(af.d_cub, af.cub_bytes, af.d_in, af.d_ref_max, af.d_ref_idx,
                               (int64_t)r->g.n, r->c->s));
    else if (student_replay(r->c, &r->plan))
        return -1;
    return 0;
}

static int am_verify(void *arg, int k, char *msg, size_t len)
{
    struct arun *r = (struct arun *)arg;
    unsigned long long want = am_key(r->g, r->now), got;
    if (r->reference) {
        float m;
        int64_t i;
        HX_CHECK(cudaMemcpy(&m, af.d_ref_max, sizeof m, cudaMemcpyDeviceToHost));
        HX_CHECK(cudaMemcpy(&i, af.d_ref_idx, sizeof i, cudaMemcpyDeviceToHost));
        got = lab_argmax_key(m, (unsigned)i);
    } else {
        HX_CHECK(cudaMemcpy(&got, af.d_out, sizeof got, cudaMemcpyDeviceToHost));
    }
    float old_v = r->old_v;
    HX_CHECK(cudaMemcpy(af.d_in + r->change.idx, &old_v, sizeof old_v, cudaMemcpyHostToDevice));
    char e[64], why[200];
    int whole = moving_out_intact(r->c, &af.out, why, sizeof why);
    if (whole <= 0) {
        if (whole == 0)
            snprintf(msg, len, "%s sample %d: %s", r->reference ? "the reference" : "timed", k, why);
        return whole;
    }
    if (got == want)
        return 1;
    am_show(e, sizeof e, want);
    am_explain(why, sizeof why, r->g, want, got, r->reference ? ~got : af.last_poison, am_current, r);
    snprintf(msg, len, "%s sample %d (d_in[%llu] changed since the last call): expected %s; %s",
             r->reference ? "the reference" : "timed", k, r->change.idx, e, why);
    return 0;
}

/* Each verify put its element back: the input as generated (input_afresh). */
static int am_between(void *arg, char *msg, size_t len)
{
    struct arun *r = (struct arun *)arg;
    return input_afresh(am_changed(r->c, r->g), [r] { return am_generate(r->c, r->g); }, msg, len);
}

static int am_timed(struct ctx *c, const struct perf_case *pc, struct perf *p)
{
    struct test *t = &c->r->tests[c->r->ntests];
    static struct arun r;       /* static: large (two plans) */
    int rc;

    memset(&r, 0, sizeof r);
    r.c = c;
    r.g = am_make(c->o->seed, case_salt(pc), pc->n);
    r.want = am_answer(r.g);
    am_move();                  /* one place for all the samples: their plans must agree */
    r.call = am_call_of(c, pc->n);
    struct timed tm = {am_prepare, am_call, am_verify, &r, &r.reference, NULL, am_between};

    if (am_generate(c, r.g))
        return -1;
    if ((rc = measure_both(c, &tm, p, t)) != 0)
        return rc < 0 ? -1 : 0;
    if ((rc = input_verdict_test(am_changed(c, r.g), INPUT_TIMING, &input_array, t)) <= 0)
        return rc;
    p->bytes = (double)pc->n * sizeof(float);
    p->rate_unit = "Gfloat/s";
    perf_finish(c, &family_impl, p, (double)pc->n);
    return 0;
}

static int am_profile(struct ctx *c, unsigned long long n)
{
    agen g = am_make(c->o->seed, 4242, n);
    if (am_generate(c, g) || am_poison(c, n, am_key(g, am_answer(g)), 1))
        return -1;
    HX_CHECK(cudaStreamSynchronize(c->s));
    struct call call = am_call_of(c, n);
    return student_profile(c, &call);
}

const struct family family_impl = {FAMILY_ARGMAX, "CUB DeviceReduce::ArgMax", 0, 0, am_setup,
                                   am_trial, am_timed, am_profile, am_teardown, NULL, 0, NULL};

} /* namespace hx */
