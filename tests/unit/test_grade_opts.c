/* test_grade_opts.c — the grader's command line (grade.sh's grammar and
 * sentences): options anywhere among the submissions, --opt=value and -j4,
 * each usage error with the words grade.sh gave, what each mode takes; the
 * shard a submission falls in; --labs's list; and the resume rule (a
 * finished student is skipped unless --force). */
#include <stdlib.h>

#include "grade/grade_opts.h"
#include "grade/grade_run.h"
#include "model/result.h"
#include "tap.h"

/* Parses a command line given as words after "grade". */
static int parse(struct grade_opts *o, char *err, const char *const *words)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "grade";
    for (int i = 0; words[i]; i++)
        argv[argc++] = (char *)words[i];
    argv[argc] = NULL;
    err[0] = '\0';
    return grade_opts_parse(argc, argv, o, err, 256);
}

#define PARSE(o, err, ...) parse(o, err, (const char *const[]){__VA_ARGS__, NULL})

static void defaults(void)
{
    struct grade_opts o;
    char err[256];
    EXPECT(PARSE(&o, err, "alice") == GRADE_OPTS_GO);
    EXPECT(o.mode == GRADE_MODE_GRADE && o.nargs == 1 && !strcmp(o.args[0], "alice"));
    EXPECT(o.quick && o.sanitize && o.calibrate && !o.force && !o.quiet && !o.keep_work);
    EXPECT(o.time_budget_ms == 100 && o.timeout_scale == 1 && o.shard_n == 1 && o.shard_i == 0);
    EXPECT(o.max_file_kb == 256 && o.max_unpacked_mb == 64 && o.max_members == 10000 && o.max_procs == 1024);
    EXPECT(o.sandbox == GRADE_SANDBOX_AUTO && !o.out && !o.jobs && !o.have_seed);
    grade_opts_free(&o);
}

static void options_anywhere(void)
{
    struct grade_opts o;
    char err[256];
    EXPECT(PARSE(&o, err, "a", "-q", "--out=OUT", "b", "-j4", "--labs", "01,02", "--full-timing", "--hide", "/x",
                 "--hide=/y", "c", "--no-sanitize", "--no-calibrate", "--force", "--keep-work") == GRADE_OPTS_GO);
    EXPECT(o.nargs == 3 && !strcmp(o.args[0], "a") && !strcmp(o.args[1], "b") && !strcmp(o.args[2], "c"));
    EXPECT(o.quiet && !strcmp(o.out, "OUT") && o.jobs == 4 && !strcmp(o.labs, "01,02") && !o.quick);
    EXPECT(o.nhide == 2 && !strcmp(o.hide[0], "/x") && !strcmp(o.hide[1], "/y"));
    EXPECT(!o.sanitize && !o.calibrate && o.force && o.keep_work);
    grade_opts_free(&o);
    /* After "--" everything is a submission, even what looks like an option. */
    EXPECT(PARSE(&o, err, "-o", "D", "--", "--force", "-q") == GRADE_OPTS_GO);
    EXPECT(o.nargs == 2 && !strcmp(o.args[0], "--force") && !o.force && !o.quiet);
    grade_opts_free(&o);
}

