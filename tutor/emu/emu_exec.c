/* emu_exec.c — modules and launches: a module loaded and looked up, a
 * launch set up (parameters, shared and local memory, each warp's register
 * frame), its blocks run one after another, each block's warps interleaved
 * in seeded quanta until every thread has exited (emu_warp.c runs them). */
#include "emu/emu_run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- modules ---------------------------------------------------------------- */

/* Frees M: its variables are unmapped first. */
void emu_module_unload(struct emu_module *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nvars; i++) {
        emu_mem_unmap(m->e, (void *)(uintptr_t)m->vars[i].addr);
        free((void *)(uintptr_t)m->vars[i].addr);
        free(m->vars[i].name);
    }
    for (int i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].name);
        free(m->funcs[i].consts);
        free(m->funcs[i].sregs);
    }
    for (int i = 0; i < m->nfiles; i++)
        free(m->files[i].name);
    free(m->vars);
    free(m->funcs);
    free(m->files);
    free(m->insn);
    free(m->kernels);
    free(m);
}

/* Parses PTX into a module whose variables are mapped in E. */
enum emu_status emu_module_load(struct emu *e, const char *ptx, size_t len,
                                struct emu_module **out, struct emu_error *err)
{
    struct emu_error scratch;
    if (!err)
        err = &scratch;
    memset(err, 0, sizeof *err);
    *out = NULL;
    struct emu_module *m = calloc(1, sizeof *m);
    if (!m) {
        emu_error_set(err, EMU_NOMEM, NULL, 0, NULL, "out of memory loading PTX");
        return EMU_NOMEM;
    }
    m->e = e;
    enum emu_status st = emu_parse(m, ptx, len, err);
    if (st == EMU_OK) {
        m->kernels = calloc((size_t)m->nfuncs + 1, sizeof *m->kernels);
        if (!m->kernels) {
            emu_error_set(err, EMU_NOMEM, NULL, 0, NULL, "out of memory loading PTX");
            st = EMU_NOMEM;
        } else {
            for (int i = 0; i < m->nfuncs; i++) {
                m->kernels[i].m = m;
                m->kernels[i].fn = i;
            }
        }
    }
    if (st != EMU_OK) {
        emu_module_unload(m);
        return st;
    }
    *out = m;
    return EMU_OK;
}

/* The .entry named NAME, or NULL. */
const struct emu_kernel *emu_module_kernel(const struct emu_module *m, const char *name)
{
    for (int i = 0; m && name && i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && !strcmp(m->funcs[i].name, name))
            return &m->kernels[i];
    return NULL;
}

/* The Nth .entry, or NULL. */
const struct emu_kernel *emu_module_kernel_at(const struct emu_module *m, int n)
{
    for (int i = 0; m && i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && n-- == 0)
            return &m->kernels[i];
    return NULL;
}

/* A module variable's address and size; 0 or -1. */
int emu_module_global(const struct emu_module *m, const char *name, void **addr, size_t *bytes)
{
    for (int i = 0; m && name && i < m->nvars; i++)
        if (!strcmp(m->vars[i].name, name)) {
            if (addr)
                *addr = (void *)(uintptr_t)m->vars[i].addr;
            if (bytes)
                *bytes = m->vars[i].bytes;
            return 0;
        }
    return -1;
}

/* What the declarations say of K. */
void emu_kernel_info(const struct emu_kernel *k, struct emu_kernel_info *info)
{
    const struct emu_func *f = &k->m->funcs[k->fn];
    memset(info, 0, sizeof *info);
    info->name = f->name;
    info->nparams = f->nparams;
    for (int i = 0; i < f->nparams; i++) {
        info->param_offset[i] = f->param_offset[i];
        info->param_size[i] = f->param_size[i];
    }
    info->static_smem = k->m->module_smem + f->static_smem;
    info->local_bytes = f->local_bytes;
    info->max_threads = f->max_threads;
}

