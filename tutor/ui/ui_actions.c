/* ui_actions.c — what the global keys do: open the editor, show the next
 * hint, reset the stub, show the solution, the chart and the help,
 * toggle watch mode, and record a verdict (the lesson's page is
 * ui_main.c's: it opens where the main screen was).  Each acts on the
 * selected lab and tells the student what happened on the status line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/calibrate.h"
#include "check/check_via.h"
#include "view/lesson.h"
#include "view/sheet.h"
#include "view/standing.h"
#include "view/verdict.h"
#include "ui/ui_view.h"
#include "sys/util.h"
#include "sys/watch.h"
#include "model/workspace.h"

char *ui_lesson_text(const struct ui *ui, int lab)
{
    const struct lab *l = &ui->app->cat.labs[lab];
    char err[768];
    if (workspace_present(ui->app->root, l, "README.md", err, sizeof err))
        return util_format("# Lab %s: the lesson is missing\n\n%s\n", l->id, err);
    char *path = util_format("%s/%s/README.md", ui->app->root, l->dir);
    char *text = path ? util_read_file(path, NULL) : NULL;
    if (!text && path)
        text = util_format("# Lab %s: the lesson cannot be read\n\n%s/README.md: %s\n", l->id, l->dir,
                           strerror(errno));
    free(path);
    return text;
}

static int locked(struct ui *ui, const char *what)
{
    if (ui_state(ui, ui->sel) != LAB_LOCKED)
        return 0;
    const struct lab *opener = catalog_opener(&ui->app->cat, ui_lab(ui));
    ui_message(ui, DOC_WARN, "lab %s is locked: pass lab %s first to %s it (or start with --unlock-all)",
               ui_lab(ui)->id, opener ? opener->id : ui_lab(ui)->id, what);
    return 1;
}

/* A copy of an int for a page or a question to keep. */
static int *box_int(int v)
{
    int *p = malloc(sizeof *p);
    if (p)
        *p = v;
    return p;
}

/* ---- recording ---------------------------------------------------------- */

void ui_record(struct ui *ui, const struct result *r)
{
    struct progress_check c = {.r = r, .cat = &ui->app->cat};
    struct progress after;
    char note[768] = "", err[768] = "", said[512];

    if (!catalog_find(&ui->app->cat, r->lab))
        return;
    if (!ui->prog_ok) {
        ui_message(ui, DOC_WARN, "not recorded: progress.json was refused at start");
        return;
    }
    progress_now(c.when, sizeof c.when);
    if (progress_update(ui->prog_path, progress_check_fn, &c, &after, note, sizeof note, err, sizeof err) != 0) {
        ui_message(ui, DOC_BAD, "progress not recorded: %s", err);
        return;
    }
    progress_free(&ui->prog);
    ui->prog = after;
    standing_change(&ui->app->cat, &c.change, said, sizeof said);
    if (note[0])
        ui_message(ui, DOC_WARN, "%s", note);
    else if (said[0])
        ui_message(ui, DOC_GOOD, "%s", said);
}

/* ---- edit --------------------------------------------------------------- */

void ui_act_edit(struct ui *ui)
{
    char err[512];
    if (locked(ui, "edit"))
        return;
    char *path = workspace_kernel(ui->app->root, ui_lab(ui));
    if (!path)
        return;
    def_prog_mode();
    endwin();
    int rc = workspace_edit(path, ui->top->edit_line, err, sizeof err);
    reset_prog_mode();
    clearok(curscr, TRUE);
    if (rc)
        ui_message(ui, DOC_BAD, "%s", err);
    else if (!ui->watch)
        ui_message(ui, DOC_DIM, "back from the editor: c checks %s/kernel.cu", ui_lab(ui)->dir);
    free(path);
}

/* ---- hints -------------------------------------------------------------- */

struct hint_page {
    int lab, shown, fresh;
};

static void hints_build(struct doc *d, struct ui *ui, void *ctx, int width)
{
    struct hint_page *hp = ctx;
    sheet_hints(d, &ui->app->cat.labs[hp->lab], hp->shown, hp->fresh, width);
}

