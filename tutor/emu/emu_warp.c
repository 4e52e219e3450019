/* emu_warp.c — one warp's step: the lanes at its lowest pending PC run
 * one decoded instruction (a converged warp keeps a single PC), branches
 * split and join them, calls move them between functions' register frames,
 * and each instruction goes to the ALU, the memory unit or the sync unit. */
#include "emu/emu_ops.h"
#include "emu/emu_run.h"
#include "emu/emu_undef.h"
#include "emu/emu_lowest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The cycles one warp instruction advances %clock by. */
#define CPI 4
/* The budget is handed to host threads in slices this big. */
#define BUDGET_SLICE (1ull << 22)

/* Takes more of the launch's budget so that N more thread-instructions
 * fit: 0, or -1 when it is spent (one host thread holds it all). */
static int budget_refill(struct run *r, uint64_t n)
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

static void lanes_exit(struct run *r, struct warp *w, uint32_t lanes);
static void diverge(struct warp *w);
static void advance(struct warp *w, uint32_t mask, uint32_t npc);
static void split(struct warp *w, uint32_t mask, uint32_t emask, uint32_t target, uint32_t pc);

/* ---- calls ------------------------------------------------------------------------ */

/* call: the lanes of EMASK copy their arguments into the callee's
 * parameters and go to its first instruction; the rest of MASK go on.  A
 * lane already inside the callee (recursion) saves that activation. */
static int call(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                uint32_t emask, uint32_t pc)
{
    const struct emu_func *f = &r->m->funcs[in->target];
    if (emu_frame_of(r, w, in->target))
        return -1;
    if (!w->ret_pc && !(w->ret_pc = calloc(32, sizeof *w->ret_pc))) {
        emu_error_set(r->err, EMU_NOMEM, NULL, 0, NULL, "out of memory calling %s", f->name);
        r->st = EMU_NOMEM;
        return -1;
    }
    for (uint32_t m = emask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if (w->depth[l] >= CALL_DEPTH)
            return emu_fault(r, w, l, (int)pc,
                             "calls functions nested %d deep: a recursion that does not end? "
                             "(a GPU's stack overflows too)", CALL_DEPTH);
        int again = in->fn == in->target;
        for (int k = 0; k < w->depth[l] && !again; k++)
            again = r->code[w->ret_pc[l][k] - 1].fn == in->target;
        if (again && emu_frame_save(r, w, l, in->target)) {
            emu_error_set(r->err, EMU_NOMEM, NULL, 0, NULL, "out of memory calling %s", f->name);
            r->st = EMU_NOMEM;
            return -1;
        }
    }
    for (uint32_t m = emask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint8_t *sc = w->scratch + (size_t)l * SCRATCH_BYTES;
        for (int i = 0; i < f->nparams; i++)
            memmove(sc + (f->param_offset[i] - PARAM_SCRATCH),
                    sc + ((uint64_t)in->o[1 + i].off - PARAM_SCRATCH), f->param_size[i]);
        w->ret_pc[l][w->depth[l]++] = pc + 1;
    }
    split(w, mask, emask, (uint32_t)f->first, pc);
    return 0;
}

/* ret: lanes inside a call go back to their caller with the result
 * copied out; lanes of the kernel itself exit. */
static void ret(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                uint32_t emask)
{
    uint32_t back = 0, npc = 0, same = 1;
    const struct emu_func *f = &r->m->funcs[in->fn];
    for (uint32_t m = emask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if (!w->depth[l])
            continue;
        uint32_t to = w->ret_pc[l][--w->depth[l]];
        const struct emu_insn *site = &r->code[to - 1];
        if (site->o[0].kind == OK_ADDR && f->nret) {
            uint8_t *sc = w->scratch + (size_t)l * SCRATCH_BYTES;
            memmove(sc + ((uint64_t)site->o[0].off - PARAM_SCRATCH),
                    sc + (f->ret_offset[0] - PARAM_SCRATCH), f->ret_size[0]);
        }
        emu_frame_restore(r, w, l, in->fn, w->depth[l]);
        if (back && to != npc)
            same = 0;
        npc = to;
        back |= 1u << l;
    }
    if (back == mask && same) {
        advance(w, mask, npc);
    } else {
        uint32_t pc = w->uni ? w->upc : w->pc[__builtin_ctz(mask)];
        diverge(w);
        for (uint32_t m = mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            if ((back >> l) & 1)
                w->pc[l] = w->ret_pc[l][w->depth[l]];
            else if (!((emask >> l) & 1))
                w->pc[l] = pc + 1;
        }
    }
    lanes_exit(r, w, emask & ~back);
}