static void values_checked(void)
{
    struct grade_opts o;
    char err[256];
    EXPECT(PARSE(&o, err, "--seed", "4242", "--timeout-scale", "2.5", "--shard", "1/3", "--check-runs", "2",
                 "--time-budget", "50", "--sandbox", "bwrap", "--gpus", "0,1", "x") == GRADE_OPTS_GO);
    EXPECT(o.have_seed && o.seed == 4242 && o.timeout_scale == 2.5 && !strcmp(o.timeout_scale_text, "2.5"));
    EXPECT(o.shard_i == 1 && o.shard_n == 3 && o.check_runs == 2 && o.time_budget_ms == 50);
    EXPECT(o.sandbox == GRADE_SANDBOX_BWRAP && !strcmp(o.gpus, "0,1"));
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--sandbox", "bwrap-root", "x") == GRADE_OPTS_GO && o.sandbox == GRADE_SANDBOX_BWRAP_ROOT);
    grade_opts_free(&o);

    static const struct {
        const char *a, *b, *says;
    } bad[] = {
        {"--shard", "2/2", "--shard I/N needs I < N (I counts from 0)"},
        {"--shard", "1/0", "--shard I/N needs N >= 1"},
        {"--shard", "x", "--shard takes I/N, e.g. 0/4"},
        {"--shard", "1/", "--shard takes I/N, e.g. 0/4"},
        {"--jobs", "0", "--jobs takes a whole number above 0, not '0'"},
        {"-j", "two", "-j takes a whole number above 0, not 'two'"},
        {"--max-procs", "-3", "--max-procs takes a whole number above 0, not '-3'"},
        {"--seed", "281474976710656", "--seed takes a whole number below 2^48"},
        {"--seed", "12a", "--seed takes a whole number below 2^48"},
        {"--timeout-scale", "0", "--timeout-scale takes a positive number"},
        {"--timeout-scale", "1e3", "--timeout-scale takes a positive number"},
        {"--timeout-scale", "1.", "--timeout-scale takes a positive number"},
        {"--sandbox", "docker", "--sandbox is auto, bwrap, bwrap-root or none"},
        {"--out", "", "--out needs a value"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT(PARSE(&o, err, bad[i].a, bad[i].b, "x") == GRADE_OPTS_USAGE);
        EXPECT_STR(err, bad[i].says);
        grade_opts_free(&o);
    }
    EXPECT(PARSE(&o, err, "x", "--roster") == GRADE_OPTS_USAGE);
    EXPECT_STR(err, "--roster needs a value");
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--frobnicate", "x") == GRADE_OPTS_USAGE);
    EXPECT_STR(err, "unknown option --frobnicate");
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "-z", "x") == GRADE_OPTS_USAGE);
    EXPECT_STR(err, "unknown option -z");
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--force=yes", "x") == GRADE_OPTS_USAGE);
    grade_opts_free(&o);
}

static void modes(void)
{
    struct grade_opts o;
    char err[256];
    EXPECT(PARSE(&o, err, "-q") == GRADE_OPTS_USAGE);
    EXPECT_STR(err, "no submissions given");
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--merge", "-o", "M") == GRADE_OPTS_USAGE);
    EXPECT_STR(err, "--merge needs the shards' output folders");
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--merge", "-o", "M", "s0", "s1") == GRADE_OPTS_GO);
    EXPECT(o.mode == GRADE_MODE_MERGE && o.nargs == 2);
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--rescore", "x") == GRADE_OPTS_USAGE);
    EXPECT_STR(err, "--rescore takes no submissions");
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--selftest", "--bank", "raw_*") == GRADE_OPTS_GO);
    EXPECT(o.mode == GRADE_MODE_SELFTEST && !strcmp(o.bank, "raw_*"));
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--bank", "raw_*", "x") == GRADE_OPTS_USAGE);
    EXPECT_STR(err, "--bank goes with --selftest");
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--help", "--frobnicate=") != GRADE_OPTS_HELP);
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--help") == GRADE_OPTS_HELP);
    grade_opts_free(&o);
    /* The sandbox's own line: the command after "--" stays as it is. */
    EXPECT(PARSE(&o, err, "--sandbox-exec", "S.json", "--build", "/wb", "--", "judge", "--json", "x") ==
           GRADE_OPTS_GO);
    EXPECT(o.mode == GRADE_MODE_SANDBOX_EXEC && !strcmp(o.sandbox_spec, "S.json") && !strcmp(o.sandbox_build, "/wb"));
    EXPECT(o.nargs == 3 && !strcmp(o.args[1], "--json"));
    grade_opts_free(&o);
    EXPECT(PARSE(&o, err, "--build", "/wb", "x") == GRADE_OPTS_USAGE);
    EXPECT_STR(err, "--build goes with --sandbox-exec");
    grade_opts_free(&o);
}

static void shards_split_the_class(void)
{
    struct grade_opts o;
    char err[256];
    int seen[12] = {0};
    for (int i = 0; i < 3; i++) {
        char shard[8];
        snprintf(shard, sizeof shard, "%d/3", i);
        EXPECT(PARSE(&o, err, "--shard", shard, "x") == GRADE_OPTS_GO);
        for (int k = 0; k < 12; k++)
            seen[k] += grade_opts_in_shard(&o, k);
        EXPECT(grade_opts_in_shard(&o, i) && grade_opts_in_shard(&o, i + 3) && !grade_opts_in_shard(&o, i + 1));
        grade_opts_free(&o);
    }
    for (int k = 0; k < 12; k++)
        EXPECT(seen[k] == 1);
    EXPECT(PARSE(&o, err, "x") == GRADE_OPTS_GO);
    for (int k = 0; k < 12; k++)
        EXPECT(grade_opts_in_shard(&o, k));
    grade_opts_free(&o);
}

