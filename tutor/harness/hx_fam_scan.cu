/* hx_fam_scan.cu — family scan (lab 13): d_out[i] = d_in[0] + ... + d_in[i],
 * the inclusive prefix sum of n ints.
 *
 * Inputs are reduce_int's (hx_reduce.cuh, elem<int>): one or two stretches
 * of uniform integers, a walk of small values of both signs or slopes that
 * carry the prefix past 2^30 (up, down, up then down, down then up), with
 * the positive elements adding up to at most INT_MAX and the negative ones
 * to at least -INT_MAX, so that no prefix, nor any sum of any elements a
 * kernel adds in whatever order, overflows: every element of a result is
 * exact and compared exactly, and tile offsets need all 32 bits.  They are
 * generated on the device from (seed, salt, index), and the CPU works out
 * its own sums from the same function.
 *
 * Every element of every result is checked, and the first wrong index is
 * reported.  In a trial, on the CPU: d_out comes back whole and is compared
 * with the running sum of the generated values, and every byte of d_out's
 * allocation past its end (poisoned with fresh bits) must be untouched.
 * The judge's GPU check (sc_check, below) is held to the CPU in every
 * trial: it must find every element of the poison wrong, and as many of
 * the result as the CPU did.
 *
 * Every timed call of the student's is verified whole, on the GPU: sc_check
 * compares every element with the reference scan of the generated input,
 * which CUB works out once per case (and the CPU checks at every SC_MARK-th
 * element and at the last), plus what this sample's changes add from their
 * place on.  The reference's own samples (CUB's) are verified so in their
 * first, and at the probes below in every other (sc_verify says why).
 *
 * No right answer is in device memory while the student's code runs: the
 * kernels run in the judge's context and can read any of its buffers, and
 * one that found d_ref (next to the others) could copy it and patch in the
 * changes without scanning anything.  So d_ref is scrubbed before every call,
 * and made again after it, from the input with the changes undone; its hash
 * under a key the student never sees must be the one taken when the CPU
 * checked it, so a call that changed the input or wrote into the judge's
 * buffers cannot make its own reference.  The
 * changed elements, the last one and a few at random places also come back
 * to the CPU, which works out those prefixes itself (from its marks, every
 * SC_MARK elements).  Before each call SC_CHANGES elements at random places
 * get another value of their stretch's range (so nothing can overflow still), and
 * after it they get their generated values back: a result kept from an
 * earlier call, or computed ahead, is wrong from the first change on.  After
 * each kernel's last sample the whole input must be as generated.
 *
 * The poison: every element of d_out random under a key the operating system
 * gives for that call; in a trial drawn again where it would be right (never
 * computed from the answer), in a timed sample drawn once (d_ref is scrubbed
 * by then: a draw that happens to be right, once in 2^32 elements, is a
 * right element all the same); past the end of d_out and in the scratch,
 * fresh bits under another key (hx_poison.cuh): in a trial all of both
 * allocations, in a timed sample the GUARD elements past the end and the
 * part of the scratch a call of n may use.  Only the student's call lies
 * between the timing events.  Bytes that must move: n ints read, n written;
 * the peak it is compared with is the streaming copy's.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "hx_poison.cuh"
#include "hx_reduce.cuh"

namespace hx {

enum {
    SC_THREADS = 256,
    SC_GUARD = 64,              /* elements past the end of d_out that must stay */
    SC_CHANGES = 4,             /* elements changed before each timed call */
    SC_SPOTS = 4,               /* random elements the CPU checks per sample */
    SC_PROBES = SC_CHANGES + 1 + SC_SPOTS,  /* those, and the last element */
    SC_MARK = 4096              /* the CPU keeps the prefix every SC_MARK elements */
};

/* A timed sample's changes: element idx[m] holds val[m] during the call,
 * delta[m] more than as generated. */
struct sc_changes {
    int count;
    unsigned long long idx[SC_CHANGES];
    int val[SC_CHANGES];
    long long delta[SC_CHANGES];
};

/* What one check brings back: the wrong elements (how many, the first), a
 * keyed hash of the reference it compared with, and the input and output at
 * the SC_PROBES places the host named. */
struct sc_probe {
    unsigned long long bad, first;
    unsigned long long hash;
    unsigned long long idx[SC_PROBES];
    int in[SC_PROBES], out[SC_PROBES];
};

/* The right prefix at i during a sample: the reference scan of the generated
 * input there (ref), plus what the changes at or before i add. */
