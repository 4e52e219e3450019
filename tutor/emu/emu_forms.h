/* emu_forms.h — the mnemonics' words and the operand shapes of each form
 * (emu_forms.c), for the instruction decoder.  Private to tutor/emu/. */
#ifndef EMU_FORMS_H
#define EMU_FORMS_H

#include "emu/emu_pstate.h"

int emu_forms_mnemonic(struct parser *P, const char *s, int len, struct emu_insn *in);
int emu_forms_check(struct parser *P, const struct emu_insn *in, const char *mn, int mlen);

#endif
