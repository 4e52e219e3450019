/* emu_undef.c — definedness: which lanes of each register hold a value the
 * kernel never defined (a register read before anything was written to
 * it, a shared word no thread of the block stored, a shuffle from a lane
 * that did not take part), carried through every instruction as Valgrind's
 * memcheck carries its V bits, and a hazard only where such a value
 * becomes observable: stored to global memory or combined into it by an
 * atomic, a branch's or a guard's predicate, an address, a warp
 * operation's mask.  Reading junk and dropping it is legal CUDA and
 * passes (docs/harness.md §10, "Undefined values"). */
#include "emu/emu_undef.h"
#include "emu/emu_lanes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Every register of frame U (function FN) undefined but the sink, the
 * constants and the special registers. */
static void frame_reset(const struct run *r, int fn, struct uslot *U)
{
    const struct emu_func *f = &r->m->funcs[fn];
    for (int32_t s = 0; s < f->nslots; s++) {
        U[s].lanes = 0xffffffffu;
        U[s].origin = 0;
    }
    U[0].lanes = 0;
    for (int i = 0; i < f->nconsts; i++)
        U[f->consts[i].slot].lanes = 0;
    for (int i = 0; i < f->nsregs; i++)
        U[f->sregs[i].slot].lanes = 0;
}

int emu_undef_frame(const struct run *r, struct warp *w, int fn)
{
    if (!w->uframes[fn]) {
        w->uframes[fn] = malloc((size_t)r->m->funcs[fn].nslots * sizeof **w->uframes);
        if (!w->uframes[fn])
            return -1;
    }
    frame_reset(r, fn, w->uframes[fn]);
    return 0;
}

void emu_undef_block(const struct run *r, struct warp *w)
{
    for (int fn = 0; fn < r->m->nfuncs; fn++)
        if (w->uframes[fn])
            frame_reset(r, fn, w->uframes[fn]);
}

void emu_undef_plan(struct emu_insn *in)
{
    int n = 1;
    in->uplan = 0;
    memset(in->usrc, 0, sizeof in->usrc);
    in->usrc[0] = in->guard >= 0 ? in->guard : 0;
    if (!in->alu || in->ndest != 1 || in->o[0].kind != OK_REG || in->nops - 1 > 3)
        return;
    for (int i = 1; i < in->nops; i++) {
        if (in->o[i].kind != OK_REG)
            return;
        in->usrc[n++] = in->o[i].reg;
    }
    in->udst = in->o[0].reg;
    in->uplan = 1;
}

/* Slot S's origin, read by the instruction at PC: a register never
 * written is first named where it is read. */
static uint64_t origin_of(const struct uslot *U, int32_t s, uint32_t pc)
{
    return U[s].origin ? U[s].origin : ORIGIN(ORIG_REG, 0, pc);
}

/* Operand I's undefined lanes (a vector's: any element's), and its origin
 * in *ORG where none was set yet. */
static uint32_t opnd_lanes(const struct emu_insn *in, const struct uslot *U, int i, uint32_t pc,
                           uint64_t *org)
{
    const struct emu_opnd *o = &in->o[i];
    uint32_t u = 0;
    if (o->kind == OK_REG || (o->kind == OK_ADDR && o->reg >= 0)) {
        u = U[o->reg].lanes;
        if (u && !*org)
            *org = origin_of(U, o->reg, pc);
    } else if (o->kind == OK_VEC) {
        for (int k = 0; k < o->n; k++)
            if (o->vec[k] >= 0 && U[o->vec[k]].lanes) {
                u |= U[o->vec[k]].lanes;
                if (!*org)
                    *org = origin_of(U, o->vec[k], pc);
            }
    }
    return u;
}

/* Operand I (a register or a vector) written in the lanes of TOUCHED:
 * undefined in those of UNDEF, from ORG. */
static void dest_set(const struct emu_insn *in, struct uslot *U, int i, uint32_t touched,
                     uint32_t undef, uint64_t org)
{
    const struct emu_opnd *o = &in->o[i];
    int n = o->kind == OK_VEC ? o->n : 1;
    for (int k = 0; k < n; k++) {
        int32_t s = o->kind == OK_VEC ? o->vec[k] : o->reg;
        if (s <= 0)
            continue;
        U[s].lanes = (U[s].lanes & ~touched) | (undef & touched);
        if (undef & touched)
            U[s].origin = org;
    }
}

/* Operand I's lanes of M that hold a defined value equal to WANT in the
 * bits of WM (0: and's absorbing zero, all ones: or's; a predicate's
 * negation applied). */
static uint32_t defined_equal(const struct emu_insn *in, const uint64_t *R, const struct uslot *U,
                              int i, uint32_t m, uint64_t wm, uint64_t want)
{
    const struct emu_opnd *o = &in->o[i];
    const uint64_t *v = R + (size_t)o->reg * 32;
    uint32_t out = 0;
    LANES(m & ~U[o->reg].lanes) {
        uint64_t x = (v[l] ^ (uint64_t)o->neg) & wm;
        if (x == (want & wm))
            out |= 1u << l;
    }
    return out;
}