__host__ __device__ static inline long long sc_right(long long ref, const sc_changes &ch, unsigned long long i)
{
    for (int m = 0; m < ch.count; m++)
        if (ch.idx[m] <= i)
            ref += ch.delta[m];
    return ref;
}

/* Element q's poison under a call's key: random bits, drawn again where
 * they would be right. */
__host__ __device__ static inline int sc_poison(uint64_t key, uint64_t q, long long right)
{
    uint64_t h = key + q * 0x9e3779b97f4a7c15ull;
    int p;
    do {
        h = mix(h);
        p = (int)(uint32_t)(h >> 32);
    } while ((long long)p == right);
    return p;
}

/* Sample k's m-th changed place: random, and none taken twice (the host
 * passes the places drawn before it). */
static inline unsigned long long sc_change_index(const gen &g, uint64_t k, int m, const unsigned long long *taken)
{
    return below_untaken(draw(g.seed, g.salt ^ 0x5ca9c4a6ull, k * SC_CHANGES + (uint64_t)m), g.n, m, taken);
}

/* Sample k's changes: SC_CHANGES places (fewer when n is smaller), each
 * given another value of its stretch's range. */
static inline sc_changes sc_changes_of(const gen &g, uint64_t k)
{
    sc_changes ch;
    memset(&ch, 0, sizeof ch);
    ch.count = g.n < SC_CHANGES ? (int)g.n : (int)SC_CHANGES;
    for (int m = 0; m < ch.count; m++) {
        ch.idx[m] = sc_change_index(g, k, m, ch.idx);
        int old = elem<int>::value(g, ch.idx[m]);
        uint64_t bits = mix(draw(g.seed, g.salt ^ 0x7a1ull, k * SC_CHANGES + (uint64_t)m));
        ch.val[m] = elem<int>::change(g, ch.idx[m], old, bits, 0);
        ch.delta[m] = (long long)ch.val[m] - old;
    }
    return ch;
}

/* The same places with their generated values: what puts the input back. */
static inline sc_changes sc_undo_of(const gen &g, const sc_changes &ch)
{
    sc_changes u = ch;
    for (int m = 0; m < ch.count; m++) {
        u.val[m] = elem<int>::value(g, ch.idx[m]);
        u.delta[m] = 0;
    }
    return u;
}

/* ---- the CPU's prefixes ------------------------------------------------------ */

/* marks[j] = the sum of the generated elements [0, j * SC_MARK), for j from
 * 0 to ceil(n / SC_MARK); the last is the sum of all n.  The blocks are
 * summed on host_workers threads. */
static std::vector<long long> sc_marks(const gen &g)
{
    unsigned long long nb = (g.n + SC_MARK - 1) / SC_MARK;
    std::vector<long long> marks(nb + 1, 0);
    unsigned workers = host_workers(g.n);
    host_parallel(workers, [&marks, &g, nb, workers](unsigned w) {
        for (unsigned long long b = w; b < nb; b += workers) {
            unsigned long long lo = b * SC_MARK, hi = std::min(g.n, lo + SC_MARK);
            long long s = 0;
            for (unsigned long long i = lo; i < hi; i++)
                s += elem<int>::value(g, i);
            marks[b + 1] = s;
        }
    });
    for (unsigned long long b = 1; b <= nb; b++)
        marks[b] += marks[b - 1];
    return marks;
}

/* The generated input's prefix at i, from the marks: at most SC_MARK draws. */
static long long sc_prefix_at(const gen &g, const std::vector<long long> &marks, unsigned long long i)
{
    unsigned long long b = i / SC_MARK;
    long long s = marks[b];
    for (unsigned long long j = b * SC_MARK; j <= i; j++)
        s += elem<int>::value(g, j);
    return s;
}

/* got[lo, hi) against the running sum of the generated elements from sum
 * (the prefix before lo) on: the wrong ones counted into *bad, the first of
 * them in *first with its right value in *want.  Returns the sum at hi. */
static long long sc_cpu_check_part(const gen &g, const int *got, unsigned long long lo, unsigned long long hi,
                                   long long sum, unsigned long long *bad, unsigned long long *first, long long *want)
{
    for (unsigned long long i = lo; i < hi; i++) {
        sum += elem<int>::value(g, i);
        if ((long long)got[i] != sum && (*bad)++ == 0) {
            *first = i;
            *want = sum;
        }
    }
    return sum;
}

