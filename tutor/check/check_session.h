/* check_session.h — one check as a front end runs it, set up in one place:
 * the GPU elsewhere as the settings name it (check_via.h), the word that
 * another check of the lab runs first, the judges `make run` still builds,
 * the targets scaled to this GPU (calibrate.h: measured when the model is
 * new), the check, and the result's target annotated with where its
 * threshold came from.  What happens meanwhile reaches the front end as
 * typed events.  The command line, the tutor and the ladder run their
 * checks through here, so the sequence exists once. */
#ifndef CHECK_SESSION_H
#define CHECK_SESSION_H

/* In the harness folder while `make run`'s make builds the judges in the
 * background: that make's pid.  A check waits for its lab's judges while
 * it runs. */
#define CHECK_BUILDING_MARK ".building"

#include <stddef.h>

#include "check/calibrate.h"
#include "check/check.h"
#include "model/app.h"

/* What a front end is told while a check runs. */
enum check_event_kind {
    CHECK_EVENT_PROGRESS,       /* a stage, i of n, its detail */
    CHECK_EVENT_NOTE            /* a line for people: calibration's, the GPU command's failure */
};

struct check_event {
    enum check_event_kind kind;
    enum stage_id stage;        /* PROGRESS: the stage (STAGE_WAIT: another check of
                                   the lab runs first, text its id) */
    int i, n;
    const char *text;           /* the stage's detail, or the note */
};

typedef void (*check_event_fn)(void *ud, const struct check_event *ev);

struct check_session {
    const struct app *app;
    /* Judge by the targets scaled to this GPU (calibration.json beside
     * progress.json), unless app->no_calibrate.  Not used either when the
     * check judges no target of the catalog's: --target-min gives one, and
     * --build-only and --run-only are a grader's, which calibrates by
     * itself. */
    int calibrated;
    /* The GPU elsewhere: via_cmd (--gpu-via), else $CUDATUTOR_GPU_VIA or
     * cudatutor.conf; its wait likewise (0: theirs).  0: never. */
    int via;
    const char *via_cmd;
    double via_wait;
    check_event_fn event;       /* NULL: nothing told */
    void *ud;
};

/* check_session_run's failures: the workbook is broken; the settings the
 * check runs by are wrong (a GPU command that cannot be read, or one given
 * with --counters). */
enum { CHECK_SESSION_BROKEN = -1, CHECK_SESSION_SETTINGS = -2 };

/* Whether `make run`'s make still builds the harness in the background
 * (its pid in CHECK_BUILDING_MARK, alive). */
int check_session_building(const struct app *app);

/* Runs the check of lab as opts ask (their progress callback is the
 * session's: s->event is told), set up and annotated as above, into out
 * (free it with result_free).  Returns 0, or CHECK_SESSION_BROKEN or
 * CHECK_SESSION_SETTINGS with a message in err (out then holds nothing to
 * free).  A calibration that fails is told as a note, and the catalog's
 * thresholds stand. */
int check_session_run(const struct check_session *s, const struct lab *lab, const struct check_opts *opts,
                      struct result *out, char *err, size_t errlen);

#endif /* CHECK_SESSION_H */
