// zoo.cu — CUDA C the workbook's corpus does not write, for the emulator's
// differential against the GPU (tests/emu/zoo.sh, tests/device/emu-zoo.sh):
// intrinsics, rounding modes, libdevice's math, SIMD and DPX helpers, warp
// operations under partial masks, and atomics whose final values do not
// depend on their order.  Each kernel reads four words a thread from `in`
// and writes ZOO_SLOTS words a thread to `out`; a student's kernel may use
// any of this, and the emulator must give the GPU's bits or refuse the form.
#include <cstdint>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>

namespace cg = cooperative_groups;

#define ZOO_SLOTS 16

#define ZOO_KERNEL(name)                                                          \
    extern "C" __global__ void name(const uint32_t *__restrict__ in, uint32_t *__restrict__ out)

#define ARGS                                                                      \
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;                     \
    const uint32_t a = in[4 * t], b = in[4 * t + 1], c = in[4 * t + 2], d = in[4 * t + 3]; \
    uint32_t *o = out + (size_t)ZOO_SLOTS * t;                                    \
    (void)a; (void)b; (void)c; (void)d

static __device__ __forceinline__ float f(uint32_t x) { return __uint_as_float(x); }
static __device__ __forceinline__ uint32_t u(float x) { return __float_as_uint(x); }
static __device__ __forceinline__ double df(uint32_t hi, uint32_t lo) { return __hiloint2double((int)hi, (int)lo); }
static __device__ __forceinline__ void put64(uint32_t *o, double x)
{
    o[0] = (uint32_t)__double2loint(x);
    o[1] = (uint32_t)__double2hiint(x);
}

ZOO_KERNEL(zoo_int)
{
    ARGS;
    o[0] = __brev(a);
    o[1] = __clz((int)a);
    o[2] = __ffs((int)a);
    o[3] = __popc(a);
    o[4] = __byte_perm(a, b, c);
    o[5] = __funnelshift_l(a, b, c);
    o[6] = __funnelshift_r(a, b, c);
    o[7] = __funnelshift_lc(a, b, c);
    o[8] = __funnelshift_rc(a, b, c);
    o[9] = (uint32_t)__mul24((int)a, (int)b);
    o[10] = __umul24(a, b);
    o[11] = __umulhi(a, b);
    o[12] = (uint32_t)__mulhi((int)a, (int)b);
    o[13] = __sad((int)a, (int)b, c);
    o[14] = (uint32_t)__hadd((int)a, (int)b) ^ (uint32_t)__rhadd((int)c, (int)d);
    o[15] = __uhadd(a, b) ^ __urhadd(c, d);
}

ZOO_KERNEL(zoo_int64)
{
    ARGS;
    uint64_t x = ((uint64_t)a << 32) | b, y = ((uint64_t)c << 32) | d;
    uint64_t q = y ? x / y : 0, r = y ? x % y : 0;
    int64_t sx = (int64_t)x, sy = (int64_t)y | 1;
    o[0] = (uint32_t)__brevll(x);
    o[1] = (uint32_t)__clzll((long long)x);
    o[2] = (uint32_t)__ffsll((long long)x);
    o[3] = (uint32_t)__popcll(x);
    o[4] = (uint32_t)__umul64hi(x, y);
    o[5] = (uint32_t)(__umul64hi(x, y) >> 32);
    o[6] = (uint32_t)__mul64hi((long long)x, (long long)y);
    o[7] = (uint32_t)q;
    o[8] = (uint32_t)(q >> 32) ^ (uint32_t)r;
    o[9] = (uint32_t)(sx / sy);
    o[10] = (uint32_t)(sx % sy);
    o[11] = (uint32_t)(x >> (c & 63)) ^ (uint32_t)((int64_t)x >> (d & 63));
    o[12] = (uint32_t)(x * y);
    o[13] = a / (b | 1) + (int)a / ((int)b | 1);
    o[14] = (uint32_t)((int)a % ((int)b | 1));
    o[15] = (uint32_t)min(sx, (int64_t)y) ^ (uint32_t)max(x, y);
}

