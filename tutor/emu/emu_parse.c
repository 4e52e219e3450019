/* emu_parse.c — PTX text to the decoded module (emu_int.h): directives,
 * declarations and the functions' bodies, parsed once.  Registers become
 * slots, immediates and special registers constant slots, symbols their
 * addresses, labels instruction indices.  A form this parser does not know
 * is EMU_UNSUPPORTED naming it; text that is not PTX is EMU_PARSE with its
 * line. */
#include "emu/emu_int.h"
#include "emu/emu_lex.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const uint8_t emu_type_size[T_COUNT] = {
#define X(n, sz, k) sz,
    EMU_TYPES(X)
#undef X
};
const char emu_type_kind[T_COUNT] = {
#define X(n, sz, k) k,
    EMU_TYPES(X)
#undef X
};
const char *const emu_type_name[T_COUNT] = {
#define X(n, sz, k) #n,
    EMU_TYPES(X)
#undef X
};
const char *const emu_op_name[OP_COUNT] = {
#define X(n, s) s,
    EMU_OPS(X)
#undef X
};

/* The address callseq-local .param declarations get: above every kernel
 * parameter, so the interpreter tells a call's scratch from the kernel's
 * parameters by the address alone. */
#define PARAM_SCRATCH 0x40000000u

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

struct fixup {
    int insn;
    const char *name;
    int len;
    int line;
};

struct parser {
    struct emu_lex lx;
    struct emu_module *m;
    struct emu_error *err;
    enum emu_status st;
    int cap_insn, cap_funcs, cap_vars, cap_files;
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
    int depth;
    int cap_consts, cap_sregs;
    int sreg_slot[SR_COUNT];
    uint32_t scratch;           /* callseq .param bytes */
    uint32_t cur_line;
    int cur_file;
    int func_dyn_used;
};

/* Records the first error of a load or a launch in ERR. */
void emu_error_set(struct emu_error *err, enum emu_status st, const char *what, int line,
                   const char *file, const char *fmt, ...)
{
    if (!err || err->status != EMU_OK)
        return;
    err->status = st;
    snprintf(err->what, sizeof err->what, "%s", what ? what : "");
    err->line = line;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

/* ---- helpers ------------------------------------------------------------ */

static int grow(void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 0;
    int n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return -1;
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(n - *cap) * elem);
    *p = q;
    *cap = n;
    return 0;
}

#define GROW(P, arr, cnt, capf)                                                                    \
    (grow((void **)&(arr), &(capf), (cnt) + 1, sizeof *(arr)) ? nomem(P) : 0)

static int nomem(struct parser *P)
{
    if (P->st == EMU_OK) {
        P->st = EMU_NOMEM;
        emu_error_set(P->err, EMU_NOMEM, NULL, P->lx.tok.line, NULL, "out of memory parsing PTX");
    }
    return -1;
}

static int fail(struct parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *P, const char *fmt, ...)
{
    if (P->st != EMU_OK)
        return -1;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    P->st = EMU_PARSE;
    emu_error_set(P->err, EMU_PARSE, NULL, P->lx.tok.line, NULL, "PTX line %d: %s", P->lx.tok.line,
                  msg);
    return -1;
}

static int unsupported(struct parser *P, const char *what, int len)
{
    if (P->st != EMU_OK)
        return -1;
    char w[64];
    snprintf(w, sizeof w, "%.*s", len, what);
    P->st = EMU_UNSUPPORTED;
    emu_error_set(P->err, EMU_UNSUPPORTED, w, P->lx.tok.line, NULL,
                  "needs a GPU: %s (PTX line %d) is not emulated", w, P->lx.tok.line);
    return -1;
}

static struct emu_tok *tok(struct parser *P)
{
    return &P->lx.tok;
}

static void next(struct parser *P)
{
    emu_lex_next(&P->lx);
}

static int is_punct(struct parser *P, char c)
{
    return tok(P)->kind == TK_PUNCT && tok(P)->c == c;
}

static int is_word(struct parser *P, const char *w)
{
    size_t n = strlen(w);
    return tok(P)->kind == TK_ID && (size_t)tok(P)->len == n && !memcmp(tok(P)->s, w, n);
}

static int expect(struct parser *P, char c)
{
    if (!is_punct(P, c))
        return fail(P, "expected '%c' before '%.*s'", c, tok(P)->len ? tok(P)->len : 3,
                    tok(P)->len ? tok(P)->s : "end");
    next(P);
    return 0;
}

static int tok_eq(const struct emu_tok *t, const char *s, int len)
{
    return t->len == len && !memcmp(t->s, s, (size_t)len);
}

