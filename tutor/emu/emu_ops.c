/* emu_ops.c — the ALU: every instruction whose result depends only on its
 * register operands, bit-exact per the PTX ISA, over the lanes of a mask;
 * integers, bits and predicates here, floats in emu_fops.c, half floats
 * in emu_hops.c.  Registers hold a value in their low bits; an operand is
 * read at its type's width and sign-extended where the type is signed, a
 * result written masked to its width.
 *
 * Each form has its own handler, picked once when the instruction is
 * decoded (emu_alu_select): a handler tests no flag and no type in its
 * lane loop, and a converged warp's 32 lanes run as one plain loop. */
#include "emu/emu_ops.h"

/* ---- handler shapes ----------------------------------------------------------- */

/* A handler computing d[l] = EXPR from the source registers a, b, c, e
 * (those the form lacks are slot 0, never read by its EXPR) and m, the
 * type's bits. */
#define ALU_LANES(name, expr)                                                                       \
    ALU_FN(name)                                                                                    \
    {                                                                                               \
        uint64_t *d = REG(0);                                                                       \
        const uint64_t *a = REG(1), *b = REG(2), *c = REG(3), *e = REG(4);                          \
        const uint64_t m = wmask(in->type);                                                         \
        const int type = in->type;                                                                  \
        (void)a, (void)b, (void)c, (void)e, (void)m, (void)type, (void)carry;                       \
        EACH_LANE(mask, d[l] = (expr));                                                             \
    }

/* ---- scalar helpers ------------------------------------------------------------ */

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

static uint64_t bfe(uint64_t x, uint64_t p, uint64_t n, int type)
{
    int bits = emu_type_size[type] * 8;
    uint32_t pos = bf_arg(p, bits), len = bf_arg(n, bits);
    uint64_t v = x & wmask(type), r = 0;
    int sbit = 0;
    if (emu_type_kind[type] == 's' && len) {
        uint32_t top = pos + len - 1 > (uint32_t)bits - 1 ? (uint32_t)bits - 1 : pos + len - 1;
        sbit = (int)((v >> top) & 1);
    }
    for (uint32_t i = 0; i < (uint32_t)bits; i++) {
        uint64_t bit = (i < len && pos + i < (uint32_t)bits) ? (v >> (pos + i)) & 1 : (uint64_t)sbit;
        r |= bit << i;
    }
    return r & wmask(type);
}

