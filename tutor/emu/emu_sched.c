/* emu_sched.c — the block scheduler.  Each host thread keeps a window of
 * resident blocks: they start in increasing index, as the GPU's block
 * scheduler starts them, a new one as soon as one ends, and the warps of
 * all of them interleave in quanta whose order and length come from the
 * seed and the launch's count (emu_warp.c runs a warp's instructions).  So
 * blocks finish in an order that changes from launch to launch, a block
 * can wait on a flag another resident block sets, and every block below a
 * running one has started.  A block stays whole: its own shared memory,
 * barriers and shared-memory shadow. */
#include "emu/emu_run.h"
#include "emu/emu_undef.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* What one SM of the H100 holds at once (CUDA's occupancy rules): blocks,
 * bytes of shared memory, and the driver's share of them per block. */
enum { SM_BLOCKS = 32, SM_SMEM = 228 << 10, SM_SMEM_RESERVED = 1 << 10, MAX_WINDOW = 1024 };

/* SMs whose blocks one host thread keeps resident by default: a GPU runs
 * every SM's blocks at once, and more of them in flight shuffle the order
 * blocks finish in as a GPU does (a last-block epilogue that adds in that
 * order gives other bits from run to run); each costs its blocks' state. */
enum { WINDOW_SMS = 4 };

/* After a block fails, the lower resident blocks run on, so that the
 * lowest failing block is the one reported, for at most this many more
 * thread-instructions: one of them may be waiting for the block that
 * failed, and a GPU would have stopped them all. */
#define DRAIN_LIMIT (1ull << 24)

uint32_t emu_sched_per_sm(const struct emu *e, uint32_t nwarps, uint32_t smem_bytes)
{
    uint64_t by_warps = (uint64_t)e->cfg.warps_per_sm / nwarps;
    uint64_t by_smem = SM_SMEM / ((uint64_t)smem_bytes + SM_SMEM_RESERVED);
    uint64_t w = SM_BLOCKS;
    w = by_warps < w ? by_warps : w;
    return (uint32_t)(by_smem < w ? by_smem : w);
}

