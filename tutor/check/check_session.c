/* check_session.c — see check_session.h. */
#include "check/check_session.h"

#include <stdio.h>
#include <string.h>

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
    int have = calibrated(s, opts, &g), rc;

    if (have)
        calibrate_apply(&o, &g, lab);
    rc = check_run(s->tc, s->cat, lab, &o, out, err, errlen);
    if (rc == 0 && have)
        calibrate_annotate(out, &g, s->cat);
    calibrate_gpu_free(&g);
    return rc;
}
