/* main.c — cudatutor: parses the global options, finds the workbook, loads
 * the catalog and the toolchain, then hands over to a subcommand or the UI.
 * The only place that exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "ui.h"
#include "util.h"

#ifndef CUDATUTOR_VERSION
#define CUDATUTOR_VERSION "0.1"
#endif

static void app_free(struct app *app)
{
    catalog_free(&app->cat);
    toolchain_free(&app->tc);
    free(app->root);
}

/* The options of the UI that are not everyday ones. */
static void usage_ui(FILE *f)
{
    fputs("The tutor itself:\n"
          "  cudatutor                      open the tutor (needs a terminal of 80x24 or more)\n"
          "  cudatutor view-result FILE     open it on the results screen of a saved verdict\n"
          "                                 (cudatutor check NN --out FILE saves one)\n"
          "  --keys SCRIPT --dump [--size COLSxROWS]\n"
          "                                 run it off-screen on a key script and print the last\n"
          "                                 screen (for tests; see docs/student-guide.md)\n",
          f);
}

int main(int argc, char **argv)
{
    struct app app = {0};
    struct ui_opts uo = {0};
    const char *root = NULL;
    char err[512], *catalog = NULL;
    int i, rc = EXIT_INTERNAL;
    const char *no_color = getenv("NO_COLOR");

    uo.t0 = util_now();
    app.color = !(no_color && *no_color);
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--root") && v)
            root = v, i++;
        else if (!strcmp(argv[i], "--progress") && v)
            app.progress_path = v, i++;
        else if (!strcmp(argv[i], "--no-color"))
            app.color = 0;
        else if (!strcmp(argv[i], "--unlock-all"))
            app.unlock_all = 1;
        else if (!strcmp(argv[i], "--keys") && v)
            uo.keys = v, i++;
        else if (!strcmp(argv[i], "--dump"))
            uo.dump = 1;
        else if (!strcmp(argv[i], "--size") && v && sscanf(v, "%dx%d", &uo.cols, &uo.rows) == 2 &&
                 uo.cols > 0 && uo.rows > 0 && uo.cols < 1000 && uo.rows < 1000)
            i++;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cli_usage(stdout);
            usage_ui(stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--version")) {
            printf("cudatutor %s\n", CUDATUTOR_VERSION);
            return EXIT_OK;
        } else {
            fprintf(stderr, "cudatutor: unknown or incomplete option %s\n", argv[i]);
            cli_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (i < argc && !strcmp(argv[i], "view-result")) {
        if (i + 1 >= argc || argc > i + 2 || !strcmp(argv[i + 1], "--help")) {
            usage_ui(i + 1 < argc && !strcmp(argv[i + 1], "--help") ? stdout : stderr);
            return i + 1 < argc && !strcmp(argv[i + 1], "--help") ? EXIT_OK : EXIT_USAGE;
        }
        uo.result_file = argv[i + 1];
        i = argc;
    }
    if (toolchain_find_root(root, &app.root, err, sizeof err)) {
        fprintf(stderr, "cudatutor: %s\n", err);
        return EXIT_USAGE;
    }
    if (!(catalog = util_format("%s/data/labs.json", app.root)) ||
        catalog_load(&app.cat, catalog, "data/labs.json", err, sizeof err) ||
        toolchain_init(&app.tc, app.root, err, sizeof err)) {
        fprintf(stderr, "cudatutor: %s\n", catalog ? err : "out of memory");
        goto out;
    }
    if (i < argc) {
        rc = cli_run(&app, argc - i, argv + i);
        if (rc < 0) {
            fprintf(stderr, "cudatutor: unknown command \"%s\"\n", argv[i]);
            cli_usage(stderr);
            rc = EXIT_USAGE;
        }
    } else if (!uo.keys && !uo.dump && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        fprintf(stderr, "cudatutor: the tutor needs a terminal; see cudatutor --help for commands\n");
        rc = EXIT_USAGE;
    } else {
        rc = ui_run(&app, &uo);
    }
out:
    free(catalog);
    app_free(&app);
    return rc;
}
