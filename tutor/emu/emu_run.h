/* emu_run.h — the state of one launch, shared by the interpreter
 * (emu_exec.c sets it up, emu_sched.c runs its blocks, emu_warp.c and
 * emu_sync.c their warps), its memory accesses (emu_access.c), hazard
 * shadows and error sentences (emu_shadow.c) and printf (emu_print.c).  Private to tutor/emu/. */
#ifndef EMU_RUN_H
#define EMU_RUN_H

#include <pthread.h>
#include <string.h>

#include "emu/emu_int.h"


/* CALL_DEPTH: calls a lane may be inside, recursion included (a GPU's
 * stack, 1 KiB a thread by default, holds about as many small frames). */
enum { NBAR = 16, CALL_DEPTH = 64 };

/* A lane's saved activations of functions it re-entered (emu_warp.c). */
struct lane_saves {
    uint8_t *bytes;
    size_t len, cap;
    uint64_t at;            /* bit d: an activation was saved when the lane entered depth d */
};

/* One register's definedness in a frame (emu_undef.c): the lanes whose
 * value is undefined, and where that value came from. */
struct uslot {
    uint64_t origin;
    uint32_t lanes;
};

/* An origin: what made a value undefined (its kind), where (the
 * instruction), and for a shared word its offset (18 bits hold every
 * offset an SM has) and, for a word of another block of the cluster, 1 +
 * that block's rank. */
enum { ORIG_NONE, ORIG_REG, ORIG_SHARED, ORIG_SHFL };
#define ORIGIN(kind, off, pc) ((uint64_t)(kind) << 60 | (uint64_t)(off) << 32 | (uint32_t)(pc))
static inline uint64_t emu_origin_shared(uint32_t off, uint32_t other_rank1, int pc)
{
    return ORIGIN(ORIG_SHARED, (off & 0x3ffffu) | (other_rank1 & 0x3ffu) << 18, pc);
}

/* A warp: its lanes' registers (slot-major), PCs and states. */
struct warp {
    uint64_t *R;
    struct uslot *U;        /* the running frame's definedness (hazards only) */
    uint32_t carry[32];
    uint32_t pc[32];        /* each lane's PC, while the warp is not converged */
    uint32_t upc;           /* the PC of every lane, while it is (uni) */
    int uni;
    /* while it is not: where its next step runs, known without a look at
     * every lane's PC when its last step moved the lanes at the lowest PC
     * one on and nothing else changed (emu_warp.c); REST is the lowest
     * PC above theirs that a lane able to run, or waiting at a .sync
     * operation, is at */
    int hint;
    uint32_t hint_pc, hint_mask, hint_run, hint_wsync, hint_rest;
    uint32_t live;          /* lanes that are threads of the block */
    uint32_t exited;
    uint32_t at_bar;        /* waiting at a block barrier */
    int bar_whole;          /* every lane arrived at it in one step: released, they run converged */
    uint32_t wsync;         /* waiting for the lanes a .sync warp op names */
    uint32_t wsync_need;    /* the lanes those wait for */
    int index;              /* in the block */
    uint64_t cycles;
    uint32_t wepoch;        /* .sync warp operations so far (hazard ordering) */
    uint32_t steps;
    uint8_t *scratch;       /* call parameters: SCRATCH_BYTES per lane */
    uint8_t *local;         /* local memory: local_bytes per lane */
    uint32_t bar_wait[NBAR];    /* the lanes waiting at each barrier */
    uint64_t **frames;      /* each function's registers (slot-major), NULL until called */
    struct uslot **uframes; /* their definedness, with hazards tracked */
    uint8_t depth[32];      /* calls each lane is inside */
    uint32_t (*ret_pc)[CALL_DEPTH]; /* each lane's return PCs, NULL until a lane calls */
    /* a spin-wait: the flag it polls (host memory), what it read, how
     * often in a row */
    const uint8_t *spin_at;
    uint64_t spin_val;
    uint32_t spin_bytes, spin_count;
    int yield;              /* it polls a flag nobody has changed: it waits until one does */
    /* lanes that went on past an aligned barrier other lanes of the warp
     * wait at (bar_away_pc); each must come to it, not exit or reach
     * another barrier (emu_bar_divergence) */
    uint32_t bar_away, bar_away_pc;
    int bar_away_waiter;
    struct async_lane *async;   /* cp.async's copies in flight, per lane (emu_async.c) */
    struct lane_saves *saves;   /* per lane, for recursion; NULL until a lane recurses */
};

