/* cli_args.h — a command line as cli_parse read it: the command, its
 * arguments, and every option, whatever the command.  Shared by main (the
 * global and UI options), cli.c (parsing, dispatch) and the commands'
 * handlers in cli_study.c, so that neither of those two includes the other's
 * header for the grammar. */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include "model/catalog.h"

struct cli_args {
    const char *cmd;            /* NULL: no command (the tutor) */
    char **pos;                 /* the command's own arguments, in order */
    int npos;
    const struct lab *lab;      /* pos[0] as a lab, for commands that take one
                                   (filled in by cli_run) */

    /* Global. */
    const char *root, *progress;
    int no_color, unlock_all;

    /* The tutor off-screen (tests). */
    const char *keys;
    int dump, cols, rows;

    /* The commands'. */
    int json, yes;
    const char *file, *out, *work_dir, *wrap, *gpu_lock;
    const char *sanitize_from;  /* --sanitize-from FILE: the race checkers a first run left */
    const char *sanitized;      /* --sanitized TOOLS: of those, the ones a grader's batch ran clean */
    const char *svg;            /* trace --svg PATH */
    char **wrap_args;           /* --wrap-arg, in order: --wrap's program's own arguments */
    int nwrap_args;
    int quick, no_sanitize, sanitize_later, counters, build_only, run_only, no_calibrate, force;
    unsigned long long seed;
    int have_seed;
    double timeout_scale, target_min;
    const char *gpu_via;        /* --gpu-via COMMAND (check_via.h); NULL: its settings */
    double gpu_via_wait;        /* --gpu-via-wait SECONDS; 0: its settings */
    int time_budget_ms;
};

#endif /* CLI_ARGS_H */
