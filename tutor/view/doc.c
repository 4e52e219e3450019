/* doc.c — see doc.h.  Allocation failures set d->oom and drop text rather
 * than crash: a screen with its last lines missing beats no screen. */
#include "view/doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sys/util.h"

void doc_init(struct doc *d)
{
    memset(d, 0, sizeof *d);
}

void doc_free(struct doc *d)
{
    for (int i = 0; i < d->nlines; i++) {
        free(d->lines[i].text);
        free(d->lines[i].style);
    }
    free(d->lines);
    memset(d, 0, sizeof *d);
}

void doc_newline(struct doc *d)
{
    struct doc_line *n = util_grow(d->lines, &d->cap, (size_t)d->nlines + 1, sizeof *n);
    if (!n) {
        d->oom = 1;
        return;
    }
    d->lines = n;
    struct doc_line *l = &d->lines[d->nlines];
    memset(l, 0, sizeof *l);
    l->text = calloc(1, 1);
    if (!l->text) {
        d->oom = 1;
        return;
    }
    d->nlines++;
}

/* Makes room for `more` bytes (and the NUL) in a line's two arrays. */
static int line_grow(struct doc_line *l, size_t more)
{
    if (l->len + more + 1 <= l->cap)
        return 0;
    size_t ncap = l->cap ? l->cap : 32;
    while (ncap < l->len + more + 1)
        ncap *= 2;
    char *t = realloc(l->text, ncap);
    if (!t)
        return -1;
    l->text = t;
    unsigned char *s = realloc(l->style, ncap);
    if (!s)
        return -1;
    l->style = s;
    l->cap = ncap;
    return 0;
}

void doc_addn(struct doc *d, enum doc_style st, const char *text, size_t n)
{
    if (!d->nlines)
        doc_newline(d);
    if (!d->nlines)
        return;
    struct doc_line *l = &d->lines[d->nlines - 1];
    if (line_grow(l, n)) {
        d->oom = 1;
        return;
    }
    memcpy(l->text + l->len, text, n);
    memset(l->style + l->len, st, n);
    l->len += n;
    l->text[l->len] = '\0';
}

void doc_add(struct doc *d, enum doc_style st, const char *text)
{
    for (;;) {
        const char *nl = strchr(text, '\n');
        doc_addn(d, st, text, nl ? (size_t)(nl - text) : strlen(text));
        if (!nl)
            return;
        doc_newline(d);
        text = nl + 1;
    }
}

void doc_addf(struct doc *d, enum doc_style st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = util_vformat(fmt, ap);
    va_end(ap);
    if (s)
        doc_add(d, st, s);
    else
        d->oom = 1;
    free(s);
}

void doc_addcell(struct doc *d, enum doc_style st, const char *text, int cols)
{
    int w = doc_width(text, strlen(text));
    if (w <= cols) {
        doc_addf(d, st, "%s%*s", text, cols - w, "");
        return;
    }
    size_t cut = 0;
    for (int c = 0; c < cols - 1; c++)
        for (cut++; ((unsigned char)text[cut] & 0xC0) == 0x80; cut++)
            ;
    doc_addn(d, st, text, cut);
    doc_add(d, DOC_DIM, "…");
}

void doc_print(FILE *f, const struct doc *d)
{
    for (int i = 0; i < d->nlines; i++)
        fprintf(f, "%.*s\n", (int)d->lines[i].len, d->lines[i].text);
}

int doc_width(const char *text, size_t len)
{
    int w = 0;
    for (size_t i = 0; i < len; i++)
        w += ((unsigned char)text[i] & 0xC0) != 0x80;
    return w;
}

void doc_para_add(struct doc_para *p, enum doc_style st, const char *text, size_t len)
{
    if (p->len + len + 1 > p->cap) {
        size_t ncap = p->cap ? p->cap : 128;
        while (ncap < p->len + len + 1)
            ncap *= 2;
        char *t = realloc(p->text, ncap);
        unsigned char *s = t ? realloc(p->style, ncap) : NULL;
        if (t)
            p->text = t;
        if (!s)
            return;
        p->style = s;
        p->cap = ncap;
    }
    memcpy(p->text + p->len, text, len);
    memset(p->style + p->len, st, len);
    p->len += len;
    p->text[p->len] = '\0';
}

void doc_para_free(struct doc_para *p)
{
    free(p->text);
    free(p->style);
    memset(p, 0, sizeof *p);
}

/* Appends bytes [from, to) of a paragraph to the last line, styles kept. */
static void line_append_para(struct doc *d, const struct doc_para *p, size_t from, size_t to)
{
    for (size_t i = from; i < to;) {
        size_t j = i;
        while (j < to && p->style[j] == p->style[i])
            j++;
        doc_addn(d, (enum doc_style)p->style[i], p->text + i, j - i);
        i = j;
    }
}