/* ---- one step of a warp ----------------------------------------------------------- */

static void lanes_exit(struct run *r, struct warp *w, uint32_t lanes)
{
    lanes &= ~w->exited;
    w->exited |= lanes;
    r->cta->live_threads -= popc32(lanes);
    emu_barriers_check(r);
    emu_cluster_exit(r, w, lanes);
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
    emu_set_pcs(w->pc, mask, npc);
}

/* The lanes of EMASK go to TARGET, the rest of MASK on past PC. */
static void split(struct warp *w, uint32_t mask, uint32_t emask, uint32_t target, uint32_t pc)
{
    if (emask == mask || !emask) {
        advance(w, mask, emask ? target : pc + 1);
        return;
    }
    int was_uni = w->uni;
    diverge(w);
    emu_set_pcs(w->pc, mask & ~emask, pc + 1);
    emu_set_pcs(w->pc, mask & emask, target);
    /* a converged warp split in two (MASK is every lane, none waits): where
     * it runs next is known without a look at each lane */
    if (was_uni && target != pc + 1) {
        int taken_first = target < pc + 1;
        w->hint = 1;
        w->hint_pc = taken_first ? target : pc + 1;
        w->hint_mask = taken_first ? emask : mask & ~emask;
        w->hint_rest = taken_first ? pc + 1 : target;
        w->hint_run = mask;
        w->hint_wsync = 0;
    }
}

static int stalled(struct run *r, struct warp *w)
{
    /* the lanes a .sync operation waits for have exited meanwhile: it runs
     * without them (the guide names only non-exited threads) */
    if (w->wsync && !(w->wsync_need & w->live & ~w->exited & ~w->wsync)) {
        w->wsync = 0;
        return 1;
    }
    if (w->wsync && !w->at_bar) {
        int l = __builtin_ctz(w->wsync);
        return emu_hazard(r, w, l, (int)w->pc[l],
                      "waits at a .sync warp operation for lanes that wait elsewhere (mask 0x%08x)",
                      w->wsync);
    }
    return 0;
}

/* ---- the classes' steps ------------------------------------------------------------ */

/* Each step runs IN for the lanes of EMASK (those of MASK its guard lets
 * run), moves the lanes of MASK on and returns 1, or -1 with the launch's
 * error set.  One per class of emu_opcodes.def, set on each instruction at
 * load (emu_warp_bind). */
#define STEP(name)                                                                                  \
    static int name(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,        \
                    uint32_t emask, uint32_t pc)

/* The common end of a step: every lane at the instruction moves past it. */
static int next_insn(struct warp *w, uint32_t mask, uint32_t pc)
{
    advance(w, mask, pc + 1);
    return 1;
}

STEP(step_alu)
{
    if (emask)
        in->alu(in, w->R, emask, w->carry);
    if (in->divides)
        r->stats.divisions += popc32(emask);
    w->R[0] = 0;    /* the sink '_' */
    return next_insn(w, mask, pc);
}

STEP(step_bra)
{
    emu_count_branch(r, mask, emask);
    split(w, mask, emask, (uint32_t)in->target, pc);
    return 1;
}

/* brx.idx: each lane of EMASK to its table entry; an index past the
 * table is a fault (the ISA leaves it undefined). */