/* One access of a shared word as its shadow keeps it: the thread and its
 * block's rank in the cluster (who: tid | rank << 16; a block has at most
 * 1024 threads, a cluster 16 blocks), the instruction, and what orders it
 * within the block (its barrier epoch, its warp's .sync epoch).  Its
 * mbarrier clock and cluster arrivals, which only blocks with mbarriers or
 * cluster barriers have, live in the side table (struct shadow_cold). */
struct shadow_rec {
    uint32_t who, pc, epoch, wep;
};
#define SHADOW_WHO(tid, rank) ((uint32_t)(tid) | (uint32_t)(rank) << 16)
#define SHADOW_TID(who) ((who) & 0xffffu)
#define SHADOW_RANK(who) ((who) >> 16)

/* What a shared word last saw (hazard tracking): its last write, its last
 * read, and the read before that by another thread.  64 bytes, one cache
 * line: a resident block's shadows are walked on every shared access, and
 * a window of blocks' worth stays in the core's caches only this small. */
struct shadow {
    uint32_t gen;           /* the block it belongs to; another block's is empty */
    uint8_t written, watomic, read, read2;
    uint8_t defined;        /* its value is defined: a defined value stored, or exchanged in */
    uint8_t pending;        /* a cp.async not yet waited for fills it */
    uint8_t cold;           /* which of w, r, r2 (bits 0-2) have a clock or arrivals in the
                               side table, and (bit 3) an undefined value's origin; 0: none */
    uint8_t unused;
    uint32_t wstep;         /* the write's warp step (the lanes of one store) */
    struct shadow_rec w, r, r2;
};
enum { SHADOW_COLD_ORIGIN = 8 };

/* A shared word's rarely needed facts, beside struct shadow: each record's
 * mbarrier clock and cluster arrivals (0 where its bit is clear), where an
 * undefined value stored to it came from, and the cp.async filling it. */
struct shadow_cold {
    uint32_t clk[3], carr[3];
    uint64_t uorigin;       /* emu_undef.c */
    uint32_t ptid, ppc;     /* that copy's thread and instruction */
};

/* A global word's shadow: 32 bytes, so that a page of them is 32 KiB
 * and a launch's first touches of its pages stay few. */
struct gshadow {
    uint32_t rblock, rpc;   /* the last plain read's block + 1 (0: none) and instruction */
    uint32_t rrel;          /* that block's releases before the read */
    uint32_t block, tid, pc;
    uint32_t rel;           /* its block's releases before the store */
    uint8_t seen;           /* accessed in this launch (else all of it is 0) */
    uint8_t stored;         /* a plain or strong store is recorded (block, tid, pc, ...) */
    uint8_t weak;           /* a plain store (not volatile, relaxed, release) */
    uint8_t published;      /* its block has released since (it stays so) */
};
_Static_assert(sizeof(struct gshadow) == 32, "a global word's shadow is 32 bytes");

/* A page of the global shadow: GH_PAGE consecutive words' shadows, its
 * key the page's number + 1 (0: an empty slot of the table). */
enum { GH_PAGE = 1024 };
struct gh_page {
    uint64_t key;
    struct gshadow *words;
};

/* What the host threads of one launch share (emu_sched.c): the next block
 * to start, the first failing one and its error, the budget not yet
 * handed out. */
struct pool {
    pthread_mutex_t lock;
    uint64_t next, stop;    /* stop: the lowest failed block, else the grid's size */
    struct emu_error err;
    enum emu_status st;
    uint64_t budget;
};

/* A resident block: its threads, shared memory and barriers, and the
 * releases and plain global stores the hazard shadow needs. */
