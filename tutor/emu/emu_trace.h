/* emu_trace.h — what a launch did, step by step, for a picture of it
 * (`cudatutor trace`): the emulator calls the config's trace hook once
 * for each warp instruction that is not plain arithmetic (memory,
 * atomics, branches, barriers, warp operations, exits), before it runs,
 * with the lanes at it and the shared-memory words each touches.  Off
 * (no hook) it costs one test of a pointer on those instructions only;
 * arithmetic never reaches it. */
#ifndef EMU_TRACE_H
#define EMU_TRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an instruction is, for the picture. */
enum emu_trace_kind {
    EMU_TR_OTHER,           /* a warp operation, a fence, a cvta, ... */
    EMU_TR_SHARED_LD,
    EMU_TR_SHARED_ST,
    EMU_TR_SHARED_ATOM,
    EMU_TR_GLOBAL_LD,
    EMU_TR_GLOBAL_ST,
    EMU_TR_GLOBAL_ATOM,
    EMU_TR_LOCAL,           /* parameters, local and constant memory */
    EMU_TR_BRANCH,
    EMU_TR_BARRIER,
    EMU_TR_EXIT
};

struct emu_trace_event {
    uint64_t launch;            /* the emulator's launches before this one */
    uint64_t block;             /* linear, in the grid */
    uint32_t warp;              /* in the block */
    uint32_t pc;                /* the instruction's index in the module */
    const char *kernel;         /* the kernel's name */
    uint32_t grid[3], block_dim[3];     /* the launch's shape */
    const char *file;           /* its source file ("" unknown) and line (0 unknown); */
    uint32_t line;              /* for an inlined call, the line it was called from */
    enum emu_trace_kind kind;
    uint32_t mask;              /* lanes at the instruction */
    uint32_t emask;             /* of those, the ones its guard lets run (a branch: those
                                   that take it) */
    uint32_t bytes;             /* a memory access's bytes per lane */
    uint32_t off[32];           /* shared: each lane of emask's byte offset; global: the
                                   low 32 bits of its address */
};

/* The hook's type: struct emu_config's trace. */
typedef void emu_trace_fn(void *ctx, const struct emu_trace_event *ev);

#ifdef __cplusplus
}
#endif

#endif