STEP(step_brx)
{
    const uint64_t *x = w->R + (size_t)in->o[0].reg * 32;
    uint32_t first = UINT32_MAX, same = 1;
    emu_count_branch(r, mask, emask);
    for (uint32_t m = emask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if ((uint32_t)x[l] >= (uint32_t)in->aux)
            return emu_fault(r, w, l, (int)pc, "jumps through brx.idx with index %u, past its %d targets",
                             (uint32_t)x[l], in->aux);
        uint32_t t = (uint32_t)r->m->brxt[in->target + (int)(uint32_t)x[l]];
        same &= first == UINT32_MAX || t == first;
        first = first == UINT32_MAX ? t : first;
    }
    if (emask == mask && same) {
        advance(w, mask, first);
        return 1;
    }
    diverge(w);
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        w->pc[l] = (emask >> l) & 1 ? (uint32_t)r->m->brxt[in->target + (int)(uint32_t)x[l]] : pc + 1;
    }
    return 1;
}

STEP(step_exit)
{
    (void)in;
    if (r->hazards && emu_bar_leaving(r, w, emask, (int)pc))
        return -1;
    if (emask != mask) {
        diverge(w);
        for (uint32_t m = mask & ~emask; m; m &= m - 1)
            w->pc[__builtin_ctz(m)]++;
    }
    lanes_exit(r, w, emask);
    return 1;
}

STEP(step_ret)
{
    if (in->fn == r->fn)
        return step_exit(r, w, in, mask, emask, pc);  /* a kernel's ret is its exit */
    ret(r, w, in, mask, emask);
    return 1;
}

/* A call through a function pointer: the lanes of EMASK that hold the
 * first lane's pointer call its function now (the others of EMASK stay at
 * the call, for a later step); a pointer to no function, or to one whose
 * parameters differ, is a fault. */
static int call_indirect(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                         uint32_t emask, uint32_t pc)
{
    const uint64_t *P = w->R + (size_t)in->aux * 32;
    int l0 = __builtin_ctz(emask);
    uint64_t v = P[l0];
    uint64_t idx = v - FUNC_ADDR;
    int fn = v >= FUNC_ADDR && idx < (uint64_t)r->m->nfuncs ? r->m->funcs[idx].body : -1;
    if (fn < 0)
        return emu_fault(r, w, l0, (int)pc, "calls through a pointer that holds no function (0x%llx)",
                         (unsigned long long)v);
    const struct emu_func *f = &r->m->funcs[fn];
    if (f->nparams != in->nops - 1 || (in->o[0].kind == OK_ADDR) != (f->nret > 0) || f->nret > 1)
        return emu_fault(r, w, l0, (int)pc, "calls %s through a pointer with other parameters than it "
                         "declares", f->name);
    uint32_t group = 0;
    for (uint32_t m = emask; m; m &= m - 1)
        if (P[__builtin_ctz(m)] == v)
            group |= 1u << __builtin_ctz(m);
    struct emu_insn direct = *in;
    direct.target = fn;
    if (group != emask)
        diverge(w);     /* the other pointers' lanes stay at the call */
    return call(r, w, &direct, group | (mask & ~emask), group, pc) ? -1 : 1;
}

STEP(step_call)
{
    if (!emask)
        return next_insn(w, mask, pc);
    if (in->target < 0)
        return call_indirect(r, w, in, mask, emask, pc);
    return call(r, w, in, mask, emask, pc) ? -1 : 1;
}

STEP(step_assert)
{
    (void)in;
    if (emask)
        return emu_fault(r, w, __builtin_ctz(emask), (int)pc, "failed an assert()");
    return next_insn(w, mask, pc);
}

STEP(step_trap)
{
    (void)in;
    if (emask)
        return emu_fault(r, w, __builtin_ctz(emask), (int)pc, "%s",
                         r->ws_missing ? "executed trap: this_grid().sync() in a launch that "
                                                     "was not cooperative (cudaLaunchCooperativeKernel "
                                                     "gives the grid its barrier)"
                                                   : "executed trap (an assert failed?)");
    return next_insn(w, mask, pc);
}

/* A unit's step: the lanes of EMASK handed to UNIT (emu_access.c,
 * emu_async.c, emu_mbar.c), counted by COUNT first when a profile wants
 * the memory figures, then moved on. */
static void count_none(struct run *r, const struct warp *w, const struct emu_insn *in, uint32_t mask)
{
    (void)r, (void)w, (void)in, (void)mask;
}

