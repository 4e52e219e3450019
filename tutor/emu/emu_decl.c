/* emu_decl.c — PTX declarations: module-scope variables (.global and
 * .const allocated, initialised and mapped under their names; .shared
 * given offsets), a function's parameters, registers (with %r<N> ranges,
 * scoped by braces) and its .shared/.local/.param variables. */
#include "emu/emu_decl.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- module-scope and function-scope declarations ------------------------- */

static int parse_type_word(const struct emu_tok *t)
{
    for (int i = 1; i < T_COUNT; i++) {
        const char *n = emu_type_name[i];
        int len = (int)strlen(n);
        if (t->len == len + 1 && t->s[0] == '.') {
            int ok = 1;
            for (int j = 0; j < len; j++)
                if ((t->s[1 + j] | 0x20) != (n[j] | 0x20))
                    ok = 0;
            if (ok)
                return i;
        }
    }
    return 0;
}

/* The state space a word (".global") names, or -1. */
int emu_decl_space(const struct emu_tok *t)
{
    static const struct {
        const char *w;
        int sp;
    } t_sp[] = {{".global", SP_GLOBAL}, {".shared", SP_SHARED}, {".local", SP_LOCAL},
                {".param", SP_PARAM}, {".const", SP_CONST}};
    for (size_t i = 0; i < sizeof t_sp / sizeof *t_sp; i++)
        if (tok_eq(t, t_sp[i].w, (int)strlen(t_sp[i].w)))
            return t_sp[i].sp;
    return -1;
}

struct vardecl {
    int space, type, align, is_extern;
    const char *name;
    int len;
    int64_t elems;      /* -1: [] (size unknown) */
    unsigned char *init;
    size_t init_bytes;
};

/* An address in an initialiser, at the parser, into *BITS, its tokens
 * consumed: a function's ({f, g}: a table of function pointers, each what a
 * call through a pointer reads, FUNC_ADDR + its index), or a global or
 * constant variable's, plain or as generic(v) (both spaces' addresses are
 * the generic space's own), with a byte offset "+ N" after it.  0, or -1
 * (reported: an address of anything else is not emulated). */
static int address_init(struct parser *P, uint64_t *bits)
{
    int generic = tok_eq(tok(P), "generic", 7);
    if (generic) {
        next(P);
        if (!is_punct(P, '('))
            return emu_parse_fail(P, "expected '(' after generic");
        next(P);
    }
    const struct emu_tok *t = tok(P);
    int fi = generic ? -1 : emu_parse_find_func(P->m, t->s, t->len);
    const struct symdecl *sd = fi >= 0 ? NULL : emu_parse_find_sym(P, t->s, t->len);
    if (fi >= 0) {
        *bits = FUNC_ADDR + (uint64_t)fi;
    } else if (sd && (sd->space == SP_GLOBAL || sd->space == SP_CONST) && !sd->dyn) {
        *bits = sd->addr;
    } else {
        return emu_parse_unsupported(P, "an initialiser holding an address", 34);
    }
    next(P);
    if (generic) {
        if (!is_punct(P, ')'))
            return emu_parse_fail(P, "expected ')' after generic(name");
        next(P);
    }
    if (is_punct(P, '+') && fi < 0) {
        next(P);
        int64_t off;
        if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &off) || off < 0)
            return emu_parse_fail(P, "expected a byte offset after '+' in an initialiser");
        *bits += (uint64_t)off;
        next(P);
    }
    return 0;
}

/* Reads an initialiser's values into BUF (ELEM bytes each) up to CAP bytes. */
static int parse_init(struct parser *P, int type, unsigned char *buf, size_t cap, size_t *used,
                      int depth)
{
    int esz = emu_type_size[type];
    int fbits = emu_type_kind[type] == 'f' ? esz * 8 : 0;
    if (is_punct(P, '{')) {
        next(P);
        while (!is_punct(P, '}')) {
            if (depth > 8)
                return emu_parse_fail(P, "initialiser braces nested too deep");
            if (parse_init(P, type, buf, cap, used, depth + 1))
                return -1;
            if (is_punct(P, ','))
                next(P);
            else if (!is_punct(P, '}'))
                return emu_parse_fail(P, "expected ',' or '}' in an initialiser");
        }
        next(P);
        return 0;
    }
    int neg = 0;
    if (is_punct(P, '-')) {
        neg = 1;
        next(P);
    }
    uint64_t bits;
    if (tok(P)->kind == TK_ID && !neg && esz == 8) {
        if (address_init(P, &bits))
            return -1;
    } else if (tok(P)->kind != TK_NUM) {
        return emu_parse_fail(P, "expected a number in an initialiser");
    } else if (emu_lex_number(tok(P)->s, tok(P)->len, neg, fbits, &bits)) {
        return emu_parse_fail(P, "bad number '%.*s'", tok(P)->len, tok(P)->s);
    } else {
        next(P);
    }
    if (*used + (size_t)esz > cap)
        return emu_parse_fail(P, "initialiser longer than its array");
    memcpy(buf + *used, &bits, (size_t)esz);    /* little-endian host */
    *used += (size_t)esz;
    return 0;
}

