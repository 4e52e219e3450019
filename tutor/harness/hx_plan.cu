/* hx_plan.cu — the judge's side of the plan: it loads the student's device
 * code, asks the runner for a launch plan for every call, checks each step
 * against the rules of lab.h and the device's limits, and replays what
 * passed on its own stream.  The runner's answers are untrusted data:
 * nothing in them reaches the GPU before it is checked here.
 *
 * The driver API (cuLibraryLoadData and friends) is reached through the
 * runtime's cudaGetDriverEntryPointByVersion, so the judge does not link
 * libcuda and still starts, and checks plans, on a machine without one.
 * With a GPU every fact about the student's module (its kernels, their
 * parameters, their resources) comes from the driver, never from the PTX's
 * text, which a comment in inline assembly can fake.  Without one the
 * parameter sizes come from the PTX with its comments and strings blanked
 * out, and device questions get the answers of a stand-in device.
 *
 * Messages describe what a plan did ("a memset past the end of d_out");
 * they never print a number or a name the runner sent: a refused step's
 * fields are the runner's to choose, and could carry the bytes of any file
 * the compiler read (.incbin). */
#include <chrono>
#include <cuda.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* lab_params is the family's (hx_fam_trapezoid.cu), not this file's. */
#define LAB_NO_PARAMS
#include "../lab.h"
#include <nvtx3/nvToolsExt.h>

#include "hx.h"
#include "../emu/emu_ptxscan.h"
#include "../runner/standin.h"

namespace hx {

/* ---- the driver API, by entry point --------------------------------------- */

static struct {
    decltype(&cuLibraryLoadData) libraryLoadData;
    decltype(&cuLibraryUnload) libraryUnload;
    decltype(&cuLibraryGetKernel) libraryGetKernel;
    decltype(&cuLibraryGetGlobal) libraryGetGlobal;
    decltype(&cuKernelGetFunction) kernelGetFunction;
    decltype(&cuKernelGetParamInfo) kernelGetParamInfo;
    decltype(&cuFuncGetAttribute) funcGetAttribute;
    decltype(&cuFuncSetAttribute) funcSetAttribute;
    decltype(&cuLaunchKernel) launchKernel;
    decltype(&cuLaunchCooperativeKernel) launchCooperativeKernel;
    decltype(&cuMemsetD8Async) memsetD8Async;
    decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags) occupancy;
    decltype(&cuOccupancyAvailableDynamicSMemPerBlock) availSmem;
    decltype(&cuGetErrorName) getErrorName;
} drv;

