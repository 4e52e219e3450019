/* cli.h — the subcommands (list, check, show, hint, ...): every action of the
 * tutor is also a command, with --json where a script would want it. */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>

#include "app.h"

/* Exit codes of the program; a check's own verdict maps through status.h. */
enum {
    EXIT_OK = 0,
    EXIT_VERDICT = 1,       /* the kernel failed (fail, compile_error, rejected, ...) */
    EXIT_USAGE = 2,
    EXIT_NO_GPU = 3,        /* compiled, but there is no CUDA device to run it */
    EXIT_INTERNAL = 4
};

/* Runs subcommand argv[0]; returns the exit code.  Returns -1 when argv[0] is
 * not a command (main then reports it). */
int cli_run(struct app *app, int argc, char **argv);

/* Lists the commands with one line each. */
void cli_usage(FILE *f);

#endif /* CLI_H */
