/* emu_ops.c — the ALU: every instruction whose result depends only on its
 * register operands, bit-exact per the PTX ISA, over the lanes of a mask;
 * integers, bits and predicates here, floats in emu_fops.c.  Registers
 * hold a value in their low bits; an operand is read at its type's width
 * and sign-extended where the type is signed, a result written masked to
 * its width. */
#include "emu/emu_ops.h"

static uint64_t popc64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    return (((x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full) * 0x0101010101010101ull) >> 56;
}

static int combine(int op, int a, int b)
{
    switch (op) {
    case SUB_AND: return a & b;
    case SUB_OR: return a | b;
    case SUB_XOR: return a ^ b;
    default: return a;
    }
}

/* bfind: the most significant non-sign bit's position, or all ones. */
static uint64_t bfind(uint64_t x, int type, int shiftamt)
{
    int bits = emu_type_size[type] * 8;
    uint64_t v = x & wmask(type);
    if (emu_type_kind[type] == 's' && (sx(x, type) < 0))
        v = ~v & wmask(type);
    if (!v)
        return 0xffffffffu;
    int pos = 63 - __builtin_clzll(v);
    return shiftamt ? (uint64_t)(bits - 1 - pos) : (uint64_t)pos;
}

static uint64_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
    uint64_t t = ((uint64_t)b << 32) | a;
    uint8_t byte[8];
    for (int i = 0; i < 8; i++)
        byte[i] = (uint8_t)(t >> (8 * i));
    uint32_t r = 0;
    if (!mode) {
        for (int i = 0; i < 4; i++) {
            uint32_t sel = (c >> (4 * i)) & 0xf;
            uint8_t v = byte[sel & 7];
            if (sel & 8)
                v = (v & 0x80) ? 0xff : 0;
            r |= (uint32_t)v << (8 * i);
        }
        return r;
    }
    int n = c & 3;
    static const uint8_t tab[7][4][4] = {
        {{0}},
        {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},   /* f4e */
        {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},   /* b4e */
        {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},   /* rc8 */
        {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},   /* ecl */
        {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},   /* ecr */
        {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},   /* rc16 */
    };
    for (int i = 0; i < 4; i++)
        r |= (uint32_t)byte[tab[mode][n][i]] << (8 * i);
    return r;
}

static uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
    uint32_t r = 0;
    for (int i = 0; i < 8; i++)
        if (lut & (1u << i)) {
            uint32_t ta = (i & 4) ? a : ~a, tb = (i & 2) ? b : ~b, tc = (i & 1) ? c : ~c;
            r |= ta & tb & tc;
        }
    return r;
}

/* bfe's and bfi's position or length operand for a field in BITS bits,
 * clamped to BITS (which changes no result): the 32-bit forms take the low
 * byte, the 64-bit ones the whole word, as the H100 does (the ISA leaves
 * values past 255 open). */
static uint32_t bf_arg(uint64_t v, int bits)
{
    uint32_t n = bits == 64 ? (uint32_t)v : (uint32_t)v & 0xff;
    return n > (uint32_t)bits ? (uint32_t)bits : n;
}

/* The high half of a full product. */
static uint64_t mulhi(uint64_t x, uint64_t y, int type)
{
    int sz = emu_type_size[type];
    if (sz < 8) {
        int64_t p = emu_type_kind[type] == 's' ? sx(x, type) * sx(y, type)
                                                : (int64_t)((x & wmask(type)) * (y & wmask(type)));
        return ((uint64_t)p >> (sz * 8)) & wmask(type);
    }
    if (emu_type_kind[type] == 's')
        return (uint64_t)(((__int128)(int64_t)x * (int64_t)y) >> 64);
    return (uint64_t)(((unsigned __int128)x * y) >> 64);
}

static uint64_t mulwide(uint64_t x, uint64_t y, int type)
{
    if (emu_type_kind[type] == 's')
        return (uint64_t)(sx(x, type) * sx(y, type));
    return (x & wmask(type)) * (y & wmask(type));
}

/* div and rem; by zero both are all ones, as on the H100 (the ISA leaves
 * it to the machine). */
