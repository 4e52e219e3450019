/* test_emu_ops_half.c — the forms the emulator runs since its opcodes
 * became rows: half floats (cuda_fp16.h's and cuda_bf16.h's __half,
 * __half2, __nv_bfloat16 arithmetic, comparisons and conversions), the
 * integer intrinsics __mul24/__umul24-style mad24, __dp4a and __dp2a, the
 * SIMD intrinsics' packed forms, elect.sync, ldu and isspacep.  Each reference is written from the PTX ISA with the host's
 * own _Float16 (f16) and bit arithmetic (bf16), not with the emulator's
 * code; the GPU differential (tests/device/emu-diff.sh) runs the same rows
 * on the H200. */
#include "test_emu_ops_ref.h"

/* ---- half floats ------------------------------------------------------------ */

/* An f16's bits as the host's _Float16 and back; a NaN result is the
 * canonical 0x7fff. */
static float h2f(uint64_t bits)
{
    uint16_t u = (uint16_t)bits;
    _Float16 h;
    memcpy(&h, &u, 2);
    return (float)h;
}
static uint64_t f2h(double v)
{
    if (v != v)
        return 0x7fff;
    _Float16 h = (_Float16)v;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
}
/* bf16: the top half of an f32; rounded to nearest even from an f32 by
 * adding below the kept bits */
