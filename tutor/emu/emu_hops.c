/* emu_hops.c — the half floats: add, sub, mul, fma, min, max, abs, neg,
 * setp, set and cvt on f16 (1 sign, 5 exponent, 10 fraction bits) and bf16
 * (1, 8, 7), scalar or two to a register (.x2: each half on its own, the
 * first operand's low half with the second's low half).
 *
 * Every operation is computed in double, where the exact result of an add,
 * sub or mul of two halves always fits, then rounded once to the format
 * (half_round).  fma's exact result may not fit a double: it is rounded to
 * odd first (its last bit set when inexact), which keeps the one final
 * rounding correct, since a double carries more than the two extra bits
 * a half needs.  A NaN result is the canonical 0x7fff of either format;
 * widened to f32, an f16 NaN is the canonical 0x7fffffff and a bf16 NaN
 * keeps its bits (the H200's, tests/device/emu-diff.sh). */
#include "emu/emu_hops.h"
#include "emu/emu_fops.h"
#include "emu/emu_lanes.h"

#include <math.h>

enum { HNAN = 0x7fff };

/* The format of TYPE: its fraction bits and exponent bias. */
struct hfmt {
    int man, bias;
};

static struct hfmt fmt_of(int type)
{
    if (type == T_BF16 || type == T_BF16X2)
        return (struct hfmt){7, 127};
    return (struct hfmt){10, 15};
}

static int emax_of(struct hfmt f)
{
    return (1 << (15 - f.man)) - 1;
}

static double half_value(uint16_t h, struct hfmt f)
{
    int emax = emax_of(f);
    int e = (h >> f.man) & emax, frac = h & ((1 << f.man) - 1);
    double v;
    if (e == emax)
        v = frac ? NAN : INFINITY;
    else if (e)
        v = ldexp(1.0 + ldexp(frac, -f.man), e - f.bias);
    else
        v = ldexp(frac, 1 - f.bias - f.man);
    return (h & 0x8000) ? -v : v;
}

static int is_nan_half(uint16_t h, struct hfmt f)
{
    int emax = emax_of(f);
    return ((h >> f.man) & emax) == emax && (h & ((1 << f.man) - 1));
}

/* V rounded to the format in mode RND (RN when none); ties to even.  A
 * value past the largest finite one is infinity, or the largest finite
 * one in the modes that round toward zero from its side. */
static uint16_t half_round(double v, struct hfmt f, int rnd)
{
    if (v != v)
        return HNAN;
    uint16_t sign = signbit(v) ? 0x8000 : 0;
    int emax = emax_of(f);
    uint16_t inf = (uint16_t)(sign | emax << f.man), big = (uint16_t)(inf - 1);
    double a = fabs(v);
    int down = rnd == RND_RZ || (rnd == RND_RM && !sign) || (rnd == RND_RP && sign);
    if (isinf(a))
        return inf;
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);
    e -= 1;                             /* a in [2^e, 2^(e+1)) */
    if (e < 1 - f.bias)
        e = 1 - f.bias;                 /* subnormal: the smallest normal's quantum */
    double q = ldexp(1.0, e - f.man), n = a / q;
    switch (rnd) {
    case RND_RZ: n = trunc(n); break;
    case RND_RM: n = sign ? ceil(n) : floor(n); break;
    case RND_RP: n = sign ? floor(n) : ceil(n); break;
    default: n = nearbyint(n); break;
    }
    double r = n * q;
    if (r >= ldexp(2.0, emax - 1 - f.bias))
        return down ? big : inf;
    if (n == 0)
        return sign;
    frexp(r, &e);
    e -= 1;
    if (e < 1 - f.bias)
        return (uint16_t)(sign | (uint16_t)n);
    uint16_t frac = (uint16_t)((uint32_t)ldexp(r, f.man - e) - (1u << f.man));
    return (uint16_t)(sign | (e + f.bias) << f.man | frac);
}

/* .ftz on a half: a subnormal becomes a zero of its sign. */
static uint16_t ftz(uint16_t h, struct hfmt f)
{
    return ((h >> f.man) & emax_of(f)) == 0 ? h & 0x8000 : h;
}

/* a * b + c rounded to odd at double's width: exact where it fits, else
 * with its last bit set, on the side of the exact value */
static double fma_odd(double a, double b, double c)
{
    double s = a * b, r = s + c;        /* a * b is exact: two halves' fractions */
    if (isinf(r) || r != r)
        return r;
    double bb = r - s, err = (s - (r - bb)) + (c - bb);
    uint64_t u;
    memcpy(&u, &r, 8);
    if (err != 0 && !(u & 1))
        r = nextafter(r, err > 0 ? INFINITY : -INFINITY);
    return r;
}

/* PTX min/max on halves: a NaN operand yields the other; -0 < +0. */
static uint16_t hminmax(uint16_t x, uint16_t y, struct hfmt f, int max)
{
    if (is_nan_half(x, f))
        return is_nan_half(y, f) ? HNAN : y;
    if (is_nan_half(y, f))
        return x;
    double a = half_value(x, f), b = half_value(y, f);
    if (a == b)
        return (uint16_t)(((x & 0x8000) != 0) == max ? y : x);
    return (a < b) != max ? x : y;
}

