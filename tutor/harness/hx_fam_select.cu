/* hx_fam_select.cu — family select (lab 12): stream compaction.  The
 * elements of d_in that lab_keep keeps (the odd ones), each once, in
 * d_out[0..*d_count) in any order.
 *
 * Inputs and the order-free check are in hx_select.cuh.  A trial checks on
 * the host: *d_count exactly, then d_out[0..count) against the survivors as
 * multisets (two keyed sums; a sort names the first element that differs
 * when they disagree), and the rest of d_out's allocation past d_out[n],
 * which must keep its poison.  It also holds the judge's GPU sums to the host's, on the
 * input as generated and on the output as written: any disagreement is the
 * judge's fault (internal_error).  Before every call d_out is filled with a
 * random byte, *d_count with random bits that are not the count, and the
 * rest of both allocations and the scratch with fresh bits (hx_poison.cuh:
 * in a trial all of them, *d_count at a new place of its 2 MiB arena; in
 * a timed sample the GUARD ints past d_out[n], the count's arena and the
 * scratch a call of n may use); what is not an output must be unchanged
 * after the call.
 *
 * Every timed sample changes one element first (kept or not, or its value:
 * hx_select.cuh, sel_change), and after the second event the count and the
 * GPU's keyed sums of d_out[0..count) are compared with the generated
 * input's sums, worked out once per case on the GPU under keys drawn then,
 * and moved by the change on the host; the guard and the count's arena too.  Then the element is
 * put back; the input is checked unchanged after the student's last sample
 * and generated afresh before the reference, CUB's DeviceSelect::If with
 * the same predicate (which also keeps the order), is timed on it.
 */
#include <algorithm>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "hx_core.cuh"
#include "hx_cub.h"
#include "hx_poison.cuh"
#include "hx_select.cuh"

namespace hx {

enum { GUARD = 64, SEL_THREADS = 256 };

/* Element i of the input g describes. */
struct sel_want {
    sgen g;
    __host__ __device__ int operator()(unsigned long long i) const { return sel_value(g, i); }
};

/* Adds a thread's share of a print into *out (judge_add: every thread
 * calls it). */
__host__ __device__ static inline void sel_merge(const sprint &mine, sprint *out)
{
    judge_add(&out->count, mine.count);
    judge_add((unsigned long long *)&out->sum[0], (unsigned long long)mine.sum[0]);
    judge_add((unsigned long long *)&out->sum[1], (unsigned long long)mine.sum[1]);
}

/* The print of the survivors of the input as generated (gen), from the
 * generator, never from d_in, which the student's code could have
 * touched; or of d_out[0..count) (no gen). */
struct sel_print_body {
    sgen g;
    const int *d_out;
    unsigned long long count;
    uint64_t k0, k1;
    sprint *out;
    int gen;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        const uint64_t key[2] = {k0, k1};
        sprint mine = {0, {0, 0}};
        unsigned long long n = gen ? g.n : count;
        for (unsigned long long i = t; i < n; i += stride) {
            int x = gen ? sel_value(g, i) : d_out[i];
            if (!gen || lab_keep(x))
                sel_add(&mine, key, x);
        }
        sel_merge(mine, out);
    }
};

static struct {
    int *d_in, *d_out;                  /* d_out: cap + GUARD ints */
    unsigned long long cap;
    unsigned *d_count;                  /* count's place now */
    struct moving_out count;
    uint64_t tail_key;                  /* the bits past d_out[n] */
    void *d_scratch, *d_cub;
    size_t scratch_bytes, cub_bytes;
    sprint *d_print;
    unsigned long long *d_bad;
    int grid;
    unsigned last_count_poison;
    int last_out_poison;
    std::vector<int> want, got;         /* host copies for the trials */
} sf;

/* The judge's own check disagreed with its host reference. */
static int sel_internal(struct ctx *c, const char *what, unsigned long long n)
{
    return judge_internal(c, "the judge's GPU sums disagreed with the host's on %s (trial n=%llu)", what, n);
}

