/* grade_opts.c — see grade_opts.h.  One table of options drives
 * getopt_long and --print-options; the values are checked here, each with
 * the sentence that names the option and what it takes, so that a usage
 * error is the same whichever front door (cudatutor grade, ./grade.sh) was
 * used. */
#include "grade/grade_opts.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

enum {
    O_OUT = 'o', O_JOBS = 'j', O_QUIET = 'q', O_HELP = 'h',
    O_LABS = 256, O_BANK, O_ROSTER, O_SEED, O_SHARD, O_FORCE, O_FULL_TIMING, O_QUICK, O_NO_SANITIZE,
    O_TIMEOUT_SCALE, O_SANDBOX, O_HIDE, O_GPUS, O_CHECK_RUNS, O_TIME_BUDGET, O_NO_CALIBRATE, O_RUBRIC,
    O_WORKBOOK, O_KEEP_WORK, O_MAX_FILE_KB, O_MAX_UNPACKED_MB, O_MAX_MEMBERS, O_MAX_PROCS, O_MERGE,
    O_RESCORE, O_SELFTEST, O_SANDBOX_EXEC, O_BUILD, O_BIND
};

/* Every option: its name, code, whether it takes a value and the value's
 * name (as the usage and the manual page write it; --print-options prints
 * them for the completion): "" for a flag, NULL for one the usage does not
 * list (--quick: the default, accepted and not advertised). */
#define GRADE_OPTIONS(X)                                          \
    X("out", O_OUT, required_argument, "DIR")                     \
    X("jobs", O_JOBS, required_argument, "N")                     \
    X("labs", O_LABS, required_argument, "LIST")                  \
    X("bank", O_BANK, required_argument, "GLOB")                  \
    X("roster", O_ROSTER, required_argument, "CSV")               \
    X("seed", O_SEED, required_argument, "S")                     \
    X("shard", O_SHARD, required_argument, "I/N")                 \
    X("force", O_FORCE, no_argument, "")                          \
    X("full-timing", O_FULL_TIMING, no_argument, "")              \
    X("quick", O_QUICK, no_argument, NULL)                        \
    X("no-sanitize", O_NO_SANITIZE, no_argument, "")              \
    X("timeout-scale", O_TIMEOUT_SCALE, required_argument, "X")   \
    X("sandbox", O_SANDBOX, required_argument, "MODE")            \
    X("hide", O_HIDE, required_argument, "PATH")                  \
    X("gpus", O_GPUS, required_argument, "LIST")                  \
    X("check-runs", O_CHECK_RUNS, required_argument, "N")         \
    X("time-budget", O_TIME_BUDGET, required_argument, "MS")      \
    X("no-calibrate", O_NO_CALIBRATE, no_argument, "")            \
    X("rubric", O_RUBRIC, required_argument, "FILE")              \
    X("workbook", O_WORKBOOK, required_argument, "DIR")           \
    X("keep-work", O_KEEP_WORK, no_argument, "")                  \
    X("max-file-kb", O_MAX_FILE_KB, required_argument, "N")       \
    X("max-unpacked-mb", O_MAX_UNPACKED_MB, required_argument, "N") \
    X("max-members", O_MAX_MEMBERS, required_argument, "N")       \
    X("max-procs", O_MAX_PROCS, required_argument, "N")           \
    X("quiet", O_QUIET, no_argument, "")                          \
    X("help", O_HELP, no_argument, "")                            \
    X("merge", O_MERGE, no_argument, "")                          \
    X("rescore", O_RESCORE, no_argument, "")                      \
    X("selftest", O_SELFTEST, no_argument, "")                    \
    X("sandbox-exec", O_SANDBOX_EXEC, required_argument, "SPEC")  \
    X("build", O_BUILD, required_argument, "WB")                  \
    X("bind", O_BIND, required_argument, "DIR")

static const struct option longopts[] = {
#define GRADE_LONGOPT_(name, code, has, arg) {name, has, NULL, code},
    GRADE_OPTIONS(GRADE_LONGOPT_)
#undef GRADE_LONGOPT_
    {NULL, 0, NULL, 0},
};