static uint64_t idiv(uint64_t x, uint64_t y, int type, int rem)
{
    uint64_t m = wmask(type);
    if ((y & m) == 0)
        return m;
    if (emu_type_kind[type] == 's') {
        int64_t a = sx(x, type), b = sx(y, type);
        if (b == -1)
            return rem ? 0 : (uint64_t)(-(uint64_t)a) & m;
        return (uint64_t)(rem ? a % b : a / b) & m;
    }
    uint64_t a = x & m, b = y & m;
    return rem ? a % b : a / b;
}

/* Runs one ALU instruction over the lanes of MASK: 0, or -1 when IN is no
 * ALU form (the caller reports it). */
int emu_alu(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry)
{
    uint64_t *d = R + (size_t)in->o[0].reg * 32;
    uint64_t *a = in->nops > 1 && in->o[1].kind == OK_REG ? R + (size_t)in->o[1].reg * 32 : NULL;
    uint64_t *b = in->nops > 2 && in->o[2].kind == OK_REG ? R + (size_t)in->o[2].reg * 32 : NULL;
    uint64_t *c = in->nops > 3 && in->o[3].kind == OK_REG ? R + (size_t)in->o[3].reg * 32 : NULL;
    int type = in->type;
    uint64_t m = wmask(type);
    char k = emu_type_kind[type];
    int op = in->op;
    int isf = k == 'f';
    switch (op) {
    case OP_MOV:
        if (in->o[1].kind == OK_VEC) {     /* pack {lo, hi} */
            int n = in->o[1].n, w = emu_type_size[type] * 8 / n;
            LANES(mask) {
                uint64_t v = 0;
                for (int i = 0; i < n; i++)
                    v |= (R[(size_t)in->o[1].vec[i] * 32 + l] & ((w >= 64) ? ~0ull : ((1ull << w) - 1)))
                         << (w * i);
                d[l] = v;
            }
            return 0;
        }
        if (in->o[0].kind == OK_VEC) {     /* unpack */
            int n = in->o[0].n, w = emu_type_size[type] * 8 / n;
            LANES(mask) {
                uint64_t v = a[l];
                for (int i = 0; i < n; i++)
                    R[(size_t)in->o[0].vec[i] * 32 + l] = (v >> (w * i)) & ((1ull << w) - 1);
                R[l] = 0;   /* the sink */
            }
            return 0;
        }
        LANES(mask) d[l] = a[l] & m;
        return 0;
    case OP_ADD:
    case OP_SUB:
        if (isf)
            break;
        if (in->flags & F_SAT) {    /* add.sat.s32 */
            LANES(mask) {
                int64_t r = op == OP_ADD ? sx(a[l], T_S32) + sx(b[l], T_S32)
                                         : sx(a[l], T_S32) - sx(b[l], T_S32);
                r = r > INT32_MAX ? INT32_MAX : (r < INT32_MIN ? INT32_MIN : r);
                d[l] = (uint64_t)r & m;
            }
            return 0;
        }
        if (in->flags & F_CC) {
            int bits = emu_type_size[type] * 8;
            LANES(mask) {
                uint64_t x = a[l] & m, y = b[l] & m;
                uint64_t r = op == OP_ADD ? x + y : x - y;
                int cf = op == OP_ADD ? (bits == 64 ? r < x : (r >> bits) & 1) : x < y;
                d[l] = r & m;
                carry[l] = (uint32_t)cf;
            }
            return 0;
        }
        if (op == OP_ADD) {
            LANES(mask) d[l] = (a[l] + b[l]) & m;
        } else {
            LANES(mask) d[l] = (a[l] - b[l]) & m;
        }
        return 0;
    case OP_ADDC:
    case OP_SUBC: {
        int bits = emu_type_size[type] * 8;
        LANES(mask) {
            uint64_t x = a[l] & m, y = b[l] & m, ci = carry[l];
            uint64_t r;
            int cf;
            if (op == OP_ADDC) {
                r = x + y + ci;
                cf = bits == 64 ? (r < x || (ci && r == x)) : (int)((r >> bits) & 1);
            } else {
                r = x - y - ci;
                cf = x < y || (x - y) < ci;
            }
            d[l] = r & m;
            if (in->flags & F_CC)
                carry[l] = (uint32_t)cf;
        }
        return 0;
    }
    case OP_MUL:
        if (isf)
            break;
        if (in->flags & F_WIDE) {
            LANES(mask) d[l] = mulwide(a[l], b[l], type);
        } else if (in->flags & F_HI) {
            LANES(mask) d[l] = mulhi(a[l], b[l], type);
        } else {
            LANES(mask) d[l] = (a[l] * b[l]) & m;
        }
        return 0;
    case OP_MAD:
        if (isf)
            break;
        if (in->flags & F_WIDE) {
            LANES(mask) d[l] = mulwide(a[l], b[l], type) + c[l];
        } else if (in->flags & F_CC) {
            int bits = emu_type_size[type] * 8;
            int hi = (in->flags & F_HI) != 0;
            LANES(mask) {
                uint64_t p = hi ? mulhi(a[l], b[l], type) : (a[l] * b[l]) & m;
                uint64_t r = p + (c[l] & m);
                carry[l] = bits == 64 ? r < p : (uint32_t)((r >> bits) & 1);
                d[l] = r & m;
            }
        } else if (in->flags & F_HI) {
            LANES(mask) d[l] = (mulhi(a[l], b[l], type) + c[l]) & m;
        } else {
            LANES(mask) d[l] = (a[l] * b[l] + c[l]) & m;
        }
        return 0;
    case OP_MADC: {
        int bits = emu_type_size[type] * 8;
        LANES(mask) {
            uint64_t p = (in->flags & F_HI) ? mulhi(a[l], b[l], type) : (a[l] * b[l]) & m;
            uint64_t ci = carry[l];
            uint64_t r = p + (c[l] & m) + ci;
            int cf = bits == 64 ? (r < p || (r == p && (c[l] | ci))) : (int)((r >> bits) & 1);
            d[l] = r & m;
            if (in->flags & F_CC)
                carry[l] = (uint32_t)cf;
        }
        return 0;
    }
    case OP_MUL24:
        LANES(mask) {
            int64_t x = k == 's' ? sx(a[l] << 8, T_S32) >> 8 : (int64_t)(a[l] & 0xffffff);
            int64_t y = k == 's' ? sx(b[l] << 8, T_S32) >> 8 : (int64_t)(b[l] & 0xffffff);
            uint64_t p = (uint64_t)(x * y);
            d[l] = (in->flags & F_HI) ? (p >> 16) & m : p & m;
        }
        return 0;
    case OP_SAD:
        /* c + |a - b|, the difference taken at the type's width and sign */
        if (isf)
            break;
        LANES(mask) {
            int lt = emu_compare(CMP_LT, type, a[l], b[l]);
            d[l] = ((lt ? b[l] - a[l] : a[l] - b[l]) + c[l]) & m;
        }
        return 0;
    case OP_DIV:
        if (isf)
            break;
        LANES(mask) d[l] = idiv(a[l], b[l], type, 0);
        return 0;
    case OP_REM:
        LANES(mask) d[l] = idiv(a[l], b[l], type, 1);
        return 0;
    case OP_ABS:
        if (isf)
            break;
        LANES(mask) {
            int64_t v = sx(a[l], type);
            d[l] = (v < 0 ? 0 - (uint64_t)v : (uint64_t)v) & m;
        }
        return 0;
    case OP_NEG:
        if (isf)
            break;
        LANES(mask) d[l] = (0 - a[l]) & m;
        return 0;
    case OP_MIN:
    case OP_MAX:
        if (isf)
            break;
        LANES(mask) {
            int lt = emu_compare(CMP_LT, type, a[l], b[l]);
            d[l] = (op == OP_MIN) == lt ? a[l] & m : b[l] & m;
        }
        return 0;
    case OP_POPC:
        LANES(mask) d[l] = popc64(a[l] & m);
        return 0;
    case OP_CLZ: {
        int bits = emu_type_size[type] * 8;
        LANES(mask) {
            uint64_t v = a[l] & m;
            d[l] = v ? (uint64_t)(__builtin_clzll(v) - (64 - bits)) : (uint64_t)bits;
        }
        return 0;
    }
    case OP_BREV: {
        int bits = emu_type_size[type] * 8;
        LANES(mask) {
            uint64_t v = a[l], r = 0;
            for (int i = 0; i < bits; i++)
                r |= ((v >> i) & 1) << (bits - 1 - i);
            d[l] = r;
        }
        return 0;
    }
    case OP_BFE: {
        int bits = emu_type_size[type] * 8;
        LANES(mask) {
            uint32_t pos = bf_arg(b[l], bits), len = bf_arg(c[l], bits);
            uint64_t v = a[l] & m, r;
            int sbit;
            if (k == 's') {
                uint32_t top = pos + len - 1 > (uint32_t)bits - 1 ? (uint32_t)bits - 1 : pos + len - 1;
                sbit = len == 0 ? 0 : (int)((v >> top) & 1);
            } else {
                sbit = 0;
            }
            r = 0;
            for (uint32_t i = 0; i < (uint32_t)bits; i++) {
                uint64_t bit = (i < len && pos + i < (uint32_t)bits) ? (v >> (pos + i)) & 1 : (uint64_t)sbit;
                r |= bit << i;
            }
            d[l] = r & m;
        }
        return 0;
    }
    case OP_BFI: {
        uint64_t *e4 = in->nops > 4 ? R + (size_t)in->o[4].reg * 32 : NULL;
        int bits = emu_type_size[type] * 8;
        LANES(mask) {
            uint32_t pos = bf_arg(c[l], bits), len = bf_arg(e4[l], bits);
            uint64_t f = b[l] & m;
            for (uint32_t i = 0; i < len && pos + i < (uint32_t)bits; i++) {
                uint64_t bit = (a[l] >> i) & 1;
                f = (f & ~(1ull << (pos + i))) | (bit << (pos + i));
            }
            d[l] = f & m;
        }
        return 0;
    }
    case OP_BFIND:
        LANES(mask) d[l] = bfind(a[l], type, (in->flags & F_SHIFTAMT) != 0);
        return 0;
    case OP_FNS:
        LANES(mask) {
            uint32_t msk = (uint32_t)a[l], base = (uint32_t)b[l];
            int32_t off = (int32_t)(uint32_t)c[l];
            uint32_t r = 0xffffffffu;
            if (off == 0) {
                /* the base bit itself, if it is set */
                if (base < 32 && ((msk >> base) & 1))
                    r = base;
            } else if (off > 0) {
                int cnt = 0;
                for (uint32_t i = base; i < 32; i++)
                    if (((msk >> i) & 1) && ++cnt == off) {
                        r = i;
                        break;
                    }
            } else {
                int cnt = 0;
                for (int i = (int)base; i >= 0; i--)
                    if (((msk >> i) & 1) && --cnt == off) {
                        r = (uint32_t)i;
                        break;
                    }
            }
            d[l] = r;
        }
        return 0;
    case OP_PRMT:
        LANES(mask) d[l] = prmt((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l],
                               (in->flags & F_PRMT_MODE) ? in->aux : 0);
        return 0;
    case OP_SHF: {
        LANES(mask) {
            uint64_t lo = a[l] & 0xffffffffu, hi = b[l] & 0xffffffffu;
            uint32_t n = (uint32_t)c[l];
            n = (in->flags & F_WRAP) ? n & 31 : (n > 32 ? 32 : n);
            uint64_t v = (hi << 32) | lo;
            d[l] = (in->flags & F_LEFT) ? ((v << n) >> 32) & 0xffffffffu : (v >> n) & 0xffffffffu;
        }
        return 0;
    }
    case OP_SHL: {
        int bits = emu_type_size[type] * 8;
        LANES(mask) {
            uint32_t n = (uint32_t)b[l];
            d[l] = n >= (uint32_t)bits ? 0 : (a[l] << n) & m;
        }
        return 0;
    }
    case OP_SHR: {
        int bits = emu_type_size[type] * 8;
        if (k == 's') {
            LANES(mask) {
                uint32_t n = (uint32_t)b[l];
                d[l] = (uint64_t)(sx(a[l], type) >> (n >= (uint32_t)bits ? bits - 1 : (int)n)) & m;
            }
        } else {
            LANES(mask) {
                uint32_t n = (uint32_t)b[l];
                d[l] = n >= (uint32_t)bits ? 0 : (a[l] & m) >> n;
            }
        }
        return 0;
    }
    case OP_AND: LANES(mask) d[l] = a[l] & b[l] & m; return 0;
    case OP_OR: LANES(mask) d[l] = (a[l] | b[l]) & m; return 0;
    case OP_XOR: LANES(mask) d[l] = (a[l] ^ b[l]) & m; return 0;
    case OP_NOT: LANES(mask) d[l] = ~a[l] & m; return 0;
    case OP_CNOT: LANES(mask) d[l] = (a[l] & m) == 0; return 0;
    case OP_LOP3: {
        uint64_t *lut = R + (size_t)in->o[4].reg * 32;
        LANES(mask) d[l] = lop3((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l], (uint32_t)lut[l] & 0xff);
        return 0;
    }
    case OP_SETP: {
        /* setp.cmp[.bop].type p[|q], a, b[, c] */
        int two = in->aux == 2;
        int ai = two ? 2 : 1;
        uint64_t *x = R + (size_t)in->o[ai].reg * 32, *y = R + (size_t)in->o[ai + 1].reg * 32;
        uint64_t *q = two ? R + (size_t)in->o[1].reg * 32 : NULL;
        uint64_t *pc = in->cmp2 ? R + (size_t)in->o[ai + 2].reg * 32 : NULL;
        int pneg = in->cmp2 ? in->o[ai + 2].neg : 0;
        if (!pc && !q && k != 'f') {
            /* the common form: one integer comparison, read at its width */
            int sgn = k == 's' && in->cmp >= CMP_LT && in->cmp <= CMP_GE;
            int sh = 64 - emu_type_size[type] * 8;
#define SETP_INT(OP)                                                                               \
    if (sgn) {                                                                                     \
        LANES(mask) d[l] = ((int64_t)(x[l] << sh) >> sh) OP ((int64_t)(y[l] << sh) >> sh);         \
    } else {                                                                                       \
        LANES(mask) d[l] = (x[l] & m) OP (y[l] & m);                                               \
    }                                                                                              \
    return 0
            switch (in->cmp) {
            case CMP_EQ: SETP_INT(==);
            case CMP_NE: SETP_INT(!=);
            case CMP_LT: case CMP_LO: SETP_INT(<);
            case CMP_LE: case CMP_LS: SETP_INT(<=);
            case CMP_GT: case CMP_HI: SETP_INT(>);
            case CMP_GE: case CMP_HS: SETP_INT(>=);
            default: break;
            }
#undef SETP_INT
        }
        LANES(mask) {
            int t = emu_compare(in->cmp, type, x[l], y[l]);
            if (pc) {
                int pv = (int)(pc[l] & 1) ^ pneg;
                d[l] = (uint64_t)combine(in->cmp2, t, pv);
                if (q)
                    q[l] = (uint64_t)combine(in->cmp2, !t, pv);
            } else {
                d[l] = (uint64_t)t;
                if (q)
                    q[l] = (uint64_t)!t;
            }
        }
        return 0;
    }
    case OP_SET: {
        uint64_t *pc = in->cmp2 ? c : NULL;
        int pneg = in->cmp2 ? in->o[3].neg : 0;
        LANES(mask) {
            int t = emu_compare(in->cmp, in->type2, a[l], b[l]);
            if (pc)
                t = combine(in->cmp2, t, (int)(pc[l] & 1) ^ pneg);
            d[l] = k == 'f' ? (t ? (emu_type_size[type] == 4 ? 0x3f800000u : 0x3ff0000000000000ull) : 0) : (t ? m : 0);
        }
        return 0;
    }
    case OP_SELP: {
        int neg = in->o[3].neg;
        LANES(mask) d[l] = ((c[l] & 1) ^ (uint64_t)neg) ? a[l] & m : b[l] & m;
        return 0;
    }
    case OP_SLCT:
        LANES(mask) {
            int ge = emu_type_kind[in->type2] == 'f' ? !(emu_f32(c[l]) < 0.0f) : sx(c[l], T_S32) >= 0;
            d[l] = ge ? a[l] & m : b[l] & m;
        }
        return 0;
    case OP_CVT:
        emu_cvt(in, d, a, mask);
        return 0;
    case OP_TESTP:
        LANES(mask) d[l] = (uint64_t)emu_testp(in->sub, a[l], type);
        return 0;
    case OP_FMA: case OP_RCP: case OP_SQRT: case OP_RSQRT: case OP_EX2: case OP_LG2:
    case OP_SIN: case OP_COS: case OP_TANH: case OP_COPYSIGN:
        break;
    default:
        return -1;
    }
    if (!isf)
        return -1;
    emu_float_op(in, d, a, b, c, mask);
    return 0;
}
