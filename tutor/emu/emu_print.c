/* emu_print.c — device printf: vprintf's format string and argument
 * buffer read through the checked generic accesses (a bad pointer is a
 * fault, never a host read), formatted conversion by conversion into the
 * configured print callback.  What a kernel controls is bounded: a
 * conversion's width and precision are clamped before the host's snprintf
 * sees them (a precision of 999999999 made glibc allocate gigabytes), one
 * call's text is at most FMT_MAX bytes, and a launch prints at most
 * PRINT_MAX bytes; past that its printf calls print nothing and cost no
 * formatting, as a GPU drops what overflows its printf buffer. */
#include "emu/emu_run.h"

#include <stdio.h>
#include <string.h>

/* PRINT_MAX is the GPU's own default printf buffer (cudaLimitPrintfFifoSize,
 * 1 MiB); FIELD_MAX keeps every conversion's text inside STR_MAX + 64. */
enum { FMT_MAX = 4096, STR_MAX = 1024, FIELD_MAX = 512, PRINT_MAX = 1 << 20 };

struct out {
    char buf[FMT_MAX];
    size_t len;
};

static void put(struct out *o, const char *s, size_t n)
{
    if (n > sizeof o->buf - 1 - o->len)
        n = sizeof o->buf - 1 - o->len;
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

/* Reads the next argument of SIZE bytes (aligned to its size) from the
 * argument buffer at *AP. */
static int arg(struct run *r, struct warp *w, int lane, int pc, uint64_t *ap, size_t size,
               uint64_t *v)
{
    *ap = (*ap + size - 1) & ~(uint64_t)(size - 1);
    *v = 0;
    if (emu_read_generic(r, w, lane, pc, *ap, v, size))
        return -1;
    *ap += size;
    return 0;
}

/* One conversion's flags, width and precision as the kernel wrote them,
 * the two numbers clamped to FIELD_MAX while they are read. */
struct spec {
    char flags[8];
    int nflags;
    int width, prec;        /* -1: not given */
    int in_prec;            /* a '.' was read: digits are the precision's */
    int lng;                /* 'l's read */
};

/* Adds C to S: a flag, a digit of the width or the precision, or '.'.
 * 0, or -1 when C is none of them. */
static int spec_add(struct spec *s, char c)
{
    if (strchr("-+ #", c) || (c == '0' && s->width < 0 && !s->in_prec)) {
        if (!memchr(s->flags, c, (size_t)s->nflags) && s->nflags < (int)sizeof s->flags)
            s->flags[s->nflags++] = c;
        return 0;
    }
    if (c == '.') {
        s->in_prec = 1;
        s->prec = 0;
        return 0;
    }
    if (c < '0' || c > '9')
        return -1;
    int *v = s->in_prec ? &s->prec : &s->width;
    *v = (*v < 0 ? 0 : *v) * 10 + (c - '0');
    if (*v > FIELD_MAX)
        *v = FIELD_MAX;
    return 0;
}

/* "%FLAGS[WIDTH][.PREC]LENCONV" into BUF: built from S's parts, never
 * from the kernel's bytes. */
static void spec_text(const struct spec *s, const char *len, char conv, char *buf, size_t cap)
{
    char w[16] = "", p[16] = "";
    if (s->width >= 0)
        snprintf(w, sizeof w, "%d", s->width);
    if (s->prec >= 0)
        snprintf(p, sizeof p, ".%d", s->prec);
    snprintf(buf, cap, "%%%.*s%s%s%s%c", s->nflags, s->flags, w, p, len, conv);
}

/* The conversion specs handed to snprintf are built by spec_text from a
 * checked alphabet (flags, clamped numbers, then one known conversion),
 * so their arguments always match. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int format_one(struct run *r, struct warp *w, int lane, int pc, uint64_t fmt, uint64_t ap,
                      struct out *o)
{
    char c;
    for (int n = 0; n < FMT_MAX; n++) {
        if (emu_read_generic(r, w, lane, pc, fmt++, &c, 1))
            return -1;
        if (!c)
            return 0;
        if (c != '%') {
            put(o, &c, 1);
            continue;
        }
        struct spec sp = {.width = -1, .prec = -1};
        for (;;) {
            if (emu_read_generic(r, w, lane, pc, fmt++, &c, 1))
                return -1;
            if (!c)
                return 0;
            if (c == 'l') {
                sp.lng++;
                continue;
            }
            if (c == 'h' || c == 'z' || c == 'j' || c == 't' || c == 'L')
                continue;
            if (spec_add(&sp, c))
                break;
        }
        char text[STR_MAX + 64], spec[48];
        uint64_t v;
        int len;
        switch (c) {
        case '%':
            put(o, "%", 1);
            continue;
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c':
            if (arg(r, w, lane, pc, &ap, sp.lng && c != 'c' ? 8 : 4, &v))
                return -1;
            spec_text(&sp, "ll", c == 'i' ? 'd' : c, spec, sizeof spec);
            if (c == 'c')
                len = snprintf(text, sizeof text, "%c", (char)v);
            else if (c == 'd' || c == 'i')
                len = snprintf(text, sizeof text, spec, sp.lng ? (long long)v : (long long)(int32_t)v);
            else
                len = snprintf(text, sizeof text, spec,
                               sp.lng ? (unsigned long long)v : (unsigned long long)(uint32_t)v);
            break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
            if (arg(r, w, lane, pc, &ap, 8, &v))
                return -1;
            double d;
            memcpy(&d, &v, 8);
            spec_text(&sp, "", c, spec, sizeof spec);
            len = snprintf(text, sizeof text, spec, d);
            break;
        }
        case 'p':
            if (arg(r, w, lane, pc, &ap, 8, &v))
                return -1;
            len = snprintf(text, sizeof text, "0x%llx", (unsigned long long)v);
            break;
        case 's': {
            if (arg(r, w, lane, pc, &ap, 8, &v))
                return -1;
            char s[STR_MAX + 1];
            size_t k = 0;
            if (!v) {
                strcpy(s, "(null)");
                k = 6;
            } else {
                for (; k < STR_MAX; k++) {
                    if (emu_read_generic(r, w, lane, pc, v + k, &s[k], 1))
                        return -1;
                    if (!s[k])
                        break;
                }
            }
            s[k] = 0;
            spec_text(&sp, "", 's', spec, sizeof spec);
            len = snprintf(text, sizeof text, spec, s);
            break;
        }
        default:
            /* Not a conversion: its characters as they read, the numbers
             * clamped. */
            spec_text(&sp, "", c, spec, sizeof spec);
            put(o, spec, strlen(spec));
            continue;
        }
        if (len > 0)
            put(o, text, (size_t)len < sizeof text ? (size_t)len : sizeof text - 1);
    }
    return 0;
}

