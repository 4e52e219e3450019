/* test_emu_ops_ref.h — what the forms tables' references are written
 * with: a thread's operands, float bits in and out (a NaN result with the
 * H100's bits), and the bytes a load would see. */
#ifndef TEST_EMU_OPS_REF_H
#define TEST_EMU_OPS_REF_H

#include "test_emu_ops.h"

#include <math.h>
#include <string.h>

#define IN(k) (c->in[(size_t)t * OPS_SLOTS + (k)])
#define LANE(l, k) (c->in[(size_t)(l) * OPS_SLOTS + (k)])
#define U32(k) ((uint32_t)IN(k))
#define S32(k) ((int32_t)U32(k))
#define S64(k) ((int64_t)IN(k))
#define REF(name) static void name(const struct ops_ctx *c, int t, uint64_t o[OPS_SLOTS])
/* One result in slot 0 from an expression of the inputs. */
#define REF1(name, expr) \
    REF(name) { (void)c; (void)t; o[0] = (expr); }

static inline float f32(uint64_t b)
{
    uint32_t w = (uint32_t)b;
    float f;
    memcpy(&f, &w, 4);
    return f;
}
static inline double f64(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}
static inline uint64_t b32(float f)
{
    uint32_t w;
    if (isnan(f)) return 0x7fffffff;
    memcpy(&w, &f, 4);
    return w;
}
/* A NaN's bits in an f64 register, sign aside. */
static inline int isnan_bits64(uint64_t x)
{
    return (x & ~(1ull << 63)) > 0x7ff0000000000000ull;
}
/* An f64 result R of an operation on X, Y, Z (0 where absent) as the H100
 * writes it: with a NaN operand, the last such operand, its quiet bit set
 * and its sign kept; else an invalid operation's NaN, 0xfff8000000000000. */
static inline uint64_t d64(double r, uint64_t x, uint64_t y, uint64_t z)
{
    uint64_t w;
    if (isnan_bits64(z)) return z | 1ull << 51;
    if (isnan_bits64(y)) return y | 1ull << 51;
    if (isnan_bits64(x)) return x | 1ull << 51;
    if (isnan(r)) return 0xfff8000000000000ull;
    memcpy(&w, &r, 8);
    return w;
}
/* An f64 result of no NaN operand (from an integer, say). */
static inline uint64_t b64(double d)
{
    return d64(d, 0, 0, 0);
}
/* Subnormal to sign-preserving zero (atom.global.add.f32). */
static inline float ftz(float f)
{
    return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}
#define F32(k) f32(IN(k))
#define F64(k) f64(IN(k))

/* Bytes [off, off+n) of thread t's operands (little-endian), or of p. */
static inline uint64_t in_bytes(const struct ops_ctx *c, int t, int off, int n)
{
    uint64_t v = 0;
    memcpy(&v, (const uint8_t *)(c->in + (size_t)t * OPS_SLOTS) + off, (size_t)n);
    return v;
}
static inline uint64_t param_bytes(const struct ops_ctx *c, int off, int n)
{
    uint64_t v = 0;
    memcpy(&v, (const uint8_t *)&c->param + off, (size_t)n);
    return v;
}

#define SMALL(k) OPS_IN(OPS_SMALL, k)
#define UNI(k) OPS_IN(OPS_UNI, k)
#define MASK(k) OPS_IN(OPS_MASK, k)

#endif