/* A trial's check on the CPU: every element of got (the generated input's
 * result) against the running sum.  Returns the number of wrong elements;
 * *first is the first of them and *want its right value; *last the sum of
 * all n.  With several threads each takes one stretch: it sums its
 * elements, and then checks them from the sum of the stretches before it
 * (twice the draws, shared out: one core took about 0.1 s for a trial of
 * 2^24). */
static unsigned long long sc_cpu_check(const gen &g, const int *got, unsigned long long *first, long long *want,
                                       long long *last)
{
    struct part {
        long long sum, want;
        unsigned long long bad, first;
    };
    unsigned workers = host_workers(g.n);
    unsigned long long step = (g.n + workers - 1) / workers, bad = 0;
    std::vector<part> parts(workers, part{0, 0, 0, 0});

    if (workers == 1) {
        *last = sc_cpu_check_part(g, got, 0, g.n, 0, &bad, first, want);
        return bad;
    }
    host_parallel(workers, [&parts, &g, step](unsigned w) {
        unsigned long long lo = std::min(g.n, w * step), hi = std::min(g.n, lo + step);
        for (unsigned long long i = lo; i < hi; i++)
            parts[w].sum += elem<int>::value(g, i);
    });
    long long before = 0;
    for (unsigned w = 0; w < workers; w++) {
        long long s = parts[w].sum;
        parts[w].sum = before;
        before += s;
    }
    host_parallel(workers, [&parts, &g, got, step](unsigned w) {
        unsigned long long lo = std::min(g.n, w * step), hi = std::min(g.n, lo + step);
        part &p = parts[w];
        sc_cpu_check_part(g, got, lo, hi, p.sum, &p.bad, &p.first, &p.want);
    });
    for (unsigned w = 0; w < workers; w++) {
        if (parts[w].bad && bad == 0) {
            *first = parts[w].first;
            *want = parts[w].want;
        }
        bad += parts[w].bad;
    }
    *last = before;
    return bad;
}

/* ---- device code ------------------------------------------------------------- */

/* Writes a call's poison into out[0, n): drawn again where it would be
 * ref's right answer, or drawn once when ref is NULL (no int is below
 * INT_MIN, so no draw is taken for right). */
struct sc_poison_body {
    const int *ref;
    sc_changes ch;
    int *out;
    unsigned long long n;
    uint64_t key;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        for (unsigned long long i = t; i < n; i += stride)
            out[i] = sc_poison(key, i, ref ? sc_right(ref[i], ch, i) : (long long)INT_MIN - 1);
    }
};

/* Writes the changes (or their undoing) into the input. */
struct sc_apply_body {
    int *in;
    sc_changes ch;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        for (unsigned long long m = t; m < (unsigned long long)ch.count; m += stride)
            in[ch.idx[m]] = ch.val[m];
    }
};

/* One element's part of the reference's hash under a key: the sum of
 * these over every element (mod 2^64, so in any order) changes when any
 * element does, in a way no kernel can make up for without the key. */
__host__ __device__ static inline unsigned long long sc_hash_term(uint64_t key, unsigned long long i, int v)
{
    return mix(key ^ (i * 0x9e3779b97f4a7c15ull) ^ (uint64_t)(uint32_t)v);
}

/* Compares every element of out with the right prefix, counting the wrong
 * ones (an atomic each on a GPU: only a wrong kernel pays for them), and
 * hashes the reference as it reads it: the student's kernels run in the
 * judge's context and could write into d_ref, which the hash would show.
 * Every thread reaches judge_add (whole warps on a GPU). */
struct sc_check_body {
    const int *out, *ref;
    sc_changes ch;
    unsigned long long n;
    uint64_t key;
    struct sc_probe *res;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        unsigned long long h = 0;
        for (unsigned long long i = t; i < n; i += stride) {
            int r = ref[i];
            h += sc_hash_term(key, i, r);
            if ((long long)out[i] != sc_right(r, ch, i))
                judge_flag(&res->bad, &res->first, i);
        }
        judge_add(&res->hash, h);
    }
};

/* Copies the input and output at the probes' places. */
struct sc_gather_body {
    struct sc_probe *res;
    const int *in, *out;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        for (unsigned long long m = t; m < SC_PROBES; m += stride) {
            res->in[m] = in[res->idx[m]];
            res->out[m] = out[res->idx[m]];
        }
    }
};

/* dst[j] = ref at the last element of mark block j: the prefix the CPU's
 * marks[j + 1] must equal. */