/* --sandbox's values, in the order the usage gives them. */
static const struct {
    const char *name;
    enum grade_sandbox_want want;
} sandbox_modes[] = {
    {"auto", GRADE_SANDBOX_AUTO},
    {"bwrap", GRADE_SANDBOX_BWRAP},
    {"bwrap-root", GRADE_SANDBOX_BWRAP_ROOT},
    {"none", GRADE_SANDBOX_NONE},
};
#define NSANDBOX_MODES (sizeof sandbox_modes / sizeof sandbox_modes[0])

void grade_opts_print(FILE *f)
{
    static const struct {
        const char *name, *arg;
        int code;
    } specs[] = {
#define GRADE_SPEC_(name, code, has, arg) {name, arg, code},
        GRADE_OPTIONS(GRADE_SPEC_)
#undef GRADE_SPEC_
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        if (!specs[i].arg)
            continue;
        fprintf(f, "option\tgrade\t--%s\t%s\t", specs[i].name, specs[i].arg);
        if (specs[i].code < 256)
            fprintf(f, "-%c", specs[i].code);
        fputc('\n', f);
    }
    fputs("values\tgrade\t--sandbox\t", f);
    for (size_t i = 0; i < NSANDBOX_MODES; i++)
        fprintf(f, "%s%s", i ? " " : "", sandbox_modes[i].name);
    fputc('\n', f);
}

void grade_opts_usage(FILE *f)
{
    fputs("usage: cudatutor grade [options] SUBMISSION...     (./grade.sh takes the same)\n"
          "       cudatutor grade --merge --out DIR SHARD_OUT...\n"
          "       cudatutor grade --rescore [--out DIR] [--rubric FILE]\n"
          "       cudatutor grade --selftest [--out DIR] [--labs LIST] [--bank GLOB] [options]\n"
          "\n"
          "Grades a class of workbook submissions against the pristine workbook.\n"
          "A SUBMISSION is a workbook folder or a .tar.gz, .tgz, .tar or .zip of one;\n"
          "the student id is its name without the extension, unless --roster says\n"
          "otherwise.  Only labs/NN-slug/kernel.cu (or NN-slug/kernel.cu) is taken.\n"
          "docs/instructor-guide.md is the manual.\n"
          "\n"
          "Options:\n"
          "  -o, --out DIR          output folder (default: ./grade-out)\n"
          "  -j, --jobs N           parallel compiles (default: the number of CPUs)\n"
          "  --labs LIST            grade only these labs, e.g. 01,02,05 (default: every\n"
          "                         core lab; the bonus labs from 11 only when named)\n"
          "  --bank GLOB            --selftest: judge only the bank kernels whose names\n"
          "                         match GLOB, e.g. 'raw_*' (default: all)\n"
          "  --roster CSV           student ids: a CSV with the columns submission and\n"
          "                         student_id (a header row; other columns ignored)\n"
          "  --seed S               the same seed for every run, to reproduce a grading\n"
          "                         (default: a fresh secret seed per run)\n"
          "  --shard I/N            grade submissions I, I+N, I+2N, ... (I from 0) of\n"
          "                         the sorted list; combine the outputs with --merge\n"
          "  --force                grade again students already in the output folder\n"
          "  --full-timing          time every performance case, not only the target's\n"
          "  --no-sanitize          skip compute-sanitizer (races then go unnoticed)\n"
          "  --timeout-scale X      multiply the catalog's time limits by X\n"
          "  --sandbox MODE         auto (default): bubblewrap if it works here, else a\n"
          "                         loud warning (as root: exit 5, never root's rights);\n"
          "                         bwrap: bubblewrap or exit 5; bwrap-root: bubblewrap,\n"
          "                         as root when nobody fails; none: no sandbox\n"
          "  --hide PATH            also hide PATH from the sandbox (repeatable)\n"
          "  --gpus LIST            GPUs to use, e.g. 0,1 (default: every visible one)\n"
          "  --check-runs N         runs at once on each GPU (default: what the machine\n"
          "                         holds: 2 CPUs a run with the race checkers, 1.5\n"
          "                         without, 8 GiB of GPU memory; 1 to 8); their trials\n"
          "                         and race checks share the GPU, their timed sections\n"
          "                         take turns with it alone\n"
          "  --time-budget MS       GPU time per timed kernel and case (default 100)\n"
          "  --no-calibrate         judge targets by the catalog's thresholds as they\n"
          "                         are (default: run the reference solutions on each\n"
          "                         GPU first, and lower a lab's threshold where its\n"
          "                         solution measures more than 5% under the catalog's\n"
          "                         figure; OUT/calibration.json)\n"
          "  --rubric FILE          the rubric (default: the workbook's data/rubric.json)\n"
          "  --workbook DIR         the pristine workbook (default: this program's folder)\n"
          "  --keep-work            keep the per-student build folders\n"
          "  --max-file-kb N        largest kernel.cu taken (default 256)\n"
          "  --max-unpacked-mb N    largest total size an archive may unpack to (64)\n"
          "  --max-members N        most members an archive may have (10000)\n"
          "  --max-procs N          processes a sandboxed run may add (1024)\n"
          "  --merge                combine the shards' output folders (the arguments)\n"
          "                         into --out, then write the class reports\n"
          "  --rescore              apply the rubric again to every student of --out\n"
          "                         (the saved verdicts; no GPU needed)\n"
          "  --selftest             grade the reference solutions and the bank of bad\n"
          "                         kernels (tests/bank/) and show each verdict is right\n"
          "  --sandbox-exec SPEC    run the command after -- in the sandbox SPEC\n"
          "                         describes (OUT/.grader/sandbox.json), the current\n"
          "                         folder its only writable place: what every build\n"
          "                         and run of a grading goes through\n"
          "  --build WB             with --sandbox-exec: a build's sandbox, WB read-only\n"
          "  --bind DIR             with --sandbox-exec: a run's, DIR writable too (a batch\n"
          "                         of race checkers over several work folders; repeatable)\n"
          "  -q, --quiet            no progress line, no table\n"
          "  -h, --help             this text\n"
          "\n"
          "Exit codes: 0 all graded; 1 --selftest judged something wrong; 2 usage;\n"
          "3 labs not graded for want of a GPU; 4 internal error; 5 no working sandbox\n"
          "(as root, or with --sandbox bwrap); 130 interrupted (run again to resume).\n",
          f);
}

