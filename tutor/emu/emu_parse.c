/* emu_parse.c — PTX text to the decoded module (emu_int.h): directives,
 * declarations and the functions' bodies, parsed once.  Registers become
 * slots, immediates and special registers constant slots, symbols their
 * addresses, labels instruction indices.  A form this parser does not know
 * is EMU_UNSUPPORTED naming it; text that is not PTX is EMU_PARSE with its
 * line. */
#include "emu/emu_decl.h"
#include "emu/emu_decode.h"
#include "emu/emu_pstate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the .file numbered ID is one of CUDA's or the system's headers. */
static int file_is_system(const struct emu_module *m, int id)
{
    for (int i = 0; i < m->nfiles; i++)
        if (m->files[i].id == id)
            return m->files[i].is_system;
    return 0;
}

static int parse_loc(struct parser *P)
{
    next(P);
    int64_t f, l;
    if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &f))
        return emu_parse_fail(P, "bad .loc");
    next(P);
    if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &l))
        return emu_parse_fail(P, "bad .loc");
    int line = tok(P)->line;
    next(P);
    if (tok(P)->kind == TK_NUM && tok(P)->line == line)
        next(P);
    int64_t cf = 0, cl = 0;
    while (is_punct(P, ',') && tok(P)->line == line) {
        next(P);
        int inlined = is_word(P, "inlined_at");
        int k = 0;
        while ((tok(P)->kind == TK_ID || tok(P)->kind == TK_NUM) && tok(P)->line == line) {
            if (inlined && k == 1)
                emu_lex_int(tok(P)->s, tok(P)->len, &cf);
            if (inlined && k == 2)
                emu_lex_int(tok(P)->s, tok(P)->len, &cl);
            k++;
            next(P);
        }
    }
    if (cl) {
        if (GROW(P, P->locs, P->nlocs, P->cap_locs))
            return -1;
        P->locs[P->nlocs++] = (struct locrec){P->fn_index, (int)f, (int)cf, (uint32_t)l,
                                              (uint32_t)cl};
    }
    P->cur_file = (int)f;
    P->cur_line = (uint32_t)l;
    P->cur_cfile = (int)cf;
    P->cur_cline = (uint32_t)cl;
    return 0;
}

static int skip_to_semicolon(struct parser *P)
{
    while (tok(P)->kind != TK_EOF && !is_punct(P, ';'))
        next(P);
    return emu_parse_expect(P, ';');
}

/* NAME: .branchtargets L1, L2, ...; a jump table for brx.idx, its labels
 * resolved with the function's branches. */
static int parse_branchtargets(struct parser *P, const char *name, int len)
{
    struct emu_module *m = P->m;
    next(P);
    if (GROW(P, P->btabs, P->nbtabs, P->cap_btabs))
        return -1;
    struct btab *t = &P->btabs[P->nbtabs++];
    *t = (struct btab){name, len, m->nbrxt, 0};
    while (tok(P)->kind == TK_ID) {
        if (GROW(P, m->brxt, m->nbrxt, P->cap_brxt) || GROW(P, P->fixups, P->nfixups, P->cap_fixups))
            return -1;
        m->brxt[m->nbrxt] = -1;
        P->fixups[P->nfixups++] = (struct fixup){-1, m->nbrxt, tok(P)->s, tok(P)->len, tok(P)->line};
        m->nbrxt++;
        t->count++;
        next(P);
        if (is_punct(P, ','))
            next(P);
    }
    if (!t->count)
        return emu_parse_fail(P, ".branchtargets without a label");
    return emu_parse_expect(P, ';');
}

