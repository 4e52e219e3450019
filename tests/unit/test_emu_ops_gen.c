/* test_emu_ops_gen.c — from a row of the forms table to what runs: its
 * operands (seeded random values with the edge cases first: 0, -1,
 * INT_MIN, 2^k±1, ±0, ±inf, NaNs, subnormals), its PTX module (the same
 * text for the emulator and the GPU), and the comparison of a result with
 * the reference (bit for bit, or within an approximate form's error). */
#include "test_emu_ops.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static uint64_t mix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static const uint64_t edges_r[] = {
    0, 1, 2, 0xffffffff, 0xfffffffe, 0x80000000, 0x7fffffff, 0x80000001, 0x10001, 0xffff, 31, 32, 33,
};
static const uint64_t edges_R[] = {
    0, 1, 2, ~0ull, ~0ull - 1, 1ull << 63, ~0ull >> 1, (1ull << 63) + 1, 0xffffffff, 0x100000000ull,
    0x100000001ull, 63, 64,
};
static const uint64_t edges_h[] = {0, 1, 2, 0xffff, 0x8000, 0x7fff, 0x8001, 0xff};
static const uint64_t edges_f[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00123,
    0x00000001, 0x007fffff, 0x80000010, 0x00800000, 0x7f7fffff, 0x3f800000, 0xbf800000,
    0x3fc00000, 0x40200000, 0xc0200000, 0x40600000, 0x4b800001, 0x3effffff, 0xcf000000, 0x4f000000,
};
static const uint64_t edges_F[] = {
    0, 1ull << 63, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
    0x7ff0000000000001ull, 0xfff8000000000123ull, 1, 0x000fffffffffffffull, 0x0010000000000000ull,
    0x7fefffffffffffffull, 0x3ff0000000000000ull, 0xbff0000000000000ull, 0x4004000000000000ull,
    0x36a0000000000000ull, 0x47efffffe0000000ull, 0x47effffff0000000ull, 0x380fffffffffffffull,
    0x7ff4000000000005ull,
};
static const uint64_t edges_small[] = {0, 1, 2, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 255, 256};

struct edges {
    const uint64_t *v;
    int n;
};
#define EDGES(a) {a, (int)(sizeof a / sizeof a[0])}

static struct edges edges_of(char type, unsigned small)
{
    if (small) return (struct edges)EDGES(edges_small);
    switch (type) {
    case 'h': return (struct edges)EDGES(edges_h);
    case 'R': return (struct edges)EDGES(edges_R);
    case 'f': return (struct edges)EDGES(edges_f);
    case 'F': return (struct edges)EDGES(edges_F);
    case 'p': return (struct edges){edges_r, 2};
    default: return (struct edges)EDGES(edges_r);
    }
}

/* A random value of TYPE: raw bits, a number of moderate size (where
 * rounding and conversions are interesting), or 2^k±1. */
static uint64_t draw_value(char type, unsigned small, uint64_t *s)
{
    uint64_t x = mix(s);
    unsigned how = (unsigned)(x >> 60) & 3;
    if (small) return how == 0 ? x & 0xffffffff : (x >> 8) % 71;
    switch (type) {
    case 'p': return x & 1;
    case 'h': return x & 0xffff;
    case 'r':
        if (how == 1) return (uint32_t)((1u << (x % 32)) + (uint32_t)((x >> 8) % 3) - 1);
        if (how == 2) return (uint32_t)((int32_t)(x >> 40) % 2000);
        return x & 0xffffffff;
    case 'R':
        if (how == 1) return (1ull << (x % 64)) + (x >> 8) % 3 - 1;
        if (how == 2) return (uint64_t)((int64_t)(x >> 20) % 3000000000);
        return x;
    case 'f': {
        if (how == 0) return x & 0xffffffff;
        if (how == 3) {   /* halves: round-to-integer ties */
            float v = (float)((int32_t)(x >> 40) % 4096) / 2.0f;
            uint32_t b;
            memcpy(&b, &v, 4);
            return b;
        }
        /* sign, exponent in [-40, 40], random mantissa */
        uint32_t e = (uint32_t)(127 - 40 + (x >> 8) % 81);
        return (x & 0x80000000u) | (e << 23) | ((x >> 20) & 0x7fffff);
    }
    case 'F': {
        if (how == 0) return x;
        if (how == 3) {
            double v = (double)((int64_t)(x >> 30) % 100000) / 2.0;
            uint64_t b;
            memcpy(&b, &v, 8);
            return b;
        }
        uint64_t e = 1023 - 140 + (x >> 8) % 281;   /* around f32's range, for cvt */
        return (x & (1ull << 63)) | (e << 52) | ((x * 0x9e3779b97f4a7c15ull) >> 12);
    }
    }
    return x;
}

