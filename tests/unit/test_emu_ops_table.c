/* test_emu_ops_table.c — the forms table: every instruction form the
 * corpus uses (tests/emu/forms.sh), how a tiny kernel runs it, and its
 * result written from the PTX ISA's definition.  Where the ISA leaves a
 * result to the machine (integer division by zero, the bits of a NaN an
 * operation returns, bit-field operands past 255), the reference pins what
 * the H100 gives, as tests/device/emu-diff.sh found it: the emulator is
 * held to those bits here, without a GPU. */
#include "test_emu_ops_ref.h"

/* ---- integers ------------------------------------------------------------ */
REF1(r_add32, (uint32_t)(U32(0) + U32(1)))
REF1(r_add32_imm, (uint32_t)(U32(0) - 7u))
REF1(r_shl32_imm5, (uint32_t)(U32(0) << 5))
REF1(r_shl32_imm40, 0u)
REF1(r_sub32, (uint32_t)(U32(0) - U32(1)))
REF1(r_mullo32, (uint32_t)(U32(0) * U32(1)))
REF1(r_mad32, (uint32_t)(U32(0) * U32(1) + U32(2)))
REF1(r_and32, U32(0) & U32(1))
REF1(r_or32, U32(0) | U32(1))
REF1(r_xor32, U32(0) ^ U32(1))
REF1(r_not32, (uint32_t)~U32(0))
REF1(r_neg32, (uint32_t)(0u - U32(0)))
REF1(r_minu32, U32(0) < U32(1) ? U32(0) : U32(1))
REF1(r_maxs32, (uint32_t)(S32(0) > S32(1) ? S32(0) : S32(1)))
/* Division by zero: the ISA leaves it to the machine; the H100 gives all
 * ones for the quotient and for the remainder. */
REF1(r_divu32, U32(1) ? U32(0) / U32(1) : 0xffffffffu)
REF1(r_remu32, U32(1) ? U32(0) % U32(1) : 0xffffffffu)
REF1(r_divu64, IN(1) ? IN(0) / IN(1) : ~0ull)
/* Shifts: an amount past the width counts as the width. */
REF1(r_shl32, U32(1) > 31 ? 0 : (uint32_t)(U32(0) << U32(1)))
REF1(r_shl32_imm, (uint32_t)(U32(0) << 3))
REF1(r_shru32, U32(1) > 31 ? 0 : U32(0) >> U32(1))
REF1(r_shru16, U32(1) > 15 ? 0 : (uint16_t)(IN(0) & 0xffff) >> U32(1))
REF1(r_and16, (uint16_t)(IN(0) & IN(1)))
REF1(r_sub16, (uint16_t)(IN(0) - IN(1)))
REF1(r_mullo16, (uint16_t)((uint32_t)(uint16_t)IN(0) * (uint16_t)IN(1)))
REF1(r_mulwideu16, (uint32_t)(uint16_t)IN(0) * (uint16_t)IN(1))
REF1(r_shrs32, (uint32_t)(S32(0) >> (U32(1) > 31 ? 31 : U32(1))))
REF1(r_shl64, U32(1) > 63 ? 0 : IN(0) << U32(1))
REF1(r_shru64, U32(1) > 63 ? 0 : IN(0) >> U32(1))
REF1(r_shrs64, (uint64_t)(S64(0) >> (U32(1) > 63 ? 63 : U32(1))))
REF1(r_add64, IN(0) + IN(1))
REF1(r_sub64, IN(0) - IN(1))
REF1(r_mullo64, IN(0) * IN(1))
REF1(r_mulhiu64, (uint64_t)(((unsigned __int128)IN(0) * IN(1)) >> 64))
REF1(r_mulwides32, (uint64_t)((int64_t)S32(0) * S32(1)))
REF1(r_mulwideu32, (uint64_t)U32(0) * U32(1))
REF1(r_and64, IN(0) & IN(1))
REF1(r_or64, IN(0) | IN(1))
REF1(r_xor64, IN(0) ^ IN(1))
REF1(r_not64, ~IN(0))
REF1(r_neg64, 0 - IN(0))
REF1(r_minu64, IN(0) < IN(1) ? IN(0) : IN(1))
REF1(r_maxu64, IN(0) > IN(1) ? IN(0) : IN(1))
REF1(r_popc32, (uint64_t)__builtin_popcount(U32(0)))
/* bfind.shiftamt: the left shift that brings the highest 1 to bit 31. */
REF1(r_bfindsa32, U32(0) ? (uint64_t)__builtin_clz(U32(0)) : 0xffffffffu)
REF(r_brev32)
{
    (void)c;
    uint32_t a = U32(0), d = 0;
    for (int i = 0; i < 32; i++) d |= ((a >> i) & 1u) << (31 - i);
    o[0] = d;
}
/* bfi: b with bits [pos, pos+len) from a's low bits, bits past the top
 * not inserted.  The ISA takes pos and len below 256; the H100's bfi.b32
 * reads c's and d's low bytes, its bfi.b64 the whole words. */
static uint64_t bfi(uint64_t a, uint64_t b, uint64_t pos, uint64_t len, int msb)
{
    for (uint64_t i = 0; i < len && pos + i <= (uint64_t)msb; i++)
        b = (b & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
    return b;
}
REF1(r_bfi32, bfi(U32(0), U32(1), U32(2) & 0xff, U32(3) & 0xff, 31))
REF1(r_bfi32_imm, bfi(U32(0), U32(1), 7, 25, 31))
REF1(r_bfi64, bfi(IN(0), IN(1), U32(2), U32(3), 63))
REF1(r_bfi64_imm, bfi(IN(0), IN(1), 32, 32, 63))
/* prmt's generic mode: four selector nibbles over the bytes {b, a}; a
 * selector's bit 3 replicates the chosen byte's sign bit. */
static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t src = ((uint64_t)b << 32) | a;
    uint32_t d = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t sel = (c >> (4 * i)) & 0xf;
        uint32_t byte = (uint32_t)(src >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        d |= byte << (8 * i);
    }
    return d;
}
REF1(r_prmt, prmt(U32(0), U32(1), U32(2)))
REF1(r_prmt_30212, prmt(U32(0), U32(1), 30212))
REF1(r_prmt_4180, prmt(U32(0), U32(1), 4180))

