/* emu_ops.h — the emulator's ALU: emu_ops.c (selection, integers, bits,
 * predicates), with the float half (emu_fops.h), the half floats
 * (emu_hops.h) and what they share (emu_lanes.h).  Private to tutor/emu/. */
#ifndef EMU_OPS_H
#define EMU_OPS_H

#include "emu/emu_int.h"
#include "emu/emu_fops.h"
#include "emu/emu_hops.h"
#include "emu/emu_lanes.h"

/* The handler of the register-only (C_ALU) instruction IN, chosen once at
 * decode from its opcode, types and modifiers; NULL when the ALU has none.
 * The handler runs IN over the lanes of MASK of the warp whose registers
 * are R (slot-major, 32 lanes a slot) and whose carry flags (add.cc/addc)
 * are CARRY. */
emu_alu_fn *emu_alu_select(const struct emu_insn *in);

#endif
