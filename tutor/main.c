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

int main(int argc, char **argv)
{
    struct app app = {0};
    const char *root = NULL;
    char err[512], *catalog = NULL;
    int i, rc = EXIT_INTERNAL;
    const char *no_color = getenv("NO_COLOR");

    app.color = !(no_color && *no_color);
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--root") && i + 1 < argc)
            root = argv[++i];
        else if (!strcmp(argv[i], "--no-color"))
            app.color = 0;
        else if (!strcmp(argv[i], "--unlock-all"))
            app.unlock_all = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cli_usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--version")) {
            printf("cudatutor %s\n", CUDATUTOR_VERSION);
            return EXIT_OK;
        } else {
            fprintf(stderr, "cudatutor: unknown option %s\n", argv[i]);
            cli_usage(stderr);
            return EXIT_USAGE;
        }
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
    } else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "cudatutor: the tutor needs a terminal; see cudatutor --help for commands\n");
        rc = EXIT_USAGE;
    } else {
        rc = ui_run(&app);
    }
out:
    free(catalog);
    app_free(&app);
    return rc;
}