/* ---- predicates, comparisons, selection --------------------------------- */
REF1(r_andp, IN(0) & IN(1))
REF1(r_orp, IN(0) | IN(1))
REF1(r_xorp, IN(0) ^ IN(1))
REF1(r_notp, !IN(0))
REF1(r_copy0, IN(0))
REF1(r_one, 1)
#define CMP(name, type, op) REF1(name, (type)IN(0) op (type)IN(1))
CMP(r_eq32, uint32_t, ==)
CMP(r_ne32, uint32_t, !=)
CMP(r_eq16, uint16_t, ==)
CMP(r_ne16, uint16_t, !=)
CMP(r_eq64, uint64_t, ==)
CMP(r_ne64, uint64_t, !=)
CMP(r_ges32, int32_t, >=)
CMP(r_gts32, int32_t, >)
CMP(r_les32, int32_t, <=)
CMP(r_lts32, int32_t, <)
CMP(r_geu32, uint32_t, >=)
CMP(r_gtu32, uint32_t, >)
CMP(r_leu32, uint32_t, <=)
CMP(r_ltu32, uint32_t, <)
CMP(r_geu64, uint64_t, >=)
CMP(r_gtu64, uint64_t, >)
CMP(r_leu64, uint64_t, <=)
CMP(r_ltu64, uint64_t, <)
CMP(r_gts64, int64_t, >)
CMP(r_lts64, int64_t, <)
REF1(r_ltu32_imm, U32(0) < 32)
/* Ordered comparisons are false on a NaN, unordered ones true. */
REF1(r_gtf, F32(0) > F32(1))
REF1(r_ltf, F32(0) < F32(1))
REF1(r_gtuf, isnan(F32(0)) || isnan(F32(1)) || F32(0) > F32(1))
REF1(r_leuf, isnan(F32(0)) || isnan(F32(1)) || F32(0) <= F32(1))
REF1(r_ltuf, isnan(F32(0)) || isnan(F32(1)) || F32(0) < F32(1))
REF1(r_neuf, F32(0) != F32(1))
REF1(r_gtud, isnan(F64(0)) || isnan(F64(1)) || F64(0) > F64(1))
REF1(r_selp, IN(2) ? IN(0) : IN(1))
REF1(r_selp_imm, IN(0) ? 1 : 0)

/* ---- moves ---------------------------------------------------------------- */
REF1(r_pack32x2, U32(0) | (uint64_t)U32(1) << 32)
REF(r_unpack64)
{
    (void)c;
    o[0] = (uint32_t)IN(0);
    o[1] = IN(0) >> 32;
}
REF1(r_f32_one, 0x3f800000)
REF(r_special)
{
    (void)c;
    o[0] = (uint32_t)(t % OPS_BLOCK);
    o[1] = OPS_BLOCK;
    o[2] = (uint32_t)(t / OPS_BLOCK);
    o[3] = OPS_THREADS / OPS_BLOCK;
}
REF1(r_laneid, (uint64_t)(t % 32))

/* ---- floating point ------------------------------------------------------- */
/* The ISA leaves a NaN result's bits open; these are the H100's: an f32
 * NaN is always 0x7fffffff (abs and neg included), an f64 one the last NaN
 * operand's, quietened (d64), and f64 abs and neg quieten a NaN without
 * touching its sign. */
REF1(r_addf, b32(F32(0) + F32(1)))
REF1(r_subf, b32(F32(0) - F32(1)))
REF1(r_mulf, b32(F32(0) * F32(1)))
REF1(r_fmaf, b32(fmaf(F32(0), F32(1), F32(2))))
REF1(r_rcpf, b32(1.0f / F32(0)))
REF1(r_negf, isnan(F32(0)) ? 0x7fffffffu : U32(0) ^ 0x80000000u)
/* max.f32: a NaN operand gives the other one, two NaNs the canonical NaN,
 * and +0 is above -0. */
REF(r_maxf)
{
    (void)c;
    float a = F32(0), b = F32(1);
    if (isnan(a) && isnan(b)) o[0] = 0x7fffffff;
    else if (isnan(a)) o[0] = U32(1);
    else if (isnan(b)) o[0] = U32(0);
    else if (a == b) o[0] = signbit(a) ? U32(1) : U32(0);
    else o[0] = a > b ? U32(0) : U32(1);
}
REF1(r_addd, d64(F64(0) + F64(1), IN(0), IN(1), 0))
REF1(r_subd, d64(F64(0) - F64(1), IN(0), IN(1), 0))
REF1(r_muld, d64(F64(0) * F64(1), IN(0), IN(1), 0))
/* div: a's NaN before b's; fma: b's, then c's, then a's (the H100's order,
 * d64 takes the last it is given first). */
REF1(r_divd, d64(F64(0) / F64(1), 0, IN(1), IN(0)))
REF1(r_fmad, d64(fma(F64(0), F64(1), F64(2)), IN(0), IN(2), IN(1)))
REF1(r_rcpd, d64(1.0 / F64(0), IN(0), 0, 0))
REF1(r_absd, isnan(F64(0)) ? IN(0) | 1ull << 51 : IN(0) & ~(1ull << 63))

/* ---- conversions: float to integer saturates, NaN to 0 -------------------- */
/* A NaN between the widths keeps its sign and payload (f32 to f64 shifted
 * up 29 bits, f64 to f32 the top 22), quietened: the H100's bits. */
REF1(r_cvt_f64_f32, isnan(F32(0)) ? (IN(0) >> 31) << 63 | 0x7ff8000000000000ull | (IN(0) & 0x7fffff) << 29
                                  : b64((double)F32(0)))
REF1(r_cvt_f32_f64, isnan(F64(0)) ? (uint32_t)(IN(0) >> 63) << 31 | 0x7fc00000u | ((IN(0) >> 29) & 0x3fffff)
                                  : b32((float)F64(0)))
REF1(r_cvt_f32_u32, b32((float)U32(0)))
REF1(r_cvt_f64_s32, b64((double)S32(0)))
REF1(r_cvt_f64_u32, b64((double)U32(0)))
REF1(r_cvt_f64_u64, b64((double)IN(0)))
REF1(r_cvt_rni, b32(nearbyintf(F32(0))))
REF1(r_cvt_rzi, b32(truncf(F32(0))))
REF(r_cvt_s32_f32)
{
    (void)c;
    float a = F32(0);
    int32_t d = isnan(a) ? 0 : a >= 2147483648.0f ? INT32_MAX : a < -2147483648.0f ? INT32_MIN
                                                                                  : (int32_t)a;
    o[0] = (uint32_t)d;
}
REF1(r_cvt_s64_s32, (uint64_t)(int64_t)S32(0))
REF1(r_cvt_u32_u64, (uint32_t)IN(0))
REF1(r_cvt_u16_u64, (uint16_t)IN(0))
REF1(r_cvt_u64_u32, (uint64_t)U32(0))
REF1(r_cvt_u16_u32, (uint16_t)U32(0))
REF1(r_cvt_u32_u16, (uint32_t)(uint16_t)IN(0))