/* One half of IN's arithmetic on the halves X, Y, Z. */
static uint16_t half_op(const struct emu_insn *in, uint16_t x, uint16_t y, uint16_t z)
{
    struct hfmt f = fmt_of(in->type);
    int fz = (in->flags & F_FTZ) != 0;
    if (fz) {
        x = ftz(x, f);
        y = ftz(y, f);
        z = ftz(z, f);
    }
    double a = half_value(x, f), b = half_value(y, f), c = half_value(z, f), r;
    switch (in->op) {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_FMA: case OP_MAD: r = fma_odd(a, b, c); break;
    case OP_MIN: case OP_MAX:
        if ((in->flags & F_NANP) && (is_nan_half(x, f) || is_nan_half(y, f)))
            return HNAN;
        return hminmax(x, y, f, in->op == OP_MAX);
    case OP_ABS: return is_nan_half(x, f) ? HNAN : x & 0x7fff;
    case OP_NEG: return is_nan_half(x, f) ? HNAN : x ^ 0x8000;
    default: return HNAN;
    }
    if (in->flags & F_SAT)
        r = r != r ? 0.0 : r <= 0.0 ? 0.0 : r > 1.0 ? 1.0 : r;
    /* .relu: a negative result, -0 included, is +0 (the H200's) */
    if ((in->flags & F_RELU) && (r != r || signbit(r)))
        r = r != r ? NAN : 0.0;
    uint16_t h = half_round(r, f, in->rnd);
    return fz ? ftz(h, f) : h;
}


int emu_hops_atom_add(int type, uint32_t old, uint32_t b, uint32_t *sum)
{
    struct hfmt f = fmt_of(type);
    int halves = emu_type_size[type] / 2;
    uint32_t out = 0;
    for (int i = 0; i < halves; i++) {
        uint16_t h = half_round(half_value((uint16_t)(old >> 16 * i), f) + half_value((uint16_t)(b >> 16 * i), f),
                                f, RND_RN);
        if (is_nan_half(h, f))
            return -1;
        out |= (uint32_t)h << 16 * i;
    }
    *sum = out;
    return 0;
}

/* add, sub, mul, fma, min, max, abs, neg: each half of a .x2 on its own */
static void h_arith(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry)
{
    (void)carry;
    uint64_t *d = REG(0);
    const uint64_t *a = REG(1), *b = REG(2), *c = REG(3);
    int two = emu_type_size[in->type] == 4, n = in->nops;
    LANES(mask) {
        uint64_t x = a[l], y = n > 2 ? b[l] : 0, z = n > 3 ? c[l] : 0, v = 0;
        for (int i = 0; i < 1 + two; i++)
            v |= (uint64_t)half_op(in, (uint16_t)(x >> 16 * i), (uint16_t)(y >> 16 * i),
                                   (uint16_t)(z >> 16 * i))
                 << 16 * i;
        d[l] = v;
    }
}

/* IN's comparison of half I of X with half I of Y (format F; .ftz
 * flushes them first) */
static int half_compare(const struct emu_insn *in, struct hfmt f, uint64_t x, uint64_t y, int i)
{
    uint16_t hx = (uint16_t)(x >> 16 * i), hy = (uint16_t)(y >> 16 * i);
    if (in->flags & F_FTZ) {
        hx = ftz(hx, f);
        hy = ftz(hy, f);
    }
    /* an f32 holds every half exactly: compare there */
    float fx = (float)half_value(hx, f), fy = (float)half_value(hy, f);
    uint32_t bx, by;
    memcpy(&bx, &fx, 4);
    memcpy(&by, &fy, 4);
    return emu_compare(in->cmp, T_F32, bx, by);
}

/* setp on halves: one predicate, or a .x2's two (p for the low half, q for
 * the high one) */
static void h_setp(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry)
{
    (void)carry;
    struct hfmt f = fmt_of(in->type);
    int two = in->aux == 2, ai = two ? 2 : 1;
    uint64_t *d = REG(0), *q = two ? REG(1) : NULL;
    const uint64_t *x = REG(ai), *y = REG(ai + 1);
    int pairs = emu_type_size[in->type] == 4;
    LANES(mask) {
        for (int i = 0; i < 1 + pairs; i++) {
            int t = half_compare(in, f, x[l], y[l], i);
            if (!pairs) {
                d[l] = (uint64_t)t;
                if (q)
                    q[l] = (uint64_t)!t;
            } else if (i == 0) {
                d[l] = (uint64_t)t;
            } else if (q) {
                q[l] = (uint64_t)t;
            }
        }
    }
}

/* set on halves: the comparison of a with b, of each half for a .x2
 * source, written as the destination type's true (1.0 for a half, all
 * ones for an integer: each 16-bit half of it for a .x2 source) or 0. */