/* The counters of E's launches so far. */
void emu_stats(const struct emu *e, struct emu_stats *s)
{
    *s = e->stats;
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

/* ---- blocks and launches ------------------------------------------------------------ */

static int run_block(struct run *r)
{
    for (uint32_t i = 0; i < r->nwarps; i++) {
        struct warp *w = &r->warps[i];
        uint32_t first = i * 32, left = r->nthreads - first;
        w->live = left >= 32 ? 0xffffffffu : (1u << left) - 1;
        w->exited = w->at_bar = w->wsync = 0;
        w->uni = 1;
        w->upc = (uint32_t)r->f->first;
        memset(w->depth, 0, sizeof w->depth);
        w->cycles = 0;
        w->wepoch = 0;
        for (int l = 0; l < 32; l++)
            w->pc[l] = (uint32_t)r->f->first;
        emu_warp_sregs(r, w);
    }
    r->live_threads = r->nthreads;
    memset(r->bar_count, 0, sizeof r->bar_count);
    memset(r->bar_expect, 0, sizeof r->bar_expect);
    memset(r->bar_red, 0, sizeof r->bar_red);
    r->epoch = 0;
    r->gen++;
    for (;;) {
        int active = 0, progressed = 0;
        uint32_t start = r->nwarps > 1 ? (uint32_t)(rng_next(&r->rng) % r->nwarps) : 0;
        for (uint32_t k = 0; k < r->nwarps; k++) {
            struct warp *w = &r->warps[(start + k) % r->nwarps];
            if (!(w->live & ~w->exited))
                continue;
            active = 1;
            int quantum = r->nwarps > 1 ? 16 + (int)(rng_next(&r->rng) & 255) : 1 << 30;
            for (int q = 0; q < quantum; q++) {
                int s = emu_warp_step(r, w);
                if (s < 0)
                    return -1;
                if (s == 0)
                    break;
                progressed = 1;
            }
        }
        if (!active)
            break;
        if (!progressed) {
            for (uint32_t i = 0; i < r->nwarps; i++) {
                struct warp *w = &r->warps[i];
                if (w->at_bar) {
                    int l = __builtin_ctz(w->at_bar);
                    return emu_warp_hazard(r, w, l, (int)w->pc[l] - 1,
                                       "waits at barrier %u, which the block's other threads never reach",
                                       w->bar_id[l]);
                }
            }
            return emu_warp_hazard(r, &r->warps[0], 0, r->f->first, "deadlocks (mask 0x%x)", 0);
        }
    }
    if (r->hazards)
        emu_hazard_block_end(r);
    r->base_cycles += 1000;
    return 0;
}

static int launch_error(struct emu_error *err, enum emu_status st, const char *msg)
{
    emu_error_set(err, st, NULL, 0, NULL, "%s", msg);
    return st;
}

/* The budget is handed to host threads in slices this big. */
#define BUDGET_SLICE (1ull << 22)

/* Takes more of the launch's budget so that N more thread-instructions fit;
 * 0, or -1 when it is spent. */
int emu_budget_refill(struct run *r, uint64_t n)
{
    if (!r->pool)
        return -1;
    pthread_mutex_lock(&r->pool->lock);
    uint64_t want = n > BUDGET_SLICE ? n : BUDGET_SLICE;
    uint64_t take = r->pool->budget < want ? r->pool->budget : want;
    int ok = r->budget_left + take >= n;
    if (ok) {
        r->pool->budget -= take;
        r->budget_left += take;
    }
    pthread_mutex_unlock(&r->pool->lock);
    return ok ? 0 : -1;
}

/* A host thread's own blocks' state: shared memory, its shadow, warps with
 * their register frames, call scratch and local memory.  0 or -1. */
static int worker_alloc(struct run *r, const struct emu_kernel *k, int scratch_used)
{
    const struct emu_func *f = r->f;
    r->smem = malloc(r->smem_bytes + 16);
    r->warps = calloc(r->nwarps, sizeof *r->warps);
    if (!r->smem || !r->warps)
        return -1;
    for (uint32_t i = 0; i < r->nwarps; i++) {
        struct warp *w = &r->warps[i];
        w->index = (int)i;
        w->frames = calloc((size_t)k->m->nfuncs, sizeof *w->frames);
        if (!w->frames)
            return -1;
        w->R = w->frames[k->fn] = calloc((size_t)f->nslots * 32, sizeof *w->R);
        if (!w->R)
            return -1;
        if (scratch_used && !(w->scratch = calloc(32, SCRATCH_BYTES)))
            return -1;
        if (r->local_bytes && !(w->local = calloc(32, r->local_bytes)))
            return -1;
        emu_frame_constants(r, k->fn, w->R);
    }
    if (r->hazards) {
        r->sh_words = (r->smem_bytes + 3) / 4;
        r->sh = calloc(r->sh_words + 1, sizeof *r->sh);
        if (!r->sh)
            return -1;
    }
    return 0;
}

static void worker_free(struct run *r)
{
    for (uint32_t i = 0; r->warps && i < r->nwarps; i++) {
        for (int fn = 0; r->warps[i].frames && fn < r->m->nfuncs; fn++)
            free(r->warps[i].frames[fn]);
        free(r->warps[i].frames);
        free(r->warps[i].scratch);
        free(r->warps[i].local);
    }
    free(r->warps);
    free(r->smem);
    free(r->sh);
    free(r->gh);
    free(r->blk_writes);
    r->warps = NULL;
    r->smem = NULL;
    r->sh = NULL;
    r->gh = NULL;
    r->blk_writes = NULL;
}

/* Runs block B (its linear index) of the grid: 0, or -1 with r->st set. */
static int run_block_at(struct run *r, uint64_t b)
{
    r->block_linear = b;
    /* the block's interleaving: from the seed and the block alone, so that
     * it is the same whichever host thread runs the block */
    uint64_t x = (r->e->cfg.seed + b + 1) * 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    r->rng = (x ^ (x >> 31)) | 1;
    r->ctaid[0] = (unsigned)(b % r->grid[0]);
    r->ctaid[1] = (unsigned)(b / r->grid[0] % r->grid[1]);
    r->ctaid[2] = (unsigned)(b / ((uint64_t)r->grid[0] * r->grid[1]));
    /* shared memory starts as junk, as on the GPU */
    memset(r->smem, 0xa5, r->smem_bytes);
    if (run_block(r)) {
        if (r->st == EMU_OK)
            r->st = EMU_FAULT;
        return -1;
    }
    return 0;
}

struct worker {
    struct run r;
    struct emu_error err;
    pthread_t thread;
    int started;
};

/* A host thread: blocks in order from the pool until none is left or one
 * before the next has failed; a failure is kept when its block is the
 * first to fail so far, so the launch reports the same one every time. */
static void *worker_main(void *arg)
{
    struct worker *wk = arg;
    struct run *r = &wk->r;
    struct pool *p = r->pool;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        uint64_t b = p->next < p->stop ? p->next++ : UINT64_MAX;
        pthread_mutex_unlock(&p->lock);
        if (b == UINT64_MAX)
            break;
        if (run_block_at(r, b)) {
            pthread_mutex_lock(&p->lock);
            if (b < p->stop) {
                p->stop = b;
                p->err = wk->err;
                p->st = r->st;
            }
            pthread_mutex_unlock(&p->lock);
            break;
        }
    }
    return NULL;
}

