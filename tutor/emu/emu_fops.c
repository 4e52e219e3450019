/* emu_fops.c — the float half of the ALU: arithmetic in the
 * instruction's rounding mode (directed modes switch the host's around the
 * whole instruction), .ftz and .sat, PTX's min/max and NaN rules, comparisons
 * ordered and unordered, and cvt between every integer and float type.
 *
 * A NaN result has the H100's bits, where the ISA leaves them open
 * (tests/device/emu-diff.sh holds these to the GPU): an f32 one is always
 * 0x7fffffff, abs and neg included; an f64 one is a NaN operand's (nan64
 * says which), quietened and with its sign (neg and abs do not touch it), or
 * 0xfff8000000000000 when no operand was a NaN (0/0, inf-inf); cvt moves a
 * NaN's payload between the widths (f32 to f64 shifted up 29 bits, f64 to
 * f32 its top 22 bits), quietened, sign kept. */
#include "emu/emu_fops.h"
#include "emu/emu_lanes.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

enum { NAN32 = 0x7fffffffu };
#define QUIET64 0x0008000000000000ull
#define NAN64 0xfff8000000000000ull   /* an invalid operation's, the GPU's */

static int isnan32(uint64_t x)
{
    return ((uint32_t)x & 0x7fffffffu) > 0x7f800000u;
}

/* The f64 NaN an operation OP on X, Y, Z (0 where absent) returns: one NaN
 * operand's, quietened, by the H100's order (fma and mad: b, then c, then
 * a; div: a, then b; the others: the last); none, the invalid
 * operation's. */
static uint64_t nan64(int op, uint64_t x, uint64_t y, uint64_t z)
{
    uint64_t order[3] = {z, y, x};
    if (op == OP_FMA || op == OP_MAD) {
        order[0] = y;
        order[1] = z;
        order[2] = x;
    } else if (op == OP_DIV) {
        order[0] = x;
        order[1] = y;
        order[2] = 0;
    }
    for (int i = 0; i < 3; i++)
        if (emu_isnan64(order[i]))
            return order[i] | QUIET64;
    return NAN64;
}

/* cvt's NaN payloads: f32 to f64 shifted up, f64 to f32 its top bits. */
static uint64_t nan32to64(uint64_t x)
{
    return (uint64_t)((uint32_t)x >> 31) << 63 | 0x7ff0000000000000ull | QUIET64 |
           (uint64_t)((uint32_t)x & 0x7fffffu) << 29;
}

static uint64_t nan64to32(uint64_t x)
{
    return (uint32_t)(x >> 63) << 31 | 0x7fc00000u | (uint32_t)((x >> 29) & 0x3fffffu);
}

/* .sat: into [+0.0, 1.0]; a NaN and -0.0 become +0.0, as on the H100. */
static float sat32(float f)
{
    if (f != f)
        return 0.0f;
    return f <= 0.0f ? 0.0f : (f > 1.0f ? 1.0f : f);
}

static double sat64(double d)
{
    if (d != d)
        return 0.0;
    return d <= 0.0 ? 0.0 : (d > 1.0 ? 1.0 : d);
}

