/* ui_stack.c — the tutor's state that every screen reads and changes: the
 * view stack, the status line's message (a search's step that finds
 * nothing says so there), the selected lab and each lab's state.  A leaf of tutor/ui/: the screens and the loop call it, it calls
 * none of them. */
#include <stdarg.h>
#include <stdio.h>

#include "ui/ui_view.h"

void ui_push(struct ui *ui, struct view *v)
{
    if (!v)
        return;
    v->below = ui->top;
    ui->top = v;
    ui->dirty = 1;
}

void ui_pop(struct ui *ui)
{
    struct view *v = ui->top;
    if (!v || !v->below)
        return;                 /* the main screen stays */
    ui->top = v->below;
    v->ops->free(v);
    ui->dirty = 1;
}

void ui_replace(struct ui *ui, struct view *v)
{
    if (v && ui->top && ui->top->kind == v->kind && ui->top->below)
        ui_pop(ui);
    ui_push(ui, v);
}

void ui_message(struct ui *ui, enum doc_style st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ui->msg, sizeof ui->msg, fmt, ap);
    va_end(ap);
    ui->msg_style = st;
    ui->dirty = 1;
}

void ui_find(struct ui *ui, const struct doc *d, const char *needle, int dir, int *line, const char *none)
{
    int at = doc_find(d, needle, *line, dir);
    if (at < 0)
        ui_message(ui, DOC_WARN, "%s: %s", none, needle);
    else
        *line = at;
}

const struct lab *ui_lab(const struct ui *ui)
{
    return &ui->app->cat.labs[ui->sel];
}

enum lab_state ui_state(const struct ui *ui, int i)
{
    return progress_state(&ui->prog, &ui->app->cat, i, ui->app->unlock_all);
}
