/* emu_exec.c — modules and launches: a block's threads as warps of 32
 * lanes, each warp executing one decoded instruction for the lanes at the
 * lowest pending PC (which reconverges structured code), the block's warps
 * interleaved in seeded quanta, barriers counted per block, the .sync warp
 * operations waiting for the lanes their mask names. */
#include "emu/emu_ops.h"
#include "emu/emu_run.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The cycles one warp instruction advances %clock by. */
#define CPI 4

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

/* ---- warps ------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

static uint64_t sreg_value(const struct run *r, const struct warp *w, int lane, int id)
{
    uint32_t tid = (uint32_t)(w->index * 32 + lane);
    unsigned bx = r->block[0], by = r->block[1];
    switch (id) {
    case SR_TID_X: return tid % bx;
    case SR_TID_Y: return tid / bx % by;
    case SR_TID_Z: return tid / (bx * by);
    case SR_NTID_X: return r->block[0];
    case SR_NTID_Y: return r->block[1];
    case SR_NTID_Z: return r->block[2];
    case SR_CTAID_X: return r->ctaid[0];
    case SR_CTAID_Y: return r->ctaid[1];
    case SR_CTAID_Z: return r->ctaid[2];
    case SR_NCTAID_X: return r->grid[0];
    case SR_NCTAID_Y: return r->grid[1];
    case SR_NCTAID_Z: return r->grid[2];
    case SR_LANEID: return (uint64_t)lane;
    case SR_WARPID: return (uint64_t)(w->index % r->e->cfg.warps_per_sm);
    case SR_NWARPID: return (uint64_t)r->e->cfg.warps_per_sm;
    case SR_SMID: return r->block_linear % (uint64_t)r->e->cfg.sm_count;
    case SR_NSMID: return (uint64_t)r->e->cfg.sm_count;
    case SR_LANEMASK_EQ: return 1u << lane;
    case SR_LANEMASK_LT: return (1u << lane) - 1;
    case SR_LANEMASK_LE: return (uint32_t)((2ull << lane) - 1);
    case SR_LANEMASK_GT: return (uint32_t)~((2ull << lane) - 1);
    case SR_LANEMASK_GE: return (uint32_t)~((1u << lane) - 1);
    case SR_DYN_SMEM: return r->dyn_smem;
    case SR_TOTAL_SMEM: return r->smem_bytes;
    default: return 1;
    }
}

/* Sets a warp's registers that hold constants, once per launch. */
static void warp_constants(const struct run *r, struct warp *w)
{
    const struct emu_func *f = r->f;
    for (int i = 0; i < f->nconsts; i++) {
        uint64_t *s = w->R + (size_t)f->consts[i].slot * 32;
        for (int l = 0; l < 32; l++)
            s[l] = f->consts[i].bits;
    }
}

static void warp_sregs(const struct run *r, struct warp *w)
{
    const struct emu_func *f = r->f;
    for (int i = 0; i < f->nsregs; i++) {
        uint64_t *s = w->R + (size_t)f->sregs[i].slot * 32;
        for (int l = 0; l < 32; l++)
            s[l] = sreg_value(r, w, l, f->sregs[i].sreg);
    }
}

static int unsupported_at(struct run *r, int pc, const char *what)
{
    const struct emu_insn *in = &r->code[pc];
    char w[64];
    snprintf(w, sizeof w, "%s%s%s", emu_op_name[in->op][0] ? emu_op_name[in->op] : what,
             emu_op_name[in->op][0] ? "." : "", emu_op_name[in->op][0] ? emu_type_name[in->type] : "");
    char where[160];
    emu_src_line(r, pc, where, sizeof where);
    emu_error_set(r->err, EMU_UNSUPPORTED, w, (int)in->line, emu_file_name(r->m, in->file),
                  "needs a GPU: %s is not emulated (%s)", w, where);
    r->st = EMU_UNSUPPORTED;
    return -1;
}