#pragma GCC diagnostic pop

/* vprintf(fmt, args) for each lane of MASK, in lane order.  Once the
 * launch has printed PRINT_MAX bytes, a call prints nothing and returns 0
 * (a GPU's overflowing printf buffer loses the call as silently); the one
 * line that says so is the last text of the launch. */
int emu_vprintf(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc)
{
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint8_t *sc = w->scratch + (size_t)l * SCRATCH_BYTES;
        uint64_t fmt, ap;
        memcpy(&fmt, sc + (in->o[1].off - PARAM_SCRATCH), 8);
        memcpy(&ap, sc + (in->o[2].off - PARAM_SCRATCH), 8);
        struct out o;
        o.len = 0;
        int room = r->printed < PRINT_MAX;
        if (room && format_one(r, w, l, pc, fmt, ap, &o))
            return -1;
        int last = room && PRINT_MAX - r->printed <= o.len;
        size_t len = last ? PRINT_MAX - r->printed : o.len;
        r->printed += len;
        if (r->e->cfg.print && (len || last)) {
            char full[160];
            int n = snprintf(full, sizeof full, "\n[printf: this launch printed %d MiB; its later printf "
                             "calls print nothing, as a GPU drops what overflows its printf buffer]\n",
                             PRINT_MAX >> 20);
            if (r->pool)
                pthread_mutex_lock(&r->pool->lock);
            r->e->cfg.print(r->e->cfg.print_ctx, o.buf, len);
            if (last)
                r->e->cfg.print(r->e->cfg.print_ctx, full, (size_t)n);
            if (r->pool)
                pthread_mutex_unlock(&r->pool->lock);
        }
        if (in->o[0].kind == OK_ADDR) {
            int32_t n = (int32_t)o.len;
            memcpy(sc + (in->o[0].off - PARAM_SCRATCH), &n, 4);
        }
    }
    return 0;
}
