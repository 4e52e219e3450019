/* test_rules.c — the symbol, source and PTX checks on synthetic input. */
#include <stdlib.h>

#include "model/catalog.h"
#include "check/rules.h"
#include "tap.h"

static struct catalog cat;

static void load(void)
{
    char err[256];
    if (!cat.nlabs && catalog_load(&cat, "data/labs.json", "data/labs.json", err, sizeof err))
        printf("# %s\n", err);
}

static int has(const struct rules_report *rep, const char *sym, const char *rule_part)
{
    for (int i = 0; i < rep->nv; i++)
        if (!strcmp(rep->v[i].symbol, sym) && strstr(rep->v[i].rule, rule_part))
            return 1;
    return 0;
}

static void clean_object_passes(void)
{
    struct rules_report rep = {0};
    load();
    const char *nm = "lab_reduce_int T 82 140\n_Z5kernelPKiPij t 6f4 2d\n"
                     "__cudaRegisterFunction U\ncudaMemsetAsync U\natexit U\n"
                     "_ZN4dim3C1Ejjj W 0 31\nDW.ref.__gxx_personality_v0 V 0 8\n";
    EXPECT(rules_check_symbols(&cat, "lab_reduce_int", nm, &rep) == 0);
    EXPECT(rep.nv == 0);
    EXPECT(rep.entry_defined == 1);
    rules_report_free(&rep);
}

static void memcpy_rejected_with_rule(void)
{
    struct rules_report rep = {0};
    load();
    EXPECT(rules_check_symbols(&cat, "lab_reduce_int", "lab_reduce_int T 0 1\ncudaMemcpy U\n", &rep) == 0);
    EXPECT(rep.nv == 1);
    EXPECT(has(&rep, "cudaMemcpy", "no host<->device copies"));
    rules_report_free(&rep);
}

static void forbidden_calls_each_named(void)
{
    static const char *const syms[][2] = {
        {"cudaMalloc", "no allocation"}, {"cudaStreamCreate", "stream"},
        {"cudaDeviceSynchronize", "no host synchronisation"}, {"fopen", "no files"},
        {"system", "no processes"}, {"socket", "no network"}, {"dlopen", "libraries"}, {"dlsym", "no dynamic loading"},
        {"cudaGraphLaunch", "no graphs"}, {"cudaEventRecord", "timing"},
    };
    load();
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        struct rules_report rep = {0};
        char nm[128];
        snprintf(nm, sizeof nm, "lab_reduce_int T 0 1\n%s U\n", syms[i][0]);
        EXPECT(rules_check_symbols(&cat, "lab_reduce_int", nm, &rep) == 0);
        EXPECT(has(&rep, syms[i][0], syms[i][1]));
        rules_report_free(&rep);
    }
}

static void unknown_symbol_not_on_allow_list(void)
{
    struct rules_report rep = {0};
    load();
    EXPECT(rules_check_symbols(&cat, "lab_reduce_int", "lab_reduce_int T 0 1\nfrobnicate U\n", &rep) == 0);
    EXPECT(has(&rep, "frobnicate", "not on the allow-list"));
    rules_report_free(&rep);
}

static void defining_runtime_symbols_rejected(void)
{
    struct rules_report rep = {0};
    load();
    const char *nm = "lab_reduce_int T 0 1\ncudaEventElapsedTime T 10 20\n"
                     "_ZN3cub6DeviceReduceE W 0 1\n_Znwm T 0 1\n_ZN2hx4mainE T 0 1\n";
    EXPECT(rules_check_symbols(&cat, "lab_reduce_int", nm, &rep) == 0);
    EXPECT(has(&rep, "cudaEventElapsedTime", "defines only its entry point"));
    EXPECT(has(&rep, "_ZN3cub6DeviceReduceE", "CUB"));
    EXPECT(has(&rep, "_Znwm", "operator new"));
    EXPECT(has(&rep, "_ZN2hx4mainE", "harness"));
    rules_report_free(&rep);
}

/* lab.h defines lab_params in every kernel file; a build that makes its
 * host-side shadow a global symbol (nvcc -rdc=true) must not turn that into a
 * violation, while other C names stay refused. */
static void contract_variable_allowed(void)
{
    struct rules_report rep = {0};
    load();
    EXPECT(rules_check_symbols(&cat, "lab_trapezoid", "lab_trapezoid T 0 1\nlab_params B 0 18\n", &rep) == 0);
    EXPECT(rep.nv == 0);
    rules_report_free(&rep);
    EXPECT(rules_check_symbols(&cat, "lab_trapezoid", "lab_trapezoid T 0 1\nlab_params2 B 0 18\n", &rep) == 0);
    EXPECT(has(&rep, "lab_params2", "defines only its entry point"));
    rules_report_free(&rep);
}

static void missing_entry_noticed(void)
{
    struct rules_report rep = {0};
    load();
    EXPECT(rules_check_symbols(&cat, "lab_reduce_float", "lab_reduce_int T 0 1\n", &rep) == 0);
    EXPECT(rep.entry_defined == 0);
    rules_report_free(&rep);
}

