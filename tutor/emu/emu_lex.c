/* emu_lex.c — PTX tokens.  Comments are dropped here, so nothing inside
 * one (a commented-out ".entry f(.param ...)") ever reaches the parser. */
#include "emu/emu_lex.h"

#include <stdlib.h>
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

/* Parses an integer literal (decimal, 0x hex, 0 octal, optional U). */
int emu_lex_int(const char *s, int len, int64_t *out)
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

/* A float's bits as they are (a NaN's payload kept), for an operand. */
static uint64_t bits32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t bits64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

/* A number literal: an integer (*is_float 0) or a float's bits at the
 * width the operand wants (FBITS 32 or 64; 0 for an integer operand). */
int emu_lex_number(const char *s, int len, int negative, int fbits, uint64_t *bits)
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
            *bits = bits64(negative ? -(double)f : (double)f);
        } else if (fbits == 32 && !is32) {
            double d;
            memcpy(&d, &v, 8);
            *bits = bits32((float)(negative ? -d : d));
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
        *bits = fbits == 32 ? bits32((float)d) : bits64(d);
        return 0;
    }
    int64_t v;
    if (emu_lex_int(s, len, &v))
        return -1;
    if (negative)
        v = -v;
    *bits = fbits == 32 ? bits32((float)v) : fbits == 64 ? bits64((double)v) : (uint64_t)v;
    return 0;
}
