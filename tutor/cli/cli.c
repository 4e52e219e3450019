/* cli.c — see cli.h.  Two tables drive the grammar: the commands (their
 * arguments and whether the tutor's lock rule applies) and the options
 * (which commands take each).  getopt_long reads the whole command line in
 * one pass, so an option means the same wherever it stands; what a command
 * does not take is a usage error that names the command.  Each handler
 * prints to stdout, reports problems on stderr, and returns an exit code. */
#include "cli/cli.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/calibrate.h"
#include "check/check.h"
#include "check/check_session.h"
#include "check/check_via.h"
#include "cli/cli_study.h"
#include "cli/cli_trace.h"
#include "cli/ladder.h"
#include "cli/outcome.h"
#include "model/result.h"
#include "sys/util.h"
#include "view/verdict.h"
#include "sys/watch.h"
#include "model/workspace.h"

#ifndef CUDATUTOR_VERSION
#define CUDATUTOR_VERSION "0.1"
#endif

static int cmd_check(struct app *app, const struct cli_args *a);
static int cmd_watch(struct app *app, const struct cli_args *a);
static int cmd_show(struct app *app, const struct cli_args *a);
static int cmd_ladder(struct app *app, const struct cli_args *a);
static int cmd_calibrate(struct app *app, const struct cli_args *a);

/* The commands, in the order the help lists them.  CMD_TUTOR is the
 * program without a command. */
enum cmd_id {
    CMD_TUTOR, CMD_LIST, CMD_SHOW, CMD_CHECK, CMD_WATCH, CMD_TRACE, CMD_HINT, CMD_PROGRESS, CMD_RESET,
    CMD_SOLUTION, CMD_LADDER, CMD_CALIBRATE, CMD_VIEW_RESULT, CMD_GRADE, CMD_HELP, CMD_COUNT
};

/* Whether the tutor's lock rule applies: never; or to the student's own
 * work, which a check records (not --file, --build-only, --run-only). */
enum lock_rule { LOCK_NONE, LOCK_RECORDED };

struct command {
    const char *name;
    int (*fn)(struct app *app, const struct cli_args *a);
    const char *args;           /* how the usage names the arguments */
    int min_args, max_args;
    int takes_lab;              /* the first argument is a lab */
    enum lock_rule lock;
    const char *summary;
};

static const struct command commands[CMD_COUNT] = {
    [CMD_TUTOR] = {"", NULL, "", 0, 0, 0, LOCK_NONE, "open the tutor (a terminal of 80x24 or more)"},
    [CMD_LIST] = {"list", cmd_list, "", 0, 0, 0, LOCK_NONE, "the labs: state, best GB/s, target"},
    [CMD_SHOW] = {"show", cmd_show, "NN", 1, 1, 1, LOCK_NONE, "print the lab's lesson (its README.md)"},
    [CMD_CHECK] = {"check", cmd_check, "NN", 1, 1, 1, LOCK_RECORDED,
                   "compile the lab's kernel, run the hidden harness, print the verdict"},
    [CMD_WATCH] = {"watch", cmd_watch, "NN", 1, 1, 1, LOCK_RECORDED,
                   "check the lab's kernel.cu now and again on every save, until ^C"},
    [CMD_TRACE] = {"trace", cli_trace, "NN [FILE]", 1, 2, 1, LOCK_NONE,
                   "draw the lab's kernel (or FILE) running at n=64, barrier to barrier: lanes, shared words, conflicts"},
    [CMD_HINT] = {"hint", cmd_hint, "NN [K]", 1, 2, 1, LOCK_RECORDED,
                  "print the lab's next hint, or hint K (1-3); hints used are recorded"},
    [CMD_PROGRESS] = {"progress", cmd_progress, "", 0, 0, 0, LOCK_NONE,
                      "what you have passed, your best times, hints used"},
    [CMD_RESET] = {"reset", cmd_reset, "NN", 1, 1, 1, LOCK_NONE,
                   "put the lab's stub back (your kernel.cu is kept as kernel.cu.bak-TIME)"},
    [CMD_SOLUTION] = {"solution", cmd_solution, "NN", 1, 1, 1, LOCK_NONE,
                      "print the lab's reference solution (once the lab has passed, or with --unlock-all)"},
    [CMD_LADDER] = {"ladder", cmd_ladder, "", 0, 0, 0, LOCK_NONE,
                    "time every reference solution and write the performance table (docs/ladder.md)"},
    [CMD_CALIBRATE] = {"calibrate", cmd_calibrate, "", 0, 0, 0, LOCK_NONE,
                       "scale the targets to this GPU: its reference solutions timed once, then cached"},
    [CMD_VIEW_RESULT] = {"view-result", NULL, "FILE", 1, 1, 0, LOCK_NONE,
                         "open the tutor on the results screen of a verdict saved by check --out"},
    /* Its own grammar (grade_opts.c; ./grade.sh takes the same): main hands it the line. */
    [CMD_GRADE] = {"grade", NULL, "SUBMISSION...", 0, 0, 0, LOCK_NONE,
                   "grade a class's submissions (grade.sh; cudatutor grade --help)"},
    /* As git and cargo have it: the help, or a command's. */
    [CMD_HELP] = {"help", NULL, "[COMMAND]", 0, 1, 0, LOCK_NONE, "this help, or a command's"},
};

