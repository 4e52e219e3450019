/* rt.c — the recording runtime: a stand-in for libcudart that implements
 * only what nvcc's launch stubs call and what lab.h allows a launcher to
 * call.  Nothing here touches a GPU.  A launch or a memset becomes a STEP
 * message to the judge; a question about the device or a kernel becomes a
 * QUERY, answered by the judge.  Whatever the student's host code calls
 * that is not defined here or in stubrt.c (the registrations, the launch
 * configuration and the last error, which the CPU judges' runtime shares;
 * rt.o holds both) fails to link, and the check is rejected. */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "rt.h"
#include "stubrt.h"

/* ---- state ---------------------------------------------------------------- */

static struct {
    int32_t nparams[PLAN_MAX_KERNELS];          /* from LAYOUT */
    uint32_t psize[PLAN_MAX_KERNELS][PLAN_MAX_PARAMS];
    /* the call being recorded */
    uint32_t nsteps, flags;
} rt;

int rt_send(const void *msg, size_t len)
{
    ssize_t n;
    do
        n = send(PLAN_FD, msg, len, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? 0 : -1;
}

int rt_recv(void *msg, size_t len, uint32_t type)
{
    ssize_t n;
    do
        n = recv(PLAN_FD, msg, len, 0);
    while (n < 0 && errno == EINTR);
    if (n < (ssize_t)sizeof(struct plan_hdr) || ((struct plan_hdr *)msg)->type != type)
        return -1;
    return 0;
}

/* The kernel whose stub is host_fun as the plan numbers it (the order of
 * registration); -1 when it is not registered or past PLAN_MAX_KERNELS. */
static int kernel_index(const void *host_fun)
{
    int k = stubrt_kernel(host_fun);
    return k < PLAN_MAX_KERNELS ? k : -1;
}

/* The kernels a plan can name: the first PLAN_MAX_KERNELS registered. */
static int kernels_kept(void)
{
    int n = stubrt_nkernels();
    return n < PLAN_MAX_KERNELS ? n : PLAN_MAX_KERNELS;
}

/* ---- launches --------------------------------------------------------------- */

/* The one step being built: a fresh record of `kind`, or NULL when the
 * plan is full (the END then says so, and the judge rejects it). */
static struct plan_step *step_new(uint32_t kind)
{
    static struct plan_step st;
    if (rt.nsteps >= PLAN_MAX_STEPS) {
        rt.flags |= END_TOO_MANY_STEPS;
        return NULL;
    }
    memset(&st, 0, sizeof st);
    st.h.type = PLAN_STEP;
    st.h.size = sizeof st;
    st.kind = kind;
    return &st;
}

/* Counts and sends a step built by step_new. */
static cudaError_t step_send(const struct plan_step *st)
{
    rt.nsteps++;
    return rt_send(st, sizeof *st) ? stubrt_fail(cudaErrorLaunchFailure) : cudaSuccess;
}

/* Records one launch of the kernel whose stub is host_fun. */
static cudaError_t record_launch(const void *host_fun, dim3 grid, dim3 block, void **args,
                                 size_t shmem, uint64_t stream, int cooperative)
{
    int k = kernel_index(host_fun);
    struct plan_step *st;

    if (k < 0) {
        rt.flags |= END_UNKNOWN_KERNEL;
        return stubrt_fail(cudaErrorInvalidDeviceFunction);
    }
    if (!(st = step_new(STEP_LAUNCH)))
        return stubrt_fail(cudaErrorLaunchOutOfResources);
    st->kernel = (uint32_t)k;
    st->grid[0] = grid.x; st->grid[1] = grid.y; st->grid[2] = grid.z;
    st->block[0] = block.x; st->block[1] = block.y; st->block[2] = block.z;
    st->shmem = shmem;
    st->stream = stream;
    st->cooperative = (uint32_t)cooperative;
    /* The parameters back to back, each as wide as the judge says it is. */
    for (int i = 0; i < rt.nparams[k] && i < PLAN_MAX_PARAMS; i++) {
        uint32_t sz = rt.psize[k][i];
        if (!args || !args[i] || st->argbytes + sz > PLAN_MAX_ARGBYTES) {
            rt.flags |= END_BAD_ARGS;
            break;
        }
        memcpy(st->args + st->argbytes, args[i], sz);
        st->argbytes += sz;
    }
    return step_send(st);
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
    /* The handle is the stub's own address: a launch maps it back. */
    *kernel = (cudaKernel_t)fun;
    return kernel_index(fun) < 0 ? cudaErrorInvalidDeviceFunction : cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                               cudaStream_t stream)
{
    return record_launch((const void *)kernel, grid, block, args, shmem, (uint64_t)(uintptr_t)stream, 0);
}

/* Compiled with --default-stream per-thread: stream 0 means the thread's own
 * default stream, which is not the judge's (rule 1): recorded as the
 * per-thread handle so that the judge names it. */
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                    size_t shmem, cudaStream_t stream)
{
    uint64_t s = stream ? (uint64_t)(uintptr_t)stream : (uint64_t)(uintptr_t)cudaStreamPerThread;
    return record_launch((const void *)kernel, grid, block, args, shmem, s, 0);
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                             cudaStream_t stream)
{
    return record_launch(func, grid, block, args, shmem, (uint64_t)(uintptr_t)stream, 0);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    /* Launch attributes (clusters, priorities, ...) are not part of a plan. */
    if (!config || config->numAttrs)
        return stubrt_fail(cudaErrorNotSupported);
    return record_launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                         (uint64_t)(uintptr_t)config->stream, 0);
}

