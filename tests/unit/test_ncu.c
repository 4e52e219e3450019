/* test_ncu.c — reading ncu's raw CSV page: three real outputs from an H100
 * (tests/fixtures/ncu/), then small texts for the "" escape, rows wider than
 * 256 columns, the time-weighted mean, a metric that is not there, and
 * malformed input. */
#include <math.h>
#include <stdlib.h>

#include "sys/ncu.h"
#include "tap.h"
#include "sys/util.h"

#define TIME "gpu__time_duration.sum"
#define DRAM "dram__throughput.avg.pct_of_peak_sustained_elapsed"
#define RATIO "smsp__thread_inst_executed_per_inst_executed.ratio"
#define DIVERGENT "smsp__sass_branch_targets_threads_divergent.sum"
#define LD "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define ST "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
#define WARPS "sm__maximum_warps_per_active_cycle_pct" /* "_pct", not ".pct": summed */

#define N(a) ((int)(sizeof(a) / sizeof(a)[0]))

static char *fixture(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/ncu/%s.csv", name);
    char *text = util_read_file(path, NULL);
    if (!text)
        printf("#   missing fixture %s\n", path);
    return text;
}

/* Means go through a multiply and a divide: equal to 1e-12, relative. */
static int near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fabs(b);
}

/* Parses with values and found preset to garbage, so that a value the parser
 * forgets to set cannot pass. */
static int parse(const char *csv, const char *const *names, int n, double *v, int *found)
{
    for (int i = 0; i < n; i++) {
        v[i] = -99;
        found[i] = -99;
    }
    return ncu_parse(csv, names, n, v, found);
}

/* parse() on a fixture's text; -2 when the fixture is missing. */
static int parse_fixture(const char *name, const char *const *names, int n, double *v, int *found)
{
    char *csv = fixture(name);
    int k = csv ? parse(csv, names, n, v, found) : -2;
    free(csv);
    return k;
}

/* The expected numbers below come from the fixtures, read with Python's csv
 * module (digit groups removed; means weighted by gpu__time_duration.sum). */

static void lab07_one_kernel(void)
{
    const char *names[] = {TIME, DRAM, WARPS, RATIO};
    double v[N(names)];
    int f[N(names)];
    EXPECT(parse_fixture("lab07-h100", names, N(names), v, f) == 1);
    EXPECT(f[0] == 1 && v[0] == 343616);                    /* "343,616" */
    EXPECT(f[1] == 1 && near(v[1], 93.41));                 /* after the NVTX column */
    EXPECT(f[2] == 1 && v[2] == 100);                       /* column 269 of 271 */
    EXPECT(f[3] == 0 && v[3] == 0);                         /* not profiled in lab07 */
}

static void lab01_four_kernels(void)
{
    const char *names[] = {TIME, DRAM, RATIO, DIVERGENT, WARPS};
    double v[N(names)];
    int f[N(names)];
    EXPECT(parse_fixture("lab01-h100", names, N(names), v, f) == 4);
    EXPECT(f[0] == 1 && v[0] == 2229952 + 20896 + 3680 + 3296);
    /* Time-weighted: 14.50, 12.00, 0.57, 0.04 (unweighted 6.7775). */
    EXPECT(f[1] == 1 && near(v[1], 14.433049449381352));
    EXPECT(f[2] == 1 && near(v[2], 31.72));                 /* column 283 of 284 */
    EXPECT(f[3] == 1 && v[3] == 0);                         /* column 282, all "0" */
    EXPECT(f[4] == 1 && v[4] == 400);
}

static void lab02_bank_conflicts(void)
{
    const char *names[] = {LD, ST, DRAM, RATIO, DIVERGENT};
    double v[N(names)];
    int f[N(names)];
    EXPECT(parse_fixture("lab02-h100", names, N(names), v, f) == 4);
    EXPECT(f[0] == 1 && v[0] == 65482513 + 509482 + 3840 + 30);
    EXPECT(f[1] == 1 && v[1] == 32384646 + 245830 + 1920 + 15);
    EXPECT(f[2] == 1 && near(v[2], 21.953061870999722));   /* unweighted 10.0425 */
    EXPECT(f[3] == 1 && near(v[3], 31.5));                  /* column 279 of 280 */
    EXPECT(f[4] == 0 && v[4] == 0);
}

