/* cli_study.c — see cli_study.h.  Reading progress never fails a command
 * that can do without it (list still lists); writing it never hides the
 * answer the student asked for (hint still prints the hint).  Problems with
 * progress.json go to stderr, so --json output stays parseable. */
#include "cli/cli_study.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/calibrate.h"
#include "cli/outcome.h"
#include "model/progress.h"
#include "sys/util.h"
#include "view/standing.h"
#include "view/table.h"
#include "model/workspace.h"

/* How load reports a file it cannot read: as a warning the command goes on
 * after, not at all (a write that follows reports the same trouble, so one
 * problem is one message), or as the command's failure. */
enum load_say { LOAD_WARN, LOAD_QUIET, LOAD_FAIL };

/* Loads progress, reporting a moved-aside file.  Returns 0, or -1 after
 * saying why as say asks (p is then empty and usable). */
static int load(struct app *app, const char *cmd, struct progress *p, enum load_say say)
{
    char note[768] = "", err[768] = "";
    char *path = progress_path(app->root, app->progress_path);
    int rc = path ? progress_load(path, p, note, sizeof note, err, sizeof err) : PROGRESS_ERROR;
    if (!path)
        util_copy(err, sizeof err, "out of memory");
    free(path);
    if (rc == PROGRESS_OK && note[0] && say != LOAD_QUIET)
        fprintf(stderr, "cudatutor %s: %s\n", cmd, note);
    if (rc != PROGRESS_OK) {
        if (say == LOAD_WARN)
            fprintf(stderr, "cudatutor %s: %s\n", cmd, err);
        else if (say == LOAD_FAIL)
            outcome_fail(cmd, "%s", err);
        progress_init(p);
        return -1;
    }
    return 0;
}

/* Runs a progress update, reporting problems; returns 0 when it was written. */
static int update(struct app *app, const char *cmd, progress_fn fn, void *ud, struct progress *out)
{
    char note[768] = "", err[768] = "";
    char *path = progress_path(app->root, app->progress_path);
    int rc = path ? progress_update(path, fn, ud, out, note, sizeof note, err, sizeof err) : PROGRESS_ERROR;
    if (!path)
        util_copy(err, sizeof err, "out of memory");
    free(path);
    if (note[0] && rc == PROGRESS_OK)
        fprintf(stderr, "cudatutor %s: %s\n", cmd, note);
    if (rc != PROGRESS_OK)
        fprintf(stderr, "cudatutor %s: progress not recorded: %s\n", cmd, err);
    return rc == PROGRESS_OK ? 0 : -1;
}

static int lab_index(const struct app *app, const struct lab *lab)
{
    return (int)(lab - app->cat.labs);
}

/* ---- list --------------------------------------------------------------- */

/* The calibration of the GPU the latest recorded check ran on: the targets
 * the student's checks are judged by.  No GPU is asked (listing stays
 * instant); NULL when that GPU has no entry for this catalog. */
static const struct calibrate_gpu *recent_calibration(struct app *app, const struct progress *p,
                                                      struct calibration *c)
{
    const struct progress_lab *latest = NULL;
    char hash[24], note[1200] = "", err[1200] = "";
    char *path;

    memset(c, 0, sizeof *c);
    for (int i = 0; i < p->nlabs; i++)
        if (p->labs[i].gpu[0] && (!latest || strcmp(p->labs[i].last_time, latest->last_time) > 0))
            latest = &p->labs[i];
    if (app->no_calibrate || !latest || !(path = calibrate_path(app->root, app->progress_path)))
        return NULL;
    int rc = calibrate_load(path, c, note, sizeof note, err, sizeof err);
    free(path);
    if (note[0])
        fprintf(stderr, "cudatutor list: %s\n", note);
    if (rc != CALIBRATE_OK) {
        fprintf(stderr, "cudatutor list: %s\n", err);
        return NULL;
    }
    calibrate_catalog_hash(&app->cat, hash, sizeof hash);
    return calibrate_find(c, latest->gpu, hash);
}

/* The lab's timed case of this label, from its family's perf list, or NULL. */
static const struct perf_spec *timed_case(const struct lab *l, const char *label)
{
    for (int k = 0; k < l->family->nperf; k++)
        if (!strcmp(l->family->perf[k].label, label))
            return &l->family->perf[k];
    return NULL;
}

