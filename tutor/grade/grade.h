/* grade.h — `cudatutor grade`: the instructor's grader (./grade.sh runs
 * it).  Takes a class's submissions in, builds each kernel in a sandbox,
 * runs the builds several at a time per GPU, scores the verdicts by the
 * rubric and writes the reports; also merges shards, rescores without a
 * GPU, and tests itself on the solutions and the bank of bad kernels.
 * docs/instructor-guide.md is the manual; grade_opts.h the command line. */
#ifndef GRADE_H
#define GRADE_H

#include "status.h"     /* the exit codes */

/* Runs `cudatutor grade` with argv[0] "grade" and its arguments after it;
 * prog is the program as it was started (main's argv[0]): without
 * --workbook, the workbook is the folder it was started from (./grade.sh
 * runs the cudatutor beside it), else the one around the current folder.
 * Returns the exit code.  Prints what it does on stderr (unless --quiet),
 * the summary table on stdout. */
int grade_main(const char *prog, int argc, char **argv);

#endif /* GRADE_H */
