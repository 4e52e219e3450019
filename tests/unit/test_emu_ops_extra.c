/* test_emu_ops_extra.c — forms outside today's corpus that a student's
 * kernel reaches easily (inline-asm carry chains for lab 10, bit fields,
 * funnel shifts, __syncthreads_count, float comparisons and conversions,
 * more atomics and vector accesses, the other special registers), each
 * with its result from the PTX ISA's definition.  The emulator may leave
 * one out (a skip: "needs a GPU"); one it runs must be right. */
#include "test_emu_ops_ref.h"

/* ---- carry chains: add.cc/addc and sub.cc/subc through CC.CF -------------- */
REF(r_addc32)
{
    (void)c;
    uint64_t s0 = (uint64_t)U32(0) + U32(1), s1 = (uint64_t)U32(2) + U32(3) + (s0 >> 32);
    o[0] = (uint32_t)s0;
    o[1] = (uint32_t)s1;
}
REF(r_addc32_out)
{
    (void)c;
    uint64_t s0 = (uint64_t)U32(0) + U32(1), s1 = (uint64_t)U32(2) + U32(3) + (s0 >> 32);
    o[0] = (uint32_t)s0;
    o[1] = (uint32_t)s1;
    o[2] = s1 >> 32;
}
/* sub.cc's CC.CF is the borrow out, and subc takes it away again. */
REF(r_subc32)
{
    (void)c;
    uint32_t b0 = U32(0) < U32(1), b1 = (uint64_t)U32(2) < (uint64_t)U32(3) + b0;
    o[0] = (uint32_t)(U32(0) - U32(1));
    o[1] = (uint32_t)(U32(2) - U32(3) - b0);
    o[2] = (uint32_t)(0u - b1);
}
REF(r_addc64)
{
    (void)c;
    unsigned __int128 s0 = (unsigned __int128)IN(0) + IN(1);
    unsigned __int128 s1 = (unsigned __int128)IN(2) + IN(3) + (uint64_t)(s0 >> 64);
    o[0] = (uint64_t)s0;
    o[1] = (uint64_t)s1;
}

/* ---- bit fields and funnel shifts ------------------------------------------- */
/* bfe: LEN bits of A from POS, the rest of d the sign bit
 * (a[min(pos+len-1, msb)] for a signed type and len > 0) or 0.  The ISA
 * takes pos and len below 256; the H100's 32-bit forms read b's and c's
 * low bytes, its 64-bit forms the whole words. */
static uint64_t bfe(uint64_t a, uint64_t pos, uint64_t len, int msb, int sign)
{
    uint64_t top = pos + len - 1;
    uint64_t sbit = sign && len ? (a >> (top > (uint64_t)msb ? (uint64_t)msb : top)) & 1 : 0, d = 0;
    for (uint64_t i = 0; i <= (uint64_t)msb; i++)
        d |= (i < len && pos + i <= (uint64_t)msb ? (a >> (pos + i)) & 1 : sbit) << i;
    return d;
}
REF1(r_bfe_u32, bfe(U32(0), U32(1) & 0xff, U32(2) & 0xff, 31, 0))
REF1(r_bfe_s32, bfe(U32(0), U32(1) & 0xff, U32(2) & 0xff, 31, 1))
REF1(r_bfe_u64, bfe(IN(0), U32(1), U32(2), 63, 0))
REF1(r_bfe_s64, bfe(IN(0), U32(1), U32(2), 63, 1))
/* shf: the 64 bits {b, a} shifted by c (clamped to 32, or c mod 32),
 * the high word for .l, the low word for .r. */
