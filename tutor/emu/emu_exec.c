/* emu_exec.c — modules and launches: a module loaded and looked up, a
 * launch checked and set up (its parameters, shared and local memory
 * sizes, its window of resident blocks) and handed to the block scheduler
 * (emu_sched.c), which runs its blocks. */
#include "emu/emu_run.h"

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
        free(m->vars[i].init);
    }
    for (int i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].name);
        free(m->funcs[i].consts);
        free(m->funcs[i].sregs);
        free(m->funcs[i].open);
        free(m->funcs[i].open_salt);
        free(m->funcs[i].lreg);
    }
    for (int i = 0; i < m->nfiles; i++)
        free(m->files[i].name);
    free(m->vars);
    free(m->funcs);
    free(m->files);
    free(m->insn);
    free(m->refused);
    free(m->shvars);
    free(m->brxt);
    free(m->kernels);
    free(m);
}

void emu_module_reset(struct emu_module *m)
{
    for (int i = 0; i < m->nvars; i++) {
        const struct emu_var *v = &m->vars[i];
        /* the bytes module_var zeroed (emu_decl.c) */
        memset((void *)(uintptr_t)v->addr, 0, ((v->bytes ? v->bytes : 1) + 15) & ~(size_t)15);
        if (v->init)
            memcpy((void *)(uintptr_t)v->addr, v->init, v->init_bytes);
    }
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
    if (st == EMU_OK)
        emu_warp_bind(m);
    if (st == EMU_OK && (emu_open_regs(m) || emu_pack_slots(m))) {
        emu_error_set(err, EMU_NOMEM, NULL, 0, NULL, "out of memory loading PTX");
        st = EMU_NOMEM;
    }
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
    info->local_bytes = f->is_entry ? f->local_span : f->local_bytes;
    info->max_threads = f->max_threads;
    info->slots = f->nslots;
}

/* The counters of E's launches so far. */
void emu_stats(const struct emu *e, struct emu_stats *s)
{
    *s = e->stats;
}

/* splitmix64's finaliser: every input bit moves every output bit. */
static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static int launch_error(struct emu_error *err, enum emu_status st, const char *msg)
{
    emu_error_set(err, st, NULL, 0, NULL, "%s", msg);
    return st;
}

/* ---- launches -------------------------------------------------------------------- */

/* The first refused instruction function FN reaches, itself or through
 * its calls (SEEN marks the functions already looked at); -1 when none. */
static int refused_from(const struct emu_module *m, int fn, uint8_t *seen)
{
    if (seen[fn])
        return -1;
    seen[fn] = 1;
    const struct emu_func *f = &m->funcs[fn];
    for (int i = f->first; i < f->first + f->count; i++) {
        const struct emu_insn *in = &m->insn[i];
        if (in->step == NULL || emu_ops[in->op].cls == C_REFUSED ||
            (emu_ops[in->op].cls == C_ALU && !in->alu))
            return i;
        int at = -1;
        if (in->op == OP_CALL && in->target >= 0)
            at = refused_from(m, in->target, seen);
        /* through a pointer: any function the module defines */
        for (int g = 0; in->op == OP_CALL && in->target < 0 && at < 0 && g < m->nfuncs; g++)
            if (!m->funcs[g].is_entry && !m->funcs[g].is_extern)
                at = refused_from(m, g, seen);
        if (at >= 0)
            return at;
    }
    return -1;
}

/* EMU_UNSUPPORTED when kernel FN reaches a form the emulator does not run,
 * naming the first one and its line; EMU_OK otherwise.  A file's other
 * kernels are judged all the same. */
static enum emu_status refuse_unemulated(const struct emu_module *m, int fn, struct emu_error *err)
{
    uint8_t *seen = calloc((size_t)m->nfuncs, 1);
    if (!seen)
        return launch_error(err, EMU_NOMEM, "out of memory setting up the launch");
    int at = refused_from(m, fn, seen);
    free(seen);
    if (at < 0)
        return EMU_OK;
    const struct emu_insn *in = &m->insn[at];
    char what[64];
    snprintf(what, sizeof what, "%s", in->op == OP_REFUSED ? m->refused[in->aux] : emu_ops[in->op].name);
    char where[160];
    if (in->line)
        snprintf(where, sizeof where, "%s:%u", emu_file_name(m, in->file), in->line);
    else
        snprintf(where, sizeof where, "PTX instruction %d", at);
    emu_error_set(err, EMU_UNSUPPORTED, what, (int)in->line, emu_file_name(m, in->file),
                  "needs a GPU: %s is not emulated (%s)", what, where);
    return EMU_UNSUPPORTED;
}