static float bf2f(uint64_t bits)
{
    uint32_t u = (uint32_t)(uint16_t)bits << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint64_t f2bf(float f)
{
    if (f != f)
        return 0x7fff;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}
#define H(k) h2f(IN(k))
#define HHI(k) h2f(IN(k) >> 16)
#define BF(k) bf2f(IN(k))
#define BFHI(k) bf2f(IN(k) >> 16)

/* f16 add, sub and mul are exact in an f32 (11-bit fractions), so the one
 * rounding to f16 is the ISA's; fma's exact result fits a double but for
 * operands far apart, which random halves almost never are. */
REF1(r_add_f16, f2h((double)H(0) + H(1)))
REF1(r_sub_f16, f2h((double)H(0) - H(1)))
REF1(r_mul_f16, f2h((double)H(0) * H(1)))
REF1(r_fma_f16, f2h(fma(H(0), H(1), H(2))))
REF1(r_neg_f16, isnan(H(0)) ? 0x7fff : (IN(0) ^ 0x8000) & 0xffff)
REF1(r_abs_f16, isnan(H(0)) ? 0x7fff : IN(0) & 0x7fff)
/* min/max: a NaN operand yields the other, -0 below +0 */
static uint64_t hmin(uint64_t x, uint64_t y, int max)
{
    float a = h2f(x), b = h2f(y);
    if (isnan(a)) return isnan(b) ? 0x7fff : y & 0xffff;
    if (isnan(b)) return x & 0xffff;
    if (a == b) return ((x & 0x8000) != 0) == max ? y & 0xffff : x & 0xffff;
    return (a < b) != max ? x & 0xffff : y & 0xffff;
}
REF1(r_min_f16, hmin(IN(0), IN(1), 0))
REF1(r_max_f16, hmin(IN(0), IN(1), 1))
REF1(r_add_f16x2, f2h((double)H(0) + H(1)) | f2h((double)HHI(0) + HHI(1)) << 16)
/* atomicAdd on __half, __half2, __nv_bfloat16 and __nv_bfloat162
 * (atom.add.noftz): the old value, then the sum, each half rounded to
 * nearest even with subnormals kept.  The operands' exponents lose their
 * top bit (0xbfff), so no operand is an infinity or a NaN and no sum is a
 * NaN (an atomic's NaN bits are the GPU's: the emulator refuses them). */
#define FIN16 0xbfffull
#define FIN32 0xbfffbfffull
REF(r_atom_add_f16)
{
    (void)c;
    uint64_t a = IN(0) & FIN16, b = IN(1) & FIN16;
    o[0] = a;
    o[1] = f2h((double)h2f(a) + h2f(b));
}
REF(r_atom_add_f16x2)
{
    (void)c;
    uint64_t a = IN(0) & FIN32, b = IN(1) & FIN32;
    o[0] = a;
    o[1] = f2h((double)h2f(a) + h2f(b)) | f2h((double)h2f(a >> 16) + h2f(b >> 16)) << 16;
}
REF(r_atom_add_bf16)
{
    (void)c;
    uint64_t a = IN(0) & FIN16, b = IN(1) & FIN16;
    o[0] = a;
    o[1] = f2bf(bf2f(a) + bf2f(b));
}
REF(r_atom_add_bf16x2)
{
    (void)c;
    uint64_t a = IN(0) & FIN32, b = IN(1) & FIN32;
    o[0] = a;
    o[1] = f2bf(bf2f(a) + bf2f(b)) | f2bf(bf2f(a >> 16) + bf2f(b >> 16)) << 16;
}
#define ATOM_HALF "cvta.global.u64 %rd22, %rd18;\n\tand.b16 %h20, $a0, 0xbfff;\n\tand.b16 %h21, $a1, 0xbfff;\n\t" \
                  "st.global.u16 [%rd18+8], %h20;\n\t$F $d0, [%rd22+8], %h21;\n\tld.global.u16 $d1, [%rd18+8];"
#define ATOM_HALF2 "cvta.global.u64 %rd22, %rd18;\n\tand.b32 %r12, $a0, 0xbfffbfff;\n\tand.b32 %r13, $a1, 0xbfffbfff;\n\t" \
                   "st.global.u32 [%rd18+8], %r12;\n\t$F $d0, [%rd22+8], %r13;\n\tld.global.u32 $d1, [%rd18+8];"
REF1(r_fma_f16x2, f2h(fma(H(0), H(1), H(2))) | f2h(fma(HHI(0), HHI(1), HHI(2))) << 16)
REF1(r_setp_lt_f16, H(0) < H(1))
REF1(r_setp_gtu_f16, !(H(0) <= H(1)))
/* set: the destination's true (1.0 as a half, all ones as an integer, each
 * 16-bit half of it for a .x2 source) or 0 */
REF1(r_set_gt_u32_f16x2, (H(0) > H(1) ? 0xffffu : 0) | (HHI(0) > HHI(1) ? 0xffff0000u : 0))
REF1(r_set_nan_f16_f16, isnan(H(0)) || isnan(H(1)) ? 0x3c00 : 0)
REF1(r_set_le_u32_f16, H(0) <= H(1) ? 0xffffffffu : 0)
/* min/max .NaN: a NaN operand gives the canonical NaN (without it, the
 * other operand) */
static uint64_t hmax_nan(uint64_t x, uint64_t y)
{
    return isnan(h2f(x)) || isnan(h2f(y)) ? 0x7fff : hmin(x, y, 1);
}
/* .relu: a negative result, -0 too, becomes +0; a NaN stays the NaN */
static uint64_t relu16(uint64_t h)
{
    return (h & 0x7fff) > 0x7c00 ? 0x7fff : (h & 0x8000) ? 0 : h;
}
REF1(r_fma_relu_f16x2, relu16(f2h(fma(H(0), H(1), H(2)))) | relu16(f2h(fma(HHI(0), HHI(1), HHI(2)))) << 16)
/* integer .relu: a negative result is 0 (each half for .s16x2) */
static uint64_t relu_min16(uint64_t x, uint64_t y)
{
    int32_t a = (int16_t)x, b = (int16_t)y, m = a < b ? a : b;
    return (uint16_t)(m < 0 ? 0 : m);
}
REF1(r_max_relu_s32, (int32_t)U32(0) > (int32_t)U32(1) ? ((int32_t)U32(0) < 0 ? 0 : U32(0)) : ((int32_t)U32(1) < 0 ? 0 : U32(1)))
REF1(r_min_relu_s16x2, relu_min16(IN(0), IN(1)) | relu_min16(IN(0) >> 16, IN(1) >> 16) << 16)
REF1(r_max_nan_f16x2, hmax_nan(IN(0) & 0xffff, IN(1) & 0xffff) | hmax_nan(IN(0) >> 16 & 0xffff, IN(1) >> 16 & 0xffff) << 16)
REF(r_min_nan_f32)
{
    (void)c;
    float a = F32(0), b = F32(1);
    if (isnan(a) || isnan(b)) o[0] = 0x7fffffff;
    else if (a == b) o[0] = signbit(a) ? U32(0) : U32(1);
    else o[0] = a < b ? U32(0) : U32(1);
}
REF1(r_set_ltu_bf16x2_bf16x2, (!(BF(0) >= BF(1)) ? 0x3f80u : 0) | (!(BFHI(0) >= BFHI(1)) ? 0x3f800000u : 0))
/* bf16: sums and products of two 8-bit fractions are exact in an f32 */
REF1(r_add_bf16, f2bf(BF(0) + BF(1)))
REF1(r_mul_bf16, f2bf(BF(0) * BF(1)))
REF1(r_mul_bf16x2, f2bf(BF(0) * BF(1)) | f2bf(BFHI(0) * BFHI(1)) << 16)
REF1(r_fma_bf16, f2bf((float)fma(BF(0), BF(1), BF(2))))
/* conversions: to a half rounded to nearest even, to f32 exact */
REF1(r_cvt_f16_f32, f2h(F32(0)))
REF1(r_cvt_f32_f16, b32(H(0)))
REF1(r_cvt_bf16_f32, f2bf(F32(0)))
/* the H200 widens a bf16 NaN's bits as they are (an f16's: canonical) */
REF1(r_cvt_f32_bf16, isnan(BF(0)) ? (IN(0) & 0xffff) << 16 : b32(BF(0)))
/* cvt.rn.f16x2.f32 d, a, b: a to the high half, b to the low one */
REF1(r_cvt_f16x2_f32, f2h(F32(1)) | f2h(F32(0)) << 16)
REF1(r_cvt_f16_s32, f2h((double)S32(0)))
REF1(r_cvt_rzi_s32_f16, isnan(H(0)) ? 0 : (uint32_t)(int32_t)truncf(H(0)))

/* ---- integer intrinsics ------------------------------------------------------ */

/* mad24: the 48-bit product of the low 24 bits (signed: sign-extended),
 * .lo its low 32 bits, .hi its bits 16..47, plus c */
static int64_t lo24(uint32_t x, int sgn)
{
    return sgn ? (int64_t)((int32_t)(x << 8) >> 8) : (int64_t)(x & 0xffffff);
}
REF1(r_mad24_lo_s32, (uint32_t)((uint64_t)(lo24(U32(0), 1) * lo24(U32(1), 1)) + U32(2)))
REF1(r_mad24_hi_u32, (uint32_t)(((uint64_t)(lo24(U32(0), 0) * lo24(U32(1), 0)) >> 16) + U32(2)))
REF1(r_mul24_lo_u32, (uint32_t)(uint64_t)(lo24(U32(0), 0) * lo24(U32(1), 0)))
/* dp4a: c + the four byte products; dp2a: two half-by-byte products, the
 * low two bytes of b (.lo) or the high two (.hi) */
static uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, int sa, int sb)
{
    for (int i = 0; i < 4; i++) {
        int32_t x = sa ? (int8_t)(a >> 8 * i) : (uint8_t)(a >> 8 * i);
        int32_t y = sb ? (int8_t)(b >> 8 * i) : (uint8_t)(b >> 8 * i);
        c += (uint32_t)(x * y);
    }
    return c;
}
static uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, int sa, int sb, int hi)
{
    for (int i = 0; i < 2; i++) {
        int32_t x = sa ? (int16_t)(a >> 16 * i) : (uint16_t)(a >> 16 * i);
        int32_t y = sb ? (int8_t)(b >> 8 * (i + 2 * hi)) : (uint8_t)(b >> 8 * (i + 2 * hi));
        c += (uint32_t)(x * y);
    }
    return c;
}
REF1(r_dp4a_ss, dp4a(U32(0), U32(1), U32(2), 1, 1))
REF1(r_dp4a_uu, dp4a(U32(0), U32(1), U32(2), 0, 0))
REF1(r_dp4a_us, dp4a(U32(0), U32(1), U32(2), 0, 1))
REF1(r_dp2a_lo_ss, dp2a(U32(0), U32(1), U32(2), 1, 1, 0))
REF1(r_dp2a_hi_us, dp2a(U32(0), U32(1), U32(2), 0, 1, 1))

