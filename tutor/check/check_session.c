/* check_session.c — see check_session.h. */
#include "check/check_session.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/check_via.h"
#include "sys/util.h"

/* Whether the make that `make run` left building the judges in the
 * background (its pid in mark) still runs. */
static int builder_runs(const char *mark)
{
    char *text = util_read_file(mark, NULL);
    long pid = text ? strtol(text, NULL, 10) : 0;
    free(text);
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

int check_session_building(const struct app *app)
{
    char *mark = util_format("%s/%s", app->tc.harness_dir, CHECK_BUILDING_MARK);
    int runs = mark && builder_runs(mark);
    free(mark);
    return runs;
}

/* What make is doing now: the last line of its log, its spaces squeezed
 * ("NVCC tutor/harness/hx_core.cu"), into buf; "" when there is none. */
static void builder_step(const char *log, char *buf, size_t len)
{
    char *text = util_read_file(log, NULL);
    size_t n = text ? strlen(text) : 0, o = 0;
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    size_t start = n;
    while (start && text[start - 1] != '\n')
        start--;
    for (size_t i = start; i < n && o + 1 < len; i++)
        if (text[i] != ' ' || (o && buf[o - 1] != ' '))
            buf[o++] = text[i];
    if (len)
        buf[o] = '\0';
    free(text);
}

/* `make run` opens the tutor once the program is built and leaves the
 * judges to a make in the background (the Makefile's run target): a check
 * whose lab's judges, or the runner's objects every check links, are not
 * built yet waits for them while that make runs, saying what it builds
 * now, and goes on as before once they are there or it has ended. */
static void wait_for_judges(const struct check_session *s, const struct lab *lab, const struct check_opts *o)
{
    const char *h = s->app->tc.harness_dir;
    const char *fam = lab->family->name;
    char *need[] = {util_format("%s/judge_%s", h, fam), util_format("%s/judge_cpu_%s", h, fam),
                    util_format("%s/rt.o", h), util_format("%s/runner.o", h)};
    char *mark = util_format("%s/%s", h, CHECK_BUILDING_MARK), *log = util_format("%s/../background.log", h);
    double t0 = util_now();
    for (;;) {
        int missing = 0;
        for (int i = 0; i < 4; i++)
            missing |= !need[i] || !util_is_file(need[i]);
        if (!missing || !mark || !builder_runs(mark))
            break;
        if (o->progress) {
            char line[300], step[120] = "";
            if (log)
                builder_step(log, step, sizeof step);
            snprintf(line, sizeof line, "waiting for lab %s's judges, which make builds in the background "
                                        "(build/background.log): %.0f s%s%s", lab->id, util_now() - t0,
                     step[0] ? "; now " : "", step);
            o->progress(o->ud, STAGE_COMPILE, 0, 0, line);
        }
        nanosleep(&(struct timespec){0, 250 * 1000 * 1000}, NULL);
    }
    for (int i = 0; i < 4; i++)
        free(need[i]);
    free(mark);
    free(log);
}

/* The session's progress callback: every stage's progress, the calibration's
 * and the GPU command's, as events. */
static void tell_progress(void *ud, enum stage_id stage, int i, int n, const char *detail)
{
    const struct check_session *s = ud;
    if (s->event)
        s->event(s->ud, &(struct check_event){CHECK_EVENT_PROGRESS, stage, i, n, detail ? detail : ""});
}

/* calibrate_say_fn, and any other line for people: a note. */
static void tell_note(void *ud, const char *line)
{
    const struct check_session *s = ud;
    if (s->event)
        s->event(s->ud, &(struct check_event){CHECK_EVENT_NOTE, STAGE_COUNT, 0, 0, line});
}

/* The calibration entry this check is judged by: 1 when g holds it. */
static int calibrated(const struct check_session *s, const char *path, const struct check_opts *o,
                      struct calibrate_gpu *g)
{
    char err[512] = "", line[640];
    int rc;

    memset(g, 0, sizeof *g);
    if (!path || o->target_min > 0 || o->build_only || o->run_only)
        return 0;
    struct calibrate_req q = {.tc = &s->app->tc, .cat = &s->app->cat, .path = path, .base = o,
                              .say = tell_note, .progress = tell_progress, .ud = (void *)s};
    rc = calibrate_prepare(&q, g, err, sizeof err);
    if (rc < 0) {
        snprintf(line, sizeof line, "the targets could not be calibrated (%s): the catalog's stand", err);
        tell_note((void *)s, line);
    }
    if (rc == CALIBRATE_MEASURED)
        calibrate_report(g, tell_note, (void *)s);
    return rc == CALIBRATE_CACHED || rc == CALIBRATE_MEASURED;
}

/* The GPU elsewhere, as the settings name it, applied to o: 0, or
 * CHECK_SESSION_SETTINGS with err. */
static int via_setup(const struct check_session *s, struct via_setup *via, struct check_opts *o, char *err,
                     size_t errlen)
{
    const struct app *app = s->app;
    if (!s->via)
        return 0;
    if (via_prepare(via, app->root, app->progress_path, s->via_cmd, s->via_wait, tell_progress, (void *)s, err,
                    errlen))
        return CHECK_SESSION_SETTINGS;
    if (via->cmd && o->counters) {
        snprintf(err, errlen, "--counters cannot be used with a GPU command (%s): ncu runs beside the judge",
                 s->via_cmd ? "--gpu-via" : "$CUDATUTOR_GPU_VIA or cudatutor.conf");
        return CHECK_SESSION_SETTINGS;
    }
    via_apply(o, via);
    if (via->error[0]) {
        char line[700];
        snprintf(line, sizeof line, "%s: the kernel is judged on the CPU only", via->error);
        tell_note((void *)s, line);
    }
    return 0;
}

int check_session_run(const struct check_session *s, const struct lab *lab, const struct check_opts *opts,
                      struct result *out, char *err, size_t errlen)
{
    const struct app *app = s->app;
    struct calibrate_gpu g = {0};
    struct via_setup via = {0};
    struct check_opts o = *opts;
    char *path = NULL;
    int have = 0, rc;

    o.progress = tell_progress;
    o.ud = (void *)s;
    if ((rc = via_setup(s, &via, &o, err, errlen)))
        goto out;
    /* check_run would wait without a word for a check of the same lab. */
    if (!o.work_dir && toolchain_check_busy(&app->tc, lab->id))
        tell_progress((void *)s, STAGE_WAIT, 0, 0, lab->id);
    wait_for_judges(s, lab, &o);
    path = s->calibrated && !app->no_calibrate ? calibrate_path(app->root, app->progress_path) : NULL;
    if ((have = calibrated(s, path, &o, &g)))
        calibrate_apply(&o, &g, lab);
    rc = check_run(&app->tc, &app->cat, lab, &o, out, err, errlen) ? CHECK_SESSION_BROKEN : 0;
    if (rc == 0 && have)
        calibrate_annotate(out, &g, &app->cat);
out:
    calibrate_gpu_free(&g);
    via_setup_free(&via);
    free(path);
    return rc;
}