ZOO_KERNEL(zoo_simd)
{
    ARGS;
    o[0] = __vadd4(a, b);
    o[1] = __vsub4(a, b);
    o[2] = __vhaddu4(a, b) ^ __vmins4(c, d);
    o[3] = __vmaxu4(a, b);
    o[4] = __vcmpeq4(a, b) ^ __vcmpgtu4(c, d);
    o[5] = __vavgu4(a, b);
    o[6] = __vsetgtu2(c, d) ^ __vcmpltu4(a, b);
    o[7] = __vmaxs4(a, b);
    o[8] = __vminu4(c, d);
    o[9] = __vcmpges4(a, b);
    o[10] = __vsetne4(c, d);
    o[11] = (uint32_t)__vimax3_s32((int)a, (int)b, (int)c);
    o[12] = (uint32_t)__viaddmax_s32((int)a, (int)b, (int)c);
    o[13] = __vimin3_u32(a, b, c);
    bool p;
    o[14] = (uint32_t)__vibmax_s32((int)a, (int)b, &p) + p;
    o[15] = __vneg4(c) ^ __vsetles4(a, b);
}

// Packed 16-bit arithmetic (add.u16x2 and its kin on sm_90) and the dot
// products of bytes
ZOO_KERNEL(zoo_simd2)
{
    ARGS;
    o[0] = __vadd2(a, b);
    o[1] = __vsub2(a, b);
    o[2] = __vneg2(c);
    o[3] = __vmaxu2(a, b) ^ __vmins2(c, d);
    o[4] = (uint32_t)__dp4a((int)a, (int)b, (int)c);
    o[5] = __dp4a(a, b, c);
    o[6] = (uint32_t)__dp2a_lo((int)a, (int)b, (int)c);
    o[7] = (uint32_t)__dp2a_hi((int)a, (int)b, (int)c);
    for (int i = 8; i < ZOO_SLOTS; i++)
        o[i] = 0;
}

ZOO_KERNEL(zoo_fround)
{
    ARGS;
    float x = f(a), y = f(b), z = f(c);
    o[0] = u(__fadd_rz(x, y));
    o[1] = u(__fadd_ru(x, y)) ^ u(__fadd_rd(x, y));
    o[2] = u(__fmul_rz(x, y));
    o[3] = u(__fmul_ru(x, y)) ^ u(__fmul_rd(x, z));
    o[4] = u(__fmaf_rz(x, y, z));
    o[5] = u(__fmaf_ru(x, y, z)) ^ u(__fmaf_rd(x, y, z));
    o[6] = u(__fdiv_rn(x, y));
    o[7] = u(__fdiv_rz(x, y)) ^ u(__fdiv_ru(x, z));
    o[8] = u(__frcp_rn(x)) ^ u(__frcp_rz(y));
    o[9] = u(__fsqrt_rn(fabsf(x))) ^ u(__fsqrt_rd(fabsf(y)));
    o[10] = u(__frcp_ru(x)) ^ u(__frcp_rd(y));
    o[11] = u(__saturatef(x));
    o[12] = u(fminf(x, y)) ^ u(fmaxf(y, z));
    o[13] = u(copysignf(x, y)) ^ u(fabsf(z));
    o[14] = u(fdimf(x, y));
    o[15] = u(__fsub_rz(x, y)) ^ u(__fsub_ru(y, z));
}

