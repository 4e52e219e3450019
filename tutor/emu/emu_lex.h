/* emu_lex.h — the PTX tokenizer the parser reads through: identifiers (with
 * their dots, so "ld.global.u32" and "%tid.x" are one token), numbers,
 * strings and single punctuation, comments skipped.  Private to tutor/emu/. */
#ifndef EMU_LEX_H
#define EMU_LEX_H

#include <stddef.h>
#include <stdint.h>

enum { TK_EOF, TK_ID, TK_NUM, TK_STR, TK_PUNCT };

struct emu_tok {
    int kind;
    const char *s;      /* into the text */
    int len;
    int line;
    char c;             /* TK_PUNCT: the character */
};

struct emu_lex {
    const char *p, *end;
    int line;
    struct emu_tok tok;     /* the current token */
    int bad;                /* an unterminated comment or string, a stray byte */
};

void emu_lex_init(struct emu_lex *lx, const char *text, size_t len);
/* Moves to the next token. */
void emu_lex_next(struct emu_lex *lx);
/* An integer literal (decimal, 0x hex, 0 octal, a U suffix): 0 or -1. */
int emu_lex_int(const char *s, int len, int64_t *out);
/* A number literal's bits: an integer, or a float (0f/0d hex bits, or
 * decimal) at the width the operand wants, FBITS 32 or 64 (0: an integer
 * operand); NEGATIVE when a '-' preceded it.  0 or -1. */
int emu_lex_number(const char *s, int len, int negative, int fbits, uint64_t *bits);

#endif