/* The grid on THREADS host threads, each with a copy of the set-up run T. */
static enum emu_status run_threads(struct run *t, const struct emu_kernel *k, int scratch_used,
                                   int threads, struct emu_error *err)
{
    struct pool p;
    memset(&p, 0, sizeof p);
    if (pthread_mutex_init(&p.lock, NULL))
        return launch_error(err, EMU_NOMEM, "cannot start the launch's threads");
    p.stop = t->nblocks;
    p.budget = t->budget_left;
    struct worker *wk = calloc((size_t)threads, sizeof *wk);
    enum emu_status st = EMU_NOMEM;
    if (!wk)
        goto out;
    for (int i = 0; i < threads; i++) {
        wk[i].r = *t;
        wk[i].r.err = &wk[i].err;
        wk[i].r.pool = &p;
        wk[i].r.budget_left = 0;
        memset(&wk[i].r.stats, 0, sizeof wk[i].r.stats);
        if (worker_alloc(&wk[i].r, k, scratch_used))
            goto out;
    }
    for (int i = 0; i < threads; i++)
        wk[i].started = pthread_create(&wk[i].thread, NULL, worker_main, &wk[i]) == 0;
    for (int i = 0; i < threads; i++)
        if (wk[i].started)
            pthread_join(wk[i].thread, NULL);
    /* a thread that did not start leaves its blocks to the others; none
     * started: this one runs them */
    int any = 0;
    for (int i = 0; i < threads; i++)
        any |= wk[i].started;
    if (!any)
        worker_main(&wk[0]);
    st = p.st;
    if (st != EMU_OK)
        *err = p.err;
out:
    if (st == EMU_NOMEM && err->status == EMU_OK)
        emu_error_set(err, EMU_NOMEM, NULL, 0, NULL, "out of memory setting up the launch");
    for (int i = 0; wk && i < threads; i++) {
        t->stats.warp_instructions += wk[i].r.stats.warp_instructions;
        t->stats.thread_instructions += wk[i].r.stats.thread_instructions;
        worker_free(&wk[i].r);
    }
    free(wk);
    pthread_mutex_destroy(&p.lock);
    return st;
}