ZOO_KERNEL(zoo_fconv)
{
    ARGS;
    float x = f(a), y = f(b);
    o[0] = (uint32_t)__float2int_rn(x);
    o[1] = (uint32_t)__float2int_rz(x) ^ (uint32_t)__float2int_ru(y);
    o[2] = (uint32_t)__float2int_rd(x);
    o[3] = __float2uint_rn(x) ^ __float2uint_rz(y);
    o[4] = (uint32_t)__float2ll_rz(x) ^ (uint32_t)(__float2ll_rn(y) >> 32);
    o[5] = (uint32_t)__float2ull_ru(x);
    o[6] = u(__int2float_rn((int)c)) ^ u(__int2float_rz((int)d));
    o[7] = u(__int2float_ru((int)c)) ^ u(__int2float_rd((int)d));
    o[8] = u(__uint2float_rd(c)) ^ u(__uint2float_ru(d));
    o[9] = u(__ll2float_ru((long long)(((uint64_t)c << 32) | d)));
    o[10] = u(__ull2float_rz(((uint64_t)d << 32) | c));
    o[11] = u(truncf(x)) ^ u(roundf(y));
    o[12] = u(rintf(x)) ^ u(nearbyintf(y));
    o[13] = u(floorf(x)) ^ u(ceilf(y));
    o[14] = u((float)(int)(c & 0xffffff)) ^ (uint32_t)(int)(x * 0.0f + 3.5f);
    o[15] = u(ldexpf(x, (int)(c % 300) - 150));
}

// Compared within a tolerance (zoo_run.c): one function's value a slot
// libdevice's functions built on exact arithmetic alone: expf, powf, tanhf,
// erff, tanf, acosf, rsqrtf and the like use an approximate instruction (ex2,
// rcp, rsqrt, lg2 .approx), whose bits only the GPU gives, so the emulator
// refuses them (zoo_fapprox).
ZOO_KERNEL(zoo_fmath)
{
    ARGS;
    // operands in the functions' usual ranges, so the comparison is of the
    // functions and not of NaNs
    float x = (float)(a & 0xffffff) * 0x1p-20f - 8.0f, y = (float)(b & 0xffff) * 0x1p-12f + 0.001f;
    o[0] = u(logf(y));
    o[1] = u(sinf(x));
    o[2] = u(cosf(y));
    o[3] = u(sinf(y)) ^ u(cosf(x));
    o[4] = u(atan2f(x, y));
    o[5] = u(log1pf(y));
    o[6] = u(hypotf(x, y));
    o[7] = u(log2f(y));
    o[8] = u(ldexpf(x, 3)) ^ u(scalbnf(y, -5));
    o[9] = u(sinpif(x));
    o[10] = u(sqrtf(y));
    o[11] = u(log10f(y));
    o[12] = u(cospif(x));
    o[13] = u(norm3df(x, y, x));
    o[14] = u(logbf(y)) ^ u(nextafterf(x, y));
    o[15] = u(rintf(x)) ^ u(roundf(y * 3.0f)) ^ u(truncf(x * 5.0f));
}

ZOO_KERNEL(zoo_fapprox)
{
    ARGS;
    float x = (float)(a & 0xffffff) * 0x1p-20f - 8.0f, y = (float)(b & 0xffff) * 0x1p-12f + 0.001f;
    o[0] = u(__expf(x));
    o[1] = u(__logf(y));
    o[2] = u(__sinf(x));
    o[3] = u(__cosf(x));
    o[4] = u(__powf(y, x));
    o[5] = u(__fdividef(x, y));
    o[6] = u(__tanf(x));
    o[7] = u(__log2f(y));
    o[8] = u(__exp10f(x));
    o[9] = u(__log10f(y));
    o[10] = u(__frcp_rn(y));
    o[11] = u(1.0f / y);
    o[12] = u(x / y);
    o[13] = u(sqrtf(y) * rsqrtf(y));
    o[14] = u(__fsqrt_rn(y));
    o[15] = u(__saturatef(x / 16.0f + 0.5f));
}

ZOO_KERNEL(zoo_f64)
{
    ARGS;
    double x = df(a, b), y = df(c, d), z = df(b, c);
    put64(o + 0, __dadd_rz(x, y));
    put64(o + 2, __dmul_ru(x, y));
    put64(o + 4, __fma_rd(x, y, z));
    put64(o + 6, __ddiv_rn(x, y));
    put64(o + 8, __drcp_rn(x));
    put64(o + 10, __dsqrt_rn(fabs(y)));
    o[12] = u(__double2float_rn(x)) ^ u(__double2float_rz(y));
    o[13] = u(__double2float_ru(x)) ^ u(__double2float_rd(y));
    o[14] = (uint32_t)__double2int_rz(x) ^ (uint32_t)__double2ll_rn(y);
    o[15] = (uint32_t)__double2hiint(trunc(x) + round(y) + floor(z));
}

