/* test_emu_count.c — the emulator's counters (tutor/emu/emu_count.h) on
 * hand-written PTX whose counts follow from the addresses and branches by
 * hand: a strided shared access of a known conflict degree, 64- and
 * 128-bit shared accesses, coalesced against strided global loads, a
 * divergent branch against a uniform one, barriers and same-address
 * atomics.  Every expected figure is worked out in the comment above it. */
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu/emu_count.h"
#include "tap.h"

#define HEAD ".version 9.0\n.target sm_90\n.address_size 64\n"

struct fx {
    struct emu *e;
    struct emu_module *m;
    struct emu_error err;
    struct emu_counters c;
};

/* Loads PTX, launches its first kernel on GRID blocks of BLOCK threads
 * with one pointer argument (and a u32 STRIDE), and reads the counters. */
static enum emu_status run(struct fx *f, const char *ptx, unsigned grid, unsigned block, void *p,
                           size_t bytes, unsigned stride)
{
    struct emu_config cfg = {.seed = 3, .budget = 1u << 24, .counters = 1};
    enum emu_status st;
    memset(f, 0, sizeof *f);
    if (!(f->e = emu_new(&cfg)))
        return EMU_NOMEM;
    if ((st = emu_module_load(f->e, ptx, strlen(ptx), &f->m, &f->err)) != EMU_OK)
        return st;
    if (p && emu_mem_map(f->e, p, bytes, "d_out"))
        return EMU_NOMEM;
    void *args[2] = {&p, &stride};
    struct emu_launch l = {.grid = {grid, 1, 1}, .block = {block, 1, 1}, .args = args};
    st = emu_launch(f->e, emu_module_kernel_at(f->m, 0), &l, &f->err);
    emu_counters_get(f->e, &f->c);
    return st;
}

static void done(struct fx *f)
{
    emu_module_unload(f->m);
    emu_free(f->e);
}

