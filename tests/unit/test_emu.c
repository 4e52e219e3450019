/* test_emu.c — the PTX emulator (tutor/emu/emu.h) on hand-written PTX:
 * control flow and reconvergence, barriers, shuffles, votes, atomics,
 * checked memory, hazards, the budget, what it refuses to parse, printf.
 * Every kernel's expected output is computed here from its definition,
 * never copied from a run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu/emu.h"
#include "emu_fixture.h"
#include "tap.h"

#define HEAD ".version 9.0\n.target sm_90\n.address_size 64\n"

static char printed[4096];
static size_t nprinted;

static void print_cb(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    if (len > sizeof printed - 1 - nprinted)
        len = sizeof printed - 1 - nprinted;
    memcpy(printed + nprinted, text, len);
    nprinted += len;
    printed[nprinted] = 0;
}

static enum emu_status load(struct fx *f, const char *ptx, int hazards)
{
    struct emu_config cfg = {.seed = 7, .hazards = hazards, .budget = 1u << 24, .print = print_cb};
    return fx_load(f, ptx, &cfg);
}

/* Launches the module's first kernel with one pointer argument (and an
 * optional second) over GRID blocks of BLOCK threads. */
static enum emu_status launch2(struct fx *f, unsigned grid, unsigned block, void *p0, void *p1)
{
    const struct emu_kernel *k = emu_module_kernel_at(f->m, 0);
    if (!k)
        return EMU_PARSE;
    void *args[2] = {&p0, &p1};
    struct emu_launch l = {.grid = {grid, 1, 1}, .block = {block, 1, 1}, .args = args};
    return emu_launch(f->e, k, &l, &f->err);
}

/* ---- control flow ---------------------------------------------------------- */

static const char *diverge_ptx = HEAD
    ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
    "  .reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  and.b32 %r2, %r1, 1;\n"
    "  setp.eq.u32 %p1, %r2, 0;\n"
    "  @%p1 bra $EVEN;\n"
    "  mul.lo.u32 %r3, %r1, 3;\n"
    "  bra.uni $JOIN;\n"
    "$EVEN:\n"
    "  mul.lo.u32 %r3, %r1, 2;\n"
    "$JOIN:\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r3;\n"
    "  ret;\n}\n";

/* Odd lanes take one path, even lanes the other, and the warp runs the
 * join once: 5 instructions before the branch, 2 + 1 on the two paths, 4
 * after (twice that if the paths never reconverged). */
static void divergence_reconverges(void)
{
    struct fx f;
    EXPECT(load(&f, diverge_ptx, 1) == EMU_OK);
    unsigned out[32];
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 32; i++)
        EXPECT(out[i] == (i & 1 ? 3 * i : 2 * i));
    struct emu_stats s;
    emu_stats(f.e, &s);
    EXPECT(s.warp_instructions == 5 + 2 + 1 + 4);
    EXPECT(s.thread_instructions == 32 * 5 + 16 * 2 + 16 + 32 * 4);
    fx_done(&f);
}

/* A loop whose trip count differs per lane: lane i adds 1 i times. */
static void per_lane_loop(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  mov.u32 %r2, 0;\n"
        "  mov.u32 %r3, 0;\n"
        "$LOOP:\n"
        "  setp.ge.u32 %p1, %r3, %r1;\n"
        "  @%p1 bra $DONE;\n"
        "  add.s32 %r2, %r2, 1;\n"
        "  add.s32 %r3, %r3, 1;\n"
        "  bra.uni $LOOP;\n"
        "$DONE:\n"
        "  mul.wide.u32 %rd2, %r1, 4;\n"
        "  add.s64 %rd3, %rd1, %rd2;\n"
        "  st.global.u32 [%rd3], %r2;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    unsigned out[40];
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 40, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 40; i++)
        EXPECT(out[i] == i);
    fx_done(&f);
}

/* ---- barriers and shared memory ------------------------------------------------ */

#define REVERSE_PTX(SYNC) HEAD \
    ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
    "  .reg .b32 %r<8>; .reg .b64 %rd<4>;\n" \
    "  .shared .align 4 .b8 _ZZ1kPjE3buf[256];\n" \
    "  ld.param.u64 %rd1, [out];\n" \
    "  mov.u32 %r1, %tid.x;\n" \
    "  shl.b32 %r2, %r1, 2;\n" \
    "  mov.u32 %r3, _ZZ1kPjE3buf;\n" \
    "  add.s32 %r4, %r3, %r2;\n" \
    "  st.shared.u32 [%r4], %r1;\n" \
    SYNC \
    "  sub.s32 %r5, 63, %r1;\n" \
    "  shl.b32 %r5, %r5, 2;\n" \
    "  add.s32 %r5, %r3, %r5;\n" \
    "  ld.shared.u32 %r6, [%r5];\n" \
    "  mul.wide.u32 %rd2, %r1, 4;\n" \
    "  add.s64 %rd3, %rd1, %rd2;\n" \
    "  st.global.u32 [%rd3], %r6;\n" \
    "  ret;\n}\n"

/* Two warps reverse 64 values through shared memory: right with the
 * barrier, a race without it. */
static void barrier_orders_block(void)
{
    const char *ptx = REVERSE_PTX("  bar.sync 0;\n");
    struct fx f;
    EXPECT(load(&f, ptx, 1) == EMU_OK);
    unsigned out[64];
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    if (f.err.status) printf("# %s\n", f.err.message);
    for (unsigned i = 0; i < 64; i++)
        EXPECT(out[i] == 63 - i);
    fx_done(&f);

    ptx = REVERSE_PTX("");
    EXPECT(load(&f, ptx, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_HAZARD);
    /* the word as the source names it: the element of the variable */
    EXPECT(strstr(f.err.message, " buf[") != NULL);
    fx_done(&f);
}

/* bar.red.popc counts a predicate over the block; a barrier some threads
 * never reach is a hazard, not a hang. */
static void barrier_reduction_and_deadlock(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<4>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  rem.u32 %r2, %r1, 3;\n"
        "  setp.eq.u32 %p1, %r2, 0;\n"
        "  bar.red.popc.u32 %r3, 0, %p1;\n"
        "  mul.wide.u32 %rd2, %r1, 4;\n"
        "  add.s64 %rd3, %rd1, %rd2;\n"
        "  st.global.u32 [%rd3], %r3;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    unsigned out[100];
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 100, out, NULL) == EMU_OK);
    unsigned want = 0;
    for (unsigned i = 0; i < 100; i++)
        want += i % 3 == 0;
    for (unsigned i = 0; i < 100; i++)
        EXPECT(out[i] == want);
    fx_done(&f);

    static const char *stuck = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<3>;\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  setp.lt.u32 %p1, %r1, 32;\n"
        "  @%p1 bra $A;\n"
        "  bar.sync 1, 64;\n"
        "  ret;\n"
        "$A:\n"
        "  bar.sync 0;\n"
        "  ret;\n}\n";
    EXPECT(load(&f, stuck, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 64, NULL, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "barrier") != NULL);
    fx_done(&f);
}

/* ---- warp operations ------------------------------------------------------------- */

static const char *shfl_ptx = HEAD
    ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
    "  .reg .pred %p<5>; .reg .b32 %r<16>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.lo.u32 %r2, %r1, 10;\n"
    "  shfl.sync.down.b32 %r3|%p1, %r2, 3, 31, -1;\n"
    "  shfl.sync.up.b32 %r4|%p2, %r2, 5, 0, -1;\n"
    "  shfl.sync.bfly.b32 %r5|%p3, %r2, 6, 31, -1;\n"
    "  shfl.sync.idx.b32 %r6|%p4, %r2, 9, 6175, -1;\n"   /* width 8: c = (24 << 8) | 31 */
    "  shfl.sync.down.b32 %r7, %r2, 2, 6175, -1;\n"
    "  selp.u32 %r8, 1, 0, %p1;\n"
    "  selp.u32 %r9, 1, 0, %p2;\n"
    "  mul.wide.u32 %rd2, %r1, 32;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};\n"
    "  st.global.v4.u32 [%rd3+16], {%r7, %r8, %r9, %r1};\n"
    "  ret;\n}\n";

/* The four shuffle modes, with the PTX ISA's clamp and segment rules. */
static void shuffles(void)
{
    struct fx f;
    EXPECT(load(&f, shfl_ptx, 1) == EMU_OK);
    unsigned out[32][8];
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 32; i++) {
        unsigned down = i + 3 <= 31 ? i + 3 : i;
        unsigned up = i >= 5 ? i - 5 : i;
        unsigned seg = i & ~7u;
        unsigned down8 = (i & 7) + 2 <= 7 ? i + 2 : i;
        EXPECT(out[i][0] == 10 * down);
        EXPECT(out[i][1] == 10 * up);
        EXPECT(out[i][2] == 10 * (i ^ 6));
        EXPECT(out[i][3] == 10 * (seg | (9 & 7)));
        EXPECT(out[i][4] == 10 * down8);
        EXPECT(out[i][5] == (i + 3 <= 31));
        EXPECT(out[i][6] == (i >= 5));
    }
    fx_done(&f);
}

/* A full mask naming lanes that have exited is legal (the guide: every
 * non-exited thread the mask names): the shuffle runs with the lanes that
 * are left, and a value read from an exited lane is undefined: dropped
 * (lane 15 selects 0 instead), it is no hazard; stored, it is. */
#define SHFL_EXITED_PTX(KEEP) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<4>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  setp.gt.u32 %p1, %r1, 15;\n" \
        "  @%p1 bra $END;\n" \
        "  shfl.sync.down.b32 %r2, %r1, 1, 31, -1;\n" \
        KEEP \
        "  vote.sync.ballot.b32 %r3, %p1, -1;\n" \
        "  mul.wide.u32 %rd2, %r1, 8;\n" \
        "  add.s64 %rd3, %rd1, %rd2;\n" \
        "  st.global.v2.u32 [%rd3], {%r2, %r3};\n" \
        "$END:\n" \
        "  ret;\n}\n"
static void shuffle_names_exited_lane(void)
{
    static const char *dropped = SHFL_EXITED_PTX("  setp.lt.u32 %p2, %r1, 15;\n"
                                                 "  selp.b32 %r2, %r2, 0, %p2;\n");
    static const char *stored = SHFL_EXITED_PTX("");
    struct fx f;
    unsigned out[16][2];
    EXPECT(load(&f, dropped, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 16; i++)
        EXPECT(out[i][0] == (i < 15 ? i + 1 : 0) && out[i][1] == 0);
    fx_done(&f);
    EXPECT(load(&f, stored, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "thread 15 of block 0 stores to d_out[30] a value that is "
                  "undefined") != NULL);
    EXPECT(strstr(f.err.message, "a lane which did not take part") != NULL);
    fx_done(&f);
}

/* Each calling lane must be named by its own mask: __shfl_down_sync(0xffff,
 * ...) called by all 32 lanes is undefined for lanes 16 to 31 (on a GPU it
 * usually works, so only this rule finds it). */
static void shuffle_caller_outside_mask(void)
{
#define HALF_MASK_PTX(MASK) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .b32 %r<4>;\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  shfl.sync.down.b32 %r2, %r1, 1, 31, " MASK ";\n" \
        "  ret;\n}\n"
    struct fx f;
    EXPECT(load(&f, HALF_MASK_PTX("0xffff"), 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "thread 16 of block 0") != NULL);
    EXPECT(strstr(f.err.message, "leaves out its own lane 16") != NULL);
    fx_done(&f);
    EXPECT(load(&f, HALF_MASK_PTX("0xffff"), 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 16, NULL, NULL) == EMU_OK);
    fx_done(&f);
}

static void votes(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<6>; .reg .b32 %r<10>; .reg .b64 %rd<4>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  and.b32 %r2, %r1, 1;\n"
        "  setp.ne.u32 %p1, %r2, 0;\n"
        "  setp.lt.u32 %p2, %r1, 100;\n"
        "  vote.sync.ballot.b32 %r3, %p1, -1;\n"
        "  vote.sync.any.pred %p3, %p1, -1;\n"
        "  vote.sync.all.pred %p4, %p2, -1;\n"
        "  vote.sync.uni.pred %p5, %p1, -1;\n"
        "  vote.sync.ballot.b32 %r8, !%p1, -1;\n"
        "  selp.u32 %r4, 1, 0, %p3;\n"
        "  selp.u32 %r5, 1, 0, %p4;\n"
        "  selp.u32 %r6, 1, 0, %p5;\n"
        "  redux.sync.add.u32 %r7, %r1, -1;\n"
        "  activemask.b32 %r9;\n"
        "  mul.wide.u32 %rd2, %r1, 32;\n"
        "  add.s64 %rd3, %rd1, %rd2;\n"
        "  st.global.v4.u32 [%rd3], {%r3, %r4, %r5, %r6};\n"
        "  st.global.v4.u32 [%rd3+16], {%r7, %r8, %r9, %r9};\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    unsigned out[32][8];
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 32; i++) {
        EXPECT(out[i][0] == 0xaaaaaaaau);
        EXPECT(out[i][1] == 1);
        EXPECT(out[i][2] == 1);
        EXPECT(out[i][3] == 0);
        EXPECT(out[i][4] == 31 * 32 / 2);
        EXPECT(out[i][5] == 0x55555555u);
        EXPECT(out[i][6] == 0xffffffffu);
    }
    fx_done(&f);
}

/* ---- atomics ------------------------------------------------------------------------ */

static void atomics(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 fout)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<10>; .reg .f32 %f<3>; .reg .b64 %rd<6>;\n"
        "  .shared .align 4 .u32 cnt;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  ld.param.u64 %rd2, [fout];\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  setp.ne.u32 %p1, %r1, 0;\n"
        "  @%p1 bra $W;\n"
        "  st.shared.u32 [cnt], 0;\n"
        "$W:\n"
        "  bar.sync 0;\n"
        "  atom.shared.add.u32 %r2, [cnt], 1;\n"
        "  atom.global.add.u32 %r3, [%rd1], 1;\n"
        "  atom.global.max.s32 %r4, [%rd1+4], %r1;\n"
        "  atom.global.min.u32 %r4, [%rd1+8], %r1;\n"
        "  atom.global.inc.u32 %r4, [%rd1+12], 9;\n"
        "  atom.global.cas.b32 %r5, [%rd1+16], %r1, 1000;\n"
        "  atom.global.exch.b32 %r6, [%rd1+20], %r1;\n"
        "  red.global.or.b32 [%rd1+24], %r1;\n"
        "  cvt.rn.f32.u32 %f1, %r1;\n"
        "  red.global.add.f32 [%rd2], %f1;\n"
        "  bar.sync 0;\n"
        "  @%p1 bra $E;\n"
        "  ld.shared.u32 %r7, [cnt];\n"
        "  atom.global.add.u32 %r8, [%rd1+28], %r7;\n"
        "$E:\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 1) == EMU_OK);
    unsigned out[8] = {0, 0, 0xffffffffu, 0, 0, 0, 0, 0};
    float fo[1] = {0};
    out[1] = (unsigned)-5;
    emu_mem_map(f.e, out, sizeof out, "d_out");
    emu_mem_map(f.e, fo, sizeof fo, "d_f");
    EXPECT(launch2(&f, 4, 64, out, fo) == EMU_OK);
    EXPECT(out[0] == 256);
    EXPECT(out[1] == 63);
    EXPECT(out[2] == 0);
    EXPECT(out[3] == 256 % 10);   /* inc wraps to 0 past 9 */
    EXPECT(out[4] == 1000);       /* only the thread 0 that found 0 swapped */
    EXPECT(out[5] < 64);
    EXPECT(out[6] == 63);
    EXPECT(out[7] == 4 * 64);
    EXPECT(fo[0] == 4.0f * (63 * 64 / 2));
    fx_done(&f);
}

