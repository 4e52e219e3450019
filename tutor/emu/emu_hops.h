/* emu_hops.h — the half floats (emu_hops.c): f16 and bf16, one to a 16-bit
 * register or two to a 32-bit one (.f16x2, .bf16x2), for emu_ops.c's
 * selection.  Private to tutor/emu/. */
#ifndef EMU_HOPS_H
#define EMU_HOPS_H

#include "emu/emu_int.h"

/* Whether TYPE is a half float, one or two to a register. */
static inline int emu_hops_is_half(int type)
{
    return emu_type_kind[type] == 'h';
}

/* The handler of IN, a form on half floats (its type or cvt's source one);
 * NULL when there is none (the approximate functions: not emulated). */
emu_alu_fn *emu_hops_select(const struct emu_insn *in);

/* atom.add.noftz on halves of TYPE (one in 16 bits, two in 32): OLD + B,
 * each half rounded to nearest even, subnormals kept.  -1 where a half of
 * the sum is a NaN, whose bits an atomic unit gives as it will (needs a
 * GPU); else 0, the sum in *SUM. */
int emu_hops_atom_add(int type, uint32_t old, uint32_t b, uint32_t *sum);

#endif