// NaNs and out-of-range values where the ISA leaves the bits to the
// machine: conversions to every integer width from both float widths, and
// the double operations that pass a NaN on
ZOO_KERNEL(zoo_nan)
{
    ARGS;
    float xn = f(a | 0x7f800001u), x = f(b);
    double yn = df(c | 0x7ff00001u, d), y = df(b, c);
    o[0] = (uint32_t)__float2int_rz(xn);
    o[1] = (uint32_t)__float2ll_rz(xn);
    o[2] = (uint32_t)(__float2ll_rn(xn) >> 32);
    o[3] = (uint32_t)__double2int_rz(yn);
    o[4] = (uint32_t)(__double2ll_rz(yn) >> 32) ^ (uint32_t)__double2ll_rn(yn);
    o[5] = (uint32_t)(__double2ull_rz(yn) >> 32) ^ (uint32_t)__double2ull_rz(yn);
    o[6] = (uint32_t)__double2hiint(copysign(yn, y)) ^ (uint32_t)__double2loint(copysign(y, yn));
    o[7] = (uint32_t)__double2hiint(fmin(yn, y)) ^ (uint32_t)__double2hiint(fmax(y, yn) * 3.0);
    o[8] = (uint32_t)__double2hiint(fabs(yn)) ^ (uint32_t)__double2loint(-yn);
    o[9] = u(copysignf(xn, x)) ^ u(fabsf(xn));
    o[10] = u(__saturatef(x)) ^ u(__saturatef(xn));
    o[11] = __float2uint_rz(xn);
    o[12] = __double2uint_rz(yn);
    o[13] = (uint32_t)(__float2ull_rz(xn) >> 32) ^ (uint32_t)__float2ull_rz(xn);
    o[14] = (uint32_t)__double2hiint((double)xn) ^ u((float)yn);
    o[15] = u(__fadd_rn(x, -x)) ^ u(fmaxf(xn, -0.0f));
}

ZOO_KERNEL(zoo_dmath)
{
    ARGS;
    double x = (double)(a & 0xffffff) * 0x1p-20 - 8.0, y = (double)(b & 0xffff) * 0x1p-12 + 0.001;
    put64(o + 0, exp(x));
    put64(o + 2, cos(y));
    put64(o + 4, sin(x));
    put64(o + 6, fmod(x, y));
    put64(o + 8, sqrt(y) + expm1(x / 4.0));
    put64(o + 10, sinpi(x) - exp2(x / 2.0));
    put64(o + 12, atan2(x, y));
    put64(o + 14, __ll2double_rn((long long)(((uint64_t)c << 32) | d)) + __ull2double_rz(((uint64_t)d << 32) | c));
}

