/* check_session.c — see check_session.h. */
#include "check/check_session.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* `make run` opens the tutor once the program is built and leaves the
 * judges to a make in the background (the Makefile's run target): a check
 * whose judges are not built yet waits for them while that make runs,
 * saying so, and goes on as before once they are there or it has ended. */
static void wait_for_judges(const struct check_session *s, const struct lab *lab, const struct check_opts *o)
{
    const char *h = s->tc->harness_dir;
    char *gpu = util_format("%s/judge_%s", h, lab->family->name);
    char *cpu = util_format("%s/judge_cpu_%s", h, lab->family->name);
    char *mark = util_format("%s/%s", h, CHECK_BUILDING_MARK);
    double t0 = util_now();
    while (gpu && cpu && mark && (!util_is_file(gpu) || !util_is_file(cpu)) && builder_runs(mark)) {
        if (o->progress) {
            char line[200];
            snprintf(line, sizeof line, "waiting for lab %s's judges, which make builds in the background "
                                        "(build/background.log): %.0f s", lab->id, util_now() - t0);
            o->progress(o->ud, "compile", 0, 0, line);
        }
        nanosleep(&(struct timespec){0, 250 * 1000 * 1000}, NULL);
    }
    free(gpu);
    free(cpu);
    free(mark);
}

/* The calibration entry this check is judged by: 1 when g holds it. */
static int calibrated(const struct check_session *s, const struct check_opts *o, struct calibrate_gpu *g)
{
    char err[512] = "", line[640];
    int rc;

    memset(g, 0, sizeof *g);
    if (!s->calibration || o->target_min > 0 || o->build_only || o->run_only)
        return 0;
    struct calibrate_req q = {.tc = s->tc, .cat = s->cat, .path = s->calibration, .base = o,
                              .say = s->say, .progress = s->progress, .ud = s->ud};
    rc = calibrate_prepare(&q, g, err, sizeof err);
    if (rc < 0 && s->say) {
        snprintf(line, sizeof line, "the targets could not be calibrated (%s): the catalog's stand", err);
        s->say(s->ud, line);
    }
    if (rc == CALIBRATE_MEASURED)
        calibrate_report(g, s->say, s->ud);
    return rc == CALIBRATE_CACHED || rc == CALIBRATE_MEASURED;
}

int check_session_run(const struct check_session *s, const struct lab *lab, const struct check_opts *opts,
                      struct result *out, char *err, size_t errlen)
{
    struct calibrate_gpu g;
    struct check_opts o = *opts;
    wait_for_judges(s, lab, opts);
    int have = calibrated(s, opts, &g), rc;

    if (have)
        calibrate_apply(&o, &g, lab);
    rc = check_run(s->tc, s->cat, lab, &o, out, err, errlen);
    if (rc == 0 && have)
        calibrate_annotate(out, &g, s->cat);
    calibrate_gpu_free(&g);
    return rc;
}
