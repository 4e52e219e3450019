/* cli.c — see cli.h.  One table of commands; each handler parses its own
 * options, prints to stdout, reports problems on stderr, and returns an exit
 * code instead of exiting. */
#include "cli.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli_study.h"
#include "ladder.h"
#include "result.h"
#include "util.h"
#include "verdict.h"

typedef int (*cmd_fn)(struct app *app, int argc, char **argv);

struct command {
    const char *name;
    cmd_fn fn;
    const char *usage;
    const char *summary;
};

static int cmd_check(struct app *app, int argc, char **argv);
static int cmd_show(struct app *app, int argc, char **argv);
static int cmd_ladder(struct app *app, int argc, char **argv);

static const struct command commands[] = {
    {"list", cmd_list, "list [--json]", "the ten labs: state, best GB/s, target"},
    {"check", cmd_check,
     "check NN [--file F] [--json] [--out PATH] [--seed S] [--quick] [--no-sanitize] [--counters]\n"
     "         [--build-only | --run-only] [--timeout-scale X] [--work-dir DIR] [--wrap PROGRAM]\n"
     "         [--time-budget MS] [--gpu-lock FILE] [--target-min X]",
     "compile the lab's kernel, run the hidden harness, print the verdict"},
    {"show", cmd_show, "show NN [--json]", "print the lab's lesson (its README.md)"},
    {"hint", cmd_hint, "hint NN [K] [--json]",
     "print the lab's next hint, or hint K (1-3); hints used are recorded"},
    {"progress", cmd_progress, "progress [--json]", "what you have passed, your best times, hints used"},
    {"reset", cmd_reset, "reset NN [--yes] [--json]",
     "put the lab's stub back (your kernel.cu is kept as kernel.cu.bak-TIME)"},
    {"solution", cmd_solution, "solution NN [--json]",
     "print the lab's reference solution (once the lab has passed, or with --unlock-all)"},
    {"ladder", cmd_ladder, "ladder [--out PATH]",
     "time every reference solution and write the performance table (docs/ladder.md)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

void cli_usage(FILE *f)
{
    fputs("usage: cudatutor [--root DIR] [--progress PATH] [--no-color] [--unlock-all] [COMMAND [ARGS]]\n"
          "With no command, opens the tutor (a terminal UI).  Commands:\n", f);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fputs("Run `cudatutor COMMAND --help` for a command's options.\n"
          "Exit codes: 0 ok or pass, 1 the kernel failed, 2 usage, 3 no CUDA device, 4 internal error.\n", f);
}

static int want_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

int cli_usage_of(const char *name, FILE *f)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(commands[i].name, name))
            fprintf(f, "usage: cudatutor %s\n%s\n", commands[i].usage, commands[i].summary);
    return f == stdout ? EXIT_OK : EXIT_USAGE;
}

const struct lab *cli_lab_arg(struct app *app, const char *cmd, const char *key)
{
    const struct lab *lab = key ? catalog_find(&app->cat, key) : NULL;
    if (!key)
        fprintf(stderr, "cudatutor %s: which lab? (e.g. %s 01)\n", cmd, cmd);
    else if (!lab)
        fprintf(stderr, "cudatutor %s: no lab \"%s\" (cudatutor list shows them)\n", cmd, key);
    return lab;
}

/* ---- check -------------------------------------------------------------- */

static void show_progress(void *ud, const char *stage, int i, int n, const char *detail)
{
    (void)ud;
    if (!strcmp(stage, "done")) {
        fputs("\r\033[K", stderr);
        return;
    }
    if (n > 0)
        fprintf(stderr, "\r\033[K[%s %d/%d] %s", stage, i, n, detail);
    else
        fprintf(stderr, "\r\033[K[%s] %s", stage, detail);
    fflush(stderr);
}

