/* cli_trace.h — `cudatutor trace NN [FILE]`: the picture of the lab's
 * kernel (or FILE) running at a small n, every step of it (view/trace.h). */
#ifndef CLI_TRACE_H
#define CLI_TRACE_H

#include "cli/cli_args.h"
#include "model/app.h"

/* Builds the kernel, runs one call of it on the CPU judge with the
 * emulator's trace on (check_trace.c) and prints each step as a page of at
 * most 80x24, a blank line between pages; through the pager on a terminal.
 * With --svg PATH it writes every step as one SVG document there instead
 * and says so in a line.
 * Exit: 0 drawn (also when the call stopped at a hazard, which the last
 * page shows), 1 the kernel did not build or could not be traced, 4 the
 * workbook failed. */
int cli_trace(struct app *app, const struct cli_args *a);

#endif
