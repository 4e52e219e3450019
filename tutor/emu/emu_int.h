/* emu_int.h — the PTX emulator's decoded form, shared by its parser
 * (emu_parse.c), its memory map (emu_mem.c), its ALU (emu_ops.c) and its
 * interpreter (emu_exec.c, emu_sched.c, emu_warp.c).  Private to
 * tutor/emu/: emu.h is the contract.
 *
 * A module is one flat array of decoded instructions; every function owns
 * a contiguous run of it.  Every source operand is a register slot: the
 * parser gives each immediate and each constant special register a slot of
 * its own, filled once when a warp is set up, so an instruction reads all
 * its operands the same way, R[slot][lane], with no test in the lane loop. */
#ifndef EMU_INT_H
#define EMU_INT_H

#include <stdint.h>
#include <stddef.h>

#include "emu/emu.h"
#include "emu/emu_count.h"

/* Operand and instruction types: a size and a kind ('h': the half floats,
 * one or two to a register, emu_hops.c; 'v': two 16-bit integers packed). */
#define EMU_TYPES(X) \
    X(NONE, 0, 'x') X(B8, 1, 'b') X(B16, 2, 'b') X(B32, 4, 'b') X(B64, 8, 'b') \
    X(U8, 1, 'u') X(U16, 2, 'u') X(U32, 4, 'u') X(U64, 8, 'u') \
    X(S8, 1, 's') X(S16, 2, 's') X(S32, 4, 's') X(S64, 8, 's') \
    X(F16, 2, 'h') X(F32, 4, 'f') X(F64, 8, 'f') X(PRED, 1, 'p') \
    X(BF16, 2, 'h') X(F16X2, 4, 'h') X(BF16X2, 4, 'h') X(U16X2, 4, 'v') X(S16X2, 4, 'v')

enum emu_type {
#define X(n, sz, k) T_##n,
    EMU_TYPES(X)
#undef X
    T_COUNT
};
extern const uint8_t emu_type_size[T_COUNT];
extern const char emu_type_kind[T_COUNT];
extern const char *const emu_type_name[T_COUNT];

/* What runs an opcode (emu_opcodes.def's CLASS column). */
enum emu_class {
    C_ALU, C_MEM, C_ATOM, C_CVTA, C_SPACEP, C_BRA, C_BRX, C_RET, C_EXIT, C_TRAP, C_CALL,
    C_BAR, C_WARP, C_ACTIVEMASK, C_FENCE, C_SLEEP, C_CLOCK, C_PRINTF, C_ASSERT, C_NOP, C_ASYNC,
    C_MBAR, C_CLUSTER, C_HEAP, C_SPLIT, C_GPU, C_REFUSED, C_COUNT
};

/* Decoded opcodes: emu_opcodes.def's rows. */
enum emu_op {
#define OP(n, mn, shapes, typed, cls, dests) OP_##n,
#include "emu/emu_opcodes.def"
#undef OP
    OP_COUNT
};

/* An opcode's row. */
struct emu_opinfo {
    const char *name;       /* the mnemonic's first word, "" for decoded forms */
    const char *shapes;
    uint8_t typed, cls, dests;
};
extern const struct emu_opinfo emu_ops[OP_COUNT];

/* Call parameters (.param declared inside a function body, a .func's own
 * parameters) live in a per-thread scratch area, at addresses above every
 * kernel parameter: the interpreter tells the two apart by the address. */
#define PARAM_SCRATCH 0x40000000u
/* A function's address as a value (mov.u64 %rd, f): this plus its index,
 * far from any address memory has. */
#define FUNC_ADDR 0xfff0000000000000ull
#define SCRATCH_BYTES 4096u

/* State spaces.  SP_DSMEM is .shared::cluster: the shared memory of any
 * block of the cluster, an address's bits 18 and up naming the block (1 +
 * its rank; 0 the block's own), as mapa makes them (emu_cluster.c). */
enum { SP_GENERIC, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM, SP_CONST, SP_DSMEM };
#define DSMEM_RANK_SHIFT 18

/* Comparison operators (setp, set, slct's sign). */
enum { CMP_NONE, CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_LO, CMP_LS, CMP_HI, CMP_HS,
       CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU, CMP_NUM, CMP_NAN };

/* Rounding: the float modes and cvt's integer-rounding modes. */
enum { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP, RND_RNA, RND_RNI, RND_RZI, RND_RMI, RND_RPI };

/* The "sub-operation" word: atom/red/redux/bar.red ops, shfl modes, vote
 * modes, setp's combining operator. */
