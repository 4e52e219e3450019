/* emu_count.h — the emulator's performance counters: what one launch did,
 * counted as an sm_90 GPU and Nsight Compute count it (docs/harness.md,
 * "Counters without a GPU"): instructions and the threads at them, branches
 * and divergent ones, shared-memory requests and their wavefronts (bank
 * conflicts), global requests and their 32-byte sectors, the distinct
 * sectors a launch touched (its DRAM traffic with a cold cache), barriers,
 * atomics, and the launch's registers and resident blocks.  The memory
 * figures follow from the addresses alone and equal the GPU's; the
 * instruction figures count PTX instructions, which ptxas turns into more
 * or fewer SASS ones, so they compare kernels with each other, not with
 * ncu's numbers.  C and C++ (the CPU judge reads them). */
#ifndef EMU_COUNT_H
#define EMU_COUNT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One row per counter: the field, the name the tutor shows and the
 * catalog's lessons use, the ncu metric it stands for ("" none; "a+b" the
 * sum of two), whether it equals that metric ('=': the same count of the
 * same events; '~': counted on PTX, ncu counts SASS), and how launches
 * combine (SUM, or MAX/MIN for a property of the launch), and its meaning. */
#define EMU_COUNTERS(X) \
    X(launches, "launches", "", '=', SUM, "kernel launches") \
    X(blocks, "blocks", "launch__grid_size", '=', SUM, "blocks launched") \
    X(threads, "threads", "launch__thread_count", '=', SUM, "threads launched") \
    X(warp_inst, "warp_instructions", "smsp__inst_executed.sum", '~', SUM, \
      "instructions a warp issued (PTX)") \
    X(thread_inst, "thread_instructions", "smsp__thread_inst_executed.sum", '~', SUM, \
      "threads active at them") \
    X(thread_inst_on, "thread_instructions_pred_on", "smsp__thread_inst_executed_pred_on.sum", '~', SUM, \
      "threads whose predicate let them run") \
    X(branches, "branches", "smsp__sass_inst_executed_op_branch.sum", '~', SUM, \
      "branch instructions a warp issued") \
    X(div_branches, "divergent_branches", "smsp__sass_branch_targets_threads_divergent.sum", '~', SUM, \
      "branches whose threads went two ways") \
    X(sh_ld_req, "shared_load_requests", "smsp__sass_inst_executed_op_shared_ld.sum", '=', SUM, \
      "shared-memory loads a warp issued") \
    X(sh_ld_wf, "shared_load_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", '=', SUM, \
      "passes through the 32 banks they took") \
    X(sh_st_req, "shared_store_requests", "smsp__sass_inst_executed_op_shared_st.sum", '=', SUM, \
      "shared-memory stores a warp issued") \
    X(sh_st_wf, "shared_store_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", '=', SUM, \
      "passes through the 32 banks they took") \
    X(gl_ld_req, "global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", '=', SUM, \
      "global loads a warp issued") \
    X(gl_ld_sec, "global_load_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", '=', SUM, \
      "32-byte sectors they touched") \
    X(gl_st_req, "global_store_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", '=', SUM, \
      "global stores a warp issued") \
    X(gl_st_sec, "global_store_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", '=', SUM, \
      "32-byte sectors they touched") \
    X(uniq_rd, "unique_sectors_read", "dram__sectors_read.sum", '~', SUM, \
      "distinct sectors each launch read (DRAM, cold cache)") \
    X(uniq_wr, "unique_sectors_written", "dram__sectors_write.sum", '~', SUM, \
      "distinct sectors each launch wrote") \
    X(bar_warp, "barriers", "", '=', SUM, "block barriers a warp arrived at") \
    X(bar_thread, "barrier_threads", "sm__sass_thread_inst_executed_op_barrier_pred_on.sum", '=', SUM, \
      "threads that arrived at them") \
    X(atom_req, "atomic_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum+l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", '=', SUM, \
      "global atomics a warp issued") \
    X(atom_thread, "atomic_threads", "", '=', SUM, "threads that ran them") \
    X(atom_same, "atomic_same_address", "", '=', SUM, \
      "of those, threads whose address another thread of the request also hit") \
    X(atom_hot, "atomic_hottest_address", "", '=', SUM, \
      "updates the busiest word took, a warp's integer adds to one word counted once (the GPU's " \
      "compiler combines them): L2 serves them one after another") \
    X(sh_atom_req, "shared_atomic_requests", "", '=', SUM, "shared-memory atomics a warp issued") \
    X(regs, "registers_per_thread", "launch__registers_per_thread", '=', MAX, \
      "registers a thread holds (ptxas, from the cubin; 0 unknown)") \
    X(blocks_sm, "resident_blocks_per_sm", "launch__occupancy_limit_blocks", '=', MIN, \
      "blocks one SM holds at once (registers, shared memory, warps)")

enum emu_counter {
#define EMU_COUNTER_ENUM_(f, name, ncu, eq, comb, why) EMU_CNT_##f,
    EMU_COUNTERS(EMU_COUNTER_ENUM_)
#undef EMU_COUNTER_ENUM_
    EMU_CNT_COUNT
};

struct emu_counters {
    uint64_t v[EMU_CNT_COUNT];
};

/* Each counter's row, by index. */
struct emu_counter_info {
    const char *name, *ncu, *why;
    char eq;                /* '=' or '~' */
    char comb;              /* '+', '>' (the largest), '<' (the smallest non-zero) */
};
extern const struct emu_counter_info emu_counter_info[EMU_CNT_COUNT];
/* The index of the counter NAME, or -1. */
int emu_counter_find(const char *name);

struct emu;
/* What E's launches counted since emu_new or the last reset. */
void emu_counters_get(const struct emu *e, struct emu_counters *c);
void emu_counters_reset(struct emu *e);
/* Adds B into A by each counter's rule. */
void emu_counters_add(struct emu_counters *a, const struct emu_counters *b);
/* The launch just made on E used REGS registers a thread (0: unknown) and
 * fits BLOCKS blocks on an SM: what the runtime knows and the core does not. */
void emu_counters_shape(struct emu *e, int regs, int blocks);

/* Wavefronts of one shared-memory request: lanes of MASK each access BYTES
 * at OFF[lane] (byte offsets).  Requests wider than 4 bytes are served a
 * half warp (8 bytes) or a quarter warp (16) at a time; within one, a bank
 * serves one 4-byte word a pass, any number of lanes reading that word. */
uint32_t emu_count_wavefronts(const uint32_t *off, uint32_t mask, uint32_t bytes);
/* Distinct 32-byte sectors among lanes of MASK accessing BYTES at ADDR[lane]. */
uint32_t emu_count_sectors(const uint64_t *addr, uint32_t mask, uint32_t bytes);

#ifdef __cplusplus
}
#endif

#endif
