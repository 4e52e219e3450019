/* emu_lanes.h — what the ALU's two halves (emu_ops.c, emu_fops.c) and the
 * float atomics (emu_access.c) share: the lanes of a mask, a register's
 * bits read at a type's width, a float's bits both ways, and the shape
 * of an ALU handler.
 * Header only, a leaf: it includes nothing of the emulator but its types.
 * Private to tutor/emu/. */
#ifndef EMU_LANES_H
#define EMU_LANES_H

#include <math.h>
#include <string.h>

#include "emu/emu_int.h"

/* Each lane l of MASK in turn. */
#define LANES(mask) for (uint32_t m_ = (mask), l; m_ && ((l = (uint32_t)__builtin_ctz(m_)), 1); m_ &= m_ - 1)

/* Every lane of MASK runs STMT (which reads l): all 32 in one loop when
 * the warp is converged, the lanes of the mask one by one when not. */
#define EACH_LANE(mask, stmt)                                                                       \
    do {                                                                                            \
        if ((mask) == 0xffffffffu) {                                                                \
            for (uint32_t l = 0; l < 32; l++) {                                                     \
                stmt;                                                                               \
            }                                                                                       \
        } else {                                                                                    \
            LANES(mask) { stmt; }                                                                   \
        }                                                                                           \
    } while (0)

/* An ALU handler's operand I: its register's 32 lanes. */
#define REG(i) (R + (size_t)in->o[i].reg * 32)
/* An ALU handler, as emu_alu_fn declares it. */
#define ALU_FN(name)                                                                                \
    static void name(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry)

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

/* A register's low 32 bits as an f32, its 64 as an f64. */
static inline float emu_f32(uint64_t v)
{
    float f;
    uint32_t u = (uint32_t)v;
    memcpy(&f, &u, 4);
    return f;
}

static inline double emu_f64(uint64_t v)
{
    double d;
    memcpy(&d, &v, 8);
    return d;
}

/* An f32 result's bits; a NaN is the H100's canonical 0x7fffffff. */
static inline uint64_t emu_b32(float f)
{
    uint32_t u;
    if (f != f)
        return 0x7fffffffu;
    memcpy(&u, &f, 4);
    return u;
}

/* An f64 result's bits; a NaN is its callers' to deal with first (which
 * NaN the H100 returns depends on the operation). */
static inline uint64_t emu_b64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static inline int emu_isnan64(uint64_t x)
{
    return (x & ~(1ull << 63)) > 0x7ff0000000000000ull;
}

/* .ftz: a subnormal f32 becomes a zero of its sign. */
static inline float emu_ftz32(float f)
{
    return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

#endif
