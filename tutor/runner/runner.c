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

/* Each family's entry point and its arguments, read from the CALL c and
 * its stream s: X(family, entry point, (arguments)). */
#define ENTRY_CALLS(X)                                                                                     \
    X(PLAN_REDUCE_INT, lab_reduce_int,                                                                     \
      (PTR(const int *, c->ptr[0]), c->n, PTR(int *, c->ptr[1]), PTR(void *, c->ptr[2]), s))               \
    X(PLAN_REDUCE_FLOAT, lab_reduce_float,                                                                 \
      (PTR(const float *, c->ptr[0]), c->n, PTR(float *, c->ptr[1]), PTR(void *, c->ptr[2]), s))           \
    X(PLAN_TRAPEZOID, lab_trapezoid,                                                                       \
      (c->a, c->b, c->n, PTR(float *, c->ptr[1]), PTR(void *, c->ptr[2]), s))                              \
    X(PLAN_MPADD, lab_mpadd,                                                                               \
      (PTR(const uint32_t *, c->ptr[0]), PTR(const uint32_t *, c->ptr[1]),                                 \
       PTR(uint32_t *, c->ptr[2]), PTR(uint32_t *, c->ptr[3]), c->n, s))                                   \
    X(PLAN_ARGMAX, lab_argmax,                                                                             \
      (PTR(const float *, c->ptr[0]), c->n, PTR(unsigned long long *, c->ptr[1]),                          \
       PTR(void *, c->ptr[2]), s))                                                                         \
    X(PLAN_SELECT, lab_select,                                                                             \
      (PTR(const int *, c->ptr[0]), c->n, PTR(int *, c->ptr[1]), PTR(unsigned *, c->ptr[3]),               \
       PTR(void *, c->ptr[2]), s))                                                                         \
    X(PLAN_SCAN, lab_scan,                                                                                 \
      (PTR(const int *, c->ptr[0]), c->n, PTR(int *, c->ptr[1]), PTR(void *, c->ptr[2]), s))               \
    X(PLAN_ROWNORM, lab_rownorm,                                                                           \
      (PTR(const float *, c->ptr[0]), c->n, c->n2, PTR(float *, c->ptr[1]), s))

/* Calls the entry point of c's family; 0, or -1 when this object lacks it. */
static int call_entry(const struct plan_call *c)
{
    cudaStream_t s = PTR(cudaStream_t, c->stream);
    switch (c->family) {
#define ENTRY_CALL_(family, entry, args) \
    case family:                         \
        if (!entry)                      \
            return -1;                   \
        entry args;                      \
        return 0;
    ENTRY_CALLS(ENTRY_CALL_)
#undef ENTRY_CALL_
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