/* lab02 with CRLF line ends and no line end after its last kernel (whose
 * ld conflicts are the 30). */
static void crlf_and_no_final_newline(void)
{
    const char *names[] = {LD, TIME, RATIO};                /* RATIO: the last column */
    double v[N(names)];
    int f[N(names)];
    char *csv = fixture("lab02-h100");
    EXPECT(csv != NULL);
    if (!csv)
        return;
    size_t len = strlen(csv), k = 0;
    char *crlf = malloc(2 * len + 1);
    for (size_t i = 0; i < len; i++) {
        if (csv[i] == '\n')
            crlf[k++] = '\r';
        crlf[k++] = csv[i];
    }
    while (k && (crlf[k - 1] == '\n' || crlf[k - 1] == '\r'))
        k--;
    crlf[k] = '\0';
    EXPECT(parse(crlf, names, N(names), v, f) == 4);
    EXPECT(f[0] == 1 && v[0] == 65482513 + 509482 + 3840 + 30);
    EXPECT(f[1] == 1 && v[1] == 1464224 + 14432 + 3232 + 3008);
    EXPECT(f[2] == 1 && near(v[2], 31.5));
    free(crlf);
    free(csv);
}

static void doubled_quote_escape(void)
{
    const char *csv =
        "\"ID\",\"NVTX\",\"Kernel Name\",\"a.sum\",\"b.sum\"\n"
        "\"\",\"\",\"\",\"\",\"\"\n"
        "\"0\",\"4872  \"\"<default domain>:student:none\"\" \",\"k(int, int)\",\"1,234\",\"5\"\n"
        "\"1\",\"\"\",\"\"\",\"k2\",\"10\",\"20\"\n";           /* NVTX is  ","  */
    const char *names[] = {"a.sum", "b.sum", "Kernel Name", "NVTX"};
    double v[N(names)];
    int f[N(names)];
    EXPECT(parse(csv, names, N(names), v, f) == 2);
    EXPECT(f[0] == 1 && v[0] == 1234 + 10);
    EXPECT(f[1] == 1 && v[1] == 5 + 20);
    EXPECT(f[2] == 0 && v[2] == 0);                         /* text, not a number */
    EXPECT(f[3] == 0 && v[3] == 0);

    /* "" is a quote inside the field, not the field closing and reopening. */
    const char *quoted = "\"q\"\"x.sum\",\"qx.sum\"\n\"\",\"\"\n\"1\",\"2\"\n";
    const char *qnames[] = {"q\"x.sum", "qx.sum"};
    EXPECT(parse(quoted, qnames, 2, v, f) == 1);
    EXPECT(f[0] == 1 && v[0] == 1);
    EXPECT(f[1] == 1 && v[1] == 2);
}

/* 300 columns m0.sum..m299.sum; kernel one holds i in column i, kernel two 2i. */
static void wider_than_256_columns(void)
{
    size_t cap = 300 * 16 * 4, k = 0;
    char *csv = malloc(cap);
    for (int row = 0; row < 4; row++)
        for (int i = 0; i < 300; i++) {
            const char *end = i == 299 ? "\n" : ",";
            if (row == 0)
                k += (size_t)snprintf(csv + k, cap - k, "\"m%d.sum\"%s", i, end);
            else if (row == 1)
                k += (size_t)snprintf(csv + k, cap - k, "\"\"%s", end);
            else
                k += (size_t)snprintf(csv + k, cap - k, "\"%d\"%s", i * (row - 1), end);
        }
    EXPECT(k < cap);
    const char *names[] = {"m0.sum", "m255.sum", "m256.sum", "m299.sum", "m300.sum"};
    double v[N(names)];
    int f[N(names)];
    EXPECT(parse(csv, names, N(names), v, f) == 2);
    EXPECT(f[0] == 1 && v[0] == 0);
    EXPECT(f[1] == 1 && v[1] == 255 * 3);
    EXPECT(f[2] == 1 && v[2] == 256 * 3);
    EXPECT(f[3] == 1 && v[3] == 299 * 3);
    EXPECT(f[4] == 0 && v[4] == 0);
    free(csv);
}

