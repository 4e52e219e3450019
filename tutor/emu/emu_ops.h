/* emu_ops.h — the emulator's ALU: emu_ops.c (dispatch, integers, bits,
 * predicates), with the float half (emu_fops.h) and what both halves
 * share (emu_lanes.h).  Private to tutor/emu/. */
#ifndef EMU_OPS_H
#define EMU_OPS_H

#include "emu/emu_int.h"
#include "emu/emu_fops.h"
#include "emu/emu_lanes.h"

/* Runs the register-only instruction IN over the lanes of MASK of the warp
 * whose registers are R (slot-major, 32 lanes a slot) and whose carry flags
 * (add.cc/addc) are CARRY; 0, or -1 when IN is no ALU form. */
int emu_alu(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry);

#endif