static int parse_body(struct parser *P)
{
    if (emu_parse_expect(P, '{'))
        return -1;
    P->depth = 1;
    while (P->depth > 0) {
        struct emu_tok *t = tok(P);
        if (t->kind == TK_EOF)
            return emu_parse_fail(P, "function body not closed");
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
            int g = tok(P)->kind == TK_ID ? emu_parse_find_reg(P, tok(P)->s, tok(P)->len, &ty) : -1;
            if (g < 0)
                return emu_parse_fail(P, "expected a predicate after '@'");
            next(P);
            if (tok(P)->kind != TK_ID)
                return emu_parse_fail(P, "expected an instruction");
            if (emu_decode_insn(P, g, neg))
                return -1;
            continue;
        }
        if (t->kind != TK_ID)
            return emu_parse_fail(P, "expected an instruction or a directive, not '%.*s'", t->len ? t->len : 1,
                        t->s);
        if (t->s[0] == '.') {
            if (tok_eq(t, ".reg", 4)) {
                if (emu_decl_reg(P))
                    return -1;
            } else if (tok_eq(t, ".shared", 7) || tok_eq(t, ".local", 6) ||
                       tok_eq(t, ".param", 6)) {
                if (emu_decl_local(P, emu_decl_space(t)))
                    return -1;
            } else if (tok_eq(t, ".loc", 4)) {
                if (parse_loc(P))
                    return -1;
            } else if (tok_eq(t, ".pragma", 7)) {
                if (skip_to_semicolon(P))
                    return -1;
            } else {
                /* a directive of the body not emulated refuses this
                 * function's kernels, not the file */
                char what[64];
                snprintf(what, sizeof what, "%.*s", t->len, t->s);
                if (emu_decode_refuse(P, what, -1, 0))
                    return -1;
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
            /* a call's prototype or a list of its targets: the call checks
             * its callee's parameters when it runs */
            if (is_word(P, ".callprototype") || is_word(P, ".calltargets")) {
                if (skip_to_semicolon(P))
                    return -1;
            } else if (is_word(P, ".branchtargets")) {
                if (parse_branchtargets(P, save.tok.s, save.tok.len))
                    return -1;
            }
            continue;
        }
        P->lx = save;
        if (emu_decode_insn(P, -1, 0))
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
            return emu_parse_fail(P, "unknown label '%.*s'", fx->len, fx->name);
        }
        if (fx->insn >= 0)
            m->insn[fx->insn].target = idx;
        else
            m->brxt[fx->slot] = idx;
    }
    struct emu_func *f = &m->funcs[P->fn_index];
    f->count = m->ninsn - f->first;
    /* falling off the end is a return */
    struct emu_insn *in;
    if (emu_decode_add_insn(P, &in))
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
    f->local_base = (m->local_total + 15) & ~15u;
    P->fn = f;
    P->fn_index = fi;
    P->nregs = 0;
    P->nlabels = 0;
    P->nfixups = 0;
    P->cap_consts = 0;
    P->cap_sregs = 0;
    free(P->chash);
    P->chash = NULL;
    P->chash_cap = 0;
    P->scratch = 0;
    P->func_dyn_used = 0;
    P->cur_line = 0;
    P->cur_file = 0;
    P->cur_cline = 0;
    P->cur_cfile = 0;
    for (int i = 0; i < SR_COUNT; i++)
        P->sreg_slot[i] = -1;
    int module_syms = P->nsyms;
    P->depth = 1;     /* parameters are the function's names */
    if (!is_entry && is_punct(P, '(')) {
        if (emu_decl_params(P, f, 1))
            return -1;
    }
    if (tok(P)->kind != TK_ID)
        return emu_parse_fail(P, "expected a function name");
    f->name = strndup(tok(P)->s, (size_t)tok(P)->len);
    if (!f->name)
        return emu_parse_nomem(P);
    next(P);
    f->nslots = 1;    /* slot 0: the sink '_' */
    if (is_punct(P, '(') && emu_decl_params(P, f, 0))
        return -1;
    for (;;) {
        struct emu_tok *t = tok(P);
        if (tok_eq(t, ".maxntid", 8) || tok_eq(t, ".reqntid", 8)) {
            next(P);
            uint64_t prod = 1;
            for (int i = 0; i < 3; i++) {
                int64_t v;
                if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &v) || v <= 0)
                    return emu_parse_fail(P, "bad %.*s", t->len, t->s);
                prod *= (uint64_t)v;
                next(P);
                if (!is_punct(P, ','))
                    break;
                next(P);
            }
            f->max_threads = prod > 1024 ? 1024 : (uint32_t)prod;
        } else if (tok_eq(t, ".reqnctapercluster", 18)) {
            next(P);
            for (int i = 0; i < 3; i++)
                f->cluster[i] = 1;
            for (int i = 0; i < 3; i++) {
                int64_t v;
                if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &v) || v <= 0 ||
                    v > 1024)
                    return emu_parse_fail(P, "bad .reqnctapercluster");
                f->cluster[i] = (uint32_t)v;
                next(P);
                if (!is_punct(P, ','))
                    break;
                next(P);
            }
        } else if (tok_eq(t, ".explicitcluster", 16)) {
            next(P);
            f->explicit_cluster = 1;
        } else if (tok_eq(t, ".minnctapersm", 13) || tok_eq(t, ".maxnreg", 8) ||
                   tok_eq(t, ".maxnctapersm", 13) || tok_eq(t, ".maxclusterrank", 15)) {
            next(P);
            if (tok(P)->kind != TK_NUM)
                return emu_parse_fail(P, "expected a number");
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
            return emu_parse_fail(P, "an .extern function with a body");
        f->first = m->ninsn;
        rc = parse_body(P) || finish_function(P);
        f = &m->funcs[fi];
        m->local_total = f->local_base + ((f->local_bytes + 15) & ~15u);
    }
    P->nsyms = module_syms;
    P->fn = NULL;
    P->depth = 0;
    return rc ? -1 : 0;
}

