/* rt.h — the recording runtime's side that runner.c drives: the socket to
 * the judge and the start and end of one recorded call.  The CUDA entry
 * points rt.c defines are declared by CUDA's own headers. */
#ifndef RT_H
#define RT_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* The entry points nvcc's generated host code calls (crt/host_runtime.h and
 * crt/device_functions.h of CUDA 13, declared there for C++ only).  This is
 * the undocumented interface the runner stands in for; tests/runner.sh
 * links every stub and solution against it, so a CUDA release that changes
 * it fails there first. */
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

/* One message to or from the judge on PLAN_FD; 0, or -1 when the socket
 * failed or (rt_recv) the message is not of the type expected. */
int rt_send(const void *msg, size_t len);
int rt_recv(void *msg, size_t len, uint32_t type);

/* Tells the judge which kernels were registered and takes their parameter
 * sizes; -1 when the judge is gone. */
int rt_hello(void);

/* Brackets one call of the lab's entry point: steps recorded in between
 * make its plan, and rt_end sends the END that closes it. */
void rt_begin(void);
int rt_end(void);

#endif /* RT_H */