ZOO_KERNEL(zoo_warp)
{
    ARGS;
    const unsigned lane = threadIdx.x & 31;
    o[0] = __shfl_sync(0xffffffffu, a, b & 31, 8);
    o[1] = __shfl_up_sync(0xffffffffu, a, c & 15, 16);
    o[2] = __shfl_down_sync(0xffffffffu, a, d & 7, 4);
    o[3] = __shfl_xor_sync(0xffffffffu, a, 5, 16);
    o[4] = __ballot_sync(0xffffffffu, a & 1);
    o[5] = __any_sync(0xffffffffu, (a & 255) == 7) + 2 * __all_sync(0xffffffffu, (a & 3) != 3);
    uint32_t am = 0;
    if (b & 1)
        am = __activemask();
    o[6] = am;
    o[7] = __match_any_sync(0xffffffffu, a & 3);
    int pred = 0;
    uint32_t all = __match_all_sync(0xffffffffu, a >> 30, &pred);
    o[8] = all + (uint32_t)pred;
    o[9] = __reduce_add_sync(0xffffffffu, a) ^ __reduce_xor_sync(0xffffffffu, b);
    o[10] = __reduce_min_sync(0xffffffffu, a) ^ (uint32_t)__reduce_max_sync(0xffffffffu, (int)b);
    o[11] = __reduce_and_sync(0xffffffffu, a | b) ^ __reduce_or_sync(0xffffffffu, c & d);
    o[12] = 0;
    if (lane < 20)
        o[12] = __shfl_sync(0x000fffffu, a, (b & 31) % 20);
    o[13] = __fns(a, lane, (int)(c % 9) - 4);
    unsigned lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    unsigned ge;
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    o[14] = lt ^ (ge << 1);
    o[15] = 0;
    if (lane & 1) {
        unsigned m = __activemask();
        o[15] = __shfl_xor_sync(m, a, 2) + __popc(__ballot_sync(m, b & 1));
    }
}

ZOO_KERNEL(zoo_atomic)
{
    ARGS;
    __shared__ unsigned s_inc, s_dec, s_max, s_and, s_or;
    __shared__ unsigned short s_cas;
    __shared__ double s_dsum;
    __shared__ unsigned long long s_umax;
    __shared__ long long s_smin;
    __shared__ float s_fsum;
    if (threadIdx.x == 0) {
        s_inc = 0;
        s_dec = 1000;
        s_max = 0;
        s_and = ~0u;
        s_or = 0;
        s_cas = 0;
        s_dsum = 0;
        s_umax = 0;
        s_smin = 0;
        s_fsum = 0;
    }
    __syncthreads();
    atomicInc(&s_inc, 100);
    atomicDec(&s_dec, 37);
    atomicMax(&s_max, a);
    atomicAnd(&s_and, a | b);
    atomicOr(&s_or, c & d);
    atomicCAS(&s_cas, (unsigned short)0, (unsigned short)(threadIdx.x == 17 ? 99 : 0));
    atomicAdd(&s_dsum, (double)(int)(a & 0xffff));
    atomicMax(&s_umax, ((unsigned long long)a << 32) | b);
    atomicMin(&s_smin, (long long)(((unsigned long long)c << 32) | d));
    atomicAdd(&s_fsum, (float)(a & 0xff));
    __syncthreads();
    for (int i = 0; i < ZOO_SLOTS; i++)
        o[i] = 0;
    if (threadIdx.x == 0) {
        o[0] = s_inc;
        o[1] = s_dec;
        o[2] = s_max;
        o[3] = s_and;
        o[4] = s_or;
        o[5] = s_cas;

        o[6] = (uint32_t)__double2loint(s_dsum);
        o[7] = (uint32_t)__double2hiint(s_dsum);
        o[8] = (uint32_t)s_umax;
        o[9] = (uint32_t)(s_umax >> 32);
        o[10] = (uint32_t)s_smin;
        o[11] = (uint32_t)(s_smin >> 32);
        o[12] = u(s_fsum);
    }
}

