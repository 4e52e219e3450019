/* ui.h — the ncurses front end.  The only header that the rest of the
 * program needs from the UI; curses itself stays inside ui*.c. */
#ifndef UI_H
#define UI_H

#include "model/app.h"

struct ui_opts {
    /* A key script ("jj<Enter>/tree<Enter>c"): the UI runs off-screen on it,
     * waiting for each check to finish before the next key, then stops.
     * Names in <>: Up Down Left Right PgUp PgDn Home End Enter Esc Tab BS
     * F1 lt (a literal <), and Resize WxH. */
    const char *keys;
    int dump;                   /* print the last screen as text on stdout */
    int rows, cols;             /* the off-screen size; 0: 30x100 */
    const char *result_file;    /* open on the results screen of this saved verdict */
    double t0;                  /* util_now() when main started: first-frame time */
};

/* Runs the tutor until the user quits; the terminal is restored on every
 * path out, also after SIGINT, SIGTERM or SIGHUP (returns 128 + the signal).
 * Returns an exit code. */
int ui_run(struct app *app, const struct ui_opts *opts);

#endif /* UI_H */
