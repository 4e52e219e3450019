/* ui_main.c — the main screen: the labs with their state and best GB/s
 * above (the bonus labs under a heading of their own), the selected lab's
 * lesson below, a status line with the keys.
 * j/k move between labs; the page keys, / and n/N work on the lesson.
 * The lesson is what the student reads, so it keeps UI_LESSON_ROWS rows;
 * a list longer than the rest scrolls with the selection, with arrows at
 * its edges where labs are out of sight.  L opens the lesson full screen
 * at the line the main screen shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/lesson.h"
#include "ui/ui_view.h"

/* The lesson's rows at least, on any screen the tutor draws (80x24 up). */
#define UI_LESSON_ROWS 12
/* The list's rows at least: the selection and a lab either side. */
#define LIST_MIN_ROWS 3

struct main_view {
    struct view v;
    int list_top;               /* the list's first shown row */
    int scroll;                 /* the lesson's first shown line */
    int pane;                   /* lesson rows, as last drawn */
    struct doc lesson;          /* rendered for lesson_lab at lesson_width */
    int lesson_lab, lesson_width;
};

static const char keys_line[] =
    "j/k lab  Enter lesson  c check  e edit  h hint  g chart  w watch  ? help  q quit";

/* The lesson of the selected lab, flowed to width (cached). */
static struct doc *lesson(struct main_view *m, struct ui *ui, int width)
{
    if (m->lesson_lab == ui->sel && m->lesson_width == width)
        return &m->lesson;
    doc_free(&m->lesson);
    char *md = ui_lesson_text(ui, ui->sel);
    lesson_render(&m->lesson, md ? md : "(the lesson could not be read)", width);
    if (!ui->utf8)
        doc_ascii(&m->lesson);
    free(md);
    m->lesson_lab = ui->sel;
    m->lesson_width = width;
    return &m->lesson;
}

static const char *state_glyph(const struct ui *ui, enum lab_state st)
{
    switch (st) {
    case LAB_LOCKED: return ui_glyph(ui, "·", "-");
    case LAB_OPEN: return ui_glyph(ui, "○", "o");
    case LAB_PASSED: return ui_glyph(ui, "✓", "+");
    default: return ui_glyph(ui, "★", "*");
    }
}

static void draw_lab(struct ui *ui, int y, int i)
{
    const struct lab *lab = &ui->app->cat.labs[i];
    const struct progress_lab *pl = progress_find(&ui->prog, lab->id);
    enum lab_state st = ui_state(ui, i);
    int sel = i == ui->sel, title_w = ui->cols - 7 - 26;
    char best[32] = "";
    enum doc_style sst = st == LAB_ON_TARGET ? DOC_GOOD : st == LAB_PASSED ? DOC_GOOD
                       : st == LAB_LOCKED ? DOC_DIM : DOC_TEXT;

    if (pl && pl->best.have && pl->best.gbps >= 0)
        snprintf(best, sizeof best, "%.0f GB/s", pl->best.gbps);
    else if (pl && pl->best.have)
        snprintf(best, sizeof best, "%.2fx ref", pl->best.ratio);
    if (sel) {
        attron(A_REVERSE);
        mvhline(y, 0, ' ', ui->cols);
        ui_put(ui, y, 0, 2, DOC_STRONG, ui_glyph(ui, "▸", ">"));
    }
    ui_put(ui, y, 2, 2, st == LAB_LOCKED ? DOC_DIM : DOC_STRONG, lab->id);
    ui_put(ui, y, 5, 1, sst, state_glyph(ui, st));
    ui_put(ui, y, 7, title_w, st == LAB_LOCKED ? DOC_DIM : DOC_TEXT, lab->title);
    ui_put(ui, y, ui->cols - 25, 10, sst, progress_state_label(pl, st));
    ui_put(ui, y, ui->cols - 13 + (12 - (int)strlen(best)), 12, DOC_STRONG, best);
    if (sel)
        attroff(A_REVERSE);
}