static int drv_load(void)
{
#define DRV_(field, name)                                                                      \
    do {                                                                                       \
        enum cudaDriverEntryPointQueryResult q;                                                \
        if (cudaGetDriverEntryPointByVersion(name, (void **)&drv.field, 12040, cudaEnableDefault, \
                                             &q) != cudaSuccess || q != cudaDriverEntryPointSuccess) \
            return -1;                                                                         \
    } while (0)
    DRV_(libraryLoadData, "cuLibraryLoadData");
    DRV_(libraryUnload, "cuLibraryUnload");
    DRV_(libraryGetKernel, "cuLibraryGetKernel");
    DRV_(libraryGetGlobal, "cuLibraryGetGlobal");
    DRV_(kernelGetFunction, "cuKernelGetFunction");
    DRV_(kernelGetParamInfo, "cuKernelGetParamInfo");
    DRV_(funcGetAttribute, "cuFuncGetAttribute");
    DRV_(funcSetAttribute, "cuFuncSetAttribute");
    DRV_(launchKernel, "cuLaunchKernel");
    DRV_(launchCooperativeKernel, "cuLaunchCooperativeKernel");
    DRV_(memsetD8Async, "cuMemsetD8Async");
    DRV_(occupancy, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    DRV_(availSmem, "cuOccupancyAvailableDynamicSMemPerBlock");
    DRV_(getErrorName, "cuGetErrorName");
#undef DRV_
    return 0;
}

/* Records a failed driver call like HX_CHECK does a runtime one. */
static int cu_check(CUresult e, const char *call, int line)
{
    if (e == CUDA_SUCCESS)
        return 0;
    const char *name = NULL;
    if (drv.getErrorName)
        drv.getErrorName(e, &name);
    char text[200];
    snprintf(text, sizeof text, "%s (%s, at hx_plan.cu:%d)", name ? name : "CUDA driver error", call, line);
    set_error_text(text);
    return -1;
}
#define CU_CHECK(call) do { if (cu_check((call), #call, __LINE__)) return -1; } while (0)

/* ---- the student's kernels ------------------------------------------------- */

struct kernel {
    char name[PLAN_NAME_MAX];
    int known;                  /* in the loaded code (or the PTX) */
    CUfunction f;               /* NULL without a GPU */
    int nparams;
    uint32_t size[PLAN_MAX_PARAMS], offset[PLAN_MAX_PARAMS];
    uint32_t argbytes;          /* offset + size of the last parameter */
    int local_bytes, max_threads, static_smem, max_dyn_smem;
};

/* One build's runner and device code.  A judge holds one; a batch
 * (--batch, hx_core.cu) one per build, each forked before the first CUDA
 * call, and plan_select says which the calls below mean. */
struct plan_state {
    struct runner run;
    struct kernel k[PLAN_MAX_KERNELS];
    int nkernels;
    int live;                   /* the runner answered HELLO and got LAYOUT */
    int gpu;                    /* kernels loaded on a GPU; 0: checked against the PTX */
    CUlibrary lib;              /* the student's device code, when gpu */
    char *image;                /* its bytes, kept for student_reload (a sealed CPU judge opens no file) */
    size_t image_len;
    char out_path[512];
};
static struct plan_state plan_states[BATCH_MAX];
static struct plan_state *pl = &plan_states[0];

void plan_select(int build)
{
    pl = &plan_states[build];
}

/* A plan failed: the verdict and the message for the report; the first
 * failure stands.  Returns -1. */
static int plan_vfail(struct ctx *c, enum status s, const char *fmt, va_list ap)
{
    if (!c->plan_status) {
        c->plan_status = s;
        vsnprintf(c->plan_msg, sizeof c->plan_msg, fmt, ap);
    }
    return -1;
}

static int plan_fail(struct ctx *c, enum status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int plan_fail(struct ctx *c, enum status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    plan_vfail(c, s, fmt, ap);
    va_end(ap);
    return -1;
}

/* Waits for one message from the runner until `until`; 1 when one came,
 * 0 when the socket closed (the runner ended), -1 when time ran out. */
static int recv_msg(void *buf, size_t len, double until, ssize_t *got)
{
    if (pl->run.fd < 0)
        return 0;
    for (;;) {
        double left = until - now_s();
        if (left <= 0)
            return -1;
        struct pollfd p = {pl->run.fd, POLLIN, 0};
        int pr = poll(&p, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            continue;
        ssize_t n = recv(pl->run.fd, buf, len, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return 0;
        *got = n;
        return 1;
    }
}

/* The runner is gone or silent: stops it and turns how it ended into the
 * verdict.  Returns -1. */
static int runner_lost(struct ctx *c, int timed_out, const char *when)
{
    char why[240];
    if (timed_out) {
        if (pl->run.pid > 0)     /* never kill(-1): that is every process */
            kill(pl->run.pid, SIGKILL);
        runner_stop(&pl->run, NULL, 0);
        pl->live = 0;
        return plan_fail(c, STATUS_TIMEOUT, "the launcher did not answer within %g s %s: its host "
                                            "code took too long", c->o->plan_timeout_s, when);
    }
    runner_stop(&pl->run, why, sizeof why);
    pl->live = 0;
    /* The runner was executing (runner_start saw the exec), so however it
     * ended, its code did it. */
    if (strstr(why, "sandbox stopped"))
        return plan_fail(c, STATUS_REJECTED, "the launcher's host code was stopped %s: %s", when, why);
    return plan_fail(c, STATUS_RUNTIME_ERROR, "the launcher's host code failed %s: %s", when, why);
}

/* ---- parameters from the PTX (no GPU) ---------------------------------- */

/* Sets k's parameters and local frame from its .entry in the PTX, read by
 * the emulator's tokenizer (emu_ptxscan.h): a comment or a string that
 * spells ".entry NAME(.param .u64 x)" declares nothing.  0, or -1 when the
 * PTX does not declare it so that its launch can be checked. */
static int ptx_params(const char *ptx, struct kernel *k)
{
    unsigned sizes[PLAN_MAX_PARAMS], local = 0;
    int n = emu_ptx_entry(ptx, strlen(ptx), k->name, sizes, PLAN_MAX_PARAMS, &local);
    if (n < 0)
        return -1;
    k->nparams = n;
    for (int i = 0; i < n; i++)
        k->size[i] = (uint32_t)sizes[i];
    k->local_bytes = (int)local;
    return 0;
}

static void layout_offsets(struct kernel *k)
{
    uint32_t off = 0;
    for (int i = 0; i < k->nparams; i++) {
        k->offset[i] = off;
        off += k->size[i];
    }
    k->argbytes = off;
}

/* ---- loading ------------------------------------------------------------ */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (char *)malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* The kernel as the driver loaded it: whether the module has it, its
 * parameters (cuKernelGetParamInfo with increasing index until the driver
 * says there is none: it has no call that counts them) and its resources.
 * Returns 0, or -1 when the driver refused the student's module (the
 * student's failure, in error_text). */
static int load_kernel_gpu(CUlibrary lib, struct kernel *k)
{
    CUkernel ker;
    int v;
    if (drv.libraryGetKernel(&ker, lib, k->name) != CUDA_SUCCESS)
        return 0;
    CU_CHECK(drv.kernelGetFunction(&k->f, ker));
    for (k->nparams = 0;; k->nparams++) {
        size_t off, sz;
        CUresult e = drv.kernelGetParamInfo(ker, (size_t)k->nparams, &off, &sz);
        if (e == CUDA_ERROR_INVALID_VALUE)
            break;
        CU_CHECK(e);
        if (k->nparams == PLAN_MAX_PARAMS) {
            set_error_text("a kernel of the file takes more parameters than a launch plan can carry");
            return -1;
        }
        k->size[k->nparams] = (uint32_t)sz;
    }
    CU_CHECK(drv.funcGetAttribute(&k->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->f));
    CU_CHECK(drv.funcGetAttribute(&k->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->f));
    CU_CHECK(drv.funcGetAttribute(&k->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->f));
    CU_CHECK(drv.funcGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k->f));
    k->max_dyn_smem = v;
    k->known = 1;
    return 0;
}

int plan_runner_pid(void)
{
    return pl->run.pid > 0 ? pl->run.pid : 0;
}

int plan_start(struct ctx *c)
{
    if (!c->o->runner)
        return 0;
    /* the launcher's own output is kept only where asked (the check asks,
     * in its work folder): a judge started by hand or by a test writes
     * nothing where it was started */
    snprintf(pl->out_path, sizeof pl->out_path, "%s", c->o->runner_out ? c->o->runner_out : "/dev/null");
    char why[240];
    int failed = c->o->gate ? runner_start_deferred(&pl->run, c->o->runner, pl->out_path, RUNNER_OUTPUT_CAP, why, sizeof why)
                            : runner_start(&pl->run, c->o->runner, pl->out_path, RUNNER_OUTPUT_CAP, why, sizeof why);
    if (failed)
        return plan_fail(c, STATUS_INTERNAL_ERROR, "internal: could not start the runner: %s", why);
    return 0;
}

/* A judge started beside the compile (--gate) waits here, its device
 * ready, for the check's word that the runner and device code are built:
 * 0 on 'g', -1 when the check withdrew the run (its build failed). */
static int gate_pass(struct ctx *c)
{
    char b = 0;
    ssize_t n;
    if (!c->o->gate)
        return 0;
    auto t = std::chrono::steady_clock::now();
    while ((n = read(0, &b, 1)) < 0 && errno == EINTR)
        ;
    c->r->gate_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    if (n != 1 || b != 'g') {
        plan_fail(c, STATUS_INTERNAL_ERROR, "internal: the check withdrew this run before its build was whole");
        return -1;
    }
    char why[240];
    if (runner_go(&pl->run, why, sizeof why))
        return plan_fail(c, STATUS_INTERNAL_ERROR, "internal: could not start the runner: %s", why);
    return 0;
}

int plan_load(struct ctx *c, int gpu)
{
    static struct plan_hello hello;
    static struct plan_layout lay;
    ssize_t got = 0;

    if (!c->o->runner)
        return plan_fail(c, STATUS_INTERNAL_ERROR, "internal: no --runner given");
    if (c->plan_status || pl->run.fd < 0)
        return plan_fail(c, STATUS_INTERNAL_ERROR, "internal: the runner did not start");
    if (gate_pass(c))
        return -1;
    int rc = recv_msg(&hello, sizeof hello, now_s() + c->o->plan_timeout_s, &got);
    if (rc <= 0)
        return runner_lost(c, rc < 0, "as it started (before the first call)");
    if (got != (ssize_t)sizeof hello || hello.h.type != PLAN_HELLO || hello.version != PLAN_VERSION ||
        hello.nkernels > PLAN_MAX_KERNELS)
        return plan_fail(c, STATUS_REJECTED, "the runner's first message is not a plan HELLO: its "
                                             "host code wrote on the judge's channel");
    pl->nkernels = (int)hello.nkernels;
    pl->gpu = gpu;

    CUlibrary lib = NULL;
    char *ptx = NULL;
    if (gpu) {
        size_t len = 0;
        char *image = c->o->fatbin ? read_all(c->o->fatbin, &len) : NULL;
        if (!image || drv_load()) {
            free(image);
            return plan_fail(c, STATUS_INTERNAL_ERROR, "internal: cannot read the kernel's device code "
                             "%s or reach the driver", c->o->fatbin ? c->o->fatbin : "(no --fatbin)");
        }
        /* The workbook built this image: a driver that refuses it refuses
         * what the student's code made it. */
        int refused = cu_check(drv.libraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0),
                               "cuLibraryLoadData", __LINE__);
        free(pl->image);
        pl->image = image;
        pl->image_len = len;
        if (refused)
            return plan_fail(c, STATUS_REJECTED, "the driver refused to load the file's device code "
                             "(%s)", error_text());
        pl->lib = lib;
    } else {
        if (!c->o->ptx || !(ptx = read_all(c->o->ptx, NULL)))
            return plan_fail(c, STATUS_INTERNAL_ERROR, "internal: no PTX to read the kernels' "
                             "parameters from (--ptx)");
    }
    memset(&lay, 0, sizeof lay);
    lay.h.type = PLAN_LAYOUT;
    lay.h.size = sizeof lay;
    lay.nkernels = hello.nkernels;
    for (int i = 0; i < pl->nkernels; i++) {
        struct kernel *k = &pl->k[i];
        memset(k, 0, sizeof *k);
        memcpy(k->name, hello.names[i], PLAN_NAME_MAX - 1);
        if (gpu) {
            if (load_kernel_gpu(lib, k))
                return plan_fail(c, STATUS_REJECTED, "the driver refused a kernel of the file: %s",
                                 error_text());
        } else {
            k->known = ptx_params(ptx, k) == 0;
            k->max_threads = 1024;
            k->max_dyn_smem = 48 << 10;
        }
        layout_offsets(k);
        lay.nparams[i] = k->known ? k->nparams : -1;
        memcpy(lay.sizes[i], k->size, sizeof lay.sizes[i]);
    }
    free(ptx);
    if (send(pl->run.fd, &lay, sizeof lay, MSG_NOSIGNAL) != (ssize_t)sizeof lay)
        return runner_lost(c, 0, "as it started");
    pl->live = 1;
    return 0;
}

void plan_end(struct ctx *c)
{
    (void)c;
    if (pl->run.pid > 0)
        runner_stop(&pl->run, NULL, 0);
    pl->live = 0;
    free(pl->image);
    pl->image = NULL;
    /* A batch's next build must not find this one's code loaded.  After a
     * sticky error the unload fails like everything else: nothing to do. */
    if (pl->gpu && pl->lib)
        drv.libraryUnload(pl->lib);
    pl->lib = NULL;
}

/* ---- questions ------------------------------------------------------------ */

/* The stand-in device of a machine without a GPU: an H100's figures, so that
 * a launcher sizes its grid as it would there. */
static void standin_props(struct cudaDeviceProp *p)
{
    standin_fill(p);
    snprintf(p->name, sizeof p->name, "no GPU (plans checked against a stand-in device)");
}

static int standin_attr(int attr, int64_t *v)
{
    struct cudaDeviceProp p;
    standin_props(&p);
    switch (attr) {
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; return 0;
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; return 0;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = p.maxThreadsPerMultiProcessor; return 0;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *v = p.maxBlocksPerMultiProcessor; return 0;
    case cudaDevAttrWarpSize: *v = 32; return 0;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int64_t)p.sharedMemPerBlock; return 0;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = (int64_t)p.sharedMemPerBlockOptin; return 0;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = (int64_t)p.sharedMemPerMultiprocessor; return 0;
    case cudaDevAttrMaxRegistersPerBlock: case cudaDevAttrMaxRegistersPerMultiprocessor: *v = 65536; return 0;
    case cudaDevAttrComputeCapabilityMajor: *v = 9; return 0;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; return 0;
    case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; return 0;
    case cudaDevAttrMaxGridDimY: case cudaDevAttrMaxGridDimZ: *v = 65535; return 0;
    case cudaDevAttrMaxBlockDimX: case cudaDevAttrMaxBlockDimY: *v = 1024; return 0;
    case cudaDevAttrMaxBlockDimZ: *v = 64; return 0;
    case cudaDevAttrL2CacheSize: *v = p.l2CacheSize; return 0;
    case cudaDevAttrCooperativeLaunch: *v = p.cooperativeLaunch; return 0;
    default: return -1;
    }
}

static void answer(struct ctx *c, const struct plan_query *q, struct plan_answer *a)
{
    memset(a, 0, sizeof *a);
    a->h.type = PLAN_ANSWER;
    a->h.size = sizeof *a;
    const struct kernel *k = q->kernel < (uint32_t)pl->nkernels ? &pl->k[q->kernel] : NULL;
    int needs_kernel = q->kind == QUERY_FUNC_ATTRS || q->kind == QUERY_OCCUPANCY || q->kind == QUERY_AVAIL_SMEM;
    if (needs_kernel && (!k || !k->known)) {
        a->error = cudaErrorInvalidDeviceFunction;
        return;
    }
    if (q->i1 != 0 && (q->kind == QUERY_DEVICE_ATTR || q->kind == QUERY_PROPS)) {
        a->error = cudaErrorInvalidDevice;      /* there is one device: 0 */
        return;
    }
    switch (q->kind) {
    case QUERY_DEVICE_ATTR: {
        if (!pl->gpu) {
            a->error = standin_attr((int)q->i0, &a->value) ? cudaErrorInvalidValue : cudaSuccess;
            return;
        }
        int v = 0;
        if (q->i0 < 0 || q->i0 > 1000 || cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)q->i0, 0) != cudaSuccess) {
            cudaGetLastError();
            a->error = cudaErrorInvalidValue;
            return;
        }
        a->value = v;
        return;
    }
    case QUERY_PROPS: {
        struct cudaDeviceProp p;
        if (pl->gpu)
            cudaGetDeviceProperties(&p, 0);
        else
            standin_props(&p);
        static_assert(sizeof p <= PLAN_ANSWER_BYTES, "cudaDeviceProp fits an answer");
        memcpy(a->bytes, &p, sizeof p);
        a->nbytes = sizeof p;
        return;
    }
    case QUERY_FUNC_ATTRS: {
        struct cudaFuncAttributes fa;
        memset(&fa, 0, sizeof fa);
        fa.maxThreadsPerBlock = k->max_threads;
        fa.localSizeBytes = (size_t)k->local_bytes;
        fa.sharedSizeBytes = (size_t)k->static_smem;
        fa.maxDynamicSharedSizeBytes = k->max_dyn_smem;
        if (pl->gpu) {
            drv.funcGetAttribute(&fa.numRegs, CU_FUNC_ATTRIBUTE_NUM_REGS, k->f);
            drv.funcGetAttribute(&fa.ptxVersion, CU_FUNC_ATTRIBUTE_PTX_VERSION, k->f);
            drv.funcGetAttribute(&fa.binaryVersion, CU_FUNC_ATTRIBUTE_BINARY_VERSION, k->f);
            int cs = 0;
            drv.funcGetAttribute(&cs, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, k->f);
            fa.constSizeBytes = (size_t)cs;
        } else {
            fa.numRegs = 32;
        }
        memcpy(a->bytes, &fa, sizeof fa);
        a->nbytes = sizeof fa;
        return;
    }
    case QUERY_OCCUPANCY: {
        int blocks = 0;
        if (q->i0 <= 0 || q->i0 > 1024 || q->i1 < 0 || q->i1 > (1 << 20)) {
            a->error = cudaErrorInvalidValue;
            return;
        }
        if (!pl->gpu) {
            int warps = (int)((q->i0 + 31) / 32);
            blocks = 64 / warps < 32 ? 64 / warps : 32;
        } else if (drv.occupancy(&blocks, k->f, (int)q->i0, (size_t)q->i1, (unsigned)q->i2) != CUDA_SUCCESS) {
            a->error = cudaErrorInvalidValue;
            return;
        }
        a->value = blocks;
        return;
    }
    case QUERY_AVAIL_SMEM: {
        size_t smem = 48 << 10;
        if (q->i0 <= 0 || q->i1 <= 0 || q->i1 > 1024) {
            a->error = cudaErrorInvalidValue;
            return;
        }
        if (pl->gpu && drv.availSmem(&smem, k->f, (int)q->i0, (int)q->i1) != CUDA_SUCCESS) {
            a->error = cudaErrorInvalidValue;
            return;
        }
        a->value = (int64_t)smem;
        return;
    }
    default:
        a->error = cudaErrorNotSupported;
    }
    (void)c;
}

