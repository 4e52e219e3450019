/* emu_lex.c — PTX tokens.  Comments are dropped here, so nothing inside
 * one (a commented-out ".entry f(.param ...)") ever reaches the parser. */
#include "emu/emu_lex.h"

#include <string.h>

/* Starts reading TEXT and loads the first token. */
void emu_lex_init(struct emu_lex *lx, const char *text, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->p = text;
    lx->end = text + len;
    lx->line = 1;
    emu_lex_next(lx);
}

static int is_id(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c == '%' || c == '.';
}

/* Moves to the next token; at the end of the text, or on a byte no token
 * starts with (lx->bad set), TK_EOF. */
void emu_lex_next(struct emu_lex *lx)
{
    const char *p = lx->p, *e = lx->end;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '\f')) {
            if (*p == '\n')
                lx->line++;
            p++;
        }
        if (p + 1 < e && p[0] == '/' && p[1] == '/') {
            while (p < e && *p != '\n')
                p++;
            continue;
        }
        if (p + 1 < e && p[0] == '/' && p[1] == '*') {
            p += 2;
            while (p + 1 < e && !(p[0] == '*' && p[1] == '/')) {
                if (*p == '\n')
                    lx->line++;
                p++;
            }
            if (p + 1 >= e) {
                lx->bad = 1;
                p = e;
            } else {
                p += 2;
            }
            continue;
        }
        break;
    }
    struct emu_tok *t = &lx->tok;
    t->line = lx->line;
    t->s = p;
    t->len = 0;
    if (p >= e) {
        t->kind = TK_EOF;
        lx->p = p;
        return;
    }
    char c = *p;
    if (c == '"') {
        const char *q = p + 1;
        while (q < e && *q != '"' && *q != '\n')
            q++;
        if (q >= e || *q != '"') {
            lx->bad = 1;
            t->kind = TK_EOF;
            lx->p = e;
            return;
        }
        t->kind = TK_STR;
        t->s = p + 1;
        t->len = (int)(q - p - 1);
        lx->p = q + 1;
        return;
    }
    if (c >= '0' && c <= '9') {
        const char *q = p;
        while (q < e && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                         *q == '.'))
            q++;
        t->kind = TK_NUM;
        t->len = (int)(q - p);
        lx->p = q;
        return;
    }
    if (is_id(c)) {
        const char *q = p;
        for (;;) {
            if (q < e && is_id(*q)) {
                q++;
            } else if (q + 1 < e && q[0] == ':' && q[1] == ':') {
                q += 2;     /* cache qualifiers: L2::cache_hint */
            } else {
                break;
            }
        }
        t->kind = TK_ID;
        t->len = (int)(q - p);
        lx->p = q;
        return;
    }
    if (strchr(",;:{}[]()<>+-!|@=", c) && c) {
        t->kind = TK_PUNCT;
        t->c = c;
        t->len = 1;
        lx->p = p + 1;
        return;
    }
    lx->bad = 1;
    t->kind = TK_EOF;
    lx->p = e;
}
