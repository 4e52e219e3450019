/* emu_fops.h — the float half of the ALU (emu_fops.c): comparisons, testp,
 * cvt and the float arithmetic, for emu_ops.c's dispatch.  Private to
 * tutor/emu/. */
#ifndef EMU_FOPS_H
#define EMU_FOPS_H

#include <stdint.h>

#include "emu/emu_int.h"

/* CMP (CMP_*) of X and Y read as TYPE: 0 or 1. */
int emu_compare(int cmp, int type, uint64_t x, uint64_t y);
/* testp's test SUB (1 finite .. 6 number) of X read as TYPE. */
int emu_testp(int sub, uint64_t x, int type);
/* cvt IN for the lanes of MASK: d[l] from a[l] (a register's 32 lanes). */
void emu_cvt(const struct emu_insn *in, uint64_t *d, const uint64_t *a, uint32_t mask);
/* The handler of the f32 or f64 form IN, chosen from its opcode, rounding
 * and modifiers; NULL when there is none. */
emu_alu_fn *emu_fops_select(const struct emu_insn *in);

#endif
