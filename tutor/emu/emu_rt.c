/* emu_rt.c — the emulating runtime: a stand-in for libcudart, and for the
 * driver calls the judge reaches through cudaGetDriverEntryPointByVersion,
 * that runs every kernel on the PTX emulator (emu.h) over host memory.  The
 * CPU judges are the judge's own objects linked against it instead of
 * libcudart (docs/harness.md, "The CPU tier").  This file: the state, the
 * device, memory, streams and errors; emu_rt_stub.c the judge's own
 * kernels; emu_rt_drv.c the student's (emu_rt_int.h).
 *
 * Memory: an allocation is anonymous host memory mapped into the emulator,
 * so a device pointer is a host pointer and a copy is a memcpy.  Streams
 * and events are in order and take no time: every call completes before it
 * returns.  Two emulators share the allocations: one runs the judge's own
 * kernels (trusted: no hazard tracking, no budget), the other the
 * student's, with hazards tracked and an instruction budget.  The device
 * every question is answered about is the runner's stand-in, an H100 SXM
 * (runner/standin.h); the last error is kept with the registrations of
 * nvcc's stubs (runner/stubrt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "emu/emu_count.h"
#include "emu/emu_rt_int.h"
#include "runner/stubrt.h"

#define DEV_NAME "PTX emulator on the CPU (no GPU; an H100's limits)"
#define DEV_CLOCK_GHZ 1.98
/* A student launch that runs past this many thread-instructions does not
 * end: about 3 s at the emulator's speed, five times the largest launch of
 * any solution at its family's emulation bound (lab 01's at 2^20: 10^8). */
#define DEFAULT_BUDGET 500000000ull
/* Host threads for the judge's own kernels, at most. */
#define MAX_THREADS 8

/* ---- state ------------------------------------------------------------------- */

struct alloc {
    char *p;
    size_t bytes, mapped;               /* asked for; mapped (whole pages) */
};

static struct {
    struct emu *judge, *student;
    int broken;                         /* the emulators could not be made */
    struct emu_rt_options opt;
    struct alloc *a;
    int na, cap;
    struct emu_error student_err, judge_err;
    char judge_msg[sizeof ((struct emu_error *)0)->message];
} rt;

static int stream_object, event_object;

const struct emu_rt_options *emu_rt_options(void)
{
    return &rt.opt;
}

void emu_rt_configure(const struct emu_rt_options *o)
{
    rt.opt = *o;
#ifdef __GLIBC__
    /* The emulator allocates a launch's state afresh for every launch.
     * With glibc's defaults each large block goes back to the kernel when
     * freed (unmapped, or trimmed off the heap) and comes back as fresh
     * zeroed pages at the next launch: page faults were half of a small
     * check's time.  Kept in the heap, the next launch reuses them. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

static void print_text(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    fwrite(text, 1, len, stdout);
    fflush(stdout);
}

int emu_rt_emus(struct emu **judge, struct emu **student)
{
    if (!rt.judge && !rt.broken) {
        /* The judge's kernels run their blocks on every core (they need
         * no hazard tracking, which keeps a launch on one thread). */
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        struct emu_config c = {STANDIN_SMS, STANDIN_WARPS_PER_SM, DEV_CLOCK_GHZ, rt.opt.seed, 0, 0,
                               print_text, NULL,
                               (int)(cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : cores), 0, 0, NULL, NULL};
        rt.judge = emu_new(&c);
        c.hazards = 1;
        c.threads = 1;
        c.budget = rt.opt.budget ? rt.opt.budget : DEFAULT_BUDGET;
        c.counters = rt.opt.counters;
        c.trace = rt.opt.trace;
        c.trace_ctx = rt.opt.trace_ctx;
        rt.student = emu_new(&c);
        for (int i = 0; rt.judge && rt.student && i < rt.na; i++)
            if (emu_mem_map(rt.judge, rt.a[i].p, rt.a[i].bytes, "a judge buffer") ||
                emu_mem_map(rt.student, rt.a[i].p, rt.a[i].bytes, "a judge buffer"))
                rt.broken = 1;
        if (!rt.judge || !rt.student || rt.broken) {
            emu_free(rt.judge);
            emu_free(rt.student);
            rt.judge = rt.student = NULL;
            rt.broken = 1;
        }
    }
    if (judge)
        *judge = rt.judge;
    if (student)
        *student = rt.student;
    return rt.judge ? 0 : -1;
}

