/* emu_lanes.h — what the ALU's two halves (emu_ops.c, emu_fops.c) share:
 * the lanes of a mask, and a register's bits read at a type's width.
 * Header only, a leaf: it includes nothing of the emulator but its types.
 * Private to tutor/emu/. */
#ifndef EMU_LANES_H
#define EMU_LANES_H

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

#endif