/* The lanes of M whose selp/slct takes its first value operand. */
static uint32_t picks_first(const struct emu_insn *in, const uint64_t *R, uint32_t m)
{
    const uint64_t *c = R + (size_t)in->o[3].reg * 32;
    uint32_t out = 0;
    LANES(m) {
        int first;
        if (in->op == OP_SELP)
            first = (int)(c[l] & 1) ^ !!(in->flags & F_NEGPRED);
        else if (emu_type_kind[in->type2] == 'f')
            first = !(emu_f32(c[l]) < 0.0f);
        else
            first = (int32_t)c[l] >= 0;
        out |= (uint32_t)first << l;
    }
    return out;
}

void emu_undef_alu(struct warp *w, const struct emu_insn *in, uint32_t mask, uint32_t emask,
                   uint32_t pc)
{
    struct uslot *U = w->U;
    uint64_t org = 0;
    /* a guard that is undefined leaves its lanes' results undefined,
     * whichever way the junk fell */
    uint32_t gu = in->guard >= 0 ? U[in->guard].lanes & mask : 0;
    uint32_t touched = emask | gu, undef = gu;
    if (!touched)
        return;
    if (gu)
        org = origin_of(U, in->guard, pc);
    int nd = in->ndest;
    switch (in->op) {
    case OP_SELP:
    case OP_SLCT: {
        uint64_t oa = 0, ob = 0;
        uint32_t ua = opnd_lanes(in, U, 1, pc, &oa), ub = opnd_lanes(in, U, 2, pc, &ob);
        uint32_t uc = opnd_lanes(in, U, 3, pc, &org);
        uint32_t first = (ua | ub) & touched ? picks_first(in, w->R, touched) : 0;
        uint32_t from_a = ua & first, from_b = ub & ~first;
        undef |= uc | from_a | from_b;
        if (!org)
            org = from_a ? oa : ob;
        break;
    }
    case OP_AND:
    case OP_OR: {
        uint32_t ua = opnd_lanes(in, U, 1, pc, &org), ub = opnd_lanes(in, U, 2, pc, &org);
        uint32_t u = (ua | ub) & touched;
        if (u) {
            /* a defined 0 decides an and, a defined all-ones an or */
            uint64_t want = in->op == OP_AND ? 0 : ~0ull;
            uint64_t wm = in->type == T_PRED ? 1 : wmask(in->type);
            u &= ~defined_equal(in, w->R, U, 1, u, wm, want) &
                 ~defined_equal(in, w->R, U, 2, u, wm, want);
        }
        undef |= u;
        break;
    }
    case OP_SETP:
    case OP_SET: {
        int ci = in->op == OP_SET ? 3 : in->aux == 2 ? 4 : 3;
        uint32_t u = 0;
        for (int i = nd; i < in->nops; i++)
            u |= opnd_lanes(in, U, i, pc, &org);
        u &= touched;
        if (u && in->cmp2 == SUB_AND)
            u &= ~defined_equal(in, w->R, U, ci, u, 1, 0);
        else if (u && in->cmp2 == SUB_OR)
            u &= ~defined_equal(in, w->R, U, ci, u, 1, 1);
        undef |= u;
        break;
    }
    default:
        for (int i = nd; i < in->nops; i++)
            undef |= opnd_lanes(in, U, i, pc, &org);
        break;
    }
    for (int i = 0; i < nd; i++)
        dest_set(in, U, i, touched, undef, org);
}

/* ---- where an undefined value becomes observable ----------------------------------- */

/* "a variable that kernel.cu:12 read before anything was stored in it",
 * or what else ORG names. */
static void origin_text(const struct run *r, uint64_t org, char *out, size_t cap)
{
    char at[160], place[120];
    int pc = (int)(uint32_t)org;
    switch (org >> 60) {
    case ORIG_SHARED: {
        uint32_t off = (uint32_t)(org >> 32) & 0x3ffffu, rank1 = (uint32_t)(org >> 50) & 0x3ffu;
        emu_src_line(r, pc, at, sizeof at);
        emu_shared_place(r, off, emu_type_size[r->code[pc].type], place, sizeof place);
        if (rank1) {
            size_t n = strlen(place);
            snprintf(place + n, sizeof place - n, " of block %u",
                     r->cta->first[rank1 - 1].ctaid[0]);
        }
        snprintf(out, cap, "%s, which held no defined value when %s read it (no thread of %s "
                 "had stored to it)", place, at, rank1 ? "that block" : "the block");
        break;
    }
    case ORIG_SHFL:
        emu_src_line(r, pc, at, sizeof at);
        snprintf(out, cap, "a shuffle at %s that read a lane which did not take part (exited, or "
                 "not at the shuffle)", at);
        break;
    case ORIG_REG:
        emu_src_line(r, pc, at, sizeof at);
        snprintf(out, cap, "a variable that %s read before anything was stored in it", at);
        break;
    default:
        snprintf(out, cap, "a register never written");
        break;
    }
}