static int sel_generate(struct ctx *c, const sgen &g)
{
    return input_generate(c, "sel_fill", sf.grid, 256, sf.d_in, g.n, sel_want{g});
}

/* Bytes of d_out's allocation past d_out[n]. */
static unsigned long long sel_tail_bytes(unsigned long long n)
{
    return (sf.cap + GUARD - n) * sizeof(int);
}

/* d_out to a random byte, past its end fresh bits (all of the allocation,
 * or the guard: whole or not), *d_count to random bits that are not the
 * count and the rest of its arena to fresh bits, the scratch to fresh bits
 * (all of it, or what a call of n may use). */
static int sel_poison(struct ctx *c, unsigned long long n, unsigned long long count, int whole)
{
    static unsigned cp;
    uint64_t bits = poison_bits();
    int byte = (int)(bits & 0xff);
    cp = (unsigned)(bits >> 32);
    if (cp == count)
        cp = ~cp;
    sf.last_count_poison = cp;
    sf.last_out_poison = (int)(0x01010101u * (unsigned)byte);
    HX_CHECK(cudaMemsetAsync(sf.d_out, byte, n * sizeof(int), c->s));
    sf.tail_key = poison_bits();
    if (poison_fill(c, sf.d_out + n, whole ? sel_tail_bytes(n) : GUARD * sizeof(int), sf.tail_key) ||
        moving_out_poison(c, &sf.count))
        return -1;
    HX_CHECK(cudaMemcpyAsync(sf.d_count, &cp, sizeof cp, cudaMemcpyHostToDevice, c->s));
    size_t sb = LAB_SCRATCH_BYTES(n);
    return poison_fill(c, sf.d_scratch, whole || sb > sf.scratch_bytes ? sf.scratch_bytes : sb, poison_bits());
}

/* After a call: nothing past d_out[n] (all of it, or the guard) and
 * nothing around *d_count changed.  1, or 0 with msg saying what did (who
 * begins it: a timed sample's name), or -1 after a CUDA error. */
static int sel_intact(struct ctx *c, unsigned long long n, int whole, const char *who, char *msg, size_t len)
{
    unsigned long long past, at;
    if (poison_check(c, sf.d_out + n, whole ? sel_tail_bytes(n) : GUARD * sizeof(int), sf.tail_key, 0, 0, &past,
                     &at))
        return -1;
    if (past > 0) {
        snprintf(msg, len, "%swrote past the end of d_out: d_out[%llu] changed, but n is %llu", who,
                 n + at / sizeof(int), n);
        return 0;
    }
    char why[200];
    int rc = moving_out_intact(c, &sf.count, why, sizeof why);
    if (rc == 0)
        snprintf(msg, len, "%s%s (d_out here is d_count)", who, why);
    return rc;
}

/* The input against what sel_generate wrote. */
static struct input_diff sel_changed(struct ctx *c, const sgen &g)
{
    return input_changed(c, "sel_compare", sf.grid, 256, sf.d_bad, sf.d_in, g.n, sel_want{g});
}

static unsigned sel_blocks(unsigned long long n)
{
    unsigned long long want = (n + SEL_THREADS - 1) / SEL_THREADS;
    return (unsigned)(want < (unsigned long long)sf.grid ? (want ? want : 1) : (unsigned long long)sf.grid);
}

/* The GPU's print of the generated input (gen) or of d_out[0..count). */
static int sel_gpu_print(struct ctx *c, const sgen *gen, unsigned long long count, const uint64_t key[2],
                         sprint *p)
{
    sprint zero = {0, {0, 0}};
    HX_CHECK(cudaMemcpyAsync(sf.d_print, &zero, sizeof zero, cudaMemcpyHostToDevice, c->s));
    sgen none = {};
    sel_print_body b = {gen ? *gen : none, sf.d_out, count, key[0], key[1], sf.d_print, gen != NULL};
    if (judge_run(c, "sel_print", sel_blocks(gen ? gen->n : count), SEL_THREADS, b, {{sf.d_print, sizeof *p}}))
        return -1;
    HX_CHECK(cudaMemcpyAsync(p, sf.d_print, sizeof *p, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));
    return 0;
}