/* SIMD intrinsics (__vadd2, __vmaxs2, __vabsdiffu4, __vsadu4): two 16-bit
 * halves or four bytes of a register, each on its own */
static uint64_t pair(uint64_t x, uint64_t y, int op, int sgn)
{
    uint32_t r = 0;
    for (int i = 0; i < 2; i++) {
        int32_t a = sgn ? (int16_t)(x >> 16 * i) : (uint16_t)(x >> 16 * i);
        int32_t b = sgn ? (int16_t)(y >> 16 * i) : (uint16_t)(y >> 16 * i);
        int32_t v = op == 0 ? a + b : op == 1 ? a - b : op == 2 ? (a < b ? a : b) : (a > b ? a : b);
        r |= (uint32_t)(uint16_t)v << 16 * i;
    }
    return r;
}
REF1(r_add_s16x2, pair(IN(0), IN(1), 0, 1))
REF1(r_min_u16x2, pair(IN(0), IN(1), 2, 0))
REF1(r_max_s16x2, pair(IN(0), IN(1), 3, 1))
static uint64_t absdiff4(uint32_t x, uint32_t y, uint32_t z, int sum)
{
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t a = (x >> 8 * i) & 0xff, b = (y >> 8 * i) & 0xff, d = a > b ? a - b : b - a;
        r |= d << 8 * i;
        z += d;
    }
    return sum ? z : r;
}
REF1(r_vabsdiff4, absdiff4(U32(0), U32(1), U32(2), 0))
REF1(r_vabsdiff4_add, absdiff4(U32(0), U32(1), U32(2), 1))
/* elect.sync: the lowest lane its mask names leads; lanes outside the mask
 * do not call it (their results stay 0) */