/* ---- checking one step -------------------------------------------------- */

/* The rule a stream that is not the judge's breaks, in words. */
static int stream_fail(struct ctx *c, uint64_t s, const char *what)
{
    const char *which = s == 0 ? "the legacy default stream (stream 0)"
                      : s == 1 ? "cudaStreamLegacy"
                      : s == 2 ? "cudaStreamPerThread"
                               : "a stream that is not the one it was given";
    return plan_fail(c, STATUS_REJECTED, "%s on %s: all device work goes on the stream s the judge "
                                         "passes in (rule 1 in lab.h)", what, which);
}

static int inside(uint64_t p, uint64_t n, uint64_t base, uint64_t size)
{
    return p >= base && n <= size && p - base <= size - n;
}

/* Buffer b of the call, as lab.h names it ("-" where the entry point takes none). */
static const char *buffer_name(const struct call *k, int b)
{
    const char *name = family_buffer(k->family, b).name;
    return name ? name : "-";
}

/* What the launcher was told of kernel KERNEL: blocks of THREADS threads and
 * SHMEM dynamic bytes an SM holds, and the SMs; the driver's rule for a
 * cooperative grid.  0, or -1 when none fits. */
static int coresident(struct ctx *c, uint32_t kernel, unsigned long long threads, uint64_t shmem,
                      long long *per_sm, long long *sms)
{
    struct plan_query q;
    static struct plan_answer a;
    memset(&q, 0, sizeof q);
    q.kind = QUERY_OCCUPANCY;
    q.kernel = kernel;
    q.i0 = (int64_t)threads;
    q.i1 = (int64_t)shmem;
    answer(c, &q, &a);
    if (a.error || a.value <= 0)
        return -1;
    *per_sm = a.value;
    q.kind = QUERY_DEVICE_ATTR;
    q.i0 = cudaDevAttrMultiProcessorCount;
    q.i1 = 0;
    answer(c, &q, &a);
    if (a.error || a.value <= 0)
        return -1;
    *sms = a.value;
    return 0;
}

