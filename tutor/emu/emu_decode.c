/* emu_decode.c — one PTX instruction to its decoded form: the mnemonic
 * read through emu_forms.c's table, each operand to a register slot
 * (immediates and special registers get constant slots), an address to its
 * base slot and constant offset, a branch to a fixup its function
 * resolves, a call to its callee or to the runtime's vprintf and
 * __assertfail, and the whole checked against the form's operand shapes. */
#include "emu/emu_decode.h"
#include "emu/emu_forms.h"
#include "emu/emu_ops.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- slots ---------------------------------------------------------------- */

/* The slot holding BITS in the function being parsed: one slot a value,
 * found again through an open-addressing table of the constants' indices. */
static int const_slot(struct parser *P, uint64_t bits)
{
    struct emu_func *f = P->fn;
    if ((size_t)(f->nconsts + 1) * 2 > P->chash_cap) {
        size_t cap = P->chash_cap ? P->chash_cap * 2 : 64;
        int *t = malloc(cap * sizeof *t);
        if (!t)
            return emu_parse_nomem(P);
        memset(t, -1, cap * sizeof *t);
        for (int i = 0; i < f->nconsts; i++) {
            size_t h = (size_t)((f->consts[i].bits * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
            while (t[h] >= 0)
                h = (h + 1) & (cap - 1);
            t[h] = i;
        }
        free(P->chash);
        P->chash = t;
        P->chash_cap = cap;
    }
    size_t h = (size_t)((bits * 0x9E3779B97F4A7C15ull) >> 32) & (P->chash_cap - 1);
    for (; P->chash[h] >= 0; h = (h + 1) & (P->chash_cap - 1))
        if (f->consts[P->chash[h]].bits == bits)
            return f->consts[P->chash[h]].slot;
    if (GROW(P, f->consts, f->nconsts, P->cap_consts))
        return -1;
    int s = emu_parse_new_slots(P, 1);
    if (s < 0)
        return -1;
    f->consts[f->nconsts].slot = s;
    f->consts[f->nconsts].bits = bits;
    P->chash[h] = f->nconsts++;
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
    {"%cluster_ctarank", SR_CL_RANK}, {"%cluster_nctarank", SR_CL_NRANK},
    {"%cluster_ctaid.x", SR_CL_CTAID_X}, {"%cluster_ctaid.y", SR_CL_CTAID_Y},
    {"%cluster_ctaid.z", SR_CL_CTAID_Z}, {"%cluster_nctaid.x", SR_CL_NCTAID_X},
    {"%cluster_nctaid.y", SR_CL_NCTAID_Y}, {"%cluster_nctaid.z", SR_CL_NCTAID_Z},
    {"%clusterid.x", SR_CLID_X}, {"%clusterid.y", SR_CLID_Y}, {"%clusterid.z", SR_CLID_Z},
    {"%nclusterid.x", SR_NCLID_X}, {"%nclusterid.y", SR_NCLID_Y}, {"%nclusterid.z", SR_NCLID_Z},
    {"%is_explicit_cluster", SR_IS_EXPLICIT_CLUSTER},
    {"%envreg1", SR_ENVREG1}, {"%envreg2", SR_ENVREG2},     /* the grid's workspace (emu_coop.c) */
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
    int s = emu_parse_new_slots(P, 1);
    f->sregs[f->nsregs].slot = s;
    f->sregs[f->nsregs].sreg = id;
    f->nsregs++;
    P->sreg_slot[id] = s;
    if (id == SR_DYN_SMEM)
        f->uses_dyn_smem = 1;
    return s;
}

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
            if (emu_lex_int(tok(P)->s, tok(P)->len, &v))
                return emu_parse_fail(P, "bad address");
            r->off = v;
            next(P);
        } else {
            return emu_parse_fail(P, "expected an address");
        }
        while (is_punct(P, '+') || is_punct(P, '-')) {
            int sign = is_punct(P, '-') ? -1 : 1;
            next(P);
            if (is_punct(P, '-')) {
                sign = -sign;
                next(P);
            }
            int64_t v;
            if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &v))
                return emu_parse_fail(P, "expected an offset in an address");
            r->off += sign * v;
            next(P);
        }
        return emu_parse_expect(P, ']');
    }
    if (is_punct(P, '{') || is_punct(P, '(')) {
        char close = is_punct(P, '{') ? '}' : ')';
        r->kind = close == '}' ? RK_VEC : RK_LIST;
        next(P);
        while (!is_punct(P, close)) {
            if (r->n >= 8)
                return emu_parse_fail(P, "too many elements");
            if (is_punct(P, '-')) {
                r->eminus[r->n] = 1;
                next(P);
            }
            if (tok(P)->kind != TK_ID && tok(P)->kind != TK_NUM)
                return emu_parse_fail(P, "expected a register in a vector");
            r->es[r->n] = tok(P)->s;
            r->elen[r->n] = tok(P)->len;
            r->ekind[r->n] = tok(P)->kind;
            r->n++;
            next(P);
            if (is_punct(P, ','))
                next(P);
            else if (!is_punct(P, close))
                return emu_parse_fail(P, "expected ',' or '%c'", close);
        }
        next(P);
        return 0;
    }
    if (tok(P)->kind == TK_NUM) {
        r->kind = RK_NUM;
    } else if (tok(P)->kind == TK_ID) {
        r->kind = (tok(P)->len == 1 && tok(P)->s[0] == '_') ? RK_SINK : RK_ID;
    } else {
        return emu_parse_fail(P, "expected an operand before '%.*s'", tok(P)->len ? tok(P)->len : 3,
                    tok(P)->len ? tok(P)->s : "end");
    }
    r->s = tok(P)->s;
    r->len = tok(P)->len;
    next(P);
    if (r->kind == RK_ID && is_punct(P, '+')) {     /* sym+4 as a value */
        next(P);
        int64_t v;
        if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &v))
            return emu_parse_fail(P, "expected an offset");
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
        if (emu_lex_number(s, len, minus, fbits, &bits))
            return emu_parse_fail(P, "bad number '%.*s'", len, s);
        *slot = const_slot(P, bits);
        return *slot < 0 ? -1 : 0;
    }
    int ty;
    int r = emu_parse_find_reg(P, s, len, &ty);
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
                    return emu_parse_unsupported(P, s, len);
                *clock = (int)clocks[i].id;
                *slot = 0;
                return 0;
            }
        if (len > 1)
            return emu_parse_unsupported(P, s, len);
    }
    const struct symdecl *sd = emu_parse_find_sym(P, s, len);
    if (sd) {
        *slot = const_slot(P, emu_parse_sym_addr(P, sd) + (uint64_t)off);
        return *slot < 0 ? -1 : 0;
    }
    int fi = emu_parse_find_func(P->m, s, len);
    if (fi >= 0) {      /* a function's address, for a call through a pointer */
        *slot = const_slot(P, FUNC_ADDR + (uint64_t)fi);
        return *slot < 0 ? -1 : 0;
    }
    /* PTX's one predefined constant: the warp's size (cuda_fp16.hpp's
     * shuffles of __half and __half2 read it) */
    if (len == 7 && !memcmp(s, "WARP_SZ", 7)) {
        *slot = const_slot(P, 32);
        return *slot < 0 ? -1 : 0;
    }
    return emu_parse_fail(P, "unknown name '%.*s'", len, s);
}

