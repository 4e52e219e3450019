/* lab.h — the contract between a lab's kernel.cu and the hidden harness.
 *
 * Every stub and every solution includes this header and implements exactly one
 * entry point: the one of its lab's family (see data/labs.json). The harness
 * calls that entry point with device buffers it owns and checks the result.
 *
 * The rules, which the harness enforces where it can:
 *   1. All device work goes on the stream `s` the harness passes in.
 *   2. No allocation (cudaMalloc*), no host<->device copies (cudaMemcpy*), no
 *      other streams or graphs, no host synchronisation: the harness times the
 *      call from the host and synchronises after it.  cudaMemsetAsync on `s`,
 *      kernel launches, and occupancy or attribute queries are allowed.
 *   3. Any n from 1 up to LAB_MAX_N must work: never assume that n is a
 *      multiple of the block size or a power of two.
 *   4. The output buffer is poisoned before every call and d_scratch holds
 *      garbage: initialise whatever you accumulate into.
 *   5. The input is read-only; the harness checks it is unchanged afterwards.
 *   6. Every call gets fresh inputs: nothing may be cached between calls.
 *
 * Version history: 1 — the four families below.
 */
#ifndef LAB_H
#define LAB_H

#include <cuda_runtime.h>
#include <stdint.h>

#define LAB_CONTRACT_VERSION 1

/* The largest n (or count, for mpadd) the harness ever passes. */
#define LAB_MAX_N (1u << 28)

/* Bytes of d_scratch the harness provides for an input of n elements: room for
 * the partial sums of any multi-pass scheme whose blocks have >= 32 threads. */
#define LAB_SCRATCH_BYTES(n) ((size_t)(n) / 4 + 65536)

/* Lab 10: a 1024-bit number is 32 little-endian 32-bit limbs. */
#define LAB_MP_LIMBS 32

#ifdef __cplusplus
extern "C" {
#endif

/* reduce_int (labs 01-07): *d_out = sum of d_in[0..n).  The harness chooses the
 * values so that no partial sum overflows, whatever the order of additions. */
void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch,
                    cudaStream_t s);

/* reduce_float (lab 08): *d_out = sum of d_in[0..n), within the tolerance in
 * docs/harness.md (any summation order of a GPU reduction is inside it). */
void lab_reduce_float(const float *d_in, unsigned n, float *d_out,
                      void *d_scratch, cudaStream_t s);

/* trapezoid (lab 09): *d_out = h * (f(a)/2 + f(a+h) + ... + f(b-h) + f(b)/2)
 * with h = (b-a)/n, f = lab_f below: the trapezoid rule with n trapezoids. */
void lab_trapezoid(float a, float b, unsigned n, float *d_out, void *d_scratch,
                   cudaStream_t s);

/* mpadd (lab 10): for i in [0, count): r_i = a_i + b_i mod 2^1024, where number
 * i occupies limbs [32i, 32i+32) of a, b and r; carry_out[i] = the carry out of
 * its top limb (0 or 1). */
void lab_mpadd(const uint32_t *a, const uint32_t *b, uint32_t *r,
               uint32_t *carry_out, unsigned count, cudaStream_t s);

#ifdef __cplusplus
}
#endif

/* ---- Lab 09's integrand ------------------------------------------------- */

/* The harness picks one of these functions when it compiles your file, by
 * defining LAB_INTEGRAND, and picks the interval [a, b] at run time: compute
 * with lab_f(x) and never assume which function or interval you were given. */
#define LAB_INTEGRAND_COUNT 4
#ifndef LAB_INTEGRAND
#define LAB_INTEGRAND 0
#endif

#ifdef __CUDACC__
__host__ __device__ static inline float lab_integrand(int id, float x)
{
    switch (id) {
    case 0: return x * x;                   /* the lecture's example */
    case 1: return sinf(x);
    case 2: return expf(-0.5f * x);
    default: return 1.0f / (1.0f + x * x);
    }
}
#define lab_f(x) lab_integrand(LAB_INTEGRAND, (x))
#endif

#endif /* LAB_H */