REF(r_elect)
{
    uint32_t mask = (uint32_t)LANE(t & ~31, 0), lane = (uint32_t)t & 31;
    if (!((mask >> lane) & 1))
        return;
    uint32_t leader = (uint32_t)__builtin_ctz(mask);
    o[0] = leader;
    o[1] = lane == leader;
}

/* ---- memory ------------------------------------------------------------------ */

REF1(r_ldu, (uint32_t)in_bytes(c, t, 0, 4))
/* isspacep: a global pointer is global and not shared; a shared one the
 * other way round */
REF(r_spacep)
{
    (void)c, (void)t;
    o[0] = 1;
    o[1] = 0;
    o[2] = 1;
    o[3] = 0;
}

#define SETP16(cmp) "$F %p16, $a0, $a1;\n\tselp.u32 $d0, 1, 0, %p16;"
#define SPACEP "isspacep.global %p16, %rd17;\n\tselp.u32 $d0, 1, 0, %p16;\n\t" \
               "isspacep.shared %p16, %rd17;\n\tselp.u32 $d1, 1, 0, %p16;\n\t" \
               "cvt.u64.u32 %rd19, %r20;\n\tcvta.shared.u64 %rd19, %rd19;\n\t" \
               "isspacep.shared %p16, %rd19;\n\tselp.u32 $d2, 1, 0, %p16;\n\t" \
               "isspacep.global %p16, %rd19;\n\tselp.u32 $d3, 1, 0, %p16;"

#define ELECT "mov.u32 %r15, %laneid;\n\tshr.b32 %r15, $a0, %r15;\n\tand.b32 %r15, %r15, 1;\n\t" \
              "setp.eq.s32 %p17, %r15, 0;\n\t@%p17 bra $Lskip;\n\t$F $d0|%p16, $a0;\n\t" \
              "selp.u32 $d1, 1, 0, %p16;\n$Lskip:"

