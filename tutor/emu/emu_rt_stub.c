/* emu_rt_stub.c — the emulating runtime's side of nvcc's host stubs: the
 * launches of the judge's own kernels and the copies to and from its
 * variables, run on the judge's emulator from the judge's PTX, which
 * emu_rt_ptx.c embeds at build time (emu_rt_int.h).  The registrations
 * they are looked up in, the launch configuration and the stubs' interface
 * are the runner's too (runner/stubrt.h). */
#include <stdio.h>
#include <string.h>

#include "emu/emu_rt_int.h"
#include "runner/stubrt.h"

enum { MAX_JUDGE_PTX = 32 };

/* The judge's PTX, and each registered kernel once found in it. */
static struct {
    struct { const char *text; size_t len; struct emu_module *m; struct emu_error err; } ptx[MAX_JUDGE_PTX];
    int nptx, ptx_loaded;
    const struct emu_kernel *k[STUBRT_MAX_KERNELS];     /* by stubrt_kernel's index */
} rt;

void emu_rt_add_ptx(const char *text, size_t len)
{
    if (rt.nptx < MAX_JUDGE_PTX) {
        rt.ptx[rt.nptx].text = text;
        rt.ptx[rt.nptx].len = len;
        rt.nptx++;
    }
}

/* Loads every embedded PTX module of the judge once (the stubs register
 * from constructors in any order, so this waits for the first use). */
static int judge_modules(void)
{
    struct emu *judge;
    if (emu_rt_emus(&judge, NULL))
        return -1;
    if (rt.ptx_loaded)
        return 0;
    rt.ptx_loaded = 1;
    for (int i = 0; i < rt.nptx; i++)
        emu_module_load(judge, rt.ptx[i].text, rt.ptx[i].len, &rt.ptx[i].m, &rt.ptx[i].err);
    return 0;
}

/* The judge's kernel whose stub is host_fun; NULL (the failure recorded)
 * when it is not registered or not in any module the emulator loaded. */
static const struct emu_kernel *judge_kernel(const void *host_fun)
{
    struct emu_error err = {EMU_UNSUPPORTED, "", "", 0, ""};
    int f;
    if (judge_modules())
        return NULL;
    if ((f = stubrt_kernel(host_fun)) < 0)
        return NULL;
    if (rt.k[f])
        return rt.k[f];
    for (int i = 0; i < rt.nptx; i++)
        if (rt.ptx[i].m && (rt.k[f] = emu_module_kernel(rt.ptx[i].m, stubrt_kernel_name(f))))
            return rt.k[f];
    /* Not found: the reason is a module the emulator could not load, if any. */
    for (int i = 0; i < rt.nptx; i++)
        if (!rt.ptx[i].m && err.message[0] == '\0')
            err = rt.ptx[i].err;
    if (!err.message[0])
        snprintf(err.message, sizeof err.message, "the judge's kernel %s is in none of its embedded PTX",
                 stubrt_kernel_name(f));
    emu_rt_judge_failed(&err);
    return NULL;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
    *kernel = (cudaKernel_t)fun;
    return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                             cudaStream_t stream)
{
    const struct emu_kernel *k = judge_kernel(func);
    struct emu_error err;
    struct emu *judge;
    (void)stream;
    emu_rt_judge_error(&err);
    if (!k)
        return stubrt_fail(err.status == EMU_OK ? cudaErrorInvalidDeviceFunction : cudaErrorLaunchFailure);
    struct emu_launch l = {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, (unsigned)shmem, args};
    emu_rt_emus(&judge, NULL);      /* made already: judge_kernel loaded its modules */
    if (emu_launch(judge, k, &l, &err) != EMU_OK) {
        emu_rt_judge_failed(&err);
        return stubrt_fail(cudaErrorLaunchFailure);
    }
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                               cudaStream_t stream)
{
    return cudaLaunchKernel((const void *)kernel, grid, block, args, shmem, stream);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *func,
                                                                   int block_size, size_t smem,
                                                                   unsigned flags)
{
    const struct emu_kernel *k = judge_kernel(func);
    struct emu_kernel_info info;
    (void)flags;
    if (!k)
        return stubrt_fail(cudaErrorInvalidDeviceFunction);
    emu_kernel_info(k, &info);
    if (block_size <= 0 || (uint32_t)block_size > info.max_threads)
        return stubrt_fail(cudaErrorInvalidValue);
    *blocks = emu_rt_occupancy(block_size, 0, smem + info.static_smem);
    return cudaSuccess;
}

/* A judge variable (lab 09's lab_params for its own reference) by its host shadow. */
static int judge_var(const void *symbol, void **addr, size_t *bytes)
{
    if (judge_modules())
        return -1;
    for (int v = stubrt_var(symbol, 0); v >= 0; v = stubrt_var(symbol, v + 1))
        for (int i = 0; i < rt.nptx; i++)
            if (rt.ptx[i].m && emu_module_global(rt.ptx[i].m, stubrt_var_name(v), addr, bytes) == 0)
                return 0;
    return -1;
}

/* Copies `count` bytes at `offset` of a judge variable: from host memory
 * (from_host) when dir is cudaMemcpyHostToDevice, else to it (to_host),
 * for a copy of `kind`, which must be dir or cudaMemcpyDefault. */
static cudaError_t judge_var_copy(const void *symbol, enum cudaMemcpyKind dir, void *to_host,
                                  const void *from_host, size_t count, size_t offset,
                                  enum cudaMemcpyKind kind)
{
    void *addr;
    size_t bytes;
    if (kind != dir && kind != cudaMemcpyDefault)
        return stubrt_fail(cudaErrorInvalidValue);
    if (judge_var(symbol, &addr, &bytes))
        return stubrt_fail(cudaErrorInvalidSymbol);
    if (offset > bytes || count > bytes - offset)
        return stubrt_fail(cudaErrorInvalidValue);
    if (dir == cudaMemcpyHostToDevice)
        memcpy((char *)addr + offset, from_host, count);
    else
        memcpy(to_host, (const char *)addr + offset, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t s)
{
    (void)s;
    return judge_var_copy(symbol, cudaMemcpyHostToDevice, NULL, src, count, offset, kind);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind, NULL);
}

/* Reads a judge variable back (the poison checks' counters): the emulator's
 * copy of the module's global. */
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t s)
{
    (void)s;
    return judge_var_copy(symbol, cudaMemcpyDeviceToHost, dst, NULL, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, NULL);
}
