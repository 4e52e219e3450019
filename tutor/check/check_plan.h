/* check_plan.h — nvcc's plan for a compile, asked once and kept
 * (check_plan.c). */
#ifndef CHECK_PLAN_H
#define CHECK_PLAN_H

/* nvcc's plan for argv (its --dryrun output, heap), from `cache` (a file:
 * the key and the toolkit's identity on one line, then the plan) when it
 * holds this key's and the toolkit is the one it was made with, else from
 * nvcc, and kept there (`cache` NULL: not kept).  The key: nvcc and its
 * profile, the host compiler, the command line, nvcc's NVCC* and CUDA_*
 * variables, PATH and LD_LIBRARY_PATH.  NULL when nvcc gave none. */
char *nvcc_plan_get(char *const *argv, const char *cache, double timeout_s);

#endif /* CHECK_PLAN_H */
