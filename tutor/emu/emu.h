/* emu.h — the PTX emulator: a module of PTX text parsed once into decoded
 * instructions, and its kernels launched over host memory with every access
 * checked (docs/harness.md, "The CPU tier"; DESIGN §11).
 *
 * Global memory is host memory: a device pointer is the host address of a
 * range the caller mapped with emu_mem_map (the emulating runtime maps every
 * allocation it makes, the module maps its own .global and .const
 * variables).  An access outside every mapped range, or straddling the end
 * of one, is a fault that names the range and the offset.  Shared and local
 * memory live in windows of generic addresses no host allocation can take,
 * so cvta and generic loads and stores work as on the GPU.
 *
 * Nothing here is thread-safe: one struct emu runs one launch at a time.
 * Nothing here guesses: a form the parser or the interpreter does not know
 * ends in EMU_UNSUPPORTED naming it ("needs a GPU"), never in a verdict. */
#ifndef EMU_H
#define EMU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a load or a launch ended.  Only EMU_OK lets the caller go on. */
enum emu_status {
    EMU_OK = 0,
    EMU_FAULT,       /* what a GPU faults on: out of bounds, misaligned, trap, a bad address */
    EMU_HAZARD,      /* a race, a read of shared memory no thread wrote, a .sync mask naming
                        a lane that exited or waits elsewhere: what racecheck/synccheck find */
    EMU_UNSUPPORTED, /* needs a GPU: an instruction, directive or operand not emulated */
    EMU_LIMIT,       /* the launch's instruction budget ran out (a kernel that does not end) */
    EMU_PARSE,       /* the text is not PTX the parser accepts (a line and what was expected) */
    EMU_NOMEM        /* the host ran out of memory */
};

/* Why a call did not end in EMU_OK: the status again and one or two
 * sentences for a student ("thread 255 of block 3 read 4 bytes at d_in +
 * 4096, 0 bytes past its end (kernel.cu:31)").  For a hazard, both
 * instructions' source lines.  The text never holds bytes read from
 * emulated memory. */
struct emu_error {
    enum emu_status status;
    char message[512];
    char what[64];      /* EMU_UNSUPPORTED: the instruction or directive, "tex.2d.v4.f32.f32" */
    int line;           /* source line of the (first) instruction at fault, 0 when unknown */
    char file[128];     /* its source file as .file names it, "" when unknown */
};

struct emu_trace_event;

struct emu_config {
    /* What a kernel can observe: %nsmid, %smid's range, %nwarpid, and the
     * cycles %clock/%clock64/%globaltimer advance by per warp instruction. */
    int sm_count;                   /* 132 for the H100 SXM */
    int warps_per_sm;               /* %nwarpid: 64 */
    double clock_ghz;               /* %globaltimer in ns from %clock64 */
    uint64_t seed;                  /* the interleaving of warps and blocks; each launch
                                       mixes in its own count, so repeated launches differ
                                       and a seed and a sequence of launches repeat */
    int hazards;                    /* 1: track shared and global hazards (slower) */
    uint64_t budget;                /* thread-instructions one launch may execute, 0: none */
    /* printf's formatted text, in order; NULL drops it. */
    void (*print)(void *ctx, const char *text, size_t len);
    void *print_ctx;
    /* Host threads a launch's blocks run on; 0 or 1: the caller's alone.
     * With more, blocks run side by side (global atomics as host atomics,
     * print called from one thread at a time, the first failing block's
     * error reported); with hazards on, always one. */
    int threads;
    /* Blocks resident at once on each host thread, their warps interleaved
     * (started in increasing index, a new one when one ends, as the GPU's
     * block scheduler does); 0: as many as four SMs of the H100 hold
     * (each 2048 threads, 32 blocks, 228 KiB of shared memory); 1: one
     * block after another. */
    int resident;
    /* 1: count what each memory request does (emu_count.h: wavefronts,
     * sectors, atomics), which costs a few percent; instructions,
     * branches and barriers are counted always. */
    int counters;
    /* Called before each warp instruction that is not arithmetic, with
     * what it does (emu_trace.h: `cudatutor trace`); NULL: no trace. */
    void (*trace)(void *ctx, const struct emu_trace_event *ev);
    void *trace_ctx;
};

struct emu;
struct emu_module;
struct emu_kernel;

struct emu *emu_new(const struct emu_config *cfg);
void emu_free(struct emu *e);

/* Makes [base, base + bytes) global memory under NAME ("d_in", "d_out",
 * "a judge buffer"); the name is copied.  emu_mem_unmap forgets the range
 * that starts at BASE; emu_mem_rename names the range holding BASE again.
 * 0, or -1 (overlap, unknown base, no memory). */
