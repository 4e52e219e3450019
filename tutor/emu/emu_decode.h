/* emu_decode.h — one instruction decoded (emu_decode.c), for the parser's
 * driver.  Private to tutor/emu/. */
#ifndef EMU_DECODE_H
#define EMU_DECODE_H

#include "emu/emu_pstate.h"

int emu_decode_add_insn(struct parser *P, struct emu_insn **out);
int emu_decode_insn(struct parser *P, int guard, int guard_neg);
int emu_decode_refuse(struct parser *P, const char *what, int guard, int guard_neg);

#endif
