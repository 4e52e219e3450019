/* emu_ptxscan.h — facts read from PTX text through the emulator's own
 * tokenizer (emu_lex.h), for the readers outside the emulator: the rules'
 * technique check (check/rules.c) and the judge's launch plans without a
 * GPU (harness/hx_plan.cu).  One reader of PTX, so that a comment, a
 * string or a name a student picks is read alike everywhere.  C and CUDA. */
#ifndef EMU_PTXSCAN_H
#define EMU_PTXSCAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Calls fn with each instruction's opcode, its mnemonic with every
 * modifier ("atom.global.add.u32", LEN bytes), in the text's order; stops
 * at the first nonzero fn returns, and returns it; 0 at the end.  A label,
 * a guard ("@%p1", "@!%p1"), a directive (".reg", ".loc") and what an
 * instruction takes are no opcodes.  Reading stops where the tokenizer
 * does (a byte no PTX token starts with). */
int emu_ptx_opcodes(const char *text, size_t len, int (*fn)(void *ud, const char *op, int oplen), void *ud);

/* Kernel NAME's .entry: its parameters' sizes in bytes, in order (at most
 * MAX), and the bytes per thread of its local depot, the local array
 * ptxas will put in local memory (0: none).  Returns the number of
 * parameters, or -1 when the text has no such entry, a parameter's width
 * cannot be read, or there are more than MAX. */
int emu_ptx_entry(const char *text, size_t len, const char *name, unsigned *sizes, int max,
                  unsigned *local_bytes);

/* Calls fn with each .entry's (mangled) name, NAME bytes LEN, in the
 * text's order; stops at the first nonzero fn returns, and returns it; 0 at
 * the end.  A kernel the module defines is one of them. */
int emu_ptx_entries(const char *text, size_t len, int (*fn)(void *ud, const char *name, int namelen), void *ud);

#ifdef __cplusplus
}
#endif

#endif /* EMU_PTXSCAN_H */
