/* app.h — the state every front end shares (the command line, the tutor,
 * the ladder): the workbook root, the catalog and the toolchain, loaded
 * once by main.  In the model so that cli/ and ui/, side by side, both
 * include it downward; the exit codes they return are status.h's. */
#ifndef APP_H
#define APP_H

#include "model/catalog.h"
#include "sys/toolchain.h"
#include "status.h"

struct app {
    char *root;
    struct catalog cat;
    struct toolchain tc;
    int color;              /* the user allows colour (no NO_COLOR, no --no-color) */
    int unlock_all;         /* every lab open, for self-study */
    int no_calibrate;       /* judge by the catalog's targets: no calibration for this GPU
                               (--no-calibrate, $CUDATUTOR_NO_CALIBRATE) */
    const char *progress_path;  /* --progress; NULL: $CUDATUTOR_PROGRESS or the root's */
};

#endif /* APP_H */