#define UNIT_STEP(name, count, unit)                                                                \
    STEP(name)                                                                                      \
    {                                                                                               \
        if (emask && r->e->cfg.counters)                                                            \
            count(r, w, in, emask);                                                                 \
        if (emask && unit(r, w, in, emask, (int)pc))                                                \
            return -1;                                                                              \
        return next_insn(w, mask, pc);                                                              \
    }
UNIT_STEP(step_mem, emu_count_mem, emu_ld_st)
UNIT_STEP(step_atom, emu_count_atom, emu_atom)
UNIT_STEP(step_async, count_none, emu_async)
UNIT_STEP(step_mbar, count_none, emu_mbar)

STEP(step_cluster)
{
    return emu_cluster_step(r, w, in, mask, emask, pc);
}

STEP(step_cvta)
{
    if (emask && emu_cvta(r, w, in, emask))
        return -1;
    return next_insn(w, mask, pc);
}

STEP(step_spacep)
{
    if (emask)
        emu_isspacep(r, w, in, emask);
    return next_insn(w, mask, pc);
}

/* The host's real time in nanoseconds since 1970, which is what a GPU's
 * %globaltimer counts: a kernel that reads it sees the date, not an epoch
 * of the emulator's own. */
static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

STEP(step_clock)
{
    uint64_t cyc = r->cta->base_cycles + w->cycles;
    uint64_t v = in->sub == CLK_CLOCK ? (uint32_t)cyc
               : in->sub == CLK_CLOCK64 ? cyc
               : wall_ns() + (uint64_t)((double)w->cycles / r->e->cfg.clock_ghz);
    for (uint32_t m = emask; m; m &= m - 1)
        w->R[(size_t)in->o[0].reg * 32 + (uint32_t)__builtin_ctz(m)] = v;
    return next_insn(w, mask, pc);
}

STEP(step_bar)
{
    int wait = in->op != OP_BAR_ARRIVE;
    if (emask)
        emu_count_barrier(r, emask);
    if (emask && r->hazards && (in->flags & F_ALIGNED) &&
        emu_bar_divergence(r, w, mask, emask, (int)pc))
        return -1;
    if (wait && emask) {
        w->bar_whole = w->uni && emask == mask;
        diverge(w);
    }
    advance(w, mask, pc + 1);
    if (emask && emu_bar_arrive(r, w, in, mask, emask, (int)pc, wait))
        return -1;
    return 1;
}

/* shfl, vote, match, redux and bar.warp.sync: the lanes the mask names
 * meet before any of them runs it */
STEP(step_warp)
{
    int mi = in->op == OP_WARPSYNC ? 0 : in->nops - 1;
    if (emask) {
        /* the guide: each calling thread must be named by its mask */
        const uint64_t *mk = w->R + (size_t)in->o[mi].reg * 32;
        for (uint32_t m = emask; m; m &= m - 1) {
            uint32_t l = (uint32_t)__builtin_ctz(m);
            if (!((mk[l] >> l) & 1))
                return emu_hazard(r, w, (int)l, (int)pc,
                                  "calls a __shfl/__ballot/__syncwarp whose mask 0x%08x leaves "
                                  "out its own lane %u: each calling thread must be in the mask",
                                  (uint32_t)mk[l], l);
        }
        uint32_t members = (uint32_t)mk[__builtin_ctz(emask)];
        uint32_t missing = members & w->live & ~w->exited & ~emask;
        if (missing) {
            diverge(w);
            /* bar.warp.sync meets its lanes wherever they wait at one
             * (__syncwarp() on both sides of a branch, sm_70 and up) */
            uint32_t elsewhere = 0;
            for (uint32_t m = missing & w->wsync; in->op == OP_WARPSYNC && m; m &= m - 1) {
                int l = __builtin_ctz(m);
                if (r->code[w->pc[l]].op == OP_WARPSYNC)
                    elsewhere |= 1u << l;
            }
            if (elsewhere && elsewhere == missing) {
                w->wsync &= ~elsewhere;
                for (uint32_t m = elsewhere; m; m &= m - 1)
                    w->pc[__builtin_ctz(m)]++;
                missing = 0;
            }
        }
        if (missing) {
            int g = emu_warp_gather(r, w, mask, emask, members, (int)pc);
            if (g < 0)
                return -1;
            if (g == 0)
                return 1;
        }
    }
    w->wsync &= ~mask;
    if (emask) {
        uint8_t from[32];
        switch (in->op) {
        case OP_SHFL: emu_shfl(w, in, emask, r->hazards ? from : NULL); break;
        case OP_VOTE: emu_vote(w, in, emask); break;
        case OP_MATCH: emu_match(w, in, emask); break;
        case OP_REDUX: emu_redux(w, in, emask); break;
        case OP_ELECT: emu_elect(w, in, emask); break;
        default: break;
        }
        if (r->hazards && in->op == OP_SHFL)
            emu_undef_shfl(w, in, emask, from, pc);
        else if (r->hazards && in->op != OP_WARPSYNC)
            emu_undef_collective(w, in, emask, pc);
        w->wepoch++;
    }
    return next_insn(w, mask, pc);
}

