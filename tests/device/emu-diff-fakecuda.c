/* emu-diff-fakecuda.c — the few CUDA driver calls tests/device/emu-diff.cu
 * makes, served by the PTX emulator, so the GPU side of the differential
 * (its reading of the rows, its launches, its result files) runs on a
 * machine without a GPU: `EMU_DIFF_FAKE_GPU=emu bash tests/device/emu-diff.sh
 * OUT` links emu-diff.cu against this instead of libcuda.  Every row then
 * compares equal unless the plumbing between the two sides is wrong.
 * Device memory is host memory mapped into one emulator; nothing is
 * asynchronous. */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"

static struct emu *fake;

static CUresult need_emu(void)
{
    if (fake) return CUDA_SUCCESS;
    struct emu_config cfg = {.sm_count = 132, .warps_per_sm = 64, .clock_ghz = 1.98, .seed = 3,
                             .hazards = 1, .budget = 100u * 1000 * 1000};
    fake = emu_new(&cfg);
    return fake ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuInit(unsigned flags)
{
    (void)flags;
    return need_emu();
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    *dev = ordinal;
    return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    (void)dev;
    snprintf(name, (size_t)len, "the PTX emulator (tests/device/emu-diff-fakecuda.c)");
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    (void)dev;
    *ctx = (CUcontext)&fake;
    return need_emu();
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    (void)dev;
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    (void)dev;
    return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    (void)ctx;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void)
{
    return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult r, const char **name)
{
    *name = r == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR (fake)";
    return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult r, const char **text)
{
    *text = r == CUDA_SUCCESS ? "no error" : "the emulator refused it";
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned n, CUjit_option *opts, void **vals)
{
    struct emu_error err;
    struct emu_module *m = NULL;
    (void)n;
    (void)opts;
    (void)vals;
    if (need_emu() != CUDA_SUCCESS) return CUDA_ERROR_OUT_OF_MEMORY;
    if (emu_module_load(fake, image, strlen(image), &m, &err) != EMU_OK) {
        fprintf(stderr, "fakecuda: %s\n", err.message);
        return CUDA_ERROR_INVALID_PTX;
    }
    *mod = (CUmodule)m;
    return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule mod)
{
    emu_module_unload((struct emu_module *)mod);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name)
{
    const struct emu_kernel *k = emu_module_kernel((struct emu_module *)mod, name);
    *fn = (CUfunction)(uintptr_t)k;
    return k ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes)
{
    void *m = aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!m || emu_mem_map(fake, m, bytes, "a fake device allocation")) {
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr p)
{
    emu_mem_unmap(fake, (void *)(uintptr_t)p);
    free((void *)(uintptr_t)p);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return CUDA_SUCCESS;
}

CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n)
{
    memset((void *)(uintptr_t)dst, v, n);
    return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shmem, CUstream stream, void **params, void **extra)
{
    struct emu_launch l = {{gx, gy, gz}, {bx, by, bz}, shmem, params};
    struct emu_error err;
    (void)stream;
    if (extra) return CUDA_ERROR_NOT_SUPPORTED;
    if (emu_launch(fake, (const struct emu_kernel *)(uintptr_t)fn, &l, &err) != EMU_OK) {
        fprintf(stderr, "fakecuda: %s\n", err.message);
        return CUDA_ERROR_LAUNCH_FAILED;
    }
    return CUDA_SUCCESS;
}