static int sel_setup(struct ctx *c, unsigned long long max_n)
{
    sf.scratch_bytes = LAB_SCRATCH_BYTES(max_n);
    sf.cap = max_n;
    sf.grid = c->r->dev.sms * 8;
    HX_CHECK(cudaMalloc(&sf.d_in, max_n * sizeof(int)));
    HX_CHECK(cudaMalloc(&sf.d_out, (max_n + GUARD) * sizeof(int)));
    if (moving_out_setup(c, &sf.count, sizeof(unsigned)))
        return -1;
    sf.d_count = (unsigned *)moving_out_ptr(&sf.count);
    HX_CHECK(cudaMalloc(&sf.d_scratch, sf.scratch_bytes));
    HX_CHECK(cudaMalloc(&sf.d_print, sizeof(sprint)));
    HX_CHECK(cudaMalloc(&sf.d_bad, 2 * sizeof(unsigned long long)));
    HX_CHECK(hx_cub_select_kept(NULL, sf.cub_bytes, sf.d_in, sf.d_out, sf.d_count, (int64_t)max_n, c->s));
    HX_CHECK(cudaMalloc(&sf.d_cub, sf.cub_bytes));
    return 0;
}

static void sel_teardown(struct ctx *)
{
    device_free({sf.d_in, sf.d_out, sf.count.arena, sf.d_scratch, sf.d_print, sf.d_bad, sf.d_cub});
}

static struct call sel_call_of(const struct ctx *c, unsigned long long n)
{
    return call_make(c, FAMILY_SELECT, (unsigned)n, sf.d_in, sf.d_out, sf.d_scratch, sf.d_count);
}

/* Names how got[0..m) differs from want[0..w) as multisets: sorts both and
 * reports the smallest value held a different number of times. */
static void sel_diff(std::vector<int> &want, std::vector<int> &got, char *buf, size_t len)
{
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    size_t i = 0, j = 0;
    while (i < want.size() || j < got.size()) {
        int x = i < want.size() && (j >= got.size() || want[i] <= got[j]) ? want[i] : got[j];
        size_t a = 0, b = 0;
        while (i < want.size() && want[i] == x)
            i++, a++;
        while (j < got.size() && got[j] == x)
            j++, b++;
        if (a != b) {
            const char *why = !lab_keep(x) ? " (an element lab_keep drops)"
                            : x == sf.last_out_poison ? " (the poison: never written)" : "";
            snprintf(buf, len, "%d%s is in d_out %zu time(s), among the survivors %zu time(s)", x, why, b, a);
            return;
        }
    }
    snprintf(buf, len, "the same elements");
}

