/* runner.c — main of the runner: the student's launcher, linked with the
 * recording runtime, answering the judge's calls with launch plans.
 *
 * The judge starts this program inside its sandbox (hx_sandbox.cu): no GPU,
 * no files, no network, no processes; one socket on PLAN_FD.  It serves
 * CALL messages until the judge closes the socket.  What the student's code
 * prints goes to this process's stdout and stderr, which the judge sends to
 * a capped file: it is shown to the student, never read as protocol. */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>

#include "rt.h"

/* The lab's entry points (lab.h).  Weak: a runner has exactly one of them,
 * the one the student's object defines; the judge asks only for that. */
void lab_reduce_int(const int *, unsigned, int *, void *, cudaStream_t) __attribute__((weak));
void lab_reduce_float(const float *, unsigned, float *, void *, cudaStream_t) __attribute__((weak));
void lab_trapezoid(float, float, unsigned, float *, void *, cudaStream_t) __attribute__((weak));
void lab_mpadd(const uint32_t *, const uint32_t *, uint32_t *, uint32_t *, unsigned,
               cudaStream_t) __attribute__((weak));
void lab_argmax(const float *, unsigned, unsigned long long *, void *, cudaStream_t) __attribute__((weak));
void lab_select(const int *, unsigned, int *, unsigned *, void *, cudaStream_t) __attribute__((weak));
void lab_scan(const int *, unsigned, int *, void *, cudaStream_t) __attribute__((weak));
void lab_rownorm(const float *, unsigned, unsigned, float *, cudaStream_t) __attribute__((weak));

#define PTR(t, v) ((t)(uintptr_t)(v))

/* Calls the entry point of c's family; 0, or -1 when this object lacks it. */
static int call_entry(const struct plan_call *c)
{
    cudaStream_t s = PTR(cudaStream_t, c->stream);
    switch (c->family) {
    case PLAN_REDUCE_INT:
        if (!lab_reduce_int)
            return -1;
        lab_reduce_int(PTR(const int *, c->ptr[0]), c->n, PTR(int *, c->ptr[1]), PTR(void *, c->ptr[2]), s);
        return 0;
    case PLAN_REDUCE_FLOAT:
        if (!lab_reduce_float)
            return -1;
        lab_reduce_float(PTR(const float *, c->ptr[0]), c->n, PTR(float *, c->ptr[1]),
                         PTR(void *, c->ptr[2]), s);
        return 0;
    case PLAN_TRAPEZOID:
        if (!lab_trapezoid)
            return -1;
        lab_trapezoid(c->a, c->b, c->n, PTR(float *, c->ptr[1]), PTR(void *, c->ptr[2]), s);
        return 0;
    case PLAN_MPADD:
        if (!lab_mpadd)
            return -1;
        lab_mpadd(PTR(const uint32_t *, c->ptr[0]), PTR(const uint32_t *, c->ptr[1]),
                  PTR(uint32_t *, c->ptr[2]), PTR(uint32_t *, c->ptr[3]), c->n, s);
        return 0;
    case PLAN_ARGMAX:
        if (!lab_argmax)
            return -1;
        lab_argmax(PTR(const float *, c->ptr[0]), c->n, PTR(unsigned long long *, c->ptr[1]),
                   PTR(void *, c->ptr[2]), s);
        return 0;
    case PLAN_SELECT:
        if (!lab_select)
            return -1;
        lab_select(PTR(const int *, c->ptr[0]), c->n, PTR(int *, c->ptr[1]), PTR(unsigned *, c->ptr[3]),
                   PTR(void *, c->ptr[2]), s);
        return 0;
    case PLAN_SCAN:
        if (!lab_scan)
            return -1;
        lab_scan(PTR(const int *, c->ptr[0]), c->n, PTR(int *, c->ptr[1]), PTR(void *, c->ptr[2]), s);
        return 0;
    case PLAN_ROWNORM:
        if (!lab_rownorm)
            return -1;
        lab_rownorm(PTR(const float *, c->ptr[0]), c->n, c->n2, PTR(float *, c->ptr[1]), s);
        return 0;
    default:
        return -1;
    }
}

int main(void)
{
    static struct plan_call call;

    if (rt_hello())
        return 2;
    while (rt_recv(&call, sizeof call, PLAN_CALL) == 0) {
        rt_begin();
        if (call_entry(&call))
            return 3;
        /* The student's printf is for the student: out before the plan, so
         * that it sits next to the call it came from. */
        fflush(stdout);
        fflush(stderr);
        if (rt_end())
            return 2;
    }
    return 0;
}