struct sc_marks_body {
    const int *ref;
    unsigned long long n;
    int *dst;
    unsigned long long nb;
    __host__ __device__ void operator()(unsigned long long t, unsigned long long stride) const
    {
        for (unsigned long long j = t; j < nb; j += stride) {
            unsigned long long end = (j + 1) * SC_MARK;
            dst[j] = ref[(end < n ? end : n) - 1];
        }
    }
};

/* ---- the family -------------------------------------------------------------- */

static struct {
    int *d_in, *d_out, *d_ref;              /* d_out has SC_GUARD more */
    void *d_scratch, *d_cub;
    size_t scratch_bytes, cub_bytes;
    unsigned long long cap;
    unsigned long long *d_bad;              /* [0] count, [1] first index */
    struct sc_probe *d_probe;
    int *d_marks;                           /* the reference at the marks */
    int grid;
    std::vector<int> buf;                   /* a trial's d_out on the host */
    uint64_t tail_key;                      /* the bits past the end of d_out */
    uint64_t ref_key;                       /* the key of d_ref's hash, for the case timed */
    unsigned long long ref_hash;            /* d_ref's hash, taken when it was checked */
    /* The timed cases' marks, worked out by sc_expect ahead. */
    struct { uint64_t salt; unsigned long long n; std::vector<long long> marks; } memos[MAX_PERF];
    int nmemos;
} sf;

static int sc_generate(struct ctx *c, const gen &g)
{
    return input_generate(c, "fill", sf.grid, SC_THREADS, sf.d_in, g.n, elem_want<int>{g});
}

/* The reference scan of the input as it is now, by CUB, into d_ref. */
static int sc_reference(struct ctx *c, unsigned long long n, int *dst)
{
    HX_CHECK(hx_cub_inclusive_sum(sf.d_cub, sf.cub_bytes, sf.d_in, dst, (int)n, c->s));
    return 0;
}

/* Overwrites d_ref[0, n) before a call, and what else holds a part of the
 * answer: CUB's temporary storage (its tiles' prefixes) and the marks (the
 * prefix every SC_MARK elements, enough to scan the blocks apart).  What the
 * student's code could read there then is a constant. */
static int sc_scrub(struct ctx *c, unsigned long long n)
{
    HX_CHECK(cudaMemsetAsync(sf.d_ref, 0x5c, n * sizeof(int), c->s));
    HX_CHECK(cudaMemsetAsync(sf.d_cub, 0x5c, sf.cub_bytes, c->s));
    HX_CHECK(cudaMemsetAsync(sf.d_marks, 0x5c, ((n + SC_MARK - 1) / SC_MARK) * sizeof(int), c->s));
    return 0;
}

/* Bytes of d_out's allocation past element n. */
static unsigned long long sc_tail_bytes(unsigned long long n)
{
    return (sf.cap + SC_GUARD - n) * sizeof(int);
}

/* Poisons d_out[0, n) for a call whose right answer is ref plus ch (ref
 * NULL when no reference is at hand: then the poison is only random, right
 * somewhere once in 2^32 elements); past n and the scratch, fresh bits:
 * all of both (whole) or the GUARD elements and the scratch a call of n
 * may use (a timed sample). */
static int sc_poison_call(struct ctx *c, const int *ref, unsigned long long n, const sc_changes &ch, uint64_t key,
                          int whole)
{
    if (judge_run(c, "sc_poison", sf.grid, SC_THREADS, sc_poison_body{ref, ch, sf.d_out, n, key},
                  {{sf.d_out, n * sizeof(int)}}))
        return -1;
    sf.tail_key = poison_bits();
    if (poison_fill(c, sf.d_out + n, whole ? sc_tail_bytes(n) : SC_GUARD * sizeof(int), sf.tail_key))
        return -1;
    size_t sb = LAB_SCRATCH_BYTES(n);
    return poison_fill(c, sf.d_scratch, whole || sb > sf.scratch_bytes ? sf.scratch_bytes : sb, poison_bits());
}

/* Runs the GPU check of d_out[0, n) against d_ref plus ch (unless whole
 * is 0: then p->bad stays 0 and p->hash is not taken), gathers the probes
 * p->idx names (nprobe of them), and brings it all back into *p (p->hash:
 * d_ref's hash under sf.ref_key). */