const struct ops_row ops_half_rows[] = {
    {"add.f16", "", "h:hh", 0, 0, r_add_f16},
    {"sub.f16", "", "h:hh", 0, 0, r_sub_f16},
    {"mul.f16", "", "h:hh", 0, 0, r_mul_f16},
    {"fma.rn.f16", "", "h:hhh", 0, 0, r_fma_f16},
    {"neg.f16", "", "h:h", 0, 0, r_neg_f16},
    {"abs.f16", "", "h:h", 0, 0, r_abs_f16},
    {"min.f16", "", "h:hh", 0, OPS_EQ01, r_min_f16},
    {"max.f16", "", "h:hh", 0, OPS_EQ01, r_max_f16},
    {"add.f16x2", "", "r:rr", 0, 0, r_add_f16x2},
    {"atom.add.noftz.f16", "generic, of global memory", "hh:hh", ATOM_HALF, 0, r_atom_add_f16},
    {"atom.add.noftz.f16x2", "generic, of global memory", "rr:rr", ATOM_HALF2, 0, r_atom_add_f16x2},
    {"atom.add.noftz.bf16", "generic, of global memory", "hh:hh", ATOM_HALF, 0, r_atom_add_bf16},
    {"atom.add.noftz.bf16x2", "generic, of global memory", "rr:rr", ATOM_HALF2, 0, r_atom_add_bf16x2},
    {"fma.rn.f16x2", "", "r:rrr", 0, 0, r_fma_f16x2},
    {"setp.lt.f16", "", "r:hh", SETP16(lt), OPS_EQ01, r_setp_lt_f16},
    {"setp.gtu.f16", "", "r:hh", SETP16(gtu), OPS_EQ01, r_setp_gtu_f16},
    {"set.gt.u32.f16x2", "", "r:rr", 0, OPS_EQ01, r_set_gt_u32_f16x2},
    {"set.nan.f16.f16", "", "h:hh", 0, OPS_EQ01, r_set_nan_f16_f16},
    {"set.le.u32.f16", "", "r:hh", 0, OPS_EQ01, r_set_le_u32_f16},
    {"set.ltu.bf16x2.bf16x2", "", "r:rr", 0, OPS_EQ01, r_set_ltu_bf16x2_bf16x2},
    {"max.NaN.f16x2", "", "r:rr", 0, OPS_EQ01, r_max_nan_f16x2},
    {"fma.rn.relu.f16x2", "", "r:rrr", 0, 0, r_fma_relu_f16x2},
    {"max.relu.s32", "", "r:rr", 0, 0, r_max_relu_s32},
    {"min.relu.s16x2", "", "r:rr", 0, 0, r_min_relu_s16x2},
    {"min.NaN.f32", "", "f:ff", 0, OPS_EQ01, r_min_nan_f32},
    {"add.rn.bf16", "", "h:hh", 0, 0, r_add_bf16},
    {"mul.rn.bf16", "", "h:hh", 0, 0, r_mul_bf16},
    {"mul.rn.bf16x2", "", "r:rr", 0, 0, r_mul_bf16x2},
    {"fma.rn.bf16", "", "h:hhh", 0, 0, r_fma_bf16},
    {"cvt.rn.f16.f32", "", "h:f", 0, 0, r_cvt_f16_f32},
    {"cvt.f32.f16", "", "f:h", 0, 0, r_cvt_f32_f16},
    {"cvt.rn.bf16.f32", "", "h:f", 0, 0, r_cvt_bf16_f32},
    {"cvt.f32.bf16", "", "f:h", 0, 0, r_cvt_f32_bf16},
    {"cvt.rn.f16x2.f32", "", "r:ff", 0, 0, r_cvt_f16x2_f32},
    {"cvt.rn.f16.s32", "", "h:r", 0, 0, r_cvt_f16_s32},
    {"cvt.rzi.s32.f16", "", "r:h", 0, 0, r_cvt_rzi_s32_f16},
    {"mad24.lo.s32", "", "r:rrr", 0, 0, r_mad24_lo_s32},
    {"mad24.hi.u32", "", "r:rrr", 0, 0, r_mad24_hi_u32},
    {"mul24.lo.u32", "", "r:rr", 0, 0, r_mul24_lo_u32},
    {"dp4a.s32.s32", "", "r:rrr", 0, 0, r_dp4a_ss},
    {"dp4a.u32.u32", "", "r:rrr", 0, 0, r_dp4a_uu},
    {"dp4a.u32.s32", "", "r:rrr", 0, 0, r_dp4a_us},
    {"dp2a.lo.s32.s32", "", "r:rrr", 0, 0, r_dp2a_lo_ss},
    {"dp2a.hi.u32.s32", "", "r:rrr", 0, 0, r_dp2a_hi_us},
    {"add.s16x2", "", "r:rr", 0, 0, r_add_s16x2},
    {"min.u16x2", "", "r:rr", 0, 0, r_min_u16x2},
    {"max.s16x2", "", "r:rr", 0, 0, r_max_s16x2},
    {"vabsdiff4.u32.u32.u32", "", "r:rrr", 0, 0, r_vabsdiff4},
    {"vabsdiff4.u32.u32.u32.add", "", "r:rrr", 0, 0, r_vabsdiff4_add},
    {"elect.sync", "", "rr:r", ELECT, OPS_IN(OPS_MASK, 0), r_elect},
    {"ldu.global.u32", "", "r:r", "$F $d0, [%rd17];", 0, r_ldu},
    {"isspacep.global", "", "rrrr:", SPACEP, 0, r_spacep},
};
const int ops_half_nrows = (int)(sizeof ops_half_rows / sizeof ops_half_rows[0]);