struct cta {
    uint64_t index;                         /* linear, in the grid */
    int active;                             /* holds a block that has not ended */
    int ran, progressed;                    /* this round: a warp could run, one did */
    unsigned ctaid[3];
    uint8_t *smem;
    struct warp *warps;
    uint32_t bar_count[NBAR], bar_expect[NBAR];
    uint32_t bar_red[NBAR];
    const struct emu_insn *bar_insn[NBAR];
    uint32_t bar_pc[NBAR];                  /* where the barrier's first thread arrived */
    uint32_t live_threads;                  /* not exited */
    uint32_t epoch;                         /* barriers completed in this block */
    int pace;                               /* its quanta's multiple (1 to 8), drawn when it starts */
    uint64_t base_cycles;                   /* %clock64 when it started */
    /* hazards */
    struct shadow *sh;
    struct shadow_cold *shc;    /* beside sh, word for word */
    uint32_t gen;
    uint32_t blk_release, blk_acquire;      /* its fences and release/acquire ops */
    int sig_seen;                           /* it has read a flag: a strong load or an atomic */
    uint32_t acq_after_sig;                 /* its acquires (fences included) since then */
    /* mbarriers (emu_mbar.c): each thread's clock, which orders its shared
     * accesses before another's that waited on a phase it arrived at, and
     * each mbarrier's clocks per phase */
    uint32_t *mbclk;
    struct mbar_side *mb;
    int nmb, capmb;
    /* its cluster (emu_cluster.c): its rank, the window's slots of the
     * cluster from FIRST on, the cluster's barrier, and each thread's
     * arrivals at it and waits on it that passed */
    uint32_t rank;
    struct cta *first;
    struct cluster_bar *cbar;
    uint32_t *carr, *cwait;
    uint8_t carr_any;       /* a thread arrived: carr and cwait are not all 0 */
};

/* A cluster's barrier: arrivals in the open phase, phases completed. */
struct cluster_bar {
    uint32_t arrived, phases;
};

/* The distinct 32-byte sectors a launch touched (emu_count.c): pages of
 * a bitmap by page number, the last one used at hand. */
struct emu_sector_page {
    uint64_t key;
    uint64_t *bits;
};
struct emu_sectors {
    struct emu_sector_page *pages;
    size_t cap, used;
    uint64_t count;
    uint64_t last_key, *last;
};

/* The updates each global word took from atomics in a launch (emu_count.c):
 * an open-addressed table of HOT_WORDS entries, allocated at the first. */
enum { HOT_WORDS = 4096 };
struct emu_hot {
    uint64_t *addr;         /* word address + 1; 0: empty */
    uint64_t *updates;
};

/* One host thread's launch: the launch's constants, its window of
 * resident blocks, the global shadow, the budget and counters. */
struct run {
    struct emu *e;
    const struct emu_module *m;
    const struct emu_func *f;
    int fn;                 /* the kernel's function index */
    const struct emu_insn *code;
    struct emu_error *err;
    enum emu_status st;
    unsigned grid[3], block[3];
    uint32_t nthreads, nwarps;
    uint64_t nblocks;
    uint8_t *params;
    uint32_t param_bytes;
    uint32_t smem_bytes, dyn_smem;
    uint32_t local_bytes;   /* a thread's local memory: the kernel's regions */
    const struct emu_lregion *lreg;
    int nlreg;
    struct cta *cta;        /* the block whose warp runs now */
    struct cta *ctas;       /* the window: blocks resident at once */
    uint64_t *frame_buf;    /* their kernel's register frames, unless the emulator's kept ones */
    uint32_t nctas;
    /* hazards */
    int hazards;
    uint32_t sh_words;
    /* one shared access's words (bit i: the access's i-th word) that a
     * store leaves undefined, set before emu_resolve, and that a load or
     * atomic found undefined, set by it; the origin of the first such */
    uint32_t st_undef, ld_undef;
    uint64_t st_origin, ld_origin;
    /* the global shadow (emu_shadow.c): pages of words by page number,
     * open-addressed, the last page used at hand */
    struct gh_page *gh;
    size_t gh_cap, gh_used;
    uint64_t gh_last_key, gh_miss_key;  /* the last page found, the last one not there */
    struct gshadow *gh_last;
    uint32_t *ended_rel;            /* per block of the grid: 1 + its releases, once ended */
    uint64_t nended_rel;
    uint64_t rng;
    int budget_on;
    uint64_t budget_left;           /* this thread's share of the budget */
    struct pool *pool;              /* NULL when the launch has one thread */
    struct emu_stats stats;
    struct emu_counters cnt;        /* emu_count.c: this launch's, on this host thread */
    struct emu_sectors cnt_rd, cnt_wr;
    struct emu_hot hot;
    int mem_last;                   /* emu_mem_find's cache */
    uint64_t clock;                 /* %clock64 at which the next block starts */
    uint64_t gridid;                /* %gridid: the launch's number */
    uint64_t grid_ws;               /* a cooperative launch's grid workspace (%envreg1:2); 0: none */
    int ws_missing;                 /* the kernel reads that address and has none: its trap is
                                       this_grid().sync()'s */
    uint64_t printed;               /* bytes printf printed in this launch (emu_print.c) */
    uint32_t cl[3], clsize;         /* the cluster's shape (1,1,1 without clusters), blocks */
    struct cluster_bar *cbars;      /* one per cluster the window holds */
};