/* BYTES of zeros at a 128-byte boundary, as cudaMalloc gives them. */
static void *zeroed(size_t bytes)
{
    void *p = aligned_alloc(128, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

#define C(f, name) ((f)->c.v[EMU_CNT_##name])

/* ---- the pure counts --------------------------------------------------------------- */

static void wavefronts_by_hand(void)
{
    uint32_t off[32];
    /* 32-bit words, stride 1: 32 banks once each, 1 wavefront */
    for (int l = 0; l < 32; l++)
        off[l] = 4u * (uint32_t)l;
    EXPECT(emu_count_wavefronts(off, ~0u, 4) == 1);
    /* stride 2 words: lanes l and l + 16 share bank 2l mod 32 with
     * different words: 2 wavefronts; stride 8: 8 lanes a bank, 8 */
    for (int l = 0; l < 32; l++)
        off[l] = 8u * (uint32_t)l;
    EXPECT(emu_count_wavefronts(off, ~0u, 4) == 2);
    for (int l = 0; l < 32; l++)
        off[l] = 32u * (uint32_t)l;
    EXPECT(emu_count_wavefronts(off, ~0u, 4) == 8);
    /* stride 32 words: every lane in bank 0, 32 words: 32 wavefronts;
     * only the even lanes: 16 */
    for (int l = 0; l < 32; l++)
        off[l] = 128u * (uint32_t)l;
    EXPECT(emu_count_wavefronts(off, ~0u, 4) == 32);
    EXPECT(emu_count_wavefronts(off, 0x55555555u, 4) == 16);
    /* every lane the same word: a broadcast, 1 */
    for (int l = 0; l < 32; l++)
        off[l] = 64;
    EXPECT(emu_count_wavefronts(off, ~0u, 4) == 1);
    /* bytes of one word (a char each): one word, 1 */
    for (int l = 0; l < 32; l++)
        off[l] = (uint32_t)l / 8 * 4 + (uint32_t)l % 4;
    EXPECT(emu_count_wavefronts(off, ~0u, 1) == 1);
    /* 64-bit, consecutive: each half warp covers the 32 banks once: 2;
     * 128-bit consecutive: each quarter warp once: 4 */
    for (int l = 0; l < 32; l++)
        off[l] = 8u * (uint32_t)l;
    EXPECT(emu_count_wavefronts(off, ~0u, 8) == 2);
    for (int l = 0; l < 32; l++)
        off[l] = 16u * (uint32_t)l;
    EXPECT(emu_count_wavefronts(off, ~0u, 16) == 4);
    /* 64-bit at a stride of two doubles: in a half warp lanes l and l + 8
     * meet in banks 4l and 4l + 1 mod 32: 2 a half warp, 4 */
    for (int l = 0; l < 32; l++)
        off[l] = 16u * (uint32_t)l;
    EXPECT(emu_count_wavefronts(off, ~0u, 8) == 4);
    /* only the first half warp active: 1 */
    for (int l = 0; l < 32; l++)
        off[l] = 8u * (uint32_t)l;
    EXPECT(emu_count_wavefronts(off, 0xffffu, 8) == 1);
}

static void sectors_by_hand(void)
{
    uint64_t a[32];
    /* 32 consecutive ints from a 128-byte boundary: 4 sectors */
    for (int l = 0; l < 32; l++)
        a[l] = 0x10000 + 4u * (uint64_t)l;
    EXPECT(emu_count_sectors(a, ~0u, 4) == 4);
    /* shifted by one int: 5 */
    for (int l = 0; l < 32; l++)
        a[l] = 0x10004 + 4u * (uint64_t)l;
    EXPECT(emu_count_sectors(a, ~0u, 4) == 5);
    /* a stride of 32 bytes or more: a sector a lane, 32 */
    for (int l = 0; l < 32; l++)
        a[l] = 0x10000 + 128u * (uint64_t)l;
    EXPECT(emu_count_sectors(a, ~0u, 4) == 32);
    /* int4 (16 bytes), consecutive: 512 bytes, 16 sectors */
    for (int l = 0; l < 32; l++)
        a[l] = 0x10000 + 16u * (uint64_t)l;
    EXPECT(emu_count_sectors(a, ~0u, 16) == 16);
    /* one address for all: 1 */
    for (int l = 0; l < 32; l++)
        a[l] = 0x10040;
    EXPECT(emu_count_sectors(a, ~0u, 4) == 1);
}

/* ---- counted in a launch ----------------------------------------------------------- */

/* Each thread stores its tid at sdata[tid * stride], then reads it back and
 * writes it to out[tid * stride]: shared and global at one stride. */
static const char *strided_ptx = HEAD
    ".visible .entry k(.param .u64 out, .param .u32 stride)\n{\n"
    "  .shared .align 4 .b8 sdata[16384];\n"
    "  .reg .b32 %r<8>; .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [stride];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  mul.lo.u32 %r3, %r2, %r1;\n"
    "  shl.b32 %r4, %r3, 2;\n"
    "  mov.u32 %r5, sdata;\n"
    "  add.s32 %r6, %r5, %r4;\n"
    "  st.shared.u32 [%r6], %r2;\n"
    "  bar.sync 0;\n"
    "  ld.shared.u32 %r7, [%r6];\n"
    "  mul.wide.u32 %rd2, %r3, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r7;\n"
    "  ret;\n}\n";

static void strided_shared_conflicts(void)
{
    /* 64 threads = 2 warps, stride 4 words: banks 4l mod 32 hold lanes l
     * and l + 8, 16, 24: 4-way, 4 wavefronts a request, 2 requests each
     * way.  Stores to out at 16-byte steps: lanes 2k and 2k + 1 share a
     * sector, 16 sectors a warp request. */
    int *out = zeroed(64 * 4 * sizeof(int));
    struct fx f;
    EXPECT(run(&f, strided_ptx, 1, 64, out, 64 * 4 * sizeof *out, 4) == EMU_OK);
    EXPECT(C(&f, sh_st_req) == 2 && C(&f, sh_st_wf) == 8);
    EXPECT(C(&f, sh_ld_req) == 2 && C(&f, sh_ld_wf) == 8);
    EXPECT(C(&f, gl_st_req) == 2 && C(&f, gl_st_sec) == 32);
    EXPECT(C(&f, uniq_wr) == 32 && C(&f, uniq_rd) == 0);
    /* one bar.sync a warp, 32 threads each */
    EXPECT(C(&f, bar_warp) == 2 && C(&f, bar_thread) == 64);
    /* 14 instructions, all lanes of both warps, no branch */
    EXPECT(C(&f, warp_inst) == 2 * 14 && C(&f, thread_inst) == 64 * 14);
    EXPECT(C(&f, thread_inst_on) == C(&f, thread_inst));
    EXPECT(C(&f, branches) == 0 && C(&f, div_branches) == 0 && C(&f, launches) == 1);
    EXPECT(C(&f, blocks) == 1 && C(&f, threads) == 64);
    EXPECT(out[4 * 63] == 63);
    done(&f);
    /* stride 1: conflict-free (1 wavefront a request), coalesced: 4
     * sectors a warp request */
    memset(out, 0, 64 * 4 * sizeof *out);
    EXPECT(run(&f, strided_ptx, 1, 64, out, 64 * 4 * sizeof *out, 1) == EMU_OK);
    EXPECT(C(&f, sh_st_wf) == 2 && C(&f, sh_ld_wf) == 2);
    EXPECT(C(&f, gl_st_req) == 2 && C(&f, gl_st_sec) == 8 && C(&f, uniq_wr) == 8);
    done(&f);
    free(out);
}

/* out[tid * stride] read by every thread, summed into out[0] by thread 0
 * of each warp after a shuffle-free loop: a coalesced or strided load. */
static const char *load_ptx = HEAD
    ".visible .entry k(.param .u64 out, .param .u32 stride)\n{\n"
    "  .reg .b32 %r<6>; .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [stride];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  mul.lo.u32 %r3, %r2, %r1;\n"
    "  mul.wide.u32 %rd2, %r3, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  ld.global.u32 %r4, [%rd3];\n"
    "  ld.global.u32 %r5, [%rd3];\n"
    "  ret;\n}\n";

static void coalesced_against_strided(void)
{
    int *in = zeroed(32 * 32 * sizeof(int));
    struct fx f;
    /* 32 threads, 2 loads of 32 consecutive ints: 2 requests, 4 sectors
     * each; the second load reads the same 4 sectors, 4 unique */
    EXPECT(run(&f, load_ptx, 1, 32, in, 32 * 32 * sizeof *in, 1) == EMU_OK);
    EXPECT(C(&f, gl_ld_req) == 2 && C(&f, gl_ld_sec) == 8 && C(&f, uniq_rd) == 4);
    done(&f);
    /* stride 32 ints (128 bytes): a sector per lane, 32 a request */
    EXPECT(run(&f, load_ptx, 1, 32, in, 32 * 32 * sizeof *in, 32) == EMU_OK);
    EXPECT(C(&f, gl_ld_req) == 2 && C(&f, gl_ld_sec) == 64 && C(&f, uniq_rd) == 32);
    done(&f);
    /* two blocks read the same ints: unique sectors are per launch, 4 */
    EXPECT(run(&f, load_ptx, 2, 32, in, 32 * 32 * sizeof *in, 1) == EMU_OK);
    EXPECT(C(&f, gl_ld_req) == 4 && C(&f, gl_ld_sec) == 16 && C(&f, uniq_rd) == 4);
    done(&f);
    free(in);
}

/* Odd lanes branch over one instruction; then a branch on a value every
 * lane shares (the stride parameter) that all lanes take. */
static const char *branch_ptx = HEAD
    ".visible .entry k(.param .u64 out, .param .u32 stride)\n{\n"
    "  .reg .pred %p<3>; .reg .b32 %r<6>;\n"
    "  ld.param.u32 %r1, [stride];\n"
    "  mov.u32 %r2, %tid.x;\n"
    "  and.b32 %r3, %r2, 1;\n"
    "  setp.ne.u32 %p1, %r3, 0;\n"
    "  @%p1 bra $SKIP;\n"
    "  add.u32 %r4, %r2, 1;\n"
    "$SKIP:\n"
    "  setp.ne.u32 %p2, %r1, 0;\n"
    "  @%p2 bra $END;\n"
    "  add.u32 %r5, %r2, 2;\n"
    "$END:\n"
    "  ret;\n}\n";

static void divergent_branch(void)
{
    struct fx f;
    /* 2 warps: each takes the first branch with its odd lanes (divergent)
     * and the second with all lanes (uniform): 4 branches, 2 divergent.
     * Instructions a warp: 5 up to the first bra, the add for the even
     * lanes, setp, bra, ret = 9; the add after the second bra is skipped. */
    EXPECT(run(&f, branch_ptx, 1, 64, NULL, 0, 1) == EMU_OK);
    EXPECT(C(&f, branches) == 4 && C(&f, div_branches) == 2);
    EXPECT(C(&f, warp_inst) == 2 * 9);
    /* the even lanes alone at the add (16 of 32), all 32 elsewhere; the
     * first bra lets its 16 odd lanes run, the second all 32 */
    EXPECT(C(&f, thread_inst) == 2 * (8 * 32 + 16));
    EXPECT(C(&f, thread_inst_on) == 2 * (7 * 32 + 16 + 16));
    done(&f);
    /* stride 0: the second branch is taken by no lane (uniform), and the
     * add after it runs: 10 a warp */
    EXPECT(run(&f, branch_ptx, 1, 64, NULL, 0, 0) == EMU_OK);
    EXPECT(C(&f, branches) == 4 && C(&f, div_branches) == 2 && C(&f, warp_inst) == 2 * 10);
    done(&f);
}

/* Every thread adds 1 to out[tid % stride] with INSN (REGS: its float
 * register, if it needs one). */
#define ATOM_PTX(REGS, INSN) HEAD \
    ".visible .entry k(.param .u64 out, .param .u32 stride)\n{\n" \
    "  .reg .b32 %r<6>; " REGS ".reg .b64 %rd<4>;\n" \
    "  ld.param.u64 %rd1, [out];\n" \
    "  ld.param.u32 %r1, [stride];\n" \
    "  mov.u32 %r2, %tid.x;\n" \
    "  rem.u32 %r3, %r2, %r1;\n" \
    "  mul.wide.u32 %rd2, %r3, 4;\n" \
    "  add.s64 %rd3, %rd1, %rd2;\n" \
    INSN \
    "  ret;\n}\n"
static const char *atom_ptx = ATOM_PTX("", "  atom.global.add.u32 %r4, [%rd3], 1;\n");
/* The same with a float add, which no compiler combines across a warp. */
static const char *fatom_ptx = ATOM_PTX(".reg .f32 %f<2>; ", "  red.global.add.f32 [%rd3], 0f3F800000;\n");

static void same_address_atomics(void)
{
    int out[32] = {0};
    struct fx f;
    /* 32 threads on one word: 1 request, 32 threads, all 32 share it; an
     * integer add is one update of the word for the warp */
    EXPECT(run(&f, atom_ptx, 1, 32, out, sizeof out, 1) == EMU_OK);
    EXPECT(C(&f, atom_req) == 1 && C(&f, atom_thread) == 32 && C(&f, atom_same) == 32 && out[0] == 32);
    EXPECT(C(&f, uniq_rd) == 1 && C(&f, uniq_wr) == 1);
    EXPECT(C(&f, atom_hot) == 1);
    done(&f);
    /* 96 threads, three warps, two words: the busiest (tid % 2 == 0) takes
     * one update from each warp */
    memset(out, 0, sizeof out);
    EXPECT(run(&f, atom_ptx, 1, 96, out, sizeof out, 2) == EMU_OK);
    EXPECT(C(&f, atom_hot) == 3 && out[0] == 48);
    done(&f);
    /* each its own word: none share */
    memset(out, 0, sizeof out);
    EXPECT(run(&f, atom_ptx, 1, 32, out, sizeof out, 32) == EMU_OK);
    EXPECT(C(&f, atom_req) == 1 && C(&f, atom_same) == 0 && out[31] == 1);
    EXPECT(C(&f, atom_hot) == 1);
    done(&f);
    /* float adds to one word: every lane's is an update of its own */
    float fout[32] = {0};
    EXPECT(run(&f, fatom_ptx, 1, 96, fout, sizeof fout, 2) == EMU_OK);
    EXPECT(C(&f, atom_hot) == 48 && fout[1] == 48.0f);
    done(&f);
}

/* Launches add up; the shape combines by its own rule. */
static void launches_accumulate(void)
{
    int *in = zeroed(32 * sizeof(int));
    struct fx f;
    EXPECT(run(&f, load_ptx, 1, 32, in, 32 * sizeof *in, 1) == EMU_OK);
    void *p = in;
    unsigned stride = 1;
    void *args[2] = {&p, &stride};
    struct emu_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .args = args};
    emu_counters_shape(f.e, 40, 6);
    EXPECT(emu_launch(f.e, emu_module_kernel_at(f.m, 0), &l, &f.err) == EMU_OK);
    emu_counters_shape(f.e, 32, 8);
    emu_counters_get(f.e, &f.c);
    EXPECT(C(&f, launches) == 2 && C(&f, gl_ld_req) == 4 && C(&f, uniq_rd) == 8 && C(&f, threads) == 64);
    EXPECT(C(&f, regs) == 40 && C(&f, blocks_sm) == 6);
    emu_counters_reset(f.e);
    emu_counters_get(f.e, &f.c);
    EXPECT(C(&f, launches) == 0 && C(&f, gl_ld_req) == 0);
    EXPECT(emu_counter_find("shared_load_wavefronts") == EMU_CNT_sh_ld_wf && emu_counter_find("nope") < 0);
    done(&f);
    free(in);
}

TAP_MAIN(T(wavefronts_by_hand), T(sectors_by_hand), T(strided_shared_conflicts), T(coalesced_against_strided),
         T(divergent_branch), T(same_address_atomics), T(launches_accumulate))