static int sc_verify_all(struct ctx *c, unsigned long long n, const sc_changes &ch, struct sc_probe *p, int nprobe,
                         int whole)
{
    p->bad = 0;
    p->first = ~0ull;
    p->hash = 0;
    HX_CHECK(cudaMemcpyAsync(sf.d_probe, p, sizeof *p, cudaMemcpyHostToDevice, c->s));
    if (whole &&
        judge_run(c, "sc_check", sf.grid, SC_THREADS, sc_check_body{sf.d_out, sf.d_ref, ch, n, sf.ref_key, sf.d_probe},
                  {{sf.d_probe, sizeof *p}}))
        return -1;
    if (nprobe > 0 &&
        judge_run(c, "sc_gather", 1, 32, sc_gather_body{sf.d_probe, sf.d_in, sf.d_out}, {{sf.d_probe, sizeof *p}}))
        return -1;
    HX_CHECK(cudaMemcpyAsync(p, sf.d_probe, sizeof *p, cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));
    return 0;
}

/* The input against what sc_generate wrote. */
static struct input_diff sc_changed(struct ctx *c, const gen &g)
{
    return input_changed(c, "compare", sf.grid, SC_THREADS, sf.d_bad, sf.d_in, g.n, elem_want<int>{g});
}

/* " (the poison: never written)" when got is element i's poison. */
static const char *sc_poison_note(uint64_t key, unsigned long long i, long long want, int got)
{
    return got == sc_poison(key, i, want) ? " (the poison: never written)" : "";
}

static int sc_setup(struct ctx *c, unsigned long long max_n)
{
    sf.cap = max_n;
    sf.scratch_bytes = LAB_SCRATCH_BYTES(max_n);
    sf.grid = c->r->dev.sms * 8;
    HX_CHECK(cudaMalloc(&sf.d_in, max_n * sizeof(int)));
    HX_CHECK(cudaMalloc(&sf.d_out, (max_n + SC_GUARD) * sizeof(int)));
    HX_CHECK(cudaMalloc(&sf.d_ref, max_n * sizeof(int)));
    HX_CHECK(cudaMalloc(&sf.d_scratch, sf.scratch_bytes));
    HX_CHECK(cudaMalloc(&sf.d_bad, 2 * sizeof(unsigned long long)));
    HX_CHECK(cudaMalloc(&sf.d_probe, sizeof(struct sc_probe)));
    HX_CHECK(cudaMalloc(&sf.d_marks, ((max_n + SC_MARK - 1) / SC_MARK) * sizeof(int)));
    HX_CHECK(hx_cub_inclusive_sum(NULL, sf.cub_bytes, sf.d_in, sf.d_out, (int)max_n, c->s));
    HX_CHECK(cudaMalloc(&sf.d_cub, sf.cub_bytes));
    return 0;
}

static void sc_teardown(struct ctx *)
{
    device_free({sf.d_in, sf.d_out, sf.d_ref, sf.d_scratch, sf.d_bad, sf.d_probe, sf.d_marks, sf.d_cub});
}

static struct call sc_call_of(const struct ctx *c, unsigned long long n)
{
    return call_make(c, FAMILY_SCAN, (unsigned)n, sf.d_in, sf.d_out, sf.d_scratch, NULL);
}