// Cooperative groups: tiles of 16, 8 and 4, their collectives, and the
// group of the threads that took a branch
ZOO_KERNEL(zoo_cg)
{
    ARGS;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
    o[0] = cg::reduce(t16, a, cg::plus<uint32_t>());
    o[1] = cg::reduce(t8, b, cg::greater<uint32_t>());
    o[2] = cg::reduce(t4, c, cg::bit_xor<uint32_t>());
    o[3] = t16.shfl_down(a, 3) ^ t8.shfl_xor(b, 5) ^ t4.shfl(c, d & 3);
    o[4] = t16.ballot(a & 1) ^ (t8.any(b & 1) << 20) ^ (t4.all(c & 1) << 24);
    o[5] = t16.thread_rank() | (t8.meta_group_rank() << 8) | (t4.meta_group_size() << 16);
    o[6] = block.thread_rank() ^ (block.size() << 12);
    o[7] = 0;
    o[8] = 0;
    o[9] = 0;
    if (a & 1) {
        cg::coalesced_group active = cg::coalesced_threads();
        o[7] = active.size() | (active.thread_rank() << 8);
        o[8] = cg::reduce(active, b, cg::plus<uint32_t>());
        o[9] = active.shfl(c, 0);
    }
    block.sync();
    o[10] = cg::reduce(t16, (int)d, cg::less<int>());
    o[11] = cg::exclusive_scan(t16, a & 0xff, cg::plus<uint32_t>());
    o[12] = cg::inclusive_scan(t8, b & 0xff, cg::plus<uint32_t>());
    o[13] = t16.match_any(a & 3);
    o[14] = __syncthreads_count(a & 1) | (__syncthreads_and(b & 1) << 12) | (__syncthreads_or(c & 1) << 13);
    o[15] = 0;
}

// Control flow: lanes leaving loops at different trips, votes after they
// meet again, a switch, __syncwarp over part of a warp
ZOO_KERNEL(zoo_ctrl)
{
    ARGS;
    const unsigned lane = threadIdx.x & 31;
    uint32_t acc = 0, i = 0;
    for (; i < 40; i++) {
        if (((a >> (i % 32)) & 7) == 5)
            break;
        if (i & 1)
            continue;
        acc += i * b;
    }
    o[0] = acc;
    o[1] = __ballot_sync(0xffffffffu, i > 20);
    uint32_t r;
    switch (c % 11) {
    case 0: r = a; break;
    case 1: r = b + 1; break;
    case 2: r = a ^ b; break;
    case 3: r = d * 3; break;
    case 4: r = c >> 3; break;
    case 5: r = a | d; break;
    case 6: r = 77; break;
    case 7: r = b - a; break;
    case 8: r = ~c; break;
    case 9: r = a & b; break;
    default: r = 1; break;
    }
    o[2] = r;
    o[3] = 0;
    if (lane < 16) {
        o[3] = a + b;
        __syncwarp(0x0000ffffu);
        o[3] ^= __shfl_sync(0x0000ffffu, o[3], (lane + 1) & 15);
    }
    uint32_t x = a;
    while (x > 1000u)
        x = (x & 1) ? x / 3 : x / 2 + 17;
    o[4] = x;
    o[5] = __reduce_add_sync(0xffffffffu, x);
    uint32_t depth = 0;
    for (uint32_t j = 0; j < (b & 15); j++)
        for (uint32_t k = 0; k < (c & 7); k++)
            if ((j ^ k) & 1)
                depth += j * k;
    o[6] = depth;
    o[7] = __activemask();
    for (int s2 = 8; s2 < ZOO_SLOTS; s2++)
        o[s2] = 0;
    if (lane & 2)
        return;
    o[8] = __activemask();
    o[9] = __ballot_sync(__activemask(), a & 1);
}