static int dest_slot(struct parser *P, const struct raw *r, int *slot)
{
    if (r->kind == RK_SINK) {
        *slot = 0;
        return 0;
    }
    int ty;
    if (r->kind != RK_ID || (*slot = emu_parse_find_reg(P, r->s, r->len, &ty)) < 0)
        return emu_parse_fail(P, "expected a register as destination, not '%.*s'", r->len ? r->len : 1,
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
        o->kind = OK_REG;     /* '_': slot 0, written and read as zero */
        o->reg = 0;
        return 0;
    case RK_ADDR: {
        o->kind = OK_ADDR;
        o->reg = -1;
        o->off = r->off;
        if (!r->s)
            return 0;
        int ty;
        int reg = emu_parse_find_reg(P, r->s, r->len, &ty);
        if (reg >= 0) {
            o->reg = reg;
            return 0;
        }
        const struct symdecl *sd = emu_parse_find_sym(P, r->s, r->len);
        if (!sd)
            return emu_parse_fail(P, "unknown name '%.*s' in an address", r->len, r->s);
        o->off += (int64_t)emu_parse_sym_addr(P, sd);
        /* a parameter's space is known from its declaration */
        if (in->space == SP_GENERIC && sd->space != SP_GLOBAL && sd->space != SP_CONST)
            return emu_parse_unsupported(P, "a generic access to a named variable", 37);
        return 0;
    }
    case RK_VEC:
        if (r->n < 1 || r->n > 4)
            return emu_parse_fail(P, "a vector of %d elements", r->n);
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
        return emu_parse_fail(P, "unexpected '('");
    default:
        break;
    }
    o->kind = OK_REG;
    if (is_dest) {
        int s = 0;
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
    /* an immediate: a handler may read its one value instead of 32 lanes */
    for (int i = 0; i < P->fn->nconsts && s > 0; i++)
        o->konst |= P->fn->consts[i].slot == s;
    return 0;
}

/* A new instruction at the end of the module, its line the current .loc. */
int emu_decode_add_insn(struct parser *P, struct emu_insn **out)
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
    (*out)->fn = (uint16_t)P->fn_index;
    (*out)->cline = P->cur_cline;
    (*out)->cfile = (uint16_t)P->cur_cfile;
    return 0;
}

