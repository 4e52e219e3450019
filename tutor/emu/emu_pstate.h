/* emu_pstate.h — the PTX parser's state and the helpers every part of the
 * parser uses (emu_pstate.c): the parser's driver (emu_parse.c), the
 * declarations (emu_decl.c), the instruction decoder (emu_decode.c) and
 * the forms table (emu_forms.c).  A leaf of the parser: it includes none of
 * them.  Private to tutor/emu/. */
#ifndef EMU_PSTATE_H
#define EMU_PSTATE_H

#include <string.h>

#include "emu/emu_int.h"
#include "emu/emu_lex.h"

struct regdecl {
    const char *name;
    int len;
    int count;          /* -1: one register; else NAME0 .. NAME<count-1> */
    int base;
    int type;
    int depth;
};

struct symdecl {
    const char *name;
    int len;
    int space;
    uint64_t addr;
    size_t bytes;
    int depth;
    int dyn;            /* the dynamic shared array: its address is the kernel's static end */
};

struct label {
    const char *name;
    int len;
    int index;
};

/* A label a branch names, resolved at the function's end: into
 * insn's target, or (insn -1) into the module's jump-table slot. */
struct fixup {
    int insn;
    int slot;
    const char *name;
    int len;
    int line;
};

/* A .branchtargets list: its label and its slots in the module's table. */
struct btab {
    const char *name;
    int len;
    int first, count;
};

struct parser {
    struct emu_lex lx;
    struct emu_module *m;
    struct emu_error *err;
    enum emu_status st;
    int cap_insn, cap_funcs, cap_vars, cap_files, cap_refused, cap_shvars;
    /* the function being parsed */
    struct emu_func *fn;
    int fn_index;
    struct regdecl *regs;
    int nregs, cap_regs;
    struct symdecl *syms;
    int nsyms, cap_syms;
    struct label *labels;
    int nlabels, cap_labels;
    struct fixup *fixups;
    int nfixups, cap_fixups;
    struct btab *btabs;
    int nbtabs, cap_btabs, cap_brxt;
    int depth;
    int cap_consts, cap_sregs;
    int sreg_slot[SR_COUNT];
    uint32_t scratch;           /* callseq .param bytes */
    uint32_t cur_line;
    int cur_file;
    uint32_t cur_cline;         /* the current .loc's inlined_at, 0 when none */
    int cur_cfile;
    int func_dyn_used;
    uint32_t func_params;       /* .func parameter bytes so far (call scratch) */
    /* every .loc line with an inlined_at, for the calls CUDA's headers
     * make of each other (emu_parse.c's to_callers) */
    struct locrec {
        int fn, file, cfile;
        uint32_t line, cline;
    } *locs;
    int nlocs, cap_locs;
    int *chash;                 /* the function's constants by value (emu_decode.c) */
    size_t chash_cap;
};

/* A function's registers, immediates and special registers: each slot
 * costs 256 bytes a warp, and a launch holds up to 8192 threads' (four
 * SMs' worth), so this bounds their host memory at 512 MiB; nvcc's PTX
 * of every reference solution needs under 1100.  65,000 cost 4.1 GB. */
#define MAX_SLOTS 8192
/* A thread's local memory, as on the GPU. */
#define MAX_LOCAL (512u * 1024u)
/* A module's .local declarations, every function's at its own place in
 * one space (the local window, emu_mem.c, holds it); a kernel's threads
 * get only the places of the functions they can run (emu_func.lreg). */
#define MODULE_LOCAL (15u << 20)

/* Where the .funcs' own parameters start in the call scratch. */
#define FUNC_PARAMS 2048u

#define GROW(P, arr, cnt, capf)                                                                    \
    (emu_parse_grow((void **)&(arr), &(capf), (cnt) + 1, sizeof *(arr)) ? emu_parse_nomem(P) : 0)

static inline struct emu_tok *tok(struct parser *P)
{
    return &P->lx.tok;
}

static inline void next(struct parser *P)
{
    emu_lex_next(&P->lx);
}

static inline int is_punct(struct parser *P, char c)
{
    return tok(P)->kind == TK_PUNCT && tok(P)->c == c;
}

static inline int is_word(struct parser *P, const char *w)
{
    size_t n = strlen(w);
    return tok(P)->kind == TK_ID && (size_t)tok(P)->len == n && !memcmp(tok(P)->s, w, n);
}

static inline int tok_eq(const struct emu_tok *t, const char *s, int len)
{
    return t->len == len && !memcmp(t->s, s, (size_t)len);
}

/* The reporting helpers return -1 after recording the parser's first
 * error (later ones are dropped). */
int emu_parse_grow(void **p, int *cap, int need, size_t elem);
int emu_parse_nomem(struct parser *P);
int emu_parse_fail(struct parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int emu_parse_unsupported(struct parser *P, const char *what, int len);
int emu_parse_expect(struct parser *P, char c);
int emu_parse_new_slots(struct parser *P, int n);
int emu_parse_find_reg(struct parser *P, const char *s, int len, int *type);
const struct symdecl *emu_parse_find_sym(struct parser *P, const char *s, int len);
int emu_parse_find_func(const struct emu_module *m, const char *s, int len);
uint64_t emu_parse_sym_addr(struct parser *P, const struct symdecl *s);

#endif
