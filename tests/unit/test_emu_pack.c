/* test_emu_pack.c — registers packed into shared slots (tutor/emu/emu_pack.c)
 * and a module's variables reset (emu_module_reset): each kernel is
 * written so that a wrong packing changes its result (two values live at
 * once in one slot, a write clobbering a source the same instruction still
 * reads), and its expected output is computed here from its definition. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "emu_fixture.h"
#include "tap.h"

#define HEAD ".version 9.0\n.target sm_90\n.address_size 64\n"
/* A kernel k(out) whose thread t holds t in %r0 and &out[t] in %rd3. */
#define ENTRY_TEXT(regs)                                                                   \
    ".visible .entry k(.param .u64 out)\n{\n"                                            \
    "  .reg .pred %p<4>;\n  .reg .b32 %r<" regs ">;\n  .reg .b64 %rd<8>;\n"              \
    "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"                    \
    "  mov.u32 %r0, %tid.x;\n  mul.wide.u32 %rd2, %r0, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
#define ENTRY_FMT                                                                          \
    ".visible .entry k(.param .u64 out)\n{\n"                                            \
    "  .reg .pred %%p<4>;\n  .reg .b32 %%r<%s>;\n  .reg .b64 %%rd<8>;\n"                 \
    "  ld.param.u64 %%rd1, [out];\n  cvta.to.global.u64 %%rd1, %%rd1;\n"                 \
    "  mov.u32 %%r0, %%tid.x;\n  mul.wide.u32 %%rd2, %%r0, 4;\n  add.s64 %%rd3, %%rd1, %%rd2;\n"

static enum emu_status load(struct fx *f, const char *ptx)
{
    struct emu_config cfg = {.seed = 11, .hazards = 1, .budget = 1u << 24};
    return fx_load(f, ptx, &cfg);
}

/* One block of THREADS threads, OUT (a word a thread) mapped for it. */
static enum emu_status run(struct fx *f, unsigned threads, uint32_t *out)
{
    const struct emu_kernel *k = f->m ? emu_module_kernel_at(f->m, 0) : NULL;
    if (!k || emu_mem_map(f->e, out, threads * sizeof *out, "out"))
        return EMU_PARSE;
    void *args[1] = {&out};
    struct emu_launch l = {.grid = {1, 1, 1}, .block = {threads, 1, 1}, .args = args};
    enum emu_status st = emu_launch(f->e, k, &l, &f->err);
    emu_mem_unmap(f->e, out);
    return st;
}

static int slots(const struct fx *f)
{
    struct emu_kernel_info info;
    const struct emu_kernel *k = f->m ? emu_module_kernel_at(f->m, 0) : NULL;
    if (!k)
        return -1;
    emu_kernel_info(k, &info);
    return info.slots;
}

static char *append(char *p, const char *end, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static char *append(char *p, const char *end, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p, (size_t)(end - p), fmt, ap);
    va_end(ap);
    return n > 0 && p + n < end ? p + n : (char *)end;
}

/* The kernel's opening lines (REGS: its %r count) at P. */
static char *opening(char *p, const char *end, const char *regs)
{
    return append(p, end, "%s", HEAD) == end ? (char *)end
                                             : append(p + strlen(HEAD), end, ENTRY_FMT, regs);
}

/* 200 values one after another, each read by the next two: they fit in a
 * few slots, and the result is the chain's. */
static void chain_packs(void)
{
    static char ptx[32768];
    char *p = ptx, *end = ptx + sizeof ptx;
    p = append(opening(p, end, "210"), end, "  mov.u32 %%r1, %%r0;\n");
    for (int k = 1; k <= 200; k++)
        p = append(p, end, "  mad.lo.s32 %%r%d, %%r%d, 3, %%r%d;\n", k + 1, k, k > 1 ? k - 1 : 0);
    append(p, end, "  st.global.u32 [%%rd3], %%r%d;\n  ret;\n}\n", 201);
    struct fx f;
    EXPECT(load(&f, ptx) == EMU_OK);
    EXPECT(slots(&f) > 0 && slots(&f) < 20);
    uint32_t out[64];
    EXPECT(run(&f, 64, out) == EMU_OK);
    for (uint32_t t = 0; t < 64; t++) {
        /* x[1] = t, x[k+1] = 3 x[k] + x[k-1] (x[0] = t) */
        uint32_t prev = t, x = t;
        for (uint32_t k = 1; k <= 200; k++) {
            uint32_t next = x * 3 + prev;
            prev = x;
            x = next;
        }
        EXPECT(out[t] == x);
    }
    fx_done(&f);
}

/* 40 values live at once, then folded in an order that tells each from
 * the others: no two of them may share a slot. */
