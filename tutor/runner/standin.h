/* standin.h — the device a launcher is told about where no GPU answers:
 * an H100 SXM's figures (the GPU the catalog's targets were set on), so
 * that it sizes its grids as it would there.  The judge answers the
 * runner's questions with it on a machine without a GPU (hx_plan.cu), and
 * the CPU judges' emulating runtime emulates it (tutor/emu/emu_rt.c).
 * Header only, C and CUDA C++, nothing to link. */
#ifndef STANDIN_H
#define STANDIN_H

#include <cuda_runtime_api.h>
#include <string.h>

enum {
    STANDIN_SMS = 132,
    STANDIN_WARPS_PER_SM = 64,
    STANDIN_BLOCKS_PER_SM = 32,
    STANDIN_SMEM_BLOCK = 48 << 10,          /* without opting in */
    STANDIN_SMEM_OPTIN = 227 << 10,
    STANDIN_SMEM_SM = 228 << 10,
    STANDIN_SMEM_RESERVED = 1 << 10,        /* the driver's per block */
    STANDIN_L2 = 50 << 20,
    STANDIN_REGS = 65536
};

/* Fills *p with the stand-in's compute capability, limits and sizes, every
 * other field zero (the name is the caller's to give). */
static inline void standin_fill(struct cudaDeviceProp *p)
{
    memset(p, 0, sizeof *p);
    p->major = 9;
    p->multiProcessorCount = STANDIN_SMS;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->warpSize = 32;
    p->sharedMemPerBlock = STANDIN_SMEM_BLOCK;
    p->sharedMemPerBlockOptin = STANDIN_SMEM_OPTIN;
    p->sharedMemPerMultiprocessor = STANDIN_SMEM_SM;
    p->regsPerBlock = p->regsPerMultiprocessor = STANDIN_REGS;
    p->maxThreadsPerMultiProcessor = STANDIN_WARPS_PER_SM * 32;
    p->maxBlocksPerMultiProcessor = STANDIN_BLOCKS_PER_SM;
    p->l2CacheSize = STANDIN_L2;
    p->totalGlobalMem = (size_t)80 << 30;
    p->memoryBusWidth = 5120;
    p->cooperativeLaunch = 1;
}

#endif /* STANDIN_H */