enum { SUB_NONE, SUB_ADD, SUB_MIN, SUB_MAX, SUB_INC, SUB_DEC, SUB_CAS, SUB_EXCH, SUB_AND, SUB_OR,
       SUB_XOR, SUB_POPC, SUB_ALL, SUB_ANY, SUB_UNI, SUB_BALLOT, SUB_UP, SUB_DOWN, SUB_BFLY,
       SUB_IDX, SUB_ANYMATCH, SUB_ALLMATCH };

/* An mbarrier form's words (its sub, bits): arrive_drop, .noComplete,
 * .expect_tx, .parity, complete_tx, cp.async.mbarrier.arrive's .noinc. */
enum { MBS_DROP = 1, MBS_NOCOMPLETE = 2, MBS_EXPECT = 4, MBS_PARITY = 8, MBS_COMPLETE = 16,
       MBS_NOINC = 32 };

/* Modifier flags. */
enum {
    F_FTZ = 1u << 0, F_SAT = 1u << 1, F_APPROX = 1u << 2, F_FULL = 1u << 3, F_LO = 1u << 4,
    F_HI = 1u << 5, F_WIDE = 1u << 6, F_CC = 1u << 7, F_VOLATILE = 1u << 8, F_UNI = 1u << 9,
    F_SHIFTAMT = 1u << 10, F_CLAMP = 1u << 11, F_WRAP = 1u << 12, F_LEFT = 1u << 13,
    F_RIGHT = 1u << 14, F_TO = 1u << 15, F_NC = 1u << 16, F_HINT = 1u << 17, F_ALIGNED = 1u << 18,
    F_SYNC = 1u << 19, F_ARRIVE = 1u << 20, F_RED = 1u << 21, F_WARP = 1u << 22,
    F_NEGPRED = 1u << 23, /* setp/selp/bar.red: the predicate input is negated (!%p) */
    F_PRMT_MODE = 1u << 24,
    /* memory-model words: a strong access (relaxed, volatile, acquire,
     * release), its release and acquire semantics, and a scope of one block
     * only (which orders nothing between blocks) */
    F_STRONG = 1u << 25, F_REL = 1u << 26, F_ACQ = 1u << 27, F_CTA = 1u << 28,
    F_RELU = 1u << 29,  /* a half float's negative result becomes +0 */
    F_NANP = 1u << 30,  /* min/max .NaN: a NaN operand makes the result the canonical NaN */
};

/* A source or destination operand after decoding. */
enum { OK_NONE, OK_REG, OK_ADDR, OK_VEC };
struct emu_opnd {
    uint8_t kind;
    uint8_t n;          /* OK_VEC: its element count */
    uint8_t neg;        /* a predicate read as !%p */
    uint8_t konst;      /* OK_REG: an immediate's slot, one value in every lane */
    int32_t reg;        /* OK_REG: the slot; OK_ADDR: the base slot or -1 */
    int64_t off;        /* OK_ADDR: the constant part of the address */
    int32_t vec[4];     /* OK_VEC: the slots, 0 for a sink '_' */
};

enum { EMU_MAX_OPNDS = 6 };
struct emu_insn;
struct run;
struct warp;
/* An ALU handler: IN over the lanes of MASK of a warp's registers R
 * (slot-major, 32 lanes a slot) and carry flags (emu_ops.h). */
typedef void emu_alu_fn(const struct emu_insn *in, uint64_t *R, uint32_t mask, uint32_t *carry);
/* A class's step: IN for the lanes of MASK at it, EMASK those its guard
 * lets run, moved on past it; 1, or -1 with the launch's error set
 * (emu_warp.c). */
typedef int emu_step_fn(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                        uint32_t emask, uint32_t pc);

struct emu_insn {
    emu_alu_fn *alu;    /* C_ALU: the form's handler, chosen at decode */
    emu_step_fn *step;  /* its class's step, set at load */
    int32_t guard;      /* predicate slot, -1 when unguarded */
    uint16_t fn;        /* the function it belongs to */
    uint16_t op;
    uint8_t type, type2;
    uint8_t space, cmp, rnd, sub;
    uint8_t vec;        /* 1, 2 or 4 */
    uint8_t nops;
    uint8_t ndest;      /* the leading operands it writes */
    uint8_t guard_neg;
    uint8_t cmp2;       /* setp's combining operator: SUB_AND/OR/XOR or SUB_NONE */
    uint8_t straight;   /* its step only moves its lanes on to the next instruction */
    uint8_t divides;    /* div, rcp: the lanes it runs are counted (emu_stats.divisions) */
    /* definedness's plan for an ALU instruction with one destination
     * register and registers for sources (emu_undef.h), made at load: the
     * guard's slot and up to three sources' (0, the sink, where it has
     * fewer: always defined), the destination's; uplan 0: none */
    uint8_t uplan;
    int32_t usrc[4], udst;
    uint32_t flags;
    int32_t target;     /* bra: instruction index; call: function index */
    int32_t aux;        /* prmt mode, call's first argument index, ... */
    uint32_t line;
    uint16_t file;
    uint16_t cfile;     /* inlined: where it was called from (.loc inlined_at) */
    uint32_t cline;
    struct emu_opnd o[EMU_MAX_OPNDS];
};