/* Where BYTES at ADDR of the module's local space lie in a thread's local
 * memory in this launch, or -1 where they are not all in one place of a
 * function its kernel can run. */
static inline int64_t emu_local_at(const struct run *r, uint64_t addr, uint32_t bytes)
{
    for (int i = 0; i < r->nlreg; i++) {
        const struct emu_lregion *g = &r->lreg[i];
        if (addr >= g->base && addr + bytes <= g->end && addr + bytes >= addr)
            return (int64_t)(addr - g->base + g->at);
    }
    return -1;
}

/* An acquire by the running block (a fence, or an acquire load or
 * atomic): it orders the reads after it behind the flags read before. */
static inline void emu_cta_acquire(struct cta *c)
{
    c->blk_acquire++;
    if (c->sig_seen)
        c->acq_after_sig++;
}

/* A poll of the flag at P (BYTES): the third read in a row of an
 * unchanged value makes the warp wait until the flag changes (the
 * scheduler, emu_sched.c), so the blocks it waits for run instead of its
 * spinning, and a look-back or ticket scheme advances within the budget
 * at every size. */
static inline void emu_spin_poll(struct warp *w, const uint8_t *p, uint32_t bytes)
{
    uint64_t v = 0;
    memcpy(&v, p, bytes > 8 ? 8 : bytes);
    if (w->spin_at == p && w->spin_val == v) {
        if (++w->spin_count >= 2)
            w->yield = 1;
        return;
    }
    w->spin_at = p;
    w->spin_val = v;
    w->spin_bytes = bytes > 8 ? 8 : bytes;
    w->spin_count = 0;
}

/* W found a barrier at P (BYTES) open that only other warps can close:
 * it waits until P changes, without polling first. */
static inline void emu_wait_on(struct warp *w, const uint8_t *p, uint32_t bytes)
{
    w->spin_at = p;
    w->spin_val = 0;
    w->spin_bytes = bytes > 8 ? 8 : bytes;
    memcpy(&w->spin_val, p, w->spin_bytes);
    w->spin_count = 0;
    w->yield = 1;
}

static inline uint32_t popc32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* emu_access.c */
/* The host pointer for lane L's access of BYTES at ADDR in SPACE (KIND:
 * ACC_*; VAL a store's bytes), checked and held to the hazard shadows;
 * NULL after reporting a fault or a hazard. */
uint8_t *emu_resolve(struct run *r, struct warp *w, int l, int pc, int space, uint64_t addr,
                     uint32_t bytes, int kind, const void *val);
int emu_ld_st(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc);
int emu_atom(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc);
int emu_cvta(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask);

/* isspacep.SPACE: whether each lane's generic address is in that window. */
void emu_isspacep(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask);
/* Copies BYTES at the generic address ADDR for lane L into OUT; 0 or -1. */
int emu_read_generic(struct run *r, struct warp *w, int lane, int pc, uint64_t addr, void *out,
                     size_t bytes);