static int sig_inputs(const char *sig, char *types)
{
    const char *c = strchr(sig, ':');
    int n = 0;
    for (c = c ? c + 1 : sig + strlen(sig); *c && n < OPS_SLOTS; c++) types[n++] = *c;
    return n;
}

const struct ops_row *ops_row(int i)
{
    if (i < ops_corpus_nrows)
        return &ops_corpus_rows[i];
    i -= ops_corpus_nrows;
    return i < ops_extra_nrows ? &ops_extra_rows[i] : &ops_half_rows[i - ops_extra_nrows];
}

int ops_count(void)
{
    return ops_corpus_nrows + ops_extra_nrows + ops_half_nrows;
}

int ops_is_extra(int i)
{
    return i >= ops_corpus_nrows;
}

void ops_row_name(const struct ops_row *r, char *buf, size_t size)
{
    if (r->variant[0]) snprintf(buf, size, "%s (%s)", r->form, r->variant);
    else snprintf(buf, size, "%s", r->form);
}

void ops_draw(const struct ops_row *r, uint64_t seed, uint64_t *in, struct ops_ctx *c)
{
    char types[OPS_SLOTS];
    int n = sig_inputs(r->sig, types);
    uint64_t s = seed;
    /* Each row its own stream: a row added does not move the others. */
    for (const char *p = r->form; *p; p++) s = s * 131 + (unsigned char)*p;
    for (const char *p = r->variant; *p; p++) s = s * 131 + (unsigned char)*p;
    c->in = in;
    c->param = mix(&s);
    for (int i = 0; i < OPS_CONST_BYTES; i++) c->cst[i] = (uint8_t)mix(&s);
    memset(in, 0, sizeof(uint64_t) * OPS_THREADS * OPS_SLOTS);

    /* The first threads take every pair of input 0's and input 1's edges,
     * the next ones edges and random values mixed, the rest random. */
    struct edges e0 = n > 0 ? edges_of(types[0], r->gen & OPS_IN(OPS_SMALL, 0)) : (struct edges){0, 0};
    struct edges e1 = n > 1 ? edges_of(types[1], r->gen & OPS_IN(OPS_SMALL, 1)) : (struct edges){0, 0};
    int pairs = n > 1 ? e0.n * e1.n : e0.n;
    for (int t = 0; t < OPS_THREADS; t++) {
        uint64_t *x = in + (size_t)t * OPS_SLOTS;
        for (int k = 0; k < n; k++) {
            unsigned small = r->gen & OPS_IN(OPS_SMALL, k);
            struct edges e = edges_of(types[k], small);
            uint64_t v;
            if (t < pairs && k == 0) v = e0.v[t % e0.n];
            else if (t < pairs && k == 1) v = e1.v[(t / e0.n) % e1.n];
            else if (t < 2 * pairs || mix(&s) % 4 == 0) v = e.v[mix(&s) % (uint64_t)e.n];
            else v = draw_value(types[k], small, &s);
            if (types[k] == 'p') v &= 1;
            if (types[k] == 'h') v &= 0xffff;
            if (types[k] == 'r' || types[k] == 'f') v &= 0xffffffff;
            if ((r->gen & OPS_IN(OPS_NONZERO, k)) && v == 0) v = 1 + mix(&s) % 1000;
            x[k] = v;
        }
        if ((r->gen & OPS_EQ01) && t >= pairs && mix(&s) % 2) x[1] = x[0];
    }
    /* Uniform and member-mask inputs: lane 0's value for the whole warp. */
    for (int k = 0; k < n; k++) {
        unsigned uni = r->gen & OPS_IN(OPS_UNI, k), mask = r->gen & OPS_IN(OPS_MASK, k);
        if (!uni && !mask) continue;
        for (int w = 0; w < OPS_THREADS / 32; w++) {
            uint64_t v = in[(size_t)w * 32 * OPS_SLOTS + k];
            if (mask) {
                uint64_t m = mix(&s);
                /* all lanes, one lane, or a random set that includes lane 0 */
                v = (w % 3 == 0) ? 0xffffffff : (w % 3 == 1) ? 1u << (m % 32) : ((m & 0xffffffff) | 1);
            }
            for (int l = 0; l < 32; l++) in[((size_t)w * 32 + l) * OPS_SLOTS + k] = v;
        }
    }
}

/* ---- the module ---------------------------------------------------------- */