/* Whether a case is named by its size ("2^28" for n = 2^28). */
static int named_by_size(const struct perf_spec *c)
{
    char want[24];
    int k = 0;
    while (k < 63 && (1ull << k) < c->n)
        k++;
    snprintf(want, sizeof want, "2^%d", k);
    return (1ull << k) == c->n && !strcmp(c->label, want);
}

/* n as list prints it: 2^k when it is a power of two. */
static void size_words(unsigned long long n, char *buf, size_t len)
{
    int k = 0;
    while (k < 63 && (1ull << k) < n)
        k++;
    if ((1ull << k) == n)
        snprintf(buf, len, "2^%d", k);
    else
        snprintf(buf, len, "%llu", n);
}

/* Flows text into d as a paragraph of at most width columns, the lines
 * after the first indented by indent's width. */
static void para(struct doc *d, int width, const char *indent, const char *text)
{
    struct doc_para p = {0};
    doc_para_add(&p, DOC_TEXT, text, strlen(text));
    doc_flow(d, &p, width, indent, DOC_TEXT);
    doc_para_free(&p);
}

/* The legend under the list: what a target's figure means, what "at CASE"
 * means (a size names itself; a case named for its input gets a line of
 * its own, with the labs it judges), the further cases a "+" stands for
 * and what a "*" says. */
static void list_legend(struct doc *d, const struct catalog *cat, const struct calibrate_gpu *here, int width)
{
    const struct perf_spec *seen[64];
    int nseen = 0;
    const char *size_example = NULL;
    char line[1024];

    for (int i = 0; i < cat->nlabs; i++) {
        const struct lab *l = &cat->labs[i];
        for (int k = -1; k < l->target.nalso; k++) {
            const char *label = k < 0 ? l->target.case_label : l->target.also[k].case_label;
            const struct perf_spec *c = timed_case(l, label);
            if (c && named_by_size(c) && !size_example)
                size_example = c->label;
            if (!c || named_by_size(c))
                continue;
            int dup = 0;
            for (int s = 0; s < nseen; s++)
                dup |= seen[s] == c;
            if (!dup && nseen < (int)(sizeof seen / sizeof seen[0]))
                seen[nseen++] = c;
        }
    }
    doc_newline(d);     /* a blank line under the table */
    para(d, width, "", "target: 0.12x is 0.12 times the speed of the lab's baseline (CUB, or the harness's own kernel "
                       "where CUB has no such call) on the same GPU, 76% a share of the peak bandwidth measured there.");
    if (nseen) {
        snprintf(line, sizeof line, "\"at CASE\" names the timed case a target is judged on%s%s%s; these "
                 "cases are named for the input the harness times:", size_example ? ": \"at " : "",
                 size_example ? size_example : "", size_example ? "\" is the case of that many elements" : "");
        para(d, width, "", line);
    }
    for (int s = 0; s < nseen; s++) {
        char n[32], ids[256] = "", head[16];
        int nlabs = 0;
        size_t at = 0;
        for (int i = 0; i < cat->nlabs; i++) {
            const struct lab *l = &cat->labs[i];
            int uses = 0;
            for (int k = -1; k < l->target.nalso; k++)
                uses |= timed_case(l, k < 0 ? l->target.case_label : l->target.also[k].case_label) == seen[s];
            if (uses && at < sizeof ids)
                at += (size_t)snprintf(ids + at, sizeof ids - at, "%s%s", nlabs++ ? ", " : "", l->id);
        }
        size_words(seen[s]->n, n, sizeof n);
        snprintf(head, sizeof head, "  %-8s ", seen[s]->label);
        snprintf(line, sizeof line, "n = %s of the %s input (the %s of lab%s %s %s what it holds)", n,
                 seen[s]->input[0] ? seen[s]->input : seen[s]->label, nlabs > 1 ? "lessons" : "lesson",
                 nlabs > 1 ? "s" : "", ids, nlabs > 1 ? "say" : "says");
        para(d, width, head, line);
    }
    /* A target of several cases: the ones the table leaves out. */
    for (int i = 0; i < cat->nlabs; i++) {
        const struct lab *l = &cat->labs[i];
        size_t at;
        if (!l->target.nalso)
            continue;
        at = (size_t)snprintf(line, sizeof line, "+ lab %s also", l->id);
        for (int k = 0; k < l->target.nalso && at < sizeof line; k++)
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%g%s at %s", k ? " and " : " ",
                                   (l->target.metric == METRIC_PCT_PEAK ? 100 : 1) * l->target.also[k].min,
                                   metric_unit(l->target.metric), l->target.also[k].case_label);
        if (at < sizeof line)
            snprintf(line + at, sizeof line - at, ": every case must be met");
        para(d, width, "", line);
    }
    if (here) {
        snprintf(line, sizeof line, "* scaled to the %s, where the reference solutions were timed "
                 "(cudatutor calibrate)", here->name);
        para(d, width, "", line);
    }
}

