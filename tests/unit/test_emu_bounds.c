/* test_emu_bounds.c — what a kernel may take from the emulator's host, each
 * bound tested by the attack it stops: printf's width and precision
 * (clamped before the host's snprintf sees them) and its bytes (counted
 * per launch), the address space two emulators reserve (they must both
 * start under an 8 GiB ulimit -v, and under 1 GiB), and the registers a
 * function may declare. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu/emu.h"
#include "tap.h"

#define HEAD ".version 9.0\n.target sm_90\n.address_size 64\n"
#define VPRINTF                                                                   \
    ".extern .func (.param .b32 func_retval0) vprintf\n"                           \
    "(\n  .param .b64 vprintf_param_0,\n  .param .b64 vprintf_param_1\n)\n;\n"

/* What the kernels printed: the first bytes, and how many in all. */
static char printed[8192];
static size_t nprinted, nall;

static void print_cb(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    nall += len;
    if (len > sizeof printed - 1 - nprinted)
        len = sizeof printed - 1 - nprinted;
    memcpy(printed + nprinted, text, len);
    nprinted += len;
    printed[nprinted] = 0;
}

static void print_reset(void)
{
    nprinted = nall = 0;
    printed[0] = 0;
}

/* Loads PTX into a fresh emulator; the module in *M, NULL on failure. */
static enum emu_status load(struct emu **e, struct emu_module **m, const char *ptx, struct emu_error *err)
{
    struct emu_config cfg = {.seed = 7, .hazards = 1, .budget = 1u << 26, .print = print_cb};
    *m = NULL;
    *e = emu_new(&cfg);
    if (!*e)
        return EMU_NOMEM;
    return emu_module_load(*e, ptx, strlen(ptx), m, err);
}

/* Launches the module's first kernel, no parameters, GRID x BLOCK. */
static enum emu_status launch(struct emu *e, struct emu_module *m, unsigned grid, unsigned block,
                              struct emu_error *err)
{
    const struct emu_kernel *k = emu_module_kernel_at(m, 0);
    if (!k)
        return EMU_PARSE;
    struct emu_launch l = {.grid = {grid, 1, 1}, .block = {block, 1, 1}, .args = NULL};
    return emu_launch(e, k, &l, err);
}

/* "%.999999999e|%999999999d\n" with 1.0 and 7: glibc, handed those
 * numbers, allocated gigabytes for the one call; clamped to 512, the
 * text is 1., 512 zeros, e+00, then 511 spaces and 7. */
static void printf_clamps_width_and_precision(void)
{
    static const char *ptx = HEAD VPRINTF
        ".global .align 1 .b8 $fmt[26] = {37, 46, 57, 57, 57, 57, 57, 57, 57, 57, 57, 101, 124, 37, "
        "57, 57, 57, 57, 57, 57, 57, 57, 57, 100, 10, 0};\n"
        ".visible .entry k()\n{\n"
        "  .local .align 8 .b8 __local_depot0[16];\n"
        "  .reg .b32 %r<2>; .reg .b64 %rd<6>; .reg .f64 %fd<2>;\n"
        "  mov.u64 %rd1, __local_depot0;\n"
        "  cvta.local.u64 %rd2, %rd1;\n"
        "  mov.f64 %fd1, 0d3FF0000000000000;\n"
        "  st.local.f64 [__local_depot0], %fd1;\n"
        "  st.local.u32 [__local_depot0+8], 7;\n"
        "  mov.u64 %rd3, $fmt;\n"
        "  cvta.global.u64 %rd4, %rd3;\n"
        "  {\n"
        "  .param .b64 param0;\n"
        "  st.param.b64 [param0], %rd4;\n"
        "  .param .b64 param1;\n"
        "  st.param.b64 [param1], %rd2;\n"
        "  .param .b32 retval0;\n"
        "  call.uni (retval0), vprintf, (param0, param1);\n"
        "  ld.param.b32 %r1, [retval0];\n"
        "  }\n"
        "  ret;\n}\n";
    char want[1100];
    size_t n = 0;
    n += (size_t)sprintf(want + n, "1.");
    memset(want + n, '0', 512);
    n += 512;
    n += (size_t)sprintf(want + n, "e+00|");
    memset(want + n, ' ', 511);
    n += 511;
    sprintf(want + n, "7\n");
    struct emu *e;
    struct emu_module *m;
    struct emu_error err;
    print_reset();
    EXPECT(load(&e, &m, ptx, &err) == EMU_OK);
    EXPECT(m && launch(e, m, 1, 1, &err) == EMU_OK);
    EXPECT(strlen(printed) == strlen(want));
    EXPECT_STR(printed, want);
    emu_module_unload(m);
    emu_free(e);
}

/* Every thread prints 1001 bytes ("%1000d\n"): 2 MiB from two blocks of
 * 1024 threads.  A launch prints 1 MiB and says that it stopped; the next
 * launch has its own 1 MiB. */