static int check_launch(struct ctx *c, const struct call *k, const struct plan_step *st, struct step *out)
{
    const struct device_limits *lim = &c->limits;
    if (st->kernel >= (uint32_t)pl->nkernels || !pl->k[st->kernel].known)
        return plan_fail(c, STATUS_REJECTED, "launches a kernel that is not in the file's device code");
    const struct kernel *kr = &pl->k[st->kernel];
    /* The name is one the driver (or, without a GPU, the PTX) knows: the
     * student wrote it in the source. */
    char what[160];
    snprintf(what, sizeof what, "launches %.100s", kr->name);
    if (st->stream != k->stream)
        return stream_fail(c, st->stream, what);
    if (st->argbytes != kr->argbytes)
        return plan_fail(c, STATUS_REJECTED, "%s with arguments that do not fit its parameters", what);
    unsigned long long threads = (unsigned long long)st->block[0] * st->block[1] * st->block[2];
    unsigned long long blocks = (unsigned long long)st->grid[0] * st->grid[1] * st->grid[2];
    for (int d = 0; d < 3; d++) {
        if (st->grid[d] == 0 || st->grid[d] > (unsigned)lim->max_grid[d])
            return plan_fail(c, STATUS_REJECTED, "%s with a grid dimension that is 0 or past the device's "
                             "limit: each must be 1 to %d, %d, %d on this device", what,
                             lim->max_grid[0], lim->max_grid[1], lim->max_grid[2]);
        if (st->block[d] == 0 || st->block[d] > (unsigned)lim->max_block[d])
            return plan_fail(c, STATUS_REJECTED, "%s with a block dimension that is 0 or past the device's "
                             "limit: each must be 1 to %d, %d, %d", what,
                             lim->max_block[0], lim->max_block[1], lim->max_block[2]);
    }
    if (blocks > c->o->max_blocks)
        return plan_fail(c, STATUS_REJECTED, "%s with more blocks than any size this lab is judged at "
                         "needs: at most %llu blocks a launch", what, c->o->max_blocks);
    if (threads > (unsigned long long)kr->max_threads)
        return plan_fail(c, STATUS_REJECTED, "%s with more threads per block than this kernel takes "
                         "(its limit, from its registers and __launch_bounds__)", what);
    if (st->shmem > (uint64_t)kr->max_dyn_smem)
        return plan_fail(c, STATUS_REJECTED, "%s with more dynamic shared memory than it may use (48 KiB "
                         "unless cudaFuncSetAttribute raised its limit first)", what);
    if (kr->local_bytes > c->o->max_local_bytes)
        return plan_fail(c, STATUS_REJECTED, "%s, whose threads use more local memory each than %d bytes "
                         "(a large local array makes the driver reserve memory for every "
                         "thread the GPU can hold, and starves other processes)", what,
                         c->o->max_local_bytes);
    if (st->cooperative > 1)
        return plan_fail(c, STATUS_REJECTED, "%s with a launch record the runtime does not write", what);
    if (st->cooperative) {
        long long per_sm = 0, sms = 0;
        if (coresident(c, st->kernel, threads, st->shmem, &per_sm, &sms))
            return plan_fail(c, STATUS_REJECTED, "%s cooperatively with a block the device cannot hold "
                             "(cudaOccupancyMaxActiveBlocksPerMultiprocessor says none fits)", what);
        if (blocks > (unsigned long long)(per_sm * sms))
            return plan_fail(c, STATUS_RUNTIME_ERROR, "%s with cudaLaunchCooperativeKernel and %llu blocks, "
                             "which the driver refuses (cudaErrorCooperativeLaunchTooLarge): a grid-wide "
                             "barrier needs every block resident at once, and this device holds at most "
                             "%lld blocks of it (%lld an SM on %lld SMs)", what, blocks, per_sm * sms,
                             per_sm, sms);
    }
    out->kind = STEP_LAUNCH;
    out->cooperative = (int)st->cooperative;
    out->kernel = st->kernel;
    memcpy(out->grid, st->grid, sizeof out->grid);
    memcpy(out->block, st->block, sizeof out->block);
    out->shmem = (unsigned)st->shmem;
    out->argbytes = st->argbytes;
    memcpy(out->args, st->args, st->argbytes);
    return 0;
}