/* A lab's target as the table shows it: the first case's figure and case
 * ("0.12x at 2^28"), a "*" when it is scaled to this GPU, a "+" when
 * further cases follow in the legend. */
static void target_cell(const struct lab *l, double min, int scaled, char *buf, size_t len)
{
    snprintf(buf, len, "%g%s at %s%s%s", l->target.metric == METRIC_PCT_PEAK ? 100 * min : min,
             metric_unit(l->target.metric), l->target.case_label, scaled ? "*" : "",
             l->target.nalso ? " +" : "");
}

/* The columns of list: the title last, where a long one has room. */
enum { LIST_ID, LIST_STATE, LIST_BEST, LIST_TARGET, LIST_TITLE, LIST_COLS };
static const struct table_col list_cols[LIST_COLS] = {
    [LIST_ID] = {NULL, TABLE_LEFT, 0},
    [LIST_STATE] = {NULL, TABLE_LEFT, 0},
    [LIST_BEST] = {NULL, TABLE_RIGHT, 0},
    [LIST_TARGET] = {NULL, TABLE_LEFT, 0},
    [LIST_TITLE] = {NULL, TABLE_LEFT, 12},
};

int cmd_list(struct app *app, const struct cli_args *a)
{
    struct progress p;
    struct calibration cal;
    struct table tab;
    int json = a->json, any_scaled = 0;
    load(app, "list", &p, LOAD_WARN);
    const struct calibrate_gpu *here = recent_calibration(app, &p, &cal);
    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    table_init(&tab, list_cols, LIST_COLS);
    for (int i = 0; i < app->cat.nlabs; i++) {
        const struct lab *l = &app->cat.labs[i];
        const struct progress_lab *pl = progress_find(&p, l->id);
        enum lab_state st = progress_state(&p, &app->cat, i, app->unlock_all);
        double best = pl && pl->best.have && pl->best.gbps >= 0 ? pl->best.gbps : -1;
        const struct calibrate_lab *cl = calibrate_lab(here, l->id);
        int scaled = cl && cl->lowered;
        double min = scaled ? cl->min : l->target.min;
        if (!json && l->bonus && (i == 0 || !app->cat.labs[i - 1].bonus)) {
            const struct lab *opener = catalog_opener(&app->cat, l);
            char heading[64];
            if (opener)
                snprintf(heading, sizeof heading, "Bonus: open once lab %s has passed", opener->id);
            else
                snprintf(heading, sizeof heading, "Bonus");
            table_line(&tab, heading);
        }
        if (!json) {
            char gb[24] = "-", target[96];
            if (best >= 0)
                snprintf(gb, sizeof gb, "%.0f GB/s", best);
            else if (pl && pl->best.have)
                snprintf(gb, sizeof gb, "%.2fx", pl->best.ratio);
            target_cell(l, min, scaled, target, sizeof target);
            any_scaled |= scaled;
            const char *cells[LIST_COLS] = {[LIST_ID] = l->id, [LIST_STATE] = progress_state_label(pl, st),
                                            [LIST_BEST] = gb, [LIST_TARGET] = target, [LIST_TITLE] = l->title};
            table_add(&tab, cells);
            continue;
        }
        cJSON *o = cJSON_CreateObject(), *t;
        cJSON_AddStringToObject(o, "id", l->id);
        cJSON_AddStringToObject(o, "slug", l->slug);
        cJSON_AddStringToObject(o, "title", l->title);
        cJSON_AddStringToObject(o, "family", l->family->name);
        cJSON_AddStringToObject(o, "dir", l->dir);
        cJSON_AddStringToObject(o, "stub", l->stub);
        cJSON_AddStringToObject(o, "summary", l->summary);
        cJSON_AddBoolToObject(o, "bonus", l->bonus);
        const struct lab *opener = catalog_opener(&app->cat, l);
        if (opener)
            cJSON_AddStringToObject(o, "opens_after", opener->id);
        else
            cJSON_AddNullToObject(o, "opens_after");
        t = cJSON_AddObjectToObject(o, "target");
        cJSON_AddStringToObject(t, "metric", metric_name(l->target.metric));
        cJSON_AddStringToObject(t, "case", l->target.case_label);
        cJSON_AddNumberToObject(t, "min", l->target.min);
        cJSON_AddBoolToObject(t, "provisional", l->target.provisional);
        if (l->target.solution > 0)
            cJSON_AddNumberToObject(t, "solution", l->target.solution);
        if (l->target.nalso) {
            cJSON *also = cJSON_AddArrayToObject(t, "also");
            for (int k = 0; k < l->target.nalso; k++) {
                cJSON *c = cJSON_CreateObject();
                cJSON_AddStringToObject(c, "case", l->target.also[k].case_label);
                cJSON_AddNumberToObject(c, "min", l->target.also[k].min);
                if (l->target.also[k].solution > 0)
                    cJSON_AddNumberToObject(c, "solution", l->target.also[k].solution);
                cJSON_AddItemToArray(also, c);
            }
        }
        if (l->deterministic)
            cJSON_AddBoolToObject(o, "deterministic", 1);
        /* Without a GPU, the largest size the CPU judges run (README.md says
         * each lab's). */
        cJSON_AddNumberToObject(o, "emu_max_n", (double)l->family->emu_max_n);
        /* target.min stays the catalog's figure; this GPU's is apart, under calibrated. */
        if (scaled) {
            cJSON *c = cJSON_AddObjectToObject(t, "calibrated");
            cJSON_AddStringToObject(c, "gpu", here->name);
            cJSON_AddNumberToObject(c, "min", cl->min);
        }
        cJSON_AddStringToObject(o, "state", lab_state_name(st));
        if (st == LAB_PASSED && pl && pl->cpu_only)
            cJSON_AddStringToObject(o, "passed_on", "cpu");
        if (best >= 0)
            cJSON_AddNumberToObject(o, "best_gbps", best);
        else
            cJSON_AddNullToObject(o, "best_gbps");
        if (pl && pl->best.have)
            cJSON_AddNumberToObject(o, "best_ratio", pl->best.ratio);
        else
            cJSON_AddNullToObject(o, "best_ratio");
        cJSON_AddNumberToObject(o, "attempts", pl ? pl->attempts : 0);
        cJSON_AddNumberToObject(o, "hints_used", pl ? pl->hints_used : 0);
        cJSON_AddItemToArray(arr, o);
    }
    if (!json) {
        struct doc d;
        int width = outcome_width();
        doc_init(&d);
        table_draw(&tab, &d, width, 2);
        list_legend(&d, &app->cat, any_scaled ? here : NULL, width);
        outcome_print_doc(&d);
        doc_free(&d);
    }
    table_free(&tab);
    progress_free(&p);
    calibrate_free(&cal);
    return json ? outcome_put(arr) : EXIT_OK;
}

