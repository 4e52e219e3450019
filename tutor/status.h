/* status.h — the verdicts a check can end in, shared by the harness (CUDA C++)
 * and the tutor (C).  One X-macro table: name in JSON, exit code of
 * `cudatutor check`, the grader's letter, and the one-line meaning shown to
 * students and instructors alike.
 */
#ifndef STATUS_H
#define STATUS_H

/* The last three are the grader's: what it found when it took a submission
 * in, before any check ran.  `letter` is the status in the grader's summary
 * table.
 *
 *        enum              json               exit letter meaning */
#define STATUS_TABLE(X)                                                              \
    X(STATUS_PASS,           "pass",            0,  'P', "correct at every size")          \
    X(STATUS_FAIL,           "fail",            1,  'F', "a wrong result, a race or a missing technique") \
    X(STATUS_COMPILE_ERROR,  "compile_error",   1,  'C', "the kernel did not build")         \
    X(STATUS_REJECTED,       "rejected",        1,  'R', "the kernel breaks a rule of lab.h") \
    X(STATUS_RUNTIME_ERROR,  "runtime_error",   1,  'E', "the kernel crashed or a CUDA call failed") \
    X(STATUS_TIMEOUT,        "timeout",         1,  'T', "the run did not finish in time") \
    X(STATUS_NO_GPU,         "no_gpu",          3,  'N', "compiled; not run: no CUDA device") \
    X(STATUS_INTERNAL_ERROR, "internal_error",  4,  '!', "the workbook itself failed") \
    X(STATUS_MISSING,        "missing",         1,  '-', "no kernel.cu for this lab in the submission") \
    X(STATUS_UNCHANGED,      "unchanged",       1,  '-', "kernel.cu is the stub as handed out") \
    X(STATUS_REFUSED,        "refused",         1,  'X', "refused when the submission was taken in")

enum status {
#define STATUS_ENUM_(e, json, code, letter, meaning) e,
    STATUS_TABLE(STATUS_ENUM_)
#undef STATUS_ENUM_
    STATUS_COUNT
};

/* A check ends in one of the statuses before STATUS_MISSING, or in
 * STATUS_REFUSED when the grader's intake rules (model/intake_rule.h)
 * refuse its file; the grader's intake adds the rest. */
#define STATUS_CHECK_COUNT STATUS_MISSING

#endif /* STATUS_H */
