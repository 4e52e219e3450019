/* stubrt.h — what both stand-ins for libcudart do alike (the runner's
 * recording runtime, rt.c, and the CPU judges' emulating runtime,
 * tutor/emu/emu_rt*.c): nvcc's registration entry points and the registry
 * they fill, the launch configuration a stub pushes and pops, the last
 * error, and the calls that only forward to another.  What a launch does is
 * each runtime's own.  Plain C against CUDA's headers, libc alone. */
#ifndef STUBRT_H
#define STUBRT_H

#include <cuda_runtime_api.h>
#include <stddef.h>

/* The entry points nvcc's generated host code calls (crt/host_runtime.h and
 * crt/device_functions.h of CUDA 13, declared there for C++ only).  This is
 * the undocumented interface both runtimes stand in for; tests/runner.sh
 * links every stub and solution against the runner, so a CUDA release that
 * changes it fails there first.  stubrt.c defines the registrations and
 * the configuration; each runtime defines the launches. */
void **__cudaRegisterFatBinary(void *fat_cubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
void __cudaRegisterFunction(void **handle, const char *host_fun, char *device_fun,
                            const char *device_name, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bdim, dim3 *gdim, int *wsize);
void __cudaRegisterVar(void **handle, char *host_var, char *device_address, const char *device_name,
                       int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **handle, void **host_var_ptr, char *device_address,
                              const char *device_name, int ext, size_t size, int constant, int global);
char __cudaInitModule(void **handle);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, void *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                               cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                                    size_t shmem, cudaStream_t stream);
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device);

/* How many kernels and variables the registry keeps; registrations past
 * these are counted (stubrt_nkernels) and not kept. */
enum { STUBRT_MAX_KERNELS = 256, STUBRT_MAX_VARS = 64 };

/* The kernel whose stub is host_fun, as the index of its first
 * registration; -1 when none was kept. */
int stubrt_kernel(const void *host_fun);

/* The device name (mangled) registered for kernel k, which stubrt_kernel
 * returned or is below both stubrt_nkernels() and STUBRT_MAX_KERNELS. */
const char *stubrt_kernel_name(int k);

/* How many kernels the stubs registered, those not kept included. */
int stubrt_nkernels(void);

/* The first variable at or after index `from` whose host shadow is
 * host_var; -1 when there is none. */
int stubrt_var(const void *host_var, int from);

/* The device name registered for variable v, which stubrt_var returned. */
const char *stubrt_var_name(int v);

/* Records e as what cudaGetLastError returns next, and returns it. */
cudaError_t stubrt_fail(cudaError_t e);

/* Forgets the last error and a configuration pushed but not popped. */
void stubrt_reset(void);

#endif /* STUBRT_H */