/* Blocks on two host threads: the atomics are exact, the result is the
 * one thread's, and a fault is always the first failing block's. */
static void threads_run_blocks_side_by_side(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 lim)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .f32 %f<3>; .reg .b64 %rd<6>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  ld.param.u64 %rd2, [lim];\n"
        "  mov.u32 %r1, %ctaid.x;\n"
        "  cvt.u64.u32 %rd3, %r1;\n"
        "  setp.lt.u64 %p1, %rd3, %rd2;\n"
        "  @%p1 bra $OK;\n"
        "  st.global.u32 [0], 1;\n"
        "$OK:\n"
        "  atom.global.add.u32 %r2, [%rd1], 1;\n"
        "  atom.global.max.u32 %r3, [%rd1+4], %r1;\n"
        "  mov.f32 %f1, 0f3F800000;\n"
        "  atom.global.add.f32 %f2, [%rd1+8], %f1;\n"
        "  atom.global.add.u64 %rd4, [%rd1+16], 3;\n"
        "  ret;\n}\n";
    struct emu_config cfg = {.seed = 3, .budget = 1u << 26, .threads = 2};
    struct emu *e = emu_new(&cfg);
    struct emu_module *m;
    struct emu_error err;
    EXPECT(emu_module_load(e, ptx, strlen(ptx), &m, &err) == EMU_OK);
    const struct emu_kernel *k = emu_module_kernel_at(m, 0);
    struct {
        unsigned count, max;
        float sum;
        unsigned pad;
        unsigned long long wide;
    } out;
    memset(&out, 0, sizeof out);
    emu_mem_map(e, &out, sizeof out, "d_out");
    void *po = &out;
    unsigned long long lim = 1u << 30;
    void *args[2] = {&po, &lim};
    struct emu_launch l = {.grid = {400, 1, 1}, .block = {64, 1, 1}, .args = args};
    EXPECT(emu_launch(e, k, &l, &err) == EMU_OK);
    EXPECT(out.count == 400 * 64 && out.max == 399 && out.sum == 400.0f * 64);
    EXPECT(out.wide == 3ull * 400 * 64);
    struct emu_stats st;
    emu_stats(e, &st);
    EXPECT(st.warp_instructions == 400u * 2 * 12);
    /* blocks 150 and up fault: the report names block 150, run after run,
     * whichever host thread or resident block failed first (which of its
     * warps faults first changes with each launch's interleaving) */
    lim = 150;
    for (int i = 0; i < 5; i++) {
        EXPECT(emu_launch(e, k, &l, &err) == EMU_FAULT);
        EXPECT(strstr(err.message, "of block 150 wrote 4 bytes at 0x0") != NULL);
    }
    emu_module_unload(m);
    emu_free(e);
}

/* ---- memory checks ------------------------------------------------------------------------ */

static const char *read_at_ptx = HEAD
    ".visible .entry k(.param .u64 in, .param .u64 off)\n{\n"
    "  .reg .b32 %r<3>; .reg .b64 %rd<5>;\n"
    "  .loc 1 31 5\n"
    "  ld.param.u64 %rd1, [in];\n"
    "  ld.param.u64 %rd2, [off];\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  ld.global.u32 %r1, [%rd3];\n"
    "  ret;\n}\n"
    ".file 1 \"/home/student/labs/01/kernel.cu\"\n";

/* A read past a buffer's end names the buffer, the offset, the thread and
 * the source line; a misaligned one is a fault too. */
static void out_of_bounds_names_buffer(void)
{
    struct fx f;
    EXPECT(load(&f, read_at_ptx, 0) == EMU_OK);
    static int in[1024];
    emu_mem_map(f.e, in, sizeof in, "d_in");
    const struct emu_kernel *k = emu_module_kernel_at(f.m, 0);
    void *p = in;
    unsigned long long off = 4096;
    void *args[2] = {&p, &off};
    struct emu_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .args = args};
    EXPECT(emu_launch(f.e, k, &l, &f.err) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "thread 0 of block 0 read 4 bytes at d_in + 4096, 0 bytes past its end") != NULL);
    EXPECT(strstr(f.err.message, "kernel.cu:31") != NULL);
    EXPECT(f.err.line == 31);
    EXPECT_STR(f.err.file, "kernel.cu");
    off = 4092;
    EXPECT(emu_launch(f.e, k, &l, &f.err) == EMU_OK);
    off = 2;
    EXPECT(emu_launch(f.e, k, &l, &f.err) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "misaligned") != NULL);
    fx_done(&f);
    /* inlined from CUDA's headers (__ldg and friends): the caller's line */
    static const char *inlined = HEAD
        ".visible .entry k(.param .u64 in, .param .u64 off)\n{\n"
        "  .reg .b32 %r<3>; .reg .b64 %rd<5>;\n"
        "  ld.param.u64 %rd1, [in];\n"
        "  ld.param.u64 %rd2, [off];\n"
        "  add.s64 %rd3, %rd1, %rd2;\n"
        "  .loc 2 119 3, function_name $L__info_string0, inlined_at 1 40 7\n"
        "  ld.global.nc.u32 %r1, [%rd3];\n"
        "  ret;\n}\n"
        ".file 1 \"/home/student/labs/01/kernel.cu\"\n"
        ".file 2 \"/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_32_intrinsics.hpp\"\n";
    EXPECT(load(&f, inlined, 0) == EMU_OK);
    emu_mem_map(f.e, in, sizeof in, "d_in");
    k = emu_module_kernel_at(f.m, 0);
    off = 4096;
    EXPECT(emu_launch(f.e, k, &l, &f.err) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "(kernel.cu:40)") != NULL);
    EXPECT(f.err.line == 40);
    /* unmapped: the same address is no longer an allocation */
    emu_mem_unmap(f.e, in);
    off = 0;
    EXPECT(emu_launch(f.e, k, &l, &f.err) == EMU_FAULT);
    fx_done(&f);
}

/* Shared memory past the block's bytes (static + dynamic) faults; the
 * dynamic array starts after the static ones. */
static void shared_bounds(void)
{
    static const char *ptx = HEAD
        ".extern .shared .align 16 .b8 dyn[];\n"
        ".visible .entry k(.param .u64 out, .param .u64 idx)\n{\n"
        "  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
        "  .shared .align 4 .b8 st[12];\n"
        "  ld.param.u64 %rd1, [idx];\n"
        "  cvt.u32.u64 %r1, %rd1;\n"
        "  mov.u32 %r2, dyn;\n"
        "  add.s32 %r3, %r2, %r1;\n"
        "  st.shared.u32 [%r3], 7;\n"
        "  ld.param.u64 %rd2, [out];\n"
        "  cvt.u64.u32 %rd3, %r2;\n"
        "  st.global.u64 [%rd2], %rd3;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    const struct emu_kernel *k = emu_module_kernel_at(f.m, 0);
    struct emu_kernel_info info;
    emu_kernel_info(k, &info);
    EXPECT(info.static_smem == 12);
    EXPECT(info.nparams == 2 && info.param_offset[1] == 8 && info.param_size[1] == 8);
    unsigned long long out = 0, idx = 60;
    void *po = &out;
    void *args[2] = {&po, &idx};
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    struct emu_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .dyn_smem = 64, .args = args};
    EXPECT(emu_launch(f.e, k, &l, &f.err) == EMU_OK);
    EXPECT(out == 16);
    idx = 64;
    EXPECT(emu_launch(f.e, k, &l, &f.err) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "shared") != NULL);
    fx_done(&f);
}

/* Generic addressing: a shared variable's generic address (cvta) reaches
 * the same bytes, and never a host address. */
static void generic_addresses(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .b32 %r<4>; .reg .b64 %rd<6>;\n"
        "  .shared .align 8 .b8 s[8];\n"
        "  .local .align 8 .b8 depot[16];\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u64 %rd2, s;\n"
        "  cvta.shared.u64 %rd3, %rd2;\n"
        "  st.u32 [%rd3], 41;\n"
        "  ld.shared.u32 %r1, [s];\n"
        "  mov.u64 %rd4, depot;\n"
        "  cvta.local.u64 %rd5, %rd4;\n"
        "  st.u32 [%rd5+4], %r1;\n"
        "  ld.local.u32 %r2, [depot+4];\n"
        "  add.s32 %r2, %r2, 1;\n"
        "  st.u32 [%rd1], %r2;\n"
        "  st.global.u64 [%rd1+8], %rd3;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    unsigned long long out[2] = {0, 0};
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 1, out, NULL) == EMU_OK);
    EXPECT((out[0] & 0xffffffffu) == 42);
    EXPECT(emu_mem_map(f.e, (void *)(uintptr_t)out[1], 8, "forged") == -1);
    fx_done(&f);
}

/* ---- hazards ----------------------------------------------------------------------------- */

/* The unrolled warp tail of lab 05 in PTX as nvcc writes it for volatile
 * accesses: lane i reads s[i + k] and writes s[i], step after step. */
#define TAIL_PTX(SYNC) HEAD \
    ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
    "  .reg .b32 %r<12>; .reg .b64 %rd<3>;\n" \
    "  .shared .align 4 .b8 s[256];\n" \
    "  mov.u32 %r1, %tid.x;\n" \
    "  shl.b32 %r2, %r1, 2;\n" \
    "  mov.u32 %r3, s;\n" \
    "  add.s32 %r4, %r3, %r2;\n" \
    "  st.volatile.shared.u32 [%r4], %r1;\n" \
    "  st.volatile.shared.u32 [%r4+128], %r1;\n" \
    SYNC \
    "  ld.volatile.shared.u32 %r5, [%r4+64];\n" \
    "  ld.volatile.shared.u32 %r6, [%r4];\n" \
    "  add.s32 %r7, %r6, %r5;\n" \
    SYNC \
    "  st.volatile.shared.u32 [%r4], %r7;\n" \
    SYNC \
    "  ld.volatile.shared.u32 %r8, [%r4+32];\n" \
    "  ld.volatile.shared.u32 %r9, [%r4];\n" \
    "  add.s32 %r10, %r9, %r8;\n" \
    SYNC \
    "  st.volatile.shared.u32 [%r4], %r10;\n" \
    "  ret;\n}\n"

