/* verdict.h — a check's result as plain text for a terminal or a log: the
 * stages, the failing tests with expected and got, the timings against the
 * reference, the sanitizer and technique findings, and a last verdict line. */
#ifndef VERDICT_H
#define VERDICT_H

#include <stdio.h>

#include "model/result.h"

/* color: use ANSI colours (the caller decides from isatty, NO_COLOR, flags).
 * The heading's fields (seed, device, peak) are flowed into width columns
 * at spaces; the rest prints as it is.  lab: the lab checked (the offer
 * of a fail's picture, result_picture), or NULL. */
struct lab;
void verdict_print(FILE *f, const struct result *r, const struct lab *lab, int color, int width);

/* What ran the kernel, the one wording every front end shows: "NVIDIA H100
 * 80GB HBM3 (sm 9.0)"; without a GPU, what the emulator stood in for and
 * that nothing was timed. */
void verdict_device(char *buf, size_t len, const struct result *r);

/* The bandwidth the judge measured on the GPU ("3012 GB/s read, 2900 GB/s
 * copy"); "" when it measured none (no GPU, nothing to time). */
void verdict_peak(char *buf, size_t len, const struct result *r);

/* Why the GPU at the other end of --gpu-via did not judge, what did, and
 * when the command is tried again ("the GPU side failed 40 s ago (...);
 * judged on this computer's CPU; retrying in 260 s"), shown beside the
 * verdict; "" when it judged or was not needed. */
void verdict_gpu_via(char *buf, size_t len, const struct result *r);

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

/* Where a check runs the kernel on this machine, and what the tutor's
 * help says a check does there (the key c). */
#define CHECK_PLACE_TABLE(X)                                                                             \
    X(CHECK_ON_GPU, "compile, test on the GPU, time, race check")                                      \
    X(CHECK_ON_CPU, "compile, then test and race check on this computer's CPU (the PTX emulator; no "   \
                    "GPU here, so not timed)")                                                          \
    X(CHECK_VIA_GPU, "compile and test on this computer's CPU, then test, time and race check on the "  \
                     "GPU your GPU command reaches (--gpu-via, cudatutor.conf)")

enum check_place {
#define CHECK_PLACE_ENUM_(e, words) e,
    CHECK_PLACE_TABLE(CHECK_PLACE_ENUM_)
#undef CHECK_PLACE_ENUM_
};

const char *verdict_check_does(enum check_place p);

/* "2^28" for powers of two, else the number. */
void verdict_size(char *buf, size_t len, unsigned long long n);

#endif /* VERDICT_H */