#define ON(c) (1u << (c))
#define ON_ALL ((1u << CMD_COUNT) - 1)
#define ON_JSON (ON(CMD_LIST) | ON(CMD_SHOW) | ON(CMD_CHECK) | ON(CMD_HINT) | ON(CMD_PROGRESS) | \
                 ON(CMD_RESET) | ON(CMD_SOLUTION) | ON(CMD_CALIBRATE))
#define ON_SCREEN (ON(CMD_TUTOR) | ON(CMD_VIEW_RESULT))
#define ON_RUN (ON(CMD_CHECK) | ON(CMD_WATCH))
/* The commands whose text may run past a screen: through the pager on a
 * terminal (outcome_page). */
#define ON_PAGER (ON(CMD_LIST) | ON(CMD_SHOW) | ON(CMD_PROGRESS) | ON(CMD_SOLUTION))

/* Long options only, but -h and -y: codes above 255 cannot clash with them. */
enum opt_code {
    OPT_HELP = 'h', OPT_YES = 'y',
    OPT_ROOT = 256, OPT_PROGRESS, OPT_NO_COLOR, OPT_UNLOCK_ALL, OPT_VERSION, OPT_KEYS, OPT_DUMP, OPT_SIZE,
    OPT_JSON, OPT_FILE, OPT_OUT, OPT_SEED, OPT_QUICK, OPT_NO_SANITIZE, OPT_COUNTERS, OPT_BUILD_ONLY,
    OPT_RUN_ONLY, OPT_SANITIZE_LATER, OPT_SANITIZE_FROM, OPT_SANITIZED, OPT_TIMEOUT_SCALE, OPT_WORK_DIR, OPT_WRAP, OPT_WRAP_ARG, OPT_TIME_BUDGET, OPT_GPU_LOCK, OPT_TARGET_MIN,
    OPT_NO_CALIBRATE, OPT_FORCE, OPT_GPU_VIA, OPT_GPU_VIA_WAIT, OPT_SVG
};

struct option_spec {
    const char *name;
    int code;
    const char *arg;            /* NULL: a flag */
    unsigned on;                /* the commands that take it */
    const char *help;
};

static const struct option_spec options[] = {
    {"help", OPT_HELP, NULL, ON_ALL, "this help, or a command's (-h)"},
    {"version", OPT_VERSION, NULL, ON_ALL, "print the version"},
    {"root", OPT_ROOT, "DIR", ON_ALL, "the workbook (default: the one around the current folder)"},
    {"progress", OPT_PROGRESS, "PATH", ON_ALL, "progress.json elsewhere (also $CUDATUTOR_PROGRESS)"},
    {"no-color", OPT_NO_COLOR, NULL, ON_ALL, "no colours (also NO_COLOR=1)"},
    {"unlock-all", OPT_UNLOCK_ALL, NULL, ON_ALL, "every lab open, every solution shown (self-study, instructors)"},
    {"json", OPT_JSON, NULL, ON_JSON, "print JSON for scripts"},
    {"yes", OPT_YES, NULL, ON(CMD_RESET), "do not ask first (-y)"},
    {"file", OPT_FILE, "F", ON(CMD_CHECK), "check F instead of the lab's kernel.cu (not recorded, never locked)"},
    {"out", OPT_OUT, "PATH", ON(CMD_CHECK) | ON(CMD_LADDER), "also write the verdict JSON (ladder: the table) to PATH"},
    {"seed", OPT_SEED, "S", ON(CMD_CHECK), "the inputs' seed (an integer below 2^53; default: fresh)"},
    {"quick", OPT_QUICK, NULL, ON_RUN, "time only the target's size"},
    {"no-sanitize", OPT_NO_SANITIZE, NULL, ON_RUN, "skip the race checkers"},
    {"counters", OPT_COUNTERS, NULL, ON(CMD_CHECK), "read the lesson's counters: ncu's on a GPU, the emulator's without one"},
    {"build-only", OPT_BUILD_ONLY, NULL, ON(CMD_CHECK), "compile, check the rules and link; run nothing (not recorded)"},
    {"run-only", OPT_RUN_ONLY, NULL, ON(CMD_CHECK), "run what --build-only left in --work-dir (not recorded)"},
    {"sanitize-later", OPT_SANITIZE_LATER, NULL, ON(CMD_CHECK),
     "with --run-only: judge and time now; a pass awaits --sanitize-from (a grader's)"},
    {"sanitize-from", OPT_SANITIZE_FROM, "FILE", ON(CMD_CHECK),
     "with --run-only: only the race checkers that --sanitize-later's verdict FILE awaits"},
    {"sanitized", OPT_SANITIZED, "TOOLS", ON(CMD_CHECK),
     "with --sanitize-from: these race checkers (comma-separated) ran clean over the build in a grader's batch"},
    {"timeout-scale", OPT_TIMEOUT_SCALE, "X", ON_RUN, "multiply the catalog's time limits by X"},
    {"work-dir", OPT_WORK_DIR, "DIR", ON(CMD_CHECK) | ON(CMD_TRACE), "build and run in DIR instead of build/check/NN (trace: build/trace/NN)"},
    {"svg", OPT_SVG, "PATH", ON(CMD_TRACE), "write every step as one SVG picture to PATH (for slides) instead"},
    {"wrap", OPT_WRAP, "PROGRAM", ON(CMD_CHECK), "run the harness through PROGRAM (a sandbox)"},
    {"wrap-arg", OPT_WRAP_ARG, "ARG", ON(CMD_CHECK), "one more argument for --wrap's PROGRAM, before the harness's (repeatable)"},
    {"time-budget", OPT_TIME_BUDGET, "MS", ON(CMD_CHECK), "GPU milliseconds per timed kernel and size"},
    {"gpu-lock", OPT_GPU_LOCK, "FILE", ON(CMD_CHECK), "the lock file that runs sharing a GPU take (a grader's)"},
    {"target-min", OPT_TARGET_MIN, "X", ON(CMD_CHECK), "judge the target by X instead of the catalog's figure"},
    {"no-calibrate", OPT_NO_CALIBRATE, NULL, ON_RUN | ON_SCREEN,
     "judge by the catalog's targets, not scaled to this GPU"},
    {"force", OPT_FORCE, NULL, ON(CMD_CALIBRATE), "measure again although this GPU is calibrated"},
    {"gpu-via", OPT_GPU_VIA, "COMMAND", ON_RUN | ON(CMD_CALIBRATE),
     "run the GPU judge through COMMAND, e.g. 'srun -p gpu --gres=gpu:1' (also $CUDATUTOR_GPU_VIA)"},
    {"gpu-via-wait", OPT_GPU_VIA_WAIT, "S", ON_RUN | ON(CMD_CALIBRATE),
     "how long the GPU run may wait to start (default 600 s)"},
    {"keys", OPT_KEYS, "SCRIPT", ON_SCREEN, "run the tutor off-screen on a key script (tests)"},
    {"dump", OPT_DUMP, NULL, ON_SCREEN, "print the tutor's last screen as text (tests)"},
    {"size", OPT_SIZE, "COLSxROWS", ON_SCREEN, "the off-screen terminal's size (default 100x30)"},
};
#define NOPTIONS (sizeof options / sizeof options[0])