int emu_mem_map(struct emu *e, void *base, size_t bytes, const char *name);
int emu_mem_unmap(struct emu *e, void *base);
int emu_mem_rename(struct emu *e, void *base, const char *name);
/* What the lab gives a kernel of the range holding AT: BYTES from AT (0:
 * all of it); an access of the range outside them is a fault naming the
 * buffer, as the contract ends there whatever was allocated.  Plain reads
 * of a buffer that is not an INPUT are recorded, so that another block's
 * later store unordered after one is a race (an input is never written;
 * a range never lent records none).  0, or -1 when no range holds AT.  AT
 * NULL gives every range back whole. */
int emu_mem_lend(struct emu *e, const void *at, size_t bytes, int input);

/* Parses and decodes PTX text (NUL not required; LEN bytes).  The
 * module's .global/.const variables are allocated, initialised and mapped
 * under their own names.  EMU_OK with *OUT set, or the error. */
enum emu_status emu_module_load(struct emu *e, const char *ptx, size_t len,
                                struct emu_module **out, struct emu_error *err);
void emu_module_unload(struct emu_module *m);
/* Gives every .global and .const variable of M its initial bytes again,
 * where they are: what a fresh load of the same PTX starts with, without
 * parsing it again. */
void emu_module_reset(struct emu_module *m);

/* An .entry by its (mangled) name; NULL when the module has none. */
const struct emu_kernel *emu_module_kernel(const struct emu_module *m, const char *name);
/* The Nth .entry in the order of the text, NULL past the last. */
const struct emu_kernel *emu_module_kernel_at(const struct emu_module *m, int n);
/* A module-scope variable's mapped address and size; -1 when unknown. */
int emu_module_global(const struct emu_module *m, const char *name, void **addr, size_t *bytes);

enum { EMU_MAX_PARAMS = 64 };

/* What the driver would say of a kernel (cuKernelGetParamInfo,
 * cuFuncGetAttribute): from the declarations, never from comments. */
struct emu_kernel_info {
    const char *name;
    int nparams;
    uint32_t param_offset[EMU_MAX_PARAMS], param_size[EMU_MAX_PARAMS];
    uint32_t static_smem;   /* bytes of the .shared variables the kernel can reach */
    uint32_t local_bytes;   /* per thread: .local declarations and the depot; a
                               kernel's, those of every function it can run, as
                               ptxas counts a kernel's cumulative stack */
    uint32_t max_threads;   /* .maxntid's product, else 1024 */
    int slots;              /* register slots a warp's frame holds a row of, after packing */
};
void emu_kernel_info(const struct emu_kernel *k, struct emu_kernel_info *info);

/* The registers a thread of KERNEL (its mangled name) uses, as ptxas gave
 * them in the cubin nvcc wrote beside the PTX (LEN bytes); -1 when the
 * file is not a cubin or does not say. */
int emu_cubin_regs(const void *cubin, size_t len, const char *kernel);

/* Whether a block of THREADS threads of REGS registers each fits an SM of
 * the H100 (65536 registers, given out to a warp in units of 256, at most
 * 255 a thread): a GPU refuses a launch that does not
 * (cudaErrorLaunchOutOfResources). */
int emu_regs_fit(int regs, unsigned threads);
/* The most threads a block of REGS-register threads may have: what the
 * driver says as CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (at most 1024). */
unsigned emu_regs_max_threads(int regs);

struct emu_launch {
    unsigned grid[3], block[3];
    unsigned dyn_smem;
    void **args;            /* as cuLaunchKernel's kernelParams: one pointer per parameter */
};

struct emu_stats {
    uint64_t thread_instructions;   /* instructions times the lanes that executed them */
    uint64_t warp_instructions;
    uint64_t divisions;             /* lanes that ran a div or rcp: lab 09's integrand
                                       divides once an evaluation */
};

/* Runs the kernel over the whole grid; EMU_OK, or the first fault, hazard,
 * unsupported form or the budget, in ERR.  Memory the kernel wrote before
 * stopping stays written, as on a GPU. */
enum emu_status emu_launch(struct emu *e, const struct emu_kernel *k, const struct emu_launch *l,
                           struct emu_error *err);
/* emu_launch as cuLaunchCooperativeKernel launches: every block resident
 * at once, with the workspace cooperative_groups' grid barrier
 * (this_grid().sync()) uses; a grid larger than the emulated GPU holds at
 * once is refused (EMU_FAULT, cudaErrorCooperativeLaunchTooLarge). */
enum emu_status emu_launch_cooperative(struct emu *e, const struct emu_kernel *k,
                                       const struct emu_launch *l, struct emu_error *err);
void emu_stats(const struct emu *e, struct emu_stats *s);

#ifdef __cplusplus
}
#endif

#endif
