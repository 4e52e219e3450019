/* verdict.h — a check's result as plain text for a terminal or a log: the
 * stages, the failing tests with expected and got, the timings against the
 * reference, the sanitizer and technique findings, and a last verdict line. */
#ifndef VERDICT_H
#define VERDICT_H

#include <stdio.h>

#include "model/result.h"

/* color: use ANSI colours (the caller decides from isatty, NO_COLOR, flags). */
void verdict_print(FILE *f, const struct result *r, int color);

/* The lab's target in words, the one wording every front end shows:
 * "0.0822× CUB DeviceReduce::Sum at 2^28", "76% of the measured peak at
 * ripple"; every case of a target of several: "1.3× CUB DeviceReduce::Sum
 * at 2^22 and 1× at 2^28". */
void verdict_target(char *buf, size_t len, const struct result *r);

/* What was measured on the target's metric: "1.45×", or for a target of
 * several cases each with its case, "1.45× at 2^22 and 1.02× at 2^28"
 * ("not timed" for a case that was not). */
void verdict_target_measured(char *buf, size_t len, const struct result *r);

/* Why the threshold is not the catalog's, in parentheses: "(scaled to this
 * NVIDIA H200: its reference solution measures 0.109×; the catalog's 0.12×
 * is for the NVIDIA H100 80GB HBM3)", or the --target-min that set it;
 * "" when it is the catalog's. */
void verdict_target_note(char *buf, size_t len, const struct result *r);

/* "2^28" for powers of two, else the number. */
void verdict_size(char *buf, size_t len, unsigned long long n);

#endif /* VERDICT_H */
