/* cli_trace.c — see cli_trace.h.  The build and the traced call are a
 * check's (check_run with its trace option, check_trace_opts), in
 * build/trace/NN, so the student's own folder and progress are never
 * touched. */
#include "cli/cli_trace.h"

#include <errno.h>
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

static void show_progress(void *ud, enum stage_id stage, int i, int n, const char *detail)
{
    (void)ud, (void)i, (void)n;
    if (stage == STAGE_DONE)
        fputs("\r\033[K", stderr);
    else
        fprintf(stderr, "\r\033[K[%s] %s", stage_name(stage), detail);
    fflush(stderr);
}

int cli_trace(struct app *app, const struct cli_args *a)
{
    const struct lab *lab = a->lab;
    char err[512] = "", *dir = a->work_dir ? strdup(a->work_dir) : check_trace_dir(&app->tc, lab);
    char *path = dir ? util_format("%s/%s", dir, CHECK_TRACE_FILE) : NULL, *text = NULL, *source = NULL, *svg = NULL;
    const char *file = a->npos > 1 ? a->pos[1] : NULL;
    char *own = file ? NULL : util_format("%s/%s/kernel.cu", app->root, lab->dir);
    struct result res = {0};
    struct trace *t = NULL;
    int rc = EXIT_INTERNAL;

    if (!path || (!file && !own))
        goto out;
    struct check_opts o;
    check_trace_opts(&o, file ? file : own, dir, path);
    /* a kernel that does not build must not draw the last one's steps */
    unlink(path);
    o.progress = isatty(STDERR_FILENO) ? show_progress : NULL;
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
    struct trace_look look = {.lab = lab->id, .n = o.trace_n, .source = source,
                              .source_name = base ? base + 1 : o.file, .stopped = check_trace_stopped(&res),
                              .color = app->color && isatty(STDOUT_FILENO)};
    if (a->svg) {
        if (!(svg = trace_svg(t, &look)))
            goto out;
        if (util_write_file(a->svg, svg, strlen(svg))) {
            outcome_fail("trace", "cannot write %s: %s", a->svg, strerror(errno));
            goto out;
        }
        printf("trace %s: %d step%s drawn in %s\n", lab->id, trace_steps(t), trace_steps(t) == 1 ? "" : "s",
               a->svg);
        rc = EXIT_OK;
        goto out;
    }
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
    free(svg);
    free(source);
    free(text);
    free(own);
    free(path);
    free(dir);
    return rc;
}