static int sc_trial(struct ctx *c, unsigned long long n, int k, struct test *t)
{
    gen g = elem<int>::make(c->o->seed, 1 + (uint64_t)k, n);
    sc_changes none;
    static struct sc_probe probe;
    unsigned long long bad = 0, wrong_at = 0;
    long long want_at = 0, sum = 0;
    uint64_t key = poison_bits();

    memset(&none, 0, sizeof none);
    sf.ref_key = poison_bits();
    if (sc_generate(c, g) || sc_reference(c, n, sf.d_ref) || sc_poison_call(c, sf.d_ref, n, none, key, 1))
        return -1;
    /* The judge's GPU check on the poison: every element is wrong. */
    if (sc_verify_all(c, n, none, &probe, 0, 1))
        return -1;
    if (probe.bad != n || probe.first != 0)
        return judge_internal(c, "the judge's GPU check found %llu of %llu poisoned elements wrong (first %llu) "
                              "before the call (trial n=%llu)", probe.bad, n, probe.first, n);
    unsigned long long ref_hash = probe.hash;
    struct call call = sc_call_of(c, n);
    if (sc_scrub(c, n) || student_run(c, &call))
        return -1;
    HX_CHECK(cudaGetLastError());
    sf.buf.resize(n);
    HX_CHECK(cudaMemcpyAsync(sf.buf.data(), sf.d_out, n * sizeof(int), cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));

    bad = sc_cpu_check(g, sf.buf.data(), &wrong_at, &want_at, &sum);
    if (bad) {
        int got = sf.buf[wrong_at];
        snprintf(t->expected, sizeof t->expected, "d_out[%llu] = %lld", wrong_at, want_at);
        snprintf(t->got, sizeof t->got, "%d", got);
        test_fail(t, "%llu of %llu element(s) wrong; the first, d_out[%llu]: expected %lld, got %d%s", bad, n,
                  wrong_at, want_at, got, sc_poison_note(key, wrong_at, want_at, got));
    } else {
        snprintf(t->expected, sizeof t->expected, "%llu prefix sums, the last %lld", n, sum);
        snprintf(t->got, sizeof t->got, "%s", t->expected);
        unsigned long long past, at;
        if (poison_check(c, sf.d_out + n, sc_tail_bytes(n), sf.tail_key, 0, 0, &past, &at))
            return -1;
        if (past > 0) {
            test_fail(t, "wrote past the end of d_out: d_out[%llu] changed (%llu byte(s) past the end in all), "
                      "but n is %llu", n + at / sizeof(int), past, n);
            return 0;
        }
        int same = input_verdict_test(sc_changed(c, g), INPUT_CALLED, &input_array, t);
        if (same <= 0)
            return same;
    }
    /* The judge's GPU check must count what the CPU counted, on the
     * reference made again after the call (the same, by its hash). */
    if (sc_reference(c, n, sf.d_ref) || sc_verify_all(c, n, none, &probe, 0, 1))
        return -1;
    if (probe.hash != ref_hash) {
        if (!bad)
            test_fail(t, "the call changed the judge's memory, outside d_out and d_scratch: the reference scan, "
                      "made again after it, came out different");
        return 0;
    }
    if (probe.bad != bad || (bad && probe.first != wrong_at))
        return judge_internal(c, "the judge's GPU check found %llu wrong element(s) (first %llu) where the CPU "
                              "found %llu (first %llu) (trial n=%llu)", probe.bad, probe.first, bad, wrong_at, n);
    return 0;
}

/* ---- timing ---- */

struct srun {
    struct ctx *c;
    gen g;
    const std::vector<long long> *marks;
    int reference;              /* 1: time CUB instead of the student */
    sc_changes ch, undo;        /* this sample's changes, and what undoes them */
    uint64_t key;               /* this call's poison */
    struct sc_probe probe;
    struct call call;
    struct plan plan, first;    /* this sample's plan; the case's first */
    int have_first;
};

/* Each sample changes a few elements at random places, so that every prefix
 * from the first of them on is new, and poisons the output. */
static int sc_prepare(void *arg, int k)
{
    struct srun *r = (struct srun *)arg;
    struct ctx *c = r->c;
    r->ch = sc_changes_of(r->g, (uint64_t)k);
    r->undo = sc_undo_of(r->g, r->ch);
    if (judge_run(c, "sc_apply", 1, SC_CHANGES, sc_apply_body{sf.d_in, r->ch}, {{sf.d_in, r->g.n * sizeof(int)}}))
        return -1;
    r->key = poison_bits();
    if (sc_poison_call(c, NULL, r->g.n, r->ch, r->key, 0))
        return -1;
    if (!r->reference && plan_sample(c, &r->call, &r->plan, &r->first, &r->have_first))
        return -1;
    return 0;
}

static int sc_call(void *arg)
{
    struct srun *r = (struct srun *)arg;
    if (r->reference)
        return sc_reference(r->c, r->g.n, sf.d_out);
    return student_replay(r->c, &r->plan);
}

/* The right prefix at i during the sample, by the CPU alone. */
static long long sc_cpu_right(const struct srun *r, unsigned long long i)
{
    return sc_right(sc_prefix_at(r->g, *r->marks, i), r->ch, i);
}

/* Judges sample k from the check's probe (whole: and from the GPU check of
 * every element): 1 right, 0 wrong (msg says why), -1 when the judge
 * itself is wrong or a CUDA call failed. */