static void time_weighted_mean(void)
{
    const char *names[] = {"x.avg.pct_of_peak", "y.ratio", "z.sum"};
    double v[N(names)];
    int f[N(names)];
    /* 900 ns at 10 % and 100 ns at 50 %: 14 %, where the plain mean is 30. */
    const char *timed = "\"Kernel Name\",\"gpu__time_duration.sum\",\"x.avg.pct_of_peak\",\"y.ratio\",\"z.sum\"\n"
                        "\"\",\"ns\",\"%\",\"\",\"\"\n"
                        "\"big\",\"900\",\"10\",\"2\",\"3\"\n"
                        "\"small\",\"100\",\"50\",\"4\",\"4\"\n";
    EXPECT(parse(timed, names, N(names), v, f) == 2);
    EXPECT(f[0] == 1 && near(v[0], 14));
    EXPECT(f[1] == 1 && near(v[1], 2.2));
    EXPECT(f[2] == 1 && v[2] == 7);                         /* sums stay sums */

    /* No time column: the plain mean. */
    const char *untimed = "\"Kernel Name\",\"x.avg.pct_of_peak\",\"y.ratio\",\"z.sum\"\n"
                          "\"\",\"%\",\"\",\"\"\n"
                          "\"big\",\"10\",\"2\",\"3\"\n"
                          "\"small\",\"50\",\"4\",\"4\"\n";
    EXPECT(parse(untimed, names, N(names), v, f) == 2);
    EXPECT(f[0] == 1 && v[0] == 30);
    EXPECT(f[1] == 1 && v[1] == 3);
    EXPECT(f[2] == 1 && v[2] == 7);

    /* Every time zero: the plain mean too. */
    const char *zero = "\"Kernel Name\",\"gpu__time_duration.sum\",\"x.avg.pct_of_peak\",\"y.ratio\",\"z.sum\"\n"
                       "\"\",\"ns\",\"%\",\"\",\"\"\n"
                       "\"big\",\"0\",\"10\",\"2\",\"3\"\n"
                       "\"small\",\"0\",\"50\",\"4\",\"4\"\n";
    EXPECT(parse(zero, names, N(names), v, f) == 2);
    EXPECT(f[0] == 1 && v[0] == 30);
    EXPECT(f[1] == 1 && v[1] == 3);

    /* A kernel whose value is "n/a" is left out of the mean. */
    const char *na = "\"gpu__time_duration.sum\",\"x.avg.pct_of_peak\"\n"
                     "\"ns\",\"%\"\n"
                     "\"900\",\"n/a\"\n"
                     "\"100\",\"50\"\n";
    EXPECT(parse(na, names, 1, v, f) == 2);
    EXPECT(f[0] == 1 && near(v[0], 50));
}

static void missing_metric(void)
{
    const char *csv = "\"a.sum\"\n\"\"\n\"3\"\n";
    const char *names[] = {"nope.sum", "a.sum", "a", "a.sum.x"};
    double v[N(names)];
    int f[N(names)];
    EXPECT(parse(csv, names, N(names), v, f) == 1);
    EXPECT(f[0] == 0 && v[0] == 0);
    EXPECT(f[1] == 1 && v[1] == 3);
    EXPECT(f[2] == 0 && v[2] == 0);                         /* whole names only */
    EXPECT(f[3] == 0 && v[3] == 0);

    /* A name twice in the header: the first column counts. */
    EXPECT(parse("\"a.sum\",\"a.sum\"\n\"\",\"\"\n\"3\",\"4\"\n", names, N(names), v, f) == 1);
    EXPECT(f[1] == 1 && v[1] == 3);
}

/* The second quoted line is units, whatever it holds; lines that do not
 * start with a quote are ncu's own, wherever they fall. */
static void units_row_and_prof_lines_skipped(void)
{
    const char *csv = "==PROF== Connected to process 1\n"
                      "==WARNING== Note: unmodified clocks\n"
                      "\"k\",\"a.sum\"\n"
                      "==PROF== between\n"
                      "\"7\",\"7\"\n"
                      "\n"
                      "  \"100\",\"100\"\n"
                      "\"k1\",\"5\"\n"
                      "==PROF== Disconnected from process 1\n";
    const char *names[] = {"a.sum"};
    double v[1];
    int f[1];
    EXPECT(parse(csv, names, 1, v, f) == 1);
    EXPECT(f[0] == 1 && v[0] == 5);
}