STEP(step_fence)
{
    (void)in;
    if (emask) {
        r->cta->blk_release++;
        emu_cta_acquire(r->cta);
    }
    return next_insn(w, mask, pc);
}

/* the warp sleeps about that long (at most 1 ms): its clocks move on, so
 * a kernel that waits on %globaltimer does not spin for it */
STEP(step_sleep)
{
    if (emask) {
        uint64_t ns = w->R[(size_t)in->o[0].reg * 32 + (uint32_t)__builtin_ctz(emask)] & 0xffffffffu;
        if (ns > 1000000)
            ns = 1000000;
        w->cycles += (uint64_t)((double)ns * r->e->cfg.clock_ghz);
    }
    return next_insn(w, mask, pc);
}

STEP(step_activemask)
{
    (void)r;
    for (uint32_t m = emask; m; m &= m - 1)
        w->R[(size_t)in->o[0].reg * 32 + (uint32_t)__builtin_ctz(m)] = emask;
    return next_insn(w, mask, pc);
}

STEP(step_printf)
{
    if (emask && emu_vprintf(r, w, in, emask, (int)pc))
        return -1;
    return next_insn(w, mask, pc);
}

STEP(step_heap)
{
    if (emask && emu_heap_call(r, w, in, emask, (int)pc))
        return -1;
    return next_insn(w, mask, pc);
}

STEP(step_nop)
{
    (void)r, (void)in, (void)emask;
    return next_insn(w, mask, pc);
}

/* Never reached: a launch whose kernel reaches a refused instruction is
 * refused before it runs (emu_exec.c).  Kept so that no instruction is
 * without a step. */
STEP(step_refused)
{
    (void)w, (void)mask, (void)emask;
    const char *what = in->op == OP_REFUSED ? r->m->refused[in->aux] : "an instruction";
    return emu_needs_gpu(r, (int)pc, what, "%s is not emulated", what);
}

static emu_step_fn *const class_step[C_COUNT] = {
    [C_ALU] = step_alu, [C_MEM] = step_mem, [C_ATOM] = step_atom, [C_CVTA] = step_cvta,
    [C_SPACEP] = step_spacep, [C_BRA] = step_bra, [C_BRX] = step_brx, [C_RET] = step_ret,
    [C_EXIT] = step_exit, [C_TRAP] = step_trap, [C_CALL] = step_call, [C_BAR] = step_bar,
    [C_WARP] = step_warp, [C_ACTIVEMASK] = step_activemask, [C_FENCE] = step_fence,
    [C_SLEEP] = step_sleep, [C_CLOCK] = step_clock, [C_PRINTF] = step_printf,
    [C_ASSERT] = step_assert, [C_NOP] = step_nop, [C_SPLIT] = step_refused,
    [C_GPU] = step_refused, [C_REFUSED] = step_refused, [C_ASYNC] = step_async,
    [C_MBAR] = step_mbar, [C_CLUSTER] = step_cluster, [C_HEAP] = step_heap,
};

/* Gives every instruction of M its class's step; an ALU form without its
 * handler is refused. */