static void volatile_tail_is_a_race(void)
{
    const char *racy = TAIL_PTX(""), *synced = TAIL_PTX("  bar.warp.sync -1;\n");
    struct fx f;
    EXPECT(load(&f, racy, 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "race on s[") != NULL);
    fx_done(&f);
    EXPECT(load(&f, synced, 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_OK);
    fx_done(&f);
    /* hazards off: the same racy kernel runs */
    EXPECT(load(&f, racy, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_OK);
    fx_done(&f);
}

/* __syncwarp() on both sides of a branch is one barrier (sm_70 and up):
 * lanes 0-15 write, both halves sync at their own bar.warp.sync, lanes
 * 16-31 read what the others wrote, with no hazard and the right values. */
static void warp_barrier_across_branches(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
        "  .shared .align 4 .b8 s[128];\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  shl.b32 %r2, %r1, 2;\n"
        "  mov.u32 %r3, s;\n"
        "  add.s32 %r4, %r3, %r2;\n"
        "  mov.u32 %r6, 0;\n"
        "  setp.lt.u32 %p1, %r1, 16;\n"
        "  @%p1 bra $LOW;\n"
        "  bar.warp.sync -1;\n"
        "  ld.shared.u32 %r6, [%r4+-64];\n"
        "  bra.uni $END;\n"
        "$LOW:\n"
        "  mul.lo.s32 %r5, %r1, 3;\n"
        "  st.shared.u32 [%r4], %r5;\n"
        "  bar.warp.sync -1;\n"
        "$END:\n"
        "  mul.wide.u32 %rd2, %r1, 4;\n"
        "  add.s64 %rd3, %rd1, %rd2;\n"
        "  st.global.u32 [%rd3], %r6;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 1) == EMU_OK);
    unsigned out[32];
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_OK);
    if (f.err.status)
        printf("# %s\n", f.err.message);
    for (unsigned i = 0; i < 32; i++)
        EXPECT(out[i] == (i < 16 ? 0 : 3 * (i - 16)));
    fx_done(&f);
}

/* Each thread reads the word of thread tid ^ 32: with 32 threads no one
 * stored it.  USE is what the thread does with the value (%r1). */
#define SHARED_READ_PTX(USE) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<4>;\n" \
        "  .shared .align 4 .b8 s[256];\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  mul.wide.u32 %rd2, %r1, 4;\n" \
        "  add.s64 %rd3, %rd1, %rd2;\n" \
        "  shl.b32 %r2, %r1, 2;\n" \
        "  mov.u32 %r3, s;\n" \
        "  add.s32 %r3, %r3, %r2;\n" \
        "  st.shared.u32 [%r3], %r1;\n" \
        "  bar.sync 0;\n" \
        "  xor.b32 %r2, %r2, 128;\n" \
        "  mov.u32 %r3, s;\n" \
        "  add.s32 %r3, %r3, %r2;\n" \
        "  ld.shared.u32 %r1, [%r3];\n" \
        USE \
        "  ret;\n}\n"

/* Reading shared memory no thread stored is no hazard by itself (its value
 * is junk, as on a GPU); the value becomes one where it is observable: a
 * global store, a branch, an address.  Computed on and dropped, or
 * selected away, it is none. */
static void uninitialised_shared_read(void)
{
    static const char *dropped = SHARED_READ_PTX("  add.s32 %r4, %r1, 1;\n");
    static const char *selected = SHARED_READ_PTX(
        "  mov.u32 %r4, %ntid.x;\n  setp.gt.u32 %p1, %r4, 32;\n"
        "  selp.b32 %r4, %r1, 7, %p1;\n  st.global.u32 [%rd3], %r4;\n");
    static const char *stored = SHARED_READ_PTX("  add.s32 %r4, %r1, 1;\n"
                                                "  st.global.u32 [%rd3], %r4;\n");
    static const char *branched = SHARED_READ_PTX("  setp.eq.u32 %p1, %r1, 0;\n"
                                                  "  @%p1 bra $L;\n$L:\n");
    static const char *address = SHARED_READ_PTX("  and.b32 %r1, %r1, 15;\n"
                                                 "  mul.wide.u32 %rd2, %r1, 4;\n"
                                                 "  add.s64 %rd3, %rd1, %rd2;\n"
                                                 "  st.global.u32 [%rd3], 1;\n");
    unsigned out[64];
    struct fx f;
    EXPECT(load(&f, dropped, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_OK);
    fx_done(&f);
    EXPECT(load(&f, selected, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_OK);
    EXPECT(out[3] == 7);
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    EXPECT(out[3] == 35);
    fx_done(&f);
    EXPECT(load(&f, stored, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    EXPECT(out[3] == 36);
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "thread 0 of block 0 stores to d_out[0] a value that is "
                  "undefined: it comes from s[32], which held no defined value when") != NULL);
    fx_done(&f);
    EXPECT(load(&f, branched, 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "branches on a value that is undefined") != NULL);
    fx_done(&f);
    EXPECT(load(&f, address, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "stores to an address made of a value that is undefined") != NULL);
    fx_done(&f);
}

/* A register read before anything was written to it (`int sum;` never
 * set): its value is junk, named where it is first read once it reaches
 * a store; an `and` with a defined 0, or an `or` of a defined true
 * predicate, is defined whatever the other operand holds. */
static void uninitialised_register(void)
{
#define UNSET_PTX(BODY) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<4>; .reg .b32 %r<6>; .reg .b64 %rd<4>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  mul.wide.u32 %rd2, %r1, 4;\n" \
        "  add.s64 %rd3, %rd1, %rd2;\n" \
        BODY \
        "  ret;\n}\n"
    static const char *sum = UNSET_PTX("  add.s32 %r3, %r2, %r1;\n"
                                       "  st.global.u32 [%rd3], %r3;\n");
    static const char *masked = UNSET_PTX("  and.b32 %r3, %r2, 0;\n"
                                          "  setp.lt.u32 %p1, %r1, 64;\n"
                                          "  setp.gt.u32 %p2, %r2, 5;\n"
                                          "  or.pred %p3, %p1, %p2;\n"
                                          "  @%p3 bra $L;\n$L:\n"
                                          "  st.global.u32 [%rd3], %r3;\n");
    static const char *either = UNSET_PTX("  setp.lt.u32 %p1, %r1, 16;\n"
                                          "  setp.gt.u32 %p2, %r2, 5;\n"
                                          "  and.pred %p3, %p1, %p2;\n"
                                          "  @%p3 bra $L;\n$L:\n");
    static const char *guarded = UNSET_PTX("  setp.gt.u32 %p1, %r2, 5;\n"
                                           "  @%p1 st.global.u32 [%rd3], %r1;\n");
    unsigned out[32];
    struct fx f;
    EXPECT(load(&f, guarded, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "guards an instruction with a value that is undefined") != NULL);
    fx_done(&f);
    EXPECT(load(&f, sum, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "it comes from a variable that PTX instruction") != NULL &&
           strstr(f.err.message, "read before anything was stored in it") != NULL);
    fx_done(&f);
    EXPECT(load(&f, masked, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_OK);
    EXPECT(out[31] == 0);
    fx_done(&f);
    /* lanes 0..15 and the junk decide; lanes 16..31 have a defined false */
    EXPECT(load(&f, either, 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "thread 0 of block 0 branches on") != NULL);
    fx_done(&f);
#undef UNSET_PTX
}

/* One word of d_out written by thread 0 of each block (%p2: the block's
 * index is even). */
#define ONE_WORD_PTX2(WRITE) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<2>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  mov.u32 %r3, %ctaid.x;\n" \
        "  and.b32 %r3, %r3, 1;\n" \
        "  setp.eq.u32 %p2, %r3, 0;\n" \
        "  setp.ne.u32 %p1, %r1, 0;\n" \
        "  @%p1 bra $E;\n" \
        WRITE \
        "$E:\n" \
        "  ret;\n}\n"

/* `*out += s` from every block: a race between blocks; atomics are not. */
static void blocks_writing_one_word(void)
{
#define ONE_WORD_PTX(WRITE) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<2>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  setp.ne.u32 %p1, %r1, 0;\n" \
        "  @%p1 bra $E;\n" \
        WRITE \
        "$E:\n" \
        "  ret;\n}\n"
    const char *plain = ONE_WORD_PTX(
        "  ld.global.u32 %r2, [%rd1];\n  add.s32 %r2, %r2, 1;\n  st.global.u32 [%rd1], %r2;\n");
    const char *atomic = ONE_WORD_PTX("  red.global.add.u32 [%rd1], 1;\n");
    struct fx f;
    unsigned out = 0;
    EXPECT(load(&f, plain, 1) == EMU_OK);
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, &out, NULL) == EMU_OK);
    EXPECT(launch2(&f, 3, 32, &out, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "d_out + 0") != NULL);
    fx_done(&f);
    out = 0;
    EXPECT(load(&f, atomic, 1) == EMU_OK);
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    EXPECT(launch2(&f, 3, 32, &out, NULL) == EMU_OK);
    EXPECT(out == 3);
    fx_done(&f);
}

/* Lab 15's last block: each block stores its partial, takes a ticket, and
 * the last one reads every partial.  Without a fence on each side that is
 * a race; with membar.gl on both sides it is not. */
#define LAST_BLOCK_PTX(FENCE) LAST_BLOCK_PTX2(FENCE, FENCE)
#define LAST_BLOCK_PTX2(FENCE, RFENCE) LAST_BLOCK_PTX3(FENCE, "atom.global.add.u32", RFENCE)
#define LAST_BLOCK_PTX3(FENCE, TICKET, RFENCE) HEAD \
    ".visible .entry k(.param .u64 part, .param .u64 cnt)\n{\n" \
    "  .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<6>;\n" \
    "  ld.param.u64 %rd1, [part];\n" \
    "  ld.param.u64 %rd2, [cnt];\n" \
    "  mov.u32 %r1, %ctaid.x;\n" \
    "  mov.u32 %r2, %nctaid.x;\n" \
    "  mul.wide.u32 %rd3, %r1, 4;\n" \
    "  add.s64 %rd4, %rd1, %rd3;\n" \
    "  add.s32 %r3, %r1, 10;\n" \
    "  st.global.u32 [%rd4], %r3;\n" \
    FENCE \
    "  " TICKET " %r4, [%rd2], 1;\n" \
    "  add.s32 %r5, %r4, 1;\n" \
    "  setp.ne.u32 %p1, %r5, %r2;\n" \
    "  @%p1 bra $E;\n" \
    RFENCE \
    "  ld.global.u32 %r6, [%rd1];\n" \
    "  ld.global.u32 %r7, [%rd1+4];\n" \
    "$E:\n" \
    "  ret;\n}\n"

static void last_block_needs_fences(void)
{
    const char *bare = LAST_BLOCK_PTX(""), *fenced = LAST_BLOCK_PTX("  membar.gl;\n");
    struct fx f;
    unsigned part[4], cnt = 0;
    EXPECT(load(&f, bare, 1) == EMU_OK);
    emu_mem_map(f.e, part, sizeof part, "d_partials");
    emu_mem_map(f.e, &cnt, sizeof cnt, "d_count");
    EXPECT(launch2(&f, 4, 1, part, &cnt) == EMU_HAZARD);
    /* the last block to finish reads the first partial another block wrote */
    EXPECT(strstr(f.err.message, "race on d_partials + ") != NULL);
    EXPECT(strstr(f.err.message, "reads it") != NULL);
    EXPECT(strstr(f.err.message, "no fence between its store and its signal") != NULL);
    fx_done(&f);
    cnt = 0;
    EXPECT(load(&f, fenced, 1) == EMU_OK);
    emu_mem_map(f.e, part, sizeof part, "d_partials");
    emu_mem_map(f.e, &cnt, sizeof cnt, "d_count");
    EXPECT(launch2(&f, 4, 1, part, &cnt) == EMU_OK);
    EXPECT(cnt == 4 && part[0] == 10 && part[3] == 13);
    fx_done(&f);
}

/* The reader's fence must come after its ticket: one before it (the
 * writer's, reused) orders nothing the ticket tells, and the race is
 * named with the fence that is missing. */
static void last_block_fence_after_ticket(void)
{
    const char *early = LAST_BLOCK_PTX2("  membar.gl;\n", "");
    struct fx f;
    unsigned part[4], cnt = 0;
    EXPECT(load(&f, early, 1) == EMU_OK);
    emu_mem_map(f.e, part, sizeof part, "d_partials");
    emu_mem_map(f.e, &cnt, sizeof cnt, "d_count");
    EXPECT(launch2(&f, 4, 1, part, &cnt) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "after it read the signal") != NULL);
    fx_done(&f);
    /* the ticket itself as the acquire: atom.acq_rel (libcu++'s fetch_add) */
    const char *text = LAST_BLOCK_PTX3("  membar.gl;\n", "atom.add.acq_rel.gpu.u32", "");
    cnt = 0;
    EXPECT(load(&f, text, 1) == EMU_OK);
    emu_mem_map(f.e, part, sizeof part, "d_partials");
    emu_mem_map(f.e, &cnt, sizeof cnt, "d_count");
    EXPECT(launch2(&f, 4, 1, part, &cnt) == EMU_OK);
    fx_done(&f);
}

/* A barrier is every non-exited thread's, at one instruction: inside a
 * condition that differs between threads it is undefined (labs 01 and 03
 * warn of __syncthreads() inside if (tid % (2*s) == 0)), and two different
 * __syncthreads() met by different threads are too; an early return
 * before it is fine. */
static void barrier_in_divergent_code(void)
{
    /* for (s = 1; s < 32; s *= 2) if (tid % (2*s) == 0) { ...; bar.sync } */
    static const char *inside = HEAD
        ".file 1 \"kernel.cu\"\n"
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<3>; .reg .b32 %r<6>;\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  mov.u32 %r2, 1;\n"
        "$LOOP:\n"
        "  shl.b32 %r3, %r2, 1;\n"
        "  rem.u32 %r4, %r1, %r3;\n"
        "  setp.ne.u32 %p1, %r4, 0;\n"
        "  @%p1 bra $NEXT;\n"
        "  .loc 1 20 9\n"
        "  bar.sync 0;\n"
        "$NEXT:\n"
        "  .loc 1 18 5\n"
        "  mov.u32 %r2, %r3;\n"
        "  setp.lt.u32 %p2, %r2, 32;\n"
        "  @%p2 bra $LOOP;\n"
        "  ret;\n}\n";
    static const char *early_return = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<3>; .reg .b32 %r<6>;\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  setp.gt.u32 %p1, %r1, 40;\n"
        "  @%p1 bra $OUT;\n"
        "  bar.sync 0;\n"
        "  bar.sync 0;\n"
        "$OUT:\n"
        "  ret;\n}\n";
    /* if (tid < s) { ... } __syncthreads(); with the if's body placed
     * after the barrier, jumping back to it: every thread comes */
    static const char *body_after = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<3>; .reg .b32 %r<6>;\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  mov.u32 %r2, 32;\n"
        "$LOOP:\n"
        "  setp.lt.u32 %p1, %r1, %r2;\n"
        "  @%p1 bra $BODY;\n"
        "$BAR:\n"
        "  bar.sync 0;\n"
        "  shr.u32 %r2, %r2, 1;\n"
        "  setp.ne.u32 %p2, %r2, 0;\n"
        "  @%p2 bra $LOOP;\n"
        "  ret;\n"
        "$BODY:\n"
        "  add.s32 %r3, %r1, %r2;\n"
        "  bra.uni $BAR;\n}\n";
    static const char *two = HEAD
        ".file 1 \"kernel.cu\"\n"
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<3>; .reg .b32 %r<6>;\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  setp.gt.u32 %p1, %r1, 31;\n"
        "  @%p1 bra $ELSE;\n"
        "  .loc 1 7 5\n"
        "  bar.sync 0;\n"
        "  bra.uni $JOIN;\n"
        "$ELSE:\n"
        "  .loc 1 9 5\n"
        "  bar.sync 0;\n"
        "$JOIN:\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, inside, 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 64, NULL, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "went on past the __syncthreads() thread ") != NULL);
    EXPECT(strstr(f.err.message, "waits at (kernel.cu:20) and exits") != NULL);
    fx_done(&f);
    EXPECT(load(&f, inside, 0) == EMU_OK);      /* a rule of the hazard pass */
    EXPECT(launch2(&f, 1, 64, NULL, NULL) == EMU_OK);
    fx_done(&f);
    EXPECT(load(&f, early_return, 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 64, NULL, NULL) == EMU_OK);
    fx_done(&f);
    EXPECT(load(&f, body_after, 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 64, NULL, NULL) == EMU_OK);
    fx_done(&f);
    EXPECT(load(&f, two, 1) == EMU_OK);
    EXPECT(launch2(&f, 1, 64, NULL, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "kernel.cu:7") != NULL && strstr(f.err.message, "kernel.cu:9") != NULL);
    fx_done(&f);
}

/* Shared memory's definedness: atomicExch into a fresh word defines it, an
 * atomic add leaves it junk (its later read is the hazard), and threads
 * setting one flag to the value it holds do not race. */
static void shared_definedness(void)
{
#define FLAG_SHARED_PTX(FIRST, LATER) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<2>;\n" \
        "  .shared .align 4 .b32 flag;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  mov.u32 %r2, flag;\n" \
        FIRST \
        "  bar.sync 0;\n" \
        LATER \
        "  bar.sync 0;\n" \
        "  ld.shared.u32 %r4, [%r2];\n" \
        "  st.global.u32 [%rd1], %r4;\n" \
        "  ret;\n}\n"
    static const char *exch = FLAG_SHARED_PTX("  atom.shared.exch.b32 %r3, [%r2], 0;\n", "");
    static const char *add = FLAG_SHARED_PTX("  red.shared.add.u32 [%r2], 1;\n", "");
    static const char *same = FLAG_SHARED_PTX(
        "  setp.eq.u32 %p1, %r1, 0;\n  @%p1 st.shared.u32 [%r2], 0;\n",
        "  st.shared.u32 [%r2], 1;\n");
    static const char *differ = FLAG_SHARED_PTX(
        "  setp.eq.u32 %p1, %r1, 0;\n  @%p1 st.shared.u32 [%r2], 0;\n",
        "  st.shared.u32 [%r2], %r1;\n");
    struct fx f;
    unsigned out = 5;
    EXPECT(load(&f, exch, 1) == EMU_OK);
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, &out, NULL) == EMU_OK);
    EXPECT(out == 0);
    fx_done(&f);
    EXPECT(load(&f, add, 1) == EMU_OK);
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, &out, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "held no defined value") != NULL);
    fx_done(&f);
    EXPECT(load(&f, same, 1) == EMU_OK);
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, &out, NULL) == EMU_OK);
    EXPECT(out == 1);
    fx_done(&f);
    EXPECT(load(&f, differ, 1) == EMU_OK);
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, &out, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "race on flag[0]") != NULL);
    fx_done(&f);
}

