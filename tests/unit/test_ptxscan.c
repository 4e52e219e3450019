/* test_ptxscan.c — the PTX facts read through the emulator's tokenizer
 * (tutor/emu/emu_ptxscan.h) for the rules and the judge's plans: each
 * instruction's opcode and nothing else, and a kernel's parameters and
 * local frame as its .entry declares them, whatever comments and strings
 * say. */
#include <string.h>

#include "emu/emu_ptxscan.h"
#include "tap.h"

static char seen[512];

static int collect(void *ud, const char *op, int len)
{
    (void)ud;
    size_t at = strlen(seen);
    snprintf(seen + at, sizeof seen - at, "%.*s ", len, op);
    return 0;
}

static const char *opcodes(const char *ptx)
{
    seen[0] = '\0';
    emu_ptx_opcodes(ptx, strlen(ptx), collect, NULL);
    return seen;
}

static int stop_at_second(void *ud, const char *op, int len)
{
    (void)op;
    (void)len;
    return ++*(int *)ud == 2 ? 7 : 0;
}

static void opcodes_in_order(void)
{
    EXPECT_STR(opcodes(".version 9.0\n.target sm_90\n.address_size 64\n"
                       ".visible .entry k(\n\t.param .u64 k_param_0\n)\n.maxntid 256, 1, 1\n{\n"
                       "\t.reg .b32 %r<3>;\n\t.loc 1 4 2\n\tld.param.u64 %rd1, [k_param_0];\n"
                       "$L__BB0_1:\n\t@%p1 bra.uni $L__BB0_1;\n\t@!%p1 bar.sync 0;\n"
                       "\t{ .reg .pred p; setp.ne.s32 p, %r1, 0; }\n\tret;\n}\n"),
               "ld.param.u64 bra.uni bar.sync setp.ne.s32 ret ");
    /* Comments and strings hold no instruction. */
    EXPECT_STR(opcodes("// bar.sync 0;\n/* shfl.sync.down.b32 */ .file 1 \"red.add\"\n\tadd.s32 %r1, %r2, 3;\n"),
               "add.s32 ");
    const char *three = "\tmov.u32 %r1, 1;\n\tadd.u32 %r1, %r1, 1;\n\tret;\n";
    int calls = 0;
    EXPECT(emu_ptx_opcodes(three, strlen(three), stop_at_second, &calls) == 7);
    EXPECT(calls == 2);
}

static void entry_parameters(void)
{
    const char *ptx = "// .entry k(.param .u32 fake)\n"
                      ".visible .entry k_other(\n\t.param .u32 a\n)\n{\n\tret;\n}\n"
                      ".visible .entry k(\n\t.param .u64 .ptr .global .align 1 k_param_0,\n"
                      "\t.param .align 8 .b8 k_param_1[24],\n\t.param .f32 k_param_2\n)\n{\n"
                      "\t.local .align 8 .b8 \t__local_depot1[40];\n\tret;\n}\n"
                      ".visible .entry k_last()\n{\n\tret;\n}\n";
    unsigned sizes[8], local = 99;
    EXPECT(emu_ptx_entry(ptx, strlen(ptx), "k", sizes, 8, &local) == 3);
    EXPECT(sizes[0] == 8 && sizes[1] == 24 && sizes[2] == 4 && local == 40);
    EXPECT(emu_ptx_entry(ptx, strlen(ptx), "k_other", sizes, 8, &local) == 1);
    EXPECT(sizes[0] == 4 && local == 0);
    EXPECT(emu_ptx_entry(ptx, strlen(ptx), "k_last", sizes, 8, &local) == 0);
    /* No such entry; more parameters than room; a width that is no type. */
    EXPECT(emu_ptx_entry(ptx, strlen(ptx), "fake", sizes, 8, &local) == -1);
    EXPECT(emu_ptx_entry(ptx, strlen(ptx), "k", sizes, 2, &local) == -1);
    const char *odd = ".visible .entry q(\n\t.param .pred q_param_0\n)\n{\n\tret;\n}\n";
    EXPECT(emu_ptx_entry(odd, strlen(odd), "q", sizes, 8, &local) == -1);
}

static int collect_name(void *ud, const char *name, int len)
{
    (void)ud;
    size_t at = strlen(seen);
    snprintf(seen + at, sizeof seen - at, "%.*s ", len, name);
    return 0;
}

/* Every kernel the module defines, and nothing a comment or a call
 * names: the names racecheck is told to watch. */
static void entry_names(void)
{
    const char *ptx = "// .entry fake_in_comment(.param .u32 x)\n"
                      ".func helper(.param .u32 h)\n{\n\tret;\n}\n"
                      ".visible .entry _Z6reducePKiPij(\n\t.param .u64 p\n)\n{\n\tcall helper, (p);\n\tret;\n}\n"
                      ".weak .entry $tpl_k$1()\n{\n\tret;\n}\n"
                      "/* .entry fake_in_block() */\n.entry last()\n{\n\tret;\n}\n";
    seen[0] = '\0';
    EXPECT(emu_ptx_entries(ptx, strlen(ptx), collect_name, NULL) == 0);
    EXPECT_STR(seen, "_Z6reducePKiPij $tpl_k$1 last ");
    int calls = 0;
    EXPECT(emu_ptx_entries(ptx, strlen(ptx), stop_at_second, &calls) == 7);
}

TAP_MAIN(T(opcodes_in_order), T(entry_parameters), T(entry_names))
