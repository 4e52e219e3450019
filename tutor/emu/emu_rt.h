/* emu_rt.h — what the emulating runtime (emu_rt.c) offers beyond the CUDA
 * runtime and driver calls it stands in for: the CPU judge's glue
 * (tutor/harness/hx_emu.cu) sets it up, names the student's buffers and
 * reads how the student's code ended; each embedded PTX file of the judge
 * (emu_rt_ptx.c) registers itself.  The CUDA entry points are declared by
 * CUDA's own headers. */
#ifndef EMU_RT_H
#define EMU_RT_H

#include <stddef.h>
#include <stdint.h>

#include "emu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct emu_rt_options {
    uint64_t seed;          /* the interleaving of warps (the judge's seed) */
    uint64_t budget;        /* thread-instructions one launch of the student's code may run */
    /* Called once, when a load or a launch of the student's code first ends
     * other than EMU_OK, before the failing call returns its error. */
    void (*on_student_error)(const struct emu_error *err);
    /* The cubin nvcc kept beside the student's PTX, whose register counts
     * decide whether a block fits an SM; NULL: the PTX alone (every
     * kernel said to use 32). */
    const char *cubin;
    /* 1: the student's launches count their memory requests too (a
     * profile; emu_count.h) */
    int counters;
    /* The student's launches' trace hook (emu_trace.h); NULL: none. */
    void (*trace)(void *ctx, const struct emu_trace_event *ev);
    void *trace_ctx;
};

/* Before the first CUDA call; later calls change nothing already made. */
void emu_rt_configure(const struct emu_rt_options *o);

/* One PTX module of the judge's own kernels, text of LEN bytes that stays
 * valid for the process (emu_rt_ptx.c's constructors). */
void emu_rt_add_ptx(const char *text, size_t len);

/* Names the allocation that starts at BASE in what the student's kernels
 * see ("d_in"), so that a fault says which buffer; 0, or -1 when BASE
 * starts no allocation. */
int emu_rt_name(const void *base, const char *name);
/* What the lab gives the student's kernels of the allocation holding AT
 * (emu_mem_lend): BYTES from AT, read only when INPUT; 0 or -1. */
int emu_rt_lend(const void *at, size_t bytes, int input);

/* The first error of the student's code (loads and launches) and of the
 * judge's own kernels; status EMU_OK when there was none. */
void emu_rt_student_error(struct emu_error *err);
void emu_rt_judge_error(struct emu_error *err);

/* What the student's launches and the judge's executed so far. */
void emu_rt_stats(struct emu_stats *student, struct emu_stats *judge);
/* What the student's launches counted so far (emu_count.h). */
struct emu_counters;
void emu_rt_counters(struct emu_counters *student);

#ifdef __cplusplus
}
#endif

#endif