/* Blocks setting one global flag with volatile (strong) stores do not
 * race: a pair of strong stores is no data race in the memory model. */
static void strong_stores_across_blocks(void)
{
    const char *vol = ONE_WORD_PTX2("  st.volatile.global.u32 [%rd1], 1;\n");
    const char *rel = ONE_WORD_PTX2("  st.release.gpu.global.u32 [%rd1], 1;\n");
    const char *mixed = ONE_WORD_PTX2("  @%p2 st.volatile.global.u32 [%rd1], 1;\n"
                                      "  @!%p2 st.global.u32 [%rd1], 1;\n");
    const char *texts[3] = {vol, rel, mixed};
    for (int i = 0; i < 3; i++) {
        struct fx f;
        unsigned out = 0;
        EXPECT(load(&f, texts[i], 1) == EMU_OK);
        emu_mem_map(f.e, &out, sizeof out, "d_out");
        EXPECT(launch2(&f, 4, 32, &out, NULL) == (i < 2 ? EMU_OK : EMU_HAZARD));
        fx_done(&f);
    }
}

/* cp.async lands when its thread waits for its group: wait_group 0 after
 * a commit brings every copy in; read before, a copy's destination is a
 * hazard naming the copy's line; wait_group 1 leaves the latest group in
 * flight. */
static void async_copies(void)
{
#define ASYNC_PTX(BEFORE, WAIT) HEAD \
        ".file 1 \"kernel.cu\"\n" \
        ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n" \
        "  .reg .b32 %r<8>; .reg .b64 %rd<8>;\n" \
        "  .shared .align 16 .b8 _ZZ1kPKiPiE3buf[256];\n" \
        "  ld.param.u64 %rd1, [in];\n" \
        "  ld.param.u64 %rd2, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  mul.wide.u32 %rd3, %r1, 4;\n" \
        "  add.s64 %rd4, %rd1, %rd3;\n" \
        "  add.s64 %rd5, %rd2, %rd3;\n" \
        "  mov.u32 %r2, _ZZ1kPKiPiE3buf;\n" \
        "  shl.b32 %r3, %r1, 2;\n" \
        "  add.s32 %r4, %r2, %r3;\n" \
        "  .loc 1 5 3\n" \
        "  cp.async.ca.shared.global [%r4], [%rd4], 4, 4;\n" \
        "  cp.async.commit_group;\n" \
        "  .loc 1 7 3\n" \
        "  cp.async.cg.shared.global [%r4+128], [%rd4+128], 4;\n" \
        "  cp.async.commit_group;\n" \
        BEFORE \
        "  " WAIT ";\n" \
        "  ld.shared.u32 %r5, [%r4];\n" \
        "  st.global.u32 [%rd5], %r5;\n" \
        "  ld.shared.u32 %r6, [%r4+128];\n" \
        "  st.global.u32 [%rd5+128], %r6;\n" \
        "  ret;\n}\n"
    static const char *good = ASYNC_PTX("", "cp.async.wait_group 0");
    static const char *all = ASYNC_PTX("", "cp.async.wait_all");
    static const char *early = ASYNC_PTX("  .loc 1 9 3\n  ld.shared.u32 %r7, [%r4];\n", "cp.async.wait_group 0");
    static const char *one = ASYNC_PTX("", "cp.async.wait_group 1");
    unsigned in[64], out[64];
    for (unsigned i = 0; i < 64; i++)
        in[i] = 1000 + i;
    const char *texts[2] = {good, all};
    for (int t = 0; t < 2; t++) {
        struct fx f;
        memset(out, 0, sizeof out);
        EXPECT(load(&f, texts[t], 1) == EMU_OK);
        emu_mem_map(f.e, in, sizeof in, "d_in");
        emu_mem_map(f.e, out, sizeof out, "d_out");
        EXPECT(launch2(&f, 1, 32, in, out) == EMU_OK);
        for (unsigned i = 0; i < 64; i++)
            EXPECT(out[i] == 1000 + i);
        fx_done(&f);
    }
    struct fx f;
    EXPECT(load(&f, early, 1) == EMU_OK);
    emu_mem_map(f.e, in, sizeof in, "d_in");
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, in, out) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "reads buf[") != NULL);
    EXPECT(strstr(f.err.message, "(kernel.cu:9) while a cp.async (kernel.cu:5) is still filling it") != NULL);
    fx_done(&f);
    EXPECT(load(&f, one, 1) == EMU_OK);
    emu_mem_map(f.e, in, sizeof in, "d_in");
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, in, out) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "cp.async (kernel.cu:7)") != NULL);
    fx_done(&f);
}

/* mbarrier: warp 0 stores and arrives, warp 1 waits (try_wait until the
 * phase completes) and reads what warp 0 stored: no race, the values
 * arrive.  Read without the wait, the same words are a race naming both
 * lines; more arrivals than the count allows are a fault; test_wait by
 * parity, pending_count and a transaction count complete phases as the
 * ISA says. */