static uint32_t shf(uint32_t a, uint32_t b, uint32_t cc, int left, int clamp)
{
    uint32_t n = clamp ? (cc > 32 ? 32 : cc) : cc & 31;
    uint64_t v = (uint64_t)b << 32 | a;
    return left ? (uint32_t)((v << n) >> 32) : (uint32_t)(v >> n);
}
REF1(r_shf_lw, shf(U32(0), U32(1), U32(2), 1, 0))
REF1(r_shf_lc, shf(U32(0), U32(1), U32(2), 1, 1))
REF1(r_shf_rw, shf(U32(0), U32(1), U32(2), 0, 0))
REF1(r_shf_rc, shf(U32(0), U32(1), U32(2), 0, 1))
/* lop3: bit i of d is bit (a_i b_i c_i) of the lookup table. */
static uint32_t lop3(uint32_t a, uint32_t b, uint32_t cc, uint32_t lut)
{
    uint32_t d = 0;
    for (int i = 0; i < 32; i++)
        d |= ((lut >> (((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((cc >> i) & 1))) & 1) << i;
    return d;
}
REF1(r_lop3_96, lop3(U32(0), U32(1), U32(2), 0x96))
REF1(r_lop3_e8, lop3(U32(0), U32(1), U32(2), 0xe8))
REF1(r_clz32, U32(0) ? (uint64_t)__builtin_clz(U32(0)) : 32)
REF1(r_popc64, (uint64_t)__builtin_popcountll(IN(0)))
REF(r_brev64)
{
    (void)c;
    uint64_t d = 0;
    for (int i = 0; i < 64; i++) d |= ((IN(0) >> i) & 1) << (63 - i);
    o[0] = d;
}
/* bfind: the highest 1 (unsigned) or the highest bit unlike the sign. */
REF1(r_bfind_u32, U32(0) ? (uint64_t)(31 - __builtin_clz(U32(0))) : 0xffffffffu)
REF(r_bfind_s32)
{
    (void)c;
    uint32_t a = S32(0) < 0 ? ~U32(0) : U32(0);
    o[0] = a ? (uint64_t)(31 - __builtin_clz(a)) : 0xffffffffu;
}

/* ---- integer arithmetic ---------------------------------------------------- */
REF1(r_mulhi_u32, (uint32_t)(((uint64_t)U32(0) * U32(1)) >> 32))
REF1(r_mulhi_s32, (uint32_t)(((int64_t)S32(0) * S32(1)) >> 32))
REF1(r_madwide_u32, (uint64_t)U32(0) * U32(1) + IN(2))
REF1(r_mins32, (uint32_t)(S32(0) < S32(1) ? S32(0) : S32(1)))
REF1(r_maxu32, U32(0) > U32(1) ? U32(0) : U32(1))
REF1(r_abs32, (uint32_t)(S32(0) < 0 ? 0u - U32(0) : U32(0)))
/* Division by zero gives all ones, quotient and remainder, signed or not
 * (the H100's div.u32, rem.u32 and div.u64; the ISA leaves it open). */
REF1(r_divs32, U32(1) == 0 ? 0xffffffffu : S32(1) == -1 ? 0u - U32(0) : (uint32_t)(S32(0) / S32(1)))
REF1(r_rems32, U32(1) == 0 ? 0xffffffffu : S32(1) == -1 ? 0u : (uint32_t)(S32(0) % S32(1)))
REF1(r_remu64, IN(1) ? IN(0) % IN(1) : ~0ull)
/* sad: c + |a - b|, the difference exact at the type's sign, the sum wrapping */
REF1(r_sad_s32, (uint32_t)((S32(0) < S32(1) ? (uint32_t)((int64_t)S32(1) - S32(0))
                                             : (uint32_t)((int64_t)S32(0) - S32(1))) + U32(2)))
REF1(r_sad_u32, (uint32_t)((U32(0) < U32(1) ? U32(1) - U32(0) : U32(0) - U32(1)) + U32(2)))
REF1(r_divs64, IN(1) == 0 ? ~0ull : S64(1) == -1 ? 0 - IN(0) : (uint64_t)(S64(0) / S64(1)))
REF1(r_rems64, IN(1) == 0 ? ~0ull : S64(1) == -1 ? 0 : (uint64_t)(S64(0) % S64(1)))

/* ---- floating point ---------------------------------------------------------- */
/* min.f32: a NaN gives the other operand, two the canonical NaN; -0 < +0. */
REF(r_minf)
{
    (void)c;
    float a = F32(0), b = F32(1);
    if (isnan(a) && isnan(b)) o[0] = 0x7fffffff;
    else if (isnan(a)) o[0] = U32(1);
    else if (isnan(b)) o[0] = U32(0);
    else if (a == b) o[0] = signbit(a) ? U32(0) : U32(1);
    else o[0] = a < b ? U32(0) : U32(1);
}
/* NaN results with the H100's bits (test_emu_ops_table.c says which). */
REF1(r_divrnf, b32(F32(0) / F32(1)))
REF1(r_sqrtf, b32(sqrtf(F32(0))))
REF1(r_sqrtd, d64(sqrt(F64(0)), IN(0), 0, 0))
REF1(r_absf, isnan(F32(0)) ? 0x7fffffffu : U32(0) & 0x7fffffffu)
REF1(r_negd, isnan(F64(0)) ? IN(0) | 1ull << 51 : IN(0) ^ (1ull << 63))
REF1(r_eqf, F32(0) == F32(1))
REF1(r_nef, !isnan(F32(0)) && !isnan(F32(1)) && F32(0) != F32(1))
REF1(r_gef, F32(0) >= F32(1))
REF1(r_lef, F32(0) <= F32(1))
REF1(r_numf, !isnan(F32(0)) && !isnan(F32(1)))
REF1(r_nanf, isnan(F32(0)) || isnan(F32(1)))
REF1(r_ltd, F64(0) < F64(1))
/* Float to integer: NaN to 0, out of range to the nearest end. */
REF(r_cvt_u32_f32)
{
    (void)c;
    float a = truncf(F32(0));
    o[0] = isnan(a) || a <= 0.0f ? 0 : a >= 4294967296.0f ? 0xffffffffu : (uint32_t)a;
}
REF(r_cvt_rni_s32_f32)
{
    (void)c;
    float a = nearbyintf(F32(0));
    int32_t d = isnan(a) ? 0 : a >= 2147483648.0f ? INT32_MAX : a < -2147483648.0f ? INT32_MIN
                                                                                  : (int32_t)a;
    o[0] = (uint32_t)d;
}
REF1(r_cvt_f32_s32, b32((float)S32(0)))
REF1(r_cvt_f32_s64, b32((float)S64(0)))

/* ---- memory ------------------------------------------------------------------- */
REF1(r_ld_s8, (uint32_t)(int32_t)(int8_t)in_bytes(c, t, 5, 1))
REF1(r_ld_s16, (uint32_t)(int32_t)(int16_t)in_bytes(c, t, 6, 2))
REF(r_ld_v2f)
{
    o[0] = in_bytes(c, t, 8, 4);
    o[1] = in_bytes(c, t, 12, 4);
}
REF(r_ld_v4)
{
    for (int k = 0; k < 4; k++) o[k] = in_bytes(c, t, 4 * k, 4);
}
REF1(r_pack2, U32(0) | (uint64_t)U32(1) << 32)
REF(r_st_v2f)
{
    (void)c;
    o[1] = U32(0) | (uint64_t)U32(1) << 32;
}
#define ATOM(name, type, expr) \
    REF(name) { (void)c; type a = (type)IN(0), b = (type)IN(1); o[0] = (uint32_t)a; o[1] = (uint32_t)(type)(expr); }
ATOM(r_atom_and, uint32_t, a & b)
ATOM(r_atom_or, uint32_t, a | b)
ATOM(r_atom_xor, uint32_t, a ^ b)
ATOM(r_atom_mins32, int32_t, a < b ? a : b)
ATOM(r_atom_dec, uint32_t, a == 0 || a > b ? b : a - 1)
REF(r_atom_cas32)
{
    (void)c;
    o[0] = U32(0);
    o[1] = U32(0) == U32(1) ? U32(2) : U32(0);
}
/* atom.add.f32 on shared memory keeps subnormals (the H100; its global
 * form flushes them). */
REF(r_atom_shared_addf32)
{
    (void)c;
    o[0] = U32(0);
    o[1] = b32(F32(0) + F32(1));
}
REF(r_red_add)
{
    (void)c;
    o[0] = o[1] = (uint32_t)(U32(0) + U32(1));
}
REF(r_fence)
{
    (void)c;
    o[0] = o[2] = U32(0);
}

/* ---- blocks and warps ------------------------------------------------------------- */
/* bar.red over the whole block (OPS_BLOCK threads from t's block's first). */
#define BLOCK_LOOP(body) \
    int base = t - t % OPS_BLOCK; \
    for (int l = base; l < base + OPS_BLOCK; l++) { body; }
REF(r_bar_popc)
{
    uint32_t n = 0;
    BLOCK_LOOP(n += (uint32_t)(LANE(l, 0) & 1))
    o[0] = n;
}
REF(r_bar_or)
{
    uint32_t d = 0;
    BLOCK_LOOP(d |= (uint32_t)(LANE(l, 0) & 1))
    o[0] = d;
}
REF(r_bar_and)
{
    uint32_t d = 1;
    BLOCK_LOOP(d &= (uint32_t)(LANE(l, 0) & 1))
    o[0] = d;
}
#define MEMBERS(body) \
    int lane = t % 32, base = t - lane; \
    uint32_t mask = (uint32_t)IN(1); \
    if (!((mask >> lane) & 1)) return; \
    for (int l = 0; l < 32; l++) \
        if ((mask >> l) & 1) { body; }
REF(r_all)
{
    uint32_t d = 1;
    MEMBERS(d &= (uint32_t)(LANE(base + l, 0) & 1))
    o[0] = d;
}
REF(r_uni)
{
    uint32_t any = 0, all = 1;
    MEMBERS(any |= (uint32_t)(LANE(base + l, 0) & 1); all &= (uint32_t)(LANE(base + l, 0) & 1))
    o[0] = any == all;
}
REF(r_yz)
{
    (void)c;
    (void)t;
    o[0] = 0;   /* %tid.y */
    o[1] = 1;   /* %ntid.z */
    o[2] = 1;   /* %nctaid.y */
    o[3] = 0;   /* %ctaid.z */
}
REF1(r_true, 1)
/* WARP_SZ, PTX's predefined constant (cuda_fp16.hpp's __half shuffles read it) */
REF1(r_warp_sz, 32)

#define CARRY32(first) "add.cc.u32 $d0, $a0, $a1;\n\t" first " $d1, $a2, $a3;"
#define MEMBERS_ONLY(op) "mov.u32 %r15, %laneid;\n\tshr.b32 %r15, $a1, %r15;\n\tand.b32 %r15, %r15, 1;\n\t" \
                         "setp.eq.s32 %p16, %r15, 0;\n\t@%p16 bra $Lskip;\n\t" op "\n$Lskip:"
#define ATOM32 "st.global.u32 [%rd18+8], $a0;\n\t$F $d0, [%rd18+8], $a1;\n\tld.global.u32 $d1, [%rd18+8];"
#define FENCE "st.global.u32 [%rd18+16], $a0;\n\t$F;\n\tld.global.u32 $d0, [%rd18+16];"
#define ORDERED(a, b) "$F %r9, " a ";\n\t$F %r10, " b ";\n\tsetp.lt.u32 %p16, %r9, %r10;\n\tselp.u32 $d0, 1, 0, %p16;"

const struct ops_row ops_extra_rows[] = {
    {"add.cc.u32", "", "rr:rrrr", CARRY32("addc.u32"), 0, r_addc32},
    {"addc.u32", "", "rr:rrrr", CARRY32("addc.u32"), 0, r_addc32},
    {"addc.cc.u32", "", "rrr:rrrr", CARRY32("addc.cc.u32") "\n\taddc.u32 $d2, 0, 0;", 0, r_addc32_out},
    {"sub.cc.u32", "", "rrr:rrrr", "$F $d0, $a0, $a1;\n\tsubc.cc.u32 $d1, $a2, $a3;\n\tsubc.u32 $d2, 0, 0;",
     OPS_EQ01, r_subc32},
    {"subc.cc.u32", "", "rrr:rrrr", "sub.cc.u32 $d0, $a0, $a1;\n\t$F $d1, $a2, $a3;\n\tsubc.u32 $d2, 0, 0;",
     OPS_EQ01, r_subc32},
    {"add.cc.u64", "", "RR:RRRR", "$F $d0, $a0, $a1;\n\taddc.u64 $d1, $a2, $a3;", 0, r_addc64},
    {"bfe.u32", "", "r:rrr", 0, SMALL(1) | SMALL(2), r_bfe_u32},
    {"bfe.s32", "", "r:rrr", 0, SMALL(1) | SMALL(2), r_bfe_s32},
    {"bfe.u64", "", "R:Rrr", 0, SMALL(1) | SMALL(2), r_bfe_u64},
    {"bfe.s64", "", "R:Rrr", 0, SMALL(1) | SMALL(2), r_bfe_s64},
    {"shf.l.wrap.b32", "", "r:rrr", 0, SMALL(2), r_shf_lw},
    {"shf.l.clamp.b32", "", "r:rrr", 0, SMALL(2), r_shf_lc},
    {"shf.r.wrap.b32", "", "r:rrr", 0, SMALL(2), r_shf_rw},
    {"shf.r.clamp.b32", "", "r:rrr", 0, SMALL(2), r_shf_rc},
    {"lop3.b32", "0x96", "r:rrr", "$F $d0, $a0, $a1, $a2, 0x96;", 0, r_lop3_96},
    {"lop3.b32", "0xe8", "r:rrr", "$F $d0, $a0, $a1, $a2, 0xe8;", 0, r_lop3_e8},
    {"clz.b32", "", "r:r", 0, 0, r_clz32},
    {"popc.b64", "", "r:R", 0, 0, r_popc64},
    {"brev.b64", "", "R:R", 0, 0, r_brev64},
    {"bfind.u32", "", "r:r", 0, 0, r_bfind_u32},
    {"bfind.s32", "", "r:r", 0, 0, r_bfind_s32},
    {"mul.hi.u32", "", "r:rr", 0, 0, r_mulhi_u32},
    {"mul.hi.s32", "", "r:rr", 0, 0, r_mulhi_s32},
    {"mad.wide.u32", "", "R:rrR", 0, 0, r_madwide_u32},
    {"sad.s32", "", "r:rrr", 0, 0, r_sad_s32},
    {"sad.u32", "", "r:rrr", 0, 0, r_sad_u32},
    {"min.s32", "", "r:rr", 0, 0, r_mins32},
    {"max.u32", "", "r:rr", 0, 0, r_maxu32},
    {"abs.s32", "", "r:r", 0, 0, r_abs32},
    {"div.s32", "", "r:rr", 0, 0, r_divs32},
    {"rem.s32", "", "r:rr", 0, 0, r_rems32},
    {"rem.u64", "", "R:RR", 0, 0, r_remu64},
    {"div.s64", "", "R:RR", 0, 0, r_divs64},
    {"rem.s64", "", "R:RR", 0, 0, r_rems64},
    {"min.f32", "", "f:ff", 0, OPS_EQ01, r_minf},
    {"div.rn.f32", "", "f:ff", 0, 0, r_divrnf},
    {"sqrt.rn.f32", "", "f:f", 0, 0, r_sqrtf},
    {"sqrt.rn.f64", "", "F:F", 0, 0, r_sqrtd},
    {"abs.f32", "", "f:f", 0, 0, r_absf},
    {"neg.f64", "", "F:F", 0, 0, r_negd},
    {"setp.eq.f32", "", "p:ff", 0, OPS_EQ01, r_eqf},
    {"setp.ne.f32", "", "p:ff", 0, OPS_EQ01, r_nef},
    {"setp.ge.f32", "", "p:ff", 0, OPS_EQ01, r_gef},
    {"setp.le.f32", "", "p:ff", 0, OPS_EQ01, r_lef},
    {"setp.num.f32", "", "p:ff", 0, 0, r_numf},
    {"setp.nan.f32", "", "p:ff", 0, 0, r_nanf},
    {"setp.lt.f64", "", "p:FF", 0, OPS_EQ01, r_ltd},
    {"cvt.rzi.u32.f32", "", "r:f", 0, 0, r_cvt_u32_f32},
    {"cvt.rni.s32.f32", "", "r:f", 0, 0, r_cvt_rni_s32_f32},
    {"cvt.rn.f32.s32", "", "f:r", 0, 0, r_cvt_f32_s32},
    {"cvt.rn.f32.s64", "", "f:R", 0, 0, r_cvt_f32_s64},
    {"ld.global.s8", "", "r:RR", "$F $d0, [%rd17+5];", 0, r_ld_s8},
    {"ld.global.s16", "", "r:RR", "$F $d0, [%rd17+6];", 0, r_ld_s16},
    {"ld.global.v2.f32", "", "ff:RR", "$F {$d0, $d1}, [%rd17+8];", 0, r_ld_v2f},
    {"st.global.v2.f32", "", ":ff", "$F [%rd18+8], {$a0, $a1};", 0, r_st_v2f},
    {"ld.shared.v4.u32", "", "rrrr:RR", "st.shared.u64 [%r20], $a0;\n\tst.shared.u64 [%r20+8], $a1;\n\t"
     "$F {$d0, $d1, $d2, $d3}, [%r20];", 0, r_ld_v4},
    {"st.shared.v2.u32", "", "R:rr", "$F [%r20+8], {$a0, $a1};\n\tld.shared.u64 $d0, [%r20+8];", 0, r_pack2},
    {"atom.global.and.b32", "", "rr:rr", ATOM32, 0, r_atom_and},
    {"atom.global.or.b32", "", "rr:rr", ATOM32, 0, r_atom_or},
    {"atom.global.xor.b32", "", "rr:rr", ATOM32, 0, r_atom_xor},
    {"atom.global.min.s32", "", "rr:rr", ATOM32, 0, r_atom_mins32},
    {"atom.global.dec.u32", "", "rr:rr", ATOM32, OPS_EQ01, r_atom_dec},
    {"atom.shared.add.f32", "", "ff:ff", "st.shared.f32 [%r20], $a0;\n\t$F $d0, [%r20], $a1;\n\t"
     "ld.shared.f32 $d1, [%r20];", 0, r_atom_shared_addf32},
    {"atom.global.cas.b32", "", "rr:rrr", "st.global.u32 [%rd18+8], $a0;\n\t$F $d0, [%rd18+8], $a1, $a2;\n\t"
     "ld.global.u32 $d1, [%rd18+8];", OPS_EQ01, r_atom_cas32},
    {"red.global.add.u32", "", "r:rr", "st.global.u32 [%rd18+8], $a0;\n\t$F [%rd18+8], $a1;\n\t"
     "ld.global.u32 $d0, [%rd18+8];", 0, r_red_add},
    {"membar.cta", "", "r:r", FENCE, 0, r_fence},
    {"fence.acq_rel.gpu", "", "r:r", FENCE, 0, r_fence},
    {"fence.sc.gpu", "", "r:r", FENCE, 0, r_fence},
    {"bar.red.popc.u32", "", "r:p", "$F $d0, 0, $a0;", 0, r_bar_popc},
    {"bar.red.or.pred", "", "p:p", "$F $d0, 0, $a0;", 0, r_bar_or},
    {"bar.red.and.pred", "", "p:p", "$F $d0, 0, $a0;", 0, r_bar_and},
    {"vote.sync.all.pred", "", "p:pr", MEMBERS_ONLY("$F $d0, $a0, $a1;"), MASK(1), r_all},
    {"vote.sync.uni.pred", "", "p:pr", MEMBERS_ONLY("$F $d0, $a0, $a1;"), MASK(1), r_uni},
    {"mov.u32", "y and z", "rrrr:", "$F $d0, %tid.y;\n\t$F $d1, %ntid.z;\n\t$F $d2, %nctaid.y;\n\t"
     "$F $d3, %ctaid.z;", 0, r_yz},
    {"mov.u32", "%smid below %nsmid", "r:", ORDERED("%smid", "%nsmid"), 0, r_true},
    {"mov.u32", "WARP_SZ", "r:", "$F $d0, WARP_SZ;", 0, r_warp_sz},
    {"mov.u32", "%warpid below %nwarpid", "r:", ORDERED("%warpid", "%nwarpid"), 0, r_true},
    {"mov.u64", "%clock64", "r:", "$F %rd19, %clock64;\n\t$F %rd22, %clock64;\n\t"
     "setp.ge.u64 %p16, %rd22, %rd19;\n\tselp.u32 $d0, 1, 0, %p16;", 0, r_true},
    /* The approximations: their bits are the GPU's own (emu_decode.c), so
     * each must be refused, never run with the host's functions; the GPU
     * differential still runs them, for the record. */
    {"div.approx.f32", "", "f:ff", 0, OPS_REFUSED, NULL},
    {"div.full.f32", "", "f:ff", 0, OPS_REFUSED, NULL},
    {"rcp.approx.ftz.f32", "", "f:f", 0, OPS_REFUSED, NULL},
    {"rcp.approx.ftz.f64", "", "F:F", 0, OPS_REFUSED, NULL},
    {"sqrt.approx.f32", "", "f:f", 0, OPS_REFUSED, NULL},
    {"rsqrt.approx.f32", "", "f:f", 0, OPS_REFUSED, NULL},
    {"ex2.approx.ftz.f32", "", "f:f", 0, OPS_REFUSED, NULL},
    {"lg2.approx.f32", "", "f:f", 0, OPS_REFUSED, NULL},
    {"sin.approx.f32", "", "f:f", 0, OPS_REFUSED, NULL},
    {"cos.approx.ftz.f32", "", "f:f", 0, OPS_REFUSED, NULL},
    {"tanh.approx.f32", "", "f:f", 0, OPS_REFUSED, NULL},
    {"ex2.approx.f16", "", "h:h", 0, OPS_REFUSED, NULL},
};
const int ops_extra_nrows = (int)(sizeof ops_extra_rows / sizeof ops_extra_rows[0]);