/* One slot's constant value, filled into every lane when a warp starts. */
struct emu_const {
    int32_t slot;
    uint64_t bits;
};

/* The special registers that are constant for a thread: each one used gets
 * a slot, set when the warp is set up. */
enum { SR_TID_X, SR_TID_Y, SR_TID_Z, SR_NTID_X, SR_NTID_Y, SR_NTID_Z, SR_CTAID_X, SR_CTAID_Y,
       SR_CTAID_Z, SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z, SR_LANEID, SR_WARPID, SR_NWARPID,
       SR_SMID, SR_NSMID, SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE, SR_LANEMASK_GT,
       SR_LANEMASK_GE, SR_DYN_SMEM, SR_TOTAL_SMEM, SR_GRIDID,
       /* thread block clusters: a launch without them has clusters of one */
       SR_CL_RANK, SR_CL_NRANK, SR_CL_CTAID_X, SR_CL_CTAID_Y, SR_CL_CTAID_Z, SR_CL_NCTAID_X,
       SR_CL_NCTAID_Y, SR_CL_NCTAID_Z, SR_CLID_X, SR_CLID_Y, SR_CLID_Z, SR_NCLID_X, SR_NCLID_Y,
       SR_NCLID_Z, SR_IS_EXPLICIT_CLUSTER,
       /* a cooperative launch's grid workspace (emu_coop.c) */
       SR_ENVREG1, SR_ENVREG2, SR_COUNT };
/* The ones that change as it runs: read by OP_MOVCLK (its sub). */
enum { CLK_CLOCK, CLK_CLOCK64, CLK_GLOBALTIMER };

struct emu_sreg_use {
    int32_t slot;
    int32_t sreg;
};

/* A function's .local place in the module's local space, [base, end), kept
 * at offset AT of a thread's local memory in a launch of a kernel that can
 * run it. */
struct emu_lregion {
    uint32_t base, end, at;
};

struct emu_func {
    char *name;
    int is_entry, is_extern;
    int body;                       /* the function with this name's body, -1 none (link_calls) */
    int32_t first, count;           /* its instructions in the module's array */
    int nparams;
    uint32_t param_offset[EMU_MAX_PARAMS], param_size[EMU_MAX_PARAMS];
    uint32_t param_bytes;
    int nret;                       /* .func: return parameters */
    uint32_t ret_offset[4], ret_size[4];
    uint32_t static_smem;           /* its .shared declarations' end */
    uint32_t local_bytes;           /* its .local declarations' bytes */
    uint32_t local_base;            /* where they start in the module's local space */
    struct emu_lregion *lreg;       /* .entry: the places its threads' local memory holds */
    int nlreg;
    uint32_t local_span;            /* .entry: their bytes, a thread's local memory */
    uint32_t max_threads;
    uint32_t cluster[3];            /* .reqnctapercluster, else 0 */
    int explicit_cluster;           /* .explicitcluster */
    int32_t nslots;                 /* registers, immediates and special registers */
    struct emu_const *consts;
    int nconsts;
    struct emu_sreg_use *sregs;
    int nsregs;
    int uses_dyn_smem;
    int32_t *open;                  /* the registers it may read before it writes them
                                       (emu_open.c); NULL: any */
    int32_t *open_salt;             /* each one's slot before packing (emu_pack.c), which
                                       seeds its junk; NULL: its slot */
    int nopen;
};

struct emu_var {
    char *name;
    int space;
    uint64_t addr;                  /* host address (global/const) or offset (shared) */
    size_t bytes;
    unsigned char *init;            /* its initialiser's bytes (the rest is 0), or NULL */
    size_t init_bytes;
};

/* A .shared variable as the source declared it, for the sentences that
 * name a shared word ("sdata[2]"): its function (-1 module scope, -2 the
 * dynamic array), offset and bytes. */
struct emu_shvar {
    int fn;
    uint32_t off, bytes;
    char name[48];
};

struct emu_file {
    int id;
    char *name;                     /* its last path component */
    int is_system;                  /* one of CUDA's or the system's headers */
};

