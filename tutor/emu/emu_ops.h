/* emu_ops.h — the emulator's ALU: emu_ops.c (dispatch, integers, bits,
 * predicates) and emu_fops.c (floats, conversions).  Private to tutor/emu/. */
#ifndef EMU_OPS_H
#define EMU_OPS_H

#include <string.h>

#include "emu/emu_int.h"

/* Each lane l of MASK in turn. */
#define LANES(mask) for (uint32_t m_ = (mask), l; m_ && ((l = (uint32_t)__builtin_ctz(m_)), 1); m_ &= m_ - 1)

/* TYPE's bits in a register. */
static inline uint64_t wmask(int type)
{
    int sz = emu_type_size[type];
    if (type == T_PRED)
        return 1;
    return sz >= 8 ? ~0ull : (1ull << (sz * 8)) - 1;
}

/* The value at TYPE's width, sign-extended when signed. */
static inline int64_t sx(uint64_t v, int type)
{
    int sz = emu_type_size[type];
    if (sz >= 8)
        return (int64_t)v;
    int sh = 64 - sz * 8;
    if (emu_type_kind[type] == 's')
        return (int64_t)(v << sh) >> sh;
    return (int64_t)(v & ((1ull << (sz * 8)) - 1));
}

static inline float emu_f32(uint64_t v)
{
    float f;
    uint32_t u = (uint32_t)v;
    memcpy(&f, &u, 4);
    return f;
}

/* Runs the register-only instruction IN over the lanes of MASK of the warp
 * whose registers are R (slot-major, 32 lanes a slot) and whose carry flags
 * (add.cc/addc) are CARRY; 0, or -1 when IN is no ALU form. */
int emu_alu(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry);

/* emu_fops.c */
/* CMP (CMP_*) of X and Y read as TYPE: 0 or 1. */
int emu_compare(int cmp, int type, uint64_t x, uint64_t y);
/* testp's test SUB (1 finite .. 6 number) of X read as TYPE. */
int emu_testp(int sub, uint64_t x, int type);
void emu_cvt(const struct emu_insn *in, uint64_t *d, const uint64_t *a, uint32_t mask);
void emu_float_op(const struct emu_insn *in, uint64_t *d, const uint64_t *a, const uint64_t *b,
                  const uint64_t *c, uint32_t mask);

#endif
