/* cli.h — the command line: one grammar for every command (getopt_long:
 * options before or after the command and its arguments, --opt=value,
 * usage errors with exit code 2), the table of commands and options that
 * the help, the man page and the completion follow, and the commands that
 * check a kernel (check, watch), show a lesson and time the ladder.  The
 * commands about progress are in cli_study.c. */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>

#include "model/app.h"
#include "cli/cli_args.h"

/* Parses argv (which getopt may reorder) into a; a's strings point into
 * argv.  Answers --help and --version itself.  Returns -1 when the program
 * should go on, else the exit code: EXIT_OK after help or the version,
 * EXIT_USAGE after a usage error explained on stderr (and, with --json
 * anywhere on the line, as a JSON object on stdout: outcome.h).  Free a
 * with cli_args_free whatever it returns. */
int cli_parse(int argc, char **argv, struct cli_args *a);
void cli_args_free(struct cli_args *a);

/* Whether a names no command, or one the tutor's screens answer
 * (view-result): main then runs the UI. */
int cli_wants_ui(const struct cli_args *a);

/* Runs the command cli_parse accepted: resolves its lab, applies the lock
 * rules of the tutor, and returns the exit code; with --json, a command that
 * fails without a JSON answer ends with the error object (outcome.h). */
int cli_run(struct app *app, struct cli_args *a);

/* Whether word, the first argument, is a command with a grammar of its
 * own (grade, whose options are grade_opts.c's): main hands the rest of the
 * line to it instead of cli_parse. */
int cli_own_grammar(const char *word);

/* The program's usage: the global options and one line per command. */
void cli_usage(FILE *f);

/* The command and option tables as lines for generators (the bash
 * completion, the manual page's option lists; `cudatutor --print-options`,
 * which the help does not list), tab-separated:
 *   command NAME ARGS            each command, in the help's order
 *   global --NAME VALUE SHORT HELP       the options of every command
 *   option CMD --NAME VALUE SHORT HELP   the rest, per command ("-": the tutor)
 * VALUE is the value's name ("" for a flag), SHORT "-h" or "", HELP the
 * help's words.  grade's
 * lines follow from grade_opts_print (its own grammar). */
void cli_print_options(FILE *f);

#endif /* CLI_H */