/* Where a refused memset went, in words: which buffer it starts in and
 * whether it runs past its end, or that it touches none of them. */
static void memset_where(const struct call *k, const struct plan_step *st, char *buf, size_t len)
{
    for (int b = 0; b < 4; b++) {
        if (!k->bytes[b] || st->ptr < k->ptr[b] || st->ptr - k->ptr[b] >= k->bytes[b])
            continue;
        if (!k->writable[b])
            snprintf(buf, len, "a memset of %s, which the kernel may only read", buffer_name(k, b));
        else
            snprintf(buf, len, "a memset past the end of %s", buffer_name(k, b));
        return;
    }
    snprintf(buf, len, "a memset of memory that is none of the call's buffers");
}

static int check_memset(struct ctx *c, const struct call *k, const struct plan_step *st, struct step *out)
{
    if (st->stream != k->stream)
        return stream_fail(c, st->stream, "cudaMemsetAsync");
    int ok = 0;
    for (int i = 0; i < 4; i++)
        if (k->writable[i] && inside(st->ptr, st->bytes, k->ptr[i], k->bytes[i]))
            ok = 1;
    if (!ok) {
        char where[120];
        memset_where(k, st, where, sizeof where);
        return plan_fail(c, STATUS_REJECTED, "cudaMemsetAsync: %s; only the output and scratch buffers "
                         "may be set, within their sizes (rules 4 and 5 in lab.h)", where);
    }
    out->kind = STEP_MEMSET;
    out->ptr = st->ptr;
    out->bytes = st->bytes;
    out->value = st->value & 0xff;
    return 0;
}

