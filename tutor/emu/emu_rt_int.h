/* emu_rt_int.h — what the three files of the emulating runtime share
 * (private to them): the emulated device's figures, the two emulators, the
 * allocations and the record of errors.  emu_rt.c owns that state and the
 * runtime calls of the device, memory, streams and errors; emu_rt_stub.c
 * the launches nvcc's host stubs make, which run the judge's own kernels;
 * emu_rt_drv.c the driver calls that run the student's code.  The
 * registrations, the launch configuration and the last error are the
 * runner's code too (runner/stubrt.c, its stubrt_fail records an error). */
#ifndef EMU_RT_INT_H
#define EMU_RT_INT_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "emu/emu.h"
#include "emu/emu_rt.h"
#include "runner/standin.h"

/* The emulated device is the runner's stand-in, an H100 SXM (STANDIN_*);
 * a kernel whose register count nvcc did not keep is said to use this many. */
enum { DEV_REGS_PER_THREAD = 32 };

/* The judge's emulator and the student's, made at the first call that
 * needs them with every allocation made so far; 0, or -1 when the host
 * has no memory for them.  Either pointer may be NULL. */
int emu_rt_emus(struct emu **judge, struct emu **student);

/* Whether [p, p + n) lies inside one allocation. */
int emu_rt_allocated(const void *p, size_t n);

/* Keep the first error of the student's code (and tell the glue) and of
 * the judge's own kernels (its sentence then is cudaGetErrorString's for
 * cudaErrorLaunchFailure). */
void emu_rt_student_failed(const struct emu_error *err);
void emu_rt_judge_failed(const struct emu_error *err);

/* Blocks of `threads` threads of `regs` registers each (0: the default
 * count) and `smem` bytes of shared memory in all that one SM holds at
 * once, by the H100's limits. */
int emu_rt_occupancy(int threads, int regs, size_t smem);

/* The options emu_rt_configure was given. */
const struct emu_rt_options *emu_rt_options(void);

#endif