/* The page of hints 1..shown of lab; fresh: the last was just spent. */
static void hints_show(struct ui *ui, int lab, int shown, int fresh)
{
    struct hint_page *hp = malloc(sizeof *hp);
    char title[128];
    if (!hp)
        return;
    hp->lab = lab;
    hp->shown = shown;
    hp->fresh = fresh;
    snprintf(title, sizeof title, "Lab %s: hint %d of %d", ui->app->cat.labs[lab].id, shown, CATALOG_HINTS);
    ui_replace(ui, ui_pager_new(VIEW_HINTS, title, hints_build, hp, free));
}

static int hints_used(const struct ui *ui, int lab)
{
    const struct progress_lab *l = progress_find(&ui->prog, ui->app->cat.labs[lab].id);
    return l ? l->hints_used : 0;
}

/* y: the next hint, spent and recorded, with the ones before it. */
static void hint_yes(struct ui *ui, void *ctx)
{
    int lab = *(int *)ctx;
    struct progress_hint h = {ui->app->cat.labs[lab].id, 0, 0};
    struct progress after;
    char note[768] = "", err[768] = "";
    if (ui->prog_ok &&
        progress_update(ui->prog_path, progress_hint_fn, &h, &after, note, sizeof note, err, sizeof err) == 0) {
        progress_free(&ui->prog);
        ui->prog = after;
        if (note[0])
            ui_message(ui, DOC_WARN, "%s", note);
    } else {
        progress_hint_fn(&ui->prog, &h);
        ui_message(ui, DOC_WARN, "hint not recorded: %s", ui->prog_ok ? err : "progress.json was refused at start");
    }
    hints_show(ui, lab, h.shown, 1);
}

/* n, once some were spent: those again, nothing more spent. */
static void hint_no(struct ui *ui, void *ctx)
{
    int lab = *(int *)ctx;
    hints_show(ui, lab, hints_used(ui, lab), 0);
}

/* A hint is spent only after a yes: the count is the student's record, so
 * a stray h must not add to it. */
void ui_act_hint(struct ui *ui)
{
    char q[320];
    if (locked(ui, "get hints for"))
        return;
    int used = hints_used(ui, ui->sel);
    if (used >= CATALOG_HINTS) {
        hints_show(ui, ui->sel, CATALOG_HINTS, 0);
        return;
    }
    snprintf(q, sizeof q, "Show hint %d of %d for lab %s?  How many hints you use is recorded in "
                          "progress.json; hints never affect your grade.", used + 1, CATALOG_HINTS, ui_lab(ui)->id);
    ui_push(ui, ui_ask_new(q, used ? "show the ones I have" : NULL, hint_yes, used ? hint_no : NULL,
                           box_int(ui->sel)));
}

/* ---- reset -------------------------------------------------------------- */

static void reset_yes(struct ui *ui, void *ctx)
{
    const struct lab *lab = &ui->app->cat.labs[*(int *)ctx];
    char backup[1024], err[768];
    char *kernel = workspace_kernel(ui->app->root, lab);
    int missing = kernel && !util_is_file(kernel);
    free(kernel);
    if (workspace_reset(ui->app->root, lab, backup, sizeof backup, err, sizeof err) != 0)
        ui_message(ui, DOC_BAD, "not reset: %s", err);
    else if (missing)
        ui_message(ui, DOC_GOOD, "lab %s: kernel.cu was missing; it is the stub now", lab->id);
    else if (backup[0])
        ui_message(ui, DOC_GOOD, "lab %s is the stub again; your file is kept as %s", lab->id,
                   strrchr(backup, '/') ? strrchr(backup, '/') + 1 : backup);
    else
        ui_message(ui, DOC_GOOD, "lab %s: kernel.cu already was the stub", lab->id);
}

void ui_act_reset(struct ui *ui)
{
    char q[512];
    snprintf(q, sizeof q, "Reset %s/kernel.cu to the stub?  Your file is kept as kernel.cu.bak-<time> beside it.",
             ui_lab(ui)->dir);
    ui_push(ui, ui_ask_new(q, NULL, reset_yes, NULL, box_int(ui->sel)));
}

/* ---- pages -------------------------------------------------------------- */

static void text_build(struct doc *d, struct ui *ui, void *ctx, int width)
{
    (void)ui;
    (void)width;
    doc_add(d, DOC_BLOCK, ctx);
}