/* The index of the first bonus lab (the catalog keeps them last), or -1. */
static int first_bonus(const struct catalog *cat)
{
    for (int i = 0; i < cat->nlabs; i++)
        if (cat->labs[i].bonus)
            return i;
    return -1;
}

/* The row that separates the core labs from the bonus ones, and says what
 * opens them. */
static void draw_bonus_header(struct ui *ui, int y, const struct lab *first)
{
    const struct lab *opener = catalog_opener(&ui->app->cat, first);
    char text[96];
    snprintf(text, sizeof text, "Bonus%s%s%s", opener ? ": open once lab " : "", opener ? opener->id : "",
             opener ? " has passed" : "");
    ui_put(ui, y, 2, ui->cols - 2, DOC_H2, text);
}

/* The list's row of lab i: the labs in order, the Bonus heading before
 * the first bonus lab. */
static int list_row(int i, int bonus)
{
    return i + (bonus >= 0 && i >= bonus);
}

/* How many list rows are shown (the rest of the screen after the lesson's
 * rows), and from which one: the selection and one row either side stay in
 * sight. */
static int list_place(struct main_view *m, const struct ui *ui, int nrows, int bonus)
{
    int body = ui->rows - 3;    /* the title, the lesson's bar, the status line */
    int h = body - UI_LESSON_ROWS > LIST_MIN_ROWS ? body - UI_LESSON_ROWS : LIST_MIN_ROWS;
    int sel = list_row(ui->sel, bonus);
    if (h > nrows)
        h = nrows;
    if (sel - 1 < m->list_top)
        m->list_top = sel - 1;
    if (sel + 2 > m->list_top + h)
        m->list_top = sel + 2 - h;
    if (m->list_top > nrows - h)
        m->list_top = nrows - h;
    if (m->list_top < 0)
        m->list_top = 0;
    return h;
}

static void main_draw(struct view *v, struct ui *ui)
{
    struct main_view *m = (struct main_view *)v;
    const struct catalog *cat = &ui->app->cat;
    char right[96], left[160];
    int bonus = first_bonus(cat), nrows = cat->nlabs + (bonus >= 0), passed = 0, core = 0, width = ui->cols - 2;
    int h = list_place(m, ui, nrows, bonus), y0 = 1 + h;

    /* The count in the title bar is of the core labs: the bonus ones are
     * extra, and a student who has done the ten has done the workbook. */
    for (int i = 0; i < cat->nlabs; i++)
        if (!cat->labs[i].bonus) {
            core++;
            passed += ui_state(ui, i) >= LAB_PASSED;
        }
    snprintf(right, sizeof right, "%s%s%d of %d passed ", ui->prog_ok ? "" : "progress not recorded  ",
             ui->watch ? "watch on  " : "", passed, core);
    ui_bar(ui, 0, " CUDA reduction workbook", right, A_REVERSE | A_BOLD);
    for (int i = 0; i < cat->nlabs; i++) {
        int r = list_row(i, bonus) - m->list_top;
        if (i == bonus && r - 1 >= 0 && r - 1 < h)
            draw_bonus_header(ui, r, &cat->labs[i]);
        if (r >= 0 && r < h)
            draw_lab(ui, 1 + r, i);
    }
    if (m->list_top > 0)
        ui_put(ui, 1, 0, 1, DOC_DIM, ui_glyph(ui, "↑", "^"));
    if (m->list_top + h < nrows)
        ui_put(ui, h, 0, 1, DOC_DIM, ui_glyph(ui, "↓", "v"));

    struct doc *d = lesson(m, ui, width);
    m->pane = ui->rows - 1 - y0 - 1;
    if (m->scroll > d->nlines - m->pane)
        m->scroll = d->nlines - m->pane;
    if (m->scroll < 0)
        m->scroll = 0;
    snprintf(left, sizeof left, " Lesson %s: %s ", ui_lab(ui)->id, ui_lab(ui)->title);
    /* Which lines of the lesson are in the pane, in the reader's words. */
    int last = m->scroll + m->pane < d->nlines ? m->scroll + m->pane : d->nlines;
    snprintf(right, sizeof right, " lines %d-%d of %d ", d->nlines ? m->scroll + 1 : 0, last, d->nlines);
    if (doc_width(left, strlen(left)) + doc_width(right, strlen(right)) > ui->cols)
        snprintf(right, sizeof right, " %d-%d of %d ", d->nlines ? m->scroll + 1 : 0, last, d->nlines);
    ui_bar(ui, y0, left, right, ui_attr(ui, DOC_H2) | A_REVERSE);
    for (int r = 0; r < m->pane && m->scroll + r < d->nlines; r++)
        ui_put_line(ui, y0 + 1 + r, 1, width, &d->lines[m->scroll + r], ui->needle[0] ? ui->needle : NULL);
}

