/* check_nvcc.h — nvcc's compile of one file run as its own steps, the
 * device's and the host's side by side (check_nvcc.c). */
#ifndef CHECK_NVCC_H
#define CHECK_NVCC_H

#include "sys/proc.h"

/* Compiles as `argv` (an nvcc command line that compiles one .cu file
 * with -c, -keep and -MD -MF DEPS) would, into *pr as proc_run fills it
 * for that nvcc: the same output files, the same log (each step's output
 * in nvcc's order, up to the first step that failed) and that step's exit
 * status.  The steps come from nvcc's own plan (--dryrun): the device's
 * preprocessing, cicc, ptxas and fatbinary on one core while the host's
 * preprocessing and cudafe++ run on the other, then the host compiler;
 * the two front ends share a module id written beforehand, which nvcc
 * would have cudafe++ make first.  `deps` and `obj` are the -MF file and
 * the object.  `plan_cache` (NULL: none) is a file where nvcc's plan is
 * kept for the next compile of the same command line, under the key of
 * everything it follows from (nvcc, its profile, the host compiler, the
 * command line and nvcc's variables).  `pch_dir` (NULL: none) is where
 * the host compiler's headers are kept precompiled (check_pch.h): its
 * step reads them from there when that compile is clean, and runs again
 * as nvcc's plan has it when it is not.  `early` (non-zero) begins the
 * host compiler's step once cicc and cudafe++ are done, beside ptxas and
 * fatbinary (check_early.h), the same object.  Returns 0 when it ran; 1 when
 * nvcc's plan is not of the shape it knows (the caller runs nvcc itself,
 * nothing was run); -1 when a process could not be created (pr->error
 * says why). */
int nvcc_split_run(char *const *argv, const char *deps, const char *obj, const char *plan_cache,
                   const char *pch_dir, int early, double timeout_s, struct proc_result *pr);

#endif /* CHECK_NVCC_H */
