/* ui_view.h — what the screens share, inside the UI only: the tutor's state
 * (struct ui), the view stack, and the flags key handlers return.
 *
 * Each screen is a view: a constructor (init), a draw function that paints
 * the whole screen above the status line from state, and a key function
 * that changes state and returns flags but never draws (htop's pattern).
 * The loop in ui.c draws the top view when a flag asks for it and carries
 * out the actions flags name (check, edit, hint, ...), so a key means the
 * same thing on every screen unless that screen handles it itself. */
#ifndef UI_VIEW_H
#define UI_VIEW_H

#include <curses.h>
#include <sys/types.h>

#include "model/app.h"
#include "view/doc.h"
#include "model/progress.h"
#include "model/result.h"

/* What a key handler asks of the loop. */
enum ui_flag {
    UI_REDRAW = 1 << 0,
    UI_QUIT = 1 << 1,
    UI_CLOSE = 1 << 2,          /* pop the top view */
    UI_PASS = 1 << 3,           /* not mine: apply the key's global binding */
    UI_CHECK = 1 << 4,
    UI_EDIT = 1 << 5,
    UI_HINT = 1 << 6,
    UI_RESET = 1 << 7,
    UI_SOLUTION = 1 << 8,
    UI_CHART = 1 << 9,
    UI_WATCH = 1 << 10,
    UI_HELP = 1 << 11,
    UI_LESSON = 1 << 12,
    UI_SEARCH = 1 << 13,
    UI_PROGRESS = 1 << 14,
    UI_TRACE = 1 << 15
};

#include "ui/ui_keys.h"

#define UI_MIN_COLS 80
#define UI_MIN_ROWS 24

enum view_kind { VIEW_MAIN, VIEW_LESSON, VIEW_RESULT, VIEW_HINTS, VIEW_SOLUTION, VIEW_HELP, VIEW_CHART, VIEW_PROGRESS, VIEW_CHECK, VIEW_ASK, VIEW_TRACE };

struct ui;
struct view;

struct view_ops {
    void (*draw)(struct view *v, struct ui *ui);
    int (*key)(struct view *v, struct ui *ui, enum ui_action act, int ch);
    /* Moves to the next (dir > 0) or previous match of needle; NULL: no search. */
    void (*search)(struct view *v, struct ui *ui, const char *needle, int dir);
    void (*free)(struct view *v);
};

struct view {
    const struct view_ops *ops;
    enum view_kind kind;
    struct view *below;
    const char *keys;           /* the status line's reminder of keys */
    int edit_line;              /* e opens the kernel at this line (0: the top) */
};

struct check_job;

struct ui {
    struct app *app;
    const struct ui_opts *opts;
    struct progress prog;       /* as last read or written */
    char *prog_path;
    int prog_ok;                /* 0: progress.json is refused; nothing is recorded */
    int sel;                    /* the selected lab */
    int rows, cols;
    int utf8, color;
    struct view *top;
    char msg[512];              /* shown on the status line until the next key */
    enum doc_style msg_style;
    struct check_job *job;      /* the running check, or NULL */
    struct watch *watch;        /* watch mode: the watched lab's kernel.cu, or NULL */
    int watch_lab, watch_pending;
    struct watch *prog_watch;   /* progress.json, re-read when another program writes it; NULL: none */
    int prompting;              /* reading a search on the status line */
    char prompt[128];
    char needle[128];           /* the last search */
    double first_frame_ms;      /* -1 until the first frame is out */
    int check_place;            /* enum check_place, asked when the help first opens; -1 not yet */
    int dirty;                  /* the screen needs drawing */
    int quit;
};

/* ---- ui_stack.c: the view stack, the message, the selected lab (a leaf) -- */
/* Puts v on top (NULL, from a failed constructor, is ignored). */
void ui_push(struct ui *ui, struct view *v);
/* Pushes v, first popping the top when it is of v's kind (a new verdict
 * replaces the old one instead of piling up). */