static int host_round(int rnd)
{
    switch (rnd) {
    case RND_RZ: return FE_TOWARDZERO;
    case RND_RM: return FE_DOWNWARD;
    case RND_RP: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

/* PTX min (MAX 0) or max (MAX 1) on floats: a NaN operand yields the
 * other; -0 < +0.  One function for both widths: a float widened to double
 * keeps its value and sign, so the f32 result is this one narrowed. */
static double fminmax(double a, double b, int max)
{
    if (a != a)
        return b != b ? NAN : b;
    if (b != b)
        return a;
    if (a == b)
        return (signbit(a) != 0) == max ? b : a;
    return (a < b) != max ? a : b;
}

/* A comparison of two integers (signed or not by TYPE) or floats. */
int emu_compare(int cmp, int type, uint64_t x, uint64_t y)
{
    char k = emu_type_kind[type];
    if (k == 'f') {
        double a = emu_type_size[type] == 4 ? emu_f32(x) : emu_f64(x);
        double b = emu_type_size[type] == 4 ? emu_f32(y) : emu_f64(y);
        int un = a != a || b != b;
        switch (cmp) {
        case CMP_EQ: return !un && a == b;
        case CMP_NE: return !un && a != b;
        case CMP_LT: return !un && a < b;
        case CMP_LE: return !un && a <= b;
        case CMP_GT: return !un && a > b;
        case CMP_GE: return !un && a >= b;
        case CMP_EQU: return un || a == b;
        case CMP_NEU: return un || a != b;
        case CMP_LTU: return un || a < b;
        case CMP_LEU: return un || a <= b;
        case CMP_GTU: return un || a > b;
        case CMP_GEU: return un || a >= b;
        case CMP_NUM: return !un;
        case CMP_NAN: return un;
        default: return 0;
        }
    }
    int64_t a = sx(x, type), b = sx(y, type);
    uint64_t ua = x & wmask(type), ub = y & wmask(type);
    switch (cmp) {
    case CMP_EQ: return ua == ub;
    case CMP_NE: return ua != ub;
    case CMP_LT: return k == 's' ? a < b : ua < ub;
    case CMP_LE: return k == 's' ? a <= b : ua <= ub;
    case CMP_GT: return k == 's' ? a > b : ua > ub;
    case CMP_GE: return k == 's' ? a >= b : ua >= ub;
    case CMP_LO: return ua < ub;
    case CMP_LS: return ua <= ub;
    case CMP_HI: return ua > ub;
    case CMP_HS: return ua >= ub;
    default: return 0;
    }
}

/* Float to integer with cvt's rounding, saturating to DST's range (NaN: 0;
 * cvt_one gives the NaNs that are not). */
static uint64_t f2i(double v, int rnd, int dst)
{
    switch (rnd) {
    case RND_RZI: case RND_RZ: case RND_NONE: v = trunc(v); break;
    case RND_RMI: case RND_RM: v = floor(v); break;
    case RND_RPI: case RND_RP: v = ceil(v); break;
    default: v = nearbyint(v); break;
    }
    if (v != v)
        return 0;
    int sz = emu_type_size[dst];
    if (emu_type_kind[dst] == 's') {
        double lo = -ldexp(1.0, sz * 8 - 1), hi = ldexp(1.0, sz * 8 - 1);
        if (v < lo)
            return (uint64_t)(int64_t)lo & wmask(dst);
        if (v >= hi)
            return ((uint64_t)1 << (sz * 8 - 1)) - 1;
        return (uint64_t)(int64_t)v & wmask(dst);
    }
    if (v <= 0)
        return 0;
    if (v >= ldexp(1.0, sz * 8))
        return wmask(dst);
    return (uint64_t)v & wmask(dst);
}

static double round_int(double v, int rnd)
{
    switch (rnd) {
    case RND_RZI: return trunc(v);
    case RND_RMI: return floor(v);
    case RND_RPI: return ceil(v);
    case RND_RNI: return nearbyint(v);
    default: return v;
    }
}

static uint64_t cvt_one(const struct emu_insn *in, uint64_t x)
{
    int dst = in->type, src = in->type2;
    char dk = emu_type_kind[dst], sk = emu_type_kind[src];
    int ftz = (in->flags & F_FTZ) != 0, sat = (in->flags & F_SAT) != 0;
    if (sk != 'f' && dk != 'f') {
        int64_t v = sx(x, src);
        uint64_t uv = x & wmask(src);
        if (sat) {
            int dsz = emu_type_size[dst];
            if (dk == 's') {
                int64_t hi = dsz >= 8 ? INT64_MAX : (int64_t)((1ull << (dsz * 8 - 1)) - 1);
                int64_t lo = -hi - 1;
                if (sk != 's' && uv > (uint64_t)hi)
                    return (uint64_t)hi & wmask(dst);
                if (sk == 's' && v > hi)
                    return (uint64_t)hi & wmask(dst);
                if (sk == 's' && v < lo)
                    return (uint64_t)lo & wmask(dst);
            } else {
                if (sk == 's' && v < 0)
                    return 0;
                if (uv > wmask(dst))
                    return wmask(dst);
            }
        }
        return (uint64_t)v & wmask(dst);
    }
    if (sk == 'f' && dk != 'f') {
        double v = emu_type_size[src] == 4 ? (double)(ftz ? emu_ftz32(emu_f32(x)) : emu_f32(x)) : emu_f64(x);
        int dsz = emu_type_size[dst];
        /* A NaN: 0 from f32 to 32 bits; from f64, or to 64 bits, the sign
         * bit alone, signed or not (the H100's, tests/emu_zoo.sh) */
        if (v != v && (emu_type_size[src] == 8 || dsz == 8) && dsz >= 4)
            return 1ull << (dsz * 8 - 1);
        return f2i(v, in->rnd, dst);
    }
    if (sk != 'f') {    /* integer to float: the host rounds in the current mode */
        if (emu_type_size[dst] == 4) {
            float f = emu_type_kind[src] == 's' ? (float)sx(x, src) : (float)(x & wmask(src));
            if (sat)
                f = sat32(f);
            return emu_b32(f);
        }
        double d = emu_type_kind[src] == 's' ? (double)sx(x, src) : (double)(x & wmask(src));
        if (sat)
            d = sat64(d);
        return emu_b64(d);
    }
    /* float to float */
    if (emu_type_size[src] == 4 && emu_type_size[dst] == 4) {
        float f = ftz ? emu_ftz32(emu_f32(x)) : emu_f32(x);
        f = (float)round_int(f, in->rnd);
        if (sat)
            f = sat32(f);
        if (ftz)
            f = emu_ftz32(f);
        return emu_b32(f);
    }
    if (emu_type_size[src] == 4) {
        float f = ftz ? emu_ftz32(emu_f32(x)) : emu_f32(x);
        if (f != f)
            return sat ? 0 : nan32to64(x);
        double d = round_int(f, in->rnd);
        if (sat)
            d = sat64(d);
        return emu_b64(d);
    }
    double d = round_int(emu_f64(x), in->rnd);
    if (d != d)
        return sat ? 0 : emu_type_size[dst] == 8 ? x | QUIET64 : nan64to32(x);
    if (emu_type_size[dst] == 8) {
        if (sat)
            d = sat64(d);
        return emu_b64(d);
    }
    float f = (float)d;
    if (sat)
        f = sat32(f);
    if (ftz)
        f = emu_ftz32(f);
    return emu_b32(f);
}

/* The float arithmetic of ADD..FMA, RCP, SQRT, DIV at TYPE's width. */
static uint64_t fop(const struct emu_insn *in, uint64_t x, uint64_t y, uint64_t z)
{
    int ftz = (in->flags & F_FTZ) != 0;
    if (emu_type_size[in->type] == 4) {
        float a = emu_f32(x), b = emu_f32(y), c = emu_f32(z), r;
        if (ftz) {
            a = emu_ftz32(a);
            b = emu_ftz32(b);
            c = emu_ftz32(c);
        }
        switch (in->op) {
        case OP_ADD: r = a + b; break;
        case OP_SUB: r = a - b; break;
        case OP_MUL: r = a * b; break;
        case OP_FMA: case OP_MAD: r = fmaf(a, b, c); break;
        case OP_DIV: r = a / b; break;
        case OP_RCP: r = 1.0f / a; break;
        case OP_SQRT: r = sqrtf(a); break;
        case OP_MIN:
        case OP_MAX:
            if ((in->flags & F_NANP) && (a != a || b != b))
                return NAN32;
            r = (float)fminmax(a, b, in->op == OP_MAX);
            break;
        case OP_ABS:
        case OP_NEG: {
            /* the sign bit alone (.ftz flushed a), but a NaN is canonical */
            uint32_t bits;
            memcpy(&bits, &a, 4);
            if (isnan32(bits))
                return NAN32;
            return in->op == OP_ABS ? bits & 0x7fffffffu : bits ^ 0x80000000u;
        }
        case OP_COPYSIGN: {
            /* b's bits with a's sign: a NaN keeps its payload */
            uint32_t ab, bb;
            memcpy(&ab, &a, 4);
            memcpy(&bb, &b, 4);
            return (bb & 0x7fffffffu) | (ab & 0x80000000u);
        }
        default: r = a; break;
        }
        if (in->flags & F_SAT)
            r = sat32(r);
        if (ftz)
            r = emu_ftz32(r);
        return emu_b32(r);
    }
    double a = emu_f64(x), b = emu_f64(y), c = emu_f64(z), r;
    switch (in->op) {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_FMA: case OP_MAD: r = fma(a, b, c); break;
    case OP_DIV: r = a / b; break;
    case OP_RCP: r = 1.0 / a; break;
    case OP_SQRT: r = sqrt(a); break;
    case OP_MIN:
    case OP_MAX:
        r = fminmax(a, b, in->op == OP_MAX);
        return r != r ? 0x7fffffffffffffffull : emu_b64(r);   /* two NaNs */
    case OP_ABS:
    case OP_NEG:
        /* the sign bit alone, but a NaN is only quietened */
        if (emu_isnan64(x))
            return x | QUIET64;
        return in->op == OP_ABS ? x & 0x7fffffffffffffffull : x ^ 0x8000000000000000ull;
    case OP_COPYSIGN:
        /* b's bits with a's sign: a NaN keeps its payload, quiet or not */
        return (y & 0x7fffffffffffffffull) | (x & 0x8000000000000000ull);
    default: r = a; break;
    }
    if (in->flags & F_SAT)
        r = sat64(r);
    if (r != r)
        return nan64(in->op, x, y, z);
    return emu_b64(r);
}

/* testp's test SUB (1 finite, 2 infinite, 3 notanumber, 4 normal,
 * 5 subnormal, 6 number) of X read as TYPE: 0 or 1. */
int emu_testp(int sub, uint64_t x, int type)
{
    double v = emu_type_size[type] == 4 ? emu_f32(x) : emu_f64(x);
    switch (sub) {
    case 1: return isfinite(v);
    case 2: return isinf(v);
    case 3: return isnan(v);
    case 4: return isnormal(v);
    case 5: return fpclassify(v) == FP_SUBNORMAL;
    case 6: return !isnan(v);
    default: return 0;
    }
}

/* Runs IN's conversion over the lanes of MASK. */
void emu_cvt(const struct emu_insn *in, uint64_t *d, const uint64_t *a, uint32_t mask)
{
    /* int to float and float narrowing round in the host's mode */
    int round = host_round(in->rnd), old = 0;
    if (round != FE_TONEAREST) {
        old = fegetround();
        fesetround(round);
    }
    LANES(mask) d[l] = cvt_one(in, a[l]);
    if (round != FE_TONEAREST)
        fesetround(old);
}

/* ---- handlers ------------------------------------------------------------------ */

/* A source operand's lanes, zeros where the form has no such operand (a
 * NaN's bits depend on which operands there are) */
static const uint64_t no_operand[32];
#define SRC(i) (in->nops > (i) ? REG(i) : no_operand)

/* Any float form, in its rounding mode, with its modifiers read per
 * instruction: the forms the fast handlers below do not cover.  Directed
 * modes switch the host's around the whole instruction. */
ALU_FN(f_any)
{
    (void)carry;
    uint64_t *d = REG(0);
    const uint64_t *a = SRC(1), *b = SRC(2), *c = SRC(3);
    int round = host_round(in->rnd), old = 0;
    if (round != FE_TONEAREST) {
        old = fegetround();
        fesetround(round);
    }
    LANES(mask) d[l] = fop(in, a[l], b[l], c[l]);
    if (round != FE_TONEAREST)
        fesetround(old);
}

/* f32 in the default mode, no .ftz or .sat: the host's IEEE operation is
 * the ISA's, and only a NaN's bits need the GPU's canonical value */
#define F32_LANES(name, expr)                                                                       \
    ALU_FN(name)                                                                                    \
    {                                                                                               \
        (void)carry;                                                                                \
        uint64_t *d = REG(0);                                                                       \
        const uint64_t *a = REG(1), *b = REG(2), *c = REG(3);                                       \
        (void)b, (void)c;                                                                           \
        EACH_LANE(mask, d[l] = emu_b32(expr));                                                      \
    }
F32_LANES(f32_add, emu_f32(a[l]) + emu_f32(b[l]))
F32_LANES(f32_sub, emu_f32(a[l]) - emu_f32(b[l]))
F32_LANES(f32_mul, emu_f32(a[l]) * emu_f32(b[l]))
F32_LANES(f32_fma, fmaf(emu_f32(a[l]), emu_f32(b[l]), emu_f32(c[l])))
F32_LANES(f32_min, (float)fminmax(emu_f32(a[l]), emu_f32(b[l]), 0))
F32_LANES(f32_max, (float)fminmax(emu_f32(a[l]), emu_f32(b[l]), 1))

/* f64 in the default mode, no .sat: a NaN result takes an operand's bits
 * by the GPU's order (nan64) */
#define F64_LANES(name, op, expr)                                                                   \
    ALU_FN(name)                                                                                    \
    {                                                                                               \
        (void)carry;                                                                                \
        uint64_t *d = REG(0);                                                                       \
        const uint64_t *a = SRC(1), *b = SRC(2), *c = SRC(3);                                       \
        LANES(mask) {                                                                               \
            double r = (expr);                                                                      \
            d[l] = r != r ? nan64(op, a[l], b[l], c[l]) : emu_b64(r);                               \
        }                                                                                           \
    }
F64_LANES(f64_add, OP_ADD, emu_f64(a[l]) + emu_f64(b[l]))
F64_LANES(f64_sub, OP_SUB, emu_f64(a[l]) - emu_f64(b[l]))
F64_LANES(f64_mul, OP_MUL, emu_f64(a[l]) * emu_f64(b[l]))
F64_LANES(f64_fma, OP_FMA, fma(emu_f64(a[l]), emu_f64(b[l]), emu_f64(c[l])))

/* setp on f32, one comparison and no predicate operand: ordered forms are
 * false on a NaN (the C operators' rule), unordered ones true */
#define SETP_F32(name, expr)                                                                        \
    static inline uint64_t setp_##name##_f32(float a, float b) { return (uint64_t)(expr); }         \
    ALU_FN(setp_f32_##name)                                                                         \
    {                                                                                               \
        (void)carry;                                                                                \
        uint64_t *d = REG(0);                                                                       \
        const uint64_t *x = REG(1), *y = REG(2);                                                    \
        EACH_LANE(mask, d[l] = setp_##name##_f32(emu_f32(x[l]), emu_f32(y[l])));                    \
    }
SETP_F32(eq, a == b)
SETP_F32(ne, a < b || a > b)
SETP_F32(lt, a < b)
SETP_F32(le, a <= b)
SETP_F32(gt, a > b)
SETP_F32(ge, a >= b)
SETP_F32(neu, !(a == b))
SETP_F32(ltu, !(a >= b))
SETP_F32(leu, !(a > b))
SETP_F32(gtu, !(a <= b))
SETP_F32(geu, !(a < b))
#undef SETP_F32

/* Any setp on floats: setp.cmp[.bop].type p[|q], a, b[, c] */
ALU_FN(setp_f_any)
{
    (void)carry;
    int two = in->aux == 2, ai = two ? 2 : 1;
    uint64_t *d = REG(0), *q = two ? REG(1) : NULL;
    const uint64_t *x = REG(ai), *y = REG(ai + 1), *pc = in->cmp2 ? REG(ai + 2) : NULL;
    int pneg = in->cmp2 ? in->o[ai + 2].neg : 0;
    LANES(mask) {
        int t = emu_compare(in->cmp, in->type, x[l], y[l]), pv = pc ? (int)(pc[l] & 1) ^ pneg : 0;
        int nt = !t;
        switch (in->cmp2) {
        case SUB_AND: t &= pv; nt &= pv; break;
        case SUB_OR: t |= pv; nt |= pv; break;
        case SUB_XOR: t ^= pv; nt ^= pv; break;
        default: break;
        }
        d[l] = (uint64_t)t;
        if (q)
            q[l] = (uint64_t)nt;
    }
}

static emu_alu_fn *setp_f32(int cmp)
{
    switch (cmp) {
    case CMP_EQ: return setp_f32_eq;
    case CMP_NE: return setp_f32_ne;
    case CMP_LT: return setp_f32_lt;
    case CMP_LE: return setp_f32_le;
    case CMP_GT: return setp_f32_gt;
    case CMP_GE: return setp_f32_ge;
    case CMP_NEU: return setp_f32_neu;
    case CMP_LTU: return setp_f32_ltu;
    case CMP_LEU: return setp_f32_leu;
    case CMP_GTU: return setp_f32_gtu;
    case CMP_GEU: return setp_f32_geu;
    default: return setp_f_any;
    }
}

/* Picks the handler of the float form IN (f32 or f64); NULL when there is
 * none. */
emu_alu_fn *emu_fops_select(const struct emu_insn *in)
{
    int w = emu_type_size[in->type];
    if ((in->flags & F_NANP) && (w != 4 || (in->op != OP_MIN && in->op != OP_MAX)))
        return NULL;    /* .NaN is min's and max's, on f32 and the halves */
    if (in->flags & F_RELU)
        return NULL;    /* .relu is the halves' and the integers' */
    int plain = (in->rnd == RND_NONE || in->rnd == RND_RN) && !(in->flags & (F_SAT | F_FTZ | F_NANP));
    if (in->op == OP_SETP)
        return w == 4 && !in->cmp2 && in->aux != 2 && !(in->flags & F_FTZ) ? setp_f32(in->cmp)
                                                                             : setp_f_any;
    if (w == 4 && plain) {
        switch (in->op) {
        case OP_ADD: return f32_add;
        case OP_SUB: return f32_sub;
        case OP_MUL: return f32_mul;
        case OP_FMA: case OP_MAD: return f32_fma;
        case OP_MIN: return f32_min;
        case OP_MAX: return f32_max;
        default: break;
        }
    }
    if (w == 8 && plain) {
        switch (in->op) {
        case OP_ADD: return f64_add;
        case OP_SUB: return f64_sub;
        case OP_MUL: return f64_mul;
        case OP_FMA: case OP_MAD: return f64_fma;
        default: break;
        }
    }
    switch (in->op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAD: case OP_FMA: case OP_DIV: case OP_ABS:
    case OP_NEG: case OP_MIN: case OP_MAX: case OP_RCP: case OP_SQRT: case OP_COPYSIGN:
        return f_any;
    default:
        return NULL;
    }
}