int cli_own_grammar(const char *word)
{
    return word && !strcmp(word, commands[CMD_GRADE].name);
}

static const struct command *command_of(const struct cli_args *a)
{
    if (!a->cmd)
        return &commands[CMD_TUTOR];
    for (int i = 1; i < CMD_COUNT; i++)
        if (!strcmp(commands[i].name, a->cmd))
            return &commands[i];
    return NULL;
}

/* ---- help --------------------------------------------------------------- */

static void option_line(FILE *f, const struct option_spec *o)
{
    char left[48];
    snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(f, "  %-22s %s\n", left, o->help);
}

void cli_usage(FILE *f)
{
    fputs("usage: cudatutor [OPTIONS] [COMMAND [ARGS]]   (options may also follow the command)\n"
          "With no command, opens the tutor (a terminal UI).  Commands:\n", f);
    for (int i = 1; i < CMD_COUNT; i++)
        fprintf(f, "  %-11s %s\n", commands[i].name, commands[i].summary);
    fputs("Options of every command:\n", f);
    for (size_t i = 0; i < NOPTIONS; i++)
        if (options[i].on == ON_ALL)
            option_line(f, &options[i]);
    fputs("Options of the tutor itself (and view-result):\n", f);
    for (size_t i = 0; i < NOPTIONS; i++)
        if ((options[i].on & ON_SCREEN) == ON_SCREEN && options[i].on != ON_ALL)
            option_line(f, &options[i]);
    fputs("Run `cudatutor COMMAND --help` for a command's options; the manual page has them all\n"
          "(`man cudatutor` once installed, `man ./docs/cudatutor.1` in the workbook).\n"
          "Exit codes: 0 ok or pass; 1 the kernel failed, or the lab is not open to this yet;\n", f);
    fprintf(f, "2 usage; 3 no CUDA device; 4 %s (a missing lab file, no harness).\n",
            status_meaning(STATUS_INTERNAL_ERROR));
}

void cli_print_options(FILE *f)
{
    /* grade's options are its own grammar's (grade_opts_print). */
    for (int i = 1; i < CMD_COUNT; i++)
        fprintf(f, "command\t%s\t%s\n", commands[i].name, commands[i].args);
    for (int i = -1; i < CMD_COUNT; i++) {
        if (i == CMD_GRADE)
            continue;
        for (size_t k = 0; k < NOPTIONS; k++) {
            const struct option_spec *o = &options[k];
            if (i < 0 ? o->on != ON_ALL : !(o->on & ON(i)) || o->on == ON_ALL)
                continue;
            if (i < 0)
                fputs("global", f);
            else
                fprintf(f, "option\t%s", i == CMD_TUTOR ? "-" : commands[i].name);
            fprintf(f, "\t--%s\t%s\t", o->name, o->arg ? o->arg : "");
            if (o->code < 256)
                fprintf(f, "-%c", o->code);
            fprintf(f, "\t%s\n", o->help);
        }
    }
}