static void mbarriers(void)
{
#define MB_PTX(WAIT) HEAD \
        ".file 1 \"kernel.cu\"\n" \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<4>; .reg .b32 %r<12>; .reg .b64 %rd<8>;\n" \
        "  .shared .align 8 .b8 _ZZ1kPiE3bar[8];\n" \
        "  .shared .align 4 .b8 _ZZ1kPiE3buf[128];\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  mov.u32 %r2, _ZZ1kPiE3bar;\n" \
        "  mov.u32 %r3, _ZZ1kPiE3buf;\n" \
        "  and.b32 %r4, %r1, 31;\n" \
        "  shl.b32 %r5, %r4, 2;\n" \
        "  add.s32 %r6, %r3, %r5;\n" \
        "  setp.ne.s32 %p1, %r1, 0;\n" \
        "  @%p1 bra $SET;\n" \
        "  mov.u32 %r7, 32;\n" \
        "  mbarrier.init.shared.b64 [%r2], %r7;\n" \
        "$SET:\n" \
        "  bar.sync 0;\n" \
        "  setp.ge.u32 %p2, %r1, 32;\n" \
        "  @%p2 bra $CONSUME;\n" \
        "  mul.lo.u32 %r8, %r1, 7;\n" \
        "  .loc 1 4 3\n" \
        "  st.shared.u32 [%r6], %r8;\n" \
        "  mbarrier.arrive.shared::cta.b64 %rd2, [%r2];\n" \
        "  ret;\n" \
        "$CONSUME:\n" \
        "  mov.u64 %rd3, 0;\n" \
        WAIT \
        "  .loc 1 9 3\n" \
        "  ld.shared.u32 %r9, [%r6];\n" \
        "  mul.wide.u32 %rd4, %r4, 4;\n" \
        "  add.s64 %rd5, %rd1, %rd4;\n" \
        "  st.global.u32 [%rd5], %r9;\n" \
        "  ret;\n}\n"
    static const char *good = MB_PTX(
        "$WAIT:\n"
        "  mbarrier.try_wait.parity.shared.b64 %p3, [%r2], %rd3;\n"
        "  @!%p3 bra $WAIT;\n");
    static const char *nowait = MB_PTX("");
    unsigned out[32];
    struct fx f;
    memset(out, 0, sizeof out);
    EXPECT(load(&f, good, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 32; i++)
        EXPECT(out[i] == 7 * i);
    fx_done(&f);
    EXPECT(load(&f, nowait, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "buf[") != NULL && strstr(f.err.message, "kernel.cu:4") &&
           strstr(f.err.message, "kernel.cu:9"));
    fx_done(&f);

    /* one thread: init 2; arrive (pending 1); pending_count of that state
     * is 2; test_wait on it is false; expect_tx 16, arrive: pending 0 but
     * 16 bytes due, still open; complete_tx 16 completes the phase:
     * test_wait by the first state's parity is now true.  Then an arrive
     * of 3 at a phase expecting 2 is a fault. */
    static const char *seq = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
        "  .shared .align 8 .b8 bar[8];\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, bar;\n"
        "  mbarrier.init.shared.b64 [%r1], 2;\n"
        "  mbarrier.arrive.shared.b64 %rd2, [%r1];\n"
        "  mbarrier.pending_count.b64 %r2, %rd2;\n"
        "  st.global.u32 [%rd1], %r2;\n"
        "  mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2;\n"
        "  selp.u32 %r3, 1, 0, %p1;\n"
        "  st.global.u32 [%rd1+4], %r3;\n"
        "  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 16;\n"
        "  mbarrier.arrive.shared.b64 %rd3, [%r1];\n"
        "  mbarrier.test_wait.shared.b64 %p2, [%r1], %rd2;\n"
        "  selp.u32 %r4, 1, 0, %p2;\n"
        "  st.global.u32 [%rd1+8], %r4;\n"
        "  mbarrier.complete_tx.shared::cta.b64 [%r1], 16;\n"
        "  mbarrier.test_wait.shared.b64 %p3, [%r1], %rd2;\n"
        "  selp.u32 %r5, 1, 0, %p3;\n"
        "  st.global.u32 [%rd1+12], %r5;\n"
        "  mbarrier.arrive.shared::cta.b64 %rd4, [%r1], 3;\n"
        "  ret;\n}\n";
    EXPECT(load(&f, seq, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    memset(out, 0xff, sizeof out);
    EXPECT(launch2(&f, 1, 1, out, NULL) == EMU_FAULT);
    EXPECT(out[0] == 2 && out[1] == 0 && out[2] == 0 && out[3] == 1);
    EXPECT(strstr(f.err.message, "arrives 3 times at an mbarrier whose phase waits for 2") != NULL);
    fx_done(&f);
}

/* Clusters: two blocks a cluster; each stores its rank + 10 in shared
 * memory, meets its partner at the cluster's barrier and reads the
 * partner's word through mapa and ld.shared::cluster: every block gets its
 * partner's value, and %cluster_nctarank is 2.  Without the barrier the
 * read is a race naming the partner's block; a grid of 3 blocks is not
 * whole clusters. */
static void clusters(void)
{
#define CL_PTX(SYNC) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n" \
        ".explicitcluster\n.reqnctapercluster 2, 1, 1\n{\n" \
        "  .reg .b32 %r<12>; .reg .b64 %rd<8>;\n" \
        "  .shared .align 4 .u32 w;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %cluster_ctarank;\n" \
        "  mov.u32 %r2, %cluster_nctarank;\n" \
        "  add.s32 %r3, %r1, 10;\n" \
        "  st.shared.u32 [w], %r3;\n" \
        SYNC \
        "  xor.b32 %r4, %r1, 1;\n" \
        "  mov.u32 %r5, w;\n" \
        "  mapa.shared::cluster.u32 %r6, %r5, %r4;\n" \
        "  ld.shared::cluster.u32 %r7, [%r6];\n" \
        "  mov.u32 %r8, %ctaid.x;\n" \
        "  mul.wide.u32 %rd2, %r8, 8;\n" \
        "  add.s64 %rd3, %rd1, %rd2;\n" \
        "  st.global.u32 [%rd3], %r7;\n" \
        "  st.global.u32 [%rd3+4], %r2;\n" \
        "  barrier.cluster.arrive;\n" \
        "  barrier.cluster.wait;\n" \
        "  ret;\n}\n"
    static const char *good = CL_PTX("  barrier.cluster.arrive.release.aligned;\n"
                                     "  barrier.cluster.wait.acquire.aligned;\n");
    static const char *nosync = CL_PTX("");
    unsigned out[8];
    struct fx f;
    memset(out, 0, sizeof out);
    EXPECT(load(&f, good, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 4, 32, out, NULL) == EMU_OK);
    for (unsigned b = 0; b < 4; b++)
        EXPECT(out[2 * b] == 10 + (b ^ 1) % 2 && out[2 * b + 1] == 2);
    EXPECT(launch2(&f, 3, 32, out, NULL) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "not a whole number of clusters") != NULL);
    fx_done(&f);
    EXPECT(load(&f, nosync, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 2, 32, out, NULL) == EMU_HAZARD);
    /* the partner's word is either not stored yet or stored unordered */
    EXPECT(strstr(f.err.message, "w[0] of block ") != NULL &&
           (strstr(f.err.message, "cluster barrier") || strstr(f.err.message, "no defined value")));
    fx_done(&f);
}

/* What the lab gives a buffer: a read past the n elements lent is a fault
 * naming the buffer though the allocation goes on; and reads of a buffer
 * the kernel writes are recorded: block 0 reads out[5] and then raises a
 * flag, block 1 waits for the flag and stores out[5].  Without fences the
 * read is not ordered before the store (a race naming both); with a fence
 * on each side it is.  A range never lent records no reads. */
static void lent_buffers(void)
{
#define WAR_PTX(FENCE0, FENCE1) HEAD \
        ".file 1 \"kernel.cu\"\n" \
        ".visible .entry k(.param .u64 out, .param .u64 flag)\n{\n" \
        "  .reg .pred %p<4>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  ld.param.u64 %rd2, [flag];\n" \
        "  mov.u32 %r1, %ctaid.x;\n" \
        "  mov.u32 %r2, %tid.x;\n" \
        "  setp.ne.s32 %p1, %r2, 0;\n" \
        "  @%p1 bra $END;\n" \
        "  setp.ne.s32 %p2, %r1, 0;\n" \
        "  @%p2 bra $WRITER;\n" \
        "  .loc 1 4 3\n" \
        "  ld.global.u32 %r3, [%rd1+20];\n" \
        "  st.global.u32 [%rd1], %r3;\n" \
        FENCE0 \
        "  atom.global.exch.b32 %r4, [%rd2], 1;\n" \
        "  bra $END;\n" \
        "$WRITER:\n" \
        "  ld.volatile.global.u32 %r5, [%rd2];\n" \
        "  setp.eq.s32 %p3, %r5, 0;\n" \
        "  @%p3 bra $WRITER;\n" \
        "  atom.global.or.b32 %r6, [%rd2], 0;\n" \
        FENCE1 \
        "  .loc 1 9 3\n" \
        "  st.global.u32 [%rd1+20], %r1;\n" \
        "$END:\n" \
        "  ret;\n}\n"
    static const char *racy = WAR_PTX("", "");
    static const char *fenced = WAR_PTX("  membar.gl;\n", "  membar.gl;\n");
    unsigned out[64], flag;
    struct fx f;
    for (int t = 0; t < 2; t++) {
        EXPECT(load(&f, t ? fenced : racy, 1) == EMU_OK);
        emu_mem_map(f.e, out, sizeof out, "d_out");
        emu_mem_map(f.e, &flag, sizeof flag, "d_scratch");
        memset(out, 0, sizeof out);
        flag = 0;
        /* never lent: no read is recorded, so even the racy one passes */
        EXPECT(launch2(&f, 2, 32, out, &flag) == EMU_OK);
        EXPECT(emu_mem_lend(f.e, out, 8 * sizeof *out, 0) == 0);
        flag = 0;
        EXPECT(launch2(&f, 2, 32, out, &flag) == (t ? EMU_OK : EMU_HAZARD));
        if (!t)
            EXPECT(strstr(f.err.message, "block 0 read it (kernel.cu:4)") &&
                   strstr(f.err.message, "(kernel.cu:9)"));
        /* lent as 4 elements, the read of out[5] is past what the lab gives */
        EXPECT(emu_mem_lend(f.e, out, 4 * sizeof *out, 0) == 0);
        flag = 0;
        EXPECT(launch2(&f, 2, 32, out, &flag) == EMU_FAULT);
        EXPECT(strstr(f.err.message, "d_out + 20 bytes, ending past the 16 bytes the lab gives it"));
        fx_done(&f);
    }
}

/* Recursion: each lane at its own depth, a register it uses after the
 * inner call kept across it (tri(x) = x + tri(x - 1)); a recursion that
 * does not end is a fault at the depth bound, as a GPU's stack overflows. */
static void recursion(void)
{
#define TRI_PTX(STOP) HEAD \
        ".func (.param .b32 fr) tri(.param .b32 fx)\n{\n" \
        "  .reg .pred %p<2>; .reg .b32 %r<5>;\n" \
        "  ld.param.b32 %r1, [fx];\n" \
        "  setp.le.s32 %p1, %r1, " STOP ";\n" \
        "  mov.u32 %r4, 0;\n" \
        "  @%p1 bra $DONE;\n" \
        "  add.s32 %r2, %r1, -1;\n" \
        "  { .param .b32 p; .param .b32 q;\n" \
        "    st.param.b32 [p], %r2;\n" \
        "    call.uni (q), tri, (p);\n" \
        "    ld.param.b32 %r3, [q]; }\n" \
        "  add.s32 %r4, %r3, %r1;\n" \
        "$DONE:\n" \
        "  st.param.b32 [fr], %r4;\n" \
        "  ret;\n}\n" \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  rem.u32 %r2, %r1, 7;\n" \
        "  { .param .b32 p; .param .b32 q;\n" \
        "    st.param.b32 [p], %r2;\n" \
        "    call.uni (q), tri, (p);\n" \
        "    ld.param.b32 %r3, [q]; }\n" \
        "  mul.wide.u32 %rd2, %r1, 4;\n" \
        "  add.s64 %rd3, %rd1, %rd2;\n" \
        "  st.global.u32 [%rd3], %r3;\n" \
        "  ret;\n}\n"
    struct fx f;
    unsigned out[64];
    EXPECT(load(&f, TRI_PTX("0"), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 64; i++)
        EXPECT(out[i] == (i % 7) * (i % 7 + 1) / 2);
    fx_done(&f);
    EXPECT(load(&f, TRI_PTX("-1000"), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "nested 64 deep") != NULL);
    fx_done(&f);
}

/* Calls through a function pointer: each lane calls the function its
 * pointer holds (two in one warp here), taken from a register or from a
 * module's table of pointers ({thrice, twice}, as nvcc writes an array of
 * function pointers); a pointer to no function is a fault, not a jump
 * anywhere. */
static void indirect_calls(void)
{
#define PTR_PTX(PICK) PTR_TABLE_PTX("", PICK)
#define PTR_TABLE_PTX(DECL, PICK) HEAD \
        ".func (.param .b32 fr) twice(.param .b32 fx)\n{\n" \
        "  .reg .b32 %r<3>;\n  ld.param.b32 %r1, [fx];\n  shl.b32 %r2, %r1, 1;\n" \
        "  st.param.b32 [fr], %r2;\n  ret;\n}\n" \
        ".func (.param .b32 fr) thrice(.param .b32 fx)\n{\n" \
        "  .reg .b32 %r<3>;\n  ld.param.b32 %r1, [fx];\n  mul.lo.s32 %r2, %r1, 3;\n" \
        "  st.param.b32 [fr], %r2;\n  ret;\n}\n" \
        DECL \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<2>; .reg .b32 %r<5>; .reg .b64 %rd<8>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  and.b32 %r2, %r1, 1;\n" \
        "  setp.eq.b32 %p1, %r2, 1;\n" \
        "  mov.u64 %rd2, thrice;\n" \
        "  mov.u64 %rd3, twice;\n" \
        PICK \
        "  { .param .b32 param0; st.param.b32 [param0], %r1; .param .b32 retval0;\n" \
        "    prototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);\n" \
        "    call (retval0), %rd4, (param0), prototype_1;\n" \
        "    ld.param.b32 %r3, [retval0]; }\n" \
        "  mul.wide.u32 %rd5, %r1, 4;\n  add.s64 %rd6, %rd1, %rd5;\n" \
        "  st.global.u32 [%rd6], %r3;\n" \
        "  ret;\n}\n"
    struct fx f;
    unsigned out[64];
    EXPECT(load(&f, PTR_PTX("  selp.b64 %rd4, %rd3, %rd2, %p1;\n"), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 64; i++) {
        EXPECT(out[i] == (i & 1 ? 2 * i : 3 * i));
    }
    fx_done(&f);
    EXPECT(load(&f, PTR_TABLE_PTX(".global .align 8 .u64 fns[2] = {thrice, twice};\n",
                                  "  mul.wide.u32 %rd5, %r2, 8;\n  mov.u64 %rd7, fns;\n"
                                  "  add.s64 %rd7, %rd7, %rd5;\n  ld.global.u64 %rd4, [%rd7];\n"),
                1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 64; i++) {
        EXPECT(out[i] == (i & 1 ? 2 * i : 3 * i));
    }
    fx_done(&f);
    EXPECT(load(&f, PTR_PTX("  mov.u64 %rd4, 4096;\n"), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "calls through a pointer that holds no function (0x1000)") != NULL);
    fx_done(&f);
}

/* A launch's local memory is its kernel's: the .local places of the
 * functions its threads can run, a callee's and one called through a
 * pointer among them, and no other kernel's.  Two kernels of 300,000
 * bytes each fit one module (each is under the GPU's 512 KiB), a kernel
 * of 16 bytes gets 16 (a read past them is a fault, not a read of its
 * neighbour's), and a kernel whose callee takes it past 512 KiB is
 * refused as ptxas refuses it. */
static void local_memory_per_kernel(void)
{
#define LOCAL_NEIGHBOURS_PTX(READ) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .local .align 4 .b8 small[16];\n" \
        "  .reg .b32 %r<4>; .reg .b64 %rd<8>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  st.local.u32 [small+4], %r1;\n" \
        "  ld.local.u32 %r2, [small+4];\n" \
        READ \
        "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n" \
        "  st.global.u32 [%rd3], %r2;\n" \
        "  ret;\n}\n" \
        ".visible .entry idle()\n{\n  .local .align 4 .b8 big[300000];\n  st.local.u32 [big], 1;\n  ret;\n}\n" \
        ".visible .entry idle2()\n{\n  .local .align 4 .b8 big[300000];\n  st.local.u32 [big], 1;\n  ret;\n}\n"
#define LOCAL_CALLEE_PTX(MINE, CALL) HEAD \
        ".func (.param .b32 fr) keep(.param .b32 fx)\n{\n" \
        "  .local .align 4 .b8 hold[300000];\n" \
        "  .reg .b32 %r<3>;\n" \
        "  ld.param.b32 %r1, [fx];\n" \
        "  st.local.u32 [hold+299996], %r1;\n" \
        "  ld.local.u32 %r2, [hold+299996];\n" \
        "  st.param.b32 [fr], %r2;\n" \
        "  ret;\n}\n" \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .local .align 4 .b8 mine[" MINE "];\n" \
        "  .reg .b32 %r<4>; .reg .b64 %rd<5>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  st.local.u32 [mine], %r1;\n" \
        "  ld.local.u32 %r2, [mine];\n" \
        "  mov.u64 %rd4, keep;\n" \
        "  { .param .b32 p; .param .b32 q;\n" \
        "    st.param.b32 [p], %r2;\n" \
        "    prototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);\n" \
        CALL \
        "    ld.param.b32 %r3, [q]; }\n" \
        "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n" \
        "  st.global.u32 [%rd3], %r3;\n" \
        "  ret;\n}\n"
    struct fx f;
    unsigned out[64];
    EXPECT(load(&f, LOCAL_NEIGHBOURS_PTX(""), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 64; i++)
        EXPECT(out[i] == i);
    fx_done(&f);
    EXPECT(load(&f, LOCAL_NEIGHBOURS_PTX("  mov.u64 %rd4, small;\n  add.s64 %rd5, %rd4, 32;\n"
                                         "  ld.local.u32 %r2, [%rd5];\n"), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "at local offset 32, outside the local memory of the functions this kernel "
                                 "runs (16 bytes a thread)") != NULL);
    fx_done(&f);
#define LOCAL_DIRECT "    call.uni (q), keep, (p);\n"
#define LOCAL_POINTER "    call (q), %rd4, (p), prototype_1;\n"
    static const char *fits[] = {LOCAL_CALLEE_PTX("16", LOCAL_DIRECT), LOCAL_CALLEE_PTX("16", LOCAL_POINTER)};
    static const char *past[] = {LOCAL_CALLEE_PTX("300000", LOCAL_DIRECT),
                                 LOCAL_CALLEE_PTX("300000", LOCAL_POINTER)};
    for (int c = 0; c < 2; c++) {
        EXPECT(load(&f, fits[c], 1) == EMU_OK);
        emu_mem_map(f.e, out, sizeof out, "d_out");
        EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
        for (unsigned i = 0; i < 64; i++)
            EXPECT(out[i] == i);
        fx_done(&f);
        EXPECT(load(&f, past[c], 1) == EMU_PARSE);
        EXPECT(strstr(f.err.message, "more local memory a thread of k than the GPU allows (512 KiB)") != NULL);
        fx_done(&f);
    }
}

/* The lanes that ran a div or an rcp are counted (what the CPU judge
 * holds lab 09's evaluations to): lanes a guard turned off are not, and
 * blocks run on several host threads add up. */
static void divisions_counted(void)
{
    static const char ptx[] = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .f32 %f<5>; .reg .b64 %rd<4>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  cvt.rn.f32.u32 %f1, %r1;\n"
        "  add.f32 %f1, %f1, 0f3F800000;\n"
        "  rcp.rn.f32 %f2, %f1;\n"
        "  and.b32 %r2, %r1, 1;\n"
        "  setp.eq.u32 %p1, %r2, 1;\n"
        "  mov.f32 %f3, 0f00000000;\n"
        "  @%p1 div.rn.f32 %f3, 0f40000000, %f1;\n"
        "  add.f32 %f4, %f2, %f3;\n"
        "  mov.u32 %r3, %ctaid.x;\n"
        "  mad.lo.u32 %r3, %r3, 64, %r1;\n"
        "  mul.wide.u32 %rd2, %r3, 4;\n"
        "  add.s64 %rd3, %rd1, %rd2;\n"
        "  st.global.f32 [%rd3], %f4;\n"
        "  ret;\n}\n";
    float out[4 * 64];
    for (int threads = 1; threads <= 2; threads++) {
        struct emu_config cfg = {.seed = 7, .threads = threads, .budget = 1u << 24, .print = print_cb};
        struct fx f;
        struct emu_stats st;
        EXPECT(fx_load(&f, ptx, &cfg) == EMU_OK);
        emu_mem_map(f.e, out, sizeof out, "d_out");
        EXPECT(launch2(&f, 4, 64, out, NULL) == EMU_OK);
        emu_stats(f.e, &st);
        EXPECT(st.divisions == 4 * (64 + 32));
        EXPECT(out[3] == 1.0f / 4 + 2.0f / 4 && out[64 + 2] == 1.0f / 3);
        fx_done(&f);
    }
}

/* Device malloc and free, as nvcc calls them (new and delete too): each
 * lane gets a block of its own, 16-byte aligned, that it can use and give
 * back, and the heap outlives the launch.  Freeing a block twice is a
 * fault; malloc(0), and a request past half of the GPU's 8 MiB heap (a
 * block kept from an earlier launch counts), need a GPU. */