/* Whether the LEN bytes at S hold W. */
static int contains(const char *s, int len, const char *w)
{
    int n = (int)strlen(w);
    for (int i = 0; i + n <= len; i++)
        if (!memcmp(s + i, w, (size_t)n))
            return 1;
    return 0;
}

static int parse_file(struct parser *P)
{
    next(P);
    int64_t id;
    if (tok(P)->kind != TK_NUM || emu_lex_int(tok(P)->s, tok(P)->len, &id))
        return emu_parse_fail(P, "bad .file");
    next(P);
    if (tok(P)->kind != TK_STR)
        return emu_parse_fail(P, "expected a file name");
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
    /* CUDA's own headers: a line there is reported at its caller's */
    m->files[m->nfiles].is_system = contains(s, len, "/include/") &&
                                    (contains(s, len, "cuda") || (len > 5 && !memcmp(s, "/usr/", 5)));
    m->files[m->nfiles].name = strndup(slash, (size_t)(len - (slash - s)));
    if (!m->files[m->nfiles].name)
        return emu_parse_nomem(P);
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

/* Points every call at its callee's body: a call parsed before the
 * function was defined named its prototype.  Recursion is refused here. */
static void link_calls(struct parser *P)
{
    struct emu_module *m = P->m;
    for (int i = 0; i < m->nfuncs; i++) {
        m->funcs[i].body = -1;
        for (int j = 0; j < m->nfuncs; j++)
            if (!m->funcs[j].is_extern && !m->funcs[j].is_entry &&
                !strcmp(m->funcs[j].name, m->funcs[i].name))
                m->funcs[i].body = j;
    }
    for (int i = 0; i < m->ninsn && P->st == EMU_OK; i++) {
        struct emu_insn *in = &m->insn[i];
        if (in->op != OP_CALL || in->target < 0)
            continue;   /* a call through a pointer finds its body when it runs */
        const struct emu_func *proto = &m->funcs[in->target];
        int body = -1;
        for (int j = 0; j < m->nfuncs; j++)
            if (!m->funcs[j].is_extern && !strcmp(m->funcs[j].name, proto->name))
                body = j;
        if (body < 0 || m->funcs[body].is_entry) {
            P->lx.tok.line = (int)in->line;
            emu_parse_unsupported(P, proto->name, (int)strlen(proto->name));
            return;
        }
        const struct emu_func *f = &m->funcs[body];
        if (in->nops - 1 != f->nparams || (in->o[0].kind == OK_ADDR) != (f->nret > 0) ||
            f->nret > 1) {
            P->lx.tok.line = (int)in->line;
            emu_parse_fail(P, "a call to %s with other parameters than it declares", f->name);
            return;
        }
        in->target = body;
    }
}

/* Each kernel's local memory: the .local places of the functions its
 * threads can run (itself, what it calls, and any .func where a call goes
 * through a pointer), packed in a thread's local memory.  A GPU gives a
 * launch the local memory of the kernel it runs, not the module's: a
 * kernel never launched, with a 508 KB array, cost every launch of its
 * neighbour 4.2 GB (tests/bank/unlaunched_local_array.cu).  The GPU's
 * bound is a kernel's, as ptxas checks it. */
static void link_locals(struct parser *P)
{
    struct emu_module *m = P->m;
    char *seen = calloc((size_t)m->nfuncs, 1);
    int *todo = malloc((size_t)m->nfuncs * sizeof *todo);
    if (!seen || !todo) {
        P->st = EMU_NOMEM;
        goto done;
    }
    for (int k = 0; k < m->nfuncs && P->st == EMU_OK; k++) {
        struct emu_func *e = &m->funcs[k];
        if (!e->is_entry || e->is_extern)
            continue;
        memset(seen, 0, (size_t)m->nfuncs);
        int n = 0, through_pointer = 0, nreg = 0;
        seen[k] = 1;
        todo[n++] = k;
        while (n > 0) {
            const struct emu_func *f = &m->funcs[todo[--n]];
            for (int32_t i = f->first; i < f->first + f->count; i++) {
                const struct emu_insn *in = &m->insn[i];
                if (in->op != OP_CALL)
                    continue;
                if (in->target < 0)
                    through_pointer = 1;
                else if (!seen[in->target])
                    seen[todo[n++] = in->target] = 1;
            }
        }
        for (int j = 0; j < m->nfuncs; j++) {
            if (through_pointer && !m->funcs[j].is_entry && !m->funcs[j].is_extern)
                seen[j] = 1;
            nreg += seen[j] && m->funcs[j].local_bytes;
        }
        if (nreg && !(e->lreg = calloc((size_t)nreg, sizeof *e->lreg))) {
            P->st = EMU_NOMEM;
            break;
        }
        uint64_t at = 0;
        for (int j = 0; j < m->nfuncs; j++) {
            const struct emu_func *f = &m->funcs[j];
            if (!seen[j] || !f->local_bytes)
                continue;
            uint32_t bytes = (f->local_bytes + 15) & ~15u;
            e->lreg[e->nlreg++] = (struct emu_lregion){f->local_base, f->local_base + bytes, (uint32_t)at};
            at += bytes;
        }
        if (at > MAX_LOCAL) {
            emu_parse_fail(P, "more local memory a thread of %s than the GPU allows (512 KiB)", e->name);
            break;
        }
        e->local_span = (uint32_t)at;
    }
done:
    free(seen);
    free(todo);
}

/* An instruction inlined from CUDA's own headers (__ldcg, __shfl_sync)
 * takes the line of the code that called it, which is the student's.
 * Where that caller is in a header too (__pipeline_wait_prior calls a
 * helper that calls another), the .loc of the caller's line says where it
 * was inlined in turn, until a line outside them (the .file lines come
 * after the functions, so this waits for the module's end). */
static void to_callers(struct emu_module *m, const struct locrec *locs, int nlocs)
{
    for (int i = 0; i < m->ninsn; i++) {
        struct emu_insn *in = &m->insn[i];
        if (!in->cline || !file_is_system(m, in->file))
            continue;
        int cf = in->cfile;
        uint32_t cl = in->cline;
        for (int depth = 0; depth < 16 && file_is_system(m, cf); depth++) {
            int k = nlocs - 1;
            while (k >= 0 && !(locs[k].fn == in->fn && locs[k].file == cf && locs[k].line == cl))
                k--;
            if (k < 0)
                break;
            cf = locs[k].cfile;
            cl = locs[k].cline;
        }
        in->file = (uint16_t)cf;
        in->line = cl;
    }
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
                emu_parse_fail(&P, "unterminated comment or string, or a byte PTX has no use for");
            break;
        }
        if (t->kind != TK_ID || t->s[0] != '.') {
            emu_parse_fail(&P, "expected a directive, not '%.*s'", t->len ? t->len : 1, t->s);
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
            if (emu_parse_expect(&P, '{'))
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
                emu_parse_fail(&P, "section not closed");
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
        int sp = emu_decl_space(t);
        if (sp == SP_GLOBAL || sp == SP_CONST || sp == SP_SHARED) {
            emu_decl_module_var(&P, sp, is_extern);
            continue;
        }
        emu_parse_unsupported(&P, t->s, t->len);
    }
    free(P.chash);
    free(P.regs);
    free(P.syms);
    free(P.labels);
    free(P.fixups);
    free(P.btabs);
    if (P.st == EMU_OK)
        link_calls(&P);
    if (P.st == EMU_OK)
        link_locals(&P);
    if (P.st == EMU_OK)
        to_callers(m, P.locs, P.nlocs);
    free(P.locs);
    return P.st;
}