/* Runs K over the grid L describes, cooperatively or not. */
static enum emu_status launch(struct emu *e, const struct emu_kernel *k, const struct emu_launch *l,
                              int cooperative, struct emu_error *err)
{
    struct emu_error scratch;
    if (!err)
        err = &scratch;
    memset(err, 0, sizeof *err);
    const struct emu_func *f = &k->m->funcs[k->fn];
    if (!f->is_entry)
        return launch_error(err, EMU_FAULT, "not a kernel (.entry)");
    enum emu_status refused = refuse_unemulated(k->m, k->fn, err);
    if (refused != EMU_OK)
        return refused;
    uint64_t nthreads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    uint64_t nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    if (!nthreads || !nblocks || nthreads > 1024 || l->block[2] > 64 || l->grid[1] > 65535 ||
        l->grid[2] > 65535)
        return launch_error(err, EMU_FAULT, "invalid launch configuration (a zero dimension, or "
                                            "more than 1024 threads a block)");
    if (nthreads > f->max_threads)
        return launch_error(err, EMU_FAULT, "more threads a block than the kernel's .maxntid allows");
    /* clusters (.reqnctapercluster, __cluster_dims__): the grid must be
     * whole clusters, and one of at most 8 blocks (the portable size; a
     * larger one needs an attribute the launcher cannot set) */
    uint32_t cl[3] = {1, 1, 1};
    for (int i = 0; i < 3 && f->cluster[0]; i++)
        cl[i] = f->cluster[i];
    uint64_t clsize = (uint64_t)cl[0] * cl[1] * cl[2];
    char why[160];
    if (clsize > 8) {
        snprintf(why, sizeof why, "a cluster of %llu blocks: at most 8 are portable",
                 (unsigned long long)clsize);
        return launch_error(err, EMU_FAULT, why);
    }
    if (l->grid[0] % cl[0] || l->grid[1] % cl[1] || l->grid[2] % cl[2]) {
        snprintf(why, sizeof why, "the grid (%u,%u,%u) is not a whole number of clusters of "
                 "(%u,%u,%u) blocks", l->grid[0], l->grid[1], l->grid[2], cl[0], cl[1], cl[2]);
        return launch_error(err, EMU_FAULT, why);
    }
    /* before any thread runs: the heap is a range of the map they read */
    if (k->m->uses_heap && emu_heap_open(e))
        return launch_error(err, EMU_NOMEM, "no host memory for the device heap");
    struct run r;
    memset(&r, 0, sizeof r);
    memcpy(r.cl, cl, sizeof r.cl);
    r.clsize = (uint32_t)clsize;
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
    r.local_bytes = f->local_span;
    r.lreg = f->lreg;
    r.nlreg = f->nlreg;
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
    /* call scratch for each warp's lanes (128 KiB a warp): only for calls,
     * printf, assert and the .param variables a body declares, not for
     * the kernel's own parameters, which every kernel loads */
    int scratch_used = 0;
    for (int i = 0; i < f->count; i++) {
        const struct emu_insn *in = &r.code[f->first + i];
        const struct emu_opnd *ao = &in->o[in->op == OP_LD];
        if (in->op == OP_VPRINTF || in->op == OP_CALL || in->op == OP_ASSERT || emu_ops[in->op].cls == C_HEAP ||
            ((in->op == OP_ST || in->op == OP_LD) && in->space == SP_PARAM &&
             (ao->kind != OK_ADDR || ao->reg >= 0 || (uint64_t)ao->off >= PARAM_SCRATCH)))
            scratch_used = 1;
    }
    /* a cluster's blocks share one host thread, as they read each
     * other's shared memory */
    int threads = e->cfg.threads > 1 && !r.hazards && clsize == 1 ? e->cfg.threads : 1;
    if ((uint64_t)threads > nblocks)
        threads = (int)nblocks;
    r.nctas = emu_sched_window(e, r.nwarps, r.smem_bytes, (nblocks + (uint64_t)threads - 1) /
                                                              (uint64_t)threads);
    r.nctas = r.nctas < clsize ? (uint32_t)clsize : r.nctas / (uint32_t)clsize * (uint32_t)clsize;
    if (cooperative && (st = emu_coop_begin(&r, &threads)) != EMU_OK)
        goto out;
    r.ws_missing = !cooperative && emu_coop_reads_workspace(&r);
    /* the interleaving: from the seed and the launch's count, so repeated
     * launches differ and a seed and launch sequence repeat */
    r.rng = mix64(mix64(e->cfg.seed) + ++e->launches);
    /* %gridid: large and growing from launch to launch, as on a GPU */
    r.gridid = (mix64(e->cfg.seed) & 0xffffull) * 4096 + e->launches * 3 + 0x2000;
    st = emu_sched_run(&r, k, scratch_used, threads, err);
out:
    emu_coop_end(&r);
    if (st == EMU_NOMEM && err->status == EMU_OK)
        emu_error_set(err, EMU_NOMEM, NULL, 0, NULL, "out of memory setting up the launch");
    e->stats.warp_instructions += r.stats.warp_instructions;
    e->stats.thread_instructions += r.stats.thread_instructions;
    e->stats.divisions += r.stats.divisions;
    emu_count_end(&r);
    free(r.params);
    return st;
}

enum emu_status emu_launch(struct emu *e, const struct emu_kernel *k, const struct emu_launch *l,
                           struct emu_error *err)
{
    return launch(e, k, l, 0, err);
}

enum emu_status emu_launch_cooperative(struct emu *e, const struct emu_kernel *k,
                                       const struct emu_launch *l, struct emu_error *err)
{
    return launch(e, k, l, 1, err);
}