static void lab_list(void)
{
    char ids[8][8];
    EXPECT(grade_opts_lab_list("1,02,,10", ids, 8) == 3);
    EXPECT_STR(ids[0], "01");
    EXPECT_STR(ids[1], "02");
    EXPECT_STR(ids[2], "10");
    EXPECT(grade_opts_lab_list("01 05", ids, 8) == 2 && !strcmp(ids[1], "05"));
    EXPECT(grade_opts_lab_list("", ids, 8) == 0);
    EXPECT(grade_opts_lab_list("1234567", ids, 8) == -1);
    EXPECT(grade_opts_lab_list("1,2,3", ids, 2) == -1);
}

static void resume_rule(void)
{
    EXPECT(grade_work_skip(0, 1));
    EXPECT(!grade_work_skip(1, 1));
    EXPECT(!grade_work_skip(0, 0));
    EXPECT(!grade_work_skip(1, 0));
}

/* The default --check-runs: the CPUs a run holds (two with the race
 * checkers' batches, 1.5 without), shared over the GPUs, capped by GPU
 * memory, within 1..8. */
static void runs_from_the_machine(void)
{
    EXPECT(grade_runs_per_gpu(16, 1, 1, 139) == 8);     /* one H200, 16 CPUs */
    EXPECT(grade_runs_per_gpu(32, 4, 1, 139) == 4);     /* 4 GPUs, 32 CPUs: not 8 per GPU */
    EXPECT(grade_runs_per_gpu(12, 1, 1, 139) == 6);     /* the race checkers' batches count 2 CPUs a run */
    EXPECT(grade_runs_per_gpu(64, 1, 1, 139) == 8);     /* past 8 runs only queue for the timed sections */
    EXPECT(grade_runs_per_gpu(12, 1, 0, 139) == 8);     /* without sanitizers a run holds fewer CPUs */
    EXPECT(grade_runs_per_gpu(6, 1, 0, 0) == 4);
    EXPECT(grade_runs_per_gpu(2, 1, 1, 139) == 1);      /* never none */
    EXPECT(grade_runs_per_gpu(8, 4, 1, 139) == 1);
    EXPECT(grade_runs_per_gpu(64, 1, 1, 16) == 2);      /* a small GPU's memory holds two */
    EXPECT(grade_runs_per_gpu(64, 1, 1, 4) == 1);
    EXPECT(grade_runs_per_gpu(64, 1, 1, 0) == 8);       /* memory unknown: not counted */
    EXPECT(grade_runs_per_gpu(16, 0, 1, 0) == 8);
}

/* Which verdicts a busy grader could have made, and are run again alone. */
static void doubtful_verdicts(void)
{
    struct result r;
    EXPECT(grade_run_doubtful(NULL));
    static const struct {
        enum status s;
        const char *msg;
        int doubtful;
    } cases[] = {
        {STATUS_PASS, NULL, 0},
        {STATUS_FAIL, "the sum is wrong", 0},
        {STATUS_COMPILE_ERROR, NULL, 0},
        {STATUS_REJECTED, NULL, 0},
        {STATUS_TIMEOUT, "timed out after 64 s under memcheck", 1},
        {STATUS_RUNTIME_ERROR, NULL, 1},
        {STATUS_INTERNAL_ERROR, NULL, 1},
        {STATUS_PASS, "memcheck could not judge the kernel (exit 255)", 1},
        {STATUS_PASS, "racecheck could not start: fork failed", 1},
        {STATUS_FAIL, "racecheck found 2 problem line(s): see the sanitizer report", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (result_init(&r, "07", "reduce_int", "kernel.cu", 1)) {
            EXPECT(0 && "out of memory");
            return;
        }
        result_set_status(&r, cases[i].s);
        if (cases[i].msg)
            result_add_message(&r, "%s", cases[i].msg);
        EXPECT(grade_run_doubtful(&r) == cases[i].doubtful);
        result_free(&r);
    }
}

TAP_MAIN(T(defaults), T(options_anywhere), T(values_checked), T(modes), T(shards_split_the_class), T(lab_list),
         T(resume_rule), T(runs_from_the_machine), T(doubtful_verdicts))