/* ---- addresses and memory ------------------------------------------------- */
REF(r_cvta_to_global)
{
    (void)c;
    o[0] = 0;
    o[1] = IN(0);
}
REF1(r_zero, 0)
#define LOAD(name, off, n) REF1(name, in_bytes(c, t, off, n))
LOAD(r_ld4, 4, 4)
LOAD(r_ld8, 8, 8)
LOAD(r_ld1, 5, 1)
REF(r_ld_v2x64)
{
    o[0] = in_bytes(c, t, 0, 8);
    o[1] = in_bytes(c, t, 8, 8);
}
REF(r_ld_v4x32)
{
    for (int k = 0; k < 4; k++) o[k] = in_bytes(c, t, 4 * k, 4);
}
REF1(r_ldp4, param_bytes(c, 4, 4))
REF1(r_ldp4lo, param_bytes(c, 0, 4))
REF1(r_ldp8, c->param)
REF1(r_ldp_s8, (uint16_t)(int16_t)(int8_t)param_bytes(c, 3, 1))
REF(r_ldp_v2)
{
    (void)t;
    o[0] = param_bytes(c, 0, 4);
    o[1] = param_bytes(c, 4, 4);
}
REF(r_ldp_v4u8)
{
    (void)t;
    for (int i = 0; i < 4; i++)
        o[i] = param_bytes(c, i, 1);
}
REF(r_ldc)
{
    (void)t;
    uint32_t w;
    memcpy(&w, c->cst + 4, 4);
    o[0] = w;
}
REF(r_st_global4)
{
    (void)c;
    o[1] = (uint64_t)U32(0) << 32;
}
REF(r_st_global8)
{
    (void)c;
    o[1] = IN(0);
}
REF(r_st_global2)
{
    (void)c;
    o[1] = (IN(0) & 0xffff) << 32;
}
REF(r_st_global1)
{
    (void)c;
    o[1] = (IN(0) & 0xff) << 40;
}
REF(r_st_global_v4)
{
    (void)c;
    o[2] = U32(0) | (uint64_t)U32(1) << 32;
    o[3] = U32(2) | (uint64_t)U32(3) << 32;
}
/* A 4-byte store at +4 into a word that held input 1. */
REF1(r_st4_into, (IN(1) & 0xffffffffu) | (uint64_t)U32(0) << 32)
REF1(r_st1_into, (IN(1) & ~(0xffull << 40)) | (IN(0) & 0xff) << 40)
REF(r_st_v4u8)
{
    (void)c;
    o[0] = (IN(0) & 0xff) | (IN(1) & 0xff) << 8 | (IN(2) & 0xff) << 16 | (IN(3) & 0xff) << 24;
}
REF(r_st_v4f)
{
    (void)c;
    o[0] = U32(0) | (uint64_t)U32(1) << 32;
    o[1] = U32(2) | (uint64_t)U32(3) << 32;
}

/* ---- atomics: the old value in slot 0, the word after in slot 1 ----------- */
#define ATOM(name, type, expr) \
    REF(name) { (void)c; type a = (type)IN(0), b = (type)IN(1); o[0] = a; o[1] = (type)(expr); }
ATOM(r_atom_addu32, uint32_t, a + b)
ATOM(r_atom_incu32, uint32_t, a >= b ? 0 : a + 1)
ATOM(r_atom_maxu32, uint32_t, a > b ? a : b)
ATOM(r_atom_exch32, uint32_t, b)
ATOM(r_atom_addu64, uint64_t, a + b)
ATOM(r_atom_exch64, uint64_t, b)
ATOM(r_atom_minu64, uint64_t, a < b ? a : b)
REF(r_atom_cas64)
{
    (void)c;
    o[0] = IN(0);
    o[1] = IN(0) == IN(1) ? IN(2) : IN(0);
}
/* The f32 add flushes subnormal inputs and results to sign-preserving
 * zero (the ISA's note on atom.add.f32); a NaN is 0x7fffffff. */
REF(r_atom_addf32)
{
    (void)c;
    o[0] = U32(0);
    o[1] = b32(ftz(ftz(F32(0)) + ftz(F32(1))));
}
/* The f64 add returns a NaN operand as it is, the added value's first:
 * the H100's bits. */
REF(r_atom_addf64)
{
    (void)c;
    o[0] = IN(0);
    o[1] = isnan(F64(1)) ? IN(1) : isnan(F64(0)) ? IN(0) : b64(F64(0) + F64(1));
}
/* Every thread adds its input to one word: thread 0 finds the sum. */
REF(r_atom_contended)
{
    if (t != 0) return;
    uint32_t s = 0;
    for (int i = 0; i < OPS_THREADS; i++) s += (uint32_t)LANE(i, 0);
    o[3] = s;
}

/* ---- control flow and barriers -------------------------------------------- */
REF1(r_branch, IN(0) ? U32(2) : U32(1))
REF1(r_branch_not, IN(0) ? U32(1) : U32(2))
REF1(r_guarded_add, IN(0) ? (uint32_t)(U32(1) + U32(2)) : 0)
REF1(r_addf_imm, b32(F32(0) + 1.0f))
REF1(r_muld_imm, d64(F64(0) * -2.5, IN(0), 0xc004000000000000ull, 0))
REF(r_ret)
{
    (void)c;
    o[0] = U32(1);
    o[1] = IN(0) ? 0 : U32(2);
}
REF1(r_plus7, (uint32_t)((uint32_t)IN(0) + 7u))
REF1(r_bar, (uint32_t)LANE(t ^ 64, 0))
REF1(r_barwarp, (uint32_t)LANE(t ^ 1, 0))
REF(r_membar)
{
    (void)c;
    o[0] = U32(0);
    o[2] = U32(0);
}

/* ---- warps ---------------------------------------------------------------- */
/* shfl.sync with every lane taking part: the source lane j from b and c's
 * clamp (bits 4:0) and segment mask (bits 12:8); out of range, the own. */
static void shfl(const struct ops_ctx *c, int t, uint64_t o[OPS_SLOTS], char mode)
{
    int lane = t % 32, base = t - lane;
    uint32_t b = (uint32_t)IN(1) & 31, cv = (uint32_t)IN(2) & 31, seg = ((uint32_t)IN(2) >> 8) & 31;
    int maxl = (int)((lane & seg) | (cv & ~seg)), minl = (int)(lane & seg), j = lane, in;
    switch (mode) {
    case 'u': j = lane - (int)b; in = j >= maxl; break;
    case 'd': j = lane + (int)b; in = j <= maxl; break;
    case 'b': j = lane ^ (int)b; in = j <= maxl; break;
    default: j = minl | (int)(b & ~seg); in = j <= maxl; break;
    }
    if (!in) j = lane;
    o[0] = (uint32_t)LANE(base + j, 0);
    o[1] = (uint64_t)in;
}
REF(r_shfl_up) { shfl(c, t, o, 'u'); }
REF(r_shfl_down) { shfl(c, t, o, 'd'); }
REF(r_shfl_bfly) { shfl(c, t, o, 'b'); }
REF(r_shfl_idx) { shfl(c, t, o, 'i'); }
REF(r_shfl_down_nop)
{
    shfl(c, t, o, 'd');
    o[1] = 0;
}
/* vote and redux over the lanes of the member mask (input 1, uniform);
 * lanes outside it skip the instruction and keep 0. */
#define MEMBERS(body) \
    int lane = t % 32, base = t - lane; \
    uint32_t mask = (uint32_t)IN(1); \
    if (!((mask >> lane) & 1)) return; \
    for (int l = 0; l < 32; l++) \
        if ((mask >> l) & 1) { body; }
REF(r_ballot)
{
    uint32_t d = 0;
    MEMBERS(d |= (uint32_t)(LANE(base + l, 0) & 1) << l)
    o[0] = d;
}
REF(r_any)
{
    uint32_t d = 0;
    MEMBERS(d |= (uint32_t)(LANE(base + l, 0) & 1))
    o[0] = d;
}
REF(r_redux_add)
{
    uint32_t d = 0;
    MEMBERS(d += (uint32_t)LANE(base + l, 0))
    o[0] = d;
}

/* ---- the table ------------------------------------------------------------ */
/* Bodies shared by several rows. */
#define LD_G4 "$F $d0, [%rd17+4];"
#define LD_G8 "$F $d0, [%rd17+8];"
#define LD_GV4 "$F {$d0, $d1, $d2, $d3}, [%rd17];"
#define LD_SH(off) "st.shared.u64 [%r20], $a0;\n\tst.shared.u64 [%r20+8], $a1;\n\t$F $d0, [%r20+" off "];"
#define LD_LOC(off) "mov.u64 %rd19, loc;\n\tst.local.u64 [%rd19], $a0;\n\tst.local.u64 [%rd19+8], $a1;\n\t" \
                    "$F $d0, [%rd19+" off "];"
