/* tests/device/approx-probe.cu — the H200's approximate functions, measured:
 * for each PTX approximate instruction, its result over a domain from which
 * every other input follows by scaling (a float's mantissa for rcp and lg2,
 * two binades for rsqrt, a fixed-point grid for ex2), written as the signed
 * distance in ulps from the correctly rounded value, so that the emulator
 * can be held to (or built from) the hardware's bits.  Also prints whether
 * the scaling rules hold on the device, and how each function reads inputs
 * finer than its grid.
 * Usage: approx-probe OUTDIR  (writes OUTDIR/NAME.d8: one int8 per input) */
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <cuda_runtime.h>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); return 1; } } while (0)

#define UNARY(name, ins) \
    __device__ __forceinline__ float name(float x) { float r; asm(ins " %0, %1;" : "=f"(r) : "f"(x)); return r; }
UNARY(hw_rcp, "rcp.approx.ftz.f32")
UNARY(hw_rcp_noftz, "rcp.approx.f32")
UNARY(hw_rsqrt, "rsqrt.approx.ftz.f32")
UNARY(hw_ex2, "ex2.approx.ftz.f32")
UNARY(hw_ex2_noftz, "ex2.approx.f32")
UNARY(hw_lg2, "lg2.approx.ftz.f32")
UNARY(hw_sin, "sin.approx.ftz.f32")
UNARY(hw_cos, "cos.approx.ftz.f32")
UNARY(hw_tanh, "tanh.approx.f32")
UNARY(hw_sqrt, "sqrt.approx.ftz.f32")
__device__ __forceinline__ float hw_div(float a, float b) { float r; asm("div.approx.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
__device__ __forceinline__ float hw_divf(float a, float b) { float r; asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }

__device__ int8_t ulps(float hw, float ref)
{
    int32_t d = (int32_t)__float_as_uint(hw) - (int32_t)__float_as_uint(ref);
    return (int8_t)(d > 127 ? 127 : d < -127 ? -127 : d);
}

enum { F_RCP, F_RSQRT, F_EX2, F_LG2, F_SIN, F_COS, F_TANH, F_SQRT, F_COUNT };
static const char *fname[F_COUNT] = {"rcp", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "sqrt"};
static const unsigned fcount[F_COUNT] = {1u << 23, 1u << 24, 1u << 24, 1u << 23, 1u << 24, 1u << 24, 1u << 24, 1u << 24};

/* the domain's i-th input of function F */
__device__ float domain(int f, unsigned i)
{
    switch (f) {
    case F_RCP: case F_LG2: return __uint_as_float(0x3f800000u | i);          /* [1, 2) */
    case F_RSQRT: case F_SQRT: return __uint_as_float(0x3f800000u + i);       /* [1, 4) */
    case F_EX2: return (float)i * 0x1p-24f;                                  /* [0, 1) by 2^-24 */
    case F_SIN: case F_COS: return (float)i * 0x1p-24f * 6.28318530717958647692f; /* [0, 2pi) */
    default: return __uint_as_float(0x39800000u + i * 8u);                   /* tanh: [2^-12, 2^4) */
    }
}

__device__ float hw(int f, float x)
{
    switch (f) {
    case F_RCP: return hw_rcp(x);
    case F_RSQRT: return hw_rsqrt(x);
    case F_EX2: return hw_ex2(x);
    case F_LG2: return hw_lg2(x);
    case F_SIN: return hw_sin(x);
    case F_COS: return hw_cos(x);
    case F_TANH: return hw_tanh(x);
    default: return hw_sqrt(x);
    }
}

__device__ float ref(int f, float x)
{
    double d = x;
    switch (f) {
    case F_RCP: return __frcp_rn(x);
    case F_RSQRT: return (float)(1.0 / sqrt(d));
    case F_EX2: return (float)exp2(d);
    case F_LG2: return (float)log2(d);
    case F_SIN: return (float)sin(d);
    case F_COS: return (float)cos(d);
    case F_TANH: return (float)tanh(d);
    default: return __fsqrt_rn(x);
    }
}

__global__ void table(int f, unsigned n, int8_t *out)
{
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x = domain(f, i), h = hw(f, x);
        out[i] = ulps(h, ref(f, x));
    }
}

/* Rules checked over every float mantissa m and exponent e (counts of
 * inputs where the rule fails):
 *  0 rcp(m 2^e) == rcp(m) 2^-e  (normal results)
 *  1 rsqrt(m 4^e) == rsqrt(m) 2^-e
 *  2 ex2(x) for x in [0,1) finer than 2^-24 == ex2(x truncated to 2^-24 grid)
 *  3 ex2(x) == ex2(x truncated to the 2^-23 grid)  (x in [0,1))
 *  4 ex2(x - 1) == ex2(x) / 2 for x in [0,1) on the 2^-24 grid
 *  5 lg2(m 2^e) == (float)(e + lg2(m)) in double
 *  6 div.approx(a, b) == a * rcp(b)  (random a, b with normal quotient)
 *  7 div.full(a, b) == div.approx(a, b)
 *  8 rcp.approx.f32 == rcp.approx.ftz.f32 on normal inputs
 *  9 ex2.approx.f32 == ex2.approx.ftz.f32 on normal inputs and results
 * 10 sin(x) == sin(x truncated to 2^-23 of a turn)  (x in [0, 2pi))
 * 11 ex2(x) for x in [1,2) == 2 * ex2(x - 1)
 */
#define RULES 12
__device__ unsigned long long fails[RULES], tried[RULES];

__device__ uint32_t mix(uint32_t x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; }

__global__ void rules(unsigned seed)
{
    unsigned long long f[RULES] = {0}, t[RULES] = {0};
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 64; k++) {
        uint32_t r = mix(tid * 64u + k + seed), s = mix(r), m = r & 0x7fffffu;
        int e = (int)(s % 200u) - 100;
        float mf = __uint_as_float(0x3f800000u | m);
        float x = ldexpf(mf, e);
        t[0]++; f[0] += __float_as_uint(hw_rcp(x)) != __float_as_uint(ldexpf(hw_rcp(mf), -e));
        int e2 = e / 2;
        float mq = __uint_as_float(0x3f800000u + (r & 0xffffffu));
        float xq = ldexpf(mq, 2 * e2);
        t[1]++; f[1] += __float_as_uint(hw_rsqrt(xq)) != __float_as_uint(ldexpf(hw_rsqrt(mq), -e2));
        float fine = __uint_as_float((uint32_t)(0x33800000u + (s % (0x3f800000u - 0x33800000u))));   /* [2^-24, 1) */
        float g24 = floorf(fine * 0x1p24f) * 0x1p-24f, g23 = floorf(fine * 0x1p23f) * 0x1p-23f;
        t[2]++; f[2] += __float_as_uint(hw_ex2(fine)) != __float_as_uint(hw_ex2(g24));
        t[3]++; f[3] += __float_as_uint(hw_ex2(fine)) != __float_as_uint(hw_ex2(g23));
        float gx = (float)(r & 0xffffffu) * 0x1p-24f;
        t[4]++; f[4] += __float_as_uint(hw_ex2(gx - 1.0f)) != __float_as_uint(hw_ex2(gx) * 0.5f);
        if (e != 0) {
            t[5]++; f[5] += __float_as_uint(hw_lg2(x)) != __float_as_uint((float)((double)e + (double)hw_lg2(mf)));
        }
        float a = __uint_as_float((mix(s) & 0x7fffffu) | 0x3f800000u) * (float)(1 + (s & 15)), b = x;
        if (fabsf(b) < 0x1p100f && fabsf(b) > 0x1p-100f) {
            t[6]++; f[6] += __float_as_uint(hw_div(a, b)) != __float_as_uint(a * hw_rcp(b));
            t[7]++; f[7] += __float_as_uint(hw_divf(a, b)) != __float_as_uint(hw_div(a, b));
        }
        t[8]++; f[8] += __float_as_uint(hw_rcp_noftz(x)) != __float_as_uint(hw_rcp(x));
        float ex = (float)((int)(s % 200u) - 100) + gx;
        t[9]++; f[9] += __float_as_uint(hw_ex2_noftz(ex)) != __float_as_uint(hw_ex2(ex));
        float sx = fine * 6.2831853f, turns = floorf(sx * 0.15915494f * 0x1p23f) * 0x1p-23f;
        t[10]++; f[10] += __float_as_uint(hw_sin(sx)) != __float_as_uint(hw_sin(turns * 6.2831853f));
        t[11]++; f[11] += __float_as_uint(hw_ex2(gx + 1.0f)) != __float_as_uint(2.0f * hw_ex2(gx));
    }
    for (int k = 0; k < RULES; k++) {
        atomicAdd(&fails[k], f[k]);
        atomicAdd(&tried[k], t[k]);
    }
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    int8_t *d8;
    CUDA_CHECK(cudaMalloc(&d8, 1u << 24));
    static int8_t h8[1u << 24];
    for (int f = 0; f < F_COUNT; f++) {
        table<<<1024, 256>>>(f, fcount[f], d8);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(h8, d8, fcount[f], cudaMemcpyDeviceToHost));
        long hist[5] = {0};
        int lo = 0, hi = 0;
        for (unsigned i = 0; i < fcount[f]; i++) {
            int d = h8[i];
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
            hist[d <= -2 ? 0 : d >= 2 ? 4 : d + 2]++;
        }
        printf("%-6s n=%u ulps from correctly rounded: min %d max %d  <=-2:%ld -1:%ld 0:%ld +1:%ld >=2:%ld\n",
               fname[f], fcount[f], lo, hi, hist[0], hist[1], hist[2], hist[3], hist[4]);
        char path[512];
        snprintf(path, sizeof path, "%s/%s.d8", dir, fname[f]);
        FILE *fp = fopen(path, "wb");
        if (!fp || fwrite(h8, 1, fcount[f], fp) != fcount[f]) { perror(path); return 1; }
        fclose(fp);
    }
    for (unsigned seed = 0; seed < 4; seed++)
        rules<<<4096, 256>>>(seed * 0x9e3779b9u);
    CUDA_CHECK(cudaDeviceSynchronize());
    unsigned long long f[RULES], t[RULES];
    CUDA_CHECK(cudaMemcpyFromSymbol(f, fails, sizeof f));
    CUDA_CHECK(cudaMemcpyFromSymbol(t, tried, sizeof t));
    for (int k = 0; k < RULES; k++)
        printf("rule %2d: %llu of %llu fail\n", k, f[k], t[k]);
    return 0;
}