void ui_replace(struct ui *ui, struct view *v);
/* Frees the top view; the main screen at the bottom is never popped. */
void ui_pop(struct ui *ui);
/* Sets the status line's message until the next key. */
void ui_message(struct ui *ui, enum doc_style st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A search's step: *line moves to the next (dir > 0) or previous line of d
 * that holds needle; where none does, the status line says "NONE: needle". */
void ui_find(struct ui *ui, const struct doc *d, const char *needle, int dir, int *line, const char *none);
/* The selected lab, and the state of lab i as the menu shows it. */
const struct lab *ui_lab(const struct ui *ui);
enum lab_state ui_state(const struct ui *ui, int i);

/* ---- ui_draw.c: painting ------------------------------------------------ */
/* Decides colour or monochrome and sets up the colour pairs. */
void ui_draw_init(struct ui *ui);
/* The curses attributes of a document style on this terminal. */
attr_t ui_attr(const struct ui *ui, enum doc_style st);
/* A glyph in UTF-8, or its ASCII stand-in on other terminals. */
const char *ui_glyph(const struct ui *ui, const char *utf8, const char *ascii);
/* Paints text in one style at (y, x), at most `cols` columns; returns the
 * columns used. */
int ui_put(struct ui *ui, int y, int x, int cols, enum doc_style st, const char *text);
/* Paints a document line at row y from column x, clipped to cols. */
void ui_put_line(struct ui *ui, int y, int x, int cols, const struct doc_line *l, const char *needle);
/* A full-width bar (title or separator) with text on the left and right. */
void ui_bar(struct ui *ui, int y, const char *left, const char *right, attr_t attr);
/* The bottom line: the search prompt, a message, or the view's keys. */
void ui_draw_status(struct ui *ui);
/* The whole screen, when it is below UI_MIN_COLS x UI_MIN_ROWS. */
void ui_draw_too_small(struct ui *ui);
/* Prints the screen as text on f (the dump mode). */
void ui_dump(FILE *f);

/* ---- ui_input.c: keys --------------------------------------------------- */
/* The action bound to a key, or ACT_NONE. */
enum ui_action ui_key_action(int ch);
/* The flag a key raises when the top view passes it on. */
int ui_action_flag(enum ui_action act);
/* The help screen, generated from the keymap. */
/* check_does: what the key c does on this machine (view/verdict.h). */
void ui_help_build(struct doc *d, int width, const char *check_does);
/* Parses a key script into codes; returns how many, or -1 on a bad name
 * (message in err).  A resize is coded as UI_KEY_RESIZE_BASE + rows*1000 + cols. */
#define UI_KEY_RESIZE_BASE 0x1000000
int ui_keys_parse(const char *script, int *out, int max, char *err, size_t errlen);

/* ---- screens ------------------------------------------------------------ */
struct view *ui_main_new(void);
/* The selected lab's lesson full screen, at the main screen's line. */
void ui_act_lesson(struct ui *ui);
typedef void (*pager_build_fn)(struct doc *d, struct ui *ui, void *ctx, int width);
struct view *ui_pager_new(enum view_kind kind, const char *title, pager_build_fn build, void *ctx,
                          void (*ctx_free)(void *ctx));
/* Starts a page at line (the reader opens where the main screen was). */
void ui_pager_scroll_to(struct view *v, int line);
/* A y/n question over the current screen; yes runs on y.  no, when not
 * NULL, runs on n (the box then shows "n " no_does); otherwise n changes
 * nothing.  ctx is a plain malloc'd block, freed with the question. */
struct view *ui_ask_new(const char *question, const char *no_does, void (*yes)(struct ui *ui, void *ctx),
                        void (*no)(struct ui *ui, void *ctx), void *ctx);

/* ---- ui_trace.c: the picture of a kernel running ------------------------- */
struct trace;
/* The steps of T (taken over, as SOURCE, the kernel's text named
 * SOURCE_NAME in the trace, heap or NULL) of lab LAB at size N, stepped
 * with keys; STOPPED: the sentence of the hazard that stopped the call
 * (copied), the picture then opens on its step.  NULL out of memory. */
struct view *ui_trace_new(const char *lab, unsigned long long n, struct trace *t, char *source,
                          const char *source_name, const char *stopped);

/* ---- ui_check.c: running a check off the UI's back ---------------------- */
/* Starts checking the lab in a child process and shows its progress. */
void ui_check_start(struct ui *ui, int lab);
/* The child's pipe to poll, or -1 when no check runs. */
int ui_check_fd(const struct ui *ui);
/* Reads what the child said; when it is done, shows the results. */
void ui_check_poll(struct ui *ui);
/* Kills the running check, if any, and drops its screen. */
void ui_check_cancel(struct ui *ui);
/* Starts tracing the lab's kernel.cu (the t key) and then shows its picture. */
void ui_trace_start(struct ui *ui, int lab);
/* Shows a saved verdict (the results screen for a file). */
int ui_result_open(struct ui *ui, const char *path, char *err, size_t errlen);

/* ---- ui_actions.c: the verbs behind the global keys --------------------- */
void ui_act_edit(struct ui *ui);
void ui_act_hint(struct ui *ui);
void ui_act_reset(struct ui *ui);
void ui_act_solution(struct ui *ui);
void ui_act_chart(struct ui *ui);
void ui_act_progress(struct ui *ui);
void ui_act_help(struct ui *ui);
void ui_act_watch(struct ui *ui);
/* Re-points the watch at the selected lab when the selection moved. */
void ui_watch_follow(struct ui *ui);
/* Reads the selected lab's lesson (heap Markdown, or a note why not). */
char *ui_lesson_text(const struct ui *ui, int lab);
/* Records a verdict in progress.json and says what changed. */
void ui_record(struct ui *ui, const struct result *r);

#endif /* UI_VIEW_H */