static int sc_judge(struct srun *r, int k, int whole, char *msg, size_t len)
{
    const struct sc_probe *p = &r->probe;
    const char *who = r->reference ? "the reference" : "timed";
    unsigned long long n = r->g.n;

    /* The reference, made again after the call, as it was when the CPU
     * checked it: else the call changed the input (or wrote into the
     * judge's buffers), and the check above proves nothing. */
    if (whole && p->hash != sf.ref_hash) {
        snprintf(msg, len, "%s sample %d: the call changed the input or the judge's memory, outside d_out and "
                 "d_scratch: the reference scan, made again after it, came out different", who, k);
        return 0;
    }
    /* The input where the probes read it (the changes undone): as the
     * CPU wrote it. */
    for (int m = 0; m < SC_PROBES; m++) {
        unsigned long long i = p->idx[m];
        int want = elem<int>::value(r->g, i);
        if (p->in[m] != want) {
            snprintf(msg, len, "%s sample %d: the call modified the input: d_in[%llu] is %d, the judge wrote %d",
                     who, k, i, p->in[m], want);
            return 0;
        }
    }
    if (p->bad > 0) {
        unsigned long long i = p->first;
        int got;
        if (i >= n)
            return judge_internal(r->c, "%s sample %d: the GPU check counted %llu wrong elements but named d_out[%llu]",
                                  who, k, p->bad, i);
        HX_CHECK(cudaMemcpy(&got, sf.d_out + i, sizeof got, cudaMemcpyDeviceToHost));
        long long want = sc_cpu_right(r, i);
        if ((long long)got == want)
            return judge_internal(r->c, "%s sample %d: the GPU check found d_out[%llu] wrong, the CPU right", who, k,
                                  i);
        snprintf(msg, len, "%s sample %d (%d elements changed since the last call): %llu of %llu elements wrong; "
                 "the first, d_out[%llu]: expected %lld, got %d%s", who, k, r->ch.count, p->bad, n, i, want, got,
                 sc_poison_note(r->key, i, want, got));
        return 0;
    }
    for (int m = 0; m < SC_PROBES; m++) {
        long long want = sc_cpu_right(r, p->idx[m]);
        if ((long long)p->out[m] != want)
            return judge_internal(r->c, "%s sample %d: %sd_out[%llu] = %d, the CPU expected %lld", who, k,
                                  whole ? "the GPU check passed " : "", p->idx[m], p->out[m], want);
    }
    return 1;
}

/* After each call: the changed elements get their generated values back,
 * the reference is made again from them, every element is checked on the
 * GPU and the probes on the CPU too; then the reference is scrubbed before
 * the next call.
 *
 * The reference's samples after its first are checked at the probes alone,
 * on the CPU.  It is CUB, whose scan of the case's input the CPU checked at
 * every mark before the timing, and its samples spread more than a
 * solution's (0.665-0.704 ms at 2^28 on an H200, the solution's
 * 0.820-0.822), so that its median can settle only at the budget's count
 * of samples (294 there, the solution's 10); a whole check of each, a
 * second scan, a pass over d_out and d_ref and the scrub, cost about five
 * times the call (1.2 s of that judge's 2).  Every sample of the student's is
 * checked whole. */
static int sc_verify(void *arg, int k, char *msg, size_t len)
{
    struct srun *r = (struct srun *)arg;
    struct sc_probe *p = &r->probe;
    unsigned long long n = r->g.n;
    int whole = !r->reference || k == 0;

    if (judge_run(r->c, "sc_apply", 1, SC_CHANGES, sc_apply_body{sf.d_in, r->undo}, {{sf.d_in, n * sizeof(int)}}))
        return -1;
    if (whole && sc_reference(r->c, n, sf.d_ref))
        return -1;

    for (int m = 0; m < SC_PROBES; m++)
        p->idx[m] = m < r->ch.count ? r->ch.idx[m]
                  : m == SC_CHANGES ? n - 1
                  : below(draw(r->g.seed, r->g.salt ^ 0x5b075ull, (uint64_t)k * SC_PROBES + (uint64_t)m), (uint32_t)n);
    if (sc_verify_all(r->c, n, r->ch, p, SC_PROBES, whole) || (whole && sc_scrub(r->c, n)))
        return -1;
    return sc_judge(r, k, whole, msg, len);
}

/* After a kernel's last sample: the input must be as generated (every change
 * was undone), before the reference runs on it and after. */
static int sc_after(void *arg, char *msg, size_t len)
{
    struct srun *r = (struct srun *)arg;
    return input_verdict(sc_changed(r->c, r->g), r->reference ? INPUT_TIMING_REFERENCE : INPUT_TIMING, &input_array,
                         msg, len);
}

/* Between the student's samples and the reference's: the input generated
 * afresh, as the reduce families do (sc_after found it unchanged already). */