static int usage_of(const struct command *c, FILE *f)
{
    fprintf(f, "usage: cudatutor %s%s%s [options]\n%s\n", c->name, c->args[0] ? " " : "", c->args, c->summary);
    int any = 0;
    for (size_t i = 0; i < NOPTIONS; i++)
        if ((options[i].on & ON((int)(c - commands))) && options[i].on != ON_ALL) {
            if (!any++)
                fputs("Options:\n", f);
            option_line(f, &options[i]);
        }
    fputs("Options of every command:", f);
    for (size_t i = 0, n = 0; i < NOPTIONS; i++)
        if (options[i].on == ON_ALL)
            fprintf(f, "%s --%s%s%s", n++ ? "," : "", options[i].name, options[i].arg ? " " : "",
                    options[i].arg ? options[i].arg : "");
    fputs(".\n", f);
    return f == stdout ? EXIT_OK : EXIT_USAGE;
}

/* ---- parsing ------------------------------------------------------------ */

/* A number that is all of text, within (lo, hi]; -1 when it is not. */
static int parse_double(const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v > lo) || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Stores one option's value; -1 after a message when it is not valid. */
static int take_option(struct cli_args *a, int code, const char *v)
{
    double d;
    char *end;
    switch (code) {
    case OPT_ROOT: a->root = v; break;
    case OPT_PROGRESS: a->progress = v; break;
    case OPT_NO_COLOR: a->no_color = 1; break;
    case OPT_UNLOCK_ALL: a->unlock_all = 1; break;
    case OPT_KEYS: a->keys = v; break;
    case OPT_DUMP: a->dump = 1; break;
    case OPT_JSON: a->json = 1; break;
    case OPT_YES: a->yes = 1; break;
    case OPT_FILE: a->file = v; break;
    case OPT_OUT: a->out = v; break;
    case OPT_WORK_DIR: a->work_dir = v; break;
    case OPT_SVG: a->svg = v; break;
    case OPT_WRAP: a->wrap = v; break;
    case OPT_WRAP_ARG: a->wrap_args[a->nwrap_args++] = (char *)v; break;
    case OPT_GPU_LOCK: a->gpu_lock = v; break;
    case OPT_QUICK: a->quick = 1; break;
    case OPT_NO_SANITIZE: a->no_sanitize = 1; break;
    case OPT_COUNTERS: a->counters = 1; break;
    case OPT_BUILD_ONLY: a->build_only = 1; break;
    case OPT_RUN_ONLY: a->run_only = 1; break;
    case OPT_SANITIZE_LATER: a->sanitize_later = 1; break;
    case OPT_SANITIZE_FROM: a->sanitize_from = v; break;
    case OPT_SANITIZED: a->sanitized = v; break;
    case OPT_NO_CALIBRATE: a->no_calibrate = 1; break;
    case OPT_FORCE: a->force = 1; break;
    case OPT_GPU_VIA: a->gpu_via = v; break;
    case OPT_GPU_VIA_WAIT:
        if (parse_double(v, 0, 86400, &a->gpu_via_wait))
            return outcome_fail(NULL, "--gpu-via-wait takes seconds, up to 86400 (got \"%s\")", v), -1;
        break;
    case OPT_SIZE:
        if (sscanf(v, "%dx%d", &a->cols, &a->rows) != 2 || a->cols <= 0 || a->rows <= 0 || a->cols >= 1000 ||
            a->rows >= 1000)
            return outcome_fail(NULL, "--size takes COLSxROWS, e.g. 80x24 (got \"%s\")", v), -1;
        break;
    case OPT_SEED:
        errno = 0;
        a->seed = strtoull(v, &end, 0);
        if (errno || end == v || *end || v[0] == '-' || a->seed >= (1ull << 53))
            return outcome_fail(NULL, "--seed takes an integer below 2^53 (got \"%s\")", v), -1;
        a->have_seed = 1;
        break;
    case OPT_TIMEOUT_SCALE:
        if (parse_double(v, 0, 1e6, &a->timeout_scale))
            return outcome_fail(NULL, "--timeout-scale takes a positive number (got \"%s\")", v), -1;
        break;
    case OPT_TARGET_MIN:
        if (parse_double(v, 0, 1e12, &a->target_min))
            return outcome_fail(NULL, "--target-min takes a positive number (got \"%s\")", v), -1;
        break;
    case OPT_TIME_BUDGET:
        if (parse_double(v, 0, 1e7, &d) || d != (int)d)
            return outcome_fail(NULL, "--time-budget takes whole milliseconds (got \"%s\")", v), -1;
        a->time_budget_ms = (int)d;
        break;
    }
    return 0;
}

static int parse(int argc, char **argv, struct cli_args *a);

int cli_parse(int argc, char **argv, struct cli_args *a)
{
    /* --json decides how even an error in the line itself is answered. */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--json"))
            outcome_json(1);
    int rc = parse(argc, argv, a);
    return rc >= 0 ? outcome_end(rc) : rc;
}