struct buf {
    char *p;
    size_t size, len;
    int bad;
};

static void put(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->len < b->size ? b->size - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0 || b->len + (size_t)n >= b->size) b->bad = 1;
    else b->len += (size_t)n;
}

/* Register K of TYPE: inputs 0..3, outputs 4..7, the template's own 16+. */
static void reg(char *out, size_t size, char type, int k)
{
    static const struct { char type; const char *prefix; } names[] = {
        {'p', "%p"}, {'h', "%h"}, {'r', "%r"}, {'R', "%rd"}, {'f', "%f"}, {'F', "%fd"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].type == type) {
            snprintf(out, size, "%s%d", names[i].prefix, k);
            return;
        }
    snprintf(out, size, "%%bad");
}

/* Per register type: how an input is loaded from its slot, how an output
 * starts, and how it is stored (%s the register, %d the slot's offset). */
static const struct {
    char type;
    const char *load, *init, *store;
} io[] = {
    {'p', "ld.global.u32 %%r%d, [%%rd17+%d];\n\tsetp.ne.s32 %s, %%r%d, 0;", "mov.pred %s, 0;",
     "selp.u32 %%r%d, 1, 0, %s;\n\tst.global.u32 [%%rd18+%d], %%r%d;"},
    {'h', "ld.global.u16 %s, [%%rd17+%d];", "mov.u16 %s, 0;", "st.global.u16 [%%rd18+%d], %s;"},
    {'r', "ld.global.u32 %s, [%%rd17+%d];", "mov.u32 %s, 0;", "st.global.u32 [%%rd18+%d], %s;"},
    {'R', "ld.global.u64 %s, [%%rd17+%d];", "mov.u64 %s, 0;", "st.global.u64 [%%rd18+%d], %s;"},
    {'f', "ld.global.f32 %s, [%%rd17+%d];", "mov.f32 %s, 0f00000000;", "st.global.f32 [%%rd18+%d], %s;"},
    {'F', "ld.global.f64 %s, [%%rd17+%d];", "mov.f64 %s, 0d0000000000000000;",
     "st.global.f64 [%%rd18+%d], %s;"},
};

static int io_of(char type)
{
    for (int i = 0; i < (int)(sizeof io / sizeof io[0]); i++)
        if (io[i].type == type) return i;
    return -1;
}

/* The body with its placeholders replaced: $F the form, $d0..$d3 the
 * outputs, $a0..$a3 the inputs, $L a label prefix. */
static void put_body(struct buf *b, const char *body, const char *form, const char *outs,
                     const char *ins)
{
    char r[16];
    for (const char *p = body; *p; p++) {
        if (*p != '$') {
            put(b, "%c", *p);
            continue;
        }
        if (p[1] == 'F') {
            put(b, "%s", form);
            p++;
        } else if (p[1] == 'L') {
            put(b, "$Lt_");
            p++;
        } else if ((p[1] == 'd' || p[1] == 'a') && p[2] >= '0' && p[2] <= '3') {
            const char *types = p[1] == 'd' ? outs : ins;
            int k = p[2] - '0';
            if (k >= (int)strlen(types)) {
                b->bad = 1;
                return;
            }
            reg(r, sizeof r, types[k], p[1] == 'd' ? 4 + k : k);
            put(b, "%s", r);
            p += 2;
        } else {
            b->bad = 1;
            return;
        }
    }
}

