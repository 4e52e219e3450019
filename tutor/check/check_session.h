/* check_session.h — one check as a front end runs it: the targets scaled
 * to this GPU first (calibrate.h: measured when the GPU model is new), the
 * check, and the result's target annotated with where its threshold came
 * from.  The command line, the tutor and the ladder run their checks
 * through here, so the sequence exists once. */
#ifndef CHECK_SESSION_H
#define CHECK_SESSION_H

/* In the harness folder while `make run`'s make builds the judges in the
 * background: that make's pid.  A check waits for its lab's judges while
 * it runs. */
#define CHECK_BUILDING_MARK ".building"

#include <stddef.h>

#include "check/calibrate.h"
#include "check/check.h"

struct check_session {
    const struct toolchain *tc;
    const struct catalog *cat;
    /* calibration.json (calibrate_path); NULL: judge by the catalog's
     * thresholds.  Not used either when the check judges no target of the
     * catalog's: --target-min gives one, and --build-only and --run-only
     * are a grader's, which calibrates by itself. */
    const char *calibration;
    calibrate_say_fn say;           /* the calibration's lines for people; NULL: none */
    check_progress_fn progress;     /* the calibration's progress; NULL: none */
    void *ud;                       /* for say and progress */
};

/* Runs the check of lab as opts ask, scaled and annotated as above, into
 * out (free it with result_free); first, while `make run`'s make builds the
 * judges in the background, waits for this lab's (opts->progress says so).  Returns 0, or -1 with a message in err
 * when the workbook itself is broken (out then holds nothing to free).  A
 * calibration that fails is said through s->say, and the catalog's
 * thresholds stand. */
int check_session_run(const struct check_session *s, const struct lab *lab, const struct check_opts *opts,
                      struct result *out, char *err, size_t errlen);

#endif /* CHECK_SESSION_H */