/* emu_shadow.c */
/* "kernel.cu:31", or the instruction's index where the PTX has no lines. */
void emu_src_line(const struct run *r, int pc, char *out, size_t cap);
/* "thread 5 of block 3" for lane LANE of W. */
void emu_where(const struct run *r, const struct warp *w, int lane, int pc, char *out, size_t cap);
/* Ends the launch with EMU_FAULT: "<who> <what> (<file:line>)". */
int emu_fault(struct run *r, struct warp *w, int lane, int pc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Ends the launch with EMU_UNSUPPORTED: "needs a GPU: <what> (<file:line>)",
 * WHAT formatted from FMT; FORM names the construct in the error record. */
int emu_needs_gpu(struct run *r, int pc, const char *form, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Ends the launch with EMU_HAZARD: "<who> <what> (<file:line>)". */
int emu_hazard(struct run *r, struct warp *w, int lane, int pc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* ACC_EXCH: an atomic whose new value does not depend on the old one
 * (atomicExch), which leaves the word defined. */
enum { ACC_READ, ACC_WRITE, ACC_ATOMIC, ACC_EXCH };
/* A shared access (KIND) of BYTES at OFF of block TARGET (the running one,
 * or another of its cluster) by lane L of W, held to TARGET's shadow (VAL: a store's bytes, else NULL): 0, or -1 with
 * the hazard reported. */
int emu_shadow_shared(struct run *r, struct warp *w, int l, int pc, struct cta *target,
                      uint32_t off, uint32_t bytes, int kind, const void *val);
/* The accesses of the lanes of MASK, each of BYTES at OFF[lane] of the
 * running block, in lane order, all in its bounds and aligned: held to the
 * shadow as emu_shadow_shared holds one, and a store's value VAL[lane]
 * written as its lane is recorded (a later lane's same-value rule sees
 * it); a load's (VAL NULL) lanes that found a word undefined in *UNDEF,
 * the lowest one's origin in *ORIGIN.  0, or -1 with the hazard reported. */
int emu_shadow_shared_warp(struct run *r, struct warp *w, int pc, uint32_t mask, const uint32_t *off,
                           uint32_t bytes, int kind, uint64_t *val, uint32_t *undef, uint64_t *origin);
/* Whether any word of BYTES at shared OFF of the running block holds no
 * defined value (never stored, nor exchanged in). */
int emu_shadow_undefined(const struct run *r, uint32_t off, uint32_t bytes);
/* A cp.async by lane L of W at PC will fill BYTES at shared OFF: until
 * it is waited for, an access of those words is a hazard.  0, or -1 with
 * the hazard reported (the words are in use by another copy). */
int emu_shadow_pending(struct run *r, struct warp *w, int l, int pc, uint32_t off, uint32_t bytes);
/* The copy that was filling BYTES at shared OFF has landed. */
void emu_shadow_filled(struct run *r, uint32_t off, uint32_t bytes);
/* A plain (not atomic) global store, and a plain global load, held to the
 * launch's global shadow (a load RECORDed, so that a later store of
 * another block can be held to it: not an input's): 0, or -1 with the
 * hazard reported. */
int emu_shadow_store(struct run *r, struct warp *w, int l, int pc, uint64_t addr, uint32_t bytes);
int emu_shadow_load(struct run *r, struct warp *w, int l, int pc, uint64_t addr, uint32_t bytes,
                    int record);
/* emu_shadow_load for the lanes of MASK, each at its BASE + OFF, all
 * within [LO, HI + BYTES). */
int emu_shadow_load_lanes(struct run *r, struct warp *w, int pc, uint32_t mask, const uint64_t *base,
                          uint64_t off, uint32_t bytes, uint64_t lo, uint64_t hi, int record);
/* At the running block's end: its releases are kept, against which its
 * plain stores are held from now on.  0, or -1 out of memory. */
int emu_shadow_block_end(struct run *r);
/* The global words of [ADDR, ADDR + BYTES) start again with no access
 * recorded: a block device malloc hands out is fresh memory, whatever its
 * words held before they were freed (the allocator orders the two, as on
 * a GPU). */
void emu_shadow_forget(struct run *r, uint64_t addr, uint64_t bytes);
/* Frees the launch's global shadow. */
void emu_shadow_free(struct run *r);

/* The element of the .shared variable that holds OFF, accessed ELEM
 * bytes at a time ("sdata[2]"), or its offset. */
void emu_shared_place(const struct run *r, uint32_t off, uint32_t elem, char *out, size_t cap);

/* emu_sched.c */
/* Blocks of NWARPS warps and SMEM_BYTES of shared memory one SM of the
 * H100 holds at once (its blocks, warps and shared memory). */
uint32_t emu_sched_per_sm(const struct emu *e, uint32_t nwarps, uint32_t smem_bytes);
/* Blocks resident at once on one host thread for a launch of NWARPS warps
 * and SMEM_BYTES of shared memory a block: the configured window, else
 * what one SM of the H100 holds; never more than NBLOCKS, never 0. */
uint32_t emu_sched_window(const struct emu *e, uint32_t nwarps, uint32_t smem_bytes,
                          uint64_t nblocks);
/* Runs the grid of the set-up launch T on THREADS host threads (1: the
 * caller's), each with a window of T->nctas resident blocks.  EMU_OK, or
 * the first failing block's status with its error in ERR. */
enum emu_status emu_sched_run(struct run *t, const struct emu_kernel *k, int scratch_used,
                              int threads, struct emu_error *err);

/* emu_coop.c */
/* A cooperative launch R: refused (EMU_FAULT, in R's error) when its grid
 * is larger than the emulated GPU holds at once, as the driver refuses
 * it; else every block resident on one host thread (*THREADS, R->nctas)
 * and a zeroed grid workspace mapped for %envreg1:%envreg2.  EMU_OK. */
enum emu_status emu_coop_begin(struct run *r, int *threads);
/* Unmaps and frees R's grid workspace, if it has one. */
void emu_coop_end(struct run *r);
/* Whether R's module reads the grid workspace's address (%envreg1 or 2):
 * in a launch that has none, cooperative_groups traps there. */
int emu_coop_reads_workspace(const struct run *r);

/* emu_warp.c */
/* Runs up to QUANTUM instructions of W, one at a time, until it waits on
 * a flag (w->yield): 1, 0 when no lane can run, -1 on an error (in
 * r->err); *RAN set when one ran. */
int emu_warp_run(struct run *r, struct warp *w, int quantum, int *ran);
/* Gives every instruction of M its class's step (once, at load). */
void emu_warp_bind(struct emu_module *m);

/* emu_frame.c */
/* Junk in function FN's frame R, drawn from SALT and the launch's seed. */
void emu_frame_junk(const struct run *r, int fn, uint64_t *R, uint64_t salt);
/* The registers of function FN's frame R that hold constants (once a launch). */
void emu_frame_constants(const struct run *r, int fn, uint64_t *R);
/* The special registers of every frame W has (once a block). */
void emu_warp_sregs(const struct run *r, struct warp *w);
/* W's frame of function FN, made the first time the warp calls it; 0, or
 * -1 out of memory (reported). */
int emu_frame_of(struct run *r, struct warp *w, int fn);
/* Lane L of W enters FN again (recursion): its activation of FN saved
 * first; 0 or -1 out of memory. */
int emu_frame_save(struct run *r, struct warp *w, int l, int fn);
/* Lane L returns from depth D of FN: the activation saved on entering it
 * comes back. */
void emu_frame_restore(struct run *r, struct warp *w, int l, int fn, int d);

/* emu_sync.c */
void emu_barriers_check(struct run *r);
/* Whether the barriers at PC and OTHER are one barrier of the source. */
int emu_same_barrier(const struct run *r, uint32_t pc, uint32_t other);
/* An aligned barrier at PC reached by the lanes of EMASK of MASK: lanes of
 * the warp elsewhere are held to come to it; one that reached another
 * barrier is a hazard.  0, or -1 (reported). */
int emu_bar_divergence(struct run *r, struct warp *w, uint32_t mask, uint32_t emask, int pc);
/* LANES of W leave (exit) at PC: one that went past the barrier its warp
 * waits at is a hazard.  0, or -1 (reported). */
int emu_bar_leaving(struct run *r, struct warp *w, uint32_t lanes, int pc);
int emu_bar_arrive(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                   uint32_t emask, int pc, int wait);
/* Whether every lane MEMBERS names is among EMASK: 1 (go on), 0 (the lanes
 * of MASK wait for the rest), -1 (a named lane exited or skips it). */
int emu_warp_gather(struct run *r, struct warp *w, uint32_t mask, uint32_t emask,
                    uint32_t members, int pc);
/* FROM (or NULL): each lane's source lane, 0xff where it took no value. */
int emu_shfl(struct warp *w, const struct emu_insn *in, uint32_t emask, uint8_t *from);
int emu_vote(struct warp *w, const struct emu_insn *in, uint32_t emask);
/* 0, or -1 for a reduction this file does not know. */
int emu_redux(struct warp *w, const struct emu_insn *in, uint32_t emask);
void emu_match(struct warp *w, const struct emu_insn *in, uint32_t emask);
void emu_elect(struct warp *w, const struct emu_insn *in, uint32_t emask);

/* emu_async.c */
/* cp.async, cp.async.commit_group, cp.async.wait_group/wait_all by the
 * lanes of MASK; 0 or -1 (reported). */
int emu_async(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc);
/* Drops W's copies in flight (a block starts, or its memory is freed). */
void emu_async_reset(struct warp *w);
/* Every copy lane L of W has in flight lands now, as its writes at PC
 * (cp.async.mbarrier.arrive); 0 or -1 (reported). */
int emu_async_land_all(struct run *r, struct warp *w, int l, int pc);

/* emu_mbar.c */
/* An mbarrier instruction (OP_MB_*, OP_CP_MBAR) by the lanes of MASK; 0 or
 * -1 (reported). */
int emu_mbar(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc);

/* emu_cluster.c */
/* The block of the running one's cluster that shared-window offset *OFF
 * names (bits 18 and up: 0 the running block, else 1 + a rank), *OFF made
 * an offset in it; NULL after reporting a fault (no such block, or one
 * that has exited) for lane L of W at PC. */
struct cta *emu_cluster_target(struct run *r, struct warp *w, int l, int pc, uint64_t *off);
/* mapa, getctarank, barrier.cluster.arrive and .wait by the lanes of MASK
 * (EMASK those its guard lets run); like a class step (emu_warp.c), it
 * moves the lanes on itself: a wait holds the lanes whose phase is open. */
int emu_cluster_step(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                     uint32_t emask, uint32_t pc);
/* LANES of W exit: arrivals they made in the open phase no longer count,
 * and the phase completes if only they held it open. */
void emu_cluster_exit(struct run *r, struct warp *w, uint32_t lanes);

/* emu_trace.c: the trace hook's event for IN, before it runs (cfg.trace set) */
void emu_trace_step(struct run *r, const struct warp *w, const struct emu_insn *in, uint32_t mask,
                    uint32_t emask, uint32_t pc);

/* emu_count.c: the counters' events, each one line where it happens */
/* A load or store (MASK: the lanes its guard lets run), before it runs. */
void emu_count_mem(struct run *r, const struct warp *w, const struct emu_insn *in, uint32_t mask);
/* An atom or red, before it runs. */
void emu_count_atom(struct run *r, const struct warp *w, const struct emu_insn *in, uint32_t mask);
/* A branch of the lanes of MASK, EMASK of which take it. */
static inline void emu_count_branch(struct run *r, uint32_t mask, uint32_t emask)
{
    r->cnt.v[EMU_CNT_branches]++;
    r->cnt.v[EMU_CNT_div_branches] += emask && emask != mask;
}
/* A barrier the lanes of EMASK arrive at. */
static inline void emu_count_barrier(struct run *r, uint32_t emask)
{
    r->cnt.v[EMU_CNT_bar_warp]++;
    r->cnt.v[EMU_CNT_bar_thread] += popc32(emask);
}
/* A worker thread's run starts with nothing counted; at its end its
 * counts go into T's. */
void emu_count_fresh(struct run *worker);
void emu_count_merge(struct run *t, struct run *worker);
/* The launch has ended: its counts into the emulator's. */
void emu_count_end(struct run *r);

/* emu_print.c */
int emu_vprintf(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc);
/* malloc or free (IN) for each lane of MASK, in lane order: 0, or -1 with
 * the launch's error set (a free of what malloc did not hand out is a
 * fault; a request whose answer only a GPU knows needs a GPU). */
int emu_heap_call(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc);

#endif