int emu_rt_allocated(const void *p, size_t n)
{
    const char *c = p;
    for (int i = 0; i < rt.na; i++)
        if (c >= rt.a[i].p && n <= rt.a[i].bytes && (size_t)(c - rt.a[i].p) <= rt.a[i].bytes - n)
            return 1;
    return 0;
}

/* ---- errors -------------------------------------------------------------------- */

/* The runtime's errors this file returns: name and CUDA's sentence. */
#define RT_ERRORS(X)                                                                          \
    X(cudaSuccess, "no error")                                                                \
    X(cudaErrorInvalidValue, "invalid argument")                                              \
    X(cudaErrorMemoryAllocation, "out of memory")                                             \
    X(cudaErrorInvalidDevice, "invalid device ordinal")                                       \
    X(cudaErrorInvalidDeviceFunction, "invalid device function")                              \
    X(cudaErrorInvalidSymbol, "invalid device symbol")                                        \
    X(cudaErrorMissingConfiguration, "__global__ function call is not configured")            \
    X(cudaErrorLaunchFailure, "unspecified launch failure")                                   \
    X(cudaErrorNotSupported, "operation not supported")                                       \
    X(cudaErrorSymbolNotFound, "named symbol not found")

const char *cudaGetErrorName(cudaError_t error)
{
#define RT_NAME_(e, text) if (error == e) return #e;
    RT_ERRORS(RT_NAME_)
#undef RT_NAME_
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
    /* A judge kernel the emulator stopped: its own sentence says why. */
    if (error == cudaErrorLaunchFailure && rt.judge_msg[0])
        return rt.judge_msg;
#define RT_TEXT_(e, text) if (error == e) return text;
    RT_ERRORS(RT_TEXT_)
#undef RT_TEXT_
    return "unknown error";
}

void emu_rt_student_error(struct emu_error *err)
{
    *err = rt.student_err;
}

void emu_rt_judge_error(struct emu_error *err)
{
    *err = rt.judge_err;
}

void emu_rt_stats(struct emu_stats *student, struct emu_stats *judge)
{
    memset(student, 0, sizeof *student);
    memset(judge, 0, sizeof *judge);
    if (rt.student)
        emu_stats(rt.student, student);
    if (rt.judge)
        emu_stats(rt.judge, judge);
}

void emu_rt_counters(struct emu_counters *student)
{
    memset(student, 0, sizeof *student);
    if (rt.student)
        emu_counters_get(rt.student, student);
}

void emu_rt_student_failed(const struct emu_error *err)
{
    if (rt.student_err.status != EMU_OK)
        return;
    rt.student_err = *err;
    if (rt.opt.on_student_error)
        rt.opt.on_student_error(err);
}

void emu_rt_judge_failed(const struct emu_error *err)
{
    if (rt.judge_err.status == EMU_OK) {
        rt.judge_err = *err;
        snprintf(rt.judge_msg, sizeof rt.judge_msg, "%s", err->message);
    }
}

/* ---- the device ------------------------------------------------------------------ */

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

/* The emulator runs on the caller's thread: there is no wait to spin or
 * sleep through. */
cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    (void)flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    if (device != 0)
        return stubrt_fail(cudaErrorInvalidDevice);
    standin_fill(p);
    snprintf(p->name, sizeof p->name, "%s", DEV_NAME);
    p->reservedSharedMemPerBlock = STANDIN_SMEM_RESERVED;
    p->totalConstMem = 64 << 10;
    p->concurrentKernels = 1;
    p->unifiedAddressing = 1;
    return cudaSuccess;
}