/* A function attribute takes effect at once (queries after it see it) and
 * is not replayed. */
static int apply_attr(struct ctx *c, const struct plan_step *st)
{
    if (st->kernel >= (uint32_t)pl->nkernels || !pl->k[st->kernel].known)
        return plan_fail(c, STATUS_REJECTED, "cudaFuncSetAttribute on a function that is not a kernel of the file");
    struct kernel *kr = &pl->k[st->kernel];
    if (st->attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (st->value < 0 || st->value + kr->static_smem > c->limits.smem_optin)
            return plan_fail(c, STATUS_REJECTED, "cudaFuncSetAttribute asks for more dynamic shared memory "
                             "than this device has per block (%d bytes, the kernel's static shared "
                             "memory included)", c->limits.smem_optin);
        if (pl->gpu && cu_check(drv.funcSetAttribute(kr->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                    st->value), "cuFuncSetAttribute", __LINE__))
            return plan_fail(c, STATUS_RUNTIME_ERROR, "the driver refused the launcher's "
                             "cudaFuncSetAttribute: %s", error_text());
        kr->max_dyn_smem = st->value;
        return 0;
    }
    if (st->attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
        if (st->value < -1 || st->value > 100)
            return plan_fail(c, STATUS_REJECTED, "cudaFuncSetAttribute: a carveout outside -1 to 100 percent");
        if (pl->gpu)
            drv.funcSetAttribute(kr->f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, st->value);
        return 0;
    }
    return plan_fail(c, STATUS_REJECTED, "cudaFuncSetAttribute with an attribute other than the two a "
                     "launcher may set: the dynamic shared memory size and the carveout");
}

/* ---- asking for a plan --------------------------------------------------- */