/* ---- hint --------------------------------------------------------------- */

int cmd_hint(struct app *app, const struct cli_args *a)
{
    const struct lab *lab = a->lab;
    int json = a->json, k = 0;
    if (a->npos > 1) {
        char *end;
        long v = strtol(a->pos[1], &end, 10);
        if (*end || v < 1 || v > CATALOG_HINTS) {
            outcome_fail("hint", "which hint? %s is not 1 to %d", a->pos[1], CATALOG_HINTS);
            return EXIT_USAGE;
        }
        k = (int)v;
    }
    struct progress_hint h = {lab->id, k, 0};
    if (update(app, "hint", progress_hint_fn, &h, NULL) != 0) {
        /* Nothing recorded: still answer, with the hint the file would have given. */
        struct progress p;
        load(app, "hint", &p, LOAD_QUIET);
        progress_hint_fn(&p, &h);
        progress_free(&p);
    }
    if (!json) {
        printf("hint %d of %d for lab %s: %s\n", h.shown, CATALOG_HINTS, lab->id, lab->hints[h.shown - 1]);
        return EXIT_OK;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", lab->id);
    cJSON_AddNumberToObject(o, "hint", h.shown);
    cJSON_AddNumberToObject(o, "of", CATALOG_HINTS);
    cJSON_AddStringToObject(o, "text", lab->hints[h.shown - 1]);
    return outcome_put(o);
}

/* ---- progress ----------------------------------------------------------- */

/* The columns of progress; where a line would not fit, the first pass
 * gives way to its date ("2026-01-01…"), then the best to its first
 * figure. */
enum { PROG_LAB, PROG_STATE, PROG_ATTEMPTS, PROG_HINTS, PROG_BEST, PROG_LAST, PROG_FIRST, PROG_COLS };
static const struct table_col progress_cols[PROG_COLS] = {
    [PROG_LAB] = {"lab", TABLE_LEFT, 0},       [PROG_STATE] = {"state", TABLE_LEFT, 0},
    [PROG_ATTEMPTS] = {"attempts", TABLE_RIGHT, 0}, [PROG_HINTS] = {"hints", TABLE_RIGHT, 0},
    [PROG_BEST] = {"best", TABLE_LEFT, 9},     [PROG_LAST] = {"last", TABLE_LEFT, 0},
    [PROG_FIRST] = {"first pass", TABLE_LEFT, 11},
};

/* A time of progress.json ("2026-01-01T09:30:00Z", UTC) as the table shows
 * it: "2026-01-01 09:30 UTC". */
static void when_words(const char *iso, char *buf, size_t len)
{
    if (strlen(iso) >= 16 && iso[10] == 'T')
        snprintf(buf, len, "%.10s %.5s UTC", iso, iso + 11);
    else
        snprintf(buf, len, "%s", iso[0] ? iso : "-");
}

/* Lab i's row of the progress table. */
static void progress_row(const struct app *app, const struct progress *p, int i, struct table *t)
{
    const struct lab *l = &app->cat.labs[i];
    const struct progress_lab *pl = progress_find(p, l->id);
    char best[64], attempts[16], hints[16], first[48];
    standing_best(pl, best, sizeof best);
    snprintf(attempts, sizeof attempts, "%d", pl ? pl->attempts : 0);
    snprintf(hints, sizeof hints, "%d", pl ? pl->hints_used : 0);
    when_words(pl ? pl->first_pass : "", first, sizeof first);
    const char *cells[PROG_COLS] = {
        [PROG_LAB] = l->id,
        [PROG_STATE] = progress_state_label(pl, progress_state(p, &app->cat, i, app->unlock_all)),
        [PROG_ATTEMPTS] = attempts, [PROG_HINTS] = hints, [PROG_BEST] = best,
        [PROG_LAST] = pl && pl->last_status[0] ? pl->last_status : "-", [PROG_FIRST] = first,
    };
    table_add(t, cells);
}

int cmd_progress(struct app *app, const struct cli_args *a)
{
    struct progress p;
    int json = a->json, rc = EXIT_OK;
    if (load(app, "progress", &p, LOAD_FAIL) != 0)
        return EXIT_INTERNAL;
    char *path = progress_path(app->root, app->progress_path);
    if (!json) {
        char line[1200];
        struct table t;
        struct doc d;
        int width = outcome_width();
        standing_summary(&app->cat, &p, app->unlock_all, path ? path : "progress.json", line, sizeof line);
        doc_init(&d);
        para(&d, width, "", line);
        table_init(&t, progress_cols, PROG_COLS);
        for (int i = 0; i < app->cat.nlabs; i++)
            progress_row(app, &p, i, &t);
        table_draw(&t, &d, width, 2);
        outcome_print_doc(&d);
        table_free(&t);
        doc_free(&d);
        goto out;
    }
    cJSON *root = progress_view(&p, &app->cat, app->unlock_all);
    if (!root || !cJSON_AddStringToObject(root, "path", path ? path : "")) {
        cJSON_Delete(root);
        outcome_fail("progress", "out of memory");
        rc = EXIT_INTERNAL;
        goto out;
    }
    rc = outcome_put(root);
out:
    free(path);
    progress_free(&p);
    return rc;
}

/* ---- reset -------------------------------------------------------------- */

/* Asks on the terminal; 1 for yes. */
static int confirm(const char *question)
{
    char line[32];
    fprintf(stderr, "%s [y/N] ", question);
    fflush(stderr);
    if (!fgets(line, sizeof line, stdin))
        return 0;
    return line[0] == 'y' || line[0] == 'Y';
}

int cmd_reset(struct app *app, const struct cli_args *a)
{
    const struct lab *lab = a->lab;
    int yes = a->yes, json = a->json;
    char backup[1024], err[768], q[256];
    if (!yes) {
        if (!isatty(STDIN_FILENO)) {
            outcome_fail("reset", "this replaces %s/kernel.cu with the stub; add --yes to confirm", lab->dir);
            return EXIT_USAGE;
        }
        snprintf(q, sizeof q, "Replace %s/kernel.cu with the stub (your file is kept as a backup)?", lab->dir);
        if (!confirm(q)) {
            fprintf(stderr, "cudatutor reset: nothing changed\n");
            return EXIT_OK;
        }
    }
    /* Whether there was a file to compare with the stub, for the words. */
    char *kernel = workspace_kernel(app->root, lab);
    int missing = kernel && !util_is_file(kernel);
    free(kernel);
    if (workspace_reset(app->root, lab, backup, sizeof backup, err, sizeof err) != 0) {
        outcome_fail("reset", "%s", err);
        return EXIT_INTERNAL;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", lab->id);
        cJSON_AddStringToObject(o, "kernel", lab->dir);
        if (backup[0])
            cJSON_AddStringToObject(o, "backup", backup);
        else
            cJSON_AddNullToObject(o, "backup");
        return outcome_put(o);
    }
    if (missing)
        printf("lab %s: %s/kernel.cu was missing; it is the stub now\n", lab->id, lab->dir);
    else if (backup[0])
        printf("lab %s: %s/kernel.cu is the stub again; your file is kept as %s\n", lab->id, lab->dir, backup);
    else
        printf("lab %s: %s/kernel.cu is the stub again (it already was; no backup needed)\n", lab->id, lab->dir);
    return EXIT_OK;
}

/* ---- solution ----------------------------------------------------------- */

int cmd_solution(struct app *app, const struct cli_args *a)
{
    const struct lab *lab = a->lab;
    int json = a->json;
    char err[768];
    struct progress p;
    load(app, "solution", &p, LOAD_WARN);
    enum lab_state st = progress_state(&p, &app->cat, lab_index(app, lab), 0);
    progress_free(&p);
    if (st < LAB_PASSED && !app->unlock_all) {
        outcome_fail("solution", "lab %s has not passed yet; its solution opens when it does (or add --unlock-all)",
                     lab->id);
        return EXIT_VERDICT;
    }
    char *text = workspace_solution(app->root, lab, err, sizeof err);
    if (!text) {
        outcome_fail("solution", "%s", err);
        return EXIT_INTERNAL;
    }
    if (!json) {
        fputs(text, stdout);
        free(text);
        return EXIT_OK;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", lab->id);
    cJSON_AddStringToObject(o, "path", lab->solution_dir);
    cJSON_AddStringToObject(o, "text", text);
    free(text);
    return outcome_put(o);
}

/* ---- the lock rule ------------------------------------------------------ */

int cli_locked(struct app *app, const char *cmd, const struct lab *lab)
{
    struct progress p;
    int i = lab_index(app, lab);
    /* The command records after, and says then what is wrong with the file;
     * unless the lab is locked, when that is the reason it stops here. */
    int unread = load(app, cmd, &p, LOAD_QUIET);
    enum lab_state st = progress_state(&p, &app->cat, i, app->unlock_all);
    progress_free(&p);
    if (st != LAB_LOCKED)
        return 0;
    if (unread) {
        load(app, cmd, &p, LOAD_WARN);
        progress_free(&p);
    }
    /* The tutor's words: the lab that opens it is the one to pass. */
    const struct lab *opener = catalog_opener(&app->cat, lab);
    outcome_fail(cmd, "lab %s is locked: pass lab %s first (or add --unlock-all)", lab->id,
                 opener ? opener->id : lab->id);
    return 1;
}

/* ---- recording a check -------------------------------------------------- */

void cli_record_check(struct app *app, const struct result *r)
{
    struct progress_check c = {.r = r, .cat = &app->cat};
    char said[512];
    if (!catalog_find(&app->cat, r->lab))
        return;
    progress_now(c.when, sizeof c.when);
    if (update(app, "check", progress_check_fn, &c, NULL) != 0)
        return;
    standing_change(&app->cat, &c.change, said, sizeof said);
    if (said[0])
        fprintf(stderr, "progress: %s\n", said);
}