static int warp_hazard(struct run *r, struct warp *w, int lane, int pc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int warp_hazard(struct run *r, struct warp *w, int lane, int pc, const char *fmt, ...)
{
    char who[100];
    emu_where(r, w, lane, pc, who, sizeof who);
    const struct emu_insn *in = &r->code[pc];
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char where[160];
    emu_src_line(r, pc, where, sizeof where);
    emu_error_set(r->err, EMU_HAZARD, NULL, (int)in->line, emu_file_name(r->m, in->file),
                  "%s %s (%s)", who, what, where);
    r->st = EMU_HAZARD;
    return -1;
}

/* ---- barriers ------------------------------------------------------------------ */

static void barrier_release(struct run *r, int id)
{
    const struct emu_insn *in = r->bar_insn[id];
    for (uint32_t i = 0; i < r->nwarps; i++) {
        struct warp *w = &r->warps[i];
        uint32_t rel = 0;
        for (uint32_t m = w->at_bar; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            if (w->bar_id[l] == id)
                rel |= 1u << l;
        }
        if (!rel)
            continue;
        w->at_bar &= ~rel;
        if (in && in->op == OP_BAR_RED) {
            uint64_t v = in->sub == SUB_POPC ? r->bar_red[id]
                       : in->sub == SUB_AND  ? (r->bar_red[id] == r->bar_count[id])
                                             : (r->bar_red[id] != 0);
            for (uint32_t m = rel; m; m &= m - 1)
                w->R[(size_t)in->o[0].reg * 32 + (uint32_t)__builtin_ctz(m)] = v;
        }
    }
    r->bar_count[id] = 0;
    r->bar_expect[id] = 0;
    r->bar_red[id] = 0;
    r->bar_insn[id] = NULL;
    r->epoch++;
}

static void barriers_check(struct run *r)
{
    for (int id = 0; id < NBAR; id++) {
        if (!r->bar_count[id])
            continue;
        uint32_t want = r->bar_expect[id] ? r->bar_expect[id] : r->live_threads;
        if (r->bar_count[id] >= want)
            barrier_release(r, id);
    }
}

static int bar_arrive(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                      uint32_t emask, int pc, int wait)
{
    int l0 = __builtin_ctz(mask);
    uint32_t id = (uint32_t)w->R[(size_t)in->o[in->op == OP_BAR_RED ? 1 : 0].reg * 32 + l0];
    int has_count = in->op == OP_BAR_RED ? in->nops > 3 : in->nops > 1;
    uint32_t count = 0;
    if (has_count)
        count = (uint32_t)w->R[(size_t)in->o[in->op == OP_BAR_RED ? 2 : 1].reg * 32 + l0];
    if (id >= NBAR)
        return emu_fault(r, w, l0, pc, "used barrier %u (there are 16)", id);
    if (r->bar_count[id] && r->bar_expect[id] != count)
        return warp_hazard(r, w, l0, pc, "waits at barrier %u with a thread count other threads do not use", id);
    r->bar_expect[id] = count;
    r->bar_count[id] += popc32(emask);
    if (in->op == OP_BAR_RED) {
        const struct emu_opnd *po = &in->o[in->nops - 1];
        for (uint32_t m = emask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            r->bar_red[id] += (uint32_t)((w->R[(size_t)po->reg * 32 + l] & 1) ^ po->neg);
        }
        r->bar_insn[id] = in;
    }
    if (wait) {
        w->at_bar |= emask;
        for (uint32_t m = emask; m; m &= m - 1)
            w->bar_id[__builtin_ctz(m)] = (uint8_t)id;
    }
    barriers_check(r);
    return 0;
}

/* ---- warp-wide operations ------------------------------------------------------- */

/* Whether every lane MEMBERS names has arrived with EMASK: 1 (go on), 0
 * (the lanes here wait), -1 (a named lane exited or never can arrive). */
static int warp_gather(struct run *r, struct warp *w, uint32_t mask, uint32_t emask,
                       uint32_t members, int pc)
{
    uint32_t need = members & w->live;
    uint32_t missing = need & ~emask;
    if (!missing)
        return 1;
    if (missing & w->exited)
        return warp_hazard(r, w, __builtin_ctz(emask ? emask : mask), pc,
                           "runs a .sync warp operation whose mask names lane %u, which has exited",
                           (uint32_t)__builtin_ctz(missing & w->exited));
    if (missing & mask)
        return warp_hazard(r, w, __builtin_ctz(emask ? emask : mask), pc,
                           "runs a .sync warp operation whose mask names lane %u, which skips it",
                           (uint32_t)__builtin_ctz(missing & mask));
    w->wsync |= mask;
    w->wsync_need = need;
    return 0;
}

static int shfl(struct warp *w, const struct emu_insn *in, uint32_t emask)
{
    int two = in->aux == 2;
    int ai = two ? 2 : 1;
    uint64_t *R = w->R;
    const uint64_t *a = R + (size_t)in->o[ai].reg * 32, *b = R + (size_t)in->o[ai + 1].reg * 32,
                   *c = R + (size_t)in->o[ai + 2].reg * 32;
    uint64_t src[32];
    memcpy(src, a, sizeof src);
    uint64_t *d = R + (size_t)in->o[0].reg * 32;
    uint64_t *p = two ? R + (size_t)in->o[1].reg * 32 : NULL;
    for (uint32_t m = emask; m; m &= m - 1) {
        uint32_t lane = (uint32_t)__builtin_ctz(m);
        uint32_t bv = (uint32_t)b[lane] & 0x1f, cv = (uint32_t)c[lane];
        uint32_t segmask = (cv >> 8) & 0x1f, clamp = cv & 0x1f;
        uint32_t maxl = (lane & segmask) | (clamp & ~segmask);
        uint32_t minl = lane & segmask;
        int32_t j;
        int pval;
        switch (in->sub) {
        case SUB_UP: j = (int32_t)lane - (int32_t)bv; pval = j >= (int32_t)maxl; break;
        case SUB_DOWN: j = (int32_t)(lane + bv); pval = j <= (int32_t)maxl; break;
        case SUB_BFLY: j = (int32_t)(lane ^ bv); pval = j <= (int32_t)maxl; break;
        default: j = (int32_t)(minl | (bv & ~segmask)); pval = j <= (int32_t)maxl; break;
        }
        if (!pval)
            j = (int32_t)lane;
        d[lane] = src[j & 31] & 0xffffffffu;
        if (p)
            p[lane] = (uint64_t)pval;
    }
    R[0] = 0;
    return 0;
}

static int vote(struct warp *w, const struct emu_insn *in, uint32_t emask)
{
    const struct emu_opnd *po = &in->o[1];
    const uint64_t *p = w->R + (size_t)po->reg * 32;
    uint32_t ballot = 0;
    for (uint32_t m = emask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if ((p[l] & 1) ^ po->neg)
            ballot |= 1u << l;
    }
    uint64_t v;
    switch (in->sub) {
    case SUB_BALLOT: v = ballot; break;
    case SUB_ANY: v = ballot != 0; break;
    case SUB_ALL: v = ballot == emask; break;
    default: v = ballot == 0 || ballot == emask; break;
    }
    uint64_t *d = w->R + (size_t)in->o[0].reg * 32;
    for (uint32_t m = emask; m; m &= m - 1)
        d[__builtin_ctz(m)] = v;
    w->R[0] = 0;
    return 0;
}

static int redux(struct warp *w, const struct emu_insn *in, uint32_t emask)
{
    const uint64_t *a = w->R + (size_t)in->o[1].reg * 32;
    int sgn = emu_type_kind[in->type] == 's';
    uint64_t acc = 0;
    int first = 1;
    for (uint32_t m = emask; m; m &= m - 1) {
        uint32_t v = (uint32_t)a[__builtin_ctz(m)];
        if (first) {
            acc = v;
            first = 0;
            continue;
        }
        switch (in->sub) {
        case SUB_ADD: acc = (uint32_t)(acc + v); break;
        case SUB_AND: acc &= v; break;
        case SUB_OR: acc |= v; break;
        case SUB_XOR: acc ^= v; break;
        case SUB_MIN:
            acc = sgn ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc);
            break;
        case SUB_MAX:
            acc = sgn ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc);
            break;
        default: return -1;
        }
    }
    uint64_t *d = w->R + (size_t)in->o[0].reg * 32;
    for (uint32_t m = emask; m; m &= m - 1)
        d[__builtin_ctz(m)] = acc;
    return 0;
}