/* Parses ".space [.align N] [.ptr ...] .type name[N][= init]" from the
 * space word (SPACE, the current token) into D, zeroed first; stops before
 * ';' or ','. */
static int parse_var(struct parser *P, int space, struct vardecl *d)
{
    next(P);
    memset(d, 0, sizeof *d);
    d->space = space;
    for (;;) {
        const struct emu_tok *t = tok(P);
        if (t->kind != TK_ID || t->s[0] != '.')
            break;
        if (tok_eq(t, ".align", 6)) {
            next(P);
            int64_t a;
            if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &a) || a <= 0 ||
                a > 4096 || (a & (a - 1)))
                return emu_parse_fail(P, "bad .align");
            d->align = (int)a;
            next(P);
            continue;
        }
        if (tok_eq(t, ".ptr", 4) || emu_decl_space(t) >= 0) {
            next(P);    /* a parameter's pointee attributes: .ptr .global .align N */
            continue;
        }
        int ty = parse_type_word(t);
        if (!ty)
            return emu_parse_unsupported(P, t->s, t->len);
        d->type = ty;
        next(P);
    }
    if (!d->type)
        return emu_parse_fail(P, "expected a type in a declaration");
    if (tok(P)->kind != TK_ID)
        return emu_parse_fail(P, "expected a name in a declaration");
    d->name = tok(P)->s;
    d->len = tok(P)->len;
    next(P);
    d->elems = 1;
    while (is_punct(P, '[')) {
        next(P);
        if (is_punct(P, ']')) {
            d->elems = -1;
            next(P);
            continue;
        }
        int64_t n;
        if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &n) || n < 0 ||
            n > (1ll << 32))
            return emu_parse_fail(P, "bad array size");
        next(P);
        if (emu_parse_expect(P, ']'))
            return -1;
        d->elems = d->elems < 0 ? -1 : d->elems * n;
    }
    if (!d->align)
        d->align = emu_type_size[d->type] ? emu_type_size[d->type] : 1;
    d->init = NULL;
    d->init_bytes = 0;
    if (is_punct(P, '=')) {
        next(P);
        if (d->elems < 0)
            return emu_parse_fail(P, "an initialiser for an array of unknown size");
        size_t cap = (size_t)d->elems * emu_type_size[d->type];
        d->init = calloc(1, cap ? cap : 1);
        if (!d->init)
            return emu_parse_nomem(P);
        if (parse_init(P, d->type, d->init, cap, &d->init_bytes, 0)) {
            free(d->init);
            d->init = NULL;
            return -1;
        }
    }
    return 0;
}

static int add_sym(struct parser *P, const char *name, int len, int space, uint64_t addr,
                   size_t bytes, int dyn)
{
    if (GROW(P, P->syms, P->nsyms, P->cap_syms))
        return -1;
    struct symdecl *s = &P->syms[P->nsyms++];
    s->name = name;
    s->len = len;
    s->space = space;
    s->addr = addr;
    s->bytes = bytes;
    s->depth = P->depth;
    s->dyn = dyn;
    return 0;
}

/* A shared variable's name as the source wrote it: a function's static
 * __shared__ array is mangled (_ZZ12reduce_blockPKiPijE5sdata: the name
 * after the function's, length first), a file-scope one is not. */
static void source_name(const char *s, int len, char *out, size_t cap)
{
    if (len > 3 && !memcmp(s, "_ZZ", 3))
        for (int i = len - 1; i > 3; i--) {
            if (s[i - 1] != 'E' || s[i] < '1' || s[i] > '9')
                continue;
            int n = 0, j = i;
            while (j < len && s[j] >= '0' && s[j] <= '9')
                n = n * 10 + (s[j++] - '0');
            /* the name, maybe followed by a discriminator _N */
            if (n > 0 && j + n <= len && (j + n == len || s[j + n] == '_')) {
                snprintf(out, cap, "%.*s", n, s + j);
                return;
            }
        }
    snprintf(out, cap, "%.*s", len, s);
}

/* Records the shared variable NAME (LEN bytes) of function FN at OFF. */
static int shared_var(struct parser *P, int fn, const char *name, int len, uint32_t off,
                      uint64_t bytes)
{
    struct emu_module *m = P->m;
    if (GROW(P, m->shvars, m->nshvars, P->cap_shvars))
        return -1;
    struct emu_shvar *v = &m->shvars[m->nshvars++];
    v->fn = fn;
    v->off = off;
    v->bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
    source_name(name, len, v->name, sizeof v->name);
    return 0;
}