/* The device attributes a judge or a launcher asks for: an H100 SXM's. */
#define DEV_ATTRS(X)                                                        \
    X(cudaDevAttrMultiProcessorCount, STANDIN_SMS)                          \
    X(cudaDevAttrMaxThreadsPerBlock, 1024)                                  \
    X(cudaDevAttrMaxThreadsPerMultiProcessor, STANDIN_WARPS_PER_SM * 32)    \
    X(cudaDevAttrMaxBlocksPerMultiprocessor, STANDIN_BLOCKS_PER_SM)         \
    X(cudaDevAttrWarpSize, 32)                                              \
    X(cudaDevAttrMaxSharedMemoryPerBlock, STANDIN_SMEM_BLOCK)               \
    X(cudaDevAttrMaxSharedMemoryPerBlockOptin, STANDIN_SMEM_OPTIN)          \
    X(cudaDevAttrMaxSharedMemoryPerMultiprocessor, STANDIN_SMEM_SM)         \
    X(cudaDevAttrReservedSharedMemoryPerBlock, STANDIN_SMEM_RESERVED)       \
    X(cudaDevAttrMaxRegistersPerBlock, STANDIN_REGS)                        \
    X(cudaDevAttrMaxRegistersPerMultiprocessor, STANDIN_REGS)               \
    X(cudaDevAttrComputeCapabilityMajor, 9)                                 \
    X(cudaDevAttrCooperativeLaunch, 1)                                      \
    X(cudaDevAttrComputeCapabilityMinor, 0)                                 \
    X(cudaDevAttrMaxGridDimX, 0x7fffffff)                                   \
    X(cudaDevAttrMaxGridDimY, 65535)                                        \
    X(cudaDevAttrMaxGridDimZ, 65535)                                        \
    X(cudaDevAttrMaxBlockDimX, 1024)                                        \
    X(cudaDevAttrMaxBlockDimY, 1024)                                        \
    X(cudaDevAttrMaxBlockDimZ, 64)                                          \
    X(cudaDevAttrL2CacheSize, STANDIN_L2)                                   \
    X(cudaDevAttrMemoryClockRate, 2619000)                                  \
    X(cudaDevAttrGlobalMemoryBusWidth, 5120)                                \
    X(cudaDevAttrClockRate, 1980000)                                        \
    X(cudaDevAttrTotalConstantMemory, 65536)

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (device != 0)
        return stubrt_fail(cudaErrorInvalidDevice);
    switch (attr) {
#define DEV_ATTR_(a, v) case a: *value = (v); return cudaSuccess;
    DEV_ATTRS(DEV_ATTR_)
#undef DEV_ATTR_
    default:
        return stubrt_fail(cudaErrorInvalidValue);
    }
}

int emu_rt_occupancy(int threads, int regs, size_t smem)
{
    int warps = (threads + 31) / 32;
    int by_warps = STANDIN_WARPS_PER_SM / warps;
    /* registers go to a warp in units of 256 */
    int per_warp = ((regs > 0 ? regs : DEV_REGS_PER_THREAD) * 32 + 255) / 256 * 256;
    int by_regs = STANDIN_REGS / (warps * per_warp);
    int by_smem = (int)(STANDIN_SMEM_SM / (smem + STANDIN_SMEM_RESERVED));
    int b = STANDIN_BLOCKS_PER_SM;
    b = by_warps < b ? by_warps : b;
    b = by_regs < b ? by_regs : b;
    return by_smem < b ? by_smem : b;
}

