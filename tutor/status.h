/* status.h — the verdicts a check can end in, shared by the harness (CUDA C++)
 * and the tutor (C).  One X-macro table: name in JSON, exit code of
 * `cudatutor check`, the grader's letter, and the one-line meaning shown to
 * students and instructors alike.  Above it, the program's exit codes: the
 * one list that `cudatutor`, its commands and `cudatutor grade` return from.
 */
#ifndef STATUS_H
#define STATUS_H

/* The exit codes of cudatutor and of cudatutor grade (its --help, the man
 * page and the instructor guide say them in words). */
enum exit_code {
    EXIT_OK = 0,                /* done: the kernel passed, every lab was graded */
    EXIT_VERDICT = 1,           /* the kernel failed (fail, compile_error, rejected, ...) or the lab is
                                   not open to this yet; --selftest: a submission was judged wrong */
    EXIT_USAGE = 2,             /* a bad command line, roster, rubric or submission path; the output
                                   folder in use by another grading */
    EXIT_NO_GPU = 3,            /* compiled, but not run (or not graded) for want of a CUDA device */
    EXIT_INTERNAL = 4,          /* the workbook itself failed: a missing lab file, no harness, the
                                   grader failing on a lab */
    EXIT_SANDBOX = 5,           /* grade --sandbox bwrap, but bubblewrap does not work here */
    EXIT_INTERRUPTED = 130      /* grade was interrupted: the same command again resumes */
};

/* The last three are the grader's: what it found when it took a submission
 * in, before any check ran.  `letter` is the status in the grader's summary
 * table.
 *
 *        enum              json               exit           letter meaning */
#define STATUS_TABLE(X)                                                              \
    X(STATUS_PASS,           "pass",            EXIT_OK,       'P', "correct at every size")          \
    X(STATUS_FAIL,           "fail",            EXIT_VERDICT,  'F', "a wrong result, a race or a missing technique") \
    X(STATUS_COMPILE_ERROR,  "compile_error",   EXIT_VERDICT,  'C', "the kernel did not build")         \
    X(STATUS_REJECTED,       "rejected",        EXIT_VERDICT,  'R', "the kernel breaks a rule of lab.h") \
    X(STATUS_RUNTIME_ERROR,  "runtime_error",   EXIT_VERDICT,  'E', "the kernel crashed or a CUDA call failed") \
    X(STATUS_TIMEOUT,        "timeout",         EXIT_VERDICT,  'T', "the run did not finish in time") \
    X(STATUS_NO_GPU,         "no_gpu",          EXIT_NO_GPU,   'N', "compiled; not run: no CUDA device") \
    X(STATUS_INTERNAL_ERROR, "internal_error",  EXIT_INTERNAL, '!', "the workbook itself failed") \
    X(STATUS_MISSING,        "missing",         EXIT_VERDICT,  '-', "no kernel.cu for this lab in the submission") \
    X(STATUS_UNCHANGED,      "unchanged",       EXIT_VERDICT,  '-', "kernel.cu is the stub as handed out") \
    X(STATUS_REFUSED,        "refused",         EXIT_VERDICT,  'X', "refused when the submission was taken in")

enum status {
#define STATUS_ENUM_(e, json, code, letter, meaning) e,
    STATUS_TABLE(STATUS_ENUM_)
#undef STATUS_ENUM_
    STATUS_COUNT
};

/* What a fail was for: the headline of a fail verdict is one of these, in
 * these words, followed by what it is about (a size, a place in memory, a
 * race checker, a technique).  model/result.h tells the cause from a
 * report; the status's meaning above stays the one line for every fail
 * (the grader's legend), the headline says which.  DRAWN: `cudatutor
 * trace` draws where it happened (a race, a barrier or warp operation the
 * emulator stopped, an undefined value it caught reaching the result),
 * and for a technique, where the lab's lesson counts divergent branches,
 * bank conflicts or barriers, the picture shows them; the verdict then
 * offers the picture in FAIL_PICTURE's words.
 *
 *        enum                  headline, then what it is about       drawn */
#define FAIL_CAUSE_TABLE(X)                                                     \
    X(FAIL_WRONG_RESULT,    "wrong result at n = ",                     0)      \
    X(FAIL_RACE,            "race on ",                                 1)      \
    X(FAIL_SYNC,            "synchronization error at n = ",            1)      \
    X(FAIL_UNDEFINED,       "undefined value at n = ",                  1)      \
    X(FAIL_IMPLAUSIBLE,     "implausible timing at n = ",               0)      \
    X(FAIL_SANITIZER,       "problems found by ",                       0)      \
    X(FAIL_TECHNIQUE,       "technique missing: ",                      1)

/* The offer of a fail's picture, then the lab (and the file checked, when
 * not the lab's own kernel.cu): "see it: cudatutor trace 03". */
#define FAIL_PICTURE "see it: cudatutor trace "
/* After it, for the lab's own kernel.cu: the tutor's key that draws it. */
#define FAIL_PICTURE_KEY " (t in the tutor)"

enum fail_cause {
#define FAIL_CAUSE_ENUM_(e, headline, drawn) e,
    FAIL_CAUSE_TABLE(FAIL_CAUSE_ENUM_)
#undef FAIL_CAUSE_ENUM_
    FAIL_CAUSE_NONE             /* not a fail, or one the report does not tell */
};

/* A check ends in one of the statuses before STATUS_MISSING, or in
 * STATUS_REFUSED when the grader's intake rules (model/intake_rule.h)
 * refuse its file; the grader's intake adds the rest. */
#define STATUS_CHECK_COUNT STATUS_MISSING

#endif /* STATUS_H */