static void cub_include_rejected(void)
{
    struct rules_report rep = {0};
    /* nvcc -MD's rule: the files as the compiler read them, one rule over
     * several lines; a path the compiler reached with "..". */
    EXPECT(rules_check_includes("kernel.o: kernel.cu /opt/cuda/include/lab.h \\\n"
                                " /opt/cuda/include/cccl/cub/device/device_reduce.cuh \\\n"
                                " /opt/cuda/include/cccl/cub/util_type.cuh\n", &rep) == 0);
    EXPECT(rep.nv == 1 && has(&rep, "includes /opt/cuda/include/cccl/cub/device/device_reduce.cuh", "CUB"));
    rules_report_free(&rep);
    EXPECT(rules_check_includes("k.o: k.cu /x/include/thrust/reduce.h\n", &rep) == 0);
    EXPECT(rep.nv == 1 && has(&rep, "includes /x/include/thrust/reduce.h", "Thrust"));
    rules_report_free(&rep);
    /* A name that only contains the word, and a folder "cubic": not CUB. */
    EXPECT(rules_check_includes("k.o: k.cu /home/cub_fan/lab.h /x/cubic/y.h\n", &rep) == 0);
    EXPECT(rep.nv == 0);
    rules_report_free(&rep);
}

static void ptx_techniques(void)
{
    load();
    const struct lab *l08 = catalog_find(&cat, "08");
    int found[8];
    EXPECT(l08 && l08->ntech == 2);
    if (!l08)
        return;
    rules_check_ptx(l08, "\tshfl.sync.down.b32 %r1, %r2, 16, 31, -1;\n\tred.global.add.f32 [%rd1], %f1;\n", found);
    EXPECT(found[0] && found[1]);
    /* Mentions in comments do not count. */
    rules_check_ptx(l08, "// shfl.sync would go here\n\tadd.f32 %f1, %f2, %f3; // red.global.add\n", found);
    EXPECT(!found[0] && !found[1]);
    /* Nor do block comments, a quoted .file name that #line chose, or the
     * middle of a word. */
    rules_check_ptx(l08, "/* shfl.sync.down.b32 */ .file 1 \"shfl.sync\"\n\tnoshfl.sync %r1;\n"
                         "\tmov.u32 %r1, %r2; /* red.global.add\n ... */\n", found);
    EXPECT(!found[0] && !found[1]);
    rules_check_ptx(l08, "\t@%p1 shfl.sync.bfly.b32 %r1|%p2, %r2, 1, 31, -1;\n{ red.global.add.f32 [%rd1], %f1; }\n", found);
    EXPECT(found[0] && found[1]);
    /* An instruction after a line of its own without ';' (.loc), after
     * a label, or after a negated guard counts. */
    rules_check_ptx(l08, "\t.loc 1 12 3\n\tshfl.sync.down.b32 %r1, %r2, 16, 31, -1;\n"
                         "$L__BB0_2:\n\t@!%p1 red.global.add.f32 [%rd1], %f1;\n", found);
    EXPECT(found[0] && found[1]);
}

/* Only an opcode is an instruction: a function, a label or an operand a
 * student names like one ("popc", lab 12's population count) is not. */
static void ptx_names_are_no_opcodes(void)
{
    load();
    const struct lab *l12 = catalog_find(&cat, "12");
    int found[8];
    EXPECT(l12 && l12->ntech == 3);
    if (!l12)
        return;
    rules_check_ptx(l12, ".visible .func popc(\n\t.param .b32 popc_param_0\n)\n{\npopc:\n\tret;\n}\n"
                         "\tcall.uni popc, (%r1);\n\tbra.uni popc;\n\tmov.u32 %r1, popc;\n", found);
    EXPECT(!found[0] && !found[1] && !found[2]);
    rules_check_ptx(l12, "\tpopc.b32 %r1, %r2;\n", found);
    EXPECT(!found[0] && found[1] && !found[2]);
}

/* A technique is its instruction's words in any order: libcu++'s
 * cuda::atomic_ref::fetch_add(1, acq_rel) writes atom.add.acq_rel.gpu.u32,
 * the fence and the ticket of lab 15 in one instruction; a word must
 * match whole, and the opcode must be the first. */
static void technique_words_any_order(void)
{
    load();
    const struct lab *l15 = catalog_find(&cat, "15");
    int found[8];
    EXPECT(l15 && l15->ntech == 3);
    if (!l15)
        return;
    rules_check_ptx(l15, "\tshfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;\n"
                         "\tatom.add.acq_rel.gpu.u32 %r1,[%rd1],%r2;\n", found);
    EXPECT(found[0] && found[1] && found[2]);
    rules_check_ptx(l15, "\tatom.add.relaxed.gpu.u32 %r1,[%rd1],%r2;\n", found);
    EXPECT(!found[1] && found[2]);
    rules_check_ptx(l15, "\tred.acq_rel.gpu.add.u32 [%rd1],%r2;\n\tmyatom.acq_rel.gpu %r1;\n", found);
    EXPECT(!found[1] && !found[2]);
}

/* Every form of block barrier synchronises the block: __syncthreads_count,
 * _and and _or compile to bar.red, and a kernel using only those has its
 * barrier. */
static void block_barrier_forms(void)
{
    load();
    const struct lab *l01 = catalog_find(&cat, "01");
    int found[8];
    EXPECT(l01 && l01->ntech == 1);
    if (!l01)
        return;
    rules_check_ptx(l01, "\tbar.red.popc.u32 \t%r1, 0, %p1;\n", found);
    EXPECT(found[0]);
    rules_check_ptx(l01, "\tbarrier.cta.sync.aligned 0;\n", found);
    EXPECT(found[0]);
    rules_check_ptx(l01, "\tbar.arrive 0, 64;\n\tmembar.cta;\n", found);
    EXPECT(!found[0]);
}

TAP_MAIN(T(clean_object_passes), T(memcpy_rejected_with_rule), T(forbidden_calls_each_named),
         T(unknown_symbol_not_on_allow_list), T(defining_runtime_symbols_rejected),
         T(contract_variable_allowed), T(missing_entry_noticed), T(cub_include_rejected), T(ptx_techniques), T(ptx_names_are_no_opcodes),
         T(technique_words_any_order), T(block_barrier_forms))