static int sel_trial(struct ctx *c, unsigned long long n, int k, struct test *t)
{
    sgen g = {c->o->seed, 1 + (uint64_t)k, n, sel_kind_frac[(k + c->o->seed) % SEL_KINDS]};
    uint64_t key[2] = {poison_bits(), poison_bits()};
    sprint host_want = {0, {0, 0}}, host_got = {0, {0, 0}}, gpu_want, gpu_got;
    unsigned count;

    moving_out_move(&sf.count);
    sf.d_count = (unsigned *)moving_out_ptr(&sf.count);
    sf.want.clear();
    for (unsigned long long i = 0; i < n; i++) {
        int x = sel_value(g, i);
        if (lab_keep(x)) {
            sf.want.push_back(x);
            sel_add(&host_want, key, x);
        }
    }
    if (sel_generate(c, g) || sel_gpu_print(c, &g, 0, key, &gpu_want))
        return -1;
    if (memcmp(&gpu_want, &host_want, sizeof gpu_want))
        return sel_internal(c, "the input", n);
    if (sel_poison(c, n, host_want.count, 1))
        return -1;
    struct call call = sel_call_of(c, n);
    if (student_run(c, &call))
        return -1;
    HX_CHECK(cudaGetLastError());
    HX_CHECK(cudaMemcpyAsync(&count, sf.d_count, sizeof count, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));

    snprintf(t->expected, sizeof t->expected, "%llu of %llu kept (%s)", host_want.count, n,
             sel_kind_name[(k + c->o->seed) % SEL_KINDS]);
    snprintf(t->got, sizeof t->got, "count %u", count);
    char why_out[300];
    int whole = sel_intact(c, n, 1, "", why_out, sizeof why_out);
    if (whole <= 0) {
        if (whole == 0)
            test_fail(t, "%s", why_out);
        return whole;
    }
    if (count != host_want.count) {
        if (count == sf.last_count_poison)
            test_fail(t, "*d_count was never written: it still holds the poison value");
        else
            test_fail(t, "wrong count: %u survivors reported, %llu kept", count, host_want.count);
        return 0;
    }
    sf.got.resize(count);
    if (count)
        HX_CHECK(cudaMemcpy(sf.got.data(), sf.d_out, count * sizeof(int), cudaMemcpyDeviceToHost));
    for (unsigned j = 0; j < count; j++)
        sel_add(&host_got, key, sf.got[j]);
    if (sel_gpu_print(c, NULL, count, key, &gpu_got))
        return -1;
    if (memcmp(&gpu_got, &host_got, sizeof gpu_got))
        return sel_internal(c, "the output", n);
    if (memcmp(&host_got, &host_want, sizeof host_got)) {
        char why[160];
        /* Naming the element sorts both lists: seconds at the largest
         * sizes.  Only the smallest failing size is shown, so a larger one
         * after a failure just fails. */
        if (c->r->first_failing_n && c->r->first_failing_n < n)
            snprintf(why, sizeof why, "other elements, as at n=%llu", c->r->first_failing_n);
        else
            sel_diff(sf.want, sf.got, why, sizeof why);
        snprintf(t->got, sizeof t->got, "count %u, other elements", count);
        test_fail(t, "d_out[0..%u) is not the survivors in some order: %s", count, why);
        return 0;
    }
    return input_verdict_test(sel_changed(c, g), INPUT_CALLED, &input_array, t) < 0 ? -1 : 0;
}

/* ---- timing ---- */

struct srun {
    struct ctx *c;
    sgen g;
    uint64_t key[2];            /* drawn when the case starts, never passed to the student */
    sprint base;                /* the generated input's survivors */
    sprint now;                 /* this sample's */
    unsigned long long idx;     /* the element changed for this sample */
    int old_v, new_v;
    int reference;
    struct call call;
    struct plan plan, first;
    int have_first;
};

static int sel_prepare(void *arg, int k)
{
    struct srun *r = (struct srun *)arg;
    static int v;
    sel_change(r->g, (uint64_t)k, &r->idx, &r->new_v);
    r->old_v = sel_value(r->g, r->idx);
    r->now = r->base;
    if (lab_keep(r->old_v))
        sel_remove(&r->now, r->key, r->old_v);
    if (lab_keep(r->new_v))
        sel_add(&r->now, r->key, r->new_v);
    v = r->new_v;
    HX_CHECK(cudaMemcpyAsync(sf.d_in + r->idx, &v, sizeof v, cudaMemcpyHostToDevice, r->c->s));
    if (!r->reference && plan_sample(r->c, &r->call, &r->plan, &r->first, &r->have_first))
        return -1;
    return sel_poison(r->c, r->g.n, r->now.count, 0);
}

static int sel_call(void *arg)
{
    struct srun *r = (struct srun *)arg;
    if (r->reference)
        HX_CHECK(hx_cub_select_kept(sf.d_cub, sf.cub_bytes, sf.d_in, sf.d_out, sf.d_count,
                                    (int64_t)r->g.n, r->c->s));
    else if (student_replay(r->c, &r->plan))
        return -1;
    return 0;
}

