/* ui.h — the ncurses front end.  The only header that the rest of the
 * program needs from the UI; curses itself stays inside ui*.c. */
#ifndef UI_H
#define UI_H

#include "app.h"

/* Runs the tutor until the user quits; the terminal is restored on every
 * path out.  Returns an exit code. */
int ui_run(struct app *app);

#endif /* UI_H */
