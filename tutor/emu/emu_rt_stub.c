/* emu_rt_stub.c — the emulating runtime's entry points for nvcc's host
 * stubs (crt/host_runtime.h of CUDA 13; tutor/runner/rt.h pins the same
 * interface for the runner): the registrations of the judge's own kernels
 * and variables, and their launches, run on the judge's emulator from the
 * judge's PTX, which emu_rt_ptx.c embeds at build time (emu_rt_int.h). */
#include <stdio.h>
#include <string.h>

#include "emu/emu_rt_int.h"

/* Declared by CUDA's crt/host_runtime.h for C++ only. */
void **__cudaRegisterFatBinary(void *fat_cubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                            const char *device_name, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bdim, dim3 *gdim, int *wsize);
void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *device_name,
                       int ext, size_t size, int constant, int global);
char __cudaInitModule(void **handle);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, void *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                               cudaStream_t stream);

enum { MAX_JUDGE_PTX = 32, MAX_JUDGE_FUNCS = 256, MAX_JUDGE_VARS = 64 };

/* What the stubs registered, the judge's PTX, and the launch configuration
 * nvcc pushes before a stub pops it. */
static struct {
    struct { const char *text; size_t len; struct emu_module *m; struct emu_error err; } ptx[MAX_JUDGE_PTX];
    int nptx, ptx_loaded;
    struct { const void *host_fun; const char *name; const struct emu_kernel *k; } fn[MAX_JUDGE_FUNCS];
    int nfn;
    struct { const void *host_var; const char *name; } var[MAX_JUDGE_VARS];
    int nvar;
    dim3 cfg_grid, cfg_block;
    size_t cfg_shmem;
    void *cfg_stream;
    int cfg_pushed;
} rt;

static int fatbin_handle;

void emu_rt_add_ptx(const char *text, size_t len)
{
    if (rt.nptx < MAX_JUDGE_PTX) {
        rt.ptx[rt.nptx].text = text;
        rt.ptx[rt.nptx].len = len;
        rt.nptx++;
    }
}

void **__cudaRegisterFatBinary(void *fat_cubin)
{
    (void)fat_cubin;
    return (void **)&fatbin_handle;
}

void __cudaRegisterFatBinaryEnd(void **handle)
{
    (void)handle;
}

void __cudaUnregisterFatBinary(void **handle)
{
    (void)handle;
}

void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                            const char *device_name, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bdim, dim3 *gdim, int *wsize)
{
    (void)handle; (void)device_name; (void)thread_limit;
    (void)tid; (void)bid; (void)bdim; (void)gdim; (void)wsize;
    if (rt.nfn < MAX_JUDGE_FUNCS) {
        rt.fn[rt.nfn].host_fun = host_fun;
        rt.fn[rt.nfn].name = device_fun;
        rt.nfn++;
    }
}

void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *device_name,
                       int ext, size_t size, int constant, int global)
{
    (void)handle; (void)device_name; (void)ext; (void)size; (void)constant; (void)global;
    if (rt.nvar < MAX_JUDGE_VARS) {
        rt.var[rt.nvar].host_var = host_var;
        rt.var[rt.nvar].name = device_address;
        rt.nvar++;
    }
}

char __cudaInitModule(void **handle)
{
    (void)handle;
    return 1;
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
    int f = -1;
    if (judge_modules())
        return NULL;
    for (int i = 0; i < rt.nfn && f < 0; i++)
        if (rt.fn[i].host_fun == host_fun)
            f = i;
    if (f < 0)
        return NULL;
    if (rt.fn[f].k)
        return rt.fn[f].k;
    for (int i = 0; i < rt.nptx; i++)
        if (rt.ptx[i].m && (rt.fn[f].k = emu_module_kernel(rt.ptx[i].m, rt.fn[f].name)))
            return rt.fn[f].k;
    /* Not found: the reason is a module the emulator could not load, if any. */
    for (int i = 0; i < rt.nptx; i++)
        if (!rt.ptx[i].m && err.message[0] == '\0')
            err = rt.ptx[i].err;
    if (!err.message[0])
        snprintf(err.message, sizeof err.message, "the judge's kernel %s is in none of its embedded PTX",
                 rt.fn[f].name);
    emu_rt_judge_failed(&err);
    return NULL;
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, void *stream)
{
    rt.cfg_grid = grid;
    rt.cfg_block = block;
    rt.cfg_shmem = shmem;
    rt.cfg_stream = stream;
    rt.cfg_pushed = 1;
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream)
{
    if (!rt.cfg_pushed)
        return cudaErrorMissingConfiguration;
    *grid = rt.cfg_grid;
    *block = rt.cfg_block;
    *shmem = rt.cfg_shmem;
    *(void **)stream = rt.cfg_stream;
    rt.cfg_pushed = 0;
    return cudaSuccess;
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
        return emu_rt_fail(err.status == EMU_OK ? cudaErrorInvalidDeviceFunction : cudaErrorLaunchFailure);
    struct emu_launch l = {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z}, (unsigned)shmem, args};
    emu_rt_emus(&judge, NULL);      /* made already: judge_kernel loaded its modules */
    if (emu_launch(judge, k, &l, &err) != EMU_OK) {
        emu_rt_judge_failed(&err);
        return emu_rt_fail(cudaErrorLaunchFailure);
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
        return emu_rt_fail(cudaErrorInvalidDeviceFunction);
    emu_kernel_info(k, &info);
    if (block_size <= 0 || (uint32_t)block_size > info.max_threads)
        return emu_rt_fail(cudaErrorInvalidValue);
    *blocks = emu_rt_occupancy(block_size, 0, smem + info.static_smem);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                          size_t smem)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size, smem, 0);
}

/* A judge variable (lab 09's lab_params for its own reference) by its host shadow. */
static int judge_var(const void *symbol, void **addr, size_t *bytes)
{
    if (judge_modules())
        return -1;
    for (int v = 0; v < rt.nvar; v++)
        if (rt.var[v].host_var == symbol)
            for (int i = 0; i < rt.nptx; i++)
                if (rt.ptx[i].m && emu_module_global(rt.ptx[i].m, rt.var[v].name, addr, bytes) == 0)
                    return 0;
    return -1;
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t s)
{
    void *addr;
    size_t bytes;
    (void)s;
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDefault)
        return emu_rt_fail(cudaErrorInvalidValue);
    if (judge_var(symbol, &addr, &bytes))
        return emu_rt_fail(cudaErrorInvalidSymbol);
    if (offset > bytes || count > bytes - offset)
        return emu_rt_fail(cudaErrorInvalidValue);
    memcpy((char *)addr + offset, src, count);
    return cudaSuccess;
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
    void *addr;
    size_t bytes;
    (void)s;
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDefault)
        return emu_rt_fail(cudaErrorInvalidValue);
    if (judge_var(symbol, &addr, &bytes))
        return emu_rt_fail(cudaErrorInvalidSymbol);
    if (offset > bytes || count > bytes - offset)
        return emu_rt_fail(cudaErrorInvalidValue);
    memcpy(dst, (const char *)addr + offset, count);
    return cudaSuccess;
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind, NULL);
}
