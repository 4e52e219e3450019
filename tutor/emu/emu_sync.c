/* emu_sync.c — what orders threads: the running block's barriers (bar.sync,
 * bar.red, bar.arrive, counted per thread, released when every thread
 * that has not exited arrived) and the warp's collectives (shfl, vote,
 * redux, match over the lanes their mask names, who wait for each other). */
#include "emu/emu_run.h"

#include <string.h>

/* ---- barriers ------------------------------------------------------------------ */

static void barrier_release(struct run *r, int id)
{
    struct cta *c = r->cta;
    const struct emu_insn *in = c->bar_insn[id];
    for (uint32_t i = 0; i < r->nwarps; i++) {
        struct warp *w = &c->warps[i];
        uint32_t rel = w->bar_wait[id];
        if (!rel)
            continue;
        w->bar_wait[id] = 0;
        w->at_bar &= ~rel;
        /* the whole warp, at one PC: converged again without a look at each lane */
        if (w->bar_whole && !w->at_bar && !w->wsync && rel == (w->live & ~w->exited)) {
            w->upc = w->pc[__builtin_ctz(rel)];
            w->uni = 1;
            w->hint = 0;
        }
        w->bar_whole = 0;
        w->bar_away = 0;
        if (in && in->op == OP_BAR_RED) {
            uint64_t v = in->sub == SUB_POPC ? c->bar_red[id]
                       : in->sub == SUB_AND  ? (c->bar_red[id] == c->bar_count[id])
                                             : (c->bar_red[id] != 0);
            for (uint32_t m = rel; m; m &= m - 1)
                w->R[(size_t)in->o[0].reg * 32 + (uint32_t)__builtin_ctz(m)] = v;
        }
    }
    c->bar_count[id] = 0;
    c->bar_expect[id] = 0;
    c->bar_red[id] = 0;
    c->bar_insn[id] = NULL;
    c->epoch++;
}

/* Releases barrier ID if all its threads have reached it. */
static void barrier_check(struct run *r, int id)
{
    const struct cta *c = r->cta;
    uint32_t want = c->bar_expect[id] ? c->bar_expect[id] : c->live_threads;
    if (c->bar_count[id] && c->bar_count[id] >= want)
        barrier_release(r, id);
}

/* Releases every barrier all its threads have reached. */
void emu_barriers_check(struct run *r)
{
    for (int id = 0; id < NBAR; id++)
        barrier_check(r, id);
}

/* bar.sync/bar.red/bar.arrive by the lanes of EMASK (MASK: those at the
 * instruction); WAIT: they wait for the release. */
int emu_bar_arrive(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                      uint32_t emask, int pc, int wait)
{
    struct cta *c = r->cta;
    int l0 = __builtin_ctz(mask);
    uint32_t id = (uint32_t)w->R[(size_t)in->o[in->op == OP_BAR_RED ? 1 : 0].reg * 32 + l0];
    int has_count = in->op == OP_BAR_RED ? in->nops > 3 : in->nops > 1;
    uint32_t count = 0;
    if (has_count)
        count = (uint32_t)w->R[(size_t)in->o[in->op == OP_BAR_RED ? 2 : 1].reg * 32 + l0];
    if (id >= NBAR)
        return emu_fault(r, w, l0, pc, "used barrier %u (there are 16)", id);
    if (c->bar_count[id] && c->bar_expect[id] != count)
        return emu_hazard(r, w, l0, pc, "waits at barrier %u with a thread count other threads do not use", id);
    if (c->bar_count[id] && r->hazards && (in->flags & F_ALIGNED) &&
        !emu_same_barrier(r, (uint32_t)pc, c->bar_pc[id])) {
        char there[160];
        emu_src_line(r, (int)c->bar_pc[id], there, sizeof there);
        return emu_hazard(r, w, l0, pc,
                          "reaches this __syncthreads() while other threads of its block wait "
                          "at another (%s): a barrier under a condition that differs between "
                          "threads is undefined",
                          there);
    }
    if (!c->bar_count[id])
        c->bar_pc[id] = (uint32_t)pc;
    c->bar_expect[id] = count;
    c->bar_count[id] += popc32(emask);
    if (in->op == OP_BAR_RED) {
        const struct emu_opnd *po = &in->o[in->nops - 1];
        for (uint32_t m = emask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            c->bar_red[id] += (uint32_t)((w->R[(size_t)po->reg * 32 + l] & 1) ^ po->neg);
        }
        c->bar_insn[id] = in;
    }
    if (wait) {
        w->at_bar |= emask;
        w->bar_wait[id] |= emask;
    }
    barrier_check(r, (int)id);     /* the only count that moved */
    return 0;
}

/* Whether the barriers at PC and OTHER are one barrier of the source: the
 * same instruction, or copies the compiler made of one __syncthreads()
 * (the same line). */
