/* status.h — the verdicts a check can end in, shared by the harness (CUDA C++)
 * and the tutor (C).  One X-macro table: name in JSON, exit code of
 * `cudatutor check`, and the one-line meaning shown to students.
 */
#ifndef STATUS_H
#define STATUS_H

/*        enum              json               exit  meaning */
#define STATUS_TABLE(X)                                                              \
    X(STATUS_PASS,           "pass",            0,   "correct at every size")          \
    X(STATUS_FAIL,           "fail",            1,   "a wrong result, a race or a missing technique") \
    X(STATUS_COMPILE_ERROR,  "compile_error",   1,   "nvcc could not compile the kernel") \
    X(STATUS_REJECTED,       "rejected",        1,   "the kernel breaks a rule of lab.h") \
    X(STATUS_RUNTIME_ERROR,  "runtime_error",   1,   "the kernel crashed or a CUDA call failed") \
    X(STATUS_TIMEOUT,        "timeout",         1,   "the run did not finish in time") \
    X(STATUS_NO_GPU,         "no_gpu",          3,   "compiled; not run: no CUDA device") \
    X(STATUS_INTERNAL_ERROR, "internal_error",  4,   "the workbook itself failed")

enum status {
#define STATUS_ENUM_(e, json, code, meaning) e,
    STATUS_TABLE(STATUS_ENUM_)
#undef STATUS_ENUM_
    STATUS_COUNT
};

#endif /* STATUS_H */
