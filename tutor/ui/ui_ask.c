/* ui_ask.c — a y/n question in a box over the screen below it.  Only y
 * says yes; n, q and Esc say no; every other key is ignored, so a stray
 * key can never confirm.  A question may also act on no (and then says so
 * beside n), for a choice between two harmless answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui_view.h"

struct ask {
    struct view v;
    char question[512];
    void (*yes)(struct ui *ui, void *ctx);
    void (*no)(struct ui *ui, void *ctx);   /* NULL: no changes nothing */
    char answers[96];
    void *ctx;
};

static void ask_draw(struct view *v, struct ui *ui)
{
    struct ask *a = (struct ask *)v;
    struct doc d;
    struct doc_para p = {0};
    int w = ui->cols - 8 < 72 ? ui->cols - 8 : 72, x = (ui->cols - w) / 2;

    if (v->below)
        v->below->ops->draw(v->below, ui);
    doc_init(&d);
    doc_para_add(&p, DOC_STRONG, a->question, strlen(a->question));
    doc_flow(&d, &p, w - 4, "", DOC_TEXT);
    doc_para_free(&p);
    if (!ui->utf8)
        doc_ascii(&d);
    int h = d.nlines + 4, y = (ui->rows - h) / 2;
    attr_t frame = A_REVERSE;
    attron(frame);
    for (int r = 0; r < h; r++)
        mvhline(y + r, x, ' ', w);
    attroff(frame);
    for (int r = 0; r < d.nlines; r++) {
        attron(frame);
        ui_put_line(ui, y + 1 + r, x + 2, w - 4, &d.lines[r], NULL);
        attroff(frame);
    }
    attron(frame);
    ui_put(ui, y + h - 2, x + 2, w - 4, DOC_STRONG, a->answers);
    attroff(frame);
    doc_free(&d);
}

static int ask_key(struct view *v, struct ui *ui, enum ui_action act, int ch)
{
    struct ask *a = (struct ask *)v;
    (void)act;
    int yes = ch == 'y' || ch == 'Y', no = ch == 'n' || ch == 'N' || ch == 'q' || ch == 27;
    if (!yes && !no)
        return 0;
    if (no && !a->no) {
        ui_message(ui, DOC_DIM, "nothing changed");
        return UI_CLOSE;
    }
    /* Close first: the answer may put up a screen of its own. */
    void (*answer)(struct ui *, void *) = yes ? a->yes : a->no;
    void *ctx = a->ctx;
    a->ctx = NULL;
    ui_pop(ui);
    answer(ui, ctx);
    free(ctx);
    return UI_REDRAW;
}

static void ask_free(struct view *v)
{
    struct ask *a = (struct ask *)v;
    free(a->ctx);
    free(a);
}

static const struct view_ops ask_ops = {ask_draw, ask_key, NULL, ask_free};

struct view *ui_ask_new(const char *question, const char *no_does, void (*yes)(struct ui *ui, void *ctx),
                        void (*no)(struct ui *ui, void *ctx), void *ctx)
{
    struct ask *a = calloc(1, sizeof *a);
    if (!a) {
        free(ctx);
        return NULL;
    }
    a->v.ops = &ask_ops;
    a->v.kind = VIEW_ASK;
    a->v.keys = "y yes   n no";
    snprintf(a->question, sizeof a->question, "%s", question);
    a->yes = yes;
    a->no = no;
    snprintf(a->answers, sizeof a->answers, "y yes      n %s", no && no_does ? no_does : "no");
    a->ctx = ctx;
    return &a->v;
}
