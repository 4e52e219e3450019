/* plan.h — the wire protocol between the judge (trusted, has the GPU) and the
 * runner (the student's host code linked with the recording runtime, no GPU,
 * sandboxed).  One SOCK_SEQPACKET socketpair, one message per packet, every
 * message a fixed-layout struct that starts with struct plan_hdr.
 *
 *   runner -> judge  HELLO   the kernels the student's object registered
 *   judge  -> runner LAYOUT  each kernel's parameter sizes, or "unknown"
 *   judge  -> runner CALL    one call of the lab's entry point: device
 *                            pointers as numbers, n, the stream token
 *   runner -> judge  QUERY   a device or kernel question the launcher asked
 *   judge  -> runner ANSWER  its answer
 *   runner -> judge  STEP    one recorded launch, memset or attribute
 *   runner -> judge  END     the call returned: the plan is complete
 *
 * The judge trusts nothing it reads here: every field is validated before
 * anything reaches the GPU (docs/harness.md, "The plan").  Shared by C (the
 * runner) and CUDA C++ (the judge), so plain C types only. */
#ifndef PLAN_H
#define PLAN_H

#include <stdint.h>

#include "../family.h"          /* the family a CALL names: enum family_id */

#define PLAN_VERSION 3               /* 2: CALL carries n2; 3: STEP carries cooperative */
#define PLAN_FD 3                   /* the runner's end of the socketpair */
#define PLAN_MAX_KERNELS 32
#define PLAN_NAME_MAX 512
#define PLAN_MAX_PARAMS 32
#define PLAN_MAX_ARGBYTES 4096      /* CUDA's own limit on kernel parameters */
#define PLAN_MAX_STEPS 256          /* what a runner may send; the catalog's bound is lower */
#define PLAN_ANSWER_BYTES 2048      /* room for a cudaDeviceProp */

enum plan_type {
    PLAN_HELLO = 1, PLAN_LAYOUT, PLAN_CALL, PLAN_QUERY, PLAN_ANSWER, PLAN_STEP, PLAN_END
};

enum plan_step_kind { STEP_LAUNCH = 1, STEP_MEMSET, STEP_FUNC_ATTR };

enum plan_query_kind {
    QUERY_DEVICE_ATTR = 1,          /* i0: cudaDeviceAttr, i1: device */
    QUERY_PROPS,                    /* i1: device; answer: struct cudaDeviceProp */
    QUERY_FUNC_ATTRS,               /* kernel; answer: struct cudaFuncAttributes */
    QUERY_OCCUPANCY,                /* kernel, i0: block size, i1: dynamic smem, i2: flags */
    QUERY_AVAIL_SMEM                /* kernel, i0: blocks per SM, i1: block size */
};

/* Why the launcher's call did not give a clean plan (END.flags). */
enum plan_end_flags {
    END_TOO_MANY_STEPS = 1,         /* it recorded more than PLAN_MAX_STEPS */
    END_UNKNOWN_KERNEL = 2,         /* it launched a function nobody registered */
    END_BAD_ARGS = 4,               /* it launched without arguments where some are due */
    END_TOO_MANY_KERNELS = 8        /* the file registered more than PLAN_MAX_KERNELS */
};

struct plan_hdr {
    uint32_t type;
    uint32_t size;                  /* of the whole message */
};

struct plan_hello {
    struct plan_hdr h;
    uint32_t version;
    uint32_t nkernels;
    char names[PLAN_MAX_KERNELS][PLAN_NAME_MAX];
};

struct plan_layout {
    struct plan_hdr h;
    uint32_t nkernels;
    int32_t nparams[PLAN_MAX_KERNELS];                  /* -1: unknown kernel */
    uint32_t sizes[PLAN_MAX_KERNELS][PLAN_MAX_PARAMS];
};

struct plan_call {
    struct plan_hdr h;
    uint32_t family;                /* enum family_id */
    uint32_t n;                     /* n, or count for mpadd */
    uint64_t ptr[4];                /* reduce, argmax, scan: in, out, scratch; trapezoid: -, out, scratch;
                                       mpadd: a, b, r, carry_out; select: in, out, scratch, count;
                                       rownorm: in, out */
    uint64_t stream;                /* the token passed as cudaStream_t */
    float a, b;                     /* trapezoid's interval */
    uint32_t n2;                    /* a second size: rownorm's cols (n is its rows); else 0 */
};

struct plan_query {
    struct plan_hdr h;
    uint32_t kind;                  /* enum plan_query_kind */
    uint32_t kernel;
    int64_t i0, i1, i2;
};

struct plan_answer {
    struct plan_hdr h;
    int32_t error;                  /* a cudaError_t */
    int32_t pad;
    int64_t value;
    uint32_t nbytes;
    uint8_t bytes[PLAN_ANSWER_BYTES];
};

struct plan_step {
    struct plan_hdr h;
    uint32_t kind;                  /* enum plan_step_kind */
    uint32_t kernel;                /* LAUNCH, FUNC_ATTR: index into HELLO's names */
    uint32_t grid[3], block[3];
    uint64_t shmem;
    uint64_t stream;
    uint64_t ptr;                   /* MEMSET: destination */
    uint64_t bytes;                 /* MEMSET: count */
    int32_t value;                  /* MEMSET: the byte; FUNC_ATTR: the attribute's value */
    int32_t attr;                   /* FUNC_ATTR: a cudaFuncAttribute */
    uint32_t cooperative;           /* LAUNCH: 1 through cudaLaunchCooperativeKernel, else 0 */
    uint32_t argbytes;              /* LAUNCH: bytes used in args, parameters back to back */
    uint8_t args[PLAN_MAX_ARGBYTES];
};

struct plan_end {
    struct plan_hdr h;
    uint32_t nsteps;
    uint32_t flags;                 /* enum plan_end_flags */
};

#endif /* PLAN_H */