int ops_ptx(const struct ops_row *row, const struct ops_ctx *c, char *text, size_t size)
{
    struct buf b = {text, size, 0, 0};
    char outs[8] = "", ins[8] = "", r[16];
    const char *colon = strchr(row->sig, ':');
    if (!colon || colon - row->sig > 4 || strlen(colon + 1) > 4) return -1;
    memcpy(outs, row->sig, (size_t)(colon - row->sig));
    strcpy(ins, colon + 1);

    put(&b, "// %s%s%s: generated by tests/unit/test_emu_ops_gen.c\n", row->form,
        row->variant[0] ? " " : "", row->variant);
    put(&b, ".version 8.0\n.target sm_90\n.address_size 64\n\n");
    put(&b, ".const .align 8 .b8 cst[%d] = {", OPS_CONST_BYTES);
    for (int i = 0; i < OPS_CONST_BYTES; i++) put(&b, "%s%u", i ? ", " : "", c->cst[i]);
    put(&b, "};\n.shared .align 16 .b8 sh[%d];\n", OPS_BLOCK * 32);
    /* A callee for the call rows alone (the corpus calls only vprintf):
     * its parameter's low word plus 7. */
    if (row->body && strstr(row->body, "plus7"))
        put(&b, ".func (.param .b32 fr) plus7(.param .b64 fp)\n{\n\t.reg .b64 %%x;\n\t.reg .b32 %%y;\n"
            "\tld.param.b64 %%x, [fp];\n\tcvt.u32.u64 %%y, %%x;\n\tadd.s32 %%y, %%y, 7;\n"
            "\tst.param.b32 [fr], %%y;\n\tret;\n}\n\n");
    put(&b, ".visible .entry t(.param .u64 t_in, .param .u64 t_out, .param .align 8 .b8 t_p[8])\n{\n");
    put(&b, "\t.local .align 16 .b8 loc[32];\n");
    put(&b, "\t.reg .pred %%p<24>;\n\t.reg .b16 %%h<24>;\n\t.reg .b32 %%r<24>;\n"
            "\t.reg .b64 %%rd<24>;\n\t.reg .f32 %%f<24>;\n\t.reg .f64 %%fd<24>;\n\n");
    /* %rd12/%rd13 the parameters as passed, %rd20/%rd21 as global
     * addresses; %r19 the thread's index, %rd17/%rd18 its operands and
     * results, %r20 its shared slot, %r21 the slot of the thread 64 apart
     * (the other warp pair of the block), %r22 its lane neighbour's. */
    put(&b, "\tld.param.u64 %%rd12, [t_in];\n\tld.param.u64 %%rd13, [t_out];\n"
            "\tcvta.to.global.u64 %%rd20, %%rd12;\n\tcvta.to.global.u64 %%rd21, %%rd13;\n"
            "\tmov.u32 %%r16, %%tid.x;\n\tmov.u32 %%r17, %%ctaid.x;\n\tmov.u32 %%r18, %%ntid.x;\n"
            "\tmad.lo.s32 %%r19, %%r17, %%r18, %%r16;\n\tmul.wide.u32 %%rd16, %%r19, 32;\n"
            "\tadd.s64 %%rd17, %%rd20, %%rd16;\n\tadd.s64 %%rd18, %%rd21, %%rd16;\n"
            "\tmov.u32 %%r23, sh;\n\tshl.b32 %%r20, %%r16, 5;\n\tadd.s32 %%r20, %%r23, %%r20;\n"
            "\txor.b32 %%r21, %%r16, 64;\n\tshl.b32 %%r21, %%r21, 5;\n\tadd.s32 %%r21, %%r23, %%r21;\n"
            "\txor.b32 %%r22, %%r16, 1;\n\tshl.b32 %%r22, %%r22, 5;\n\tadd.s32 %%r22, %%r23, %%r22;\n");
    for (int k = 0; ins[k]; k++) {
        int i = io_of(ins[k]);
        if (i < 0) return -1;
        reg(r, sizeof r, ins[k], k);
        put(&b, "\t");
        if (ins[k] == 'p') put(&b, io[i].load, 8 + k, 8 * k, r, 8 + k);
        else put(&b, io[i].load, r, 8 * k);
        put(&b, "\n");
    }
    for (int k = 0; outs[k]; k++) {
        int i = io_of(outs[k]);
        if (i < 0) return -1;
        reg(r, sizeof r, outs[k], 4 + k);
        put(&b, "\t");
        put(&b, io[i].init, r);
        put(&b, "\n");
    }
    put(&b, "\t// the form under test\n\t");
    if (row->body) {
        put_body(&b, row->body, row->form, outs, ins);
    } else {
        put(&b, "%s ", row->form);
        for (int k = 0; outs[k]; k++) {
            reg(r, sizeof r, outs[k], 4 + k);
            put(&b, "%s%s", k ? ", " : "", r);
        }
        for (int k = 0; ins[k]; k++) {
            reg(r, sizeof r, ins[k], k);
            put(&b, ", %s", r);
        }
        put(&b, ";");
    }
    put(&b, "\n");
    for (int k = 0; outs[k]; k++) {
        int i = io_of(outs[k]);
        reg(r, sizeof r, outs[k], 4 + k);
        put(&b, "\t");
        if (outs[k] == 'p') put(&b, io[i].store, 12 + k, r, 8 * k, 12 + k);
        else put(&b, io[i].store, 8 * k, r);
        put(&b, "\n");
    }
    put(&b, "\tret;\n}\n");
    return b.bad ? -1 : 0;
}

/* ---- comparison ---------------------------------------------------------- */

int ops_equal(const struct ops_row *r, int slot, uint64_t want, uint64_t got)
{
    (void)r, (void)slot;
    return want == got;
}