static uint64_t bfi(uint64_t a, uint64_t b, uint64_t p, uint64_t n, int type)
{
    int bits = emu_type_size[type] * 8;
    uint32_t pos = bf_arg(p, bits), len = bf_arg(n, bits);
    uint64_t f = b & wmask(type);
    for (uint32_t i = 0; i < len && pos + i < (uint32_t)bits; i++)
        f = (f & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
    return f & wmask(type);
}

static uint64_t fns(uint32_t msk, uint32_t base, int32_t off)
{
    if (off == 0)   /* the base bit itself, if it is set */
        return base < 32 && ((msk >> base) & 1) ? base : 0xffffffffu;
    int cnt = 0;
    if (off > 0) {
        for (uint32_t i = base; i < 32; i++)
            if (((msk >> i) & 1) && ++cnt == off)
                return i;
    } else {
        for (int i = (int)base; i >= 0; i--)
            if (((msk >> i) & 1) && --cnt == off)
                return (uint32_t)i;
    }
    return 0xffffffffu;
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

/* mul24: the 48-bit product of the operands' low 24 bits (sign-extended
 * when signed); .hi its bits 16..47. */
static uint64_t mul24(uint64_t x, uint64_t y, int type, int hi)
{
    int sgn = emu_type_kind[type] == 's';
    int64_t a = sgn ? sx(x << 8, T_S32) >> 8 : (int64_t)(x & 0xffffff);
    int64_t b = sgn ? sx(y << 8, T_S32) >> 8 : (int64_t)(y & 0xffffff);
    uint64_t p = (uint64_t)(a * b);
    return (hi ? p >> 16 : p) & 0xffffffffu;
}

/* dp4a: c plus the products of a's and b's four bytes; dp2a: of a's two
 * halves and two of b's bytes (.lo the low two, .hi the high two).  A
 * byte or half is signed when its operand's type is. */
static uint64_t dp(uint64_t x, uint64_t y, uint64_t z, int ta, int tb, int halves, int hi)
{
    int sa = emu_type_kind[ta] == 's', sb = emu_type_kind[tb] == 's';
    uint32_t acc = (uint32_t)z;
    for (int i = 0; i < (halves ? 2 : 4); i++) {
        int32_t ea = halves ? (sa ? (int16_t)(x >> (16 * i)) : (uint16_t)(x >> (16 * i)))
                            : (sa ? (int8_t)(x >> (8 * i)) : (uint8_t)(x >> (8 * i)));
        int bi = i + (hi ? 2 : 0);
        int32_t eb = sb ? (int8_t)(y >> (8 * bi)) : (uint8_t)(y >> (8 * bi));
        acc += (uint32_t)(ea * eb);
    }
    return acc;
}

/* ---- two 16-bit integers to a register (__vadd2, __vmaxs2, ...) ---------------- */

/* Each half of X and Y through OP, signed or not: the SIMD intrinsics of
 * the CUDA Math API on sm_90 compile to these packed forms. */
#define PAIR(name, expr)                                                                            \
    static uint64_t name(uint64_t x, uint64_t y, int sgn)                                           \
    {                                                                                               \
        uint32_t r = 0;                                                                             \
        for (int i = 0; i < 2; i++) {                                                               \
            int32_t a = sgn ? (int16_t)(x >> 16 * i) : (uint16_t)(x >> 16 * i);                      \
            int32_t b = sgn ? (int16_t)(y >> 16 * i) : (uint16_t)(y >> 16 * i);                      \
            r |= (uint32_t)(uint16_t)(expr) << 16 * i;                                              \
        }                                                                                           \
        return r;                                                                                   \
    }
PAIR(pair_add, a + b)
PAIR(pair_min, a < b ? a : b)
PAIR(pair_max, a > b ? a : b)
PAIR(pair_min_relu, (a < b ? a : b) < 0 ? 0 : (a < b ? a : b))
PAIR(pair_max_relu, (a > b ? a : b) < 0 ? 0 : (a > b ? a : b))
#undef PAIR
ALU_LANES(add_x2, pair_add(a[l], b[l], 0))
ALU_LANES(min_u16x2, pair_min(a[l], b[l], 0))
ALU_LANES(max_u16x2, pair_max(a[l], b[l], 0))
ALU_LANES(min_s16x2, pair_min(a[l], b[l], 1))
ALU_LANES(max_s16x2, pair_max(a[l], b[l], 1))
ALU_LANES(min_s16x2_relu, pair_min_relu(a[l], b[l], 1))
ALU_LANES(max_s16x2_relu, pair_max_relu(a[l], b[l], 1))

/* vabsdiff4 without selectors or a mask: each byte's |a - b| (signed
 * bytes for .s32 sources), or with .add their sum plus c */
static uint64_t absdiff4(uint64_t x, uint64_t y, uint64_t z, int sgn, int sum)
{
    uint32_t r = 0, t = (uint32_t)z;
    for (int i = 0; i < 4; i++) {
        int32_t a = sgn ? (int8_t)(x >> 8 * i) : (uint8_t)(x >> 8 * i);
        int32_t b = sgn ? (int8_t)(y >> 8 * i) : (uint8_t)(y >> 8 * i);
        uint32_t d = (uint32_t)(a > b ? a - b : b - a);
        r |= (d & 0xff) << 8 * i;
        t += d;
    }
    return sum ? t : r;
}
ALU_LANES(vabsdiff4_u, absdiff4(a[l], b[l], c[l], 0, 0))
ALU_LANES(vabsdiff4_s, absdiff4(a[l], b[l], c[l], 1, 0))
ALU_LANES(vabsdiff4_u_add, absdiff4(a[l], b[l], c[l], 0, 1))
ALU_LANES(vabsdiff4_s_add, absdiff4(a[l], b[l], c[l], 1, 1))

static emu_alu_fn *select_pair(const struct emu_insn *in)
{
    if (in->flags & F_SAT)
        return NULL;
    int sgn = in->type == T_S16X2, relu = (in->flags & F_RELU) != 0;
    if (relu && (!sgn || (in->op != OP_MIN && in->op != OP_MAX)))
        return NULL;    /* .relu is signed min's and max's */
    switch (in->op) {
    case OP_ADD: return add_x2;
    /* no sub on packed halves: ptxas refuses it (__vsub2 negates and adds) */
    case OP_MIN: return relu ? min_s16x2_relu : sgn ? min_s16x2 : min_u16x2;
    case OP_MAX: return relu ? max_s16x2_relu : sgn ? max_s16x2 : max_u16x2;
    default: return NULL;
    }
}

/* ---- data movement ------------------------------------------------------------- */

ALU_LANES(mov_w, a[l] & m)
ALU_LANES(mov_64, a[l])

/* mov d, {lo, hi}: the elements packed from the low end */
ALU_FN(mov_pack)
{
    (void)carry;
    uint64_t *d = REG(0);
    int n = in->o[1].n, w = emu_type_size[in->type] * 8 / n;
    uint64_t em = w >= 64 ? ~0ull : (1ull << w) - 1;
    LANES(mask) {
        uint64_t v = 0;
        for (int i = 0; i < n; i++)
            v |= (R[(size_t)in->o[1].vec[i] * 32 + l] & em) << (w * i);
        d[l] = v;
    }
}

/* mov {lo, hi}, a: unpacked; a '_' element lands in slot 0, cleared after */
ALU_FN(mov_unpack)
{
    (void)carry;
    const uint64_t *a = REG(1);
    int n = in->o[0].n, w = emu_type_size[in->type] * 8 / n;
    LANES(mask) {
        uint64_t v = a[l];
        for (int i = 0; i < n; i++)
            R[(size_t)in->o[0].vec[i] * 32 + l] = (v >> (w * i)) & ((1ull << w) - 1);
        R[l] = 0;
    }
}

/* cvt between integers without .sat: a truncation or a sign- or
 * zero-extension, which the source's width and sign decide */
ALU_FN(cvt_int)
{
    (void)carry;
    uint64_t *d = REG(0);
    const uint64_t *a = REG(1);
    const uint64_t m = wmask(in->type);
    const int src = in->type2;
    EACH_LANE(mask, d[l] = (uint64_t)sx(a[l], src) & m);
}

ALU_FN(cvt_any)
{
    (void)carry;
    emu_cvt(in, REG(0), REG(1), mask);
}

/* ---- integer arithmetic -------------------------------------------------------- */

ALU_LANES(add_32, (uint32_t)(a[l] + b[l]))
ALU_LANES(add_64, a[l] + b[l])
ALU_LANES(add_w, (a[l] + b[l]) & m)
ALU_LANES(sub_32, (uint32_t)(a[l] - b[l]))
ALU_LANES(sub_64, a[l] - b[l])
ALU_LANES(sub_w, (a[l] - b[l]) & m)

static uint64_t sat_s32(int64_t r)
{
    return (uint64_t)(uint32_t)(int32_t)(r > INT32_MAX ? INT32_MAX : (r < INT32_MIN ? INT32_MIN : r));
}
ALU_LANES(add_sat, sat_s32(sx(a[l], T_S32) + sx(b[l], T_S32)))
ALU_LANES(sub_sat, sat_s32(sx(a[l], T_S32) - sx(b[l], T_S32)))

/* add.cc / sub.cc: the carry (borrow) out of the type's width */
ALU_FN(add_cc)
{
    uint64_t *d = REG(0);
    const uint64_t *a = REG(1), *b = REG(2);
    uint64_t m = wmask(in->type);
    int bits = emu_type_size[in->type] * 8;
    LANES(mask) {
        uint64_t x = a[l] & m, y = b[l] & m, r = x + y;
        carry[l] = bits == 64 ? r < x : (uint32_t)((r >> bits) & 1);
        d[l] = r & m;
    }
}

ALU_FN(sub_cc)
{
    uint64_t *d = REG(0);
    const uint64_t *a = REG(1), *b = REG(2);
    uint64_t m = wmask(in->type);
    LANES(mask) {
        uint64_t x = a[l] & m, y = b[l] & m;
        carry[l] = x < y;
        d[l] = (x - y) & m;
    }
}

/* addc / subc with the carry in; .cc writes the carry out */
static void addc_run(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry, int sub,
                     int cc)
{
    uint64_t *d = REG(0);
    const uint64_t *a = REG(1), *b = REG(2);
    uint64_t m = wmask(in->type);
    int bits = emu_type_size[in->type] * 8;
    LANES(mask) {
        uint64_t x = a[l] & m, y = b[l] & m, ci = carry[l], r;
        int cf;
        if (!sub) {
            r = x + y + ci;
            cf = bits == 64 ? (r < x || (ci && r == x)) : (int)((r >> bits) & 1);
        } else {
            r = x - y - ci;
            cf = x < y || (x - y) < ci;
        }
        d[l] = r & m;
        if (cc)
            carry[l] = (uint32_t)cf;
    }
}
ALU_FN(addc) { addc_run(in, R, mask, carry, 0, 0); }
ALU_FN(addc_cc) { addc_run(in, R, mask, carry, 0, 1); }
ALU_FN(subc) { addc_run(in, R, mask, carry, 1, 0); }
ALU_FN(subc_cc) { addc_run(in, R, mask, carry, 1, 1); }

ALU_LANES(mul_lo32, (uint32_t)(a[l] * b[l]))
ALU_LANES(mul_lo64, a[l] * b[l])
ALU_LANES(mul_low, (a[l] * b[l]) & m)
ALU_LANES(mul_wide, mulwide(a[l], b[l], type))
ALU_LANES(mul_wideu32, (uint64_t)(uint32_t)a[l] * (uint32_t)b[l])
ALU_LANES(mul_wides32, (uint64_t)((int64_t)(int32_t)a[l] * (int32_t)b[l]))
ALU_LANES(mul_hi, mulhi(a[l], b[l], type))
ALU_LANES(mad_lo32, (uint32_t)(a[l] * b[l] + c[l]))
ALU_LANES(mad_lo64, a[l] * b[l] + c[l])
ALU_LANES(mad_low, (a[l] * b[l] + c[l]) & m)
ALU_LANES(mad_wide, mulwide(a[l], b[l], type) + c[l])
ALU_LANES(mad_hi, (mulhi(a[l], b[l], type) + c[l]) & m)

/* mad.cc and madc: the carry out of the sum's width (madc adds the carry
 * in, and writes the carry out only with .cc) */
static void madc_run(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry,
                     int cin, int cc)
{
    uint64_t *d = REG(0);
    const uint64_t *a = REG(1), *b = REG(2), *c = REG(3);
    uint64_t m = wmask(in->type);
    int bits = emu_type_size[in->type] * 8, hi = (in->flags & F_HI) != 0;
    LANES(mask) {
        uint64_t p = hi ? mulhi(a[l], b[l], in->type) : (a[l] * b[l]) & m;
        uint64_t ci = cin ? carry[l] : 0, r = p + (c[l] & m) + ci;
        int cf = bits == 64 ? (r < p || (r == p && ((c[l] & m) | ci))) : (int)((r >> bits) & 1);
        d[l] = r & m;
        if (cc)
            carry[l] = (uint32_t)cf;
    }
}
ALU_FN(mad_cc) { madc_run(in, R, mask, carry, 0, 1); }
ALU_FN(madc) { madc_run(in, R, mask, carry, 1, 0); }
ALU_FN(madc_cc) { madc_run(in, R, mask, carry, 1, 1); }

ALU_LANES(mul24_lo, mul24(a[l], b[l], type, 0))
ALU_LANES(mul24_hi, mul24(a[l], b[l], type, 1))
ALU_LANES(mad24_lo, (uint32_t)(mul24(a[l], b[l], type, 0) + c[l]))
ALU_LANES(mad24_hi, (uint32_t)(mul24(a[l], b[l], type, 1) + c[l]))
/* mad24.hi.sat.s32: the sum of the high part and c, clamped to s32 */
ALU_LANES(mad24_hi_sat, sat_s32((int64_t)(int32_t)mul24(a[l], b[l], type, 1) + sx(c[l], T_S32)))
ALU_LANES(dp4a, dp(a[l], b[l], c[l], in->type, in->type2, 0, 0))
ALU_LANES(dp2a_lo, dp(a[l], b[l], c[l], in->type, in->type2, 1, 0))
ALU_LANES(dp2a_hi, dp(a[l], b[l], c[l], in->type, in->type2, 1, 1))

/* sad: c + |a - b|, the difference taken at the type's width and sign */
ALU_LANES(sad, ((emu_compare(CMP_LT, type, a[l], b[l]) ? b[l] - a[l] : a[l] - b[l]) + c[l]) & m)
ALU_LANES(div_int, idiv(a[l], b[l], type, 0))
ALU_LANES(rem_int, idiv(a[l], b[l], type, 1))
/* idiv's 32-bit forms, the type's tests made at decode */
ALU_LANES(div_u32_lanes, (uint32_t)b[l] ? (uint32_t)a[l] / (uint32_t)b[l] : 0xffffffffu)
ALU_LANES(rem_u32_lanes, (uint32_t)b[l] ? (uint32_t)a[l] % (uint32_t)b[l] : 0xffffffffu)

/* The power of two every lane of MASK divides by (b), or 0 when they
 * differ or it is none: a tree's `tid % (2 * s)` and `i / 32` divide a
 * warp by one such number, and a shift or a mask is a tenth of a divide. */
static inline uint32_t uniform_pow2(const uint64_t *b, uint32_t mask)
{
    if (!mask)
        return 0;
    uint32_t b0 = (uint32_t)b[__builtin_ctz(mask)], differ = 0;
    if (!b0 || (b0 & (b0 - 1)))
        return 0;
    EACH_LANE(mask, differ |= (uint32_t)b[l] ^ b0);
    return differ ? 0 : b0;
}

/* NAME: LANES's division, or, by a power of two P that the warp shares,
 * EXPR (which reads a[l] and P) in its place. */
#define DIV_POW2(name, lanes, expr)                                                                 \
    ALU_FN(name)                                                                                    \
    {                                                                                               \
        uint64_t *d = REG(0);                                                                       \
        const uint64_t *a = REG(1), *b = REG(2);                                                    \
        uint32_t p = uniform_pow2(b, mask);                                                         \
        if (!p) {                                                                                   \
            lanes(in, R, mask, carry);                                                              \
            return;                                                                                 \
        }                                                                                           \
        EACH_LANE(mask, d[l] = (expr));                                                             \
    }
DIV_POW2(div_u32, div_u32_lanes, (uint32_t)a[l] >> __builtin_ctz(p))
DIV_POW2(rem_u32, rem_u32_lanes, (uint32_t)a[l] & (p - 1))
#undef DIV_POW2
ALU_LANES(div_s32, !(uint32_t)b[l] ? 0xffffffffu
                   : (int32_t)b[l] == -1 ? 0u - (uint32_t)a[l]
                   : (uint32_t)((int32_t)a[l] / (int32_t)b[l]))
ALU_LANES(rem_s32, !(uint32_t)b[l] ? 0xffffffffu
                   : (int32_t)b[l] == -1 ? 0u
                   : (uint32_t)((int32_t)a[l] % (int32_t)b[l]))
static uint64_t iabs(uint64_t x, int type)
{
    int64_t v = sx(x, type);
    return (v < 0 ? 0 - (uint64_t)v : (uint64_t)v) & wmask(type);
}
ALU_LANES(abs_int, iabs(a[l], type))
ALU_LANES(neg_int, (0 - a[l]) & m)
ALU_LANES(min_int, emu_compare(CMP_LT, type, a[l], b[l]) ? a[l] & m : b[l] & m)
ALU_LANES(max_int, emu_compare(CMP_LT, type, a[l], b[l]) ? b[l] & m : a[l] & m)
ALU_LANES(min_s32, (uint32_t)((int32_t)a[l] < (int32_t)b[l] ? a[l] : b[l]))
ALU_LANES(max_s32, (uint32_t)((int32_t)a[l] > (int32_t)b[l] ? a[l] : b[l]))
/* .relu: a negative result is 0 (__vimax_s32_relu and the like) */
static uint32_t relu32(int32_t v)
{
    return v < 0 ? 0u : (uint32_t)v;
}
ALU_LANES(min_s32_relu, relu32((int32_t)a[l] < (int32_t)b[l] ? (int32_t)a[l] : (int32_t)b[l]))
ALU_LANES(max_s32_relu, relu32((int32_t)a[l] > (int32_t)b[l] ? (int32_t)a[l] : (int32_t)b[l]))
ALU_LANES(min_u32, (uint32_t)a[l] < (uint32_t)b[l] ? (uint32_t)a[l] : (uint32_t)b[l])
ALU_LANES(max_u32, (uint32_t)a[l] > (uint32_t)b[l] ? (uint32_t)a[l] : (uint32_t)b[l])

/* ---- bits ---------------------------------------------------------------------- */

ALU_LANES(popc, popc64(a[l] & m))
static uint64_t clz(uint64_t v, int bits)
{
    return v ? (uint64_t)(__builtin_clzll(v) - (64 - bits)) : (uint64_t)bits;
}
ALU_LANES(clz_w, clz(a[l] & m, emu_type_size[type] * 8))
static uint64_t brev(uint64_t v, int bits)
{
    uint64_t r = 0;
    for (int i = 0; i < bits; i++)
        r |= ((v >> i) & 1) << (bits - 1 - i);
    return r;
}
ALU_LANES(brev_w, brev(a[l], emu_type_size[type] * 8))
ALU_LANES(bfe_w, bfe(a[l], b[l], c[l], type))
ALU_LANES(bfi_w, bfi(a[l], b[l], c[l], e[l], type))
ALU_LANES(bfind_w, bfind(a[l], type, 0))
ALU_LANES(bfind_sa, bfind(a[l], type, 1))
ALU_LANES(fns_w, fns((uint32_t)a[l], (uint32_t)b[l], (int32_t)(uint32_t)c[l]))
ALU_LANES(prmt_w, prmt((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l], in->aux))
ALU_LANES(prmt_0, prmt((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l], 0))

/* shf: the funnel {b, a} shifted, its 32 bits at the shifted end; .wrap
 * takes the amount mod 32, .clamp caps it at 32 */
static uint64_t shf(uint64_t lo, uint64_t hi, uint32_t n, int wrap, int left)
{
    n = wrap ? n & 31 : (n > 32 ? 32 : n);
    uint64_t v = (hi & 0xffffffffu) << 32 | (lo & 0xffffffffu);
    return left ? ((v << n) >> 32) & 0xffffffffu : (v >> n) & 0xffffffffu;
}
ALU_LANES(shf_lw, shf(a[l], b[l], (uint32_t)c[l], 1, 1))
ALU_LANES(shf_lc, shf(a[l], b[l], (uint32_t)c[l], 0, 1))
ALU_LANES(shf_rw, shf(a[l], b[l], (uint32_t)c[l], 1, 0))
ALU_LANES(shf_rc, shf(a[l], b[l], (uint32_t)c[l], 0, 0))

/* Shifts: an amount past the width counts as the width. */
ALU_LANES(shl_32, (uint32_t)b[l] > 31 ? 0 : (uint32_t)(a[l] << (uint32_t)b[l]))

/* shl.b32 by an immediate (a tree's `s << 1`, an index's `i << 2`): one
 * count for the warp, read once, and the lanes' loop a vector shift. */
ALU_FN(shl_32_k)
{
    uint64_t *d = REG(0);
    const uint64_t *a = REG(1);
    uint32_t k = (uint32_t)REG(2)[0];
    (void)carry;
    if (k > 31)
        EACH_LANE(mask, d[l] = 0);
    else
        EACH_LANE(mask, d[l] = (uint32_t)(a[l] << k));
}
ALU_LANES(shl_64, (uint32_t)b[l] > 63 ? 0 : a[l] << (uint32_t)b[l])
ALU_LANES(shl_w, (uint32_t)b[l] >= (uint32_t)emu_type_size[type] * 8 ? 0 : (a[l] << (uint32_t)b[l]) & m)
ALU_LANES(shr_u32, (uint32_t)b[l] > 31 ? 0 : (uint32_t)a[l] >> (uint32_t)b[l])
ALU_LANES(shr_s32, (uint32_t)((int32_t)a[l] >> ((uint32_t)b[l] > 31 ? 31 : (uint32_t)b[l])))
ALU_LANES(shr_u64, (uint32_t)b[l] > 63 ? 0 : a[l] >> (uint32_t)b[l])
ALU_LANES(shr_s64, (uint64_t)((int64_t)a[l] >> ((uint32_t)b[l] > 63 ? 63 : (uint32_t)b[l])))
ALU_LANES(shr_uw, (uint32_t)b[l] >= (uint32_t)emu_type_size[type] * 8 ? 0 : (a[l] & m) >> (uint32_t)b[l])
ALU_LANES(shr_sw, (uint64_t)(sx(a[l], type) >> ((uint32_t)b[l] >= (uint32_t)emu_type_size[type] * 8
                                                    ? emu_type_size[type] * 8 - 1
                                                    : (int)(uint32_t)b[l])) & m)

ALU_LANES(and_w, a[l] & b[l] & m)
ALU_LANES(or_w, (a[l] | b[l]) & m)
ALU_LANES(xor_w, (a[l] ^ b[l]) & m)
ALU_LANES(not_w, ~a[l] & m)
ALU_LANES(cnot_w, (a[l] & m) == 0)
ALU_LANES(lop3_w, lop3((uint32_t)a[l], (uint32_t)b[l], (uint32_t)c[l], (uint32_t)e[l] & 0xff))

/* ---- comparison and selection -------------------------------------------------- */

/* One setp handler: SETUP (a declaration, or nothing) once, then EXPR
 * (which reads x[l] and y[l]) for every lane. */
#define SETP_FN(fname, setup, expr)                                                                 \
    ALU_FN(fname)                                                                                   \
    {                                                                                               \
        (void)carry;                                                                                \
        uint64_t *d = REG(0);                                                                       \
        const uint64_t *x = REG(1), *y = REG(2);                                                    \
        setup;                                                                                      \
        EACH_LANE(mask, d[l] = (expr));                                                             \
    }
/* setp.CMP for one integer comparison, read at the type's width: signed
 * forms shift the sign up and back, unsigned ones mask; the 32-bit forms
 * compare the low words as they are */
#define SETP_INT(name, op)                                                                          \
    SETP_FN(setp_s_##name, const int sh = 64 - emu_type_size[in->type] * 8,                         \
            ((int64_t)(x[l] << sh) >> sh) op((int64_t)(y[l] << sh) >> sh))                          \
    SETP_FN(setp_u_##name, const uint64_t m = wmask(in->type), (x[l] & m) op(y[l] & m))             \
    SETP_FN(setp_s32_##name, (void)0, (int32_t)x[l] op(int32_t) y[l])                               \
    SETP_FN(setp_u32_##name, (void)0, (uint32_t)x[l] op(uint32_t) y[l])
SETP_INT(eq, ==)
SETP_INT(ne, !=)
SETP_INT(lt, <)
SETP_INT(le, <=)
SETP_INT(gt, >)
SETP_INT(ge, >=)
#undef SETP_INT
#undef SETP_FN

/* setp in full: setp.cmp[.bop].type p[|q], a, b[, c] */
ALU_FN(setp_any)
{
    (void)carry;
    int two = in->aux == 2, ai = two ? 2 : 1;
    uint64_t *d = REG(0);
    const uint64_t *x = REG(ai), *y = REG(ai + 1);
    uint64_t *q = two ? REG(1) : NULL;
    const uint64_t *pc = in->cmp2 ? REG(ai + 2) : NULL;
    int pneg = in->cmp2 ? in->o[ai + 2].neg : 0;
    LANES(mask) {
        int t = emu_compare(in->cmp, in->type, x[l], y[l]);
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
}

ALU_FN(set_any)
{
    (void)carry;
    uint64_t *d = REG(0);
    const uint64_t *a = REG(1), *b = REG(2), *pc = in->cmp2 ? REG(3) : NULL;
    int pneg = in->cmp2 ? in->o[3].neg : 0;
    int type = in->type;
    uint64_t m = wmask(type);
    uint64_t one = emu_type_kind[type] != 'f' ? m : emu_type_size[type] == 4 ? 0x3f800000u
                                                                              : 0x3ff0000000000000ull;
    LANES(mask) {
        int t = emu_compare(in->cmp, in->type2, a[l], b[l]);
        if (pc)
            t = combine(in->cmp2, t, (int)(pc[l] & 1) ^ pneg);
        d[l] = t ? one : 0;
    }
}

ALU_LANES(selp_w, (c[l] & 1) ? a[l] & m : b[l] & m)
ALU_LANES(selp_wn, (c[l] & 1) ? b[l] & m : a[l] & m)
ALU_LANES(slct_i, sx(c[l], T_S32) >= 0 ? a[l] & m : b[l] & m)
ALU_LANES(slct_f, !(emu_f32(c[l]) < 0.0f) ? a[l] & m : b[l] & m)
ALU_LANES(testp_w, (uint64_t)emu_testp(in->sub, a[l], type))

/* ---- selection ----------------------------------------------------------------- */

/* One handler for each width class of an integer form: 32 bits, 64 bits,
 * any other width (masked at run time). */
static emu_alu_fn *by_width(int type, emu_alu_fn *w32, emu_alu_fn *w64, emu_alu_fn *w)
{
    int sz = emu_type_size[type];
    return sz == 4 && w32 ? w32 : sz == 8 && w64 ? w64 : w;
}

/* setp's integer handlers by comparison: unsigned and signed, 32-bit and
 * any width; lo/ls/hi/hs are the unsigned lt/le/gt/ge whatever the type.
 * An unordered comparison has no row: no such form on integers. */
static emu_alu_fn *const setp_rows[CMP_HS + 1][2][2] = {
    /*           {{u32, s32}, {u any, s any}} */
    [CMP_EQ] = {{setp_u32_eq, setp_s32_eq}, {setp_u_eq, setp_s_eq}},
    [CMP_NE] = {{setp_u32_ne, setp_s32_ne}, {setp_u_ne, setp_s_ne}},
    [CMP_LT] = {{setp_u32_lt, setp_s32_lt}, {setp_u_lt, setp_s_lt}},
    [CMP_LE] = {{setp_u32_le, setp_s32_le}, {setp_u_le, setp_s_le}},
    [CMP_GT] = {{setp_u32_gt, setp_s32_gt}, {setp_u_gt, setp_s_gt}},
    [CMP_GE] = {{setp_u32_ge, setp_s32_ge}, {setp_u_ge, setp_s_ge}},
    [CMP_LO] = {{setp_u32_lt, setp_u32_lt}, {setp_u_lt, setp_u_lt}},
    [CMP_LS] = {{setp_u32_le, setp_u32_le}, {setp_u_le, setp_u_le}},
    [CMP_HI] = {{setp_u32_gt, setp_u32_gt}, {setp_u_gt, setp_u_gt}},
    [CMP_HS] = {{setp_u32_ge, setp_u32_ge}, {setp_u_ge, setp_u_ge}},
};

static emu_alu_fn *setp_int(const struct emu_insn *in)
{
    if (in->cmp2 || in->aux == 2)
        return setp_any;
    if (in->cmp > CMP_HS)
        return NULL;
    return setp_rows[in->cmp][emu_type_size[in->type] != 4][emu_type_kind[in->type] == 's'];
}

/* The handler of the integer and bit forms; NULL for a form with none. */
static emu_alu_fn *select_int(const struct emu_insn *in)
{
    int t = in->type, k = emu_type_kind[t], sz = emu_type_size[t];
    uint32_t fl = in->flags;
    if ((fl & F_RELU) && in->op != OP_MIN && in->op != OP_MAX)
        return NULL;    /* a flag no handler here reads is refused, never dropped */
    switch (in->op) {
    case OP_ADD:
        if (fl & F_SAT)
            return t == T_S32 ? add_sat : NULL;
        return fl & F_CC ? add_cc : by_width(t, add_32, add_64, add_w);
    case OP_SUB:
        if (fl & F_SAT)
            return t == T_S32 ? sub_sat : NULL;
        return fl & F_CC ? sub_cc : by_width(t, sub_32, sub_64, sub_w);
    case OP_ADDC: return fl & F_CC ? addc_cc : addc;
    case OP_SUBC: return fl & F_CC ? subc_cc : subc;
    case OP_MUL:
        if (fl & F_WIDE)
            return t == T_U32 ? mul_wideu32 : t == T_S32 ? mul_wides32 : mul_wide;
        if (fl & F_HI)
            return mul_hi;
        return by_width(t, mul_lo32, mul_lo64, mul_low);
    case OP_MAD:
        if (fl & F_CC)
            return mad_cc;
        if (fl & F_WIDE)
            return mad_wide;
        if (fl & F_HI)
            return mad_hi;
        return by_width(t, mad_lo32, mad_lo64, mad_low);
    case OP_MADC: return fl & F_CC ? madc_cc : madc;
    case OP_MUL24:
        return sz != 4 ? NULL : fl & F_HI ? mul24_hi : mul24_lo;
    case OP_MAD24:
        if (sz != 4)
            return NULL;
        if (fl & F_SAT)
            return t == T_S32 && (fl & F_HI) ? mad24_hi_sat : NULL;
        return fl & F_HI ? mad24_hi : mad24_lo;
    case OP_DP4A: return dp4a;
    case OP_DP2A: return fl & F_HI ? dp2a_hi : dp2a_lo;
    case OP_SAD: return sad;
    case OP_DIV: return t == T_U32 ? div_u32 : t == T_S32 ? div_s32 : div_int;
    case OP_REM: return t == T_U32 ? rem_u32 : t == T_S32 ? rem_s32 : rem_int;
    case OP_ABS: return abs_int;
    case OP_NEG: return neg_int;
    case OP_MIN:
        if (fl & F_RELU)
            return t == T_S32 ? min_s32_relu : NULL;
        return t == T_S32 ? min_s32 : t == T_U32 ? min_u32 : min_int;
    case OP_MAX:
        if (fl & F_RELU)
            return t == T_S32 ? max_s32_relu : NULL;
        return t == T_S32 ? max_s32 : t == T_U32 ? max_u32 : max_int;
    case OP_POPC: return popc;
    case OP_CLZ: return clz_w;
    case OP_BREV: return brev_w;
    case OP_BFE: return bfe_w;
    case OP_BFI: return bfi_w;
    case OP_BFIND: return fl & F_SHIFTAMT ? bfind_sa : bfind_w;
    case OP_FNS: return fns_w;
    case OP_PRMT: return fl & F_PRMT_MODE ? prmt_w : prmt_0;
    case OP_SHF:
        return fl & F_LEFT ? (fl & F_WRAP ? shf_lw : shf_lc) : (fl & F_WRAP ? shf_rw : shf_rc);
    case OP_SHL:
        if (sz == 4 && in->o[2].kind == OK_REG && in->o[2].konst)
            return shl_32_k;
        return by_width(t, shl_32, shl_64, shl_w);
    case OP_SHR:
        if (k == 's')
            return by_width(t, shr_s32, shr_s64, shr_sw);
        return by_width(t, shr_u32, shr_u64, shr_uw);
    case OP_AND: return and_w;
    case OP_OR: return or_w;
    case OP_XOR: return xor_w;
    case OP_NOT: return not_w;
    case OP_CNOT: return cnot_w;
    case OP_LOP3: return lop3_w;
    case OP_SETP: return setp_int(in);
    case OP_SET: return set_any;
    case OP_SELP: return in->o[3].neg ? selp_wn : selp_w;
    case OP_SLCT: return emu_type_kind[in->type2] == 'f' ? slct_f : slct_i;
    default: return NULL;
    }
}

/* Picks IN's handler: the register-only form's own, from its opcode,
 * types and modifiers; NULL when the ALU has none (the form is refused
 * when a launched kernel reaches it). */
emu_alu_fn *emu_alu_select(const struct emu_insn *in)
{
    int k = emu_type_kind[in->type];
    switch (in->op) {
    case OP_MOV:
        if (in->o[1].kind == OK_VEC)
            return mov_pack;
        if (in->o[0].kind == OK_VEC)
            return mov_unpack;
        return emu_type_size[in->type] == 8 ? mov_64 : mov_w;
    case OP_CVT:
        if (emu_hops_is_half(in->type) || emu_hops_is_half(in->type2))
            return emu_hops_select(in);
        if (k != 'f' && emu_type_kind[in->type2] != 'f' && !(in->flags & F_SAT))
            return cvt_int;
        return cvt_any;
    case OP_SET:
        if (emu_hops_is_half(in->type2) || emu_hops_is_half(in->type))
            return emu_hops_select(in);
        break;
    case OP_SLCT:
        if (emu_hops_is_half(in->type2))
            return NULL;
        break;
    case OP_TESTP:
        return k == 'f' ? testp_w : NULL;
    case OP_VABSDIFF4:
        /* the form the SIMD intrinsics write: .u32 or .s32 throughout */
        if (in->type2 || (in->flags & F_SAT) || (in->sub && in->sub != SUB_ADD) ||
            (in->type != T_U32 && in->type != T_S32))
            return NULL;
        if (in->sub == SUB_ADD)
            return in->type == T_S32 ? vabsdiff4_s_add : vabsdiff4_u_add;
        return in->type == T_S32 ? vabsdiff4_s : vabsdiff4_u;
    default:
        break;
    }
    if (k == 'v')
        return select_pair(in);
    if (emu_hops_is_half(in->type) && in->op != OP_SELP)
        return emu_hops_select(in);
    if (k == 'f' && in->op != OP_SLCT && in->op != OP_SET && in->op != OP_SELP)
        return emu_fops_select(in);
    return select_int(in);
}
