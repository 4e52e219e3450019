/* grade_opts.h — the grader's command line: `cudatutor grade` (and
 * ./grade.sh, which runs it) takes these options in getopt_long's
 * grammar: options anywhere among the submissions, --opt=value, -j4, and
 * a usage error that names the option and what it takes.
 * Parsing only: nothing here touches a file. */
#ifndef GRADE_OPTS_H
#define GRADE_OPTS_H

#include <stdio.h>

/* What the command line asks for. */
enum grade_mode {
    GRADE_MODE_GRADE,           /* grade SUBMISSION... */
    GRADE_MODE_MERGE,           /* --merge --out DIR SHARD_OUT... */
    GRADE_MODE_RESCORE,         /* --rescore [--out DIR] */
    GRADE_MODE_SELFTEST,        /* --selftest */
    GRADE_MODE_SANDBOX_EXEC     /* --sandbox-exec SPEC [--build WB] -- COMMAND...: one
                                   program in a grading's sandbox (grade_sandbox.h) */
};

/* --sandbox: auto, bwrap, bwrap-root (bubblewrap, and as root the grader
 * may run it as root when nobody does not work), none. */
enum grade_sandbox_want { GRADE_SANDBOX_AUTO, GRADE_SANDBOX_BWRAP, GRADE_SANDBOX_BWRAP_ROOT, GRADE_SANDBOX_NONE };

struct grade_opts {
    enum grade_mode mode;
    const char *out;            /* NULL: ./grade-out (--selftest: a fresh temporary folder) */
    int jobs;                   /* parallel compiles; 0: the number of CPUs */
    const char *labs;           /* --labs LIST as given; NULL: every lab */
    const char *bank;           /* --selftest's bank kernels, a glob; NULL: all */
    const char *roster;
    int have_seed;
    unsigned long long seed;    /* below 2^48 */
    int shard_i, shard_n;       /* --shard I/N; 0/1 without it */
    int force, quick, sanitize, calibrate, keep_work, quiet;
    double timeout_scale;
    const char *timeout_scale_text;     /* as given, for run.json and the checks */
    enum grade_sandbox_want sandbox;
    char **hide;                /* --hide, in order */
    int nhide;
    const char *gpus;           /* --gpus LIST; NULL: every visible GPU */
    int check_runs;             /* runs at once per GPU; 0: half the CPUs, 1 to 8 */
    int time_budget_ms;
    const char *rubric;         /* NULL: the workbook's data/rubric.json */
    const char *workbook;       /* NULL: the folder of this program, else the one around us */
    int max_file_kb, max_unpacked_mb, max_members, max_procs;
    char **args;                /* submissions, shard folders, or --sandbox-exec's command */
    int nargs;
    const char *sandbox_spec;   /* --sandbox-exec SPEC */
    const char *sandbox_build;  /* --build WB: the build's sandbox, WB read-only */
    char **sandbox_binds;       /* --bind DIR: a run's other writable folders */
    int nsandbox_binds;
};

/* What grade_opts_parse found. */
enum {
    GRADE_OPTS_GO = 0,          /* o is filled: go on */
    GRADE_OPTS_HELP = 1,        /* --help: print grade_opts_usage, exit 0 */
    GRADE_OPTS_USAGE = -1       /* a usage error: err says what (exit 2) */
};

/* Parses argv[1..argc) (argv[0] is the command's name; getopt may reorder
 * argv) into o, whose strings point into argv.  Checks:
 * values present and well-formed, --shard I/N with I < N, what each mode
 * takes (submissions for grading, shard folders for --merge, none for
 * --rescore and --selftest), --bank only with --selftest.  Returns
 * GRADE_OPTS_GO, GRADE_OPTS_HELP or GRADE_OPTS_USAGE with the sentence in
 * err ("--shard I/N needs I < N (I counts from 0)").  Free o with
 * grade_opts_free whatever it returns. */
int grade_opts_parse(int argc, char **argv, struct grade_opts *o, char *err, size_t errlen);

void grade_opts_free(struct grade_opts *o);

/* The help text: the forms, every option, the exit codes. */
void grade_opts_usage(FILE *f);

/* Every option of grade as a line for generators (cudatutor
 * --print-options; cli.h says the form): "option grade --NAME VALUE
 * SHORT" (the words are the usage's), and --sandbox's values as "values grade --sandbox auto ...". */
void grade_opts_print(FILE *f);

/* Whether the k-th submission of the list sorted by id (k from 0) is this
 * shard's: k mod N == I. */
int grade_opts_in_shard(const struct grade_opts *o, int k);

/* Splits --labs LIST ("1,02,5") into lab ids, a single digit given a
 * leading 0 ("01"): writes up to max ids of up to 7 bytes into ids and
 * returns how many, or -1 when the list has an empty or over-long item or
 * more than max. */
int grade_opts_lab_list(const char *list, char ids[][8], int max);

#endif /* GRADE_OPTS_H */