static int parse(int argc, char **argv, struct cli_args *a)
{
    struct option longopts[NOPTIONS + 1];
    int seen[NOPTIONS], help = 0, version = 0, c;
    const struct command *cmd;

    memset(a, 0, sizeof *a);
    memset(seen, 0, sizeof seen);
    memset(longopts, 0, sizeof longopts);
    for (size_t i = 0; i < NOPTIONS; i++)
        longopts[i] = (struct option){options[i].name, options[i].arg ? required_argument : no_argument, NULL,
                                      options[i].code};
    if (!(a->pos = calloc((size_t)argc + 1, sizeof *a->pos)) ||
        !(a->wrap_args = calloc((size_t)argc + 1, sizeof *a->wrap_args))) {
        outcome_fail(NULL, "out of memory");
        return EXIT_INTERNAL;
    }
    /* "-": arguments come back in order as code 1, whatever POSIXLY_CORRECT
     * says; ":": a missing value is told apart from an unknown option. */
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "-:hy", longopts, NULL)) != -1) {
        if (c == 1) {
            if (!a->cmd)
                a->cmd = optarg;
            else
                a->pos[a->npos++] = optarg;
            continue;
        }
        if (c == '?' || c == ':') {
            /* optind has moved past the culprit; with an attached "=value"
             * or a cluster of short options it is the previous argument. */
            const char *bad = argv[optind - 1], *eq = strchr(bad, '=');
            if (c == ':')
                outcome_fail(NULL, "%s needs a value", bad);
            else if (!strncmp(bad, "--", 2) && eq && optopt)
                outcome_fail(NULL, "--%.*s takes no value", (int)(eq - bad - 2), bad + 2);
            else if (optopt && optopt < 256 && bad[0] == '-' && bad[1] != '-')
                outcome_fail(NULL, "unknown option -%c", optopt);
            else
                outcome_fail(NULL, "unknown option %s", bad);
            fputs("Run `cudatutor --help` for the commands and options.\n", stderr);
            return EXIT_USAGE;
        }
        if (c == OPT_HELP) {
            help = 1;
            continue;
        }
        if (c == OPT_VERSION) {
            version = 1;
            continue;
        }
        if (take_option(a, c, optarg))
            return EXIT_USAGE;
        for (size_t i = 0; i < NOPTIONS; i++)
            if (options[i].code == c)
                seen[i] = 1;
    }
    for (; optind < argc; optind++)     /* after "--" */
        if (!a->cmd)
            a->cmd = argv[optind];
        else
            a->pos[a->npos++] = argv[optind];

    if (version) {
        printf("cudatutor %s\n", CUDATUTOR_VERSION);
        return EXIT_OK;
    }
    if ((cmd = command_of(a)) == &commands[CMD_HELP] && !help) {
        if (a->npos > 1) {
            outcome_fail(NULL, "help takes one command at most: cudatutor help [COMMAND]");
            return EXIT_USAGE;
        }
        help = 1;
        a->cmd = a->npos ? a->pos[0] : NULL;
        a->npos = 0;
        if ((cmd = command_of(a)) == &commands[CMD_GRADE]) {
            puts("The grader reads grade.sh's options: cudatutor grade --help");
            return EXIT_OK;
        }
    }
    if (!cmd) {
        outcome_fail(NULL, "unknown command \"%s\"", a->cmd);
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    if (cmd == &commands[CMD_GRADE]) {
        outcome_fail(NULL, "grade comes first, with its own options after it: cudatutor grade --help");
        return EXIT_USAGE;
    }
    if (help) {
        if (!a->cmd)
            cli_usage(stdout);
        else
            usage_of(cmd, stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < NOPTIONS; i++)
        if (seen[i] && !(options[i].on & ON((int)(cmd - commands)))) {
            if (a->cmd)
                outcome_fail(a->cmd, "--%s is not an option of %s", options[i].name, a->cmd);
            else
                outcome_fail(NULL, "--%s goes with a command (cudatutor --help lists them)", options[i].name);
            return a->cmd ? usage_of(cmd, stderr) : EXIT_USAGE;
        }
    if (a->npos < cmd->min_args) {
        if (cmd->takes_lab)
            outcome_fail(cmd->name, "which lab? (e.g. cudatutor %s 01)", cmd->name);
        else
            outcome_fail(cmd->name, "needs %s", cmd->args);
        return usage_of(cmd, stderr);
    }
    if (a->npos > cmd->max_args) {
        outcome_fail(a->cmd, "unexpected argument \"%s\"", a->pos[cmd->max_args]);
        return a->cmd ? usage_of(cmd, stderr) : EXIT_USAGE;
    }
    if (a->build_only && a->run_only) {
        outcome_fail("check", "--build-only and --run-only exclude each other");
        return EXIT_USAGE;
    }
    /* A grader's two runs of one build: never a student's check, whose
     * verdict must be whole. */
    if ((a->sanitize_later || a->sanitize_from) && !a->run_only) {
        outcome_fail("check", "--sanitize-later and --sanitize-from go with --run-only");
        return EXIT_USAGE;
    }
    if (a->sanitized && !a->sanitize_from) {
        outcome_fail("check", "--sanitized goes with --sanitize-from");
        return EXIT_USAGE;
    }
    if (a->sanitize_later && (a->sanitize_from || a->no_sanitize)) {
        outcome_fail("check", "--sanitize-later excludes --sanitize-from and --no-sanitize");
        return EXIT_USAGE;
    }
    if (a->nwrap_args && !a->wrap) {
        outcome_fail("check", "--wrap-arg goes with --wrap");
        return EXIT_USAGE;
    }
    if (a->nwrap_args >= CHECK_WRAP_MAX) {
        outcome_fail("check", "--wrap-arg at most %d times", CHECK_WRAP_MAX - 1);
        return EXIT_USAGE;
    }
    /* ncu reads counters beside the judge, which runs elsewhere. */
    if (a->counters && a->gpu_via) {
        outcome_fail("check", "--counters and --gpu-via exclude each other: ncu runs beside the judge");
        return EXIT_USAGE;
    }
    return -1;
}

void cli_args_free(struct cli_args *a)
{
    free(a->pos);
    free(a->wrap_args);
    a->pos = NULL;
    a->wrap_args = NULL;
}

int cli_wants_ui(const struct cli_args *a)
{
    return !a->cmd || !strcmp(a->cmd, commands[CMD_VIEW_RESULT].name);
}

static void show_progress(void *ud, enum stage_id stage, int i, int n, const char *detail)
{
    (void)ud;
    if (stage == STAGE_DONE) {
        fputs("\r\033[K", stderr);
        return;
    }
    if (n > 0)
        fprintf(stderr, "\r\033[K[%s %d/%d] %s", stage_name(stage), i, n, detail);
    else
        fprintf(stderr, "\r\033[K[%s] %s", stage_name(stage), detail);
    fflush(stderr);
}

/* ---- calibration ---------------------------------------------------------- */

/* Where calibration's lines go: stderr for a check (its JSON stays alone on
 * stdout), stdout for calibrate without --json. */
struct cli_note {
    const char *cmd;
    FILE *f;
    int progress;           /* a progress line may be on stderr */
};

/* calibrate_say_fn for the command line: one line, flushed at once, since
 * a measurement takes a while after it. */
static void note_line(void *ud, const char *line)
{
    const struct cli_note *n = ud;
    if (n->f == stderr)
        fprintf(stderr, "cudatutor %s: %s\n", n->cmd, line);
    else
        fprintf(n->f, "%s\n", line);
    fflush(n->f);
}

/* ---- check and watch ---------------------------------------------------- */

/* A check's events on stderr: its notes as lines (the progress line
 * cleared first, when one is drawn), the wait for another check of the lab
 * as a line, and the rest as the progress line, on a terminal only. */
static void check_event(void *ud, const struct check_event *ev)
{
    const struct cli_note *n = ud;
    if (ev->kind == CHECK_EVENT_NOTE || ev->stage == STAGE_WAIT) {
        if (n->progress)
            show_progress(NULL, STAGE_DONE, 0, 0, "");
        if (ev->kind == CHECK_EVENT_NOTE)
            note_line(ud, ev->text);
        else
            fprintf(stderr, "cudatutor %s: waiting for another check of lab %s to finish (a tutor, or cudatutor "
                            "check %s, in another terminal)\n", n->cmd, ev->text, ev->text);
        return;
    }
    if (n->progress)
        show_progress(NULL, ev->stage, ev->i, ev->n, ev->text);
}

/* One check as the options say: prints the verdict (or its JSON), records
 * a check of the lab's own kernel.cu, and returns the exit code. */
static int run_check(struct app *app, const struct cli_args *a, const char *cmd)
{
    struct check_opts o = {0};
    char **wrap = calloc((size_t)a->nwrap_args + 2, sizeof *wrap);
    char err[512] = "";
    int code = EXIT_INTERNAL, rc;

    if (!wrap)
        return EXIT_INTERNAL;
    /* The program, then its own arguments: a sandbox's argv, word for
     * word, with no shell between. */
    wrap[0] = (char *)a->wrap;
    for (int i = 0; i < a->nwrap_args; i++)
        wrap[i + 1] = a->wrap_args[i];

    o.sanitize = !a->no_sanitize;
    o.file = a->file;
    o.seed = a->seed;
    o.have_seed = a->have_seed;
    o.quick = a->quick;
    o.counters = a->counters;
    o.build_only = a->build_only;
    o.run_only = a->run_only;
    o.sanitize_later = a->sanitize_later;
    o.sanitize_from = a->sanitize_from;
    o.sanitized = a->sanitized;
    o.wrap = a->wrap ? wrap : NULL;
    o.timeout_scale = a->timeout_scale;
    o.target_min = a->target_min;
    o.time_budget_ms = a->time_budget_ms;
    o.work_dir = a->work_dir;
    o.gpu_lock = a->gpu_lock;

    struct cli_note n = {cmd, stderr, !a->json && isatty(STDERR_FILENO)};
    /* The GPU elsewhere: a grader's runs (--build-only, --run-only) never. */
    struct check_session session = {.app = app, .calibrated = 1, .via = !a->build_only && !a->run_only,
                                    .via_cmd = a->gpu_via, .via_wait = a->gpu_via_wait,
                                    .event = check_event, .ud = &n};
    struct result res;
    char *text = NULL;
    if ((rc = check_session_run(&session, a->lab, &o, &res, err, sizeof err))) {
        outcome_fail(cmd, "%s", err);
        code = rc == CHECK_SESSION_SETTINGS ? EXIT_USAGE : EXIT_INTERNAL;
        goto out;
    }
    /* The JSON only where it leaves the process. */
    if ((a->out || a->json) && !(text = result_to_json(&res, 1)))
        goto done;
    if (a->out && util_write_file(a->out, text, strlen(text))) {
        outcome_fail(cmd, "cannot write %s: %s", a->out, strerror(errno));
        goto done;
    }
    if (a->json)
        outcome_put_text(text);
    else
        verdict_print(stdout, &res, a->lab, app->color && isatty(STDOUT_FILENO), outcome_width());
    fflush(stdout);
    /* Progress is about the student's own kernel.cu, checked in full. */
    if (!a->file && !a->build_only && !a->run_only)
        cli_record_check(app, &res);
    code = status_exit_code(res.status);
done:
    result_free(&res);
out:
    free(text);
    free(wrap);
    return code;
}

/* Whatever check is to compile must be there: a missing lab file is the
 * workbook's trouble with a fix, never a compile error; a missing --file is
 * a slip in the command.  Something there that is no plain file (a link, a
 * folder, a FIFO) goes on to the check, whose intake rule refuses it as
 * the grader would.  --run-only runs what a build left. */
static int kernel_present(struct app *app, const struct cli_args *a, const char *cmd)
{
    char err[768];
    struct stat st;
    if (a->run_only)
        return EXIT_OK;
    if (a->file && lstat(a->file, &st) != 0) {
        outcome_fail(cmd, "--file %s: %s", a->file, strerror(errno));
        return EXIT_USAGE;
    }
    if (!a->file && workspace_present(app->root, a->lab, "kernel.cu", err, sizeof err)) {
        outcome_fail(cmd, "%s", err);
        return EXIT_INTERNAL;
    }
    return EXIT_OK;
}

static int cmd_check(struct app *app, const struct cli_args *a)
{
    int rc = kernel_present(app, a, "check");
    return rc != EXIT_OK ? rc : run_check(app, a, "check");
}

/* Until ^C: a check now, then one after every save.  ^C ends the program
 * (its children die with it, proc.c sees to that), so there is no way out
 * of the loop but an error. */
static int cmd_watch(struct app *app, const struct cli_args *a)
{
    char err[512];
    const char *force = getenv("CUDATUTOR_WATCH_POLL");
    char *path = workspace_kernel(app->root, a->lab);
    struct watch *w = NULL;
    int rc = kernel_present(app, a, "watch");

    if (rc != EXIT_OK)
        goto out;
    rc = EXIT_INTERNAL;
    if (!path || !(w = watch_open(path, force && *force, err, sizeof err))) {
        outcome_fail("watch", "cannot watch %s/kernel.cu: %s", a->lab->dir, path ? err : "out of memory");
        goto out;
    }
    for (;;) {
        run_check(app, a, "watch");
        printf("\nwatching %s/kernel.cu (%s): save it to check again; ^C stops\n", a->lab->dir, watch_mode(w));
        fflush(stdout);
        while (!watch_check(w, util_now())) {
            struct pollfd p = {watch_fd(w), POLLIN, 0};
            if (poll(&p, p.fd >= 0 ? 1 : 0, watch_timeout_ms(w, util_now())) < 0 && errno != EINTR) {
                outcome_fail("watch", "poll: %s", strerror(errno));
                goto out;
            }
        }
        if (workspace_present(app->root, a->lab, "kernel.cu", err, sizeof err)) {
            outcome_fail("watch", "%s", err);
            goto out;
        }
        printf("\n%s/kernel.cu was saved: checking it\n", a->lab->dir);
    }
out:
    watch_close(w);
    free(path);
    return rc;
}

/* ---- show --------------------------------------------------------------- */

static int cmd_show(struct app *app, const struct cli_args *a)
{
    const struct lab *lab = a->lab;
    char err[768];
    if (workspace_present(app->root, lab, "README.md", err, sizeof err)) {
        outcome_fail("show", "%s", err);
        return EXIT_INTERNAL;
    }
    char *path = util_format("%s/%s/README.md", app->root, lab->dir);
    char *text = path ? util_read_file(path, NULL) : NULL;
    if (!text) {
        outcome_fail("show", "cannot read %s/README.md: %s", lab->dir, path ? strerror(errno) : "out of memory");
        free(path);
        return EXIT_INTERNAL;
    }
    if (a->json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", lab->id);
        cJSON_AddStringToObject(o, "title", lab->title);
        cJSON_AddStringToObject(o, "lesson", text);
        if (outcome_put(o) != EXIT_OK) {
            free(text);
            free(path);
            return EXIT_INTERNAL;
        }
    } else {
        fputs(text, stdout);
    }
    free(text);
    free(path);
    return EXIT_OK;
}

/* ---- ladder ------------------------------------------------------------- */

static int cmd_ladder(struct app *app, const struct cli_args *a)
{
    char err[512] = "";
    int rc = ladder_run(app, a->out, stdout, err, sizeof err);
    if (rc < 0) {
        outcome_fail("ladder", "%s", err);
        return rc == -2 ? EXIT_NO_GPU : EXIT_INTERNAL;
    }
    if (a->out)
        printf("wrote %s\n", a->out);
    return rc ? EXIT_VERDICT : EXIT_OK;
}

/* ---- calibrate ---------------------------------------------------------- */

/* Measures this GPU's figures (or, without --force, shows the cached ones)
 * and prints each lab's threshold.  Exit 3 without a GPU, 1 when a
 * solution did not pass, 4 when the file or the workbook cannot be used. */
static int cmd_calibrate(struct app *app, const struct cli_args *a)
{
    struct cli_note n = {"calibrate", a->json ? stderr : stdout, 0};
    struct calibrate_gpu g = {0};
    struct check_opts base = {0};
    struct via_setup via = {0};
    char gpu[96], err[512] = "", line[512];
    char *path = calibrate_path(app->root, app->progress_path);
    int rc = EXIT_INTERNAL, outcome;

    if (!path)
        return EXIT_INTERNAL;
    check_progress_fn progress = !a->json && isatty(STDERR_FILENO) ? show_progress : NULL;
    /* Through a GPU command, the GPU there is the one calibrated. */
    if (via_prepare(&via, app->root, app->progress_path, a->gpu_via, a->gpu_via_wait, progress, NULL, err,
                    sizeof err)) {
        outcome_fail("calibrate", "%s", err);
        rc = EXIT_USAGE;
        goto out;
    }
    via_apply(&base, &via);
    if (via.cmd && (via.error[0] || !via.name[0])) {
        outcome_fail("calibrate", "%s: the catalog's targets stand, and nothing was cached",
                     via.error[0] ? via.error : "the GPU command named no GPU");
        rc = EXIT_NO_GPU;
        goto out;
    }
    if (!via.cmd && calibrate_gpu_name(gpu, sizeof gpu)) {
        outcome_fail("calibrate", "no GPU (nvidia-smi names none): the catalog's targets stand, and nothing was "
                                  "cached");
        rc = EXIT_NO_GPU;
        goto out;
    }
    struct calibrate_req q = {.tc = &app->tc, .cat = &app->cat, .path = path, .base = via.cmd ? &base : NULL,
                              .force = a->force, .say = note_line, .ud = &n};
    q.progress = progress;
    outcome = calibrate_prepare(&q, &g, err, sizeof err);
    if (q.progress)
        show_progress(NULL, STAGE_DONE, 0, 0, "");
    if (outcome < 0) {
        outcome_fail("calibrate", "%s", err);
        goto out;
    }
    if (outcome == CALIBRATE_NONE || outcome == CALIBRATE_UNREADABLE) {
        /* calibrate_prepare has said what it saw; this is the outcome. */
        rc = outcome == CALIBRATE_NONE ? EXIT_NO_GPU : EXIT_INTERNAL;
        outcome_fail("calibrate", outcome == CALIBRATE_NONE ? "no GPU answered: nothing was measured or cached"
                                                            : "calibration.json cannot be used: nothing was measured");
        goto out;
    }
    rc = EXIT_OK;
    for (int i = 0; i < g.nlabs; i++)
        if (g.labs[i].passed < g.labs[i].runs)
            rc = EXIT_VERDICT;
    if (a->json) {
        cJSON *o = calibrate_gpu_json(&g);
        if (o) {
            cJSON_AddStringToObject(o, "path", path);
            cJSON_AddBoolToObject(o, "cached_before", outcome == CALIBRATE_CACHED);
        }
        if (outcome_put(o) != EXIT_OK)
            rc = EXIT_INTERNAL;
        goto out;
    }
    if (outcome == CALIBRATE_CACHED)
        printf("%s was calibrated on %s; cached in %s (--force measures again)\n", g.name, g.measured, path);
    for (int i = 0; i < g.nlabs; i++) {
        calibrate_lab_line(&g.labs[i], line, sizeof line);
        printf("%s\n", line);
    }
    calibrate_report(&g, note_line, &n);
    if (outcome == CALIBRATE_MEASURED)
        printf("measured in %.0f s (%d runs)\n", g.seconds, g.nruns);
out:
    calibrate_gpu_free(&g);
    via_setup_free(&via);
    free(path);
    return rc;
}

/* ---- dispatch ----------------------------------------------------------- */

int cli_run(struct app *app, struct cli_args *a)
{
    const struct command *cmd = command_of(a);
    if (!cmd || !cmd->fn)
        return EXIT_USAGE;      /* cli_parse refused it, or it is the UI's */
    if (cmd->takes_lab && !(a->lab = catalog_find(&app->cat, a->pos[0]))) {
        outcome_fail(cmd->name, "no lab \"%s\" (cudatutor list shows them)", a->pos[0]);
        return outcome_end(EXIT_USAGE);
    }
    if (cmd->lock == LOCK_RECORDED && !a->file && !a->build_only && !a->run_only &&
        cli_locked(app, cmd->name, a->lab))
        return outcome_end(EXIT_VERDICT);
    if (ON_PAGER & ON(cmd - commands))
        outcome_page();
    return outcome_end(cmd->fn(app, a));
}
