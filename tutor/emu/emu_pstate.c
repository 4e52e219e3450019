/* emu_pstate.c — the PTX parser's helpers: growing its arrays, reporting
 * its first error (a parse error, a form that needs a GPU, no memory), and
 * finding a register, a symbol or a function by name. */
#include "emu/emu_pstate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grows the array *p of *cap elements of ELEM bytes to hold NEED, the new
 * ones zeroed; 0, or -1 when the host has no memory (nothing changed). */
int emu_parse_grow(void **p, int *cap, int need, size_t elem)
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

/* Reports that the host ran out of memory; -1. */
int emu_parse_nomem(struct parser *P)
{
    if (P->st == EMU_OK) {
        P->st = EMU_NOMEM;
        emu_error_set(P->err, EMU_NOMEM, NULL, P->lx.tok.line, NULL, "out of memory parsing PTX");
    }
    return -1;
}

int emu_parse_fail(struct parser *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int emu_parse_fail(struct parser *P, const char *fmt, ...)
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

/* Reports the form WHAT (LEN bytes) as needing a GPU; -1. */
int emu_parse_unsupported(struct parser *P, const char *what, int len)
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

/* Steps over the punctuation C, or reports what stood there instead; 0 or -1. */
int emu_parse_expect(struct parser *P, char c)
{
    if (!is_punct(P, c))
        return emu_parse_fail(P, "expected '%c' before '%.*s'", c, tok(P)->len ? tok(P)->len : 3,
                    tok(P)->len ? tok(P)->s : "end");
    next(P);
    return 0;
}

/* N fresh register slots of the function being parsed; the first one's,
 * or -1 past MAX_SLOTS: a function that holds more needs a GPU (ptxas
 * gives a thread at most 255 registers and spills the rest; the emulator
 * keeps every slot for every thread). */
int emu_parse_new_slots(struct parser *P, int n)
{
    int s = P->fn->nslots;
    if (n > MAX_SLOTS - s) {
        char what[64];
        int len = snprintf(what, sizeof what, "more than %d registers a thread", MAX_SLOTS);
        return emu_parse_unsupported(P, what, len);
    }
    P->fn->nslots += n;
    return s;
}

/* A register by name: its slot, or -1. */
int emu_parse_find_reg(struct parser *P, const char *s, int len, int *type)
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

/* The innermost variable or parameter named S (LEN bytes), or NULL. */
const struct symdecl *emu_parse_find_sym(struct parser *P, const char *s, int len)
{
    for (int i = P->nsyms - 1; i >= 0; i--)
        if (P->syms[i].len == len && !memcmp(P->syms[i].name, s, (size_t)len))
            return &P->syms[i];
    return NULL;
}

/* The first function of M named S (LEN bytes), or -1. */
int emu_parse_find_func(const struct emu_module *m, const char *s, int len)
{
    for (int i = 0; i < m->nfuncs; i++)
        if ((int)strlen(m->funcs[i].name) == len && !memcmp(m->funcs[i].name, s, (size_t)len))
            return i;
    return -1;
}

/* S's address in its state space; the dynamic shared array's is the end
 * of the function's static shared memory, aligned to 16. */
uint64_t emu_parse_sym_addr(struct parser *P, const struct symdecl *s)
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
