/* lesson.c — see lesson.h.  One pass over the lines with a little block
 * state (in a fence, in a list item, in a paragraph); inline markup is
 * resolved per paragraph, so emphasis may span the source's line breaks. */
#include "view/lesson.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The block being collected: a paragraph, a list item or a quote.  Its
 * text is kept raw (Markdown) until it is flushed. */
struct block {
    struct doc_para raw;        /* the source text, lines joined by spaces */
    char prefix[32];            /* "  • ", "1. ", "│ " or "" */
    enum doc_style prefix_style;
    enum doc_style base;
    int open;
};

struct state {
    struct doc *d;
    int width;
    struct block b;
    int in_fence;
    int fence_indent;
    int list_col;               /* content column of the last list item, or -1 */
    int need_gap;               /* a blank line is due before the next block */
};

static int indent_of(const char *s, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len && (s[i] == ' ' || s[i] == '\t'); i++)
        n += s[i] == '\t' ? 4 - n % 4 : 1;
    return n;
}

static const char *skip_spaces(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    return s;
}

/* ---- inline markup ------------------------------------------------------ */

/* Finds the closing delimiter for an opener at text[i] of length dlen; for
 * emphasis the text inside must not start or end with a space. */
static size_t find_close(const char *t, size_t len, size_t from, const char *delim, size_t dlen)
{
    for (size_t j = from; j + dlen <= len; j++) {
        if (t[j] == '\\') {
            j++;
            continue;
        }
        if (!strncmp(t + j, delim, dlen) && j > from && t[j - 1] != ' ')
            return j;
    }
    return 0;
}

void lesson_inline(struct doc_para *p, const char *t, size_t len, enum doc_style base)
{
    size_t i = 0, run = 0;
    /* Plain text accumulates in [run, i) and is added in `base` at each markup. */
#define FLUSH_() doc_para_add(p, base, t + run, i - run)
    while (i < len) {
        char c = t[i];
        size_t close;
        if (c == '\\' && i + 1 < len && ispunct((unsigned char)t[i + 1])) {
            FLUSH_();
            doc_para_add(p, base, t + i + 1, 1);
            run = i += 2;
        } else if (c == '`') {
            size_t ticks = 0;
            while (i + ticks < len && t[i + ticks] == '`')
                ticks++;
            char delim[8] = "";
            memset(delim, '`', ticks < sizeof delim ? ticks : sizeof delim - 1);
            size_t j = i + ticks;
            for (close = 0; j + ticks <= len && !close; j++)
                if (!strncmp(t + j, delim, ticks))
                    close = j;
            if (!close) {
                i += ticks;
                continue;
            }
            FLUSH_();
            size_t a = i + ticks, b = close;
            if (ticks > 1 && b > a && t[a] == ' ' && t[b - 1] == ' ')
                a++, b--;
            doc_para_add(p, DOC_CODE, t + a, b - a);
            run = i = close + ticks;
        } else if ((c == '*' || c == '_') && i + 1 < len && t[i + 1] == c && i + 2 < len &&
                   t[i + 2] != ' ' && (close = find_close(t, len, i + 2, c == '*' ? "**" : "__", 2))) {
            FLUSH_();
            lesson_inline(p, t + i + 2, close - i - 2, base == DOC_TEXT ? DOC_STRONG : base);
            run = i = close + 2;
        } else if ((c == '*' || c == '_') && i + 1 < len && t[i + 1] != ' ' && t[i + 1] != c &&
                   (i == 0 || !isalnum((unsigned char)t[i - 1])) &&
                   (close = find_close(t, len, i + 1, c == '*' ? "*" : "_", 1)) &&
                   (close + 1 >= len || !isalnum((unsigned char)t[close + 1]))) {
            /* Emphasis only at word boundaries, so lab_reduce_int stays a
             * name and 2*s*t stays arithmetic. */
            FLUSH_();
            lesson_inline(p, t + i + 1, close - i - 1, base == DOC_TEXT ? DOC_EM : base);
            run = i = close + 1;
        } else if (c == '[') {
            const char *rb = memchr(t + i, ']', len - i);
            const char *rp = rb && rb + 1 < t + len && rb[1] == '(' ? memchr(rb, ')', (size_t)(t + len - rb)) : NULL;
            if (!rp) {
                i++;
                continue;
            }
            FLUSH_();
            lesson_inline(p, t + i + 1, (size_t)(rb - t - i - 1), DOC_LINK);
            doc_para_add(p, DOC_DIM, " (", 2);
            doc_para_add(p, DOC_DIM, rb + 2, (size_t)(rp - rb - 2));
            doc_para_add(p, DOC_DIM, ")", 1);
            run = i = (size_t)(rp - t) + 1;
        } else {
            i++;
        }
    }
    FLUSH_();
#undef FLUSH_
}

/* ---- blocks ------------------------------------------------------------- */

static void gap(struct state *s)
{
    if (s->need_gap && s->d->nlines)
        doc_newline(s->d);
    s->need_gap = 0;
}

static void flush(struct state *s)
{
    struct block *b = &s->b;
    if (!b->open)
        return;
    struct doc_para out = {0};
    lesson_inline(&out, b->raw.text ? b->raw.text : "", b->raw.len, b->base);
    doc_flow(s->d, &out, s->width, b->prefix, b->prefix_style);
    doc_para_free(&out);
    b->raw.len = 0;
    b->open = 0;
}

static void block_start(struct state *s, const char *prefix, enum doc_style pst, enum doc_style base)
{
    flush(s);
    struct block *b = &s->b;
    snprintf(b->prefix, sizeof b->prefix, "%s", prefix);
    b->prefix_style = pst;
    b->base = base;
    b->open = 1;
}