void doc_flow(struct doc *d, struct doc_para *p, int width, const char *prefix, enum doc_style prefix_style)
{
    int indent = doc_width(prefix, strlen(prefix));
    int avail = width - indent > 8 ? width - indent : 8;
    size_t i = 0;
    int first = 1;

    while (p->len && p->text[p->len - 1] == ' ')
        p->len--;
    while (i < p->len && p->text[i] == ' ')
        i++;
    do {
        doc_newline(d);
        if (first)
            doc_add(d, prefix_style, prefix);
        else
            doc_addf(d, DOC_TEXT, "%*s", indent, "");
        first = 0;
        /* Take as many words as fit; break after the last space that fits. */
        size_t end = i, brk = 0;
        int w = 0;
        while (end < p->len) {
            size_t j = end + 1;
            while (j < p->len && ((unsigned char)p->text[j] & 0xC0) == 0x80)
                j++;
            if (w + 1 > avail)
                break;
            if (p->text[end] == ' ')
                brk = end;
            w++;
            end = j;
        }
        /* Mid-word: back up to the last space; a word longer than a whole
         * line is cut where the line ends. */
        if (end < p->len && p->text[end] != ' ' && brk > i)
            end = brk;
        size_t stop = end;
        while (stop > i && p->text[stop - 1] == ' ')
            stop--;
        line_append_para(d, p, i, stop);
        i = end;
        while (i < p->len && p->text[i] == ' ')
            i++;
    } while (i < p->len);
    p->len = 0;
}

int doc_find(const struct doc *d, const char *needle, int from, int dir)
{
    size_t nlen = strlen(needle);
    if (!nlen || !d->nlines)
        return -1;
    for (int k = 1; k <= d->nlines; k++) {
        int i = ((from + (dir < 0 ? -k : k)) % d->nlines + d->nlines) % d->nlines;
        const char *t = d->lines[i].text;
        for (size_t j = 0; j + nlen <= d->lines[i].len; j++)
            if (!strncasecmp(t + j, needle, nlen))
                return i;
    }
    return -1;
}

/* Decodes one UTF-8 character; returns its length (1 for a stray byte). */
static int utf8_decode(const unsigned char *s, size_t len, unsigned *cp)
{
    int n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 1;
    if ((size_t)n > len || n == 1) {
        *cp = s[0];
        return 1;
    }
    unsigned c = s[0] & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *cp = s[0];
            return 1;
        }
        c = (c << 6) | (s[i] & 0x3F);
    }
    *cp = c;
    return n;
}

static const struct {
    unsigned cp;
    const char *ascii;
} ascii_table[] = {
    {0x2014, "--"}, {0x2013, "-"},  {0x00B5, "u"},   {0x00B2, "^2"},  {0x00B3, "^3"},
    {0x00D7, "x"},  {0x2248, "~"},  {0x2026, "..."}, {0x2192, "->"},  {0x2190, "<-"},
    {0x2022, "*"},  {0x00B7, "."},  {0x2713, "+"},   {0x2717, "x"},   {0x2605, "*"},
    {0x25CB, "o"},  {0x25B8, ">"},  {0x2588, "#"},   {0x258C, "#"},   {0x2591, "."},
    {0x2502, "|"},  {0x2503, "|"},  {0x2500, "-"},   {0x2018, "'"},   {0x2019, "'"},
    {0x201C, "\""}, {0x201D, "\""}, {0x2264, "<="},  {0x2265, ">="},  {0x00A0, " "},
};

void doc_ascii(struct doc *d)
{
    for (int i = 0; i < d->nlines; i++) {
        struct doc_line *l = &d->lines[i];
        struct doc_para out = {0};
        int changed = 0;
        for (size_t j = 0; j < l->len;) {
            unsigned cp;
            int n = utf8_decode((const unsigned char *)l->text + j, l->len - j, &cp);
            const char *rep = NULL;
            if (cp >= 0x80) {
                rep = "?";
                for (size_t k = 0; k < sizeof ascii_table / sizeof ascii_table[0]; k++)
                    if (ascii_table[k].cp == cp)
                        rep = ascii_table[k].ascii;
                changed = 1;
            }
            if (rep)
                doc_para_add(&out, (enum doc_style)l->style[j], rep, strlen(rep));
            else
                doc_para_add(&out, (enum doc_style)l->style[j], l->text + j, (size_t)n);
            j += (size_t)n;
        }
        if (changed && out.text) {
            free(l->text);
            free(l->style);
            l->text = out.text;
            l->style = out.style;
            l->len = out.len;
            l->cap = out.cap;
        } else {
            doc_para_free(&out);
        }
    }
}