void ui_act_solution(struct ui *ui)
{
    char err[768], title[160];
    if (ui_state(ui, ui->sel) < LAB_PASSED && !ui->app->unlock_all) {
        ui_message(ui, DOC_WARN, "the solution of lab %s opens once the lab has passed", ui_lab(ui)->id);
        return;
    }
    char *text = workspace_solution(ui->app->root, ui_lab(ui), err, sizeof err);
    if (!text) {
        ui_message(ui, DOC_BAD, "%s", err);
        return;
    }
    snprintf(title, sizeof title, "Lab %s: the reference solution (%s/kernel.cu)", ui_lab(ui)->id,
             ui_lab(ui)->solution_dir);
    ui_replace(ui, ui_pager_new(VIEW_SOLUTION, title, text_build, text, free));
}

static void chart_build(struct doc *d, struct ui *ui, void *ctx, int width)
{
    (void)ctx;
    sheet_chart(d, &ui->app->cat, &ui->prog, width);
}

void ui_act_chart(struct ui *ui)
{
    ui_replace(ui, ui_pager_new(VIEW_CHART, "Chart: your ladder", chart_build, NULL, NULL));
}

static void progress_build(struct doc *d, struct ui *ui, void *ctx, int width)
{
    (void)ctx;
    standing_page(d, &ui->app->cat, &ui->prog, ui->app->unlock_all, ui->prog_path ? ui->prog_path : "progress.json",
                  width);
    if (!ui->prog_ok) {
        doc_newline(d);
        doc_newline(d);
        doc_add(d, DOC_WARN, "progress.json was refused at start: nothing is recorded this session");
    }
}

void ui_act_progress(struct ui *ui)
{
    ui_replace(ui, ui_pager_new(VIEW_PROGRESS, "Progress", progress_build, NULL, NULL));
}

static void help_build(struct doc *d, struct ui *ui, void *ctx, int width)
{
    (void)ctx;
    ui_help_build(d, width, verdict_check_does((enum check_place)ui->check_place));
}

/* Where a check runs the kernel here: through a GPU command when one is
 * set, on the GPU nvidia-smi names, else on the CPU.  Asked once: nvidia-smi
 * takes a moment. */
static enum check_place check_place(struct ui *ui)
{
    struct via_setup via;
    char err[600], gpu[96];
    if (ui->check_place >= 0)
        return (enum check_place)ui->check_place;
    memset(&via, 0, sizeof via);
    if (!via_config(ui->app->root, NULL, 0, &via, err, sizeof err) && via.cmd)
        ui->check_place = CHECK_VIA_GPU;
    else
        ui->check_place = calibrate_gpu_name(gpu, sizeof gpu) == 0 && gpu[0] ? CHECK_ON_GPU : CHECK_ON_CPU;
    via_setup_free(&via);
    return (enum check_place)ui->check_place;
}

void ui_act_help(struct ui *ui)
{
    check_place(ui);
    ui_replace(ui, ui_pager_new(VIEW_HELP, "Help", help_build, NULL, NULL));
}

/* ---- watch mode --------------------------------------------------------- */

static void watch_start(struct ui *ui, int quiet)
{
    char err[256];
    char *path = workspace_kernel(ui->app->root, ui_lab(ui));
    const char *force = getenv("CUDATUTOR_WATCH_POLL");
    if (!path)
        return;
    ui->watch = watch_open(path, force && *force, err, sizeof err);
    ui->watch_lab = ui->sel;
    ui->watch_pending = 0;
    if (!ui->watch)
        ui_message(ui, DOC_BAD, "cannot watch %s: %s", path, err);
    else if (!quiet)
        ui_message(ui, DOC_GOOD, "watch mode on (%s): every save of %s/kernel.cu runs a check",
                   watch_mode(ui->watch), ui_lab(ui)->dir);
    free(path);
}

void ui_act_watch(struct ui *ui)
{
    if (ui->watch) {
        watch_close(ui->watch);
        ui->watch = NULL;
        ui_message(ui, DOC_DIM, "watch mode off");
        return;
    }
    if (locked(ui, "watch"))
        return;
    watch_start(ui, 0);
}

void ui_watch_follow(struct ui *ui)
{
    if (!ui->watch || ui->watch_lab == ui->sel)
        return;
    watch_close(ui->watch);
    ui->watch = NULL;
    if (ui_state(ui, ui->sel) != LAB_LOCKED)
        watch_start(ui, 1);
    else
        ui_message(ui, DOC_DIM, "watch mode off: lab %s is locked", ui_lab(ui)->id);
}