static void malformed_input(void)
{
    const char *names[] = {"a.sum", "b.sum", "c.sum"};
    double v[N(names)];
    int f[N(names)];
    EXPECT(parse(NULL, names, N(names), v, f) == -1);
    EXPECT(f[0] == 0 && v[0] == 0);
    EXPECT(parse("", names, N(names), v, f) == -1);
    EXPECT(f[1] == 0 && v[1] == 0);
    EXPECT(parse("==PROF== no kernels were profiled\n==WARNING== x\n", names, N(names), v, f) == -1);
    EXPECT(f[2] == 0 && v[2] == 0);

    /* A header only: no kernels, nothing found. */
    EXPECT(parse("\"a.sum\",\"b.sum\"\n\"\",\"\"\n", names, N(names), v, f) == 0);
    EXPECT(f[0] == 0 && v[0] == 0);

    /* A quote left open ends with its line. */
    EXPECT(parse("\"a.sum\",\"b.sum\"\n\"\",\"\"\n\"1\",\"2\n\"3\",\"4\n", names, N(names), v, f) == 2);
    EXPECT(f[0] == 1 && v[0] == 4);
    EXPECT(f[1] == 1 && v[1] == 6);

    /* Rows shorter and longer than the header. */
    EXPECT(parse("\"a.sum\",\"b.sum\",\"c.sum\"\n\"\",\"\",\"\"\n\"1\"\n\"2\",\"3\"\n\"4\",\"5\",\"6\",\"7\"\n",
                 names, N(names), v, f) == 3);
    EXPECT(f[0] == 1 && v[0] == 7);
    EXPECT(f[1] == 1 && v[1] == 8);
    EXPECT(f[2] == 1 && v[2] == 6);

    /* A lone quote, a lone comma, quotes mid-field. */
    EXPECT(parse("\"", names, N(names), v, f) == 0);
    EXPECT(parse("\"a.sum\"x,\"b\"\"\n\"\",\"\"\n,\n\"1\"2,3\n", names, N(names), v, f) == 1);
    EXPECT(f[0] == 0);                                      /* the header says "a.sumx" */

    /* Every prefix of a real output: never more kernels than it has, never
     * more than the whole (a cut number is a smaller one).  The same output
     * with a stray quote dropped in at every place: never a wild answer. */
    char *csv = fixture("lab02-h100");
    EXPECT(csv != NULL);
    if (!csv)
        return;
    const char *real[] = {LD, TIME, DRAM};
    const double most[] = {65482513 + 509482 + 3840 + 30, 1464224 + 14432 + 3232 + 3008, 22.09};
    double rv[3];
    int rf[3], bad = 0, runs = 0;
    size_t len = strlen(csv);
    char *part = malloc(len + 1);
    for (size_t cut = 0; cut <= len; cut += 7, runs++) {
        memcpy(part, csv, cut);
        part[cut] = '\0';
        int k = parse(part, real, 3, rv, rf);
        bad += k < -1 || k > 4;
        for (int i = 0; i < 3; i++)
            bad += (rf[i] != 0 && rf[i] != 1) || !(rv[i] >= 0 && rv[i] <= most[i]);
        memcpy(part, csv, len + 1);
        part[cut < len ? cut : 0] = '"';
        k = parse(part, real, 3, rv, rf);
        bad += k < -1 || k > 9;
        for (int i = 0; i < 3; i++)
            bad += (rf[i] != 0 && rf[i] != 1) || !isfinite(rv[i]);
    }
    EXPECT(runs > 2000 && bad == 0);
    free(part);
    free(csv);
}

TAP_MAIN(T(lab07_one_kernel), T(lab01_four_kernels), T(lab02_bank_conflicts), T(crlf_and_no_final_newline),
         T(doubled_quote_escape), T(wider_than_256_columns), T(time_weighted_mean), T(missing_metric),
         T(units_row_and_prof_lines_skipped), T(malformed_input))
