/* ui_pager.c — one screen for every page of text: the lesson read full
 * screen, a check's results, hints, the solution, the chart and the help.
 * A page is built by a function of the width, so a resize re-flows it. */
#include <stdlib.h>
#include <string.h>

#include "ui/ui_view.h"

struct pager {
    struct view v;
    char title[160];
    pager_build_fn build;
    void *ctx;
    void (*ctx_free)(void *ctx);
    struct doc doc;
    int width;                  /* what doc was built for; -1: not built */
    int top;                    /* the first line shown */
    int rows;                   /* text rows, as last drawn */
};

static const char keys_line[] = "j/k scroll  PgDn page  / search  n next  c check  e edit  h hint  ? help  q back";

static void build(struct pager *p, struct ui *ui, int width)
{
    if (p->width == width)
        return;
    doc_free(&p->doc);
    p->build(&p->doc, ui, p->ctx, width);
    if (!ui->utf8)
        doc_ascii(&p->doc);
    p->width = width;
}

static void clamp(struct pager *p)
{
    if (p->top > p->doc.nlines - p->rows)
        p->top = p->doc.nlines - p->rows;
    if (p->top < 0)
        p->top = 0;
}

static void pager_draw(struct view *v, struct ui *ui)
{
    struct pager *p = (struct pager *)v;
    char right[64];
    int width = ui->cols - 2;

    build(p, ui, width);
    p->rows = ui->rows - 2;
    clamp(p);
    if (p->doc.nlines > p->rows)
        snprintf(right, sizeof right, " %d-%d of %d ", p->top + 1,
                 p->top + p->rows < p->doc.nlines ? p->top + p->rows : p->doc.nlines, p->doc.nlines);
    else
        snprintf(right, sizeof right, " all ");
    ui_bar(ui, 0, p->title, right, A_REVERSE | A_BOLD);
    for (int r = 0; r < p->rows && p->top + r < p->doc.nlines; r++)
        ui_put_line(ui, 1 + r, 1, width, &p->doc.lines[p->top + r], ui->needle[0] ? ui->needle : NULL);
}

static void pager_search(struct view *v, struct ui *ui, const char *needle, int dir)
{
    struct pager *p = (struct pager *)v;
    build(p, ui, ui->cols - 2);
    ui_find(ui, &p->doc, needle, dir, &p->top, "not found");
}

static int pager_key(struct view *v, struct ui *ui, enum ui_action act, int ch)
{
    struct pager *p = (struct pager *)v;
    int page = p->rows > 2 ? p->rows - 1 : 1;
    (void)ch;
    switch (act) {
    case ACT_DOWN: p->top++; break;
    case ACT_UP: p->top--; break;
    case ACT_PGDN: p->top += page; break;
    case ACT_PGUP: p->top -= page; break;
    case ACT_TOP: p->top = 0; break;
    case ACT_BOTTOM: p->top = p->doc.nlines; break;
    case ACT_NEXT:
    case ACT_PREV:
        if (ui->needle[0])
            pager_search(v, ui, ui->needle, act == ACT_NEXT ? 1 : -1);
        break;
    case ACT_OPEN:
        return 0;               /* Enter opens nothing here */
    default:
        return UI_PASS;         /* back, quit and the rest: the keymap's */
    }
    clamp(p);
    return UI_REDRAW;
}

static void pager_free(struct view *v)
{
    struct pager *p = (struct pager *)v;
    doc_free(&p->doc);
    if (p->ctx_free)
        p->ctx_free(p->ctx);
    free(p);
}

static const struct view_ops pager_ops = {pager_draw, pager_key, pager_search, pager_free};

struct view *ui_pager_new(enum view_kind kind, const char *title, pager_build_fn fn, void *ctx,
                          void (*ctx_free)(void *ctx))
{
    struct pager *p = calloc(1, sizeof *p);
    if (!p) {
        if (ctx_free)
            ctx_free(ctx);
        return NULL;
    }
    p->v.ops = &pager_ops;
    p->v.kind = kind;
    p->v.keys = keys_line;
    snprintf(p->title, sizeof p->title, " %s", title);
    p->build = fn;
    p->ctx = ctx;
    p->ctx_free = ctx_free;
    p->width = -1;
    return &p->v;
}

void ui_pager_scroll_to(struct view *v, int line)
{
    ((struct pager *)v)->top = line;
}