/* ---- one step of a warp ----------------------------------------------------------- */

static void lanes_exit(struct run *r, struct warp *w, uint32_t lanes)
{
    lanes &= ~w->exited;
    w->exited |= lanes;
    r->live_threads -= popc32(lanes);
    barriers_check(r);
}

/* Leaves converged mode: every lane's own PC is written out again. */
static void diverge(struct warp *w)
{
    if (!w->uni)
        return;
    for (int l = 0; l < 32; l++)
        w->pc[l] = w->upc;
    w->uni = 0;
}

/* Moves the lanes of MASK to NPC. */
static void advance(struct warp *w, uint32_t mask, uint32_t npc)
{
    if (w->uni) {
        w->upc = npc;
        return;
    }
    for (uint32_t m = mask; m; m &= m - 1)
        w->pc[__builtin_ctz(m)] = npc;
}

static int stalled(struct run *r, struct warp *w)
{
    if (w->wsync && (w->wsync_need & w->exited)) {
        int l = __builtin_ctz(w->wsync);
        return warp_hazard(r, w, l, (int)w->pc[l],
                           "runs a .sync warp operation whose mask names lane %u, which has exited",
                           (uint32_t)__builtin_ctz(w->wsync_need & w->exited));
    }
    if (w->wsync && !w->at_bar) {
        int l = __builtin_ctz(w->wsync);
        return warp_hazard(r, w, l, (int)w->pc[l],
                           "waits at a .sync warp operation for lanes that wait elsewhere (mask 0x%08x)",
                           w->wsync);
    }
    return 0;
}

