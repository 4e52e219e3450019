/* ui.c — the tutor's screens (a first version: the list of labs). */
#include "ui.h"

#include <curses.h>
#include <locale.h>
#include <stdlib.h>

#include "cli.h"

static void draw(const struct app *app, int sel)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    erase();
    if (rows < 24 || cols < 80) {
        mvprintw(0, 0, "needs 80x24; this terminal is %dx%d", cols, rows);
        refresh();
        return;
    }
    attron(A_BOLD);
    mvprintw(0, 0, "CUDA reduction workbook");
    attroff(A_BOLD);
    for (int i = 0; i < app->cat.nlabs; i++) {
        const struct lab *l = &app->cat.labs[i];
        if (i == sel)
            attron(A_REVERSE);
        mvprintw(2 + i, 2, "%s  %-50.50s %s", l->id, l->title, l->family->name);
        if (i == sel)
            attroff(A_REVERSE);
    }
    mvprintw(rows - 1, 0, "j/k move  q quit");
    refresh();
}

int ui_run(struct app *app)
{
    int sel = 0, ch;
    setlocale(LC_ALL, "");
    if (!initscr())
        return EXIT_INTERNAL;
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    for (;;) {
        draw(app, sel);
        ch = getch();
        if (ch == 'q' || ch == ERR)
            break;
        if ((ch == KEY_DOWN || ch == 'j') && sel + 1 < app->cat.nlabs)
            sel++;
        if ((ch == KEY_UP || ch == 'k') && sel > 0)
            sel--;
    }
    endwin();
    return EXIT_OK;
}