static void device_heap(void)
{
#define HEAP_PTX(FREES) HEAP_DECLS \
        ".visible .entry k(.param .u64 out, .param .u64 size)\n{\n" \
        "  .reg .b32 %r<4>; .reg .b64 %rd<8>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  ld.param.u64 %rd2, [size];\n" \
        "  { .param .b64 param0; st.param.b64 [param0], %rd2; .param .b64 retval0;\n" \
        "    call.uni (retval0), malloc, (param0);\n" \
        "    ld.param.b64 %rd3, [retval0]; }\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  st.u32 [%rd3], %r1;\n" \
        "  ld.u32 %r2, [%rd3];\n" \
        "  add.s32 %r3, %r2, 1;\n" \
        "  st.u32 [%rd3+4], %r3;\n" \
        "  mul.wide.u32 %rd4, %r1, 8;\n" \
        "  add.s64 %rd5, %rd1, %rd4;\n" \
        "  st.global.u64 [%rd5], %rd3;\n" \
        FREES \
        "  ret;\n}\n"
#define HEAP_DECLS HEAD \
        ".extern .func (.param .b64 func_retval0) malloc\n(\n  .param .b64 malloc_param_0\n)\n;\n" \
        ".extern .func free\n(\n  .param .b64 free_param_0\n)\n;\n"
#define HEAP_FREE "  { .param .b64 param0; st.param.b64 [param0], %rd3;\n    call.uni free, (param0); }\n"
    struct fx f;
    uint64_t out[64];
    EXPECT(load(&f, HEAP_PTX(""), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, (void *)(uintptr_t)40) == EMU_OK);
    int apart = 1;
    for (unsigned i = 0; i < 64; i++) {
        EXPECT(out[i] % 16 == 0 && out[i] != 0);
        EXPECT(((const uint32_t *)(uintptr_t)out[i])[0] == i && ((const uint32_t *)(uintptr_t)out[i])[1] == i + 1);
        for (unsigned j = 0; j < i; j++)
            apart &= out[i] - out[j] >= 48 && out[j] - out[i] >= 48;
    }
    EXPECT(apart);
    fx_done(&f);
    /* 32 lanes of 100 KiB live at once, given back before the next warp's:
     * twice 64 of them fit (kept, the second warp's would not) */
    EXPECT(load(&f, HEAP_PTX(HEAP_FREE), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    for (int launch = 0; launch < 2; launch++)
        EXPECT(launch2(&f, 1, 64, out, (void *)(uintptr_t)(100u << 10)) == EMU_OK);
    fx_done(&f);
    EXPECT(load(&f, HEAP_PTX(HEAP_FREE HEAP_FREE), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, (void *)(uintptr_t)8) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "which device malloc did not hand out or which was freed already") != NULL);
    fx_done(&f);
    EXPECT(load(&f, HEAP_PTX(""), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 1, out, (void *)(uintptr_t)0) == EMU_UNSUPPORTED);
    EXPECT(strstr(f.err.message, "needs a GPU: malloc(0)") != NULL);
    EXPECT(launch2(&f, 1, 1, out, (void *)(uintptr_t)(3u << 20)) == EMU_OK);
    EXPECT(launch2(&f, 1, 1, out, (void *)(uintptr_t)(2u << 20)) == EMU_UNSUPPORTED);
    EXPECT(strstr(f.err.message, "a device malloc of 2097152 bytes beside 3145728 live") != NULL);
    fx_done(&f);
}

/* A lane that reaches trap (what __trap() and a failed assert on some
 * paths compile to) ends the launch with a fault naming the thread. */
static void trap_is_a_fault(void)
{
    static const char ptx[] = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<2>;\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  setp.eq.u32 %p1, %r1, 5;\n"
        "  @%p1 trap;\n"
        "  ret;\n}\n";
    struct fx f;
    unsigned out[32];
    EXPECT(load(&f, ptx, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "thread 5") != NULL && strstr(f.err.message, "executed trap") != NULL);
    fx_done(&f);
}

/* atomicAdd on __half and __half2: 32 lanes each add 1.0 (and 2.0 in the
 * high half) as halves, not as integers; a sum that is a NaN (+inf plus
 * -inf), whose bits an atomic unit gives as it will, needs a GPU. */
static void half_atomics(void)
{
    static const char f16[] = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .b16 %h<3>; .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.b16 %h1, 0x3c00;\n"
        "  atom.global.add.noftz.f16 %h2, [%rd1], %h1;\n"
        "  mov.b32 %r1, 0x40003c00;\n"
        "  atom.global.add.noftz.f16x2 %r2, [%rd1+4], %r1;\n"
        "  mov.b16 %h1, 0x3f80;\n"
        "  atom.global.add.noftz.bf16 %h2, [%rd1+8], %h1;\n"
        "  mov.b16 %h1, 0xfc00;\n"
        "  atom.global.add.noftz.f16 %h2, [%rd1+12], %h1;\n"
        "  ret;\n}\n";
    struct fx f;
    uint16_t out[8] = {0, 0, 0, 0, 0, 0, 0x7c00, 0};
    EXPECT(load(&f, f16, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_UNSUPPORTED);
    EXPECT(strstr(f.err.message, "needs a GPU: a half-float atomic add whose sum is a NaN") != NULL);
    /* the three sums before the NaN: 32.0 as f16, (32.0, 64.0) as f16x2, 32.0 as bf16 */
    EXPECT(out[0] == 0x5000 && out[2] == 0x5000 && out[3] == 0x5400 && out[4] == 0x4200);
    fx_done(&f);
}

/* WARP_SZ, PTX's predefined constant, as cuda_fp16.hpp's shuffles of
 * __half and __half2 read it in inline asm: 32, never "unknown name". */
static void warp_size_constant(void)
{
    static const char ptx[] = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .b32 %r<2>; .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  {mov.u32 %r1, WARP_SZ;\n}\n"
        "  st.global.u32 [%rd1], %r1;\n"
        "  ret;\n}\n";
    struct fx f;
    unsigned out[1] = {0};
    EXPECT(load(&f, ptx, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 1, out, NULL) == EMU_OK);
    EXPECT(out[0] == 32);
    fx_done(&f);
}

/* Addresses in a module variable's initialiser, as nvcc writes a pointer
 * to a variable (`__device__ int *p = arr + 2;` is generic(arr)+8): the
 * pointer reads the variable, the const space's too. */
static void address_initialisers(void)
{
    static const char ptx[] = HEAD
        ".global .align 4 .b8 arr[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};\n"
        ".const .align 4 .b8 carr[8] = {10, 0, 0, 0, 20};\n"
        ".global .align 8 .u64 p = generic(arr)+8;\n"
        ".global .align 8 .u64 cps[2] = {generic(carr), generic(carr)+4};\n"
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .b32 %r<6>; .reg .b64 %rd<8>;\n"
        "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
        "  ld.global.u64 %rd2, [p];\n  ld.u32 %r1, [%rd2];\n"
        "  ld.global.u64 %rd3, [cps+8];\n  ld.u32 %r2, [%rd3];\n"
        "  add.s32 %r3, %r1, %r2;\n  st.global.u32 [%rd1], %r3;\n"
        "  ret;\n}\n";
    struct fx f;
    unsigned out[32] = {0};
    EXPECT(load(&f, ptx, 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 1, out, NULL) == EMU_OK);
    EXPECT(out[0] == 3 + 20);
    fx_done(&f);
}

/* A jump table (brx.idx over .branchtargets, as inline PTX writes one):
 * each lane to its entry, lanes of one warp to three places; an index
 * past the table is a fault. */
static void jump_tables(void)
{
#define BRX_PTX(MOD) HEAD \
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .b32 %r<6>; .reg .b64 %rd<4>;\n" \
        "  ld.param.u64 %rd1, [out];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  rem.u32 %r2, %r1, " MOD ";\n" \
        "  ts: .branchtargets $A, $B, $C;\n" \
        "  brx.idx %r2, ts;\n" \
        "$A:\n  mov.u32 %r3, 100;\n  bra.uni $J;\n" \
        "$B:\n  mov.u32 %r3, 200;\n  bra.uni $J;\n" \
        "$C:\n  mov.u32 %r3, 300;\n" \
        "$J:\n" \
        "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n" \
        "  st.global.u32 [%rd3], %r3;\n" \
        "  ret;\n}\n"
    struct fx f;
    unsigned out[64];
    EXPECT(load(&f, BRX_PTX("3"), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 64, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 64; i++)
        EXPECT(out[i] == 100 * (i % 3 + 1));
    fx_done(&f);
    EXPECT(load(&f, BRX_PTX("4"), 1) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 32, out, NULL) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "thread 3 of block 0 jumps through brx.idx with index 3, past its 3 targets") != NULL);
    fx_done(&f);
}

/* Registers start as junk, different from launch to launch: a sum that
 * starts from an `int sum;` never set is wrong, where zeros made it right. */
static void registers_start_as_junk(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .b32 %r<4>; .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  add.s32 %r2, %r1, 5;\n"
        "  st.global.u32 [%rd1], %r2;\n"
        "  ret;\n}\n";
    struct fx f;
    unsigned out[2];
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 1, &out[0], NULL) == EMU_OK);
    EXPECT(launch2(&f, 1, 1, &out[1], NULL) == EMU_OK);
    EXPECT(out[0] != 5 && out[1] != 5 && out[0] != out[1]);
    fx_done(&f);
    /* junk too where only some paths write the register first: one side
     * of a branch, a write under a false guard, a loop whose first pass
     * reads it before its end writes it (the second pass reads the 0) */
#define JUNK_HEAD HEAD ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<2>;\n" \
        "  ld.param.u64 %rd1, [out];\n"
#define JUNK_USE "  add.s32 %r2, %r1, 5;\n  st.global.u32 [%rd1], %r2;\n" \
        "  st.global.u32 [%rd1+4], %r2;\n  ret;\n}\n"
    static const char *const paths[] = {
        JUNK_HEAD "  mov.u32 %r3, %tid.x;\n  setp.eq.u32 %p1, %r3, 0;\n  @%p1 bra $J;\n"
                  "  mov.u32 %r1, 0;\n$J:\n" JUNK_USE,
        JUNK_HEAD "  mov.u32 %r3, %tid.x;\n  setp.ne.u32 %p1, %r3, 0;\n  @%p1 mov.u32 %r1, 0;\n"
                  JUNK_USE,
        JUNK_HEAD "  mov.u32 %r3, 0;\n$L:\n  add.s32 %r2, %r1, 5;\n  st.global.u32 [%rd1], %r2;\n"
                  "  add.s64 %rd1, %rd1, 4;\n  mov.u32 %r1, 0;\n  add.s32 %r3, %r3, 1;\n"
                  "  setp.lt.u32 %p1, %r3, 2;\n  @%p1 bra $L;\n  ret;\n}\n",
    };
#undef JUNK_HEAD
#undef JUNK_USE
    for (int i = 0; i < 3; i++) {
        unsigned first;
        EXPECT(load(&f, paths[i], 0) == EMU_OK);
        emu_mem_map(f.e, out, sizeof out, "d_out");
        EXPECT(launch2(&f, 1, 1, &out[0], NULL) == EMU_OK);
        first = out[0];
        EXPECT(out[0] != 5 && out[1] == (i == 2 ? 5u : out[0]));
        EXPECT(launch2(&f, 1, 1, &out[0], NULL) == EMU_OK);
        EXPECT(out[0] != 5 && out[0] != first);
        fx_done(&f);
    }
}

/* ---- resident blocks --------------------------------------------------------------------- */

/* Block 0 spins on a flag block 1 sets: both are resident at once, as on a
 * GPU, so the wait ends; with one block resident at a time it cannot. */
static void block_waits_for_later_block(void)
{
#define FLAG_PTX(LOAD) HEAD \
        ".visible .entry k(.param .u64 flag, .param .u64 out)\n{\n" \
        "  .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<3>;\n" \
        "  ld.param.u64 %rd1, [flag];\n" \
        "  ld.param.u64 %rd2, [out];\n" \
        "  mov.u32 %r1, %ctaid.x;\n" \
        "  setp.ne.u32 %p1, %r1, 0;\n" \
        "  @%p1 bra $SET;\n" \
        "$WAIT:\n" \
        "  " LOAD " %r2, [%rd1];\n" \
        "  setp.eq.u32 %p2, %r2, 0;\n" \
        "  @%p2 bra $WAIT;\n" \
        "  st.global.u32 [%rd2], %r2;\n" \
        "  ret;\n" \
        "$SET:\n" \
        "  st.volatile.global.u32 [%rd1], 7;\n" \
        "  ret;\n}\n"
    static const char *const waits[] = {FLAG_PTX("ld.volatile.global.u32"),
                                        FLAG_PTX("ld.relaxed.gpu.global.u32")};
    for (int i = 0; i < 2; i++) {
        struct fx f;
        unsigned flag = 0, out = 0;
        EXPECT(load(&f, waits[i], 1) == EMU_OK);
        emu_mem_map(f.e, &flag, sizeof flag, "d_flag");
        emu_mem_map(f.e, &out, sizeof out, "d_out");
        EXPECT(launch2(&f, 2, 64, &flag, &out) == EMU_OK);
        EXPECT(flag == 7 && out == 7);
        fx_done(&f);
    }
    /* 1024-thread blocks: an SM holds two */
    struct fx f;
    unsigned flag = 0, out = 0;
    EXPECT(load(&f, FLAG_PTX("ld.volatile.global.u32"), 1) == EMU_OK);
    emu_mem_map(f.e, &flag, sizeof flag, "d_flag");
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    EXPECT(launch2(&f, 2, 1024, &flag, &out) == EMU_OK);
    EXPECT(flag == 7 && out == 7);
    fx_done(&f);
    /* one block at a time: block 1 never starts, the budget runs out */
    struct emu_config cfg = {.seed = 7, .budget = 1u << 20, .resident = 1};
    struct emu *e = emu_new(&cfg);
    struct emu_module *m;
    struct emu_error err;
    EXPECT(emu_module_load(e, waits[0], strlen(waits[0]), &m, &err) == EMU_OK);
    flag = out = 0;
    emu_mem_map(e, &flag, sizeof flag, "d_flag");
    emu_mem_map(e, &out, sizeof out, "d_out");
    void *pf = &flag, *po = &out;
    void *args[2] = {&pf, &po};
    struct emu_launch l = {.grid = {2, 1, 1}, .block = {64, 1, 1}, .args = args};
    EXPECT(emu_launch(e, emu_module_kernel_at(m, 0), &l, &err) == EMU_LIMIT);
    EXPECT(flag == 0);
    emu_module_unload(m);
    emu_free(e);
#undef FLAG_PTX
}

/* Each block's threads loop a while, then its thread 0 takes a ticket and
 * writes its index at the ticket: the order blocks finished in. */
static const char *finish_order_ptx = HEAD
    ".visible .entry k(.param .u64 order, .param .u64 ticket)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [order];\n"
    "  ld.param.u64 %rd2, [ticket];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mov.u32 %r2, 0;\n"
    "$L:\n"
    "  add.s32 %r2, %r2, 1;\n"
    "  setp.lt.u32 %p1, %r2, 100;\n"
    "  @%p1 bra $L;\n"
    "  bar.sync 0;\n"
    "  setp.ne.u32 %p2, %r1, 0;\n"
    "  @%p2 bra $E;\n"
    "  atom.global.add.u32 %r3, [%rd2], 1;\n"
    "  mov.u32 %r4, %ctaid.x;\n"
    "  mul.wide.u32 %rd3, %r3, 4;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n"
    "  st.global.u32 [%rd4], %r4;\n"
    "$E:\n"
    "  ret;\n}\n";

enum { ORDER_BLOCKS = 16 };

/* The finishing order of LAUNCHES launches on a new emulator with SEED,
 * the last one's in ORDER. */
static void finish_order(uint64_t seed, int resident, int launches, unsigned *order)
{
    struct emu_config cfg = {.seed = seed, .hazards = 1, .budget = 1u << 24, .resident = resident};
    struct emu *e = emu_new(&cfg);
    struct emu_module *m;
    struct emu_error err;
    EXPECT(emu_module_load(e, finish_order_ptx, strlen(finish_order_ptx), &m, &err) == EMU_OK);
    unsigned ticket;
    emu_mem_map(e, order, ORDER_BLOCKS * sizeof *order, "d_order");
    emu_mem_map(e, &ticket, sizeof ticket, "d_ticket");
    void *po = order, *pt = &ticket;
    void *args[2] = {&po, &pt};
    struct emu_launch l = {.grid = {ORDER_BLOCKS, 1, 1}, .block = {64, 1, 1}, .args = args};
    for (int i = 0; i < launches; i++) {
        ticket = 0;
        memset(order, 0xff, ORDER_BLOCKS * sizeof *order);
        EXPECT(emu_launch(e, emu_module_kernel_at(m, 0), &l, &err) == EMU_OK);
        EXPECT(ticket == ORDER_BLOCKS);
    }
    emu_module_unload(m);
    emu_free(e);
}

/* The order blocks finish in comes from the seed and the launch's count:
 * the same for the same seed and launch, another for another seed or the
 * next launch; with one block resident at a time it is the index order. */