/* Parses an integer literal (decimal, 0x hex, 0 octal, optional U). */
static int parse_int(const char *s, int len, int64_t *out)
{
    char buf[64];
    if (len <= 0 || len >= (int)sizeof buf)
        return -1;
    memcpy(buf, s, (size_t)len);
    buf[len] = 0;
    if (buf[len - 1] == 'U' || buf[len - 1] == 'u')
        buf[len - 1] = 0;
    char *end;
    unsigned long long v = strtoull(buf, &end, 0);
    if (*end)
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* A number literal: an integer (*is_float 0) or a float's bits at the
 * width the operand wants (FBITS 32 or 64; 0 for an integer operand). */
static int parse_number(const char *s, int len, int negative, int fbits, uint64_t *bits)
{
    if (len > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
        char buf[24];
        if (len - 2 > 16)
            return -1;
        memcpy(buf, s + 2, (size_t)(len - 2));
        buf[len - 2] = 0;
        char *end;
        unsigned long long v = strtoull(buf, &end, 16);
        if (*end)
            return -1;
        int is32 = s[1] == 'f' || s[1] == 'F';
        if (fbits == 64 && is32) {
            float f;
            uint32_t u = (uint32_t)v;
            memcpy(&f, &u, 4);
            double d = negative ? -(double)f : (double)f;
            memcpy(bits, &d, 8);
        } else if (fbits == 32 && !is32) {
            double d;
            memcpy(&d, &v, 8);
            float f = (float)(negative ? -d : d);
            uint32_t u;
            memcpy(&u, &f, 4);
            *bits = u;
        } else {
            *bits = v;
            if (negative)
                *bits ^= is32 ? 0x80000000ull : 0x8000000000000000ull;
        }
        return 0;
    }
    int isf = 0;
    for (int i = 0; i < len; i++)
        if (s[i] == '.' || ((s[i] == 'e' || s[i] == 'E') && !(len > 1 && (s[1] == 'x' || s[1] == 'X'))))
            isf = 1;
    if (isf) {
        char buf[64];
        if (len >= (int)sizeof buf)
            return -1;
        memcpy(buf, s, (size_t)len);
        buf[len] = 0;
        char *end;
        double d = strtod(buf, &end);
        if (*end)
            return -1;
        if (negative)
            d = -d;
        if (fbits == 32) {
            float f = (float)d;
            uint32_t u;
            memcpy(&u, &f, 4);
            *bits = u;
        } else {
            memcpy(bits, &d, 8);
        }
        return 0;
    }
    int64_t v;
    if (parse_int(s, len, &v))
        return -1;
    if (negative)
        v = -v;
    if (fbits == 32) {
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        *bits = u;
    } else if (fbits == 64) {
        double d = (double)v;
        memcpy(bits, &d, 8);
    } else {
        *bits = (uint64_t)v;
    }
    return 0;
}

/* ---- slots ---------------------------------------------------------------- */

static int new_slots(struct parser *P, int n)
{
    int s = P->fn->nslots;
    P->fn->nslots += n;
    return s;
}

static int const_slot(struct parser *P, uint64_t bits)
{
    struct emu_func *f = P->fn;
    for (int i = 0; i < f->nconsts; i++)
        if (f->consts[i].bits == bits)
            return f->consts[i].slot;
    if (GROW(P, f->consts, f->nconsts, P->cap_consts))
        return -1;
    int s = new_slots(P, 1);
    f->consts[f->nconsts].slot = s;
    f->consts[f->nconsts].bits = bits;
    f->nconsts++;
    return s;
}

static const struct {
    const char *name;
    int id;
} sregs[] = {
    {"%tid.x", SR_TID_X}, {"%tid.y", SR_TID_Y}, {"%tid.z", SR_TID_Z}, {"%ntid.x", SR_NTID_X},
    {"%ntid.y", SR_NTID_Y}, {"%ntid.z", SR_NTID_Z}, {"%ctaid.x", SR_CTAID_X},
    {"%ctaid.y", SR_CTAID_Y}, {"%ctaid.z", SR_CTAID_Z}, {"%nctaid.x", SR_NCTAID_X},
    {"%nctaid.y", SR_NCTAID_Y}, {"%nctaid.z", SR_NCTAID_Z}, {"%laneid", SR_LANEID},
    {"%warpid", SR_WARPID}, {"%nwarpid", SR_NWARPID}, {"%smid", SR_SMID}, {"%nsmid", SR_NSMID},
    {"%lanemask_eq", SR_LANEMASK_EQ}, {"%lanemask_lt", SR_LANEMASK_LT},
    {"%lanemask_le", SR_LANEMASK_LE}, {"%lanemask_gt", SR_LANEMASK_GT},
    {"%lanemask_ge", SR_LANEMASK_GE}, {"%dynamic_smem_size", SR_DYN_SMEM},
    {"%total_smem_size", SR_TOTAL_SMEM}, {"%gridid", SR_GRIDID},
    /* %tid etc. without a component are v4 registers: not emulated */
};

static const struct {
    const char *name;
    int id;
} clocks[] = {{"%clock", CLK_CLOCK}, {"%clock64", CLK_CLOCK64}, {"%globaltimer", CLK_GLOBALTIMER}};

static int sreg_slot(struct parser *P, int id)
{
    if (P->sreg_slot[id] >= 0)
        return P->sreg_slot[id];
    struct emu_func *f = P->fn;
    if (GROW(P, f->sregs, f->nsregs, P->cap_sregs))
        return -1;
    int s = new_slots(P, 1);
    f->sregs[f->nsregs].slot = s;
    f->sregs[f->nsregs].sreg = id;
    f->nsregs++;
    P->sreg_slot[id] = s;
    if (id == SR_DYN_SMEM)
        f->uses_dyn_smem = 1;
    return s;
}

/* A register by name: its slot, or -1. */
static int find_reg(struct parser *P, const char *s, int len, int *type)
{
    for (int i = P->nregs - 1; i >= 0; i--) {
        const struct regdecl *r = &P->regs[i];
        if (r->count < 0) {
            if (r->len == len && !memcmp(r->name, s, (size_t)len)) {
                *type = r->type;
                return r->base;
            }
        } else if (len > r->len && !memcmp(r->name, s, (size_t)r->len)) {
            int idx = 0, j = r->len;
            if (j >= len)
                continue;
            for (; j < len; j++) {
                if (s[j] < '0' || s[j] > '9' || idx > 1000000)
                    break;
                idx = idx * 10 + (s[j] - '0');
            }
            if (j == len && idx < r->count && !(s[r->len] == '0' && len > r->len + 1)) {
                *type = r->type;
                return r->base + idx;
            }
        }
    }
    return -1;
}

static const struct symdecl *find_sym(struct parser *P, const char *s, int len)
{
    for (int i = P->nsyms - 1; i >= 0; i--)
        if (P->syms[i].len == len && !memcmp(P->syms[i].name, s, (size_t)len))
            return &P->syms[i];
    return NULL;
}

static int find_func(const struct emu_module *m, const char *s, int len)
{
    for (int i = 0; i < m->nfuncs; i++)
        if ((int)strlen(m->funcs[i].name) == len && !memcmp(m->funcs[i].name, s, (size_t)len))
            return i;
    return -1;
}

static uint64_t sym_addr(struct parser *P, const struct symdecl *s)
{
    if (s->dyn) {
        P->func_dyn_used = 1;
        if (P->fn) {
            P->fn->uses_dyn_smem = 1;
            return ((uint64_t)P->m->module_smem + P->fn->static_smem + 15) & ~15ull;
        }
    }
    return s->addr;
}

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

static int space_of(const struct emu_tok *t)
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

/* Reads an initialiser's values into BUF (ELEM bytes each) up to CAP bytes. */
static int parse_init(struct parser *P, int type, unsigned char *buf, size_t cap, size_t *used)
{
    int esz = emu_type_size[type];
    int fbits = emu_type_kind[type] == 'f' ? esz * 8 : 0;
    if (is_punct(P, '{')) {
        next(P);
        while (!is_punct(P, '}')) {
            if (parse_init(P, type, buf, cap, used))
                return -1;
            if (is_punct(P, ','))
                next(P);
            else if (!is_punct(P, '}'))
                return fail(P, "expected ',' or '}' in an initialiser");
        }
        next(P);
        return 0;
    }
    int neg = 0;
    if (is_punct(P, '-')) {
        neg = 1;
        next(P);
    }
    if (tok(P)->kind != TK_NUM) {
        if (tok(P)->kind == TK_ID)
            return unsupported(P, "an initialiser holding an address", 34);
        return fail(P, "expected a number in an initialiser");
    }
    uint64_t bits;
    if (parse_number(tok(P)->s, tok(P)->len, neg, fbits, &bits))
        return fail(P, "bad number '%.*s'", tok(P)->len, tok(P)->s);
    if (*used + (size_t)esz > cap)
        return fail(P, "initialiser longer than its array");
    memcpy(buf + *used, &bits, (size_t)esz);    /* little-endian host */
    *used += (size_t)esz;
    next(P);
    return 0;
}

/* Parses ".space [.align N] [.ptr ...] .type name[N][= init]" after the
 * space word (already read into D->space); stops before ';' or ','. */
static int parse_var(struct parser *P, struct vardecl *d)
{
    d->align = 0;
    d->type = 0;
    for (;;) {
        const struct emu_tok *t = tok(P);
        if (t->kind != TK_ID || t->s[0] != '.')
            break;
        if (tok_eq(t, ".align", 6)) {
            next(P);
            int64_t a;
            if (tok(P)->kind != TK_NUM || parse_int(tok(P)->s, tok(P)->len, &a) || a <= 0 ||
                a > 4096 || (a & (a - 1)))
                return fail(P, "bad .align");
            d->align = (int)a;
            next(P);
            continue;
        }
        if (tok_eq(t, ".ptr", 4) || space_of(t) >= 0) {
            next(P);    /* a parameter's pointee attributes: .ptr .global .align N */
            continue;
        }
        int ty = parse_type_word(t);
        if (!ty || ty == T_F16)
            return unsupported(P, t->s, t->len);
        d->type = ty;
        next(P);
    }
    if (!d->type)
        return fail(P, "expected a type in a declaration");
    if (tok(P)->kind != TK_ID)
        return fail(P, "expected a name in a declaration");
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
        if (tok(P)->kind != TK_NUM || parse_int(tok(P)->s, tok(P)->len, &n) || n < 0 ||
            n > (1ll << 32))
            return fail(P, "bad array size");
        next(P);
        if (expect(P, ']'))
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
            return fail(P, "an initialiser for an array of unknown size");
        size_t cap = (size_t)d->elems * emu_type_size[d->type];
        d->init = calloc(1, cap ? cap : 1);
        if (!d->init)
            return nomem(P);
        if (parse_init(P, d->type, d->init, cap, &d->init_bytes)) {
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

/* A module-scope .global/.const/.shared variable: allocated and mapped
 * (global, const) or given its shared offset. */
static int module_var(struct parser *P, struct vardecl *d)
{
    struct emu_module *m = P->m;
    size_t bytes = d->elems < 0 ? 0 : (size_t)d->elems * emu_type_size[d->type];
    if (d->space == SP_SHARED) {
        if (d->elems < 0 || d->is_extern)
            return add_sym(P, d->name, d->len, SP_SHARED, 0, 0, 1);
        uint32_t off = (m->module_smem + (uint32_t)d->align - 1) & ~((uint32_t)d->align - 1);
        m->module_smem = off + (uint32_t)bytes;
        return add_sym(P, d->name, d->len, SP_SHARED, off, bytes, 0);
    }
    if (d->space != SP_GLOBAL && d->space != SP_CONST)
        return unsupported(P, "a module-scope variable of this space", 40);
    if (d->is_extern)
        return unsupported(P, ".extern variable", 16);
    if (GROW(P, m->vars, m->nvars, P->cap_vars))
        return -1;
    size_t alloc = bytes ? bytes : 1;
    void *mem = NULL;
    if (posix_memalign(&mem, d->align < 16 ? 16 : (size_t)d->align, (alloc + 15) & ~(size_t)15))
        return nomem(P);
    memset(mem, 0, (alloc + 15) & ~(size_t)15);
    if (d->init)
        memcpy(mem, d->init, d->init_bytes);
    struct emu_var *v = &m->vars[m->nvars];
    v->name = strndup(d->name, (size_t)d->len);
    if (!v->name) {
        free(mem);
        return nomem(P);
    }
    v->space = d->space;
    v->addr = (uint64_t)(uintptr_t)mem;
    v->bytes = bytes;
    m->nvars++;
    if (emu_mem_map(m->e, mem, alloc, v->name))
        return fail(P, "cannot map variable %s", v->name);
    return add_sym(P, d->name, d->len, d->space, v->addr, bytes, 0);
}

/* ---- instructions --------------------------------------------------------- */

struct suffix {
    const char *w;
    int cls;
    int val;
};
enum { S_TYPE, S_SPACE, S_CMP, S_RND, S_FLAG, S_SUB, S_VEC, S_IGNORE, S_PRMT, S_TESTP };

static const struct suffix suffixes[] = {
    {"eq", S_CMP, CMP_EQ}, {"ne", S_CMP, CMP_NE}, {"lt", S_CMP, CMP_LT}, {"le", S_CMP, CMP_LE},
    {"gt", S_CMP, CMP_GT}, {"ge", S_CMP, CMP_GE}, {"lo", S_CMP, CMP_LO}, {"ls", S_CMP, CMP_LS},
    {"hi", S_CMP, CMP_HI}, {"hs", S_CMP, CMP_HS}, {"equ", S_CMP, CMP_EQU}, {"neu", S_CMP, CMP_NEU},
    {"ltu", S_CMP, CMP_LTU}, {"leu", S_CMP, CMP_LEU}, {"gtu", S_CMP, CMP_GTU},
    {"geu", S_CMP, CMP_GEU}, {"num", S_CMP, CMP_NUM}, {"nan", S_CMP, CMP_NAN},
    {"rn", S_RND, RND_RN}, {"rz", S_RND, RND_RZ}, {"rm", S_RND, RND_RM}, {"rp", S_RND, RND_RP},
    {"rna", S_RND, RND_RNA}, {"rni", S_RND, RND_RNI}, {"rzi", S_RND, RND_RZI},
    {"rmi", S_RND, RND_RMI}, {"rpi", S_RND, RND_RPI},
    {"global", S_SPACE, SP_GLOBAL}, {"shared", S_SPACE, SP_SHARED},
    {"shared::cta", S_SPACE, SP_SHARED}, {"local", S_SPACE, SP_LOCAL},
    {"param", S_SPACE, SP_PARAM}, {"const", S_SPACE, SP_CONST},
    {"ftz", S_FLAG, F_FTZ}, {"sat", S_FLAG, F_SAT}, {"approx", S_FLAG, F_APPROX},
    {"full", S_FLAG, F_FULL}, {"lo", S_FLAG, F_LO}, {"hi", S_FLAG, F_HI}, {"wide", S_FLAG, F_WIDE}, {"cc", S_FLAG, F_CC},
    {"volatile", S_FLAG, F_VOLATILE}, {"uni", S_FLAG, F_UNI}, {"shiftamt", S_FLAG, F_SHIFTAMT},
    {"clamp", S_FLAG, F_CLAMP}, {"wrap", S_FLAG, F_WRAP}, {"l", S_FLAG, F_LEFT},
    {"r", S_FLAG, F_RIGHT}, {"to", S_FLAG, F_TO}, {"nc", S_FLAG, F_NC},
    {"aligned", S_FLAG, F_ALIGNED}, {"sync", S_FLAG, F_SYNC}, {"arrive", S_FLAG, F_ARRIVE},
    {"red", S_FLAG, F_RED}, {"warp", S_FLAG, F_WARP}, {"L2::cache_hint", S_FLAG, F_HINT},
    {"add", S_SUB, SUB_ADD}, {"min", S_SUB, SUB_MIN}, {"max", S_SUB, SUB_MAX},
    {"inc", S_SUB, SUB_INC}, {"dec", S_SUB, SUB_DEC}, {"cas", S_SUB, SUB_CAS},
    {"exch", S_SUB, SUB_EXCH}, {"and", S_SUB, SUB_AND}, {"or", S_SUB, SUB_OR},
    {"xor", S_SUB, SUB_XOR}, {"popc", S_SUB, SUB_POPC}, {"all", S_SUB, SUB_ALL},
    {"any", S_SUB, SUB_ANY}, {"ballot", S_SUB, SUB_BALLOT}, {"up", S_SUB, SUB_UP},
    {"down", S_SUB, SUB_DOWN}, {"bfly", S_SUB, SUB_BFLY}, {"idx", S_SUB, SUB_IDX},
    {"v2", S_VEC, 2}, {"v4", S_VEC, 4},
    {"f4e", S_PRMT, 1}, {"b4e", S_PRMT, 2}, {"rc8", S_PRMT, 3}, {"ecl", S_PRMT, 4},
    {"ecr", S_PRMT, 5}, {"rc16", S_PRMT, 6},
    {"relaxed", S_IGNORE, 0}, {"acquire", S_IGNORE, 0}, {"release", S_IGNORE, 0},
    {"acq_rel", S_IGNORE, 0}, {"sc", S_IGNORE, 0}, {"weak", S_IGNORE, 0}, {"cta", S_IGNORE, 0},
    {"gpu", S_IGNORE, 0}, {"sys", S_IGNORE, 0}, {"gl", S_IGNORE, 0}, {"ca", S_IGNORE, 0},
    {"cg", S_IGNORE, 0}, {"cs", S_IGNORE, 0}, {"lu", S_IGNORE, 0}, {"cv", S_IGNORE, 0},
    {"wb", S_IGNORE, 0}, {"wt", S_IGNORE, 0}, {"L1::no_allocate", S_IGNORE, 0},
    {"L1::evict_last", S_IGNORE, 0}, {"L1::evict_first", S_IGNORE, 0},
    {"L1::evict_normal", S_IGNORE, 0}, {"L1::evict_unchanged", S_IGNORE, 0},
    {"L2::evict_first", S_IGNORE, 0}, {"L2::evict_last", S_IGNORE, 0},
    {"L2::evict_normal", S_IGNORE, 0}, {"L2::64B", S_IGNORE, 0}, {"L2::128B", S_IGNORE, 0},
    {"L2::256B", S_IGNORE, 0}, {"fractional", S_IGNORE, 0}, {"noftz", S_IGNORE, 0},
    {"finite", S_TESTP, 1}, {"infinite", S_TESTP, 2}, {"notanumber", S_TESTP, 3},
    {"normal", S_TESTP, 4}, {"subnormal", S_TESTP, 5}, {"number", S_TESTP, 6},
};

/* Splits a mnemonic into the instruction's fields; 0, or -1 (reported). */
static int decode_mnemonic(struct parser *P, const char *s, int len, struct emu_insn *in)
{
    const char *dot = memchr(s, '.', (size_t)len);
    int blen = dot ? (int)(dot - s) : len;
    int op = -1;
    for (int i = 0; i < OP_COUNT; i++)
        if (emu_op_name[i][0] && (int)strlen(emu_op_name[i]) == blen &&
            !memcmp(emu_op_name[i], s, (size_t)blen))
            op = i;
    if (op < 0)
        return unsupported(P, s, len);
    in->op = (uint16_t)op;
    in->vec = 1;
    int ntypes = 0;
    const char *p = dot;
    while (p && p < s + len) {
        const char *w = p + 1;
        const char *q = w;
        while (q < s + len && *q != '.')
            q++;
        int wl = (int)(q - w);
        p = q < s + len ? q : NULL;
        /* the type words */
        int ty = 0;
        for (int i = 1; i < T_COUNT; i++) {
            const char *n = emu_type_name[i];
            if ((int)strlen(n) == wl) {
                int ok = 1;
                for (int j = 0; j < wl; j++)
                    if ((w[j] | 0x20) != (n[j] | 0x20))
                        ok = 0;
                if (ok)
                    ty = i;
            }
        }
        if (ty) {
            if (ty == T_F16 || ntypes >= 2)
                return unsupported(P, s, len);
            if (ntypes++ == 0)
                in->type = (uint8_t)ty;
            else
                in->type2 = (uint8_t)ty;
            continue;
        }
        const struct suffix *sf = NULL;
        for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
            if ((int)strlen(suffixes[i].w) == wl && !memcmp(suffixes[i].w, w, (size_t)wl)) {
                sf = &suffixes[i];
                /* "lo" and "hi" are mul's halves and setp's unsigned comparisons */
                if (sf->cls == S_CMP && (sf->val == CMP_LO || sf->val == CMP_HI) &&
                    op != OP_SETP && op != OP_SET && op != OP_SLCT)
                    continue;
                break;
            }
        if (!sf)
            return unsupported(P, s, len);
        switch (sf->cls) {
        case S_CMP: in->cmp = (uint8_t)sf->val; break;
        case S_RND: in->rnd = (uint8_t)sf->val; break;
        case S_SPACE: in->space = (uint8_t)sf->val; break;
        case S_FLAG:
            in->flags |= (uint32_t)sf->val;
            if (sf->val == F_UNI && op == OP_VOTE)
                in->sub = SUB_UNI;
            break;
        case S_SUB:
            if (op == OP_SETP || op == OP_SET)
                in->cmp2 = (uint8_t)sf->val;
            else
                in->sub = (uint8_t)sf->val;
            break;
        case S_VEC: in->vec = (uint8_t)sf->val; break;
        case S_TESTP: in->sub = (uint8_t)sf->val; break;
        case S_PRMT:
            in->flags |= F_PRMT_MODE;
            in->aux = sf->val;
            break;
        default: break;
        }
    }
    /* bar and barrier split by their second word */
    if (op == OP_BAR || op == OP_BARRIER) {
        if (in->flags & F_WARP)
            in->op = OP_WARPSYNC;
        else if (in->flags & F_RED)
            in->op = OP_BAR_RED;
        else if (in->flags & F_ARRIVE)
            in->op = OP_BAR_ARRIVE;
        else if ((in->flags & F_SYNC) || op == OP_BARRIER)
            in->op = OP_BAR_SYNC;
        else
            in->op = OP_BAR_SYNC;   /* "bar 0" is bar.sync */
    }
    if (in->op == OP_MEMBAR || in->op == OP_FENCE || in->op == OP_PREFETCH ||
        in->op == OP_NANOSLEEP || in->op == OP_PMEVENT)
        in->op = OP_NOP;
    return 0;
}

/* One operand as written, before its slot is known. */
enum { RK_ID, RK_NUM, RK_ADDR, RK_VEC, RK_SINK, RK_LIST };
struct raw {
    int kind;
    int neg;            /* '!' */
    int minus;          /* '-' before a number */
    const char *s;
    int len;
    int pipe;           /* '|' follows: the next operand pairs with this one */
    /* RK_ADDR: base name (or NULL) and offset */
    int64_t off;
    /* RK_VEC / RK_LIST: the elements */
    int n;
    const char *es[8];
    int elen[8];
    int eminus[8];
    int ekind[8];
};

static int parse_raw(struct parser *P, struct raw *r)
{
    memset(r, 0, sizeof *r);
    if (is_punct(P, '!')) {
        r->neg = 1;
        next(P);
    }
    if (is_punct(P, '-')) {
        r->minus = 1;
        next(P);
    }
    if (is_punct(P, '[')) {
        next(P);
        r->kind = RK_ADDR;
        if (tok(P)->kind == TK_ID) {
            r->s = tok(P)->s;
            r->len = tok(P)->len;
            next(P);
        } else if (tok(P)->kind == TK_NUM) {
            int64_t v;
            if (parse_int(tok(P)->s, tok(P)->len, &v))
                return fail(P, "bad address");
            r->off = v;
            next(P);
        } else {
            return fail(P, "expected an address");
        }
        while (is_punct(P, '+') || is_punct(P, '-')) {
            int sign = is_punct(P, '-') ? -1 : 1;
            next(P);
            if (is_punct(P, '-')) {
                sign = -sign;
                next(P);
            }
            int64_t v;
            if (tok(P)->kind != TK_NUM || parse_int(tok(P)->s, tok(P)->len, &v))
                return fail(P, "expected an offset in an address");
            r->off += sign * v;
            next(P);
        }
        return expect(P, ']');
    }
    if (is_punct(P, '{') || is_punct(P, '(')) {
        char close = is_punct(P, '{') ? '}' : ')';
        r->kind = close == '}' ? RK_VEC : RK_LIST;
        next(P);
        while (!is_punct(P, close)) {
            if (r->n >= 8)
                return fail(P, "too many elements");
            if (is_punct(P, '-')) {
                r->eminus[r->n] = 1;
                next(P);
            }
            if (tok(P)->kind != TK_ID && tok(P)->kind != TK_NUM)
                return fail(P, "expected a register in a vector");
            r->es[r->n] = tok(P)->s;
            r->elen[r->n] = tok(P)->len;
            r->ekind[r->n] = tok(P)->kind;
            r->n++;
            next(P);
            if (is_punct(P, ','))
                next(P);
            else if (!is_punct(P, close))
                return fail(P, "expected ',' or '%c'", close);
        }
        next(P);
        return 0;
    }
    if (tok(P)->kind == TK_NUM) {
        r->kind = RK_NUM;
    } else if (tok(P)->kind == TK_ID) {
        r->kind = (tok(P)->len == 1 && tok(P)->s[0] == '_') ? RK_SINK : RK_ID;
    } else {
        return fail(P, "expected an operand before '%.*s'", tok(P)->len ? tok(P)->len : 3,
                    tok(P)->len ? tok(P)->s : "end");
    }
    r->s = tok(P)->s;
    r->len = tok(P)->len;
    next(P);
    if (r->kind == RK_ID && is_punct(P, '+')) {     /* sym+4 as a value */
        next(P);
        int64_t v;
        if (tok(P)->kind != TK_NUM || parse_int(tok(P)->s, tok(P)->len, &v))
            return fail(P, "expected an offset");
        r->off = v;
        next(P);
    }
    return 0;
}

/* An identifier or number operand to a slot: a register, an immediate, a
 * special register or a symbol's address.  FBITS: 32/64 when the operand is
 * a float of that width. */
static int value_slot(struct parser *P, const char *s, int len, int minus, int64_t off, int fbits,
                      int *slot, int *clock)
{
    if (len == 1 && s[0] == '_') {
        *slot = 0;
        return 0;
    }
    if (s[0] >= '0' && s[0] <= '9') {
        uint64_t bits;
        if (parse_number(s, len, minus, fbits, &bits))
            return fail(P, "bad number '%.*s'", len, s);
        *slot = const_slot(P, bits);
        return *slot < 0 ? -1 : 0;
    }
    int ty;
    int r = find_reg(P, s, len, &ty);
    if (r >= 0) {
        *slot = r;
        return 0;
    }
    if (s[0] == '%') {
        for (size_t i = 0; i < sizeof sregs / sizeof *sregs; i++)
            if ((int)strlen(sregs[i].name) == len && !memcmp(sregs[i].name, s, (size_t)len)) {
                *slot = sreg_slot(P, sregs[i].id);
                return *slot < 0 ? -1 : 0;
            }
        for (size_t i = 0; i < sizeof clocks / sizeof *clocks; i++)
            if ((int)strlen(clocks[i].name) == len && !memcmp(clocks[i].name, s, (size_t)len)) {
                if (!clock)
                    return unsupported(P, s, len);
                *clock = (int)clocks[i].id;
                *slot = 0;
                return 0;
            }
        if (len > 1)
            return unsupported(P, s, len);
    }
    const struct symdecl *sd = find_sym(P, s, len);
    if (sd) {
        *slot = const_slot(P, sym_addr(P, sd) + (uint64_t)off);
        return *slot < 0 ? -1 : 0;
    }
    return fail(P, "unknown name '%.*s'", len, s);
}

static int dest_slot(struct parser *P, const struct raw *r, int *slot)
{
    if (r->kind == RK_SINK) {
        *slot = 0;
        return 0;
    }
    int ty;
    if (r->kind != RK_ID || (*slot = find_reg(P, r->s, r->len, &ty)) < 0)
        return fail(P, "expected a register as destination, not '%.*s'", r->len ? r->len : 1,
                    r->s ? r->s : "?");
    return 0;
}

static int fbits_of(int type)
{
    return emu_type_kind[type] == 'f' ? emu_type_size[type] * 8 : 0;
}

/* The width an operand's float literal is read at: 0 for integers. */
static int src_fbits(const struct emu_insn *in, int pos)
{
    switch (in->op) {
    case OP_CVT: return fbits_of(in->type2);
    case OP_SET: return fbits_of(in->type2);
    case OP_SLCT: return pos == 3 ? fbits_of(in->type2) : fbits_of(in->type);
    case OP_SELP: return pos == 3 ? 0 : fbits_of(in->type);
    case OP_SHFL: case OP_BFE: case OP_BFI: case OP_SHL: case OP_SHR: case OP_SHF: return 0;
    case OP_TESTP: return fbits_of(in->type);
    default: return fbits_of(in->type);
    }
}

static int decode_opnd(struct parser *P, struct emu_insn *in, const struct raw *r, int pos,
                       int is_dest)
{
    struct emu_opnd *o = &in->o[pos];
    o->neg = (uint8_t)r->neg;
    switch (r->kind) {
    case RK_SINK:
        o->kind = OK_SINK;
        o->reg = 0;
        return 0;
    case RK_ADDR: {
        o->kind = OK_ADDR;
        o->reg = -1;
        o->off = r->off;
        if (!r->s)
            return 0;
        int ty;
        int reg = find_reg(P, r->s, r->len, &ty);
        if (reg >= 0) {
            o->reg = reg;
            return 0;
        }
        const struct symdecl *sd = find_sym(P, r->s, r->len);
        if (!sd)
            return fail(P, "unknown name '%.*s' in an address", r->len, r->s);
        o->off += (int64_t)sym_addr(P, sd);
        /* a parameter's space is known from its declaration */
        if (in->space == SP_GENERIC && sd->space != SP_GLOBAL && sd->space != SP_CONST)
            return unsupported(P, "a generic access to a named variable", 37);
        return 0;
    }
    case RK_VEC:
        o->kind = OK_VEC;
        o->n = (uint8_t)r->n;
        for (int i = 0; i < r->n; i++) {
            int s;
            if (is_dest) {
                struct raw e = {.kind = (r->elen[i] == 1 && r->es[i][0] == '_') ? RK_SINK : RK_ID,
                                .s = r->es[i], .len = r->elen[i]};
                if (dest_slot(P, &e, &s))
                    return -1;
            } else if (value_slot(P, r->es[i], r->elen[i], r->eminus[i], 0, src_fbits(in, pos), &s,
                                  NULL)) {
                return -1;
            }
            o->vec[i] = s;
        }
        return 0;
    case RK_LIST:
        return fail(P, "unexpected '('");
    default:
        break;
    }
    o->kind = OK_REG;
    if (is_dest) {
        int s;
        if (dest_slot(P, r, &s))
            return -1;
        o->reg = s;
        return 0;
    }
    int clock = -1, s;
    if (value_slot(P, r->s, r->len, r->minus, r->off, src_fbits(in, pos), &s,
                   in->op == OP_MOV ? &clock : NULL))
        return -1;
    if (clock >= 0) {
        in->op = OP_MOVCLK;
        in->sub = (uint8_t)clock;
    }
    o->reg = s;
    return 0;
}

static int add_insn(struct parser *P, struct emu_insn **out)
{
    struct emu_module *m = P->m;
    if (GROW(P, m->insn, m->ninsn, P->cap_insn))
        return -1;
    *out = &m->insn[m->ninsn++];
    memset(*out, 0, sizeof **out);
    (*out)->guard = -1;
    (*out)->target = -1;
    (*out)->line = P->cur_line;
    (*out)->file = (uint16_t)P->cur_file;
    return 0;
}

/* call (ret), func, (args); — vprintf only; other calls need the callee's
 * frames, which the interpreter does not keep. */
static int parse_call(struct parser *P, struct emu_insn *in, const char *mn, int mlen)
{
    struct raw r[3];
    int n = 0;
    while (!is_punct(P, ';')) {
        if (n >= 3)
            return fail(P, "too many operands to call");
        if (parse_raw(P, &r[n]))
            return -1;
        n++;
        if (is_punct(P, ','))
            next(P);
    }
    int fi = -1;
    const struct raw *ret = NULL, *args = NULL;
    for (int i = 0; i < n; i++) {
        if (r[i].kind == RK_ID)
            fi = find_func(P->m, r[i].s, r[i].len);
        else if (r[i].kind == RK_LIST && fi < 0)
            ret = &r[i];
        else if (r[i].kind == RK_LIST)
            args = &r[i];
        if (r[i].kind == RK_ID && fi < 0)
            return fail(P, "call to an unknown function '%.*s'", r[i].len, r[i].s);
    }
    if (fi < 0)
        return fail(P, "call without a function");
    if (strcmp(P->m->funcs[fi].name, "vprintf") || !P->m->funcs[fi].is_extern)
        return unsupported(P, mn, mlen);
    in->op = OP_VPRINTF;
    if (!args || args->n != 2)
        return fail(P, "vprintf takes two arguments");
    for (int i = 0; i < 2; i++) {
        const struct symdecl *sd = find_sym(P, args->es[i], args->elen[i]);
        if (!sd || sd->space != SP_PARAM)
            return fail(P, "a call's argument must be a .param");
        in->o[i].kind = OK_ADDR;
        in->o[i].reg = -1;
        in->o[i].off = (int64_t)sd->addr;
    }
    in->o[2].kind = OK_NONE;
    if (ret && ret->n == 1) {
        const struct symdecl *sd = find_sym(P, ret->es[0], ret->elen[0]);
        if (!sd || sd->space != SP_PARAM)
            return fail(P, "a call's result must be a .param");
        in->o[2].kind = OK_ADDR;
        in->o[2].reg = -1;
        in->o[2].off = (int64_t)sd->addr;
    }
    in->nops = 3;
    return expect(P, ';');
}

/* One instruction, after its guard. */
static int parse_insn(struct parser *P, int guard, int guard_neg)
{
    const char *mn = tok(P)->s;
    int mlen = tok(P)->len;
    next(P);
    struct emu_insn tmp;
    memset(&tmp, 0, sizeof tmp);
    if (decode_mnemonic(P, mn, mlen, &tmp))
        return -1;
    struct emu_insn *in;
    if (add_insn(P, &in))
        return -1;
    int line = in->line, file = in->file;
    *in = tmp;
    in->line = (uint32_t)line;
    in->file = (uint16_t)file;
    in->guard = guard;
    in->guard_neg = (uint8_t)guard_neg;
    in->target = -1;
    if (in->op == OP_CALL)
        return parse_call(P, in, mn, mlen);
    switch (in->op) {
    case OP_BRX: case OP_LDU: case OP_MATCH: case OP_ISSPACEP: case OP_SAD: case OP_PMEVENT:
        return unsupported(P, mn, mlen);
    default: break;
    }
    struct raw r[EMU_MAX_OPNDS + 1];
    int n = 0;
    while (!is_punct(P, ';')) {
        if (n > EMU_MAX_OPNDS)
            return fail(P, "too many operands");
        if (parse_raw(P, &r[n]))
            return -1;
        if (is_punct(P, '|')) {
            r[n].pipe = 1;
            next(P);
        } else if (is_punct(P, ',')) {
            next(P);
        } else if (!is_punct(P, ';')) {
            return fail(P, "expected ',' or ';' after an operand");
        }
        n++;
    }
    next(P);
    if (in->flags & F_HINT)
        n--;    /* the cache policy operand */
    if (in->op == OP_BRA) {
        if (n != 1 || r[0].kind != RK_ID)
            return fail(P, "bra takes a label");
        if (GROW(P, P->fixups, P->nfixups, P->cap_fixups))
            return -1;
        struct fixup *fx = &P->fixups[P->nfixups++];
        fx->insn = P->m->ninsn - 1;
        fx->name = r[0].s;
        fx->len = r[0].len;
        fx->line = P->lx.tok.line;
        return 0;
    }
    /* which operands are written */
    int ndest = 1;
    switch (in->op) {
    case OP_ST: case OP_RED: case OP_BAR_SYNC: case OP_BAR_ARRIVE: case OP_WARPSYNC: case OP_RET:
    case OP_EXIT: case OP_TRAP: case OP_NOP: case OP_BRA:
        ndest = 0;
        break;
    case OP_MOV:
        ndest = 1;
        break;
    default:
        break;
    }
    if (n > 0 && r[0].pipe)
        ndest = 2;
    if (in->op == OP_CREATEPOLICY) {
        in->op = OP_NOP;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int is_dest = i < ndest;
        if (decode_opnd(P, in, &r[i], i, is_dest))
            return -1;
    }
    in->nops = (uint8_t)n;
    if (ndest == 2)
        in->flags |= F_NEGPRED & 0;     /* the pair is read from o[0], o[1] */
    in->aux = in->flags & F_PRMT_MODE ? in->aux : (ndest == 2 ? 2 : in->aux);
    return 0;
}

/* ---- functions -------------------------------------------------------------- */

static int parse_params(struct parser *P, struct emu_func *f, int is_ret)
{
    if (expect(P, '('))
        return -1;
    uint32_t off = 0;
    while (!is_punct(P, ')')) {
        if (!is_word(P, ".param") && !is_word(P, ".reg"))
            return fail(P, "expected .param");
        if (is_word(P, ".reg"))
            return unsupported(P, ".reg parameter", 14);
        next(P);
        struct vardecl d;
        memset(&d, 0, sizeof d);
        d.space = SP_PARAM;
        if (parse_var(P, &d))
            return -1;
        if (d.elems < 0)
            return fail(P, "a parameter of unknown size");
        uint32_t bytes = (uint32_t)d.elems * emu_type_size[d.type];
        uint32_t a = (uint32_t)d.align;
        off = (off + a - 1) & ~(a - 1);
        if (is_ret) {
            if (f->nret >= 4)
                return unsupported(P, "more than 4 return values", 25);
            f->ret_offset[f->nret] = off;
            f->ret_size[f->nret] = bytes;
            f->nret++;
        } else {
            if (f->nparams >= EMU_MAX_PARAMS)
                return unsupported(P, "more than 64 parameters", 23);
            f->param_offset[f->nparams] = off;
            f->param_size[f->nparams] = bytes;
            f->nparams++;
            if (add_sym(P, d.name, d.len, SP_PARAM, off, bytes, 0))
                return -1;
        }
        off += bytes;
        if (is_punct(P, ','))
            next(P);
    }
    next(P);
    if (!is_ret)
        f->param_bytes = off;
    return 0;
}

static int parse_reg_decl(struct parser *P)
{
    next(P);
    int type = 0;
    int vec = 1;
    while (tok(P)->kind == TK_ID && tok(P)->s[0] == '.') {
        if (tok_eq(tok(P), ".v2", 3))
            vec = 2;
        else if (tok_eq(tok(P), ".v4", 3))
            vec = 4;
        else if (!(type = parse_type_word(tok(P))) || type == T_F16)
            return unsupported(P, tok(P)->s, tok(P)->len);
        next(P);
    }
    if (!type || vec != 1)
        return vec != 1 ? unsupported(P, ".reg .v2/.v4", 12) : fail(P, "expected a type in .reg");
    for (;;) {
        if (tok(P)->kind != TK_ID)
            return fail(P, "expected a register name");
        struct regdecl d = {.name = tok(P)->s, .len = tok(P)->len, .count = -1, .type = type,
                            .depth = P->depth};
        next(P);
        if (is_punct(P, '<')) {
            next(P);
            int64_t nreg;
            if (tok(P)->kind != TK_NUM || parse_int(tok(P)->s, tok(P)->len, &nreg) || nreg < 0 ||
                nreg > 100000)
                return fail(P, "bad register count");
            next(P);
            if (expect(P, '>'))
                return -1;
            d.count = (int)nreg;
        }
        d.base = new_slots(P, d.count < 0 ? 1 : d.count);
        if (GROW(P, P->regs, P->nregs, P->cap_regs))
            return -1;
        P->regs[P->nregs++] = d;
        if (!is_punct(P, ','))
            break;
        next(P);
    }
    return expect(P, ';');
}

/* A .shared/.local/.param declaration inside a function. */
static int parse_local_var(struct parser *P, int space)
{
    next(P);
    struct vardecl d;
    memset(&d, 0, sizeof d);
    d.space = space;
    if (parse_var(P, &d))
        return -1;
    free(d.init);
    if (d.init)
        return unsupported(P, "an initialised local variable", 29);
    if (d.elems < 0)
        return fail(P, "a local array of unknown size");
    uint64_t bytes = (uint64_t)d.elems * emu_type_size[d.type];
    uint32_t a = (uint32_t)d.align;
    struct emu_func *f = P->fn;
    uint64_t addr;
    if (space == SP_SHARED) {
        if (P->func_dyn_used)
            return unsupported(P, ".shared declared after the dynamic array's first use", 50);
        uint32_t off = (P->m->module_smem + f->static_smem + a - 1) & ~(a - 1);
        addr = off;
        if ((uint64_t)off + bytes > 0x40000000u)
            return fail(P, "shared declaration too large");
        f->static_smem = (uint32_t)(off + bytes) - P->m->module_smem;
    } else if (space == SP_LOCAL) {
        uint32_t off = (f->local_bytes + a - 1) & ~(a - 1);
        if ((uint64_t)off + bytes > 0x10000000u)
            return fail(P, "local declaration too large");
        addr = off;
        f->local_bytes = (uint32_t)(off + bytes);
    } else {
        uint32_t off = (P->scratch + a - 1) & ~(a - 1);
        if ((uint64_t)off + bytes > 4096)
            return unsupported(P, "call parameters past 4 KiB", 26);
        addr = PARAM_SCRATCH + off;
        P->scratch = (uint32_t)(off + bytes);
    }
    if (add_sym(P, d.name, d.len, space, addr, (size_t)bytes, 0))
        return -1;
    return expect(P, ';');
}

/* .loc FILE LINE COL [, function_name L, inlined_at F L C] */
static int parse_loc(struct parser *P)
{
    next(P);
    int64_t f, l;
    if (tok(P)->kind != TK_NUM || parse_int(tok(P)->s, tok(P)->len, &f))
        return fail(P, "bad .loc");
    next(P);
    if (tok(P)->kind != TK_NUM || parse_int(tok(P)->s, tok(P)->len, &l))
        return fail(P, "bad .loc");
    int line = tok(P)->line;
    next(P);
    if (tok(P)->kind == TK_NUM && tok(P)->line == line)
        next(P);
    while (is_punct(P, ',') && tok(P)->line == line) {
        next(P);
        while ((tok(P)->kind == TK_ID || tok(P)->kind == TK_NUM) && tok(P)->line == line)
            next(P);
    }
    P->cur_file = (int)f;
    P->cur_line = (uint32_t)l;
    return 0;
}

static int skip_to_semicolon(struct parser *P)
{
    while (tok(P)->kind != TK_EOF && !is_punct(P, ';'))
        next(P);
    return expect(P, ';');
}

static int parse_body(struct parser *P)
{
    if (expect(P, '{'))
        return -1;
    P->depth = 1;
    while (P->depth > 0) {
        struct emu_tok *t = tok(P);
        if (t->kind == TK_EOF)
            return fail(P, "function body not closed");
        if (is_punct(P, '{')) {
            P->depth++;
            next(P);
            continue;
        }
        if (is_punct(P, '}')) {
            /* a scope's registers and names end with it */
            while (P->nregs > 0 && P->regs[P->nregs - 1].depth >= P->depth)
                P->nregs--;
            while (P->nsyms > 0 && P->syms[P->nsyms - 1].depth >= P->depth)
                P->nsyms--;
            P->depth--;
            next(P);
            continue;
        }
        if (is_punct(P, '@')) {
            next(P);
            int neg = 0;
            if (is_punct(P, '!')) {
                neg = 1;
                next(P);
            }
            int ty;
            int g = tok(P)->kind == TK_ID ? find_reg(P, tok(P)->s, tok(P)->len, &ty) : -1;
            if (g < 0)
                return fail(P, "expected a predicate after '@'");
            next(P);
            if (tok(P)->kind != TK_ID)
                return fail(P, "expected an instruction");
            if (parse_insn(P, g, neg))
                return -1;
            continue;
        }
        if (t->kind != TK_ID)
            return fail(P, "expected an instruction or a directive, not '%.*s'", t->len ? t->len : 1,
                        t->s);
        if (t->s[0] == '.') {
            if (tok_eq(t, ".reg", 4)) {
                if (parse_reg_decl(P))
                    return -1;
            } else if (tok_eq(t, ".shared", 7) || tok_eq(t, ".local", 6) ||
                       tok_eq(t, ".param", 6)) {
                if (parse_local_var(P, space_of(t)))
                    return -1;
            } else if (tok_eq(t, ".loc", 4)) {
                if (parse_loc(P))
                    return -1;
            } else if (tok_eq(t, ".pragma", 7)) {
                if (skip_to_semicolon(P))
                    return -1;
            } else {
                return unsupported(P, t->s, t->len);
            }
            continue;
        }
        /* a label? */
        struct emu_lex save = P->lx;
        next(P);
        if (is_punct(P, ':')) {
            if (GROW(P, P->labels, P->nlabels, P->cap_labels))
                return -1;
            P->labels[P->nlabels].name = save.tok.s;
            P->labels[P->nlabels].len = save.tok.len;
            P->labels[P->nlabels].index = P->m->ninsn;
            P->nlabels++;
            next(P);
            continue;
        }
        P->lx = save;
        if (parse_insn(P, -1, 0))
            return -1;
    }
    return 0;
}

static int finish_function(struct parser *P)
{
    struct emu_module *m = P->m;
    for (int i = 0; i < P->nfixups; i++) {
        struct fixup *fx = &P->fixups[i];
        int idx = -1;
        for (int j = 0; j < P->nlabels; j++)
            if (P->labels[j].len == fx->len && !memcmp(P->labels[j].name, fx->name, (size_t)fx->len))
                idx = P->labels[j].index;
        if (idx < 0) {
            P->lx.tok.line = fx->line;
            return fail(P, "unknown label '%.*s'", fx->len, fx->name);
        }
        m->insn[fx->insn].target = idx;
    }
    struct emu_func *f = &m->funcs[P->fn_index];
    f->count = m->ninsn - f->first;
    /* falling off the end is a return */
    struct emu_insn *in;
    if (add_insn(P, &in))
        return -1;
    in->op = OP_RET;
    f = &m->funcs[P->fn_index];
    f->count++;
    return 0;
}

/* .entry / .func, after the linkage words. */
static int parse_function(struct parser *P, int is_entry, int is_extern)
{
    struct emu_module *m = P->m;
    next(P);
    if (GROW(P, m->funcs, m->nfuncs, P->cap_funcs))
        return -1;
    int fi = m->nfuncs++;
    struct emu_func *f = &m->funcs[fi];
    memset(f, 0, sizeof *f);
    f->is_entry = is_entry;
    f->is_extern = is_extern;
    f->max_threads = 1024;
    P->fn = f;
    P->fn_index = fi;
    P->nregs = 0;
    P->nlabels = 0;
    P->nfixups = 0;
    P->cap_consts = 0;
    P->cap_sregs = 0;
    P->scratch = 0;
    P->func_dyn_used = 0;
    P->cur_line = 0;
    P->cur_file = 0;
    for (int i = 0; i < SR_COUNT; i++)
        P->sreg_slot[i] = -1;
    int module_syms = P->nsyms;
    P->depth = 1;     /* parameters are the function's names */
    if (!is_entry && is_punct(P, '(')) {
        if (parse_params(P, f, 1))
            return -1;
    }
    if (tok(P)->kind != TK_ID)
        return fail(P, "expected a function name");
    f->name = strndup(tok(P)->s, (size_t)tok(P)->len);
    if (!f->name)
        return nomem(P);
    next(P);
    f->nslots = 1;    /* slot 0: the sink '_' */
    if (is_punct(P, '(') && parse_params(P, f, 0))
        return -1;
    for (;;) {
        struct emu_tok *t = tok(P);
        if (tok_eq(t, ".maxntid", 8) || tok_eq(t, ".reqntid", 8)) {
            next(P);
            uint64_t prod = 1;
            for (int i = 0; i < 3; i++) {
                int64_t v;
                if (tok(P)->kind != TK_NUM || parse_int(tok(P)->s, tok(P)->len, &v) || v <= 0)
                    return fail(P, "bad %.*s", t->len, t->s);
                prod *= (uint64_t)v;
                next(P);
                if (!is_punct(P, ','))
                    break;
                next(P);
            }
            f->max_threads = prod > 1024 ? 1024 : (uint32_t)prod;
        } else if (tok_eq(t, ".minnctapersm", 13) || tok_eq(t, ".maxnreg", 8) ||
                   tok_eq(t, ".maxnctapersm", 13)) {
            next(P);
            if (tok(P)->kind != TK_NUM)
                return fail(P, "expected a number");
            next(P);
        } else if (tok_eq(t, ".noreturn", 9)) {
            next(P);
        } else if (tok_eq(t, ".pragma", 7)) {
            if (skip_to_semicolon(P))
                return -1;
        } else {
            break;
        }
    }
    int rc = 0;
    if (is_punct(P, ';')) {
        next(P);
        if (!is_extern)
            f->is_extern = 1;   /* a prototype */
        f->first = m->ninsn;
    } else {
        if (is_extern)
            return fail(P, "an .extern function with a body");
        f->first = m->ninsn;
        rc = parse_body(P) || finish_function(P);
        if (!rc && !is_entry)
            rc = unsupported(P, ".func with a body (calls are not emulated)", 42);
    }
    P->nsyms = module_syms;
    P->fn = NULL;
    P->depth = 0;
    return rc ? -1 : 0;
}

static int parse_file(struct parser *P)
{
    next(P);
    int64_t id;
    if (tok(P)->kind != TK_NUM || parse_int(tok(P)->s, tok(P)->len, &id))
        return fail(P, "bad .file");
    next(P);
    if (tok(P)->kind != TK_STR)
        return fail(P, "expected a file name");
    const char *s = tok(P)->s;
    int len = tok(P)->len;
    const char *slash = s;
    for (int i = 0; i < len; i++)
        if (s[i] == '/')
            slash = s + i + 1;
    struct emu_module *m = P->m;
    if (GROW(P, m->files, m->nfiles, P->cap_files))
        return -1;
    m->files[m->nfiles].id = (int)id;
    m->files[m->nfiles].name = strndup(slash, (size_t)(len - (slash - s)));
    if (!m->files[m->nfiles].name)
        return nomem(P);
    m->nfiles++;
    int line = tok(P)->line;
    next(P);
    while (is_punct(P, ',') && tok(P)->line == line) {
        next(P);
        if (tok(P)->kind == TK_NUM)
            next(P);
    }
    return 0;
}

/* The name .file gave file ID, "" when none. */
const char *emu_file_name(const struct emu_module *m, int id)
{
    for (int i = 0; i < m->nfiles; i++)
        if (m->files[i].id == id)
            return m->files[i].name;
    return "";
}

/* Parses PTX text into M (whose e is set); EMU_OK or the error in ERR. */
enum emu_status emu_parse(struct emu_module *m, const char *ptx, size_t len, struct emu_error *err)
{
    struct parser P;
    memset(&P, 0, sizeof P);
    P.m = m;
    P.err = err;
    emu_lex_init(&P.lx, ptx, len);
    while (P.st == EMU_OK) {
        struct emu_tok *t = tok(&P);
        if (t->kind == TK_EOF) {
            if (P.lx.bad)
                fail(&P, "unterminated comment or string, or a byte PTX has no use for");
            break;
        }
        if (t->kind != TK_ID || t->s[0] != '.') {
            fail(&P, "expected a directive, not '%.*s'", t->len ? t->len : 1, t->s);
            break;
        }
        if (tok_eq(t, ".version", 8) || tok_eq(t, ".target", 7) || tok_eq(t, ".address_size", 13)) {
            int line = t->line;
            next(&P);
            while ((tok(&P)->kind == TK_NUM || tok(&P)->kind == TK_ID ||
                    is_punct(&P, ',')) && tok(&P)->line == line && tok(&P)->s[0] != '.')
                next(&P);
            continue;
        }
        if (tok_eq(t, ".file", 5)) {
            parse_file(&P);
            continue;
        }
        if (tok_eq(t, ".pragma", 7)) {
            skip_to_semicolon(&P);
            continue;
        }
        if (tok_eq(t, ".section", 8)) {
            next(&P);
            if (tok(&P)->kind == TK_ID)
                next(&P);
            if (expect(&P, '{'))
                break;
            int d = 1;
            while (d > 0 && tok(&P)->kind != TK_EOF) {
                if (is_punct(&P, '{'))
                    d++;
                else if (is_punct(&P, '}'))
                    d--;
                next(&P);
            }
            if (d > 0)
                fail(&P, "section not closed");
            continue;
        }
        int is_extern = 0;
        while (tok_eq(tok(&P), ".visible", 8) || tok_eq(tok(&P), ".extern", 7) ||
               tok_eq(tok(&P), ".weak", 5) || tok_eq(tok(&P), ".common", 7)) {
            if (tok_eq(tok(&P), ".extern", 7))
                is_extern = 1;
            next(&P);
        }
        t = tok(&P);
        if (tok_eq(t, ".entry", 6) || tok_eq(t, ".func", 5)) {
            parse_function(&P, tok_eq(t, ".entry", 6), is_extern);
            continue;
        }
        int sp = space_of(t);
        if (sp == SP_GLOBAL || sp == SP_CONST || sp == SP_SHARED) {
            next(&P);
            struct vardecl d;
            memset(&d, 0, sizeof d);
            d.space = sp;
            d.is_extern = is_extern;
            if (parse_var(&P, &d) == 0) {
                if (module_var(&P, &d) == 0)
                    expect(&P, ';');
            }
            free(d.init);
            continue;
        }
        unsupported(&P, t->s, t->len);
    }
    free(P.regs);
    free(P.syms);
    free(P.labels);
    free(P.fixups);
    if (P.st == EMU_OK) {
        /* every module-scope name the body used is resolved; the array's
         * size is final */
        return EMU_OK;
    }
    return P.st;
}
