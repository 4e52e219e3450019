/* cli_trace.c — see cli_trace.h.  The build and the traced call are a
 * check's (check_run with its trace option), in build/trace/NN, so the
 * student's own folder and progress are never touched. */
#include "cli/cli_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check.h"
#include "cli/outcome.h"
#include "model/result.h"
#include "status.h"
#include "sys/util.h"
#include "view/trace.h"

#define TRACE_N 64

static void show_progress(void *ud, enum stage_id stage, int i, int n, const char *detail)
{
    (void)ud, (void)i, (void)n;
    if (stage == STAGE_DONE)
        fputs("\r\033[K", stderr);
    else
        fprintf(stderr, "\r\033[K[%s] %s", stage_name(stage), detail);
    fflush(stderr);
}

/* The last message of a call that did not end cleanly, else NULL. */
static const char *stop_reason(const struct result *res)
{
    if (res->status == STATUS_PASS || !res->nmsgs)
        return res->status == STATUS_PASS ? NULL : status_name(res->status);
    return res->messages[res->nmsgs - 1];
}

int cli_trace(struct app *app, const struct cli_args *a)
{
    const struct lab *lab = a->lab;
    char err[512] = "", *dir = a->work_dir ? strdup(a->work_dir) : util_format("%s/trace/%s", app->tc.build_dir, lab->id);
    char *path = dir ? util_format("%s/steps.txt", dir) : NULL, *text = NULL, *source = NULL;
    const char *file = a->npos > 1 ? a->pos[1] : NULL;
    char *own = file ? NULL : util_format("%s/%s/kernel.cu", app->root, lab->dir);
    struct result res = {0};
    struct trace *t = NULL;
    int rc = EXIT_INTERNAL;

    if (!path || (!file && !own))
        goto out;
    /* one seed: the same kernel draws the same picture */
    struct check_opts o = {.file = file ? file : own, .work_dir = dir, .trace = path, .trace_n = TRACE_N,
                           .seed = 1, .have_seed = 1,
                           .progress = isatty(STDERR_FILENO) ? show_progress : NULL};
    if (check_run(&app->tc, &app->cat, lab, &o, &res, err, sizeof err)) {
        outcome_fail("trace", "%s", err);
        goto out;
    }
    if (!(text = util_read_file(path, NULL)) || !(t = trace_parse(text, err, sizeof err))) {
        outcome_fail("trace", "lab %s: nothing to draw: %s", lab->id,
                     res.summary && res.summary[0] ? res.summary : text ? err : "the kernel did not run");
        rc = EXIT_VERDICT;
        goto out;
    }
    source = util_read_file(o.file, NULL);
    const char *base = strrchr(o.file, '/');
    struct trace_look look = {.lab = lab->id, .n = TRACE_N, .source = source,
                              .source_name = base ? base + 1 : o.file, .stopped = stop_reason(&res),
                              .color = app->color && isatty(STDOUT_FILENO)};
    outcome_page();
    for (int k = 0; k < trace_steps(t); k++) {
        char *page = trace_page(t, k, &look);
        if (!page)
            goto out;
        printf("%s%s", k ? "\n" : "", page);
        free(page);
    }
    rc = EXIT_OK;
out:
    trace_free(t);
    result_free(&res);
    free(source);
    free(text);
    free(own);
    free(path);
    free(dir);
    return rc;
}
