/* ui_trace.c — the picture of the student's kernel running (the t key):
 * the page of `cudatutor trace` (view/trace.h), one step at a time from
 * barrier to barrier, fitted to the screen between the title bar and the
 * status line.  Space and PgDn go to the next step, b and PgUp back, Home
 * and End to the first and last; j and k pick each row (an instruction of
 * interest) in turn across the steps, the picked row marked with its
 * warps' own words on the last line, and e opens the kernel at its line.
 * A call a hazard stopped opens on the step where it stopped. */
#include <stdlib.h>
#include <string.h>

#include "ui/ui_view.h"
#include "view/trace.h"

struct trace_view {
    struct view v;
    struct trace *t;
    char *source, *stopped;
    char lab[16], source_name[64];
    unsigned long long n;
    int step;                   /* 0 first */
    int cursor;                 /* the picked row, 1 first; 0 none */
    int nrows;                  /* the step's rows */
    struct trace_step *st;      /* the step's rows, for their count and lines */
    struct doc page;
};

static const char keys_line[] = "Space next step  b back  j/k each row  Home/End  e edit there  t again  q back";

/* Moves to step K (clamped), the cursor on row CURSOR of it (-1: its last). */
static void go(struct trace_view *tv, int k, int cursor)
{
    int steps = trace_steps(tv->t);
    tv->step = k < 0 ? 0 : k >= steps ? steps - 1 : k;
    tv->nrows = trace_step(tv->t, tv->step, tv->st) ? 0 : tv->st->nrows;
    tv->cursor = cursor < 0 ? tv->nrows : cursor > tv->nrows ? tv->nrows : cursor;
    tv->v.edit_line = tv->cursor ? (int)tv->st->rows[tv->cursor - 1].line : 0;
}

static void trace_draw(struct view *v, struct ui *ui)
{
    struct trace_view *tv = (struct trace_view *)v;
    char title[96], right[48];
    snprintf(title, sizeof title, " Lab %s: your kernel running at n=%llu", tv->lab, tv->n);
    snprintf(right, sizeof right, " step %d of %d ", tv->step + 1, trace_steps(tv->t));
    ui_bar(ui, 0, title, right, A_REVERSE | A_BOLD);
    struct trace_look look = {.lab = tv->lab, .n = tv->n, .source = tv->source, .source_name = tv->source_name,
                              .stopped = tv->stopped, .height = ui->rows - 2, .cursor = tv->cursor};
    doc_free(&tv->page);
    doc_init(&tv->page);
    trace_page_doc(tv->t, tv->step, &look, &tv->page);
    for (int r = 0; r < tv->page.nlines && r < ui->rows - 2; r++)
        ui_put_line(ui, 1 + r, 0, ui->cols, &tv->page.lines[r], NULL);
}

static int trace_key(struct view *v, struct ui *ui, enum ui_action act, int ch)
{
    struct trace_view *tv = (struct trace_view *)v;
    (void)ui;
    (void)ch;
    switch (act) {
    case ACT_PGDN: go(tv, tv->step + 1, 0); break;
    case ACT_PGUP: go(tv, tv->step - 1, 0); break;
    case ACT_TOP: go(tv, 0, 0); break;
    case ACT_BOTTOM: go(tv, trace_steps(tv->t) - 1, 0); break;
    case ACT_DOWN:
        if (tv->cursor < tv->nrows)
            go(tv, tv->step, tv->cursor + 1);
        else if (tv->step + 1 < trace_steps(tv->t))
            go(tv, tv->step + 1, 1);
        break;
    case ACT_UP:
        if (tv->cursor > 1)
            go(tv, tv->step, tv->cursor - 1);
        else if (tv->step > 0)
            go(tv, tv->step - 1, -1);
        else
            go(tv, 0, 0);
        break;
    case ACT_OPEN:
        return 0;               /* Enter opens nothing here */
    default:
        return UI_PASS;         /* back, quit and the rest: the keymap's */
    }
    return UI_REDRAW;
}

static void trace_view_free(struct view *v)
{
    struct trace_view *tv = (struct trace_view *)v;
    trace_free(tv->t);
    doc_free(&tv->page);
    free(tv->st);
    free(tv->source);
    free(tv->stopped);
    free(tv);
}

static const struct view_ops trace_ops = {trace_draw, trace_key, NULL, trace_view_free};

struct view *ui_trace_new(const char *lab, unsigned long long n, struct trace *t, char *source,
                          const char *source_name, const char *stopped)
{
    struct trace_view *tv = calloc(1, sizeof *tv);
    if (!tv || !(tv->st = malloc(sizeof *tv->st)) || (stopped && !(tv->stopped = strdup(stopped)))) {
        if (tv)
            free(tv->st);
        free(tv);
        trace_free(t);
        free(source);
        return NULL;
    }
    tv->v.ops = &trace_ops;
    tv->v.kind = VIEW_TRACE;
    tv->v.keys = keys_line;
    tv->t = t;
    tv->source = source;
    tv->n = n;
    snprintf(tv->lab, sizeof tv->lab, "%s", lab);
    snprintf(tv->source_name, sizeof tv->source_name, "%s", source_name);
    doc_init(&tv->page);
    go(tv, stopped ? trace_steps(t) - 1 : 0, 0);
    return &tv->v;
}
