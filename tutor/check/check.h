/* check.h — one check of one lab, end to end: compile the kernel as its own
 * object, check its symbols, source and PTX, link it with the cached harness,
 * run the harness as a child with a time limit, run the race checkers, judge
 * the target, and produce the result (model/result.h; its JSON is
 * docs/harness.md's).  Every failure of the kernel becomes a verdict in the
 * result; only a failure of the workbook itself (no nvcc, no harness
 * objects) is an error return. */
#ifndef CHECK_H
#define CHECK_H

#include <stddef.h>

#include "check/check_opts.h"
#include "model/catalog.h"
#include "model/result.h"
#include "sys/toolchain.h"

/* Runs the check into out (free it with result_free).  Returns 0, or -1
 * with a message in err when the workbook itself is broken (out then holds
 * nothing to free). */
int check_run(const struct toolchain *tc, const struct catalog *cat, const struct lab *lab,
              const struct check_opts *opts, struct result *out, char *err, size_t errlen);

/* `cudatutor trace` and the tutor's t: O set for one call of FILE (NULL:
 * the lab's kernel.cu, whose path the caller gives) traced at
 * CHECK_TRACE_N in WORK_DIR, its steps written to STEPS, with one seed so
 * that the same kernel draws the same picture.  The rest of O is zero. */
void check_trace_opts(struct check_opts *o, const char *file, const char *work_dir, const char *steps);
/* A trace's work folder: build/trace/NN (heap; NULL out of memory). */
char *check_trace_dir(const struct toolchain *tc, const struct lab *lab);
/* How a traced call ended when not cleanly (the hazard's sentence, the
 * picture's last page says it), else NULL. */
const char *check_trace_stopped(const struct result *res);

/* A fresh seed below 2^48: JSON numbers are doubles, exact to 2^53. */
unsigned long long check_new_seed(void);

#endif /* CHECK_H */