/* Runs the instruction at the warp's lowest pending PC: 1 when something
 * happened, 0 when no lane can run, -1 on an error (in r->err).  While
 * every lane of the warp is at one PC and none waits (w->uni), that PC is
 * w->upc and the lanes' own PCs are not kept. */
static int warp_step(struct run *r, struct warp *w)
{
    uint32_t pc, mask;
    uint32_t alive = w->live & ~w->exited;
    if (!alive)
        return 0;
    if (w->uni) {
        pc = w->upc;
        mask = alive;
    } else {
        uint32_t runnable = alive & ~w->at_bar & ~w->wsync;
        if (!runnable)
            return stalled(r, w);
        pc = UINT32_MAX;
        for (uint32_t m = runnable; m; m &= m - 1) {
            uint32_t p = w->pc[__builtin_ctz(m)];
            if (p < pc)
                pc = p;
        }
        mask = 0;
        for (uint32_t m = runnable | w->wsync; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            if (w->pc[l] == pc)
                mask |= 1u << l;
        }
        if (mask == alive && !w->at_bar && !w->wsync) {
            w->uni = 1;
            w->upc = pc;
        }
    }
    const struct emu_insn *in = &r->code[pc];
    uint64_t *R = w->R;
    uint32_t emask = mask;
    if (in->guard >= 0) {
        const uint64_t *g = R + (size_t)in->guard * 32;
        emask = 0;
        for (uint32_t m = mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            if ((g[l] & 1) ^ in->guard_neg)
                emask |= 1u << l;
        }
    }
    uint32_t n = popc32(mask);
    r->e->stats.warp_instructions++;
    r->e->stats.thread_instructions += n;
    if (r->budget_left) {
        if (r->budget_left <= n) {
            char where[160];
            emu_src_line(r, (int)pc, where, sizeof where);
            emu_error_set(r->err, EMU_LIMIT, NULL, (int)in->line, emu_file_name(r->m, in->file),
                          "the kernel ran past its budget of %llu thread-instructions (last at %s): does it end?",
                          (unsigned long long)r->e->cfg.budget, where);
            r->st = EMU_LIMIT;
            return -1;
        }
        r->budget_left -= n;
    }
    w->cycles += CPI;
    w->steps++;
    int ipc = (int)pc;
    switch (in->op) {
    case OP_BRA:
        if (emask == mask) {
            advance(w, mask, (uint32_t)in->target);
        } else if (!emask) {
            advance(w, mask, pc + 1);
        } else {
            diverge(w);
            for (uint32_t m = mask; m; m &= m - 1) {
                int l = __builtin_ctz(m);
                w->pc[l] = (emask >> l) & 1 ? (uint32_t)in->target : pc + 1;
            }
        }
        return 1;
    case OP_RET:
    case OP_EXIT:
        if (emask != mask) {
            diverge(w);
            for (uint32_t m = mask & ~emask; m; m &= m - 1)
                w->pc[__builtin_ctz(m)]++;
        }
        lanes_exit(r, w, emask);
        return 1;
    case OP_TRAP:
        if (emask)
            return emu_fault(r, w, __builtin_ctz(emask), ipc, "executed trap (an assert failed?)");
        break;
    case OP_LD:
    case OP_ST:
        if (emask && emu_ld_st(r, w, in, emask, ipc))
            return -1;
        break;
    case OP_ATOM:
    case OP_RED:
        if (emask && emu_atom(r, w, in, emask, ipc))
            return -1;
        break;
    case OP_CVTA:
        if (emask && emu_cvta(r, w, in, emask))
            return -1;
        break;
    case OP_MOVCLK: {
        uint64_t cyc = r->base_cycles + w->cycles;
        uint64_t v = in->sub == CLK_CLOCK ? (uint32_t)cyc
                   : in->sub == CLK_CLOCK64 ? cyc
                   : (uint64_t)((double)cyc / r->e->cfg.clock_ghz) + 1700000000000000000ull;
        for (uint32_t m = emask; m; m &= m - 1)
            R[(size_t)in->o[0].reg * 32 + (uint32_t)__builtin_ctz(m)] = v;
        break;
    }
    case OP_BAR_SYNC:
    case OP_BAR_RED:
    case OP_BAR_ARRIVE:
        if (in->op != OP_BAR_ARRIVE && emask)
            diverge(w);
        advance(w, mask, pc + 1);
        if (emask && bar_arrive(r, w, in, mask, emask, ipc, in->op != OP_BAR_ARRIVE))
            return -1;
        return 1;
    case OP_WARPSYNC:
    case OP_SHFL:
    case OP_VOTE:
    case OP_REDUX: {
        int mi = in->op == OP_WARPSYNC ? 0 : in->nops - 1;
        if (emask) {
            uint32_t members = (uint32_t)R[(size_t)in->o[mi].reg * 32 + (uint32_t)__builtin_ctz(emask)];
            if ((members & w->live & ~emask) != 0) {
                diverge(w);
                int g = warp_gather(r, w, mask, emask, members, ipc);
                if (g < 0)
                    return -1;
                if (g == 0)
                    return 1;
            }
        }
        w->wsync &= ~mask;
        if (emask) {
            if (in->op == OP_SHFL)
                shfl(w, in, emask);
            else if (in->op == OP_VOTE)
                vote(w, in, emask);
            else if (in->op == OP_REDUX && redux(w, in, emask))
                return unsupported_at(r, ipc, "redux");
            w->wepoch++;
        }
        break;
    }
    case OP_ACTIVEMASK:
        for (uint32_t m = emask; m; m &= m - 1)
            R[(size_t)in->o[0].reg * 32 + (uint32_t)__builtin_ctz(m)] = emask;
        break;
    case OP_VPRINTF:
        if (emask && emu_vprintf(r, w, in, emask, ipc))
            return -1;
        break;
    case OP_NOP:
        break;
    default:
        if (emask && emu_alu(in, R, emask, w->carry))
            return unsupported_at(r, ipc, "an instruction");
        R[0] = 0;
        break;
    }
    advance(w, mask, pc + 1);
    return 1;
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
        w->cycles = 0;
        w->wepoch = 0;
        for (int l = 0; l < 32; l++)
            w->pc[l] = (uint32_t)r->f->first;
        warp_sregs(r, w);
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
                int s = warp_step(r, w);
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
                    return warp_hazard(r, w, l, (int)w->pc[l] - 1,
                                       "waits at barrier %u, which the block's other threads never reach",
                                       w->bar_id[l]);
                }
            }
            return warp_hazard(r, &r->warps[0], 0, r->f->first, "deadlocks (mask 0x%x)", 0);
        }
    }
    r->base_cycles += 1000;
    return 0;
}