static void finish_order_follows_seed_and_launch(void)
{
    unsigned a1[ORDER_BLOCKS], a2[ORDER_BLOCKS], b1[ORDER_BLOCKS], again1[ORDER_BLOCKS],
        again2[ORDER_BLOCKS], seq[ORDER_BLOCKS];
    finish_order(7, 0, 1, a1);
    finish_order(7, 0, 2, a2);
    finish_order(8, 0, 1, b1);
    finish_order(7, 0, 1, again1);
    finish_order(7, 0, 2, again2);
    finish_order(7, 1, 2, seq);
    unsigned seen = 0, in_order = 1;
    for (unsigned i = 0; i < ORDER_BLOCKS; i++) {
        seen |= a1[i] < ORDER_BLOCKS ? 1u << a1[i] : 0;
        in_order &= a1[i] == i;
        EXPECT(seq[i] == i);
    }
    EXPECT(seen == (1u << ORDER_BLOCKS) - 1);   /* every block once */
    EXPECT(!in_order);
    EXPECT(!memcmp(a1, again1, sizeof a1));
    EXPECT(!memcmp(a2, again2, sizeof a2));
    EXPECT(memcmp(a1, a2, sizeof a1));
    EXPECT(memcmp(a1, b1, sizeof a1));
}

/* Block 1 faults at once; block 0 faults after a loop, or spins on a flag
 * block 1 never sets.  The lowest failing block is reported though it
 * failed later; a block left spinning after the fault runs out of budget
 * without hiding it. */
static void lowest_failing_block_reported(void)
{
#define LATE_PTX(BLOCK0) HEAD \
        ".visible .entry k(.param .u64 flag, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<3>;\n" \
        "  ld.param.u64 %rd1, [flag];\n" \
        "  mov.u32 %r1, %ctaid.x;\n" \
        "  setp.ne.u32 %p1, %r1, 0;\n" \
        "  @%p1 bra $FAULT;\n" \
        "  mov.u32 %r2, 0;\n" \
        "$L:\n" \
        BLOCK0 \
        "  @%p2 bra $L;\n" \
        "$FAULT:\n" \
        "  st.global.u32 [0], %r1;\n" \
        "  ret;\n}\n"
    const char *loop = LATE_PTX("  add.s32 %r2, %r2, 1;\n  setp.lt.u32 %p2, %r2, 2000;\n");
    const char *spin = LATE_PTX("  ld.volatile.global.u32 %r2, [%rd1];\n  setp.eq.u32 %p2, %r2, 0;\n");
#undef LATE_PTX
    unsigned flag = 0;
    struct fx f;
    EXPECT(load(&f, loop, 1) == EMU_OK);
    emu_mem_map(f.e, &flag, sizeof flag, "d_flag");
    for (int i = 0; i < 3; i++) {
        EXPECT(launch2(&f, 2, 32, &flag, NULL) == EMU_FAULT);
        EXPECT(strstr(f.err.message, "thread 0 of block 0 wrote 4 bytes at 0x0") != NULL);
    }
    fx_done(&f);
    EXPECT(load(&f, spin, 1) == EMU_OK);
    emu_mem_map(f.e, &flag, sizeof flag, "d_flag");
    EXPECT(launch2(&f, 2, 32, &flag, NULL) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "thread 0 of block 1 wrote 4 bytes at 0x0") != NULL);
    fx_done(&f);
}

/* Block 1 stores a value, sets a flag and works on; block 0 waits for the
 * flag and reads the value.  With a fence on each side that is ordered,
 * though block 1 is still resident when block 0 reads; without the
 * writer's fence it is a race. */
static void resident_writer_release(void)
{
#define HANDOFF_PTX(FENCE) HEAD \
        ".visible .entry k(.param .u64 buf, .param .u64 unused)\n{\n" \
        "  .reg .pred %p<4>; .reg .b32 %r<5>; .reg .b64 %rd<3>;\n" \
        "  ld.param.u64 %rd1, [buf];\n" \
        "  mov.u32 %r1, %tid.x;\n" \
        "  setp.ne.u32 %p1, %r1, 0;\n" \
        "  @%p1 bra $E;\n" \
        "  mov.u32 %r1, %ctaid.x;\n" \
        "  setp.ne.u32 %p1, %r1, 0;\n" \
        "  @%p1 bra $WRITE;\n" \
        "$WAIT:\n" \
        "  ld.volatile.global.u32 %r2, [%rd1+4];\n" \
        "  setp.eq.u32 %p2, %r2, 0;\n" \
        "  @%p2 bra $WAIT;\n" \
        "  membar.gl;\n" \
        "  ld.global.u32 %r3, [%rd1];\n" \
        "  st.global.u32 [%rd1+8], %r3;\n" \
        "  bra.uni $E;\n" \
        "$WRITE:\n" \
        "  st.global.u32 [%rd1], 42;\n" \
        FENCE \
        "  st.volatile.global.u32 [%rd1+4], 1;\n" \
        "  mov.u32 %r4, 0;\n" \
        "$WORK:\n" \
        "  add.s32 %r4, %r4, 1;\n" \
        "  setp.lt.u32 %p3, %r4, 3000;\n" \
        "  @%p3 bra $WORK;\n" \
        "$E:\n" \
        "  ret;\n}\n"
    const char *fenced = HANDOFF_PTX("  membar.gl;\n"), *bare = HANDOFF_PTX("");
#undef HANDOFF_PTX
    unsigned buf[3] = {0, 0, 0};
    struct fx f;
    EXPECT(load(&f, fenced, 1) == EMU_OK);
    emu_mem_map(f.e, buf, sizeof buf, "d_buf");
    EXPECT(launch2(&f, 2, 32, buf, NULL) == EMU_OK);
    EXPECT(buf[2] == 42);
    fx_done(&f);
    memset(buf, 0, sizeof buf);
    EXPECT(load(&f, bare, 1) == EMU_OK);
    emu_mem_map(f.e, buf, sizeof buf, "d_buf");
    EXPECT(launch2(&f, 2, 32, buf, NULL) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "race on d_buf + 0: thread 0 of block 0 reads it") != NULL);
    EXPECT(strstr(f.err.message, "no fence between its store and its signal") != NULL);
    fx_done(&f);
}

/* ---- limits and refusals ------------------------------------------------------------------- */

static void budget_stops_endless_loop(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "$L:\n"
        "  bra.uni $L;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_LIMIT);
    struct emu_stats s;
    emu_stats(f.e, &s);
    EXPECT(s.thread_instructions <= (1u << 24) + 32);
    fx_done(&f);
}

/* A form the emulator does not run refuses the launch of a kernel that
 * reaches it, itself or through a call, naming the form and its line; the
 * file loads, and its other kernels run. */
static void unknown_instruction_is_unsupported(void)
{
    static const char *ptx = HEAD
        ".file 1 \"kernel.cu\"\n"
        ".func use_tex(.param .b64 t)\n{\n"
        "  .reg .f32 %f<5>; .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [t];\n"
        "  .loc 1 12 3\n"
        "  tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}];\n"
        "  ret;\n}\n"
        ".visible .entry k(.param .u64 t)\n{\n"
        "  .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [t];\n"
        "  { .param .b64 p; st.param.b64 [p], %rd1;\n"
        "    call.uni use_tex, (p); }\n"
        "  ret;\n}\n"
        ".visible .entry other(.param .u64 out)\n{\n"
        "  .reg .b32 %r<2>; .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, 41;\n"
        "  add.s32 %r1, %r1, 1;\n"
        "  st.global.u32 [%rd1], %r1;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_UNSUPPORTED);
    EXPECT_STR(f.err.what, "tex.2d.v4.f32.s32");
    EXPECT(strstr(f.err.message, "needs a GPU") != NULL);
    EXPECT(strstr(f.err.message, "kernel.cu:12") != NULL);
    uint32_t *out = calloc(1, 4096);
    emu_mem_map(f.e, out, 4096, "d_out");
    void *arg = out;
    void *args[1] = {&arg};
    struct emu_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .args = args};
    memset(&f.err, 0, sizeof f.err);
    EXPECT(emu_launch(f.e, emu_module_kernel(f.m, "other"), &l, &f.err) == EMU_OK);
    EXPECT(out[0] == 42);
    emu_mem_unmap(f.e, out);
    free(out);
    fx_done(&f);
    /* a directive of a kernel's body: that kernel's launch only */
    static const char *dir = HEAD ".visible .entry k()\n{\n  .maxclusterrank 2;\n  ret;\n}\n";
    EXPECT(load(&f, dir, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_UNSUPPORTED);
    EXPECT_STR(f.err.what, ".maxclusterrank");
    fx_done(&f);
}

/* A kernel declared only inside a comment does not exist, whatever the
 * comment looks like. */
static void commented_entry_is_ignored(void)
{
    static const char *ptx = HEAD
        "// .visible .entry evil(.param .u64 p)\n"
        "/* .visible .entry evil2(\n  .param .u64 p\n) { ret; } */\n"
        ".visible .entry good(.param .u32 a)\n{\n  ret; // .entry evil3(.param .u64 x)\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    EXPECT(emu_module_kernel(f.m, "good") != NULL);
    EXPECT(emu_module_kernel(f.m, "evil") == NULL);
    EXPECT(emu_module_kernel(f.m, "evil2") == NULL);
    EXPECT(emu_module_kernel(f.m, "evil3") == NULL);
    EXPECT(emu_module_kernel_at(f.m, 1) == NULL);
    struct emu_kernel_info info;
    emu_kernel_info(emu_module_kernel(f.m, "good"), &info);
    EXPECT(info.nparams == 1 && info.param_size[0] == 4);
    fx_done(&f);
}

static void malformed_text_names_line(void)
{
    static const char *ptx = HEAD
        ".visible .entry k()\n{\n"
        "  .reg .b32 %r<3>;\n"
        "  add.s32 %r1, %r2 %r2;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_PARSE);
    EXPECT(strstr(f.err.message, "line 7") != NULL);
    fx_done(&f);
    /* a .file name with an escape sequence and a line break reaches the
     * fault message only as printable text */
    static const char *evil_file = HEAD
        ".visible .entry k(.param .u64 p)\n{\n  .reg .b64 %rd<2>;\n  .loc 1 3 1\n"
        "  ld.param.u64 %rd1, [p];\n  st.global.u32 [%rd1], 1;\n  ret;\n}\n"
        ".file 1 \"/x/\033[2Jok \\\\ passed\t.cu\"\n";
    EXPECT(load(&f, evil_file, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 1, (void *)(uintptr_t)64, NULL) == EMU_FAULT);
    EXPECT(strchr(f.err.message, '\033') == NULL && strchr(f.err.message, '\t') == NULL);
    EXPECT(strchr(f.err.file, '\033') == NULL);
    EXPECT(strstr(f.err.message, "?[2Jok") != NULL);
    fx_done(&f);
    static const char *unknown_reg = HEAD ".visible .entry k()\n{\n  mov.u32 %r9, 1;\n}\n";
    EXPECT(load(&f, unknown_reg, 0) == EMU_PARSE);
    fx_done(&f);
    static const char *unclosed = HEAD ".visible .entry k()\n{\n  ret;\n/* \n";
    EXPECT(load(&f, unclosed, 0) == EMU_PARSE);
    fx_done(&f);
    /* what would cost the host gigabytes: registers past 8192 slots (needs
     * a GPU, test_emu_bounds.c), local memory past the GPU's 512 KiB a
     * thread */
    static const char *regs = HEAD
        ".visible .entry k()\n{\n  .reg .b32 %a<60000>;\n  .reg .b32 %b<60000>;\n  ret;\n}\n";
    EXPECT(load(&f, regs, 0) == EMU_UNSUPPORTED);
    fx_done(&f);
    /* initialiser braces nested a hundred thousand deep: refused, not a
     * recursion as deep as the stack */
    size_t deep = 100000;
    char *nest = malloc(deep + 256);
    if (nest) {
        int n = snprintf(nest, 256, "%s.global .align 4 .u32 g[4] = ", HEAD);
        memset(nest + n, '{', deep);
        strcpy(nest + n + deep, "1};\n");
        EXPECT(load(&f, nest, 0) == EMU_PARSE);
        fx_done(&f);
        free(nest);
    }
    static const char *local = HEAD
        ".visible .entry k()\n{\n  .local .align 4 .b8 big[600000];\n  ret;\n}\n";
    EXPECT(load(&f, local, 0) == EMU_PARSE);
    fx_done(&f);
}

/* Inline asm can hand the interpreter any operands: forms whose operands
 * are missing, misplaced or of the wrong shape are refused when parsed (the
 * interpreter reads operands without checking them again). */
static void malformed_operands_refused(void)
{
    static const char *const bodies[] = {
        "add.s32 %r1;",
        "add.s32 %r1, [%rd1], 1;",
        "mov.b64 %rd1, {};",
        "mov.b64 %rd1, {%r1, %r2, %r3};",
        "st.global.v4.u32 [%rd1], {%r1, %r2};",
        "ld.global.v4.u32 {%r1, %r2, %r3, %r4, %r1}, [%rd1];",
        "ld.shared.u32 %r1, %r2;",
        "bar.red.popc.u32;",
        "bar.warp.sync;",
        "shfl.sync.down.b32 %r1, %r2, 1;",
        "setp.lt.s32 %p1, %r1;",
        "selp.b32 %r1, %r2, %r3;",
        "atom.global.cas.b32 %r1, [%rd1], %r2;",
        "cvt.s32 %r1, %r2;",
        "add.s32 %r1, %r2, %r1, %r1, %r1, %r1, %r1;",
        "lop3.b32 %r1, %r2, %r3, %r1;",
        "vote.sync.b32 %r1, %p1, -1;",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        char ptx[1024];
        snprintf(ptx, sizeof ptx, "%s%s%s%s", HEAD,
                 ".visible .entry k(.param .u64 out)\n{\n  .reg .pred %p<2>; .reg .b32 %r<4>; "
                 ".reg .b64 %rd<2>;\n  ",
                 bodies[i], "\n  ret;\n}\n");
        struct fx f;
        enum emu_status st = load(&f, ptx, 1);
        if (st != EMU_PARSE && st != EMU_UNSUPPORTED)
            printf("#   accepted: %s\n", bodies[i]);
        EXPECT(st == EMU_PARSE || st == EMU_UNSUPPORTED);
        fx_done(&f);
    }
}

/* Inline asm declares registers in nested scopes: the same name twice,
 * each scope its own register. */
static void nested_scopes(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .b32 %r<3>; .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, 5;\n"
        "  {\n  .reg .b32 t;\n  add.s32 t, %r1, 1;\n  mov.u32 %r1, t;\n  }\n"
        "  {\n  .reg .b32 t;\n  mul.lo.s32 t, %r1, 10;\n  mov.u32 %r2, t;\n  }\n"
        "  st.global.u32 [%rd1], %r2;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    unsigned out = 0;
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 1, &out, NULL) == EMU_OK);
    EXPECT(out == 60);
    fx_done(&f);
    static const char *leak = HEAD
        ".visible .entry k()\n{\n  {\n  .reg .b32 t;\n  mov.u32 t, 1;\n  }\n  mov.u32 t, 2;\n}\n";
    EXPECT(load(&f, leak, 0) == EMU_PARSE);
    fx_done(&f);
}

