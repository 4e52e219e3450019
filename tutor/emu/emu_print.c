/* emu_print.c — device printf: vprintf's format string and argument
 * buffer read through the checked generic accesses (a bad pointer is a
 * fault, never a host read), formatted conversion by conversion into the
 * configured print callback. */
#include "emu/emu_run.h"

#include <stdio.h>
#include <string.h>

enum { FMT_MAX = 4096, STR_MAX = 1024 };

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

/* The conversion specs handed to snprintf are built here from a checked
 * alphabet (flags, digits, '.', then one known conversion), so their
 * arguments always match. */
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
        char spec[32] = "%";
        size_t sl = 1;
        int lng = 0;
        for (;;) {
            if (emu_read_generic(r, w, lane, pc, fmt++, &c, 1))
                return -1;
            if (!c)
                return 0;
            if (c == 'l') {
                lng++;
                continue;
            }
            if (c == 'h' || c == 'z' || c == 'j' || c == 't' || c == 'L')
                continue;
            if (sl < sizeof spec - 4 && strchr("-+ #0123456789.", c)) {
                spec[sl++] = c;
                continue;
            }
            break;
        }
        char text[STR_MAX + 64];
        uint64_t v;
        int len;
        switch (c) {
        case '%':
            put(o, "%", 1);
            continue;
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c':
            if (arg(r, w, lane, pc, &ap, lng && c != 'c' ? 8 : 4, &v))
                return -1;
            spec[sl++] = 'l';
            spec[sl++] = 'l';
            spec[sl++] = c == 'i' ? 'd' : c;
            spec[sl] = 0;
            if (c == 'c')
                len = snprintf(text, sizeof text, "%c", (char)v);
            else if (c == 'd' || c == 'i')
                len = snprintf(text, sizeof text, spec, lng ? (long long)v : (long long)(int32_t)v);
            else
                len = snprintf(text, sizeof text, spec,
                               lng ? (unsigned long long)v : (unsigned long long)(uint32_t)v);
            break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
            if (arg(r, w, lane, pc, &ap, 8, &v))
                return -1;
            double d;
            memcpy(&d, &v, 8);
            spec[sl++] = c;
            spec[sl] = 0;
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
            spec[sl++] = 's';
            spec[sl] = 0;
            len = snprintf(text, sizeof text, spec, s);
            break;
        }
        default:
            put(o, spec, sl);
            put(o, &c, 1);
            continue;
        }
        if (len > 0)
            put(o, text, (size_t)len < sizeof text ? (size_t)len : sizeof text - 1);
    }
    return 0;
}

#pragma GCC diagnostic pop

/* vprintf(fmt, args) for each lane of MASK, in lane order. */
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
        if (format_one(r, w, l, pc, fmt, ap, &o))
            return -1;
        if (r->e->cfg.print) {
            if (r->pool)
                pthread_mutex_lock(&r->pool->lock);
            r->e->cfg.print(r->e->cfg.print_ctx, o.buf, o.len);
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