static int cmd_check(struct app *app, int argc, char **argv)
{
    struct check_opts o = {0};
    char *wrap[2] = {NULL, NULL};
    const char *key = NULL, *out = NULL;
    int json = 0;
    char err[512] = "";

    o.sanitize = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json"))
            json = 1;
        else if (!strcmp(a, "--quick"))
            o.quick = 1;
        else if (!strcmp(a, "--no-sanitize"))
            o.sanitize = 0;
        else if (!strcmp(a, "--counters"))
            o.counters = 1;
        else if (!strcmp(a, "--build-only"))
            o.build_only = 1;
        else if (!strcmp(a, "--run-only"))
            o.run_only = 1;
        else if (!strcmp(a, "--wrap") && v)
            wrap[0] = (char *)v, o.wrap = wrap, i++;
        else if (!strcmp(a, "--file") && v)
            o.file = v, i++;
        else if (!strcmp(a, "--out") && v)
            out = v, i++;
        else if (!strcmp(a, "--work-dir") && v)
            o.work_dir = v, i++;
        else if (!strcmp(a, "--gpu-lock") && v)
            o.gpu_lock = v, i++;
        else if (!strcmp(a, "--seed") && v) {
            char *end;
            o.seed = strtoull(v, &end, 0);
            if (*end || o.seed >= (1ull << 53))
                return fprintf(stderr, "cudatutor check: --seed takes an integer below 2^53\n"), EXIT_USAGE;
            o.have_seed = 1;
            i++;
        } else if (!strcmp(a, "--timeout-scale") && v) {
            o.timeout_scale = atof(v);
            i++;
            if (o.timeout_scale <= 0)
                return fprintf(stderr, "cudatutor check: --timeout-scale takes a positive number\n"), EXIT_USAGE;
        } else if (!strcmp(a, "--target-min") && v) {
            o.target_min = atof(v);
            i++;
            if (o.target_min <= 0)
                return fprintf(stderr, "cudatutor check: --target-min takes a positive number\n"), EXIT_USAGE;
        } else if (!strcmp(a, "--time-budget") && v) {
            o.time_budget_ms = atoi(v);
            i++;
            if (o.time_budget_ms <= 0)
                return fprintf(stderr, "cudatutor check: --time-budget takes milliseconds\n"), EXIT_USAGE;
        } else if (a[0] != '-' && !key)
            key = a;
        else
            return fprintf(stderr, "cudatutor check: unknown or incomplete option %s\n", a), cli_usage_of("check", stderr);
    }
    if (o.build_only && o.run_only)
        return fprintf(stderr, "cudatutor check: --build-only and --run-only exclude each other\n"), EXIT_USAGE;
    const struct lab *lab = cli_lab_arg(app, "check", key);
    if (!lab)
        return EXIT_USAGE;
    if (!json && isatty(STDERR_FILENO))
        o.progress = show_progress;

    cJSON *rep = check_run(&app->tc, &app->cat, lab, &o, err, sizeof err);
    if (!rep) {
        fprintf(stderr, "cudatutor check: %s\n", err);
        return EXIT_INTERNAL;
    }
    char *text = cJSON_Print(rep);
    cJSON_Delete(rep);
    if (!text)
        return EXIT_INTERNAL;
    if (out && util_write_file(out, text, strlen(text))) {
        fprintf(stderr, "cudatutor check: cannot write %s\n", out);
        free(text);
        return EXIT_INTERNAL;
    }
    struct result res;
    if (result_parse(text, &res, err, sizeof err)) {
        fprintf(stderr, "cudatutor check: %s\n", err);
        free(text);
        return EXIT_INTERNAL;
    }
    if (json)
        puts(text);
    else
        verdict_print(stdout, &res, app->color && isatty(STDOUT_FILENO));
    /* Progress is about the student's own kernel.cu, checked in full. */
    if (!o.file && !o.build_only && !o.run_only)
        cli_record_check(app, &res);
    int code = status_exit_code(res.status);
    result_free(&res);
    free(text);
    return code;
}

/* ---- show --------------------------------------------------------------- */

static int cmd_show(struct app *app, int argc, char **argv)
{
    const char *key = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (argv[i][0] != '-' && !key)
            key = argv[i];
        else
            return fprintf(stderr, "cudatutor show: unknown option %s\n", argv[i]), cli_usage_of("show", stderr);
    }
    const struct lab *lab = cli_lab_arg(app, "show", key);
    if (!lab)
        return EXIT_USAGE;
    char *path = util_format("%s/%s/README.md", app->root, lab->dir);
    char *text = path ? util_read_file(path, NULL) : NULL;
    if (!text) {
        fprintf(stderr, "cudatutor show: cannot read %s\n", path ? path : lab->dir);
        free(path);
        return EXIT_INTERNAL;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", lab->id);
        cJSON_AddStringToObject(o, "title", lab->title);
        cJSON_AddStringToObject(o, "lesson", text);
        char *s = cJSON_Print(o);
        puts(s ? s : "null");
        free(s);
        cJSON_Delete(o);
    } else {
        fputs(text, stdout);
    }
    free(text);
    free(path);
    return EXIT_OK;
}

/* ---- ladder ------------------------------------------------------------- */

static int cmd_ladder(struct app *app, int argc, char **argv)
{
    const char *out = NULL;
    char err[512] = "";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else
            return fprintf(stderr, "cudatutor ladder: unknown option %s\n", argv[i]), cli_usage_of("ladder", stderr);
    }
    int rc = ladder_run(app, out, stdout, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "cudatutor ladder: %s\n", err);
        return rc == -2 ? EXIT_NO_GPU : EXIT_INTERNAL;
    }
    if (out)
        printf("wrote %s\n", out);
    return rc ? EXIT_VERDICT : EXIT_OK;
}

int cli_run(struct app *app, int argc, char **argv)
{
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(commands[i].name, argv[0]))
            continue;
        if (want_help(argc, argv))
            return cli_usage_of(argv[0], stdout);
        return commands[i].fn(app, argc, argv);
    }
    return -1;
}