int student_plan(struct ctx *c, const struct call *k, struct plan *p)
{
    static union {
        struct plan_hdr h;
        struct plan_step step;
        struct plan_query query;
        struct plan_end end;
    } m;
    static struct plan_answer ans;
    struct plan_call req;
    char when[64];

    if (c->plan_status)
        return -1;
    if (!pl->live)
        return plan_fail(c, STATUS_INTERNAL_ERROR, "internal: the runner is not running");
    memset(&req, 0, sizeof req);
    req.h.type = PLAN_CALL;
    req.h.size = sizeof req;
    req.family = k->family;
    req.n = k->n;
    req.n2 = k->n2;
    memcpy(req.ptr, k->ptr, sizeof req.ptr);
    req.stream = k->stream;
    req.a = k->a;
    req.b = k->b;
    snprintf(when, sizeof when, "in a call with n=%u", k->n);
    p->nsteps = 0;
    if (send(pl->run.fd, &req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req)
        return runner_lost(c, 0, when);
    double until = now_s() + c->o->plan_timeout_s;
    int received = 0;
    for (;;) {
        ssize_t got = 0;
        int rc = recv_msg(&m, sizeof m, until, &got);
        if (rc <= 0)
            return runner_lost(c, rc < 0, when);
        if (got < (ssize_t)sizeof(struct plan_hdr) || (size_t)got != m.h.size)
            return plan_fail(c, STATUS_REJECTED, "the runner sent a malformed message %s", when);
        if (m.h.type == PLAN_QUERY && got == (ssize_t)sizeof m.query) {
            answer(c, &m.query, &ans);
            if (send(pl->run.fd, &ans, sizeof ans, MSG_NOSIGNAL) != (ssize_t)sizeof ans)
                return runner_lost(c, 0, when);
        } else if (m.h.type == PLAN_STEP && got == (ssize_t)sizeof m.step) {
            if (++received > c->o->max_steps)
                return plan_fail(c, STATUS_REJECTED, "the launcher made more than %d launches and memsets "
                                 "%s: at most %d", c->o->max_steps, when, c->o->max_steps);
            if (m.step.kind == STEP_FUNC_ATTR) {
                if (apply_attr(c, &m.step))
                    return -1;
            } else if (m.step.kind == STEP_LAUNCH) {
                if (check_launch(c, k, &m.step, &p->steps[p->nsteps]))
                    return -1;
                p->nsteps++;
            } else if (m.step.kind == STEP_MEMSET) {
                if (check_memset(c, k, &m.step, &p->steps[p->nsteps]))
                    return -1;
                p->nsteps++;
            } else {
                return plan_fail(c, STATUS_REJECTED, "the runner sent an unknown step %s", when);
            }
        } else if (m.h.type == PLAN_END && got == (ssize_t)sizeof m.end) {
            if (m.end.flags & END_TOO_MANY_KERNELS)
                return plan_fail(c, STATUS_REJECTED, "the file defines more than %d kernels (each template "
                                 "instance counts), more than the judge follows: define fewer", PLAN_MAX_KERNELS);
            if (m.end.flags & END_UNKNOWN_KERNEL)
                return plan_fail(c, STATUS_REJECTED, "the launcher launched a function that is not a "
                                 "registered kernel of the file %s", when);
            if (m.end.flags & END_BAD_ARGS)
                return plan_fail(c, STATUS_REJECTED, "a launch passed no arguments to a kernel that takes "
                                 "some %s", when);
            if (m.end.flags & END_TOO_MANY_STEPS || m.end.nsteps != (uint32_t)received)
                return plan_fail(c, STATUS_REJECTED, "the launcher's plan %s was cut short: more than %d "
                                 "steps", when, c->o->max_steps);
            c->plans++;
            return 0;
        } else {
            return plan_fail(c, STATUS_REJECTED, "the runner sent a message out of turn %s", when);
        }
    }
}

struct call call_make(const struct ctx *c, enum family_id f, unsigned n, const void *p0,
                      const void *p1, const void *p2, const void *p3)
{
    struct call k;
    memset(&k, 0, sizeof k);
    k.family = f;
    k.n = n;
    k.stream = c->token;
    k.ptr[0] = (uint64_t)(uintptr_t)p0;
    k.ptr[1] = (uint64_t)(uintptr_t)p1;
    k.ptr[2] = (uint64_t)(uintptr_t)p2;
    k.ptr[3] = (uint64_t)(uintptr_t)p3;
    for (int b = 0; b < 4; b++) {
        struct family_buffer fb = family_buffer(f, b);
        k.writable[b] = fb.writable;
        switch (fb.size) {
        case FB_N:
            k.bytes[b] = (uint64_t)n * 4;
            break;
        case FB_ONE4:
            k.bytes[b] = 4;
            break;
        case FB_ONE8:
            k.bytes[b] = 8;
            break;
        case FB_LIMBS:
            k.bytes[b] = (uint64_t)n * LAB_MP_LIMBS * 4;
            break;
        case FB_SCRATCH:
            k.bytes[b] = LAB_SCRATCH_BYTES(n);
            break;
        case FB_ABSENT:
        case FB_FAMILY:             /* rownorm: rows * cols floats, which the family sets with n2 */
            break;
        }
    }
    return k;
}

int plan_same(const struct plan *a, const struct plan *b)
{
    if (a->nsteps != b->nsteps)
        return 0;
    for (int i = 0; i < a->nsteps; i++) {
        const struct step *x = &a->steps[i], *y = &b->steps[i];
        if (x->kind != y->kind || x->kernel != y->kernel || memcmp(x->grid, y->grid, sizeof x->grid) ||
            memcmp(x->block, y->block, sizeof x->block) || x->shmem != y->shmem || x->ptr != y->ptr ||
            x->bytes != y->bytes || x->value != y->value || x->cooperative != y->cooperative ||
            x->argbytes != y->argbytes ||
            memcmp(x->args, y->args, x->argbytes))
            return 0;
    }
    return 1;
}

int student_global(struct ctx *c, const char *name, void **dptr, size_t *bytes)
{
    CUdeviceptr d = 0;
    size_t size = 0;
    (void)c;
    if (!pl->gpu || !pl->lib)
        return -1;
    if (drv.libraryGetGlobal(&d, &size, pl->lib, name) != CUDA_SUCCESS)
        return -1;
    *dptr = (void *)(uintptr_t)d;
    *bytes = size;
    return 0;
}

int student_reload(struct ctx *c)
{
    CUlibrary lib = NULL, old = pl->lib;
    int bad;

    if (!pl->gpu || !old)
        return 0;
    if (!pl->image)
        return plan_fail(c, STATUS_INTERNAL_ERROR, "internal: the device code of %s is gone", c->o->fatbin);
    bad = cu_check(drv.libraryLoadData(&lib, pl->image, NULL, NULL, 0, NULL, NULL, 0), "cuLibraryLoadData", __LINE__);
    if (bad)
        return -1;
    pl->lib = lib;
    for (int i = 0; i < pl->nkernels; i++) {
        struct kernel *k = &pl->k[i];
        CUkernel ker;
        int dflt;
        if (!k->known)
            continue;
        CU_CHECK(drv.libraryGetKernel(&ker, lib, k->name));
        CU_CHECK(drv.kernelGetFunction(&k->f, ker));
        /* A limit the launcher raised (a plan's attribute step) holds for
         * the kernel, not for one copy of its code. */
        CU_CHECK(drv.funcGetAttribute(&dflt, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k->f));
        if (k->max_dyn_smem > dflt)
            CU_CHECK(drv.funcSetAttribute(k->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k->max_dyn_smem));
    }
    CU_CHECK(drv.libraryUnload(old));
    return 0;
}

int student_reject(struct ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    plan_vfail(c, STATUS_REJECTED, fmt, ap);
    va_end(ap);
    return -1;
}

int student_replay(struct ctx *c, const struct plan *p)
{
    void *params[PLAN_MAX_PARAMS];
    c->student_ran = 1;
    for (int i = 0; i < p->nsteps; i++) {
        const struct step *s = &p->steps[i];
        if (s->kind == STEP_MEMSET) {
            CU_CHECK(drv.memsetD8Async((CUdeviceptr)s->ptr, (unsigned char)s->value, (size_t)s->bytes,
                                       (CUstream)c->s));
            continue;
        }
        const struct kernel *k = &pl->k[s->kernel];
        for (int j = 0; j < k->nparams; j++)
            params[j] = (void *)(s->args + k->offset[j]);
        if (s->cooperative)
            CU_CHECK(drv.launchCooperativeKernel(k->f, s->grid[0], s->grid[1], s->grid[2], s->block[0],
                                                 s->block[1], s->block[2], s->shmem, (CUstream)c->s, params));
        else
            CU_CHECK(drv.launchKernel(k->f, s->grid[0], s->grid[1], s->grid[2], s->block[0], s->block[1],
                                      s->block[2], s->shmem, (CUstream)c->s, params, NULL));
    }
    return 0;
}

int student_profile(struct ctx *c, const struct call *k)
{
    static struct plan plan;
    int rc = -1;
    if (student_plan(c, k, &plan))
        return -1;
    HX_CHECK(cudaStreamSynchronize(c->s));
    nvtxRangePushA("student");
    if (student_replay(c, &plan))
        goto out;
    HX_TRY(cudaGetLastError());
    HX_TRY(cudaStreamSynchronize(c->s));
    rc = 0;
out:
    nvtxRangePop();
    return rc;
}

int plan_sample(struct ctx *c, const struct call *k, struct plan *p, struct plan *first, int *have_first)
{
    if (student_plan(c, k, p))
        return -1;
    if (!*have_first) {
        *first = *p;
        *have_first = 1;
        return 0;
    }
    if (!plan_same(p, first))
        return plan_fail(c, STATUS_REJECTED, "the launcher's plan changed between two timed calls with "
                         "the same arguments (n=%u): a launcher must do the same work every time", k->n);
    return 0;
}

int student_differs(struct ctx *c, unsigned n)
{
    return plan_fail(c, STATUS_REJECTED, "the launcher gave two different plans for the same call "
                     "(n=%u): a launcher must do the same work every time it is called", n);
}

void plan_describe(const struct plan *p, const struct call *k, unsigned n, char *buf, size_t len)
{
    size_t used = k->n2 ? (size_t)snprintf(buf, len, "n=%u cols=%u:", n, k->n2)
                        : (size_t)snprintf(buf, len, "n=%u:", n);
    for (int i = 0; i < p->nsteps && used < len; i++) {
        const struct step *s = &p->steps[i];
        if (s->kind == STEP_LAUNCH) {
            used += (size_t)snprintf(buf + used, len - used, " %.80s<<<%u,%u,%u>>>%s", pl->k[s->kernel].name,
                                     s->grid[0] * s->grid[1] * s->grid[2],
                                     s->block[0] * s->block[1] * s->block[2], s->shmem,
                                     s->cooperative ? " cooperative" : "");
            continue;
        }
        const char *where = "?";
        uint64_t off = 0;
        for (int b = 0; b < 4; b++)
            if (k->bytes[b] && s->ptr >= k->ptr[b] && s->ptr - k->ptr[b] < k->bytes[b]) {
                where = buffer_name(k, b);
                where += strncmp(where, "d_", 2) ? 0 : 2;
                off = s->ptr - k->ptr[b];
            }
        used += (size_t)snprintf(buf + used, len - used, " memset(%s+%llu,%d,%llu)", where,
                                 (unsigned long long)off, s->value, (unsigned long long)s->bytes);
    }
}

int student_run(struct ctx *c, const struct call *k)
{
    static struct plan p, again;
    if (student_plan(c, k, &p))
        return -1;
    /* The launcher sees no data, so the same call must give the same plan:
     * one that changes from call to call is playing with the judge. */
    if (student_plan(c, k, &again))
        return -1;
    if (!plan_same(&p, &again))
        return student_differs(c, k->n);
    if (emu_bind)
        emu_bind(c, k);
    return student_replay(c, &p);
}

} /* namespace hx */
