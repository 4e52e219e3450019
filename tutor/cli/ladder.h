/* ladder.h — the seed's performance table redone on this GPU: every lab's
 * reference solution checked and timed, written as Markdown (docs/ladder.md).
 * Generated from measurements, never typed. */
#ifndef LADDER_H
#define LADDER_H

#include <stdio.h>

#include "model/app.h"

/* Checks every solution (no sanitizer: timing is what matters here), writes
 * the table to out_path (or only to log when NULL) and a line per lab to log.
 * Returns 0; 1 when a solution did not pass; -2 when there is no GPU (and
 * nothing was written: on the CPU tier each solution's predicted time goes
 * to log instead, marked so); -1 with err set when the workbook is broken. */
int ladder_run(struct app *app, const char *out_path, FILE *log, char *err, size_t errlen);

#endif /* LADDER_H */