/* An argument or result of a call: the caller's .param declaration, as
 * an address in the call scratch. */
static int call_param(struct parser *P, struct emu_opnd *o, const char *s, int len)
{
    const struct symdecl *sd = emu_parse_find_sym(P, s, len);
    if (!sd || sd->space != SP_PARAM || sd->addr < PARAM_SCRATCH)
        return emu_parse_fail(P, "a call's argument or result must be a .param declared in the caller");
    o->kind = OK_ADDR;
    o->reg = -1;
    o->off = (int64_t)sd->addr;
    return 0;
}

/* call[.uni] [(ret),] func[, (args)]: o[0] the result's .param (or
 * none), o[1..] the arguments'.  vprintf, __assertfail, malloc and free
 * are the runtime's, emulated here; any other callee must have a body in the
 * module (link_calls finds it). */
static int parse_call(struct parser *P, struct emu_insn *in, const char *mn, int mlen)
{
    struct raw r[4];
    int n = 0;
    while (!is_punct(P, ';')) {
        if (n >= 4)
            return emu_parse_fail(P, "too many operands to call");
        if (parse_raw(P, &r[n]))
            return -1;
        n++;
        if (is_punct(P, ','))
            next(P);
    }
    /* call [(ret),] func-or-register[, (args)][, prototype] */
    int fi = -1, ptr = -1;
    const struct raw *ret = NULL, *args = NULL;
    for (int i = 0; i < n; i++) {
        if (r[i].kind == RK_ID && fi < 0 && ptr < 0) {
            int ty;
            ptr = emu_parse_find_reg(P, r[i].s, r[i].len, &ty);
            if (ptr >= 0)
                continue;   /* through a function pointer: its prototype follows */
            fi = emu_parse_find_func(P->m, r[i].s, r[i].len);
            if (fi < 0)
                return emu_parse_fail(P, "call to an unknown function '%.*s'", r[i].len, r[i].s);
        } else if (r[i].kind == RK_LIST && fi < 0 && ptr < 0) {
            ret = &r[i];
        } else if (r[i].kind == RK_LIST) {
            args = &r[i];
        }
    }
    if (ptr < 0 && fi < 0)
        return emu_parse_fail(P, "call without a function");
    /* o[0] the result's .param (or none), o[1..] the arguments' */
    int nargs = args ? args->n : 0;
    if (nargs > EMU_MAX_OPNDS - 1 || (ret && ret->n > 1))
        return emu_parse_unsupported(P, mn, mlen);
    in->o[0].kind = OK_NONE;
    if (ret && ret->n == 1 && call_param(P, &in->o[0], ret->es[0], ret->elen[0]))
        return -1;
    for (int i = 0; i < nargs; i++)
        if (call_param(P, &in->o[1 + i], args->es[i], args->elen[i]))
            return -1;
    in->nops = (uint8_t)(1 + nargs);
    if (ptr >= 0) {
        in->target = -1;
        in->aux = ptr;      /* the register holding the callee's address */
        in->op = OP_CALL;
        return emu_parse_expect(P, ';');
    }
    const struct emu_func *f = &P->m->funcs[fi];
    in->target = fi;
    if (f->is_extern && !strcmp(f->name, "vprintf")) {
        if (nargs != 2)
            return emu_parse_fail(P, "vprintf takes two arguments");
        in->op = OP_VPRINTF;
    } else if (f->is_extern && !strcmp(f->name, "__assertfail")) {
        if (nargs != 5)
            return emu_parse_fail(P, "__assertfail takes five arguments");
        in->op = OP_ASSERT;
    } else if (f->is_extern && (!strcmp(f->name, "malloc") || !strcmp(f->name, "free"))) {
        int is_malloc = f->name[0] == 'm';
        if (nargs != 1 || (in->o[0].kind == OK_ADDR) != is_malloc)
            return emu_parse_fail(P, "%s takes one argument%s", f->name, is_malloc ? " and returns a pointer" : "");
        in->op = is_malloc ? OP_MALLOC : OP_FREE;
    } else {
        in->op = OP_CALL;
    }
    return emu_parse_expect(P, ';');
}