static void block_add(struct state *s, const char *text, size_t len)
{
    struct block *b = &s->b;
    if (b->raw.len)
        doc_para_add(&b->raw, DOC_TEXT, " ", 1);
    doc_para_add(&b->raw, DOC_TEXT, text, len);
}

static void rule(struct state *s)
{
    doc_newline(s->d);
    for (int i = 0; i < s->width; i++)
        doc_add(s->d, DOC_DIM, "─");
}

/* A list marker at p: "- ", "* ", "+ " or "12. "; returns its length or 0. */
static int list_marker(const char *p, const char *end)
{
    if (p + 1 < end && strchr("-*+", *p) && p[1] == ' ')
        return 2;
    const char *q = p;
    while (q < end && isdigit((unsigned char)*q))
        q++;
    if (q > p && q - p < 4 && q + 1 < end && (*q == '.' || *q == ')') && q[1] == ' ')
        return (int)(q - p) + 2;
    return 0;
}

static int is_rule(const char *p, const char *end)
{
    int n = 0;
    char c = *p;
    if (c != '-' && c != '*' && c != '_')
        return 0;
    for (; p < end; p++) {
        if (*p == c)
            n++;
        else if (*p != ' ')
            return 0;
    }
    return n >= 3;
}

static void line(struct state *s, const char *l, const char *end)
{
    int ind = indent_of(l, (size_t)(end - l));
    const char *p = skip_spaces(l, end);
    size_t len = (size_t)(end - p);

    if (s->in_fence) {
        if (len >= 3 && !strncmp(p, "```", 3)) {
            s->in_fence = 0;
            s->need_gap = 1;
            return;
        }
        /* Keep the code's own indentation relative to the fence. */
        const char *c = l;
        for (int k = 0; k < s->fence_indent && c < end && *c == ' '; k++)
            c++;
        doc_newline(s->d);
        doc_addn(s->d, DOC_BLOCK, c, (size_t)(end - c));
        return;
    }
    if (len == 0) {
        flush(s);
        s->need_gap = 1;
        return;
    }
    if (len >= 3 && !strncmp(p, "```", 3)) {
        flush(s);
        gap(s);
        s->in_fence = 1;
        s->fence_indent = ind;
        return;
    }
    if (*p == '#') {
        int level = 0;
        while (level < (int)len && p[level] == '#')
            level++;
        if (level <= 6 && (size_t)level < len && p[level] == ' ') {
            flush(s);
            s->need_gap = 1;
            gap(s);
            const char *h = skip_spaces(p + level, end), *he = end;
            while (he > h && (he[-1] == '#' || he[-1] == ' '))
                he--;
            block_start(s, "", DOC_TEXT, level == 1 ? DOC_H1 : level == 2 ? DOC_H2 : DOC_H3);
            block_add(s, h, (size_t)(he - h));
            flush(s);
            s->list_col = -1;
            s->need_gap = 1;
            return;
        }
    }
    if (is_rule(p, end)) {
        flush(s);
        gap(s);
        rule(s);
        s->need_gap = 1;
        return;
    }
    if (*p == '|') {
        /* Tables are shown as written, like code. */
        flush(s);
        if (!(s->d->nlines && s->d->lines[s->d->nlines - 1].len &&
              s->d->lines[s->d->nlines - 1].style[0] == DOC_BLOCK))
            gap(s);
        doc_newline(s->d);
        doc_addn(s->d, DOC_BLOCK, p, len);
        s->need_gap = 1;
        return;
    }
    if (*p == '>') {
        const char *q = p + 1 < end && p[1] == ' ' ? p + 2 : p + 1;
        if (!s->b.open || s->b.base != DOC_QUOTE) {
            flush(s);
            gap(s);
            block_start(s, "│ ", DOC_DIM, DOC_QUOTE);
        }
        block_add(s, q, (size_t)(end - q));
        return;
    }
    int m = list_marker(p, end);
    if (m) {
        char prefix[32];
        int nest = ind < 12 ? ind : 12;
        if (p[0] == '-' || p[0] == '*' || p[0] == '+')
            snprintf(prefix, sizeof prefix, "%*s• ", nest, "");
        else
            snprintf(prefix, sizeof prefix, "%*s%.*s", nest, "", m, p);
        flush(s);
        if (s->list_col < 0)
            gap(s);
        s->need_gap = 0;
        block_start(s, prefix, DOC_DIM, DOC_TEXT);
        s->list_col = ind + m;
        block_add(s, p + m, len - (size_t)m);
        return;
    }
    if (s->b.open) {
        /* A continuation line of the open paragraph or item. */
        block_add(s, p, len);
        return;
    }
    if (s->list_col >= 0 && ind >= s->list_col && ind > 0) {
        /* A later paragraph of a list item, after a blank line. */
        char prefix[32];
        snprintf(prefix, sizeof prefix, "%*s", s->list_col < 16 ? s->list_col : 16, "");
        gap(s);
        block_start(s, prefix, DOC_TEXT, DOC_TEXT);
        block_add(s, p, len);
        return;
    }
    s->list_col = -1;
    gap(s);
    block_start(s, "", DOC_TEXT, DOC_TEXT);
    block_add(s, p, len);
}

void lesson_render(struct doc *d, const char *md, int width)
{
    struct state s = {.d = d, .width = width > 20 ? width : 20, .list_col = -1};
    for (const char *l = md; *l;) {
        const char *eol = strchr(l, '\n');
        const char *end = eol ? eol : l + strlen(l);
        const char *e = end;
        if (e > l && e[-1] == '\r')
            e--;
        line(&s, l, e);
        l = eol ? eol + 1 : end;
    }
    flush(&s);
    doc_para_free(&s.b.raw);
}