/* A whole number above 0. */
static int positive_int(const char *name, const char *v, int *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end || errno || n <= 0 || n > INT_MAX) {
        snprintf(err, errlen, "%s takes a whole number above 0, not '%s'", name, v);
        return -1;
    }
    *out = (int)n;
    return 0;
}

/* --timeout-scale's number: digits with at most one point, above 0. */
static int positive_number(const char *v, double *out)
{
    int digits_after = 0, points = 0;
    for (const char *c = v; *c; c++) {
        if (*c == '.') {
            if (points++)
                return -1;
            digits_after = 0;
        } else if (*c >= '0' && *c <= '9') {
            digits_after++;
        } else {
            return -1;
        }
    }
    if (!digits_after)
        return -1;
    *out = strtod(v, NULL);
    return *out > 0 ? 0 : -1;
}

/* --shard I/N: two whole numbers, N >= 1, I < N. */
static int parse_shard(const char *v, struct grade_opts *o, char *err, size_t errlen)
{
    const char *slash = strchr(v, '/');
    char *end;
    unsigned long i, n;
    if (!slash || slash == v || !slash[1] || strspn(v, "0123456789") != (size_t)(slash - v) ||
        strspn(slash + 1, "0123456789") != strlen(slash + 1)) {
        snprintf(err, errlen, "--shard takes I/N, e.g. 0/4");
        return -1;
    }
    i = strtoul(v, &end, 10);
    n = strtoul(slash + 1, &end, 10);
    if (n < 1) {
        snprintf(err, errlen, "--shard I/N needs N >= 1");
        return -1;
    }
    if (i >= n || n > INT_MAX) {
        snprintf(err, errlen, "--shard I/N needs I < N (I counts from 0)");
        return -1;
    }
    o->shard_i = (int)i;
    o->shard_n = (int)n;
    return 0;
}