/* Runs K over the grid L describes. */
enum emu_status emu_launch(struct emu *e, const struct emu_kernel *k, const struct emu_launch *l,
                           struct emu_error *err)
{
    struct emu_error scratch;
    if (!err)
        err = &scratch;
    memset(err, 0, sizeof *err);
    const struct emu_func *f = &k->m->funcs[k->fn];
    if (!f->is_entry)
        return launch_error(err, EMU_FAULT, "not a kernel (.entry)");
    uint64_t nthreads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint64_t nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (!nthreads || !nblocks || nthreads > 1024 || l->block[2] > 64 || l->grid[1] > 65535 ||
        l->grid[2] > 65535)
        return launch_error(err, EMU_FAULT, "invalid launch configuration (a zero dimension, or "
                                            "more than 1024 threads a block)");
    if (nthreads > f->max_threads)
        return launch_error(err, EMU_FAULT, "more threads a block than the kernel's .maxntid allows");
    struct run r;
    memset(&r, 0, sizeof r);
    r.e = e;
    r.m = k->m;
    r.f = f;
    r.code = k->m->insn;
    r.err = err;
    r.hazards = e->cfg.hazards;
    memcpy(r.grid, l->grid, sizeof r.grid);
    memcpy(r.block, l->block, sizeof r.block);
    r.nthreads = (uint32_t)nthreads;
    r.nwarps = (r.nthreads + 31) / 32;
    r.nblocks = nblocks;
    r.budget_on = e->cfg.budget != 0;
    r.budget_left = e->cfg.budget;
    r.dyn_smem = l->dyn_smem;
    uint32_t stat = k->m->module_smem + f->static_smem;
    r.smem_bytes = f->uses_dyn_smem || l->dyn_smem ? ((stat + 15) & ~15u) + l->dyn_smem : stat;
    if (r.smem_bytes > 232448)
        return launch_error(err, EMU_FAULT, "more shared memory a block than the GPU has (227 KiB)");
    r.local_bytes = k->m->local_total;
    r.fn = k->fn;
    r.param_bytes = f->param_bytes;
    enum emu_status st = EMU_NOMEM;
    r.params = calloc(1, f->param_bytes + 16);
    if (!r.params)
        goto out;
    for (int i = 0; i < f->nparams; i++) {
        if (!l->args || !l->args[i]) {
            launch_error(err, EMU_FAULT, "a kernel parameter without a value");
            st = EMU_FAULT;
            goto out;
        }
        memcpy(r.params + f->param_offset[i], l->args[i], f->param_size[i]);
    }
    int scratch_used = 0;
    for (int i = 0; i < f->count; i++) {
        const struct emu_insn *in = &r.code[f->first + i];
        if (in->op == OP_VPRINTF || in->op == OP_CALL || in->op == OP_ASSERT ||
            ((in->op == OP_ST || in->op == OP_LD) && in->space == SP_PARAM))
            scratch_used = 1;
    }
    int threads = e->cfg.threads > 1 && !r.hazards ? e->cfg.threads : 1;
    if ((uint64_t)threads > nblocks)
        threads = (int)nblocks;
    if (threads > 1) {
        st = run_threads(&r, k, scratch_used, threads, err);
        goto out;
    }
    if (worker_alloc(&r, k, scratch_used))
        goto out;
    st = EMU_OK;
    for (uint64_t b = 0; b < nblocks; b++)
        if (run_block_at(&r, b)) {
            st = r.st;
            break;
        }
out:
    if (st == EMU_NOMEM && err->status == EMU_OK)
        emu_error_set(err, EMU_NOMEM, NULL, 0, NULL, "out of memory setting up the launch");
    e->stats.warp_instructions += r.stats.warp_instructions;
    e->stats.thread_instructions += r.stats.thread_instructions;
    worker_free(&r);
    free(r.params);
    return st;
}