/* Blocks resident at once on one host thread. */
uint32_t emu_sched_window(const struct emu *e, uint32_t nwarps, uint32_t smem_bytes,
                          uint64_t nblocks)
{
    uint64_t w = e->cfg.resident > MAX_WINDOW ? MAX_WINDOW : (uint64_t)e->cfg.resident;
    if (e->cfg.resident <= 0)
        w = (uint64_t)emu_sched_per_sm(e, nwarps, smem_bytes) * WINDOW_SMS;
    w = w < nblocks ? w : nblocks;
    return w ? (uint32_t)w : 1;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

/* ---- a host thread's window ----------------------------------------------------- */

/* One resident block's memory: shared memory and its shadow, warps with
 * their register frames, call scratch and local memory.  0 or -1. */
static int cta_alloc(struct run *r, struct cta *c, const struct emu_kernel *k, int scratch_used,
                     uint64_t *frames, struct uslot *uframes)
{
    c->smem = malloc(r->smem_bytes + 16);
    c->warps = calloc(r->nwarps, sizeof *c->warps);
    if (!c->smem || !c->warps)
        return -1;
    for (uint32_t i = 0; i < r->nwarps; i++) {
        struct warp *w = &c->warps[i];
        w->index = (int)i;
        w->frames = calloc((size_t)k->m->nfuncs, sizeof *w->frames);
        if (!w->frames)
            return -1;
        w->R = w->frames[k->fn] = frames + (size_t)i * r->f->nslots * 32;
        memset(w->R, 0, 32 * sizeof *w->R);     /* the sink '_' */
        if (r->hazards && !(w->uframes = calloc((size_t)k->m->nfuncs, sizeof *w->uframes)))
            return -1;
        if (r->hazards) {
            w->uframes[k->fn] = uframes + (size_t)i * r->f->nslots;
            emu_undef_frame(r, w, k->fn);   /* a frame it has: only reset */
        }
        if (scratch_used && !(w->scratch = calloc(32, SCRATCH_BYTES)))
            return -1;
        if (r->local_bytes && !(w->local = malloc((size_t)32 * r->local_bytes)))
            return -1;
        if (w->local)   /* local memory, like registers, starts as junk */
            memset(w->local, 0xa5, (size_t)32 * r->local_bytes);
        emu_frame_junk(r, k->fn, w->R, (uint64_t)(c - r->ctas) << 32 | i);
        emu_frame_constants(r, k->fn, w->R);
    }
    if (r->hazards && (!(c->sh = calloc(r->sh_words + 1, sizeof *c->sh)) ||
                       !(c->shc = calloc(r->sh_words + 1, sizeof *c->shc))))
        return -1;
    if (!(c->carr = calloc(r->nthreads, sizeof *c->carr)) ||
        !(c->cwait = calloc(r->nthreads, sizeof *c->cwait)))
        return -1;
    return 0;
}

static void cta_free(const struct run *r, struct cta *c)
{
    for (uint32_t i = 0; c->warps && i < r->nwarps; i++) {
        for (int fn = 0; c->warps[i].frames && fn < r->m->nfuncs; fn++)
            if (fn != r->fn)    /* the kernel's are the window's (worker_alloc) */
                free(c->warps[i].frames[fn]);
        for (int fn = 0; c->warps[i].uframes && fn < r->m->nfuncs; fn++)
            if (fn != r->fn)
                free(c->warps[i].uframes[fn]);
        free(c->warps[i].frames);
        free(c->warps[i].uframes);
        free(c->warps[i].scratch);
        free(c->warps[i].local);
        free(c->warps[i].async);
        free(c->warps[i].ret_pc);
        for (int l = 0; c->warps[i].saves && l < 32; l++)
            free(c->warps[i].saves[l].bytes);
        free(c->warps[i].saves);
    }
    free(c->warps);
    free(c->smem);
    free(c->sh);
    free(c->shc);
    free(c->mbclk);
    free(c->mb);
    free(c->carr);
    free(c->cwait);
}

/* Register frames are large and sparsely written: a warp's frame is a
 * row of 256 bytes per register, and a launch writes the rows of the
 * registers that hold junk or constants in every warp of its window, so
 * with 4 KiB pages its first touches fault in nearly every page of them,
 * each fault costing more than the page's use (a fifth of lab 15's CPU
 * judge).  Where the kernel offers transparent huge pages for the asking,
 * a frame buffer of 2 MiB or more takes them, faulting in 2 MiB at once. */
enum { HUGE_PAGE = 2 << 20 };

static uint64_t *frames_alloc(size_t words)
{
    size_t bytes = words * sizeof(uint64_t);
    void *p = NULL;
    if (bytes < HUGE_PAGE)
        return malloc(bytes);
    bytes = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (posix_memalign(&p, HUGE_PAGE, bytes))
        return NULL;
    (void)madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

/* A host thread's window of R->nctas blocks, the kernel's register
 * frames (and their definedness, with hazards) in one buffer: the
 * emulator's kept one when KEEP (the caller's thread), grown if too
 * small.  0 or -1. */
static int worker_alloc(struct run *r, const struct emu_kernel *k, int scratch_used, int keep)
{
    size_t nframes = (size_t)r->nctas * r->nwarps, per = (size_t)r->f->nslots * 32;
    size_t need = nframes * per + (r->hazards ? nframes * (size_t)r->f->nslots *
                                                    (sizeof(struct uslot) / sizeof(uint64_t)) : 0);
    r->sh_words = (r->smem_bytes + 3) / 4;
    r->ctas = calloc(r->nctas, sizeof *r->ctas);
    r->cbars = calloc(r->nctas / r->clsize, sizeof *r->cbars);
    if (!r->ctas || !r->cbars)
        return -1;
    if (keep && r->e->frame_cap < need) {
        free(r->e->frame_buf);
        r->e->frame_cap = 0;
        if (!(r->e->frame_buf = frames_alloc(need)))
            return -1;
        r->e->frame_cap = need;
    }
    r->frame_buf = keep ? NULL : frames_alloc(need);
    uint64_t *frames = keep ? r->e->frame_buf : r->frame_buf;
    if (!frames)
        return -1;
    for (uint32_t i = 0; i < r->nctas; i++) {
        struct cta *c = &r->ctas[i];
        c->rank = i % r->clsize;
        c->first = c - c->rank;
        c->cbar = &r->cbars[i / r->clsize];
        struct uslot *uframes = (struct uslot *)(void *)(frames + nframes * per);
        if (cta_alloc(r, c, k, scratch_used, frames + (size_t)i * r->nwarps * per,
                      uframes + (size_t)i * r->nwarps * r->f->nslots))
            return -1;
    }
    return 0;
}

static void worker_free(struct run *r)
{
    free(r->frame_buf);
    r->frame_buf = NULL;
    for (uint32_t i = 0; r->ctas && i < r->nctas; i++)
        cta_free(r, &r->ctas[i]);
    free(r->ctas);
    free(r->cbars);
    r->ctas = NULL;
    r->cbars = NULL;
    emu_shadow_free(r);
}

/* ---- blocks ---------------------------------------------------------------------- */

/* Block B (its linear index) starts in C: every thread at the kernel's
 * first instruction, shared memory junk as on the GPU. */
static void cta_start(struct run *r, struct cta *c, uint64_t b)
{
    c->index = b;
    c->active = 1;
    /* Blocks of one launch run at paces of their own, as on a GPU whose
     * SMs serve different loads: the order they finish in is shuffled
     * further than their quanta alone would shuffle it. */
    c->pace = 1 + (int)(rng_next(&r->rng) & 7);
    c->ran = c->progressed = 0;
    /* with clusters, blocks go cluster by cluster: B's cluster and its
     * rank in it give its place in the grid */
    uint64_t q = b / r->clsize, k = b % r->clsize;
    unsigned ncl0 = r->grid[0] / r->cl[0], ncl1 = r->grid[1] / r->cl[1];
    c->ctaid[0] = (unsigned)(q % ncl0 * r->cl[0] + k % r->cl[0]);
    c->ctaid[1] = (unsigned)(q / ncl0 % ncl1 * r->cl[1] + k / r->cl[0] % r->cl[1]);
    c->ctaid[2] = (unsigned)(q / ((uint64_t)ncl0 * ncl1) * r->cl[2] + k / ((uint64_t)r->cl[0] * r->cl[1]));
    memset(c->carr, 0, r->nthreads * sizeof *c->carr);
    memset(c->cwait, 0, r->nthreads * sizeof *c->cwait);
    c->carr_any = 0;
    if (!c->rank)
        memset(c->cbar, 0, sizeof *c->cbar);
    memset(c->smem, 0xa5, r->smem_bytes);
    r->cta = c;
    for (uint32_t i = 0; i < r->nwarps; i++) {
        struct warp *w = &c->warps[i];
        uint32_t first = i * 32, left = r->nthreads - first;
        w->live = left >= 32 ? 0xffffffffu : (1u << left) - 1;
        w->exited = w->at_bar = w->wsync = 0;
        w->bar_whole = 0;
        memset(w->bar_wait, 0, sizeof w->bar_wait);
        w->uni = 1;
        w->hint = 0;
        w->upc = (uint32_t)r->f->first;
        memset(w->depth, 0, sizeof w->depth);
        emu_async_reset(w);
        for (int l = 0; w->saves && l < 32; l++)
            w->saves[l].len = w->saves[l].at = 0;
        w->spin_at = NULL;
        w->bar_away = 0;
        w->spin_count = 0;
        w->yield = 0;
        w->cycles = 0;
        w->wepoch = 0;
        for (int l = 0; l < 32; l++)
            w->pc[l] = (uint32_t)r->f->first;
        emu_warp_sregs(r, w);
        if (r->hazards)
            emu_undef_block(r, w);
    }
    c->live_threads = r->nthreads;
    memset(c->bar_count, 0, sizeof c->bar_count);
    memset(c->bar_expect, 0, sizeof c->bar_expect);
    memset(c->bar_red, 0, sizeof c->bar_red);
    memset(c->bar_insn, 0, sizeof c->bar_insn);
    c->epoch = 0;
    c->gen++;
    c->blk_release = c->blk_acquire = 0;
    c->sig_seen = 0;
    c->acq_after_sig = 0;
    if (c->mbclk)
        memset(c->mbclk, 0, r->nthreads * sizeof *c->mbclk);
    c->nmb = 0;
    c->base_cycles = r->clock;
}

/* The next block of the grid for this host thread, unless every block is
 * taken or a lower one has failed; 1 with *B set, or 0. */
static int take(struct pool *p, uint64_t *b, uint32_t n)
{
    pthread_mutex_lock(&p->lock);
    int ok = p->next < p->stop;
    if (ok) {
        *b = p->next;
        p->next += n;
    }
    pthread_mutex_unlock(&p->lock);
    return ok;
}

/* The next cluster (a block, without clusters) into the window's slots
 * from FIRST on; 0 when none is left. */
static int cluster_start(struct run *r, struct pool *p, struct cta *first)
{
    uint64_t b;
    if (!take(p, &b, r->clsize))
        return 0;
    for (uint32_t i = 0; i < r->clsize; i++)
        cta_start(r, first + i, b + i);
    return 1;
}

static void block_failed(struct run *r, struct pool *p, struct cta *c);

/* C leaves the window without ending (it failed, or a lower block did):
 * its releases so far count for the stores it made, as an ended block's
 * do, so a lower block running on is not held to a block the GPU would
 * have stopped; out of memory there, they do not. */
static void cta_drop(struct run *r, struct cta *c)
{
    if (r->hazards) {
        r->cta = c;
        if (emu_shadow_block_end(r)) {
            r->st = EMU_OK;
            memset(r->err, 0, sizeof *r->err);
        }
    }
    c->active = 0;
}

/* C's threads have all exited: its releases are kept for the hazard
 * shadow, and the next block takes its place. */
static void block_end(struct run *r, struct pool *p, struct cta *c)
{
    if (r->hazards && emu_shadow_block_end(r)) {
        block_failed(r, p, c);
        return;
    }
    c->active = 0;
    r->clock += 1000;
    /* a cluster's slots are taken again when all its blocks have ended:
     * until then the others may read this one's shared memory (a fault) */
    for (uint32_t i = 0; i < r->clsize; i++)
        if (c->first[i].active)
            return;
    cluster_start(r, p, c->first);
}

/* C stopped the launch (r->st, r->err).  Its error is kept when C is the
 * lowest block to fail so far, so the launch reports the same block
 * whichever ran first; a budget that ran out never replaces an error
 * found before it (the budget ran out on blocks the GPU had stopped). */
static void block_failed(struct run *r, struct pool *p, struct cta *c)
{
    if (r->st == EMU_OK)
        r->st = EMU_FAULT;
    pthread_mutex_lock(&p->lock);
    if (c->index < p->stop && !(r->st == EMU_LIMIT && p->st != EMU_OK)) {
        __atomic_store_n(&p->stop, c->index, __ATOMIC_RELAXED);
        p->err = *r->err;
        p->st = r->st;
    }
    pthread_mutex_unlock(&p->lock);
    r->st = EMU_OK;
    memset(r->err, 0, sizeof *r->err);
    /* a cluster stops as one: its other blocks would find this one's
     * shared memory gone and report that instead */
    for (uint32_t i = 0; i < r->clsize; i++)
        if (c->first[i].active)
            cta_drop(r, &c->first[i]);
}

/* C ran a round in which none of its warps could run: its threads wait
 * at barriers or warp operations no other thread of it will reach, which
 * no other block can change. */
static void block_deadlocked(struct run *r, struct cta *c)
{
    r->cta = c;
    for (uint32_t i = 0; i < r->nwarps; i++) {
        struct warp *w = &c->warps[i];
        if (w->at_bar) {
            int l = __builtin_ctz(w->at_bar), id = 0;
            while (id < NBAR - 1 && !((w->bar_wait[id] >> l) & 1))
                id++;
            emu_hazard(r, w, l, (int)w->pc[l] - 1,
                       "waits at barrier %d, which the block's other threads never reach", id);
            return;
        }
    }
    emu_hazard(r, &c->warps[0], 0, r->f->first, "deadlocks (mask 0x%x)", 0);
}

/* Runs blocks from P in R's window until none is left: rounds in which
 * every runnable warp of every resident block gets one quantum, warp by
 * warp across the blocks from a seeded starting point, each quantum's
 * length seeded too. */
static void worker_loop(struct run *r, struct pool *p)
{
    uint32_t nw = r->nctas, total = nw * r->nwarps;
    uint64_t drain_end = UINT64_MAX;
    int waiting = 0, ran_any = 1, wake_all = 0;
    for (uint32_t s = 0; s < nw && cluster_start(r, p, &r->ctas[s]); s += r->clsize)
        ;
    for (;;) {
        uint64_t stop = __atomic_load_n(&p->stop, __ATOMIC_RELAXED);
        if (stop < r->nblocks && drain_end == UINT64_MAX)
            drain_end = r->stats.thread_instructions + DRAIN_LIMIT;
        int resident = 0;
        for (uint32_t s = 0; s < nw; s++) {
            struct cta *c = &r->ctas[s];
            if (c->active && c->index > stop)
                cta_drop(r, c);
            resident |= c->active;
            c->ran = c->progressed = 0;
        }
        if (!resident || r->stats.thread_instructions > drain_end)
            break;
        /* a round in which every warp waited on a flag: nobody can change
         * one, so they all run (and spend the budget, as a GPU would hang) */
        wake_all = waiting && !ran_any;
        waiting = ran_any = 0;
        uint32_t start = total > 1 ? (uint32_t)(rng_next(&r->rng) % total) : 0;
        for (uint32_t k = 0; k < total; k++) {
            uint32_t i = start + k < total ? start + k : start + k - total;
            struct cta *c = &r->ctas[i % nw];
            struct warp *w = &c->warps[i / nw];
            if (!c->active || !(w->live & ~w->exited))
                continue;
            c->ran = 1;
            r->cta = c;
            int quantum = total > 1 ? (16 + (int)(rng_next(&r->rng) & 255)) * c->pace : 1 << 30;
            if (w->yield) {
                /* a spin-wait: it runs again once its flag has changed */
                uint64_t v = 0;
                memcpy(&v, w->spin_at, w->spin_bytes);
                if (v == w->spin_val && !wake_all) {
                    waiting = 1;
                    c->progressed = 1;  /* waiting on another block is no deadlock */
                    continue;
                }
                w->yield = 0;
                w->spin_count = 0;
            }
            ran_any = 1;
            int s = emu_warp_run(r, w, quantum, &c->progressed);
            if (s < 0)
                block_failed(r, p, c);
            else if (!c->live_threads)
                block_end(r, p, c);
        }
        for (uint32_t s = 0; s < nw; s++) {
            struct cta *c = &r->ctas[s];
            if (c->active && c->ran && !c->progressed) {
                block_deadlocked(r, c);
                block_failed(r, p, c);
            }
        }
    }
}

/* ---- host threads ------------------------------------------------------------------ */

struct worker {
    struct run r;
    struct emu_error err;
    struct pool *pool;
    pthread_t thread;
    int started;
};

static void *worker_main(void *arg)
{
    struct worker *wk = arg;
    worker_loop(&wk->r, wk->pool);
    return NULL;
}

static enum emu_status sched_one(struct run *t, const struct emu_kernel *k, int scratch_used,
                                 struct pool *p)
{
    enum emu_status st = EMU_NOMEM;
    if (!worker_alloc(t, k, scratch_used, 1)) {
        t->rng |= 1;
        worker_loop(t, p);
        st = p->st;
    }
    worker_free(t);
    return st;
}

/* THREADS host threads, each with a copy of the set-up run T and its own
 * window; their counters are added into T's. */
static enum emu_status sched_threads(struct run *t, const struct emu_kernel *k, int scratch_used,
                                     int threads, struct pool *p)
{
    struct worker *wk = calloc((size_t)threads, sizeof *wk);
    enum emu_status st = EMU_NOMEM;
    if (!wk)
        return st;
    for (int i = 0; i < threads; i++) {
        wk[i].r = *t;
        wk[i].r.err = &wk[i].err;
        wk[i].r.pool = p;
        wk[i].pool = p;
        wk[i].r.budget_left = 0;
        wk[i].r.rng = (t->rng ^ (0x9E3779B97F4A7C15ull * (uint64_t)(i + 1))) | 1;
        memset(&wk[i].r.stats, 0, sizeof wk[i].r.stats);
        emu_count_fresh(&wk[i].r);
        if (worker_alloc(&wk[i].r, k, scratch_used, 0))
            goto out;
    }
    for (int i = 0; i < threads; i++)
        wk[i].started = pthread_create(&wk[i].thread, NULL, worker_main, &wk[i]) == 0;
    int any = 0;
    for (int i = 0; i < threads; i++)
        if (wk[i].started) {
            pthread_join(wk[i].thread, NULL);
            any = 1;
        }
    /* a thread that did not start leaves its blocks to the others; none
     * started: this one runs them */
    if (!any)
        worker_loop(&wk[0].r, p);
    st = p->st;
out:
    for (int i = 0; i < threads; i++) {
        t->stats.warp_instructions += wk[i].r.stats.warp_instructions;
        t->stats.thread_instructions += wk[i].r.stats.thread_instructions;
        t->stats.divisions += wk[i].r.stats.divisions;
        emu_count_merge(t, &wk[i].r);
        worker_free(&wk[i].r);
    }
    free(wk);
    return st;
}

/* Runs the grid of T on THREADS host threads. */
enum emu_status emu_sched_run(struct run *t, const struct emu_kernel *k, int scratch_used,
                              int threads, struct emu_error *err)
{
    struct pool p;
    memset(&p, 0, sizeof p);
    if (pthread_mutex_init(&p.lock, NULL)) {
        emu_error_set(err, EMU_NOMEM, NULL, 0, NULL, "cannot start the launch's threads");
        return EMU_NOMEM;
    }
    p.stop = t->nblocks;
    p.budget = t->budget_left;
    enum emu_status st = threads > 1 ? sched_threads(t, k, scratch_used, threads, &p)
                                     : sched_one(t, k, scratch_used, &p);
    if (p.st != EMU_OK)
        *err = p.err;
    pthread_mutex_destroy(&p.lock);
    return st;
}
