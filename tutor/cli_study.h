/* cli_study.h — the commands that read or change the student's progress
 * (list, hint, progress, reset, solution) and the recording of a check, for
 * cli.c's command table.  Internal to the command line. */
#ifndef CLI_STUDY_H
#define CLI_STUDY_H

#include <stdio.h>

#include "app.h"
#include "result.h"

int cmd_list(struct app *app, int argc, char **argv);
int cmd_hint(struct app *app, int argc, char **argv);
int cmd_progress(struct app *app, int argc, char **argv);
int cmd_reset(struct app *app, int argc, char **argv);
int cmd_solution(struct app *app, int argc, char **argv);

/* Records a check of the lab's own kernel.cu in progress.json; reports on
 * stderr what changed (a lab passed, the next one opened) or why nothing
 * could be recorded.  Never changes the check's exit code. */
void cli_record_check(struct app *app, const struct result *r);

/* From cli.c: prints a command's usage to f, returning the exit code that
 * goes with it (0 for stdout, usage error for stderr). */
int cli_usage_of(const char *name, FILE *f);

/* From cli.c: the lab named by key, or NULL after a message on stderr. */
const struct lab *cli_lab_arg(struct app *app, const char *cmd, const char *key);

#endif /* CLI_STUDY_H */