/* A module-scope .global/.const/.shared variable: allocated and mapped
 * (global, const) or given its shared offset. */
static int module_var(struct parser *P, struct vardecl *d)
{
    struct emu_module *m = P->m;
    size_t bytes = d->elems < 0 ? 0 : (size_t)d->elems * emu_type_size[d->type];
    if (d->space == SP_SHARED) {
        if (d->elems < 0 || d->is_extern)
            return shared_var(P, -2, d->name, d->len, 0, 0) ||
                   add_sym(P, d->name, d->len, SP_SHARED, 0, 0, 1);
        uint32_t off = (m->module_smem + (uint32_t)d->align - 1) & ~((uint32_t)d->align - 1);
        m->module_smem = off + (uint32_t)bytes;
        return shared_var(P, -1, d->name, d->len, off, bytes) ||
               add_sym(P, d->name, d->len, SP_SHARED, off, bytes, 0);
    }
    if (d->space != SP_GLOBAL && d->space != SP_CONST)
        return emu_parse_unsupported(P, "a module-scope variable of this space", 40);
    if (d->is_extern)
        return emu_parse_unsupported(P, ".extern variable", 16);
    if (GROW(P, m->vars, m->nvars, P->cap_vars))
        return -1;
    size_t alloc = bytes ? bytes : 1;
    void *mem = NULL;
    if (posix_memalign(&mem, d->align < 16 ? 16 : (size_t)d->align, (alloc + 15) & ~(size_t)15))
        return emu_parse_nomem(P);
    memset(mem, 0, (alloc + 15) & ~(size_t)15);
    if (d->init)
        memcpy(mem, d->init, d->init_bytes);
    struct emu_var *v = &m->vars[m->nvars];
    v->name = strndup(d->name, (size_t)d->len);
    if (!v->name) {
        free(mem);
        return emu_parse_nomem(P);
    }
    v->space = d->space;
    v->addr = (uint64_t)(uintptr_t)mem;
    v->bytes = bytes;
    v->init = d->init;  /* kept for emu_module_reset */
    v->init_bytes = d->init_bytes;
    d->init = NULL;
    m->nvars++;
    if (emu_mem_map(m->e, mem, alloc, v->name))
        return emu_parse_fail(P, "cannot map variable %s", v->name);
    return add_sym(P, d->name, d->len, d->space, v->addr, bytes, 0);
}

/* ---- functions -------------------------------------------------------------- */

/* A function's parameter list.  An .entry's parameters are offsets into
 * the launch's parameter buffer; a .func's (and its return values) are
 * addresses in each thread's call scratch, above the callseq area, every
 * .func its own range (calls copy arguments in and results out). */
int emu_decl_params(struct parser *P, struct emu_func *f, int is_ret)
{
    if (emu_parse_expect(P, '('))
        return -1;
    uint32_t off = 0;
    while (!is_punct(P, ')')) {
        if (!is_word(P, ".param") && !is_word(P, ".reg"))
            return emu_parse_fail(P, "expected .param");
        if (is_word(P, ".reg"))
            return emu_parse_unsupported(P, ".reg parameter", 14);
        struct vardecl d;
        if (parse_var(P, SP_PARAM, &d))
            return -1;
        if (d.elems < 0)
            return emu_parse_fail(P, "a parameter of unknown size");
        uint32_t bytes = (uint32_t)d.elems * emu_type_size[d.type];
        uint32_t a = (uint32_t)d.align;
        off = (off + a - 1) & ~(a - 1);
        uint32_t addr = off;
        if (!f->is_entry) {
            uint32_t base = (P->func_params + a - 1) & ~(a - 1);
            if (base + bytes > SCRATCH_BYTES - FUNC_PARAMS)
                return emu_parse_unsupported(P, "functions with more than 2 KiB of parameters", 44);
            addr = PARAM_SCRATCH + FUNC_PARAMS + base;
            P->func_params = base + bytes;
        }
        if (is_ret) {
            if (f->nret >= 4)
                return emu_parse_unsupported(P, "more than 4 return values", 25);
            f->ret_offset[f->nret] = addr;
            f->ret_size[f->nret] = bytes;
            f->nret++;
        } else {
            if (f->nparams >= EMU_MAX_PARAMS)
                return emu_parse_unsupported(P, "more than 64 parameters", 23);
            f->param_offset[f->nparams] = addr;
            f->param_size[f->nparams] = bytes;
            f->nparams++;
        }
        if (add_sym(P, d.name, d.len, SP_PARAM, addr, bytes, 0))
            return -1;
        off += bytes;
        if (is_punct(P, ','))
            next(P);
    }
    next(P);
    if (!is_ret)
        f->param_bytes = off;
    return 0;
}

