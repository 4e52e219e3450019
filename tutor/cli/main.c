/* main.c — cudatutor: reads the command line (cli_parse), finds the
 * workbook, loads the catalog and the toolchain, then hands over to a
 * command or the UI.  `cudatutor grade` has a grammar of its own
 * (grade_opts.c): it goes to grade_main before anything else.  The only
 * place that exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/app.h"
#include "cli/cli.h"
#include "cli/outcome.h"
#include "check/check_via.h"
#include "grade/grade.h"
#include "grade/grade_opts.h"
#include "ui/ui.h"
#include "sys/util.h"

static void app_free(struct app *app)
{
    catalog_free(&app->cat);
    toolchain_free(&app->tc);
    free(app->root);
}

int main(int argc, char **argv)
{
    struct app app = {0};
    struct ui_opts uo = {0};
    struct cli_args a;
    char err[512], *catalog = NULL;
    int rc;
    const char *no_color = getenv("NO_COLOR"), *no_cal = getenv("CUDATUTOR_NO_CALIBRATE");

    uo.t0 = util_now();
    if (argc > 1 && cli_own_grammar(argv[1]))
        return grade_main(argv[0], argc - 1, argv + 1);
    /* The far end of a check through --gpu-via: no workbook, no options. */
    if (argc == 2 && !strcmp(argv[1], "gpu-relay"))
        return via_relay_main();
    if (argc == 2 && !strcmp(argv[1], "--print-options")) {
        cli_print_options(stdout);
        grade_opts_print(stdout);
        return EXIT_OK;
    }
    if ((rc = cli_parse(argc, argv, &a)) >= 0)
        goto out;
    rc = EXIT_INTERNAL;
    app.color = !(no_color && *no_color) && !a.no_color;
    app.unlock_all = a.unlock_all;
    app.no_calibrate = a.no_calibrate || (no_cal && *no_cal);
    app.progress_path = a.progress;
    uo.keys = a.keys;
    uo.dump = a.dump;
    uo.cols = a.cols;
    uo.rows = a.rows;
    uo.result_file = a.cmd && a.npos ? a.pos[0] : NULL;   /* view-result FILE */
    if (toolchain_find_root(a.root, &app.root, err, sizeof err)) {
        outcome_fail(NULL, "%s", err);
        rc = outcome_end(EXIT_USAGE);
        goto out;
    }
    if (!(catalog = util_format("%s/data/labs.json", app.root)) ||
        catalog_load(&app.cat, catalog, "data/labs.json", err, sizeof err) ||
        toolchain_init(&app.tc, app.root, err, sizeof err)) {
        outcome_fail(NULL, "%s", catalog ? err : "out of memory");
        rc = outcome_end(rc);
        goto out;
    }
    if (!cli_wants_ui(&a))
        rc = cli_run(&app, &a);
    else if (!uo.keys && !uo.dump && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        fprintf(stderr, "cudatutor: the tutor needs a terminal; see cudatutor --help for commands\n");
        rc = EXIT_USAGE;
    } else
        rc = ui_run(&app, &uo);
out:
    free(catalog);
    app_free(&app);
    cli_args_free(&a);
    return rc;
}