int emu_undef_report(struct run *r, struct warp *w, uint32_t lanes, int pc, uint64_t org,
                     const char *what)
{
    char from[400];
    origin_text(r, org, from, sizeof from);
    return emu_hazard(r, w, __builtin_ctz(lanes), pc, "%s a value that is undefined: it comes "
                      "from %s", what, from);
}

/* Slot S's undefined lanes of M, with its origin in *ORG. */
static uint32_t slot_lanes(const struct uslot *U, int32_t s, uint32_t m, uint32_t pc,
                           uint64_t *org)
{
    uint32_t u = s > 0 ? U[s].lanes & m : 0;
    if (u)
        *org = origin_of(U, s, pc);
    return u;
}

int emu_undef_step(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                   uint32_t emask, uint32_t pc)
{
    struct uslot *U = w->U;
    uint64_t org = 0;
    int cls = emu_ops[in->op].cls;
    uint32_t u = in->guard >= 0 ? slot_lanes(U, in->guard, mask, pc, &org) : 0;
    if (u)
        return emu_undef_report(r, w, u, (int)pc, org,
                                cls == C_BRA ? "branches on" : "guards an instruction with");
    switch (cls) {
    case C_BRX:
        if ((u = slot_lanes(U, in->o[0].reg, emask, pc, &org)))
            return emu_undef_report(r, w, u, (int)pc, org, "jumps through a table by");
        return 0;
    case C_CALL:
        if (in->target < 0 && (u = slot_lanes(U, in->aux, emask, pc, &org)))
            return emu_undef_report(r, w, u, (int)pc, org, "calls through a pointer that is");
        return 0;
    case C_WARP: {
        int mi = in->op == OP_WARPSYNC ? 0 : in->nops - 1;
        if ((u = slot_lanes(U, in->o[mi].reg, emask, pc, &org)))
            return emu_undef_report(r, w, u, (int)pc, org, "names its warp operation's lanes by");
        return 0;
    }
    case C_CVTA: case C_SPACEP: case C_CLUSTER: case C_MBAR: case C_CLOCK: case C_ACTIVEMASK:
    case C_BAR: case C_SLEEP: case C_PRINTF: case C_ASYNC: case C_NOP: {
        /* what these write follows from what they read */
        uint32_t undef = 0;
        for (int i = in->ndest; i < in->nops; i++)
            undef |= opnd_lanes(in, U, i, pc, &org);
        for (int i = 0; i < in->ndest; i++)
            dest_set(in, U, i, emask, undef, org);
        return 0;
    }
    default:
        return 0;
    }
}

/* shfl's results: each lane's value is its source lane's (FROM, 0xff: a
 * lane that did not take part, whose value is junk); the second result
 * (in range) follows from the operands. */
void emu_undef_shfl(struct warp *w, const struct emu_insn *in, uint32_t emask, const uint8_t *from,
                    uint32_t pc)
{
    struct uslot *U = w->U;
    int two = in->aux == 2, ai = two ? 2 : 1;
    uint64_t org = 0, oa = 0;
    uint32_t ua = opnd_lanes(in, U, ai, pc, &oa);
    uint32_t ubc = opnd_lanes(in, U, ai + 1, pc, &org) | opnd_lanes(in, U, ai + 2, pc, &org);
    uint32_t undef = ubc;
    LANES(emask) {
        if (from[l] == 0xff) {
            undef |= 1u << l;
            if (!org)
                org = ORIGIN(ORIG_SHFL, 0, pc);
        } else if ((ua >> from[l]) & 1) {
            undef |= 1u << l;
            if (!org)
                org = oa;
        }
    }
    dest_set(in, U, 0, emask, undef, org);
    if (two)
        dest_set(in, U, 1, emask, ubc, org);
}

/* vote, redux and match: a lane's result is undefined when a lane of its
 * group gave an undefined operand, but where a defined one decides it
 * (any: a true vote; all: a false one). */
void emu_undef_collective(struct warp *w, const struct emu_insn *in, uint32_t emask, uint32_t pc)
{
    struct uslot *U = w->U;
    if (in->op == OP_ELECT) {
        for (int i = 0; i < in->ndest; i++)
            dest_set(in, U, i, emask, 0, 0);
        return;
    }
    int vi = in->op == OP_MATCH && in->aux == 2 ? 2 : 1;
    uint64_t org = 0;
    uint32_t uv = opnd_lanes(in, U, vi, pc, &org) & emask;
    uint32_t undef = 0;
    if (uv) {
        uint32_t decide = 0;
        if (in->op == OP_VOTE && (in->sub == SUB_ANY || in->sub == SUB_ALL))
            decide = defined_equal(in, w->R, U, vi, emask, 1, in->sub == SUB_ANY);
        const uint64_t *mk = w->R + (size_t)in->o[in->nops - 1].reg * 32;
        LANES(emask) {
            uint32_t g = ((uint32_t)mk[l] & emask) | 1u << l;
            if ((g & uv) && !(g & decide))
                undef |= 1u << l;
        }
    }
    for (int i = 0; i < in->ndest; i++)
        dest_set(in, U, i, emask, undef, org);
}