/* .reg .TYPE name[<N>][, ...]; at the current scope depth. */
int emu_decl_reg(struct parser *P)
{
    next(P);
    int type = 0;
    int vec = 1;
    while (tok(P)->kind == TK_ID && tok(P)->s[0] == '.') {
        if (tok_eq(tok(P), ".v2", 3))
            vec = 2;
        else if (tok_eq(tok(P), ".v4", 3))
            vec = 4;
        else if (!(type = parse_type_word(tok(P))))
            return emu_parse_unsupported(P, tok(P)->s, tok(P)->len);
        next(P);
    }
    if (!type || vec != 1)
        return vec != 1 ? emu_parse_unsupported(P, ".reg .v2/.v4", 12) : emu_parse_fail(P, "expected a type in .reg");
    for (;;) {
        if (tok(P)->kind != TK_ID)
            return emu_parse_fail(P, "expected a register name");
        struct regdecl d = {.name = tok(P)->s, .len = tok(P)->len, .count = -1, .type = type,
                            .depth = P->depth};
        next(P);
        if (is_punct(P, '<')) {
            next(P);
            int64_t nreg;
            if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &nreg) || nreg < 0 ||
                nreg > 100000)
                return emu_parse_fail(P, "bad register count");
            next(P);
            if (emu_parse_expect(P, '>'))
                return -1;
            d.count = (int)nreg;
        }
        d.base = emu_parse_new_slots(P, d.count < 0 ? 1 : d.count);
        if (d.base < 0)
            return -1;
        if (GROW(P, P->regs, P->nregs, P->cap_regs))
            return -1;
        P->regs[P->nregs++] = d;
        if (!is_punct(P, ','))
            break;
        next(P);
    }
    return emu_parse_expect(P, ';');
}

/* A .shared/.local/.param declaration inside a function. */
int emu_decl_local(struct parser *P, int space)
{
    struct vardecl d;
    if (parse_var(P, space, &d))
        return -1;
    free(d.init);
    if (d.init)
        return emu_parse_unsupported(P, "an initialised local variable", 29);
    if (d.elems < 0)
        return emu_parse_fail(P, "a local array of unknown size");
    uint64_t bytes = (uint64_t)d.elems * emu_type_size[d.type];
    uint32_t a = (uint32_t)d.align;
    struct emu_func *f = P->fn;
    uint64_t addr;
    if (space == SP_SHARED) {
        if (!f->is_entry)
            return emu_parse_unsupported(P, ".shared declared in a .func", 27);
        if (P->func_dyn_used)
            return emu_parse_unsupported(P, ".shared declared after the dynamic array's first use", 50);
        uint32_t off = (P->m->module_smem + f->static_smem + a - 1) & ~(a - 1);
        addr = off;
        if ((uint64_t)off + bytes > 0x40000000u)
            return emu_parse_fail(P, "shared declaration too large");
        f->static_smem = (uint32_t)(off + bytes) - P->m->module_smem;
        if (shared_var(P, P->fn_index, d.name, d.len, off, bytes))
            return -1;
    } else if (space == SP_LOCAL) {
        /* every function's locals at their own offsets, so a callee's never
         * overlap its caller's; a kernel's whole is checked once the calls
         * are known (link_locals) */
        uint32_t off = (f->local_bytes + a - 1) & ~(a - 1);
        if ((uint64_t)off + bytes > MAX_LOCAL)
            return emu_parse_fail(P, "more local memory a thread than the GPU allows (512 KiB)");
        if ((uint64_t)f->local_base + off + bytes > MODULE_LOCAL)
            return emu_parse_unsupported(P, "more than 15 MiB of .local declarations in one module", 54);
        addr = f->local_base + off;
        f->local_bytes = (uint32_t)(off + bytes);
    } else {
        uint32_t off = (P->scratch + a - 1) & ~(a - 1);
        if ((uint64_t)off + bytes > 4096)
            return emu_parse_unsupported(P, "call parameters past 4 KiB", 26);
        addr = PARAM_SCRATCH + off;
        P->scratch = (uint32_t)(off + bytes);
    }
    if (add_sym(P, d.name, d.len, space, addr, (size_t)bytes, 0))
        return -1;
    return emu_parse_expect(P, ';');
}

/* .loc FILE LINE COL [, function_name L, inlined_at F L C] */

/* A module-scope variable after its linkage words (IS_EXTERN) and its
 * space word (SPACE, the current token): parsed, allocated, mapped. */
int emu_decl_module_var(struct parser *P, int space, int is_extern)
{
    struct vardecl d;
    int rc = parse_var(P, space, &d);
    d.is_extern = is_extern;
    if (!rc)
        rc = module_var(P, &d);
    if (!rc)
        rc = emu_parse_expect(P, ';');
    free(d.init);
    return rc;
}
