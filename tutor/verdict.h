/* verdict.h — a check's result as plain text for a terminal or a log: the
 * stages, the failing tests with expected and got, the timings against the
 * reference, the sanitizer and technique findings, and a last verdict line. */
#ifndef VERDICT_H
#define VERDICT_H

#include <stdio.h>

#include "result.h"

/* color: use ANSI colours (the caller decides from isatty, NO_COLOR, flags). */
void verdict_print(FILE *f, const struct result *r, int color);

/* "2^28" for powers of two, else the number. */
void verdict_size(char *buf, size_t len, unsigned long long n);

#endif /* VERDICT_H */