// Memory: vector and narrow accesses, the cache-hinted loads and stores,
// a local array indexed at run time, a generic pointer into shared memory
ZOO_KERNEL(zoo_mem)
{
    ARGS;
    __shared__ uint32_t sh[64 * 4];
    __shared__ unsigned char sb[64 * 4];
    const unsigned i = threadIdx.x;
    sh[4 * i] = a;
    sh[4 * i + 1] = b;
    sh[4 * i + 2] = c;
    sh[4 * i + 3] = d;
    __syncthreads();
    const uint4 *v4 = reinterpret_cast<const uint4 *>(in);
    uint4 q = __ldg(v4 + (t ^ 1));
    o[0] = q.x ^ q.w;
    uint2 q2 = __ldcs(reinterpret_cast<const uint2 *>(in) + (2 * t + 1));
    o[1] = q2.x + q2.y;
    o[2] = __ldcg(in + 4 * t + 2) ^ __ldca(in + 4 * t + 3) ^ __ldlu(in + 4 * t) ^ __ldcv(in + 4 * t + 1);
    const unsigned char *bytes = reinterpret_cast<const unsigned char *>(in + 4 * t);
    const signed char *sbytes = reinterpret_cast<const signed char *>(in + 4 * t);
    const short *halves = reinterpret_cast<const short *>(in + 4 * t);
    o[3] = (uint32_t)bytes[1] | ((uint32_t)(int)sbytes[6] << 8);
    o[4] = (uint32_t)(int)halves[3];
    uint32_t local[24];
    for (int k = 0; k < 24; k++)
        local[k] = a * (uint32_t)k + b;
    o[5] = local[c % 24] ^ local[d % 24];
    uint32_t *gen = (a & 1) ? &sh[4 * ((i + 1) % 64)] : &local[b % 24];
    o[6] = *gen;
    uint4 s4 = reinterpret_cast<const uint4 *>(sh)[(i + 7) % 64];
    o[7] = s4.y - s4.z;
    sb[4 * i + (a & 3)] = (unsigned char)b;
    __syncthreads();
    o[8] = sb[4 * ((i + 3) % 64) + (in[4 * ((t & ~63u) + (i + 3) % 64)] & 3)];
    __stcs(o + 9, a ^ 0x5a5a5a5au);
    __stwt(o + 10, b + 1);
    __stcg(o + 11, c - 1);
    double2 dd = __ldg(reinterpret_cast<const double2 *>(in) + t);
    o[12] = __double2hiint(dd.x) ^ __double2loint(dd.y);
    float4 ff = reinterpret_cast<const float4 *>(in)[t];
    o[13] = __float_as_uint(ff.y) + __float_as_uint(ff.z);
    volatile uint32_t *vs = sh;
    o[14] = vs[(4 * i + 5) % 256];
    o[15] = gen[0] + 1;
}

// half comparisons into registers (set on halves: __hisnan, __hbgt2, the
// integer masks) and packed arithmetic beside them
ZOO_KERNEL(zoo_half)
{
    ARGS;
    __half2 x = *reinterpret_cast<const __half2 *>(&a), y = *reinterpret_cast<const __half2 *>(&b);
    __nv_bfloat162 p = *reinterpret_cast<const __nv_bfloat162 *>(&c), q = *reinterpret_cast<const __nv_bfloat162 *>(&d);
    __half lx = __low2half(x), hy = __high2half(y);
    o[0] = __hbgt2(x, y) | __hble2(x, y) << 2 | __hbequ2(x, y) << 4 | __hbltu2(x, y) << 6;
    o[1] = (uint32_t)__hisnan(lx) | (uint32_t)__hisinf(hy) << 1 | (uint32_t)__hlt(lx, hy) << 2 |
           (uint32_t)__hgeu(lx, hy) << 3 | (uint32_t)__hne(lx, hy) << 4;
    o[2] = __hgt2_mask(x, y) ^ __hleu2_mask(y, x);
    o[3] = __hbgt2(p, q) | __hble2(p, q) << 2 | (uint32_t)__hisnan(__low2bfloat16(p)) << 4;
    __half2 r = __hfma2_relu(x, y, x);
    o[4] = *reinterpret_cast<uint32_t *>(&r);
    __half2 mn = __hmin2(x, y), mx = __hmax2_nan(x, y);
    o[5] = *reinterpret_cast<uint32_t *>(&mn) ^ *reinterpret_cast<uint32_t *>(&mx);
    __half2 eq = __heq2(x, y);
    o[6] = *reinterpret_cast<uint32_t *>(&eq);
    __nv_bfloat162 pl = __hlt2(p, q);
    o[7] = *reinterpret_cast<uint32_t *>(&pl);
}

__device__ int zoo_twice(int v) { return 2 * v; }
__device__ int zoo_square(int v) { return v * v; }
__device__ int zoo_negate(int v) { return -v; }
__device__ int (*zoo_fns[3])(int) = {zoo_twice, zoo_square, zoo_negate};
__device__ uint32_t zoo_table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ uint32_t *zoo_mid = zoo_table + 4;
__constant__ uint32_t zoo_ctable[4] = {27, 18, 28, 18};
__device__ const uint32_t *zoo_cptr = &zoo_ctable[1];

