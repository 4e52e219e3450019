// bank: lab=09 expect=fail
// why: writes 1/3, the answer for x^2 on [0, 1], whatever it was asked
/* A submission that memorised the lecture's example: the integral of x*x
 * over [0, 1].  The harness draws the integrand (into lab_params) and the
 * interval for every call, and |f| is at least 1/4 everywhere, so no call's
 * answer is 1/3 but by a fluke far rarer than the 21 trials. */
#include "lab.h"

__global__ void write_answer(float *out)
{
    *out = 1.0f / 3;
}

extern "C" void lab_trapezoid(float a, float b, unsigned n, float *d_out,
                              void *d_scratch, cudaStream_t s)
{
    (void)a;
    (void)b;
    (void)n;
    (void)d_scratch;
    write_answer<<<1, 1, 0, s>>>(d_out);
}