static int sel_verify(void *arg, int k, char *msg, size_t len)
{
    struct srun *r = (struct srun *)arg;
    const char *who = r->reference ? "the reference" : "timed";
    unsigned count;
    int old_v = r->old_v;
    sprint got;
    char pre[48];

    HX_CHECK(cudaMemcpy(&count, sf.d_count, sizeof count, cudaMemcpyDeviceToHost));
    int right = count == r->now.count;
    if (right) {
        if (sel_gpu_print(r->c, NULL, count, r->key, &got))
            return -1;
        right = !memcmp(&got, &r->now, sizeof got);
    }
    HX_CHECK(cudaMemcpy(sf.d_in + r->idx, &old_v, sizeof old_v, cudaMemcpyHostToDevice));
    snprintf(pre, sizeof pre, "%s sample %d: ", who, k);
    int whole = sel_intact(r->c, r->g.n, 0, pre, msg, len);
    if (whole <= 0)
        return whole;
    if (right)
        return 1;
    if (count != r->now.count)
        snprintf(msg, len, "%s sample %d (d_in[%llu] changed since the last call): %llu kept, *d_count is %u%s",
                 who, k, r->idx, r->now.count, count,
                 !r->reference && count == sf.last_count_poison ? " (the poison: never written)" : "");
    else
        snprintf(msg, len, "%s sample %d (d_in[%llu] changed since the last call): the count is right, but "
                 "d_out[0..%u) is not the survivors in any order", who, k, r->idx, count);
    return 0;
}

/* Each verify put its element back: the input as generated (input_afresh). */
static int sel_between(void *arg, char *msg, size_t len)
{
    struct srun *r = (struct srun *)arg;
    return input_afresh(sel_changed(r->c, r->g), [r] { return sel_generate(r->c, r->g); }, msg, len);
}

static int sel_timed(struct ctx *c, const struct perf_case *pc, struct perf *p)
{
    struct test *t = &c->r->tests[c->r->ntests];
    static struct srun r;
    int kind = sel_kind_of(pc->input), rc;

    if (kind < 0)
        return perf_kind_unknown(c, pc, "none, sparse, half, dense, all");
    memset(&r, 0, sizeof r);
    r.c = c;
    r.g.seed = c->o->seed;
    r.g.salt = case_salt(pc);
    r.g.n = pc->n;
    r.g.frac = sel_kind_frac[kind];
    r.key[0] = poison_bits();
    r.key[1] = poison_bits();
    moving_out_move(&sf.count);        /* one place for all the samples: their plans must agree */
    sf.d_count = (unsigned *)moving_out_ptr(&sf.count);
    r.call = sel_call_of(c, pc->n);
    struct timed tm = {sel_prepare, sel_call, sel_verify, &r, &r.reference, NULL, sel_between};

    if (sel_generate(c, r.g) || sel_gpu_print(c, &r.g, 0, r.key, &r.base))
        return -1;
    if ((rc = measure_both(c, &tm, p, t)) != 0)
        return rc < 0 ? -1 : 0;
    if ((rc = input_verdict_test(sel_changed(c, r.g), INPUT_TIMING, &input_array, t)) <= 0)
        return rc;
    /* Bytes that must move: the input read once, the survivors and the count written once. */
    p->bytes = (double)pc->n * sizeof(int) + (double)r.base.count * sizeof(int) + sizeof(unsigned);
    p->rate_unit = "Gint/s";
    perf_finish(c, &family_impl, p, (double)pc->n);
    return 0;
}

static int sel_profile(struct ctx *c, unsigned long long n)
{
    sgen g = {c->o->seed, 4242, n, sel_kind_frac[2]};
    if (sel_generate(c, g) || sel_poison(c, n, ~0ull, 1))
        return -1;
    HX_CHECK(cudaStreamSynchronize(c->s));
    struct call call = sel_call_of(c, n);
    return student_profile(c, &call);
}

const struct family family_impl = {FAMILY_SELECT, "CUB DeviceSelect::If", 0, 0, sel_setup,
                                   sel_trial, sel_timed, sel_profile, sel_teardown, NULL, 0, NULL};

} /* namespace hx */