static int sc_between(void *arg, char *, size_t)
{
    struct srun *r = (struct srun *)arg;
    return sc_generate(r->c, r->g) ? -1 : 1;
}

/* The marks of g: from the memo when sc_expect worked them out. */
static const std::vector<long long> *sc_marks_of(const gen &g)
{
    for (int i = 0; i < sf.nmemos; i++)
        if (sf.memos[i].salt == g.salt && sf.memos[i].n == g.n)
            return &sf.memos[i].marks;
    if (sf.nmemos >= MAX_PERF)
        sf.nmemos = 0;
    sf.memos[sf.nmemos].salt = g.salt;
    sf.memos[sf.nmemos].n = g.n;
    sf.memos[sf.nmemos].marks = sc_marks(g);
    return &sf.memos[sf.nmemos++].marks;
}

static void sc_expect(struct ctx *c)
{
    sf.nmemos = 0;
    for (int i = 0; i < c->o->nperf && i < MAX_PERF; i++)
        sc_marks_of(elem<int>::make(c->o->seed, case_salt(&c->o->perf[i]), c->o->perf[i].n));
}

/* The case's reference scan by CUB, checked against the CPU's marks: the
 * last element of every mark block, the last of all included; then its hash
 * under a fresh key, which every sample's check must find again. */
static int sc_reference_checked(struct ctx *c, const gen &g, const std::vector<long long> &marks)
{
    static struct sc_probe probe;
    sc_changes none;
    unsigned long long nb = (g.n + SC_MARK - 1) / SC_MARK;
    std::vector<int> at(nb);
    if (sc_reference(c, g.n, sf.d_ref))
        return -1;
    if (judge_run(c, "sc_marks", sf.grid, SC_THREADS, sc_marks_body{sf.d_ref, g.n, sf.d_marks, nb},
                  {{sf.d_marks, nb * sizeof(int)}}))
        return -1;
    HX_CHECK(cudaMemcpyAsync(at.data(), sf.d_marks, nb * sizeof(int), cudaMemcpyDeviceToHost, c->s));
    HX_CHECK(cudaStreamSynchronize(c->s));
    for (unsigned long long j = 0; j < nb; j++)
        if ((long long)at[j] != marks[j + 1])
            return judge_internal(c, "CUB's scan disagreed with the CPU at d_ref[%llu]: %d, not %lld",
                                  std::min((j + 1) * SC_MARK, g.n) - 1, at[j], marks[j + 1]);
    memset(&none, 0, sizeof none);
    sf.ref_key = poison_bits();
    if (sc_verify_all(c, g.n, none, &probe, 0, 1))
        return -1;
    sf.ref_hash = probe.hash;
    return sc_scrub(c, g.n);
}

static int sc_timed(struct ctx *c, const struct perf_case *pc, struct perf *p)
{
    struct test *t = &c->r->tests[c->r->ntests];
    static struct srun r;       /* static: large (two plans) */
    int rc;

    memset(&r, 0, sizeof r);
    r.c = c;
    r.g = elem<int>::make(c->o->seed, case_salt(pc), pc->n);
    r.marks = sc_marks_of(r.g);
    r.call = sc_call_of(c, pc->n);
    struct timed tm = {sc_prepare, sc_call, sc_verify, &r, &r.reference, sc_after, sc_between};

    if (sc_generate(c, r.g) || sc_reference_checked(c, r.g, *r.marks))
        return -1;
    if ((rc = measure_both(c, &tm, p, t)) != 0)
        return rc < 0 ? -1 : 0;
    /* Bytes that must move: the input read once, the output written once. */
    p->bytes = 2.0 * (double)pc->n * sizeof(int);
    p->rate_unit = "Gint/s";
    perf_finish(c, &family_impl, p, (double)pc->n);
    return 0;
}

static int sc_profile(struct ctx *c, unsigned long long n)
{
    gen g = elem<int>::make(c->o->seed, 4242, n);
    sc_changes none;
    memset(&none, 0, sizeof none);
    if (sc_generate(c, g) || sc_poison_call(c, NULL, n, none, poison_bits(), 1) || sc_scrub(c, n))
        return -1;
    struct call call = sc_call_of(c, n);
    return student_profile(c, &call);
}

const struct family family_impl = {FAMILY_SCAN, "CUB DeviceScan::InclusiveSum", 1, 0, sc_setup,
                                   sc_trial, sc_timed, sc_profile, sc_teardown, sc_expect, 0, NULL};

} /* namespace hx */