// module variables initialised with addresses: a table of function
// pointers, pointers into a global and a constant array
ZOO_KERNEL(zoo_ptrs)
{
    ARGS;
    o[0] = (uint32_t)zoo_fns[a % 3]((int)b);
    o[1] = zoo_mid[c % 4] + zoo_cptr[d % 3];
}

// more of cooperative groups and the async copies: partitions by label,
// a whole warp's reductions, one elected lane, copies into shared memory
// through cg::memcpy_async and the pipeline primitives
ZOO_KERNEL(zoo_cg2)
{
    ARGS;
    __shared__ uint32_t staged[2 * 64 * 4];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const uint32_t *mine = in + 4 * (size_t)(blockIdx.x * blockDim.x);
    cg::memcpy_async(block, staged, mine, sizeof(uint32_t) * 4 * 64);
    cg::wait(block);
    o[0] = staged[(4 * threadIdx.x + 7) % 256];
    __pipeline_memcpy_async(&staged[256 + threadIdx.x], &mine[(threadIdx.x * 5) % 256], sizeof(uint32_t));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    block.sync();
    o[1] = staged[256 + (threadIdx.x + 9) % 64];
    cg::coalesced_group by_label = cg::labeled_partition(warp, (int)(a & 3));
    o[2] = cg::reduce(by_label, b, cg::plus<uint32_t>()) ^ (by_label.size() << 24);
    cg::thread_block_tile<32> wt = warp;
    auto halves = cg::binary_partition(wt, c & 1);
    o[3] = cg::reduce(halves, d, cg::bit_or<uint32_t>()) + halves.thread_rank();
    o[4] = __reduce_add_sync(0xffffffffu, a) ^ __reduce_min_sync(0xffffffffu, b);
    o[5] = __reduce_max_sync(0xffffffffu, (int)c) ^ __reduce_and_sync(0xffffffffu, d) ^ __reduce_xor_sync(0xffffffffu, a);
    int pred = 0;
    o[6] = warp.match_all(a & 1, pred) ^ (uint32_t)pred << 31;
    o[7] = 0;
    cg::invoke_one(warp, [&] { o[7] = 1 + warp.thread_rank(); });
    o[8] = cg::exclusive_scan(warp, b, cg::bit_xor<uint32_t>());
    o[9] = cg::inclusive_scan(warp, (int)c, cg::greater<int>());
}

// Hopper's DPX helpers and the bit and byte intrinsics beside them
ZOO_KERNEL(zoo_dpx)
{
    ARGS;
    bool p = false;
    o[0] = (uint32_t)__vimax3_s32((int)a, (int)b, (int)c) ^ __vimin3_u32(a, b, c);
    o[1] = (uint32_t)__viaddmax_s32((int)a, (int)b, (int)c) ^ __viaddmin_u32(a, b, c);
    o[2] = (uint32_t)__vibmax_s32((int)a, (int)b, &p) ^ (uint32_t)p << 31;
    o[3] = __vibmin_u32(c, d, &p) ^ (uint32_t)p << 30;
    o[4] = (uint32_t)__vimax_s32_relu((int)a, (int)b) ^ __vimax3_s16x2(a, b, c);
    o[5] = __vimin3_u16x2(a, b, c) ^ __viaddmax_s16x2(a, b, c);
    o[6] = __funnelshift_rc(a, b, c) ^ __funnelshift_lc(c, d, a);
    o[7] = __byte_perm(a, b, c & 0x7777) ^ __brev(d);
    o[8] = (uint32_t)__dp4a((int)a, (int)b, (int)c) ^ __dp2a_hi(a, b, d);
    o[9] = __sad((int)a, (int)b, c) ^ __usad(c, d, a);
}
