/* check.h — one check of one lab, end to end: compile the kernel as its own
 * object, check its symbols, source and PTX, link it with the cached harness,
 * run the harness as a child with a time limit, run the race checkers, judge
 * the target, and produce the merged JSON (docs/harness.md).  Every failure
 * of the kernel becomes a verdict in that JSON; only a failure of the
 * workbook itself (no nvcc, no harness objects) is an error return. */
#ifndef CHECK_H
#define CHECK_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "check/check_opts.h"
#include "model/catalog.h"
#include "sys/toolchain.h"

/* Runs the check.  Returns the merged report (caller frees with cJSON_Delete),
 * or NULL with a message in err when the workbook itself is broken. */
cJSON *check_run(const struct toolchain *tc, const struct catalog *cat, const struct lab *lab,
                 const struct check_opts *opts, char *err, size_t errlen);

/* A fresh seed below 2^48: JSON numbers are doubles, exact to 2^53. */
unsigned long long check_new_seed(void);

#endif /* CHECK_H */
