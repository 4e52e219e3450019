/* app.h — the state every command and the UI share: the workbook root, the
 * catalog and the toolchain, loaded once by main. */
#ifndef APP_H
#define APP_H

#include "catalog.h"
#include "toolchain.h"

struct app {
    char *root;
    struct catalog cat;
    struct toolchain tc;
    int color;              /* the user allows colour (no NO_COLOR, no --no-color) */
    int unlock_all;         /* every lab open, for self-study */
    const char *progress_path;  /* --progress; NULL: $CUDATUTOR_PROGRESS or the root's */
};

#endif /* APP_H */
