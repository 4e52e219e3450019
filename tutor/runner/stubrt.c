/* stubrt.c — the part of a libcudart stand-in that does not depend on
 * what a launch does (stubrt.h): nvcc's registrations kept in a registry
 * that each runtime looks its kernels and variables up in, the launch
 * configuration from a stub's push to its pop, the last error, and the
 * calls that forward to another.  Linked into the runner's rt.o and into
 * the CPU judges; it calls nothing but libc and the runtime it is linked
 * with (cudaGetDeviceProperties, the occupancy query with flags). */
#include <string.h>

#include "stubrt.h"

static struct {
    struct { const void *host; const char *name; } kernel[STUBRT_MAX_KERNELS], var[STUBRT_MAX_VARS];
    int nkernels, nvars;        /* registered, kept or not */
    /* the launch configuration nvcc pushes before a stub pops it */
    dim3 cfg_grid, cfg_block;
    size_t cfg_shmem;
    void *cfg_stream;
    int cfg_pushed;
    cudaError_t last_error;
} reg;

/* One handle for every fat binary: nothing is loaded from it here. */
static int fatbin_handle;

/* ---- the registry --------------------------------------------------------- */

int stubrt_kernel(const void *host_fun)
{
    int kept = reg.nkernels < STUBRT_MAX_KERNELS ? reg.nkernels : STUBRT_MAX_KERNELS;
    for (int i = 0; i < kept; i++)
        if (reg.kernel[i].host == host_fun)
            return i;
    return -1;
}

const char *stubrt_kernel_name(int k)
{
    return reg.kernel[k].name;
}

int stubrt_nkernels(void)
{
    return reg.nkernels;
}

int stubrt_var(const void *host_var, int from)
{
    int kept = reg.nvars < STUBRT_MAX_VARS ? reg.nvars : STUBRT_MAX_VARS;
    for (int i = from; i < kept; i++)
        if (reg.var[i].host == host_var)
            return i;
    return -1;
}

const char *stubrt_var_name(int v)
{
    return reg.var[v].name;
}

/* ---- registration (static constructors of the object that holds kernels) --- */

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
    if (reg.nkernels < STUBRT_MAX_KERNELS) {
        reg.kernel[reg.nkernels].host = host_fun;
        reg.kernel[reg.nkernels].name = device_fun;
    }
    reg.nkernels++;
}

/* nvcc passes the variable's device name as device_address. */
void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *device_name,
                       int ext, size_t size, int constant, int global)
{
    (void)handle; (void)device_name; (void)ext; (void)size; (void)constant; (void)global;
    if (reg.nvars < STUBRT_MAX_VARS) {
        reg.var[reg.nvars].host = host_var;
        reg.var[reg.nvars].name = device_address;
    }
    reg.nvars++;
}

/* Managed memory is for no lab: registered and never looked up. */
void __cudaRegisterManagedVar(void **handle, void **host_var_ptr, char *device_address,
                              const char *device_name, int ext, size_t size, int constant, int global)
{
    (void)handle; (void)host_var_ptr; (void)device_address; (void)device_name;
    (void)ext; (void)size; (void)constant; (void)global;
}

char __cudaInitModule(void **handle)
{
    (void)handle;
    return 1;
}

/* ---- the launch configuration ---------------------------------------------- */

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, void *stream)
{
    reg.cfg_grid = grid;
    reg.cfg_block = block;
    reg.cfg_shmem = shmem;
    reg.cfg_stream = stream;
    reg.cfg_pushed = 1;
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream)
{
    if (!reg.cfg_pushed)
        return cudaErrorMissingConfiguration;
    *grid = reg.cfg_grid;
    *block = reg.cfg_block;
    *shmem = reg.cfg_shmem;
    *(void **)stream = reg.cfg_stream;
    reg.cfg_pushed = 0;
    return cudaSuccess;
}

/* ---- errors ------------------------------------------------------------------ */

cudaError_t stubrt_fail(cudaError_t e)
{
    return reg.last_error = e;
}

void stubrt_reset(void)
{
    reg.last_error = cudaSuccess;
    reg.cfg_pushed = 0;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = reg.last_error;
    reg.last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return reg.last_error;
}

/* ---- the one device, and the forms that forward ------------------------------ */

cudaError_t cudaGetDevice(int *device)
{
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device)
{
    return cudaGetDeviceProperties(prop, device);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                          size_t smem)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size, smem, 0);
}
