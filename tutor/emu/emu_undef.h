/* emu_undef.h — definedness, with hazards tracked (emu_undef.c): each
 * register's undefined lanes carried through the instructions, and the
 * ALU's common case inline for the interpreter's step (emu_warp.c).
 * Private to tutor/emu/. */
#ifndef EMU_UNDEF_H
#define EMU_UNDEF_H

#include "emu/emu_run.h"

/* Function FN's definedness frame for W, allocated if it has none, every
 * register undefined but constants and special registers; 0 or -1. */
int emu_undef_frame(const struct run *r, struct warp *w, int fn);
/* A block starts in W's slot: every frame's registers undefined again. */
void emu_undef_block(const struct run *r, struct warp *w);
/* After an ALU instruction IN ran for EMASK of MASK at PC: its results'
 * definedness from its operands'. */
void emu_undef_alu(struct warp *w, const struct emu_insn *in, uint32_t mask, uint32_t emask,
                   uint32_t pc);
/* emu_undef_alu's common case inline: every operand defined in every lane
 * (a vector operand, or any undefined lane, takes the full path). */
static inline void emu_undef_after_alu(struct warp *w, const struct emu_insn *in, uint32_t mask,
                                       uint32_t emask, uint32_t pc)
{
    struct uslot *U = w->U;
    if (in->uplan && !((U[in->usrc[0]].lanes & mask) | U[in->usrc[1]].lanes | U[in->usrc[2]].lanes |
                       U[in->usrc[3]].lanes)) {
        U[in->udst].lanes &= ~emask;
        return;
    }
    uint32_t any = in->guard >= 0 ? U[in->guard].lanes & mask : 0;
    for (int i = in->ndest; i < in->nops && !any; i++)
        any = in->o[i].kind == OK_REG ? U[in->o[i].reg].lanes : in->o[i].kind == OK_VEC;
    for (int i = 0; i < in->ndest && !any; i++)
        any = in->o[i].kind != OK_REG;
    if (any) {
        emu_undef_alu(w, in, mask, emask, pc);
        return;
    }
    for (int i = 0; i < in->ndest; i++)
        U[in->o[i].reg].lanes &= ~emask;
    U[0].lanes = 0;
}
/* IN's plan for emu_undef_after_alu (uplan, usrc, udst), once at load. */
void emu_undef_plan(struct emu_insn *in);
/* Before any other instruction runs: an undefined guard, branch index,
 * call pointer or warp mask is a hazard; the simple classes' results'
 * definedness.  0, or -1 (reported). */
int emu_undef_step(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                   uint32_t emask, uint32_t pc);
/* The hazard: lane (the lowest of LANES) of W at PC WHAT ("stores to
 * d_out") a value that is undefined, from ORG.  -1. */
int emu_undef_report(struct run *r, struct warp *w, uint32_t lanes, int pc, uint64_t org,
                     const char *what);
/* shfl's results' definedness (FROM: each lane's source, 0xff none). */
void emu_undef_shfl(struct warp *w, const struct emu_insn *in, uint32_t emask, const uint8_t *from,
                    uint32_t pc);
/* vote, redux, match and elect's results' definedness. */
void emu_undef_collective(struct warp *w, const struct emu_insn *in, uint32_t emask, uint32_t pc);

#endif