static void printf_bytes_bounded_per_launch(void)
{
    static const char *ptx = HEAD VPRINTF
        ".global .align 1 .b8 $fmt[8] = {37, 49, 48, 48, 48, 100, 10, 0};\n"
        ".visible .entry k()\n{\n"
        "  .local .align 8 .b8 __local_depot0[8];\n"
        "  .reg .b32 %r<3>; .reg .b64 %rd<6>;\n"
        "  mov.u64 %rd1, __local_depot0;\n"
        "  cvta.local.u64 %rd2, %rd1;\n"
        "  mov.u32 %r1, %tid.x;\n"
        "  st.local.u32 [__local_depot0], %r1;\n"
        "  mov.u64 %rd3, $fmt;\n"
        "  cvta.global.u64 %rd4, %rd3;\n"
        "  {\n"
        "  .param .b64 param0;\n"
        "  st.param.b64 [param0], %rd4;\n"
        "  .param .b64 param1;\n"
        "  st.param.b64 [param1], %rd2;\n"
        "  .param .b32 retval0;\n"
        "  call.uni (retval0), vprintf, (param0, param1);\n"
        "  ld.param.b32 %r2, [retval0];\n"
        "  }\n"
        "  ret;\n}\n";
    static const char note[] = "printf buffer]\n";
    struct emu *e;
    struct emu_module *m;
    struct emu_error err;
    EXPECT(load(&e, &m, ptx, &err) == EMU_OK);
    for (int i = 0; i < 2 && m; i++) {
        print_reset();
        EXPECT(launch(e, m, 2, 1024, &err) == EMU_OK);
        size_t tail = nall - (1u << 20);
        printf("#   launch %d printed %zu bytes\n", i, nall);
        EXPECT(nall > (1u << 20) && tail < 200);
        /* the note ends the launch's text: the callback's last bytes */
        EXPECT(nprinted == sizeof printed - 1 || !strcmp(printed + nprinted - (sizeof note - 1), note));
    }
    emu_module_unload(m);
    emu_free(e);
}

/* In a child limited to LIMIT bytes of address space: the CPU judge's two
 * emulators start, and a kernel with shared and local memory reached
 * through generic addresses runs.  Exits 0 when all of it worked. */
static int emulators_under(rlim_t limit)
{
    static const char *ptx = HEAD
        ".visible .entry k(.param .u64 out)\n{\n"
        "  .shared .align 4 .b8 s[16];\n"
        "  .local .align 4 .b8 l[16];\n"
        "  .reg .b32 %r<4>; .reg .b64 %rd<8>;\n"
        "  ld.param.u64 %rd1, [out];\n"
        "  mov.u64 %rd2, s;\n"
        "  cvta.shared.u64 %rd3, %rd2;\n"
        "  st.u32 [%rd3+4], 5;\n"
        "  mov.u64 %rd4, l;\n"
        "  cvta.local.u64 %rd5, %rd4;\n"
        "  st.u32 [%rd5+8], 6;\n"
        "  ld.u32 %r1, [%rd3+4];\n"
        "  ld.u32 %r2, [%rd5+8];\n"
        "  add.u32 %r3, %r1, %r2;\n"
        "  st.global.u32 [%rd1], %r3;\n"
        "  ret;\n}\n";
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {limit, limit};
        struct emu_config cfg = {.seed = 1};
        struct emu_module *m = NULL;
        struct emu_error err;
        unsigned out = 0;
        void *p = &out, *args[1] = {&p};
        struct emu_launch l = {.grid = {1, 1, 1}, .block = {1, 1, 1}, .args = args};
        if (setrlimit(RLIMIT_AS, &rl))
            _exit(2);
        struct emu *judge = emu_new(&cfg), *student = emu_new(&cfg);
        if (!judge || !student)
            _exit(3);
        if (emu_module_load(student, ptx, strlen(ptx), &m, &err) != EMU_OK ||
            emu_mem_map(student, &out, sizeof out, "d_out") ||
            emu_launch(student, emu_module_kernel_at(m, 0), &l, &err) != EMU_OK || out != 11)
            _exit(4);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Each emulator reserved two 4 GiB windows: under ulimit -v 8388608 the
 * second emulator of a CPU judge failed, and every check was rejected. */
static void emulators_start_under_address_limit(void)
{
    int rc = emulators_under((rlim_t)8 << 30);
    printf("#   under 8 GiB: %d\n", rc);
    EXPECT(rc == 0);
    rc = emulators_under((rlim_t)1 << 30);
    printf("#   under 1 GiB: %d\n", rc);
    EXPECT(rc == 0);
}

/* A kernel with N registers declared in one .reg line. */
static char *regs_ptx(int n)
{
    char *p = malloc(512);
    if (p)
        snprintf(p, 512, HEAD ".visible .entry k()\n{\n  .reg .b32 %%r<%d>;\n  mov.u32 %%r1, 1;\n  ret;\n}\n", n);
    return p;
}

/* 65,000 declared registers held 4.1 GB of the host's for one launch:
 * past the bound the module needs a GPU, and says why; under it, it
 * loads. */
static void registers_bounded(void)
{
    struct emu *e;
    struct emu_module *m;
    struct emu_error err;
    char *big = regs_ptx(65000), *fits = regs_ptx(7000);
    EXPECT(big && fits);
    EXPECT(load(&e, &m, big, &err) == EMU_UNSUPPORTED);
    printf("#   %s\n", err.message);
    EXPECT(strstr(err.message, "registers a thread") != NULL);
    emu_module_unload(m);
    emu_free(e);
    EXPECT(load(&e, &m, fits, &err) == EMU_OK);
    emu_module_unload(m);
    emu_free(e);
    free(big);
    free(fits);
}

TAP_MAIN(T(printf_clamps_width_and_precision), T(printf_bytes_bounded_per_launch),
         T(emulators_start_under_address_limit), T(registers_bounded))
