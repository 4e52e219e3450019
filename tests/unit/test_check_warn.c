/* test_check_warn.c — the compiler's warnings taken from a compile's log:
 * nvcc's numbered form and the host compiler's, the student's file only,
 * each once, the first few kept and the rest counted. */
#include "check/check_warn.h"
#include "model/result.h"
#include "tap.h"

#define SRC "/home/s/labs/01-interleaved-addressing/kernel.cu"

/* What nvcc 12 prints for an unsigned compared with zero: once for the
 * host pass and once for the device pass, each with the caret and the
 * remark. */
static const char *const nvcc_186 =
    SRC "(34): warning #186-D: pointless comparison of unsigned integer with zero\n"
    "      if (tid >= 0 && tid == 0)\n"
    "              ^\n"
    "\n"
    "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
    "\n"
    SRC "(34): warning #186-D: pointless comparison of unsigned integer with zero\n"
    "      if (tid >= 0 && tid == 0)\n"
    "              ^\n";

static void numbered_warning_once_with_line(void)
{
    struct result r = {0};
    check_warnings(&r, nvcc_186, SRC);
    EXPECT(r.ndiags == 1);
    if (r.ndiags == 1) {
        EXPECT(r.diags[0].line == 34);
        EXPECT_STR(r.diags[0].severity, "warning");
        EXPECT_STR(r.diags[0].message, "#186-D pointless comparison of unsigned integer with zero");
        EXPECT_STR(r.diags[0].file, SRC);
    }
    EXPECT(r.nmsgs == 0);
    result_free(&r);
}

/* The file named relative to where nvcc ran still is the student's; a
 * header's warning, the host compiler's about another file and ptxas's
 * without a line are not taken. */
static void only_the_students_file(void)
{
    struct result r = {0};
    check_warnings(&r,
                   "labs/01-interleaved-addressing/kernel.cu(7): warning #177-D: variable \"x\" was declared but "
                   "never referenced\n"
                   "/usr/local/cuda/include/cuda_fp16.hpp(12): warning #20012-D: something in a header\n"
                   "/tmp/other.cu:3:5: warning: unused variable 'y' [-Wunused-variable]\n"
                   SRC ":9:2: warning: comparison of integers of different signs [-Wsign-compare]\n"
                   "ptxas warning : Stack size for entry function '_Z1kv' cannot be statically determined\n",
                   SRC);
    EXPECT(r.ndiags == 2);
    if (r.ndiags == 2) {
        EXPECT(r.diags[0].line == 7);
        EXPECT_STR(r.diags[0].message, "#177-D variable \"x\" was declared but never referenced");
        EXPECT(r.diags[1].line == 9);
        EXPECT_STR(r.diags[1].message, "comparison of integers of different signs [-Wsign-compare]");
    }
    result_free(&r);
}

/* Past CHECK_WARNINGS_SHOWN distinct warnings the rest are one message
 * that counts them; an error line is no warning. */
static void the_rest_counted(void)
{
    char log[4096];
    size_t at = 0;
    for (int i = 1; i <= CHECK_WARNINGS_SHOWN + 3; i++)
        at += (size_t)snprintf(log + at, sizeof log - at, SRC "(%d): warning #550-D: variable \"v%d\" was set but "
                                                          "never used\n", 10 + i, i);
    at += (size_t)snprintf(log + at, sizeof log - at, SRC "(40): error: identifier \"q\" is undefined\n");
    struct result r = {0};
    check_warnings(&r, log, SRC);
    EXPECT(r.ndiags == CHECK_WARNINGS_SHOWN);
    EXPECT(r.ndiags && r.diags[0].line == 11);
    EXPECT(r.nmsgs == 1);
    if (r.nmsgs == 1)
        EXPECT_STR(r.messages[0], "nvcc gave 3 more warnings about " SRC " (the compile log has them all)");
    result_free(&r);
}

TAP_MAIN(T(numbered_warning_once_with_line), T(only_the_students_file), T(the_rest_counted))