struct emu_module {
    struct emu *e;
    struct emu_insn *insn;
    int ninsn;
    struct emu_func *funcs;
    int nfuncs;
    struct emu_var *vars;
    int nvars;
    struct emu_file *files;
    int nfiles;
    uint32_t module_smem;           /* module-scope .shared bytes */
    uint32_t local_total;           /* every function's .local bytes, each at its own place */
    char (*refused)[64];            /* OP_REFUSED's aux: what each refused instruction was */
    int nrefused;
    struct emu_shvar *shvars;
    int nshvars;
    int32_t *brxt;                  /* the jump tables' targets (brx.idx: target, aux) */
    int nbrxt;
    struct emu_kernel *kernels;     /* one per function, for emu_module_kernel */
    int uses_heap;                  /* it calls malloc or free (emu_warp_bind) */
};

/* What emu_kernel is: a function of a module. */
struct emu_kernel {
    struct emu_module *m;
    int fn;
};

/* A mapped range of global memory. */
struct emu_range {
    uint64_t base;
    size_t bytes;
    char *name;
    /* what the lab gives the kernel of it (emu_mem_lend): [lo, hi), the
     * whole range unless lent; reads are recorded for the race check in
     * a buffer lent as one the kernel writes (an input's never change,
     * and a range never lent is not the lab's) */
    uint64_t lo, hi;
    int track_reads;
};

struct emu_block;

/* Device malloc's heap: the arena and its live blocks, by offset.  Made by
 * emu_heap.c, freed with the emulator (plain memory, in emu_free). */
struct emu_heap_block {
    uint32_t off, bytes;
};
struct emu_heap {
    uint8_t *base;
    struct emu_heap_block *live;
    int nlive, cap;
    uint32_t used;                  /* the live blocks' bytes */
};

struct emu {
    struct emu_config cfg;
    struct emu_range *ranges;       /* sorted by base */
    int nranges, cap;
    uint64_t shared_win, local_win; /* reserved generic windows, 4 GiB each */
    size_t win_bytes;
    struct emu_stats stats;
    struct emu_counters counters;   /* emu_count.c: its launches' since the last reset */
    uint64_t launches;              /* so far: mixed into each launch's interleaving */
    /* the register frames of the caller's host thread's last window, kept
     * for the next launch: memory already touched fills faster than fresh
     * pages (emu_sched.c) */
    uint64_t *frame_buf;
    size_t frame_cap;               /* in registers' lanes (uint64_t) */
    /* the global hazard shadow's pages a launch has freed, for the next
     * (emu_shadow.c): each block's first bytes point to the next */
    void *spare_pages;
    /* the chunks its pages are cut from, and what is left of the last */
    void **gh_chunks;
    int ngh_chunks;
    void *gh_next;
    size_t gh_left;
    struct emu_heap heap;           /* device malloc's (emu_heap.c); its base NULL until a module calls it */
};

/* The global shadow's chunks: 2 MiB, one huge page. */
enum { GH_CHUNK = 2 << 20 };

/* emu_mem.c */
/* BYTES (a multiple of 2 MiB) of zeroed memory aligned to 2 MiB and asked
 * for transparent huge pages, or NULL; freed by emu_mem_huge_free. */
void *emu_mem_huge(size_t bytes);
void emu_mem_huge_free(void *p, size_t bytes);
/* The range holding all of [addr, addr+bytes), or NULL; *LAST caches the
 * index of the last hit (one per host thread). */
const struct emu_range *emu_mem_find(const struct emu *e, int *last, uint64_t addr, size_t bytes);
void emu_mem_describe(struct emu *e, uint64_t addr, char *out, size_t cap);

/* emu_heap.c */
/* E's device heap, mapped as a global range: made before the first launch
 * of a module that calls malloc or free, kept until emu_free.  0, or -1
 * out of memory. */
int emu_heap_open(struct emu *e);

/* emu_open.c */
/* Each function of M: the registers it may read before it writes them,
 * the only ones a frame's junk is needed in; 0 or -1 out of memory. */
int emu_open_regs(struct emu_module *m);
/* Whether IN writes its leading ndest operands in every lane that runs it
 * (an unguarded ALU result or load): 1, or 0 when it may write none. */
int emu_open_writes_surely(const struct emu_insn *in);
/* Whether the instruction after IN can run next in one lane (*NEXT), and
 * where IN can jump to (*TO, -1 none); 0 when IN leaves the analysis's
 * reach (a jump table), else 1. */
int emu_open_successors(const struct emu_insn *in, int *next, int *to);

/* emu_pack.c */
/* Each function of M with registers that are never live at once sharing
 * a slot (its nslots shrunk, every reference renumbered), after
 * emu_open_regs; 0 or -1 out of memory. */
int emu_pack_slots(struct emu_module *m);

/* emu_parse.c */
const char *emu_file_name(const struct emu_module *m, int id);
enum emu_status emu_parse(struct emu_module *m, const char *ptx, size_t len,
                          struct emu_error *err);
void emu_error_set(struct emu_error *err, enum emu_status st, const char *what, int line,
                   const char *file, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

#endif