#define ST_SH4 "st.shared.u64 [%r20], $a1;\n\t$F [%r20+4], $a0;\n\tld.shared.u64 $d0, [%r20];"
#define ST_LOC4 "mov.u64 %rd19, loc;\n\tst.local.u64 [%rd19], $a1;\n\t$F [%rd19+4], $a0;\n\t" \
                "ld.local.u64 $d0, [%rd19];"
#define ATOM32 "st.global.u32 [%rd18+8], $a0;\n\t$F $d0, [%rd18+8], $a1;\n\tld.global.u32 $d1, [%rd18+8];"
#define ATOM64 "st.global.u64 [%rd18+8], $a0;\n\t$F $d0, [%rd18+8], $a1;\n\tld.global.u64 $d1, [%rd18+8];"
/* The same through another address of the word (a generic one). */
#define ATOM32_AT(at) "st.global.u32 [%rd18+8], $a0;\n\t$F $d0, [" at "+8], $a1;\n\tld.global.u32 $d1, [%rd18+8];"
#define ATOM64_AT(at) "st.global.u64 [%rd18+8], $a0;\n\t$F $d0, [" at "+8], $a1;\n\tld.global.u64 $d1, [%rd18+8];"
#define ATOMF32 "st.global.f32 [%rd18+8], $a0;\n\t$F $d0, [%rd18+8], $a1;\n\tld.global.f32 $d1, [%rd18+8];"
#define ATOMF64 "st.global.f64 [%rd18+8], $a0;\n\t$F $d0, [%rd18+8], $a1;\n\tld.global.f64 $d1, [%rd18+8];"
#define CALL "{\n\t.param .b64 p0;\n\tst.param.b64 [p0], $a0;\n\t.param .b32 r0;\n\t" \
             "call.uni (r0), plus7, (p0);\n\tld.param.b32 $d0, [r0];\n\t}"
#define BRANCH(bra) "@$a0 " bra " $Lyes;\n\tmov.b32 $d0, $a1;\n\t" bra " $Lend;\n$Lyes:\n\t" \
                    "mov.b32 $d0, $a2;\n$Lend:"
#define POLICY_LD "ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {$d0, $d1, $d2, $d3}, [%rd17], %rd19;"
#define MEMBERS_ONLY(op) "mov.u32 %r15, %laneid;\n\tshr.b32 %r15, $a1, %r15;\n\tand.b32 %r15, %r15, 1;\n\t" \
                         "setp.eq.s32 %p16, %r15, 0;\n\t@%p16 bra $Lskip;\n\t" op "\n$Lskip:"