/* brx.idx[.uni] index, table: a jump to the table's entry INDEX; the
 * table (.branchtargets) comes before it in the function. */
static int parse_brx(struct parser *P, struct emu_insn *in, const char *mn, int mlen)
{
    if (!strstr(mn, ".idx") || mlen < 7)
        return emu_parse_unsupported(P, mn, mlen);
    struct raw idx, tbl;
    if (parse_raw(P, &idx) || emu_parse_expect(P, ',') || parse_raw(P, &tbl))
        return -1;
    if (idx.kind != RK_ID && idx.kind != RK_NUM)
        return emu_parse_fail(P, "brx.idx takes an index and a table");
    if (decode_opnd(P, in, &idx, 0, 0))
        return -1;
    for (int i = P->nbtabs - 1; i >= 0 && tbl.kind == RK_ID; i--)
        if (P->btabs[i].len == tbl.len && !memcmp(P->btabs[i].name, tbl.s, (size_t)tbl.len)) {
            in->target = P->btabs[i].first;
            in->aux = P->btabs[i].count;
            in->nops = 1;
            return emu_parse_expect(P, ';');
        }
    return emu_parse_fail(P, "brx.idx names no .branchtargets before it");
}

/* One instruction, after its guard, decoded and appended; 0 or -1
 * (reported). */
static int decode_one(struct parser *P, int guard, int guard_neg, const char *mn, int mlen)
{
    struct emu_insn tmp;
    memset(&tmp, 0, sizeof tmp);
    if (emu_forms_mnemonic(P, mn, mlen, &tmp))
        return -1;
    struct emu_insn *in;
    if (emu_decode_add_insn(P, &in))
        return -1;
    struct emu_insn place = *in;
    *in = tmp;
    in->line = place.line;
    in->file = place.file;
    in->fn = place.fn;
    in->cline = place.cline;
    in->cfile = place.cfile;
    in->guard = guard;
    in->guard_neg = (uint8_t)guard_neg;
    in->target = -1;
    if (in->op == OP_CALL)
        return parse_call(P, in, mn, mlen);
    switch (in->op) {
    case OP_BRX:
        return parse_brx(P, in, mn, mlen);
    case OP_ISSPACEP:
        if (in->space == SP_CONST || in->space == SP_PARAM || in->space == SP_GENERIC)
            return emu_parse_unsupported(P, mn, mlen);
        break;
    case OP_ATOM: case OP_RED:
        if (in->vec != 1)
            return emu_parse_unsupported(P, mn, mlen);
        break;
    case OP_CVTA:
        if (in->space == SP_PARAM)
            return emu_parse_unsupported(P, mn, mlen);
        break;
    case OP_MATCH:
        if (in->sub != SUB_ANY && in->sub != SUB_ALL)
            return emu_parse_unsupported(P, mn, mlen);
        break;
    default: break;
    }
    struct raw r[EMU_MAX_OPNDS + 1];
    int n = 0;
    while (!is_punct(P, ';')) {
        if (n > EMU_MAX_OPNDS)
            return emu_parse_fail(P, "too many operands");
        if (parse_raw(P, &r[n]))
            return -1;
        if (is_punct(P, '|')) {
            r[n].pipe = 1;
            next(P);
        } else if (is_punct(P, ',')) {
            next(P);
        } else if (!is_punct(P, ';')) {
            return emu_parse_fail(P, "expected ',' or ';' after an operand");
        }
        n++;
    }
    next(P);
    if ((in->flags & F_HINT) && n > 0)
        n--;    /* the cache policy operand */
    if (n > EMU_MAX_OPNDS)
        return emu_parse_fail(P, "too many operands");
    if (in->op == OP_BRA) {
        if (n != 1 || r[0].kind != RK_ID)
            return emu_parse_fail(P, "bra takes a label");
        if (GROW(P, P->fixups, P->nfixups, P->cap_fixups))
            return -1;
        struct fixup *fx = &P->fixups[P->nfixups++];
        fx->insn = P->m->ninsn - 1;
        fx->name = r[0].s;
        fx->len = r[0].len;
        fx->line = P->lx.tok.line;
        return 0;
    }
    if (emu_ops[in->op].cls == C_NOP) {
        in->op = OP_NOP;    /* createpolicy, prefetch, pmevent: nothing to emulate */
        return 0;
    }
    /* the written operands lead: the row's count, one more for a d|p pair */
    int ndest = emu_ops[in->op].dests;
    if (n > 0 && r[0].pipe)
        ndest = 2;
    for (int i = 0; i < n; i++) {
        int is_dest = i < ndest;
        if (decode_opnd(P, in, &r[i], i, is_dest))
            return -1;
    }
    in->nops = (uint8_t)n;
    in->ndest = (uint8_t)(ndest < n ? ndest : n);
    if (ndest == 2)
        in->aux = 2;    /* d|p: the pair is o[0], o[1] */
    if (emu_forms_check(P, in, mn, mlen))
        return -1;
    /* An approximation's bits are the GPU's own: on the H200 rcp.approx
     * differs from the correctly rounded value for 13% of inputs and
     * sqrt.approx for 17% (tests/device/approx-probe.cu).  Run with the
     * host's functions it would let one line tell the emulator from a
     * GPU, so a kernel that reaches one needs a GPU (ex2, sin and the
     * other approximation-only opcodes are C_GPU rows). */
    if (emu_ops[in->op].cls == C_ALU && (in->flags & (F_APPROX | F_FULL)))
        return emu_parse_unsupported(P, mn, mlen);
    if (emu_ops[in->op].cls == C_ALU && !(in->alu = emu_alu_select(in)))
        return emu_parse_unsupported(P, mn, mlen);
    return 0;
}