/* The judge launches it cooperatively too, and refuses a grid larger than
 * the GPU holds at once as the driver does. */
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                        cudaStream_t stream)
{
    return record_launch(func, grid, block, args, shmem, (uint64_t)(uintptr_t)stream, 1);
}

cudaError_t cudaMemsetAsync(void *dev_ptr, int value, size_t count, cudaStream_t stream)
{
    struct plan_step *st = step_new(STEP_MEMSET);
    if (!st)
        return stubrt_fail(cudaErrorInvalidValue);
    st->ptr = (uint64_t)(uintptr_t)dev_ptr;
    st->bytes = count;
    st->value = value & 0xff;
    st->stream = (uint64_t)(uintptr_t)stream;
    return step_send(st);
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    int k = kernel_index(func);
    struct plan_step *st;
    if (k < 0)
        return stubrt_fail(cudaErrorInvalidDeviceFunction);
    if (!(st = step_new(STEP_FUNC_ATTR)))
        return stubrt_fail(cudaErrorInvalidValue);
    st->kernel = (uint32_t)k;
    st->attr = (int32_t)attr;
    st->value = value;
    return step_send(st);
}

/* ---- questions the judge answers ----------------------------------------- */

static cudaError_t ask(uint32_t kind, int kernel, int64_t i0, int64_t i1, int64_t i2,
                       int64_t *value, void *bytes, size_t nbytes)
{
    static struct plan_answer ans;
    struct plan_query q = {{PLAN_QUERY, sizeof q}, kind, (uint32_t)kernel, i0, i1, i2};
    if (rt_send(&q, sizeof q) || rt_recv(&ans, sizeof ans, PLAN_ANSWER))
        return stubrt_fail(cudaErrorUnknown);
    if (ans.error)
        return stubrt_fail((cudaError_t)ans.error);
    if (value)
        *value = ans.value;
    if (bytes)
        memcpy(bytes, ans.bytes, nbytes < ans.nbytes ? nbytes : ans.nbytes);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    int64_t v = 0;
    cudaError_t e = ask(QUERY_DEVICE_ATTR, 0, attr, device, 0, &v, NULL, 0);
    if (e == cudaSuccess)
        *value = (int)v;
    return e;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    memset(prop, 0, sizeof *prop);
    return ask(QUERY_PROPS, 0, 0, device, 0, NULL, prop, sizeof *prop);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    int k = kernel_index(func);
    if (k < 0)
        return stubrt_fail(cudaErrorInvalidDeviceFunction);
    memset(attr, 0, sizeof *attr);
    return ask(QUERY_FUNC_ATTRS, k, 0, 0, 0, NULL, attr, sizeof *attr);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func,
                                                                   int block_size, size_t smem,
                                                                   unsigned flags)
{
    int64_t v = 0;
    int k = kernel_index(func);
    if (k < 0)
        return stubrt_fail(cudaErrorInvalidDeviceFunction);
    cudaError_t e = ask(QUERY_OCCUPANCY, k, block_size, (int64_t)smem, flags, &v, NULL, 0);
    if (e == cudaSuccess)
        *blocks = (int)v;
    return e;
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *smem, const void *func, int blocks,
                                                      int block_size)
{
    int64_t v = 0;
    int k = kernel_index(func);
    if (k < 0)
        return stubrt_fail(cudaErrorInvalidDeviceFunction);
    cudaError_t e = ask(QUERY_AVAIL_SMEM, k, blocks, block_size, 0, &v, NULL, 0);
    if (e == cudaSuccess)
        *smem = (size_t)v;
    return e;
}

/* ---- errors ---------------------------------------------------------------- */

const char *cudaGetErrorString(cudaError_t error)
{
    return error == cudaSuccess ? "no error" : "an error recorded while planning (see the judge's verdict)";
}

const char *cudaGetErrorName(cudaError_t error)
{
    return error == cudaSuccess ? "cudaSuccess" : "cudaErrorRecorded";
}

/* ---- for runner.c ----------------------------------------------------------- */

int rt_hello(void)
{
    static struct plan_hello hello;
    static struct plan_layout lay;

    memset(&hello, 0, sizeof hello);
    hello.h.type = PLAN_HELLO;
    hello.h.size = sizeof hello;
    hello.version = PLAN_VERSION;
    hello.nkernels = (uint32_t)kernels_kept();
    for (int i = 0; i < kernels_kept(); i++)
        strncpy(hello.names[i], stubrt_kernel_name(i), PLAN_NAME_MAX - 1);
    if (rt_send(&hello, sizeof hello) || rt_recv(&lay, sizeof lay, PLAN_LAYOUT))
        return -1;
    for (int i = 0; i < kernels_kept(); i++) {
        rt.nparams[i] = lay.nparams[i] < PLAN_MAX_PARAMS ? lay.nparams[i] : PLAN_MAX_PARAMS;
        memcpy(rt.psize[i], lay.sizes[i], sizeof rt.psize[i]);
    }
    return 0;
}

void rt_begin(void)
{
    rt.nsteps = 0;
    /* A kernel past the ones a plan can name could launch unseen: the
     * judge refuses the file as a whole, saying so. */
    rt.flags = stubrt_nkernels() > PLAN_MAX_KERNELS ? END_TOO_MANY_KERNELS : 0;
    stubrt_reset();
}

int rt_end(void)
{
    struct plan_end end = {{PLAN_END, sizeof end}, rt.nsteps, rt.flags};
    return rt_send(&end, sizeof end);
}