static void h_set(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry)
{
    (void)carry;
    struct hfmt f = fmt_of(in->type2);
    uint64_t *d = REG(0);
    const uint64_t *x = REG(1), *y = REG(2);
    int pairs = emu_type_size[in->type2] == 4, dst = in->type;
    uint64_t one = dst == T_BF16 || dst == T_BF16X2 ? 0x3f80u
                 : emu_hops_is_half(dst) ? 0x3c00u
                 : pairs || emu_type_size[dst] == 2 ? 0xffffu : 0xffffffffu;
    LANES(mask) {
        uint64_t v = 0;
        for (int i = 0; i < 1 + pairs; i++)
            if (half_compare(in, f, x[l], y[l], i))
                v |= one << 16 * i;
        d[l] = v;
    }
}

/* A half's value as cvt reads its source. */
static double cvt_source(const struct emu_insn *in, uint64_t x)
{
    int src = in->type2;
    if (emu_hops_is_half(src))
        return half_value((uint16_t)x, fmt_of(src));
    if (src == T_F32)
        return emu_f32(x);
    if (src == T_F64)
        return emu_f64(x);
    return emu_type_kind[src] == 's' ? (double)sx(x, src) : (double)(x & wmask(src));
}

/* cvt to or from a half: to a half (a .x2 packs two sources, the first in
 * the high half), from a half to a float (exact) or an integer */
static void h_cvt(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry)
{
    (void)carry;
    uint64_t *d = REG(0);
    const uint64_t *a = REG(1), *b = REG(2);
    int dst = in->type, sat = (in->flags & F_SAT) != 0;
    LANES(mask) {
        if (emu_hops_is_half(dst)) {
            struct hfmt f = fmt_of(dst);
            int pair = emu_type_size[dst] == 4;
            uint64_t v = 0;
            for (int i = 0; i < 1 + pair; i++) {
                /* cvt.rn.f16x2.f32 d, a, b: a to the high half, b to the low */
                double s = cvt_source(in, pair ? (i ? a[l] : b[l]) : a[l]);
                if (sat)
                    s = s != s ? 0.0 : s <= 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
                if ((in->flags & F_RELU) && (s != s || signbit(s)))
                    s = s != s ? NAN : 0.0;
                uint16_t h = half_round(s, f, in->rnd);
                if (in->flags & F_FTZ)
                    h = ftz(h, f);
                v |= (uint64_t)h << 16 * i;
            }
            d[l] = v;
            continue;
        }
        struct hfmt f = fmt_of(in->type2);
        uint16_t h = (uint16_t)a[l];
        if (in->flags & F_FTZ)
            h = ftz(h, f);
        double s = half_value(h, f);
        if (dst == T_F32 && in->type2 == T_BF16) {
            /* a bf16 is an f32's top half: the H200 widens a NaN's bits
             * as they are, sign and payload (tests/device/emu-diff.sh) */
            d[l] = is_nan_half(h, f) ? (uint64_t)h << 16 : emu_b32((float)s);
        } else if (dst == T_F32) {
            d[l] = is_nan_half(h, f) ? 0x7fffffffu : emu_b32((float)s);
        } else {
            /* to an integer: the float-to-integer rules of cvt, from the
             * value as an f32 (which holds it exactly) */
            struct emu_insn as32 = *in;
            as32.type2 = T_F32;
            uint64_t bits = emu_b32((float)s), out;
            emu_cvt(&as32, &out, &bits, 1u);
            d[l] = out;
        }
    }
}

/* Picks the handler of the half-float form IN; NULL when there is none. */
emu_alu_fn *emu_hops_select(const struct emu_insn *in)
{
    switch (in->op) {
    case OP_CVT:
        if (emu_hops_is_half(in->type) && in->nops == 3 && emu_type_size[in->type] != 4)
            return NULL;
        if (in->nops == 3 && !emu_hops_is_half(in->type))
            return NULL;
        /* a half to f64: what the GPU does with a NaN's bits is not
         * measured, and the emulator does not guess */
        if (in->type == T_F64 && emu_hops_is_half(in->type2))
            return NULL;
        if (emu_hops_is_half(in->type) && emu_type_size[in->type] == 4 && in->nops != 3)
            return NULL;    /* a pair from one source: no such form */
        return h_cvt;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_FMA: case OP_MAD: case OP_MIN:
    case OP_MAX: case OP_ABS: case OP_NEG:
        if ((in->flags & F_NANP) && in->op != OP_MIN && in->op != OP_MAX)
            return NULL;
        return h_arith;
    case OP_SETP:
        if (in->cmp2)
            return NULL;
        return h_setp;
    case OP_SET:
        /* a half source; the destination a half (of its width) or an
         * integer; no BoolOp */
        if (in->cmp2 || !emu_hops_is_half(in->type2) ||
            (emu_hops_is_half(in->type) && emu_type_size[in->type] != emu_type_size[in->type2]) ||
            (!emu_hops_is_half(in->type) && in->type != T_U32 && in->type != T_S32 &&
             in->type != T_U16 && in->type != T_S16) ||
            (emu_type_size[in->type2] == 4 && (in->type == T_U16 || in->type == T_S16)))
            return NULL;
        return h_set;
    default:
        return NULL;
    }
}