/* Stores one option's value; -1 with err when it is not valid. */
static int take(struct grade_opts *o, int code, const char *name, const char *v, char *err, size_t errlen)
{
    if (v && !*v) {
        snprintf(err, errlen, "%s needs a value", name);
        return -1;
    }
    switch (code) {
    case O_OUT: o->out = v; break;
    case O_JOBS: return positive_int(name, v, &o->jobs, err, errlen);
    case O_LABS: o->labs = v; break;
    case O_BANK: o->bank = v; break;
    case O_ROSTER: o->roster = v; break;
    case O_SEED: {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(v, &end, 10);
        if (v[0] < '0' || v[0] > '9' || *end || errno || strlen(v) > 15 || s >= (1ull << 48)) {
            snprintf(err, errlen, "--seed takes a whole number below 2^48");
            return -1;
        }
        o->seed = s;
        o->have_seed = 1;
        break;
    }
    case O_SHARD: return parse_shard(v, o, err, errlen);
    case O_FORCE: o->force = 1; break;
    case O_FULL_TIMING: o->quick = 0; break;
    case O_QUICK: o->quick = 1; break;
    case O_NO_SANITIZE: o->sanitize = 0; break;
    case O_TIMEOUT_SCALE:
        if (positive_number(v, &o->timeout_scale)) {
            snprintf(err, errlen, "--timeout-scale takes a positive number");
            return -1;
        }
        o->timeout_scale_text = v;
        break;
    case O_SANDBOX: {
        size_t i = 0;
        while (i < NSANDBOX_MODES && strcmp(v, sandbox_modes[i].name))
            i++;
        if (i == NSANDBOX_MODES) {
            snprintf(err, errlen, "--sandbox is auto, bwrap, bwrap-root or none");
            return -1;
        }
        o->sandbox = sandbox_modes[i].want;
        break;
    }
    case O_HIDE: o->hide[o->nhide++] = (char *)v; break;
    case O_GPUS: o->gpus = v; break;
    case O_CHECK_RUNS: return positive_int(name, v, &o->check_runs, err, errlen);
    case O_TIME_BUDGET: return positive_int(name, v, &o->time_budget_ms, err, errlen);
    case O_NO_CALIBRATE: o->calibrate = 0; break;
    case O_RUBRIC: o->rubric = v; break;
    case O_WORKBOOK: o->workbook = v; break;
    case O_KEEP_WORK: o->keep_work = 1; break;
    case O_MAX_FILE_KB: return positive_int(name, v, &o->max_file_kb, err, errlen);
    case O_MAX_UNPACKED_MB: return positive_int(name, v, &o->max_unpacked_mb, err, errlen);
    case O_MAX_MEMBERS: return positive_int(name, v, &o->max_members, err, errlen);
    case O_MAX_PROCS: return positive_int(name, v, &o->max_procs, err, errlen);
    case O_QUIET: o->quiet = 1; break;
    case O_MERGE: o->mode = GRADE_MODE_MERGE; break;
    case O_RESCORE: o->mode = GRADE_MODE_RESCORE; break;
    case O_SELFTEST: o->mode = GRADE_MODE_SELFTEST; break;
    case O_SANDBOX_EXEC: o->mode = GRADE_MODE_SANDBOX_EXEC; o->sandbox_spec = v; break;
    case O_BUILD: o->sandbox_build = v; break;
    case O_BIND: o->sandbox_binds[o->nsandbox_binds++] = (char *)v; break;
    }
    return 0;
}