void emu_warp_bind(struct emu_module *m)
{
    for (int i = 0; i < m->ninsn; i++) {
        struct emu_insn *in = &m->insn[i];
        int cls = emu_ops[in->op].cls;
        in->step = cls == C_ALU && !in->alu ? step_refused : class_step[cls];
        emu_undef_plan(in);
        in->divides = in->op == OP_DIV || in->op == OP_RCP;
        in->straight = in->step == step_alu || in->step == step_mem || in->step == step_cvta ||
                       in->step == step_spacep || in->step == step_fence || in->step == step_nop ||
                       in->step == step_activemask || in->step == step_clock ||
                       in->step == step_sleep || in->step == step_printf || in->step == step_heap;
        m->uses_heap |= cls == C_HEAP;
    }
}

/* Runs the instruction at the warp's lowest pending PC: 1 when something
 * happened, 0 when no lane can run, -1 on an error (in r->err).  While
 * every lane of the warp is at one PC and none waits (w->uni), that PC is
 * w->upc and the lanes' own PCs are not kept.  Inline in emu_warp_run's
 * loop: what a step reads of the launch stays in registers between steps. */
static inline __attribute__((always_inline)) int warp_step(struct run *r, struct warp *w)
{
    uint32_t pc, mask, rest = 0;
    uint32_t alive = w->live & ~w->exited;
    if (!alive)
        return 0;
    int was_uni = w->uni;
    if (w->uni) {
        pc = w->upc;
        mask = alive;
    } else {
        uint32_t runnable = alive & ~w->at_bar & ~w->wsync;
        if (!runnable)
            return stalled(r, w);
        if (w->hint && w->hint_run == runnable && w->hint_wsync == w->wsync) {
            pc = w->hint_pc;
            mask = w->hint_mask;
            rest = w->hint_rest;
        } else {
            pc = emu_lowest_pc(w->pc, runnable, runnable | w->wsync, &mask, &rest);
            if (mask == alive && !w->at_bar && !w->wsync) {
                w->uni = 1;
                w->upc = pc;
            }
        }
        w->hint = 0;
        w->hint_run = runnable;
        w->hint_wsync = w->wsync;
    }
    const struct emu_insn *in = &r->code[pc];
    uint64_t *R = w->R = w->frames[in->fn];
    if (r->hazards)
        w->U = w->uframes[in->fn];
    uint32_t emask = mask;
    if (in->guard >= 0) {
        uint32_t bits = emu_pred_bits(R + (size_t)in->guard * 32);
        emask = mask & (in->guard_neg ? ~bits : bits);
    }
    uint32_t n = popc32(mask);
    r->stats.warp_instructions++;
    r->stats.thread_instructions += n;
    r->cnt.v[EMU_CNT_thread_inst_on] += emask == mask ? n : popc32(emask);
    if (r->budget_on) {
        if (r->budget_left < n && budget_refill(r, n)) {
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
    int ok = 1;
    if (in->alu) {     /* the common case, without the class step's call */
        if (emask)
            in->alu(in, R, emask, w->carry);
        if (__builtin_expect(in->divides, 0))
            r->stats.divisions += popc32(emask);
        R[0] = 0;
        if (r->hazards)
            emu_undef_after_alu(w, in, mask, emask, pc);
        advance(w, mask, pc + 1);
    } else {
        if (r->e->cfg.trace)
            emu_trace_step(r, w, in, mask, emask, pc);
        if (r->hazards && emu_undef_step(r, w, in, mask, emask, pc))
            return -1;
        ok = in->step(r, w, in, mask, emask, pc);
    }
    /* the lanes at the lowest PC moved one on, the others stayed: theirs
     * is the lowest PC still, and they run alone unless others wait there */
    if (!was_uni && !w->uni && in->straight && ok == 1 && pc + 1 < rest && !(mask & ~w->hint_run)) {
        w->hint = 1;
        w->hint_pc = pc + 1;
        w->hint_mask = mask;
        w->hint_rest = rest;
    }
    return ok;
}

int emu_warp_run(struct run *r, struct warp *w, int quantum, int *ran)
{
    int s = 1;
    for (int q = 0; q < quantum && !w->yield && (s = warp_step(r, w)) > 0; q++)
        *ran = 1;
    return s;
}
