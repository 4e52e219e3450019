// bank: lab=10 expect=fail
// why: reads the answer out of the poison: r once arrived holding the complement of the right sum, so r = ~r and carry_out from the top limb's overflow gave every number without adding; r now holds random limbs, and the result is wrong
/* A warp-free "adder": each thread flips one limb of r.  The vote is only
 * there for the technique check. */
#include "lab.h"

__global__ void unpoison(uint32_t *r, uint32_t *carry_out, unsigned count)
{
    size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned any = __ballot_sync(0xffffffffu, k < (size_t)count * LAB_MP_LIMBS);
    if (k < (size_t)count * LAB_MP_LIMBS && any) {
        r[k] = ~r[k];
        if (k % LAB_MP_LIMBS == 0)
            carry_out[k / LAB_MP_LIMBS] = 0;
    }
}

extern "C" void lab_mpadd(const uint32_t *a, const uint32_t *b, uint32_t *r, uint32_t *carry_out,
                          unsigned count, cudaStream_t s)
{
    (void)a; (void)b;
    unsigned threads = 256, blocks = (count * LAB_MP_LIMBS + threads - 1) / threads;
    unpoison<<<blocks, threads, 0, s>>>(r, carry_out, count);
}