int grade_opts_parse(int argc, char **argv, struct grade_opts *o, char *err, size_t errlen)
{
    int c, help = 0, li;
    char name[40];

    memset(o, 0, sizeof *o);
    o->quick = o->sanitize = o->calibrate = 1;
    o->timeout_scale = 1;
    o->timeout_scale_text = "1";
    o->shard_n = 1;
    o->time_budget_ms = 100;
    o->max_file_kb = 256;
    o->max_unpacked_mb = 64;
    o->max_members = 10000;
    o->max_procs = 1024;
    o->hide = calloc((size_t)argc + 1, sizeof *o->hide);
    o->sandbox_binds = calloc((size_t)argc + 1, sizeof *o->sandbox_binds);
    o->args = calloc((size_t)argc + 1, sizeof *o->args);
    if (!o->hide || !o->args || !o->sandbox_binds) {
        snprintf(err, errlen, "out of memory");
        return GRADE_OPTS_USAGE;
    }
    /* "-": submissions come back in order as code 1 (options may stand
     * among them); ":": a missing value is told apart from an unknown
     * option.  getopt's state is global: start afresh. */
    optind = 0;
    opterr = 0;
    while ((li = -1, c = getopt_long(argc, argv, "-:o:j:qh", longopts, &li)) != -1) {
        if (c == 1) {
            o->args[o->nargs++] = optarg;
            continue;
        }
        if (c == '?' || c == ':') {
            const char *bad = argv[optind - 1];
            if (c == ':') {
                /* The option as typed: it stands last, without its value. */
                snprintf(err, errlen, "%s needs a value", bad);
            } else if (optopt && optopt < 256 && bad[0] == '-' && bad[1] != '-') {
                snprintf(err, errlen, "unknown option -%c", optopt);
            } else {
                snprintf(err, errlen, "unknown option %s", bad);
            }
            return GRADE_OPTS_USAGE;
        }
        if (c == O_HELP) {
            help = 1;
            continue;
        }
        /* Named as the user wrote it: --jobs, or -j. */
        if (li >= 0)
            snprintf(name, sizeof name, "--%s", longopts[li].name);
        else
            snprintf(name, sizeof name, "-%c", c);
        if (take(o, c, name, optarg, err, errlen))
            return GRADE_OPTS_USAGE;
    }
    for (; optind < argc; optind++)     /* after "--" */
        o->args[o->nargs++] = argv[optind];
    if (help)
        return GRADE_OPTS_HELP;

    switch (o->mode) {
    case GRADE_MODE_GRADE:
        if (!o->nargs)
            return snprintf(err, errlen, "no submissions given"), GRADE_OPTS_USAGE;
        break;
    case GRADE_MODE_MERGE:
        if (!o->nargs)
            return snprintf(err, errlen, "--merge needs the shards' output folders"), GRADE_OPTS_USAGE;
        break;
    case GRADE_MODE_RESCORE:
    case GRADE_MODE_SELFTEST:
        if (o->nargs)
            return snprintf(err, errlen, "--%s takes no submissions",
                            o->mode == GRADE_MODE_RESCORE ? "rescore" : "selftest"), GRADE_OPTS_USAGE;
        break;
    case GRADE_MODE_SANDBOX_EXEC:
        if (!o->nargs)
            return snprintf(err, errlen, "--sandbox-exec needs a command after --"), GRADE_OPTS_USAGE;
        break;
    }
    if (o->bank && o->mode != GRADE_MODE_SELFTEST)
        return snprintf(err, errlen, "--bank goes with --selftest"), GRADE_OPTS_USAGE;
    if (o->sandbox_build && o->mode != GRADE_MODE_SANDBOX_EXEC)
        return snprintf(err, errlen, "--build goes with --sandbox-exec"), GRADE_OPTS_USAGE;
    if (o->nsandbox_binds && (o->mode != GRADE_MODE_SANDBOX_EXEC || o->sandbox_build))
        return snprintf(err, errlen, "--bind goes with --sandbox-exec, for a run"), GRADE_OPTS_USAGE;
    return GRADE_OPTS_GO;
}

void grade_opts_free(struct grade_opts *o)
{
    free(o->hide);
    free(o->args);
    free(o->sandbox_binds);
    o->hide = o->args = o->sandbox_binds = NULL;
}

int grade_opts_in_shard(const struct grade_opts *o, int k)
{
    return o->shard_n <= 1 || k % o->shard_n == o->shard_i;
}

int grade_opts_lab_list(const char *list, char ids[][8], int max)
{
    int n = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ", \t");
        if (len) {
            if (n == max || len > 6)
                return -1;
            if (len == 1 && *p >= '0' && *p <= '9')
                snprintf(ids[n], 8, "0%c", *p);
            else
                snprintf(ids[n], 8, "%.*s", (int)len, p);
            n++;
        }
        p += len;
        if (*p)
            p++;
    }
    return n;
}