/* Multi-precision addition: add.cc, addc.cc, addc carry across words. */
static void carry_chain(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .b32 %r<8>; .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  add.cc.u32 %r1, -1, 1;\n"
        "  addc.cc.u32 %r2, -1, 0;\n"
        "  addc.u32 %r3, 5, 0;\n"
        "  sub.cc.u32 %r4, 0, 1;\n"
        "  subc.u32 %r5, 10, 0;\n"
        "  mad.lo.cc.u32 %r6, 65536, 65536, 7;\n"
        "  madc.hi.u32 %r7, 65536, 65536, 0;\n"
        "  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n"
        "  st.global.v2.u32 [%rd1+16], {%r5, %r6};\n"
        "  st.global.u32 [%rd1+24], %r7;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    unsigned out[7] = {0};
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 1, out, NULL) == EMU_OK);
    EXPECT(out[0] == 0 && out[1] == 0 && out[2] == 6);
    EXPECT(out[3] == 0xffffffffu && out[4] == 9);
    EXPECT(out[5] == 7);
    EXPECT(out[6] == 1);
    fx_done(&f);
}

static void printf_formats(void)
{
    static const char *ptx = HEAD
        ".extern .func (.param .b32 func_retval0) vprintf\n"
        "(\n  .param .b64 vprintf_param_0,\n  .param .b64 vprintf_param_1\n)\n;\n"
        ".global .align 1 .b8 $str[24] = {116, 61, 37, 100, 32, 37, 115, 32, 37, 46, 50, 102, 32, "
        "37, 108, 108, 117, 32, 37, 37, 37, 120, 10, 0};\n"
        ".global .align 1 .b8 $word[3] = {104, 105, 0};\n"
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .local .align 8 .b8 __local_depot0[40];\n"
        "  .reg .b32 %r<4>; .reg .b64 %rd<10>; .reg .f64 %fd<2>;\n"
        "  mov.u64 %rd1, __local_depot0;\n"
        "  cvta.local.u64 %rd2, %rd1;\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  st.local.u32 [__local_depot0], %r1;\n"
        "  mov.u64 %rd3, $word;\n"
        "  cvta.global.u64 %rd4, %rd3;\n"
        "  st.local.u64 [__local_depot0+8], %rd4;\n"
        "  mov.f64 %fd1, 0d400921FB54442D18;\n"
        "  st.local.f64 [__local_depot0+16], %fd1;\n"
        "  mov.u64 %rd5, 12345678901;\n"
        "  st.local.u64 [__local_depot0+24], %rd5;\n"
        "  st.local.u32 [__local_depot0+32], 255;\n"
        "  mov.u64 %rd6, $str;\n"
        "  cvta.global.u64 %rd7, %rd6;\n"
        "  { // callseq 0, 0\n"
        "  .param .b64 param0;\n"
        "  st.param.b64 [param0], %rd7;\n"
        "  .param .b64 param1;\n"
        "  st.param.b64 [param1], %rd2;\n"
        "  .param .b32 retval0;\n"
        "  call.uni (retval0), vprintf, (param0, param1);\n"
        "  ld.param.b32 %r2, [retval0];\n"
        "  }\n"
        "  ret;\n}\n";
    struct fx f;
    nprinted = 0;
    printed[0] = 0;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 2, NULL, NULL) == EMU_OK);
    if (f.err.status) printf("# %s\n", f.err.message);
    EXPECT_STR(printed, "t=0 hi 3.14 12345678901 %ff\nt=1 hi 3.14 12345678901 %ff\n");
    fx_done(&f);
}

/* A .func called by some lanes: arguments in, its result out, its local
 * memory apart from the caller's; a kernel's own assert() is a fault at
 * its line; a recursion that never ends is a fault at the depth bound
 * (recursion() holds one that ends). */
static void function_calls(void)
{
    static const char *ptx = HEAD
        ".func (.param .b32 f_ret) f(.param .b32 f_a, .param .b32 f_b)\n{\n"
        "  .local .align 4 .b8 fdepot[8];\n"
        "  .reg .b32 %r<5>;\n"
        "  ld.param.u32 %r1, [f_a];\n"
        "  ld.param.u32 %r2, [f_b];\n"
        "  st.local.u32 [fdepot], %r1;\n"
        "  ld.local.u32 %r3, [fdepot];\n"
        "  mad.lo.s32 %r4, %r3, 100, %r2;\n"
        "  st.param.b32 [f_ret], %r4;\n"
        "  ret;\n}\n"
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .local .align 4 .b8 kdepot[4];\n"
        "  .reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<4>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  st.local.u32 [kdepot], 7;\n"
        "  mov.u32 %r5, 0;\n"
        "  and.b32 %r2, %r1, 1;\n"
        "  setp.eq.u32 %p1, %r2, 0;\n"
        "  @%p1 bra $SKIP;\n"
        "  { // callseq 0, 0\n"
        "  .param .b32 param0;\n"
        "  st.param.b32 [param0+0], %r1;\n"
        "  .param .b32 param1;\n"
        "  st.param.b32 [param1+0], 3;\n"
        "  .param .b32 retval0;\n"
        "  call.uni (retval0), f, (param0, param1);\n"
        "  ld.param.b32 %r5, [retval0+0];\n"
        "  }\n"
        "$SKIP:\n"
        "  ld.local.u32 %r6, [kdepot];\n"
        "  add.s32 %r7, %r5, %r6;\n"
        "  mul.wide.u32 %rd2, %r1, 4;\n"
        "  add.s64 %rd3, %rd1, %rd2;\n"
        "  st.global.u32 [%rd3], %r7;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 1) == EMU_OK);
    if (f.err.status)
        printf("# %s\n", f.err.message);
    unsigned out[40];
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 40, out, NULL) == EMU_OK);
    for (unsigned i = 0; i < 40; i++)
        EXPECT(out[i] == (i & 1 ? 100 * i + 3 : 0) + 7);
    fx_done(&f);

    static const char *assert_ptx = HEAD
        ".extern .func __assertfail(.param .b64 p0, .param .b64 p1, .param .b32 p2, "
        ".param .b64 p3, .param .b64 p4);\n"
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<3>;\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  setp.ne.u32 %p1, %r1, 5;\n"
        "  @%p1 bra $OK;\n"
        "  .loc 1 12 3\n"
        "  { .param .b64 param0; st.param.b64 [param0], 0;\n"
        "  .param .b64 param1; st.param.b64 [param1], 0;\n"
        "  .param .b32 param2; st.param.b32 [param2], 12;\n"
        "  .param .b64 param3; st.param.b64 [param3], 0;\n"
        "  .param .b64 param4; st.param.b64 [param4], 1;\n"
        "  call.uni __assertfail, (param0, param1, param2, param3, param4);\n  }\n"
        "$OK:\n"
        "  ret;\n}\n"
        ".file 1 \"k.cu\"\n";
    EXPECT(load(&f, assert_ptx, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 32, NULL, NULL) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "thread 5 of block 0 failed an assert() (k.cu:12)") != NULL);
    fx_done(&f);

    static const char *recursive = HEAD
        ".func g(.param .b32 g_a)\n{\n"
        "  { .param .b32 param0; st.param.b32 [param0], 1;\n"
        "  call.uni g, (param0);\n  }\n"
        "  ret;\n}\n"
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  { .param .b32 param0; st.param.b32 [param0], 1;\n"
        "  call.uni g, (param0);\n  }\n"
        "  ret;\n}\n";
    EXPECT(load(&f, recursive, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 1, NULL, NULL) == EMU_FAULT);
    EXPECT(strstr(f.err.message, "a recursion that does not end?") != NULL);
    fx_done(&f);
}

/* %clock advances with the instructions, not with the host's time. */
static void clock_counts_instructions(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .b64 %rd<5>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u64 %rd2, %clock64;\n"
        "  mov.u64 %rd3, %clock64;\n"
        "  sub.s64 %rd4, %rd3, %rd2;\n"
        "  st.global.u64 [%rd1], %rd4;\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    unsigned long long out = 0;
    emu_mem_map(f.e, &out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 1, &out, NULL) == EMU_OK);
    EXPECT(out > 0 && out < 100);
    unsigned long long first = out;
    EXPECT(launch2(&f, 1, 1, &out, NULL) == EMU_OK);
    EXPECT(out == first);
    fx_done(&f);

    /* a quarter second's wait on %globaltimer, sleeping 1 ms a turn: about
     * 250 turns of a few instructions, not a budget's worth of spinning */
    static const char *wait = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<2>; .reg .b32 %r<2>; .reg .b64 %rd<4>;\n"
        "  mov.u64 %rd1, %globaltimer;\n"
        "  add.s64 %rd2, %rd1, 250000000;\n"
        "$L:\n"
        "  nanosleep.u32 1000000;\n"
        "  mov.u64 %rd3, %globaltimer;\n"
        "  setp.lt.u64 %p1, %rd3, %rd2;\n"
        "  @%p1 bra $L;\n"
        "  ret;\n}\n";
    EXPECT(load(&f, wait, 0) == EMU_OK);
    EXPECT(launch2(&f, 1, 1, NULL, NULL) == EMU_OK);
    struct emu_stats st;
    emu_stats(f.e, &st);
    EXPECT(st.warp_instructions > 4 * 200 && st.warp_instructions < 4 * 300);
    fx_done(&f);
}

/* What a GPU shows a kernel, the emulator shows too: %globaltimer is the
 * date in nanoseconds (not an epoch of its own that one comparison could
 * tell), and %gridid a launch's own number, never the constant 1. */
static void special_registers_as_on_gpu(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .b64 %rd<4>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u64 %rd2, %globaltimer;\n"
        "  mov.u64 %rd3, %gridid;\n"
        "  st.global.v2.u64 [%rd1], {%rd2, %rd3};\n"
        "  ret;\n}\n";
    struct fx f;
    unsigned long long out[2][2];
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    emu_mem_map(f.e, out, sizeof out, "d_out");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long now = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
    EXPECT(launch2(&f, 1, 1, out[0], NULL) == EMU_OK);
    EXPECT(launch2(&f, 1, 1, out[1], NULL) == EMU_OK);
    EXPECT(out[0][0] >= now && out[0][0] - now < 10000000000ull);
    EXPECT(out[1][0] >= out[0][0]);
    EXPECT(out[0][1] != 1 && out[1][1] != 1 && out[0][1] != out[1][1]);
    fx_done(&f);
}

/* A few ALU forms against their definitions (the exhaustive tests live in
 * test_emu_ops*). */
static void alu_spot_checks(void)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out, .param .u64 unused)\n{\n"
        "  .reg .pred %p<3>; .reg .b32 %r<16>; .reg .f32 %f<6>; .reg .b64 %rd<3>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  cvt.rzi.s32.f32 %r1, 0fC0600000;\n"      /* -3.5 -> -3 */
        "  cvt.rni.s32.f32 %r2, 0f40200000;\n"      /* 2.5 -> 2 */
        "  cvt.rmi.s32.f32 %r3, 0fC0600000;\n"      /* -3.5 -> -4 */
        "  cvt.sat.u8.s32 %r4, 300;\n"
        "  cvt.rzi.s32.f32 %r5, 0f7F800000;\n"      /* inf saturates */
        "  setp.gtu.f32 %p1, 0f7FC00000, 0f00000000;\n"
        "  selp.u32 %r6, 1, 0, %p1;\n"
        "  setp.lt.and.s32 %p2, -1, 0, %p1;\n"
        "  selp.u32 %r7, 1, 0, %p2;\n"
        "  bfe.s32 %r8, 240, 4, 4;\n"
        "  bfi.b32 %r9, 5, 0, 8, 3;\n"
        "  prmt.b32 %r10, 0x03020100, 0x07060504, 0x4321;\n"
        "  shr.s32 %r11, -64, 40;\n"
        "  bfind.u32 %r12, 0x10;\n"
        "  min.f32 %f1, 0f7FC00000, 0f40000000;\n"
        "  mov.b32 %r13, %f1;\n"
        "  popc.b32 %r14, 0xf0f0;\n"
        "  clz.b32 %r15, 1;\n"
        "  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n"
        "  st.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};\n"
        "  st.global.v4.u32 [%rd1+32], {%r9, %r10, %r11, %r12};\n"
        "  st.global.v4.u32 [%rd1+48], {%r13, %r14, %r15, %r15};\n"
        "  ret;\n}\n";
    struct fx f;
    EXPECT(load(&f, ptx, 0) == EMU_OK);
    int out[16] = {0};
    emu_mem_map(f.e, out, sizeof out, "d_out");
    EXPECT(launch2(&f, 1, 1, out, NULL) == EMU_OK);
    EXPECT(out[0] == -3 && out[1] == 2 && out[2] == -4 && out[3] == 255);
    EXPECT(out[4] == 2147483647 && out[5] == 1 && out[6] == 1 && out[7] == -1);
    EXPECT(out[8] == 5 << 8 && (unsigned)out[9] == 0x04030201u && out[10] == -1 && out[11] == 4);
    float two = 2.0f;
    int two_bits;
    memcpy(&two_bits, &two, 4);
    EXPECT(out[12] == two_bits && out[13] == 8 && out[14] == 31);
    fx_done(&f);
}

TAP_MAIN(T(divergence_reconverges), T(per_lane_loop), T(barrier_orders_block),
         T(barrier_reduction_and_deadlock), T(shuffles), T(shuffle_names_exited_lane), T(shuffle_caller_outside_mask), T(votes),
         T(atomics), T(threads_run_blocks_side_by_side), T(out_of_bounds_names_buffer), T(shared_bounds), T(generic_addresses),
         T(volatile_tail_is_a_race), T(warp_barrier_across_branches), T(uninitialised_shared_read), T(uninitialised_register), T(blocks_writing_one_word), T(last_block_needs_fences),
         T(last_block_fence_after_ticket), T(barrier_in_divergent_code), T(shared_definedness),
         T(strong_stores_across_blocks), T(registers_start_as_junk), T(async_copies), T(mbarriers), T(clusters), T(lent_buffers), T(recursion), T(indirect_calls), T(local_memory_per_kernel), T(divisions_counted), T(device_heap), T(trap_is_a_fault), T(half_atomics), T(warp_size_constant), T(address_initialisers), T(jump_tables),
         T(block_waits_for_later_block), T(finish_order_follows_seed_and_launch),
         T(lowest_failing_block_reported), T(resident_writer_release),
         T(budget_stops_endless_loop), T(unknown_instruction_is_unsupported),
         T(commented_entry_is_ignored), T(malformed_text_names_line), T(malformed_operands_refused), T(nested_scopes),
         T(carry_chain), T(printf_formats), T(function_calls), T(clock_counts_instructions), T(special_registers_as_on_gpu), T(alu_spot_checks))