const struct ops_row ops_corpus_rows[] = {
    /* integers, 32 bits */
    {"add.s32", "", "r:rr", 0, 0, r_add32},
    {"add.s32", "immediate", "r:r", "$F $d0, $a0, -7;", 0, r_add32_imm},
    {"shl.b32", "immediate", "r:r", "$F $d0, $a0, 5;", 0, r_shl32_imm5},
    {"shl.b32", "immediate past 31", "r:r", "$F $d0, $a0, 40;", 0, r_shl32_imm40},
    {"add.s32", "guarded", "r:prr", "@$a0 $F $d0, $a1, $a2;", 0, r_guarded_add},
    {"sub.s32", "", "r:rr", 0, 0, r_sub32},
    {"mul.lo.s32", "", "r:rr", 0, 0, r_mullo32},
    {"mad.lo.s32", "", "r:rrr", 0, 0, r_mad32},
    {"and.b32", "", "r:rr", 0, 0, r_and32},
    {"and.b16", "", "h:hh", 0, 0, r_and16},
    {"sub.s16", "", "h:hh", 0, 0, r_sub16},
    {"mul.lo.s16", "", "h:hh", 0, 0, r_mullo16},
    {"mul.wide.u16", "", "r:hh", 0, 0, r_mulwideu16},
    {"or.b32", "", "r:rr", 0, 0, r_or32},
    {"xor.b32", "", "r:rr", 0, 0, r_xor32},
    {"not.b32", "", "r:r", 0, 0, r_not32},
    {"neg.s32", "", "r:r", 0, 0, r_neg32},
    {"min.u32", "", "r:rr", 0, 0, r_minu32},
    {"max.s32", "", "r:rr", 0, 0, r_maxs32},
    {"div.u32", "", "r:rr", 0, 0, r_divu32},
    {"rem.u32", "", "r:rr", 0, 0, r_remu32},
    /* a warp's one divisor (a power of two among the edges: a shift, a mask) */
    {"div.u32", "uniform divisor", "r:rr", 0, UNI(1), r_divu32},
    {"rem.u32", "uniform divisor", "r:rr", 0, UNI(1), r_remu32},
    {"shl.b32", "", "r:rr", 0, SMALL(1), r_shl32},
    {"shl.b32", "immediate", "r:r", "$F $d0, $a0, 3;", 0, r_shl32_imm},
    {"shr.u32", "", "r:rr", 0, SMALL(1), r_shru32},
    {"shr.u16", "", "h:hr", 0, SMALL(1), r_shru16},
    {"shr.s32", "", "r:rr", 0, SMALL(1), r_shrs32},
    {"popc.b32", "", "r:r", 0, 0, r_popc32},
    {"brev.b32", "", "r:r", 0, 0, r_brev32},
    {"bfind.shiftamt.u32", "", "r:r", 0, 0, r_bfindsa32},
    {"bfi.b32", "", "r:rrrr", 0, SMALL(2) | SMALL(3), r_bfi32},
    {"bfi.b32", "immediate", "r:rr", "$F $d0, $a0, $a1, 7, 25;", 0, r_bfi32_imm},
    {"prmt.b32", "", "r:rrr", 0, 0, r_prmt},
    {"prmt.b32", "30212", "r:rr", "$F $d0, $a0, $a1, 30212;", 0, r_prmt_30212},
    {"prmt.b32", "4180", "r:rr", "$F $d0, $a0, $a1, 4180;", 0, r_prmt_4180},
    /* integers, 64 bits */
    {"add.s64", "", "R:RR", 0, 0, r_add64},
    {"add.u64", "", "R:RR", 0, 0, r_add64},
    {"sub.s64", "", "R:RR", 0, 0, r_sub64},
    {"mul.lo.s64", "", "R:RR", 0, 0, r_mullo64},
    {"mul.hi.u64", "", "R:RR", 0, 0, r_mulhiu64},
    {"mul.wide.s32", "", "R:rr", 0, 0, r_mulwides32},
    {"mul.wide.u32", "", "R:rr", 0, 0, r_mulwideu32},
    {"div.u64", "", "R:RR", 0, 0, r_divu64},
    {"and.b64", "", "R:RR", 0, 0, r_and64},
    {"or.b64", "", "R:RR", 0, 0, r_or64},
    {"xor.b64", "", "R:RR", 0, 0, r_xor64},
    {"not.b64", "", "R:R", 0, 0, r_not64},
    {"neg.s64", "", "R:R", 0, 0, r_neg64},
    {"min.u64", "", "R:RR", 0, 0, r_minu64},
    {"max.u64", "", "R:RR", 0, 0, r_maxu64},
    {"shl.b64", "", "R:Rr", 0, SMALL(1), r_shl64},
    {"shr.u64", "", "R:Rr", 0, SMALL(1), r_shru64},
    {"shr.s64", "", "R:Rr", 0, SMALL(1), r_shrs64},
    {"bfi.b64", "", "R:RRrr", 0, SMALL(2) | SMALL(3), r_bfi64},
    {"bfi.b64", "immediate", "R:RR", "$F $d0, $a0, $a1, 32, 32;", 0, r_bfi64_imm},
    /* predicates */
    {"and.pred", "", "p:pp", 0, 0, r_andp},
    {"or.pred", "", "p:pp", 0, 0, r_orp},
    {"xor.pred", "", "p:pp", 0, 0, r_xorp},
    {"not.pred", "", "p:p", 0, 0, r_notp},
    {"mov.pred", "", "p:p", 0, 0, r_copy0},
    {"mov.pred", "immediate", "p:", "$F $d0, -1;", 0, r_one},
    /* comparisons */
    {"setp.eq.b32", "", "p:rr", 0, OPS_EQ01, r_eq32},
    {"setp.eq.s16", "", "p:hh", 0, OPS_EQ01, r_eq16},
    {"setp.eq.s32", "", "p:rr", 0, OPS_EQ01, r_eq32},
    {"setp.eq.s64", "", "p:RR", 0, OPS_EQ01, r_eq64},
    {"setp.ne.s16", "", "p:hh", 0, OPS_EQ01, r_ne16},
    {"setp.ne.s32", "", "p:rr", 0, OPS_EQ01, r_ne32},
    {"setp.ne.s64", "", "p:RR", 0, OPS_EQ01, r_ne64},
    {"setp.ge.s32", "", "p:rr", 0, OPS_EQ01, r_ges32},
    {"setp.gt.s32", "", "p:rr", 0, OPS_EQ01, r_gts32},
    {"setp.le.s32", "", "p:rr", 0, OPS_EQ01, r_les32},
    {"setp.lt.s32", "", "p:rr", 0, OPS_EQ01, r_lts32},
    {"setp.ge.u32", "", "p:rr", 0, OPS_EQ01, r_geu32},
    {"setp.gt.u32", "", "p:rr", 0, OPS_EQ01, r_gtu32},
    {"setp.le.u32", "", "p:rr", 0, OPS_EQ01, r_leu32},
    {"setp.lt.u32", "", "p:rr", 0, OPS_EQ01, r_ltu32},
    {"setp.lt.u32", "immediate", "p:r", "$F $d0, $a0, 32;", SMALL(0), r_ltu32_imm},
    {"setp.ge.u64", "", "p:RR", 0, OPS_EQ01, r_geu64},
    {"setp.gt.u64", "", "p:RR", 0, OPS_EQ01, r_gtu64},
    {"setp.le.u64", "", "p:RR", 0, OPS_EQ01, r_leu64},
    {"setp.lt.u64", "", "p:RR", 0, OPS_EQ01, r_ltu64},
    {"setp.gt.s64", "", "p:RR", 0, OPS_EQ01, r_gts64},
    {"setp.lt.s64", "", "p:RR", 0, OPS_EQ01, r_lts64},
    {"setp.gt.f32", "", "p:ff", 0, OPS_EQ01, r_gtf},
    {"setp.lt.f32", "", "p:ff", 0, OPS_EQ01, r_ltf},
    {"setp.gtu.f32", "", "p:ff", 0, OPS_EQ01, r_gtuf},
    {"setp.leu.f32", "", "p:ff", 0, OPS_EQ01, r_leuf},
    {"setp.ltu.f32", "", "p:ff", 0, OPS_EQ01, r_ltuf},
    {"setp.neu.f32", "", "p:ff", 0, OPS_EQ01, r_neuf},
    {"setp.gtu.f64", "", "p:FF", 0, OPS_EQ01, r_gtud},
    {"selp.b32", "", "r:rrp", 0, 0, r_selp},
    {"selp.u32", "", "r:rrp", 0, 0, r_selp},
    {"selp.b64", "", "R:RRp", 0, 0, r_selp},
    {"selp.u64", "", "R:RRp", 0, 0, r_selp},
    {"selp.f32", "", "f:ffp", 0, 0, r_selp},
    {"selp.f64", "", "F:FFp", 0, 0, r_selp},
    {"selp.u16", "", "h:hhp", 0, 0, r_selp},
    {"selp.u16", "immediate", "h:p", "$F $d0, 1, 0, $a0;", 0, r_selp_imm},
    /* moves */
    {"mov.u16", "", "h:h", 0, 0, r_copy0},
    {"mov.u16", "immediate", "h:", "$F $d0, 1;", 0, r_one},
    {"mov.u32", "", "r:r", 0, 0, r_copy0},
    {"mov.u32", "special registers", "rrrr:",
     "$F $d0, %tid.x;\n\t$F $d1, %ntid.x;\n\t$F $d2, %ctaid.x;\n\t$F $d3, %nctaid.x;", 0, r_special},
    {"mov.u32", "%laneid", "r:", "$F $d0, %laneid;", 0, r_laneid},
    {"mov.u64", "", "R:R", 0, 0, r_copy0},
    {"mov.u64", "%globaltimer", "r:",
     "$F %rd19, %globaltimer;\n\t$F %rd22, %globaltimer;\n\tsetp.ge.u64 %p16, %rd22, %rd19;\n\t"
     "selp.u32 $d0, 1, 0, %p16;", 0, r_one},
    {"mov.b32", "", "r:f", 0, 0, r_copy0},
    {"mov.b32", "to f32", "f:r", 0, 0, r_copy0},
    {"mov.b64", "", "R:R", 0, 0, r_copy0},
    {"mov.b64", "pack", "R:rr", "$F $d0, {$a0, $a1};", 0, r_pack32x2},
    {"mov.b64", "unpack", "rr:R", "$F {$d0, $d1}, $a0;", 0, r_unpack64},
    {"mov.b64", "pack f64", "F:rr", "$F $d0, {$a0, $a1};", 0, r_pack32x2},
    {"mov.b64", "unpack f64", "rr:F", "$F {$d0, $d1}, $a0;", 0, r_unpack64},
    {"mov.b64", "parameter address", "R:", "$F %rd19, t_p;\n\tld.param.u64 $d0, [%rd19];", 0, r_ldp8},
    {"mov.f32", "", "f:f", 0, 0, r_copy0},
    {"mov.f32", "immediate", "f:", "$F $d0, 0f3F800000;", 0, r_f32_one},
    {"mov.f64", "", "F:F", 0, 0, r_copy0},
    /* floating point */
    {"add.f32", "", "f:ff", 0, 0, r_addf},
    {"add.f32", "immediate", "f:f", "$F $d0, $a0, 0f3F800000;", 0, r_addf_imm},
    {"sub.f32", "", "f:ff", 0, 0, r_subf},
    {"mul.f32", "", "f:ff", 0, 0, r_mulf},
    {"mul.rn.f32", "", "f:ff", 0, 0, r_mulf},
    {"fma.rn.f32", "", "f:fff", 0, 0, r_fmaf},
    {"max.f32", "", "f:ff", 0, OPS_EQ01, r_maxf},
    {"neg.f32", "", "f:f", 0, 0, r_negf},
    {"rcp.rn.f32", "", "f:f", 0, 0, r_rcpf},
    {"add.f64", "", "F:FF", 0, 0, r_addd},
    {"sub.f64", "", "F:FF", 0, 0, r_subd},
    {"mul.f64", "", "F:FF", 0, 0, r_muld},
    {"mul.f64", "immediate", "F:F", "$F $d0, $a0, 0dC004000000000000;", 0, r_muld_imm},
    {"mul.rn.f64", "", "F:FF", 0, 0, r_muld},
    {"div.rn.f64", "", "F:FF", 0, 0, r_divd},
    {"fma.rn.f64", "", "F:FFF", 0, 0, r_fmad},
    {"abs.f64", "", "F:F", 0, 0, r_absd},
    {"rcp.rn.f64", "", "F:F", 0, 0, r_rcpd},
    /* conversions */
    {"cvt.f64.f32", "", "F:f", 0, 0, r_cvt_f64_f32},
    {"cvt.rn.f32.f64", "", "f:F", 0, 0, r_cvt_f32_f64},
    {"cvt.rn.f32.u32", "", "f:r", 0, 0, r_cvt_f32_u32},
    {"cvt.rn.f64.s32", "", "F:r", 0, 0, r_cvt_f64_s32},
    {"cvt.rn.f64.u32", "", "F:r", 0, 0, r_cvt_f64_u32},
    {"cvt.rn.f64.u64", "", "F:R", 0, 0, r_cvt_f64_u64},
    {"cvt.rni.f32.f32", "", "f:f", 0, 0, r_cvt_rni},
    {"cvt.rzi.f32.f32", "", "f:f", 0, 0, r_cvt_rzi},
    {"cvt.rzi.s32.f32", "", "r:f", 0, 0, r_cvt_s32_f32},
    {"cvt.s64.s32", "", "R:r", 0, 0, r_cvt_s64_s32},
    {"cvt.u32.u64", "", "r:R", 0, 0, r_cvt_u32_u64},
    {"cvt.u16.u64", "", "h:R", 0, 0, r_cvt_u16_u64},
    {"cvt.u64.u32", "", "R:r", 0, 0, r_cvt_u64_u32},
    {"cvt.u16.u32", "", "h:r", 0, 0, r_cvt_u16_u32},
    {"cvt.u32.u16", "", "r:h", 0, 0, r_cvt_u32_u16},
    /* address spaces */
    {"cvta.to.global.u64", "", "RR:R", "$F %rd19, %rd12;\n\tsub.s64 $d0, %rd19, %rd12;\n\t"
     "add.s64 %rd19, %rd19, %rd16;\n\tld.global.u64 $d1, [%rd19];", 0, r_cvta_to_global},
    {"cvta.global.u64", "", "R:", "cvta.to.global.u64 %rd19, %rd12;\n\t$F %rd22, %rd19;\n\t"
     "sub.s64 $d0, %rd22, %rd12;", 0, r_zero},
    {"cvta.shared.u64", "", "R:R", "cvt.u64.u32 %rd19, %r20;\n\t$F %rd22, %rd19;\n\t"
     "st.shared.u64 [%r20+8], $a0;\n\tld.u64 $d0, [%rd22+8];", 0, r_copy0},
    {"mapa.u64", "this block's rank", "R:R", "cvt.u64.u32 %rd19, %r20;\n\tcvta.shared.u64 %rd19, %rd19;\n\t"
     "$F %rd22, %rd19, 0;\n\tst.shared.u64 [%r20+8], $a0;\n\tld.u64 $d0, [%rd22+8];", 0, r_copy0},
    {"cvta.local.u64", "", "R:R", "mov.u64 %rd19, loc;\n\t$F %rd22, %rd19;\n\t"
     "st.local.u64 [%rd19+8], $a0;\n\tld.u64 $d0, [%rd22+8];", 0, r_copy0},
    /* loads */
    {"ld.global.u32", "", "r:RR", LD_G4, 0, r_ld4},
    {"ld.acquire.gpu.u32", "generic, of global memory", "r:RR",
     "cvta.global.u64 %rd22, %rd17;\n\t$F $d0, [%rd22+4];", 0, r_ld4},
    {"ld.u32", "generic, of global memory", "r:RR", "cvta.global.u64 %rd22, %rd17;\n\t$F $d0, [%rd22+4];", 0,
     r_ld4},
    {"ld.global.s32", "", "r:RR", LD_G4, 0, r_ld4},
    {"ld.global.f32", "", "f:RR", LD_G4, 0, r_ld4},
    {"ld.global.u64", "", "R:RR", LD_G8, 0, r_ld8},
    {"ld.global.f64", "", "F:RR", LD_G8, 0, r_ld8},
    {"ld.global.u8", "", "r:RR", "$F $d0, [%rd17+5];", 0, r_ld1},
    {"ld.global.cg.f32", "", "f:RR", LD_G4, 0, r_ld4},
    {"ld.global.nc.f32", "", "f:RR", LD_G4, 0, r_ld4},
    {"ld.global.nc.u32", "", "r:RR", LD_G4, 0, r_ld4},
    {"ld.volatile.global.u32", "", "r:RR", LD_G4, 0, r_ld4},
    {"ld.global.nc.v2.u64", "", "RR:RR", "$F {$d0, $d1}, [%rd17];", 0, r_ld_v2x64},
    {"ld.global.nc.v4.f32", "", "ffff:RR", LD_GV4, 0, r_ld_v4x32},
    {"ld.global.nc.v4.s32", "", "rrrr:RR", LD_GV4, 0, r_ld_v4x32},
    {"ld.global.nc.v4.u32", "", "rrrr:RR", LD_GV4, 0, r_ld_v4x32},
    {"ld.global.v4.f32", "", "ffff:RR", LD_GV4, 0, r_ld_v4x32},
    {"ld.global.v4.u32", "", "rrrr:RR", LD_GV4, 0, r_ld_v4x32},
    {"ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32", "", "ffff:RR",
     "createpolicy.fractional.L2::evict_first.b64 %rd19, 1.0;\n\t" POLICY_LD, 0, r_ld_v4x32},
    {"createpolicy.fractional.L2::evict_first.b64", "", "ffff:RR", "$F %rd19, 1.0;\n\t" POLICY_LD, 0,
     r_ld_v4x32},
    {"ld.shared.u32", "", "r:RR", LD_SH("4"), 0, r_ld4},
    {"ld.volatile.shared.u32", "", "r:RR", LD_SH("4"), 0, r_ld4},
    {"ld.shared.f32", "", "f:RR", LD_SH("4"), 0, r_ld4},
    {"ld.shared.u64", "", "R:RR", LD_SH("8"), 0, r_ld8},
    {"ld.shared.u8", "", "h:RR", LD_SH("5"), 0, r_ld1},
    {"ld.local.u32", "", "r:RR", LD_LOC("4"), 0, r_ld4},
    {"ld.local.f32", "", "f:RR", LD_LOC("4"), 0, r_ld4},
    {"ld.local.u64", "", "R:RR", LD_LOC("8"), 0, r_ld8},
    {"ld.param.u32", "", "r:", "$F $d0, [t_p+4];", 0, r_ldp4},
    {"ld.param.b32", "", "r:", "$F $d0, [t_p];", 0, r_ldp4lo},
    {"ld.param.b32", "call result", "r:R", CALL, 0, r_plus7},
    {"ld.param.f32", "", "f:", "$F $d0, [t_p+4];", 0, r_ldp4},
    {"ld.param.u64", "", "R:", "$F $d0, [t_p];", 0, r_ldp8},
    {"ld.param.b64", "", "R:", "$F $d0, [t_p];", 0, r_ldp8},
    {"ld.param.u64", "by address", "R:", "mov.b64 %rd19, t_p;\n\tadd.s64 %rd19, %rd19, 8;\n\t"
     "$F $d0, [%rd19+-8];", 0, r_ldp8},
    {"ld.param.f64", "", "F:", "$F $d0, [t_p];", 0, r_ldp8},
    {"ld.param.s8", "", "h:", "$F $d0, [t_p+3];", 0, r_ldp_s8},
    {"ld.param.v2.u32", "", "rr:", "$F {$d0, $d1}, [t_p];", 0, r_ldp_v2},
    {"ld.param.v4.u8", "", "hhhh:", "$F {$d0, $d1, $d2, $d3}, [t_p];", 0, r_ldp_v4u8},
    {"ld.const.f32", "", "f:", "$F $d0, [cst+4];", 0, r_ldc},
    /* stores */
    {"st.global.u32", "", ":r", "$F [%rd18+12], $a0;", 0, r_st_global4},
    {"st.global.f32", "", ":f", "$F [%rd18+12], $a0;", 0, r_st_global4},
    {"st.global.u64", "", ":R", "$F [%rd18+8], $a0;", 0, r_st_global8},
    {"st.global.u8", "", ":r", "$F [%rd18+13], $a0;", 0, r_st_global1},
    {"st.global.u16", "", ":h", "$F [%rd18+12], $a0;", 0, r_st_global2},
    {"st.volatile.global.u32", "", ":r", "$F [%rd18+12], $a0;", 0, r_st_global4},
    {"st.u32", "generic, of global memory", ":r", "cvta.global.u64 %rd22, %rd18;\n\t$F [%rd22+12], $a0;", 0,
     r_st_global4},
    {"st.relaxed.gpu.b32", "generic, of global memory", ":r",
     "cvta.global.u64 %rd22, %rd18;\n\t$F [%rd22+12], $a0;", 0, r_st_global4},
    {"st.global.v4.u32", "", ":rrrr", "$F [%rd18+16], {$a0, $a1, $a2, $a3};", 0, r_st_global_v4},
    {"st.shared.u32", "", "R:rR", ST_SH4, 0, r_st4_into},
    {"st.volatile.shared.u32", "", "R:rR", ST_SH4, 0, r_st4_into},
    {"st.shared.f32", "", "R:fR", ST_SH4, 0, r_st4_into},
    {"st.shared.u64", "", "R:RR", "st.shared.u64 [%r20+8], $a1;\n\t$F [%r20+8], $a0;\n\t"
     "ld.shared.u64 $d0, [%r20+8];", 0, r_copy0},
    {"st.shared.u8", "", "R:hR", "st.shared.u64 [%r20], $a1;\n\t$F [%r20+5], $a0;\n\t"
     "ld.shared.u64 $d0, [%r20];", 0, r_st1_into},
    {"st.local.u32", "", "R:rR", ST_LOC4, 0, r_st4_into},
    {"st.local.f64", "", "R:FR", "mov.u64 %rd19, loc;\n\tst.local.u64 [%rd19+8], $a1;\n\t"
     "$F [%rd19+8], $a0;\n\tld.local.u64 $d0, [%rd19+8];", 0, r_copy0},
    {"st.local.u64", "", "R:RR", "mov.u64 %rd19, loc;\n\tst.local.u64 [%rd19+8], $a1;\n\t"
     "$F [%rd19+8], $a0;\n\tld.local.u64 $d0, [%rd19+8];", 0, r_copy0},
    {"st.local.v2.u32", "", "R:rr", "mov.u64 %rd19, loc;\n\t$F [%rd19+8], {$a0, $a1};\n\t"
     "ld.local.u64 $d0, [%rd19+8];", 0, r_pack32x2},
    {"st.local.v4.u8", "", "R:hhhh", "mov.u64 %rd19, loc;\n\t$F [%rd19], {$a0, $a1, $a2, $a3};\n\t"
     "ld.local.u32 %r15, [%rd19];\n\tcvt.u64.u32 $d0, %r15;", 0, r_st_v4u8},
    {"st.local.v4.f32", "", "RR:ffff", "mov.u64 %rd19, loc;\n\t$F [%rd19], {$a0, $a1, $a2, $a3};\n\t"
     "ld.local.u64 $d0, [%rd19];\n\tld.local.u64 $d1, [%rd19+8];", 0, r_st_v4f},
    {"st.param.b64", "", "r:R", CALL, 0, r_plus7},
    {"st.param.b32", "", "r:r", "{\n\t.param .b64 p0;\n\tst.param.b64 [p0], 0;\n\t$F [p0], $a0;\n\t"
     ".param .b32 r0;\n\tcall.uni (r0), plus7, (p0);\n\tld.param.b32 $d0, [r0];\n\t}", 0, r_plus7},
    /* atomics */
    {"atom.global.add.u32", "", "rr:rr", ATOM32, 0, r_atom_addu32},
    {"atom.global.add.u32", "contended", ":r", "$F %r15, [%rd21+24], $a0;", 0, r_atom_contended},
    {"atom.global.inc.u32", "", "rr:rr", ATOM32, OPS_EQ01, r_atom_incu32},
    {"atom.acq_rel.gpu.global.inc.u32", "", "rr:rr", ATOM32, OPS_EQ01, r_atom_incu32},
    {"atom.global.max.u32", "", "rr:rr", ATOM32, 0, r_atom_maxu32},
    {"atom.global.exch.b32", "", "rr:rr", ATOM32, 0, r_atom_exch32},
    {"atom.global.add.f32", "", "ff:ff", ATOMF32, 0, r_atom_addf32},
    {"atom.global.add.u64", "", "RR:RR", ATOM64, 0, r_atom_addu64},
    {"atom.global.exch.b64", "", "RR:RR", ATOM64, 0, r_atom_exch64},
    {"atom.global.min.u64", "", "RR:RR", ATOM64, 0, r_atom_minu64},
    {"atom.add.u64", "generic, of global memory", "RR:RR", "cvta.global.u64 %rd22, %rd18;\n\t" ATOM64_AT("%rd22"), 0, r_atom_addu64},
    {"atom.min.u64", "generic, of global memory", "RR:RR", "cvta.global.u64 %rd22, %rd18;\n\t" ATOM64_AT("%rd22"), 0, r_atom_minu64},
    {"atom.global.add.f64", "", "FF:FF", ATOMF64, 0, r_atom_addf64},
    {"atom.global.cas.b64", "", "RR:RRR", "st.global.u64 [%rd18+8], $a0;\n\t$F $d0, [%rd18+8], $a1, $a2;\n\t"
     "ld.global.u64 $d1, [%rd18+8];", OPS_EQ01, r_atom_cas64},
    {"atom.add.release.gpu.u32", "generic, of global memory", "rr:rr",
     "cvta.global.u64 %rd22, %rd18;\n\t" ATOM32_AT("%rd22"), 0, r_atom_addu32},
    {"atom.add.acq_rel.gpu.u32", "generic, of global memory", "rr:rr",
     "cvta.global.u64 %rd22, %rd18;\n\t" ATOM32_AT("%rd22"), 0, r_atom_addu32},
    {"atom.shared.exch.b32", "", "rr:rr", "st.shared.u32 [%r20], $a0;\n\t$F $d0, [%r20], $a1;\n\t"
     "ld.shared.u32 $d1, [%r20];", 0, r_atom_exch32},
    {"atom.shared.add.u32", "", "rr:rr", "st.shared.u32 [%r20], $a0;\n\t$F $d0, [%r20], $a1;\n\t"
     "ld.shared.u32 $d1, [%r20];", 0, r_atom_addu32},
    /* control flow */
    {"bra", "", "r:prr", BRANCH("bra"), 0, r_branch},
    {"bra", "negated guard", "r:prr", "@!$a0 bra $Lyes;\n\tmov.b32 $d0, $a1;\n\tbra $Lend;\n$Lyes:\n\t"
     "mov.b32 $d0, $a2;\n$Lend:", 0, r_branch_not},
    {"bra.uni", "", "r:prr", BRANCH("bra.uni"), UNI(0), r_branch},
    {"ret", "", ":prr", "st.global.u32 [%rd18], $a1;\n\t@$a0 ret;\n\tst.global.u32 [%rd18+8], $a2;", 0,
     r_ret},
    {"call.uni", "", "r:R", CALL, 0, r_plus7},
    {"call", "", "r:R", "{\n\t.param .b64 p0;\n\tst.param.b64 [p0], $a0;\n\t.param .b32 r0;\n\t"
     "call (r0), plus7, (p0);\n\tld.param.b32 $d0, [r0];\n\t}", 0, r_plus7},
    {"bar.sync", "", "r:r", "st.shared.u32 [%r20], $a0;\n\t$F 0;\n\tld.shared.u32 $d0, [%r21];", 0, r_bar},
    {"barrier.sync", "", "r:r", "st.shared.u32 [%r20], $a0;\n\t$F 0;\n\tld.shared.u32 $d0, [%r21];", 0, r_bar},
    /* a guard no lane passes: trap decoded, and not run (test_emu.c's
     * trap_is_a_fault runs it) */
    {"trap", "guarded, not reached", "r:r", "setp.ne.u32 %p16, %r16, %r16;\n\t@%p16 $F;\n\tmov.b32 $d0, $a0;", 0,
     r_copy0},
    /* a launch without clusters is one of one block: the cluster's barrier is the block's */
    {"barrier.cluster.arrive", "", "r:r", "st.shared.u32 [%r20], $a0;\n\t$F;\n\tbarrier.cluster.wait;\n\t"
     "ld.shared.u32 $d0, [%r21];", 0, r_bar},
    {"barrier.cluster.wait", "", "r:r", "st.shared.u32 [%r20], $a0;\n\tbarrier.cluster.arrive;\n\t$F;\n\t"
     "ld.shared.u32 $d0, [%r21];", 0, r_bar},
    /* an asynchronous copy of the thread's input word 1 into its shared slot */
    {"cp.async.ca.shared.global", "", "r:RR", "$F [%r20], [%rd17+4], 4;\n\tcp.async.commit_group;\n\t"
     "cp.async.wait_group 0;\n\tld.shared.u32 $d0, [%r20];", 0, r_ld4},
    {"cp.async.commit_group", "", "r:RR", "cp.async.ca.shared.global [%r20], [%rd17+4], 4;\n\t$F;\n\t"
     "cp.async.wait_group 0;\n\tld.shared.u32 $d0, [%r20];", 0, r_ld4},
    {"cp.async.wait_group", "", "r:RR", "cp.async.ca.shared.global [%r20], [%rd17+4], 4;\n\t"
     "cp.async.commit_group;\n\t$F 0;\n\tld.shared.u32 $d0, [%r20];", 0, r_ld4},
    /* each thread's own mbarrier of one arrival: its phase is complete
     * once the thread arrives, so the first try_wait says so */
    {"mbarrier.init.shared.b64", "", "r:", "$F [%r20+16], 1;\n\tmbarrier.arrive.shared::cta.b64 %rd19, [%r20+16];\n\t"
     "mbarrier.try_wait.shared.b64 %p16, [%r20+16], %rd19;\n\tselp.u32 $d0, 1, 0, %p16;", 0, r_one},
    {"mbarrier.arrive.shared::cta.b64", "", "r:", "mbarrier.init.shared.b64 [%r20+16], 1;\n\t$F %rd19, [%r20+16];\n\t"
     "mbarrier.try_wait.shared.b64 %p16, [%r20+16], %rd19;\n\tselp.u32 $d0, 1, 0, %p16;", 0, r_one},
    {"mbarrier.try_wait.shared.b64", "", "r:", "mbarrier.init.shared.b64 [%r20+16], 1;\n\t"
     "mbarrier.arrive.shared::cta.b64 %rd19, [%r20+16];\n\t$F %p16, [%r20+16], %rd19;\n\t"
     "selp.u32 $d0, 1, 0, %p16;", 0, r_one},
    {"bar.warp.sync", "", "r:r", "st.shared.u32 [%r20], $a0;\n\t$F -1;\n\tld.shared.u32 $d0, [%r22];", 0,
     r_barwarp},
    {"membar.gl", "", "r:r", "st.global.u32 [%rd18+16], $a0;\n\t$F;\n\tld.global.u32 $d0, [%rd18+16];", 0,
     r_membar},
    {"nanosleep.u32", "", "r:r", "and.b32 %r15, $a0, 255;\n\t$F %r15;\n\tmov.b32 $d0, $a0;", 0, r_copy0},
    /* warps */
    {"shfl.sync.up.b32", "", "rp:rrr", "$F $d0|$d1, $a0, $a1, $a2, -1;", SMALL(1) | SMALL(2), r_shfl_up},
    {"shfl.sync.down.b32", "", "rp:rrr", "$F $d0|$d1, $a0, $a1, $a2, -1;", SMALL(1) | SMALL(2),
     r_shfl_down},
    {"shfl.sync.down.b32", "no predicate", "r:rrr", "$F $d0, $a0, $a1, $a2, -1;", SMALL(1) | SMALL(2),
     r_shfl_down_nop},
    {"shfl.sync.bfly.b32", "", "rp:rrr", "$F $d0|$d1, $a0, $a1, $a2, -1;", SMALL(1) | SMALL(2),
     r_shfl_bfly},
    {"shfl.sync.idx.b32", "", "rp:rrr", "$F $d0|$d1, $a0, $a1, $a2, -1;", SMALL(1) | SMALL(2), r_shfl_idx},
    {"vote.sync.ballot.b32", "", "r:pr", MEMBERS_ONLY("$F $d0, $a0, $a1;"), MASK(1), r_ballot},
    {"vote.sync.any.pred", "", "p:pr", MEMBERS_ONLY("$F $d0, $a0, $a1;"), MASK(1), r_any},
    {"redux.sync.add.s32", "", "r:rr", MEMBERS_ONLY("$F $d0, $a0, $a1;"), MASK(1), r_redux_add},
};
const int ops_corpus_nrows = (int)(sizeof ops_corpus_rows / sizeof ops_corpus_rows[0]);