int emu_same_barrier(const struct run *r, uint32_t pc, uint32_t other)
{
    const struct emu_insn *a = &r->code[pc], *b = &r->code[other];
    return pc == other || (a->line && a->line == b->line && a->file == b->file);
}

/* Whether a lane at PC is on its way out: straight-line code and forward
 * jumps to the kernel's exit, passing no barrier, warp operation, call or
 * backward jump (an early return, which leaves the barriers to the
 * others). */
static int on_way_out(const struct run *r, uint32_t pc)
{
    for (int steps = 0; steps < 64; steps++) {
        const struct emu_insn *in = &r->code[pc];
        switch (emu_ops[in->op].cls) {
        case C_EXIT: return 1;
        case C_RET: return in->fn == r->fn;
        case C_BRA:
            if (in->guard >= 0 || (uint32_t)in->target <= pc)
                return 0;
            pc = (uint32_t)in->target;
            continue;
        case C_BAR: case C_WARP: case C_CALL: case C_BRX: case C_REFUSED: return 0;
        default: pc++;
        }
    }
    return 0;
}

/* The sentence for lane L of W, which went past the barrier its warp
 * waits at and then DID (at PC). */
static int skipped(struct run *r, struct warp *w, int l, int pc, const char *did)
{
    char bar[160], waiter[100];
    emu_src_line(r, (int)w->bar_away_pc, bar, sizeof bar);
    emu_where(r, w, w->bar_away_waiter, (int)w->bar_away_pc, waiter, sizeof waiter);
    *strstr(waiter, " of ") = 0;
    return emu_hazard(r, w, l, pc,
                      "went on past the __syncthreads() %s waits at (%s) and %s: a barrier "
                      "under a condition that differs between threads is undefined",
                      waiter, bar, did);
}

/* An aligned barrier (__syncthreads()) at PC reached by the lanes of
 * EMASK.  The guide leaves a barrier undefined unless every non-exited
 * thread reaches it (synccheck's divergent barrier; a GPU often copes, so
 * only this rule finds it).  Lanes of the warp that are elsewhere and not
 * on their way out (an early return) are held to come here: the compiler
 * may have placed an if's body after the barrier, so they may still be on
 * their way.  One that reaches another barrier, or exits, went past it
 * (emu_bar_leaving).  0, or -1 with the hazard reported. */
int emu_bar_divergence(struct run *r, struct warp *w, uint32_t mask, uint32_t emask, int pc)
{
    uint32_t came = emask & w->bar_away;
    if (came) {
        if (!emu_same_barrier(r, (uint32_t)pc, w->bar_away_pc))
            return skipped(r, w, __builtin_ctz(came), pc, "reached this other one");
        w->bar_away &= ~came;
    }
    uint32_t away = w->live & ~w->exited & ~emask & ~w->at_bar & ~w->bar_away;
    for (uint32_t m = away; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint32_t at = (mask >> l) & 1 ? (uint32_t)pc + 1 : w->pc[l];
        const struct emu_insn *there = &r->code[at];
        if (on_way_out(r, at) ||
            (emu_ops[there->op].cls == C_BAR && emu_same_barrier(r, at, (uint32_t)pc)))
            continue;
        if (!w->bar_away) {
            w->bar_away_pc = (uint32_t)pc;
            w->bar_away_waiter = __builtin_ctz(emask);
        }
        w->bar_away |= 1u << l;
    }
    return 0;
}

int emu_bar_leaving(struct run *r, struct warp *w, uint32_t lanes, int pc)
{
    uint32_t gone = lanes & w->bar_away;
    if (!gone)
        return 0;
    return skipped(r, w, __builtin_ctz(gone), pc, "exits");
}

/* ---- warp-wide operations ------------------------------------------------------- */

/* Whether every lane MEMBERS names has arrived with EMASK: 1 (go on), 0
 * (the lanes here wait), -1 (a named lane exited or never can arrive). */
int emu_warp_gather(struct run *r, struct warp *w, uint32_t mask, uint32_t emask,
                       uint32_t members, int pc)
{
    /* the guide: every non-exited thread the mask names executes it; a
     * lane that has exited is no longer waited for */
    uint32_t need = members & w->live & ~w->exited;
    uint32_t missing = need & ~emask;
    if (!missing)
        return 1;
    if (missing & mask)
        return emu_hazard(r, w, __builtin_ctz(emask ? emask : mask), pc,
                      "runs a .sync warp operation whose mask names lane %u, which skips it",
                      (uint32_t)__builtin_ctz(missing & mask));
    w->wsync |= mask;
    w->wsync_need = need;
    return 0;
}

/* shfl.sync over the lanes of EMASK: the source lane and the predicate by
 * the PTX ISA's rules for the mode, the segment mask and the clamp.  A
 * source lane that does not take part (exited, or not at the instruction)
 * gives an undefined value: junk that differs from shuffle to shuffle, as
 * a GPU's stale register would, never a value the kernel could count on. */