static void main_search(struct view *v, struct ui *ui, const char *needle, int dir)
{
    struct main_view *m = (struct main_view *)v;
    ui_find(ui, lesson(m, ui, ui->cols - 2), needle, dir, &m->scroll, "not in this lesson");
}

static int main_key(struct view *v, struct ui *ui, enum ui_action act, int ch)
{
    struct main_view *m = (struct main_view *)v;
    int page = m->pane > 2 ? m->pane - 1 : 1;
    switch (act) {
    case ACT_DOWN:
    case ACT_UP:
        ui->sel += act == ACT_DOWN ? 1 : -1;
        if (ui->sel < 0)
            ui->sel = 0;
        if (ui->sel >= ui->app->cat.nlabs)
            ui->sel = ui->app->cat.nlabs - 1;
        m->scroll = 0;
        ui_watch_follow(ui);
        return UI_REDRAW;
    case ACT_PGDN: m->scroll += page; return UI_REDRAW;
    case ACT_PGUP: m->scroll -= page; return UI_REDRAW;
    case ACT_TOP: m->scroll = 0; return UI_REDRAW;
    case ACT_BOTTOM: m->scroll = m->lesson.nlines; return UI_REDRAW;
    case ACT_NEXT:
    case ACT_PREV:
        if (ui->needle[0])
            main_search(v, ui, ui->needle, act == ACT_NEXT ? 1 : -1);
        return UI_REDRAW;
    case ACT_BACK:
        return ch == 27 ? 0 : UI_QUIT;      /* Esc has nowhere to go back to */
    default:
        return UI_PASS;
    }
}

static void main_free(struct view *v)
{
    struct main_view *m = (struct main_view *)v;
    doc_free(&m->lesson);
    free(m);
}

static const struct view_ops main_ops = {main_draw, main_key, main_search, main_free};

struct view *ui_main_new(void)
{
    struct main_view *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->v.ops = &main_ops;
    m->v.kind = VIEW_MAIN;
    m->v.keys = keys_line;
    m->lesson_lab = -1;
    return &m->v;
}

/* ---- the lesson full screen (L) --------------------------------------- */

static void lesson_build(struct doc *d, struct ui *ui, void *ctx, int width)
{
    char *md = ui_lesson_text(ui, *(int *)ctx);
    lesson_render(d, md ? md : "(the lesson could not be read)", width);
    free(md);
}

void ui_act_lesson(struct ui *ui)
{
    char title[160];
    int scroll = ui->top->kind == VIEW_MAIN ? ((const struct main_view *)ui->top)->scroll : 0;
    int *lab = malloc(sizeof *lab);
    if (lab)
        *lab = ui->sel;
    snprintf(title, sizeof title, "Lesson %s: %s", ui_lab(ui)->id, ui_lab(ui)->title);
    struct view *v = ui_pager_new(VIEW_LESSON, title, lesson_build, lab, free);
    if (v)
        ui_pager_scroll_to(v, scroll);
    ui_replace(ui, v);
}
