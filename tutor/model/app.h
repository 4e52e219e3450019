/* app.h — the state every front end shares (the command line, the tutor,
 * the ladder): the workbook root, the catalog and the toolchain, loaded
 * once by main; and the program's exit codes, which every front end
 * returns.  In the model so that cli/ and ui/, side by side, both include
 * it downward. */
#ifndef APP_H
#define APP_H

#include "model/catalog.h"
#include "sys/toolchain.h"

/* Exit codes of the program; a check's own verdict maps through status.h. */
enum {
    EXIT_OK = 0,
    EXIT_VERDICT = 1,       /* the kernel failed (fail, compile_error, rejected, ...), or
                               the lab is not open to this yet (locked, solution not earned) */
    EXIT_USAGE = 2,
    EXIT_NO_GPU = 3,        /* compiled, but there is no CUDA device to run it */
    EXIT_INTERNAL = 4       /* the workbook itself failed: a missing lab file, no harness, ... */
};

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