int emu_shfl(struct warp *w, const struct emu_insn *in, uint32_t emask, uint8_t *from)
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
        if (from)
            from[lane] = (emask >> (j & 31)) & 1 ? (uint8_t)(j & 31) : 0xff;
        if ((emask >> (j & 31)) & 1)
            d[lane] = src[j & 31] & 0xffffffffu;
        else
            d[lane] = (uint32_t)((w->wepoch * 0x9E3779B97F4A7C15ull + lane * 0xBF58476D1CE4E5B9ull +
                                  (uint64_t)w->index) >> 29);
        if (p)
            p[lane] = (uint64_t)pval;
    }
    R[0] = 0;
    return 0;
}

/* The lanes lane L's .sync operation combines with: those its member
 * mask (the instruction's last operand) names, of the EMASK that arrived.
 * Tiles of one warp (cooperative groups' tiled_partition) run the same
 * instruction at once, each with its own mask, and each gets its own
 * result. */
static uint32_t member_group(const struct warp *w, const struct emu_insn *in, uint32_t emask, int l)
{
    uint32_t g = (uint32_t)w->R[(size_t)in->o[in->nops - 1].reg * 32 + l] & emask;
    return g | 1u << l;
}

/* vote.sync (all, any, uni, ballot) over the lanes of EMASK. */
int emu_vote(struct warp *w, const struct emu_insn *in, uint32_t emask)
{
    const struct emu_opnd *po = &in->o[1];
    const uint64_t *p = w->R + (size_t)po->reg * 32;
    uint32_t ballot = 0;
    for (uint32_t m = emask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if ((p[l] & 1) ^ po->neg)
            ballot |= 1u << l;
    }
    uint64_t *d = w->R + (size_t)in->o[0].reg * 32;
    for (uint32_t m = emask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint32_t g = member_group(w, in, emask, l), b = ballot & g;
        switch (in->sub) {
        case SUB_BALLOT: d[l] = b; break;
        case SUB_ANY: d[l] = b != 0; break;
        case SUB_ALL: d[l] = b == g; break;
        default: d[l] = b == 0 || b == g; break;
        }
    }
    w->R[0] = 0;
    return 0;
}

/* redux.sync's operation over the lanes of G. */
static int redux_over(const struct emu_insn *in, const uint64_t *a, uint32_t g, uint64_t *out)
{
    int sgn = emu_type_kind[in->type] == 's';
    uint64_t acc = (uint32_t)a[__builtin_ctz(g)];
    for (uint32_t m = g & (g - 1); m; m &= m - 1) {
        uint32_t v = (uint32_t)a[__builtin_ctz(m)];
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
    *out = acc;
    return 0;
}

/* redux.sync over the lanes of EMASK; -1 for an operation not known here. */
int emu_redux(struct warp *w, const struct emu_insn *in, uint32_t emask)
{
    const uint64_t *a = w->R + (size_t)in->o[1].reg * 32;
    uint64_t *d = w->R + (size_t)in->o[0].reg * 32, acc = 0;
    uint32_t last = 0;
    for (uint32_t m = emask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint32_t g = member_group(w, in, emask, l);
        if (g != last && redux_over(in, a, g, &acc))
            return -1;
        last = g;
        d[l] = acc;
    }
    return 0;
}

/* match.any / match.all over the lanes of EMASK. */
void emu_match(struct warp *w, const struct emu_insn *in, uint32_t emask)
{
    int two = in->aux == 2;
    const uint64_t *a = w->R + (size_t)in->o[two ? 2 : 1].reg * 32;
    uint64_t m = emu_type_size[in->type] == 8 ? ~0ull : 0xffffffffull;
    uint64_t *d = w->R + (size_t)in->o[0].reg * 32;
    uint64_t *p = two ? w->R + (size_t)in->o[1].reg * 32 : NULL;
    for (uint32_t mm = emask; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        uint32_t g = member_group(w, in, emask, l), eq = 0;
        for (uint32_t k = g; k; k &= k - 1)
            if ((a[__builtin_ctz(k)] & m) == (a[l] & m))
                eq |= 1u << __builtin_ctz(k);
        if (in->sub == SUB_ANY) {
            d[l] = eq;
        } else {
            d[l] = eq == g ? g : 0;
            if (p)
                p[l] = eq == g;
        }
    }
    w->R[0] = 0;
}

/* elect.sync d|p, membermask over the lanes of EMASK: the lowest lane of
 * each lane's group is the leader; d its index, p true in it alone. */
void emu_elect(struct warp *w, const struct emu_insn *in, uint32_t emask)
{
    uint64_t *d = w->R + (size_t)in->o[0].reg * 32, *p = w->R + (size_t)in->o[1].reg * 32;
    for (uint32_t m = emask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint32_t leader = (uint32_t)__builtin_ctz(member_group(w, in, emask, l));
        d[l] = leader;
        p[l] = (uint32_t)l == leader;
    }
    w->R[0] = 0;
}