/* ---- memory -------------------------------------------------------------------- */

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    size_t pages = (bytes + 4095) & ~(size_t)4095;
    *p = NULL;
    if (!pages)
        return cudaSuccess;
    if (rt.na == rt.cap) {
        int cap = rt.cap ? 2 * rt.cap : 32;
        struct alloc *a = realloc(rt.a, (size_t)cap * sizeof *a);
        if (!a)
            return stubrt_fail(cudaErrorMemoryAllocation);
        rt.a = a;
        rt.cap = cap;
    }
    /* Pages the host hands out on first touch: the judge's L2 flush buffer,
     * never written without a timed case, costs nothing. */
    void *m = mmap(NULL, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return stubrt_fail(cudaErrorMemoryAllocation);
    /* A buffer the trials fill (inputs, poison, outputs) faults in 2 MiB
     * at a time where the host offers huge pages: a fault per 4 KiB page
     * cost more than the page's use. */
    if (pages >= (2u << 20))
        (void)madvise(m, pages, MADV_HUGEPAGE);
    if (rt.judge && (emu_mem_map(rt.judge, m, bytes, "a judge buffer") ||
                     emu_mem_map(rt.student, m, bytes, "a judge buffer"))) {
        emu_mem_unmap(rt.judge, m);
        munmap(m, pages);
        return stubrt_fail(cudaErrorMemoryAllocation);
    }
    rt.a[rt.na++] = (struct alloc){m, bytes, pages};
    *p = m;
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    if (!p)
        return cudaSuccess;
    for (int i = 0; i < rt.na; i++)
        if (rt.a[i].p == p) {
            if (rt.judge) {
                emu_mem_unmap(rt.judge, p);
                emu_mem_unmap(rt.student, p);
            }
            munmap(p, rt.a[i].mapped);
            rt.a[i] = rt.a[--rt.na];
            return cudaSuccess;
        }
    return stubrt_fail(cudaErrorInvalidValue);
}

int emu_rt_name(const void *base, const char *name)
{
    struct emu *student;
    if (emu_rt_emus(NULL, &student))
        return -1;
    return emu_mem_rename(student, (void *)base, name);
}

int emu_rt_lend(const void *at, size_t bytes, int input)
{
    struct emu *student;
    if (emu_rt_emus(NULL, &student))
        return -1;
    return emu_mem_lend(student, at, bytes, input);
}

/* The judge's copies: between its host memory, its allocations and the
 * student's module variables (cuLibraryGetGlobal), all host memory here. */
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return stubrt_fail(cudaErrorInvalidValue);
    if (n)
        memmove(dst, src, n);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s)
{
    (void)s;
    return cudaMemcpy(dst, src, n, kind);
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t s)
{
    (void)s;
    if (n && !emu_rt_allocated(p, n))
        return stubrt_fail(cudaErrorInvalidValue);
    memset(p, value, n);
    return cudaSuccess;
}

/* ---- streams and events: in order, no time ------------------------------------------ */

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    *s = (cudaStream_t)&stream_object;
    return cudaSuccess;
}

/* The calls that have nothing to do here, one line each: work is done
 * in order as it is asked for, so there is nothing to wait on or free. */
#define EMU_NOTHING_TO_DO(X)                                    \
    X(cudaStreamDestroy, (cudaStream_t s), (void)s)              \
    X(cudaStreamSynchronize, (cudaStream_t s), (void)s)          \
    X(cudaDeviceSynchronize, (void), (void)0)                    \
    X(cudaEventDestroy, (cudaEvent_t e), (void)e)                \
    X(cudaEventRecord, (cudaEvent_t e, cudaStream_t s), (void)e; (void)s) \
    X(cudaEventSynchronize, (cudaEvent_t e), (void)e)
#define EMU_NO_OP(name, params, unused) \
    cudaError_t name params             \
    {                                   \
        unused;                         \
        return cudaSuccess;             \
    }
EMU_NOTHING_TO_DO(EMU_NO_OP)
#undef EMU_NO_OP

cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = (cudaEvent_t)&event_object;
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    (void)a;
    (void)b;
    *ms = 0;
    return cudaSuccess;
}

/* Only the timing loop asks for host memory the GPU maps (its hold), and
 * a CPU judge times nothing: asked anyway, it says so instead of handing
 * out memory the emulator's launches could not see. */
cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned int flags)
{
    (void)bytes;
    (void)flags;
    *p = NULL;
    return cudaErrorNotSupported;
}
