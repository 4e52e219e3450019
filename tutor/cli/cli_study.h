/* cli_study.h — the commands that read or change the student's progress
 * (list, hint, progress, reset, solution), the lock rule they share with the
 * tutor, and the recording of a check, for cli.c's command table.  Internal
 * to the command line; the handlers get a command line cli.c has parsed and
 * checked (a->lab is set for the commands that take a lab). */
#ifndef CLI_STUDY_H
#define CLI_STUDY_H

#include "model/app.h"
#include "cli/cli_args.h"
#include "model/result.h"

int cmd_list(struct app *app, const struct cli_args *a);
int cmd_hint(struct app *app, const struct cli_args *a);
int cmd_progress(struct app *app, const struct cli_args *a);
int cmd_reset(struct app *app, const struct cli_args *a);
int cmd_solution(struct app *app, const struct cli_args *a);

/* The tutor's lock rule for the student's own work: returns 0 when the lab
 * is open (or --unlock-all), else 1 after saying on stderr which lab to
 * pass first. */
int cli_locked(struct app *app, const char *cmd, const struct lab *lab);

/* Records a check of the lab's own kernel.cu in progress.json; reports on
 * stderr what changed (a lab passed, the next one opened) or why nothing
 * could be recorded.  Never changes the check's exit code. */
void cli_record_check(struct app *app, const struct result *r);

#endif /* CLI_STUDY_H */