static void live_values_keep_slots(void)
{
    static char ptx[16384];
    char *p = ptx, *end = ptx + sizeof ptx;
    p = opening(p, end, "91");
    for (int k = 1; k <= 40; k++)
        p = append(p, end, "  mad.lo.s32 %%r%d, %%r0, %d, %d;\n", k, 2 * k + 1, k * k);
    p = append(p, end, "  mov.u32 %%r50, 0;\n");
    for (int k = 1; k <= 40; k++)
        p = append(p, end, "  mad.lo.s32 %%r%d, %%r%d, 31, %%r%d;\n", 50 + k, 49 + k, k);
    append(p, end, "  st.global.u32 [%%rd3], %%r%d;\n  ret;\n}\n", 90);
    struct fx f;
    EXPECT(load(&f, ptx) == EMU_OK);
    EXPECT(slots(&f) >= 40);
    uint32_t out[64];
    EXPECT(run(&f, 64, out) == EMU_OK);
    for (uint32_t t = 0; t < 64; t++) {
        uint32_t acc = 0;
        for (uint32_t k = 1; k <= 40; k++)
            acc = acc * 31 + (t * (2 * k + 1) + k * k);
        EXPECT(out[t] == acc);
    }
    fx_done(&f);
}

/* A value set before a loop and read after it, temporaries in the loop's
 * body, and a 64-bit value unpacked into two halves as it dies (the
 * halves must not take its slot while the unpack still reads it). */
static const char *loop_ptx = HEAD ENTRY_TEXT("20")
    "  add.s32 %r1, %r0, 1000;\n"           /* live across the loop */
    "  mov.u32 %r2, 0;\n"                   /* the sum */
    "  mov.u32 %r3, 0;\n"                   /* i */
    "LOOP:\n"
    "  mul.lo.s32 %r4, %r3, %r3;\n"
    "  add.s32 %r5, %r4, %r0;\n"
    "  xor.b32 %r6, %r5, %r3;\n"
    "  add.s32 %r2, %r2, %r6;\n"
    "  add.s32 %r3, %r3, 1;\n"
    "  setp.lt.u32 %p1, %r3, 10;\n"
    "  @%p1 bra LOOP;\n"
    "  cvt.u64.u32 %rd4, %r1;\n"
    "  shl.b64 %rd5, %rd4, 32;\n"
    "  cvt.u64.u32 %rd6, %r2;\n"
    "  or.b64 %rd7, %rd5, %rd6;\n"
    "  mov.b64 {%r10, %r11}, %rd7;\n"
    "  mad.lo.s32 %r12, %r11, 65536, %r10;\n"
    "  st.global.u32 [%rd3], %r12;\n"
    "  ret;\n}\n";

static void loop_and_unpack(void)
{
    struct fx f;
    EXPECT(load(&f, loop_ptx) == EMU_OK);
    uint32_t out[32];
    EXPECT(run(&f, 32, out) == EMU_OK);
    for (uint32_t t = 0; t < 32; t++) {
        uint32_t sum = 0;
        for (uint32_t i = 0; i < 10; i++)
            sum += (i * i + t) ^ i;
        EXPECT(out[t] == (t + 1000) * 65536 + sum);
    }
    fx_done(&f);
}

/* A register read before anything wrote it, among packed ones: still its
 * own, still undefined, and its use in the result still a hazard. */
static void open_register_stays_undefined(void)
{
    static char ptx[16384];
    char *p = ptx, *end = ptx + sizeof ptx;
    p = append(opening(p, end, "70"), end, "  mov.u32 %%r1, %%r0;\n");
    for (int k = 1; k <= 60; k++)
        p = append(p, end, "  add.s32 %%r%d, %%r%d, %%r0;\n", k + 1, k);
    append(p, end, "  add.s32 %%r62, %%r61, %%r65;\n  st.global.u32 [%%rd3], %%r62;\n  ret;\n}\n");
    struct fx f;
    EXPECT(load(&f, ptx) == EMU_OK);
    EXPECT(slots(&f) < 20);
    uint32_t out[32];
    EXPECT(run(&f, 32, out) == EMU_HAZARD);
    EXPECT(strstr(f.err.message, "undefined") != NULL);
    fx_done(&f);
}

/* A .global counter the kernel bumps: launches see it grow, and a reset
 * gives it its initial value again, as a fresh load would. */
static const char *counter_ptx = HEAD
    ".global .align 4 .u32 count = 5;\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    "  ld.global.u32 %r1, [count];\n  add.s32 %r2, %r1, 1;\n  st.global.u32 [count], %r2;\n"
    "  st.global.u32 [%rd1], %r2;\n  ret;\n}\n";

static void reset_restores_variables(void)
{
    struct fx f;
    EXPECT(load(&f, counter_ptx) == EMU_OK);
    uint32_t out = 0;
    EXPECT(run(&f, 1, &out) == EMU_OK && out == 6);
    EXPECT(run(&f, 1, &out) == EMU_OK && out == 7);
    emu_module_reset(f.m);
    EXPECT(run(&f, 1, &out) == EMU_OK && out == 6);
    fx_done(&f);
}

int main(void)
{
    static const struct tap_test tests[] = {
        {"a chain of 200 registers, each read by the next two, runs in under 20 slots, its result exact", chain_packs},
        {"40 values live at once keep 40 slots, each value its own", live_values_keep_slots},
        {"a value live across a loop and a dying 64-bit value unpacked keep theirs", loop_and_unpack},
        {"a register read before any write stays undefined among packed ones", open_register_stays_undefined},
        {"emu_module_reset gives a .global variable its initial value again", reset_restores_variables},
    };
    return tap_run(tests, (int)(sizeof tests / sizeof *tests));
}
