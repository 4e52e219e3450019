/* emu_ptxscan.c — see emu_ptxscan.h.  Statements are read as the parser
 * reads them: an instruction or a declaration ends at ';', a block opens
 * and closes at braces, and the directives that stand on a line of their
 * own (.version, .target, .address_size, .file, .loc) end with it. */
#include "emu/emu_ptxscan.h"

#include <stdlib.h>
#include <string.h>

#include "emu/emu_lex.h"

static int tok_is(const struct emu_tok *t, const char *word)
{
    size_t n = strlen(word);
    return t->kind == TK_ID && (size_t)t->len == n && !memcmp(t->s, word, n);
}

static int punct(const struct emu_tok *t, char c)
{
    return t->kind == TK_PUNCT && t->c == c;
}

static int line_directive(const struct emu_tok *t)
{
    static const char *const words[] = {".version", ".target", ".address_size", ".file", ".loc"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (tok_is(t, words[i]))
            return 1;
    return 0;
}

int emu_ptx_opcodes(const char *text, size_t len, int (*fn)(void *ud, const char *op, int oplen), void *ud)
{
    struct emu_lex lx;
    int start = 1;          /* the next token begins a statement */
    int guard = 0;          /* after '@': the predicate comes next */
    int own_line = 0;       /* in a directive that ends with this line */

    for (emu_lex_init(&lx, text, len); lx.tok.kind != TK_EOF; emu_lex_next(&lx)) {
        const struct emu_tok *t = &lx.tok;
        if (own_line && t->line != own_line)
            start = 1, own_line = 0;
        if (punct(t, ';') || punct(t, '{') || punct(t, '}')) {
            start = 1, guard = 0;
            continue;
        }
        if (!start)
            continue;
        if (punct(t, '@') || (guard && punct(t, '!'))) {
            guard = 1;
            continue;
        }
        if (guard) {
            guard = 0;      /* the predicate; the opcode follows */
            continue;
        }
        start = 0;
        if (t->kind != TK_ID)
            continue;
        struct emu_lex next = lx;
        emu_lex_next(&next);
        if (punct(&next.tok, ':')) {
            lx = next;      /* a label: the statement is still to come */
            start = 1;
            continue;
        }
        if (t->s[0] == '.') {
            if (line_directive(t))
                own_line = t->line;
            continue;
        }
        if (t->s[0] == '%' || t->s[0] == '$')
            continue;
        int rc = fn(ud, t->s, t->len);
        if (rc)
            return rc;
    }
    return 0;
}

/* A type's width in bytes (".u64" 8, ".b8" 1, ".f32" 4); 0 when the token
 * is no such type. */
static unsigned type_bytes(const struct emu_tok *t)
{
    if (t->kind != TK_ID || t->len < 3 || t->s[0] != '.' || !strchr("usbf", t->s[1]))
        return 0;
    unsigned bits = 0;
    for (int i = 2; i < t->len && t->s[i] >= '0' && t->s[i] <= '9'; i++)
        bits = bits * 10 + (unsigned)(t->s[i] - '0');
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
}

/* One ".param" declaration from its first token to the ',' or ')' after
 * it: ".param .u64 .ptr .align 1 X", ".param .align 8 .b8 X[24]".  Its
 * size, or 0 when it cannot be read. */
static unsigned param_size(struct emu_lex *lx)
{
    unsigned width = 0, count = 1;
    for (; lx->tok.kind != TK_EOF && !punct(&lx->tok, ',') && !punct(&lx->tok, ')'); emu_lex_next(lx)) {
        int64_t v;
        if (!width)
            width = type_bytes(&lx->tok);
        if (punct(&lx->tok, '[')) {
            emu_lex_next(lx);
            if (lx->tok.kind != TK_NUM || emu_lex_int(lx->tok.s, lx->tok.len, &v) || v <= 0 || v > (1 << 20))
                return 0;
            count = (unsigned)v;
        }
    }
    return width * count;
}

int emu_ptx_entry(const char *text, size_t len, const char *name, unsigned *sizes, int max,
                  unsigned *local_bytes)
{
    struct emu_lex lx;
    int n = 0;

    *local_bytes = 0;
    for (emu_lex_init(&lx, text, len); lx.tok.kind != TK_EOF; emu_lex_next(&lx)) {
        if (!tok_is(&lx.tok, ".entry"))
            continue;
        emu_lex_next(&lx);
        if (!tok_is(&lx.tok, name))
            continue;
        emu_lex_next(&lx);
        if (punct(&lx.tok, '(')) {
            emu_lex_next(&lx);
            while (tok_is(&lx.tok, ".param")) {
                unsigned sz = param_size(&lx);
                if (!sz || n >= max)
                    return -1;
                sizes[n++] = sz;
                if (punct(&lx.tok, ','))
                    emu_lex_next(&lx);
            }
        }
        /* The local array ptxas will put in local memory, if any, is the
         * entry's __local_depot: its size is the frame per thread. */
        for (; lx.tok.kind != TK_EOF && !tok_is(&lx.tok, ".entry"); emu_lex_next(&lx)) {
            int64_t v;
            if (lx.tok.kind != TK_ID || lx.tok.len < 13 || memcmp(lx.tok.s, "__local_depot", 13))
                continue;
            emu_lex_next(&lx);
            if (!punct(&lx.tok, '['))
                continue;
            emu_lex_next(&lx);
            if (lx.tok.kind == TK_NUM && !emu_lex_int(lx.tok.s, lx.tok.len, &v) && v > 0)
                *local_bytes = (unsigned)v;
            break;
        }
        return n;
    }
    return -1;
}

int emu_ptx_entries(const char *text, size_t len, int (*fn)(void *ud, const char *name, int namelen), void *ud)
{
    struct emu_lex lx;
    for (emu_lex_init(&lx, text, len); lx.tok.kind != TK_EOF; emu_lex_next(&lx)) {
        if (!tok_is(&lx.tok, ".entry"))
            continue;
        emu_lex_next(&lx);
        if (lx.tok.kind != TK_ID)
            continue;
        int rc = fn(ud, lx.tok.s, (int)lx.tok.len);
        if (rc)
            return rc;
    }
    return 0;
}