static int launch_error(struct emu_error *err, enum emu_status st, const char *msg)
{
    emu_error_set(err, st, NULL, 0, NULL, "%s", msg);
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
    r.rng = e->cfg.seed * 0x9E3779B97F4A7C15ull + 0x1234567;
    if (!r.rng)
        r.rng = 1;
    r.budget_left = e->cfg.budget;
    r.dyn_smem = l->dyn_smem;
    uint32_t stat = k->m->module_smem + f->static_smem;
    r.smem_bytes = f->uses_dyn_smem || l->dyn_smem ? ((stat + 15) & ~15u) + l->dyn_smem : stat;
    if (r.smem_bytes > 232448)
        return launch_error(err, EMU_FAULT, "more shared memory a block than the GPU has (227 KiB)");
    r.local_bytes = f->local_bytes;
    r.param_bytes = f->param_bytes;
    enum emu_status st = EMU_NOMEM;
    r.params = calloc(1, f->param_bytes + 16);
    r.smem = malloc(r.smem_bytes + 16);
    r.warps = calloc(r.nwarps, sizeof *r.warps);
    if (!r.params || !r.smem || !r.warps)
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
        if (in->op == OP_VPRINTF || ((in->op == OP_ST || in->op == OP_LD) && in->space == SP_PARAM))
            scratch_used = 1;
    }
    for (uint32_t i = 0; i < r.nwarps; i++) {
        struct warp *w = &r.warps[i];
        w->index = (int)i;
        w->R = calloc((size_t)f->nslots * 32, sizeof *w->R);
        if (!w->R)
            goto out;
        if (scratch_used && !(w->scratch = calloc(32, SCRATCH_BYTES)))
            goto out;
        if (r.local_bytes && !(w->local = calloc(32, r.local_bytes)))
            goto out;
        warp_constants(&r, w);
    }
    if (r.hazards) {
        r.sh_words = (r.smem_bytes + 3) / 4;
        r.sh = calloc(r.sh_words + 1, sizeof *r.sh);
        if (!r.sh)
            goto out;
    }
    st = EMU_OK;
    for (unsigned z = 0; z < l->grid[2] && st == EMU_OK; z++)
        for (unsigned y = 0; y < l->grid[1] && st == EMU_OK; y++)
            for (unsigned x = 0; x < l->grid[0]; x++) {
                r.ctaid[0] = x;
                r.ctaid[1] = y;
                r.ctaid[2] = z;
                r.block_linear = ((uint64_t)z * l->grid[1] + y) * l->grid[0] + x;
                /* shared memory starts as junk, as on the GPU */
                memset(r.smem, 0xa5, r.smem_bytes);
                if (run_block(&r)) {
                    st = r.st != EMU_OK ? r.st : EMU_FAULT;
                    break;
                }
            }
out:
    if (st == EMU_NOMEM && err->status == EMU_OK)
        emu_error_set(err, EMU_NOMEM, NULL, 0, NULL, "out of memory setting up the launch");
    for (uint32_t i = 0; r.warps && i < r.nwarps; i++) {
        free(r.warps[i].R);
        free(r.warps[i].scratch);
        free(r.warps[i].local);
    }
    free(r.warps);
    free(r.params);
    free(r.smem);
    free(r.sh);
    free(r.gh);
    return st;
}
