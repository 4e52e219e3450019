/* emu_decl.h — the declarations of a PTX module and of its functions
 * (emu_decl.c), for the parser's driver.  Private to tutor/emu/. */
#ifndef EMU_DECL_H
#define EMU_DECL_H

#include "emu/emu_pstate.h"

/* The state space a word (".global") names, or -1. */
int emu_decl_space(const struct emu_tok *t);
int emu_decl_module_var(struct parser *P, int space, int is_extern);
/* A function's parameter list, or its return values (IS_RET). */
int emu_decl_params(struct parser *P, struct emu_func *f, int is_ret);
int emu_decl_reg(struct parser *P);
/* A .shared, .local or .param (SPACE) declaration inside a function. */
int emu_decl_local(struct parser *P, int space);

#endif