/* Steps over the rest of an instruction, its ';' included. */
static void skip_insn(struct parser *P)
{
    while (tok(P)->kind != TK_EOF && !is_punct(P, ';'))
        next(P);
    if (is_punct(P, ';'))
        next(P);
}

/* One instruction, after its guard (slot GUARD, -1 for none, negated when
 * GUARD_NEG): decoded and appended to the module; 0 or -1 (reported).  A
 * form the emulator does not run becomes an OP_REFUSED instruction naming
 * it, which refuses the launch of a kernel that reaches it (emu_exec.c)
 * and nothing else: one such kernel in a file leaves the others judged. */
int emu_decode_insn(struct parser *P, int guard, int guard_neg)
{
    const char *mn = tok(P)->s;
    int mlen = tok(P)->len;
    struct emu_lex start = P->lx;
    int before = P->m->ninsn, nfixups = P->nfixups;
    next(P);
    if (!decode_one(P, guard, guard_neg, mn, mlen))
        return 0;
    if (P->st != EMU_UNSUPPORTED)
        return -1;
    char what[sizeof P->err->what];
    memcpy(what, P->err->what, sizeof what);
    memset(P->err, 0, sizeof *P->err);
    P->st = EMU_OK;
    P->lx = start;
    P->m->ninsn = before;
    P->nfixups = nfixups;
    return emu_decode_refuse(P, what, guard, guard_neg);
}

/* Steps over the statement at the parser (an instruction or a directive
 * of a function's body) and appends an OP_REFUSED instruction naming it
 * WHAT in its place; 0 or -1 (out of memory). */
int emu_decode_refuse(struct parser *P, const char *what, int guard, int guard_neg)
{
    struct emu_module *m = P->m;
    skip_insn(P);
    if (GROW(P, m->refused, m->nrefused, P->cap_refused))
        return -1;
    snprintf(m->refused[m->nrefused], sizeof m->refused[0], "%s", what);
    struct emu_insn *in;
    if (emu_decode_add_insn(P, &in))
        return -1;
    in->op = OP_REFUSED;
    in->guard = guard;
    in->guard_neg = (uint8_t)guard_neg;
    in->aux = m->nrefused++;
    return 0;
}
