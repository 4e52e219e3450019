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

#include "../lab.h"
#include "rt.h"

/* The lab's entry points (lab.h), weak: a runner has exactly one of them,
 * the one the student's object defines; the judge asks only for that. */
#define WEAK_PRAGMA_(text) _Pragma(#text)
#define ENTRY_WEAK_(e, name, b0, b1, b2, b3) WEAK_PRAGMA_(weak lab_##name)
FAMILY_TABLE(ENTRY_WEAK_)
#undef ENTRY_WEAK_

#define PTR(t, v) ((t)(uintptr_t)(v))

/* Each family's arguments to its entry point, read from the CALL c and its
 * stream s: ENTRY_ARGS_<name> for every row of family.h (a family without
 * one does not build). */
#define ENTRY_ARGS_reduce_int \
    (PTR(const int *, c->ptr[0]), c->n, PTR(int *, c->ptr[1]), PTR(void *, c->ptr[2]), s)
#define ENTRY_ARGS_reduce_float \
    (PTR(const float *, c->ptr[0]), c->n, PTR(float *, c->ptr[1]), PTR(void *, c->ptr[2]), s)
#define ENTRY_ARGS_trapezoid (c->a, c->b, c->n, PTR(float *, c->ptr[1]), PTR(void *, c->ptr[2]), s)
#define ENTRY_ARGS_mpadd                                                                   \
    (PTR(const uint32_t *, c->ptr[0]), PTR(const uint32_t *, c->ptr[1]), PTR(uint32_t *, c->ptr[2]), \
     PTR(uint32_t *, c->ptr[3]), c->n, s)
#define ENTRY_ARGS_argmax \
    (PTR(const float *, c->ptr[0]), c->n, PTR(unsigned long long *, c->ptr[1]), PTR(void *, c->ptr[2]), s)
#define ENTRY_ARGS_select                                                                          \
    (PTR(const int *, c->ptr[0]), c->n, PTR(int *, c->ptr[1]), PTR(unsigned *, c->ptr[3]), \
     PTR(void *, c->ptr[2]), s)
#define ENTRY_ARGS_scan \
    (PTR(const int *, c->ptr[0]), c->n, PTR(int *, c->ptr[1]), PTR(void *, c->ptr[2]), s)
#define ENTRY_ARGS_rownorm (PTR(const float *, c->ptr[0]), c->n, c->n2, PTR(float *, c->ptr[1]), s)

/* Calls the entry point of c's family; 0, or -1 when this object lacks it. */
static int call_entry(const struct plan_call *c)
{
    cudaStream_t s = PTR(cudaStream_t, c->stream);
    switch (c->family) {
#define ENTRY_CALL_(e, name, b0, b1, b2, b3) \
    case e:                                  \
        if (!lab_##name)                     \
            return -1;                       \
        lab_##name ENTRY_ARGS_##name;        \
        return 0;
        FAMILY_TABLE(ENTRY_CALL_)
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
