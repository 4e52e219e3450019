/* ui.c — the tutor's loop: the terminal (or an off-screen one for key
 * scripts), signals, waiting on keys, the running check and
 * the watched file at once, and carrying out the flags that key handlers
 * return.  Every path out of ui_run restores the terminal. */
#include "ui/ui.h"

#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include "check/check_session.h"
#include "ui/ui_view.h"
#include "sys/util.h"
#include "sys/watch.h"

#define MAX_SCRIPT_KEYS 4096
#define JOB_TICK_MS 250         /* the check screen's clock */

/* Set by the handlers; the loop sees it, restores the terminal and returns.
 * Nothing else is safe to do inside a handler. */
static volatile sig_atomic_t got_signal;

/* The signal mask the program came with: the one waits run under. */
static sigset_t wait_mask;

static void on_signal(int sig)
{
    got_signal = sig;
}

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
#define NCAUGHT (sizeof caught / sizeof caught[0])

/* Installs the handlers and blocks them, with SIGWINCH, outside the waits;
 * old_mask gets the mask to restore. */
static void signals_install(struct sigaction *old, sigset_t *old_mask)
{
    struct sigaction sa;
    sigset_t block;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;            /* no SA_RESTART: a wait it interrupts must return */
    sigemptyset(&block);
    sigaddset(&block, SIGWINCH);
    for (size_t i = 0; i < NCAUGHT; i++) {
        sigaction(caught[i], &sa, &old[i]);
        sigaddset(&block, caught[i]);
    }
    signal(SIGPIPE, SIG_IGN);
    sigprocmask(SIG_BLOCK, &block, old_mask);
    wait_mask = *old_mask;
}

static void signals_restore(const struct sigaction *old, const sigset_t *old_mask)
{
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaction(caught[i], &old[i], NULL);
}

/* pselect(2) only delivers a signal when it returns EINTR; when input was
 * ready as well, the signal stays pending and blocked.  Deliver it now. */
static void deliver_pending(void)
{
    sigset_t pend;
    while (sigpending(&pend) == 0 && !got_signal) {
        /* Only what the wait mask lets through, or sigsuspend would sleep. */
        int any = sigismember(&pend, SIGWINCH) && !sigismember(&wait_mask, SIGWINCH);
        for (size_t i = 0; i < NCAUGHT; i++)
            any |= sigismember(&pend, caught[i]) && !sigismember(&wait_mask, caught[i]);
        if (!any)
            return;
        sigsuspend(&wait_mask);     /* returns once a handler has run */
    }
}

/* ---- flags to actions --------------------------------------------------- */

static void act_check(struct ui *ui)
{
    ui_check_start(ui, ui->sel);
}

static void act_trace(struct ui *ui)
{
    ui_trace_start(ui, ui->sel);
}

static void act_search(struct ui *ui)
{
    if (!ui->top->ops->search) {
        ui_message(ui, DOC_DIM, "nothing to search on this screen");
        return;
    }
    ui->prompting = 1;
    ui->prompt[0] = '\0';
}

static const struct {
    int flag;
    void (*fn)(struct ui *ui);
} actions[] = {
    {UI_SEARCH, act_search},       {UI_CHECK, act_check},     {UI_EDIT, ui_act_edit},
    {UI_HINT, ui_act_hint},        {UI_RESET, ui_act_reset},  {UI_SOLUTION, ui_act_solution},
    {UI_CHART, ui_act_chart},      {UI_WATCH, ui_act_watch},  {UI_HELP, ui_act_help},
    {UI_LESSON, ui_act_lesson},    {UI_PROGRESS, ui_act_progress}, {UI_TRACE, act_trace},
};

static void ui_perform(struct ui *ui, int flags)
{
    if (flags & UI_CLOSE) {
        if (ui->top->below)
            ui_pop(ui);
        else
            flags |= UI_QUIT;
    }
    if (flags & UI_QUIT) {
        ui->quit = 1;
        return;
    }
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++)
        if (flags & actions[i].flag)
            actions[i].fn(ui);
    if (flags)
        ui->dirty = 1;
}

/* ---- keys --------------------------------------------------------------- */

static void prompt_key(struct ui *ui, int ch)
{
    size_t len = strlen(ui->prompt);
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        ui->prompting = 0;
        if (len) {
            util_copy(ui->needle, sizeof ui->needle, ui->prompt);
            ui->top->ops->search(ui->top, ui, ui->needle, 1);
        }
    } else if (ch == 27) {
        ui->prompting = 0;
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (len)
            ui->prompt[len - 1] = '\0';
        else
            ui->prompting = 0;
    } else if (ch >= ' ' && ch < 127 && len + 1 < sizeof ui->prompt) {
        ui->prompt[len] = (char)ch;
        ui->prompt[len + 1] = '\0';
    }
    ui->dirty = 1;
}

static int too_small(const struct ui *ui)
{
    return ui->rows < UI_MIN_ROWS || ui->cols < UI_MIN_COLS;
}

static void unknown_key(struct ui *ui, int ch)
{
    if (ch > ' ' && ch < 127)
        ui_message(ui, DOC_DIM, "%c is not a key here: ? for keys", ch);
    else
        ui_message(ui, DOC_DIM, "not a key here: ? for keys");
}

static void dispatch(struct ui *ui, int ch)
{
    if (ch == KEY_RESIZE) {
        getmaxyx(stdscr, ui->rows, ui->cols);
        clearok(curscr, TRUE);
        ui->dirty = 1;
        return;
    }
    ui->msg[0] = '\0';
    ui->dirty = 1;
    if (ui->prompting) {
        prompt_key(ui, ch);
        return;
    }
    enum ui_action act = ui_key_action(ch);
    if (too_small(ui)) {
        /* Nothing to act on that cannot be seen; quitting still works. */
        if (act == ACT_BACK || act == ACT_QUIT)
            ui->quit = ch != 27;
        return;
    }
    enum view_kind kind = ui->top->kind;
    int fl = ui->top->ops->key(ui->top, ui, act, ch);
    if (fl & UI_PASS)
        fl = (fl & ~UI_PASS) | ui_action_flag(act);
    /* A key bound to nothing says where the keys are; a question and the
     * check screen read keys of their own (y/n, q) and say which. */
    if (act == ACT_NONE && !fl && kind != VIEW_ASK && kind != VIEW_CHECK)
        unknown_key(ui, ch);
    ui_perform(ui, fl);
}

/* ---- drawing ------------------------------------------------------------ */

static void draw(struct ui *ui)
{
    getmaxyx(stdscr, ui->rows, ui->cols);
    if (too_small(ui)) {
        ui_draw_too_small(ui);
    } else {
        erase();
        ui->top->ops->draw(ui->top, ui);
        ui_draw_status(ui);
    }
    wnoutrefresh(stdscr);
    doupdate();
    ui->dirty = 0;
    if (ui->first_frame_ms < 0)
        ui->first_frame_ms = (util_now() - ui->opts->t0) * 1000;
}

/* ---- waiting ------------------------------------------------------------ */

static void watch_tick(struct ui *ui)
{
    if (ui->watch && watch_check(ui->watch, util_now()))
        ui->watch_pending = 1;
    /* A save while a question is open waits for the answer. */
    if (ui->watch_pending && !ui->job && ui->top->kind != VIEW_ASK) {
        ui->watch_pending = 0;
        ui_check_start(ui, ui->watch_lab);
    }
}

/* Reads progress.json again after it changed: a pass made with the command
 * line or another tutor shows here at once.  The tutor's own writes come
 * back too, and read the same.  A file that cannot be read now leaves
 * what the screen shows, and says why. */
static void progress_tick(struct ui *ui)
{
    char note[768] = "", err[768] = "";
    struct progress fresh;
    if (!ui->prog_watch || !watch_check(ui->prog_watch, util_now()))
        return;
    if (progress_load(ui->prog_path, &fresh, note, sizeof note, err, sizeof err) != PROGRESS_OK) {
        ui_message(ui, DOC_WARN, "progress.json changed but cannot be read: %s", err);
        ui->dirty = 1;
        return;
    }
    progress_free(&ui->prog);
    ui->prog = fresh;
    ui->prog_ok = 1;
    if (note[0])
        ui_message(ui, DOC_WARN, "%s", note);
    ui->dirty = 1;
}

/* Sleeps until a key, the check's output, the watched file, progress.json,
 * a timer or a signal.  Signals are blocked except inside pselect(2), so a
 * resize or a ^C that lands between two waits is not lost: it wakes the
 * next wait at once (curses then reports the resize as KEY_RESIZE). */
static void wait_events(struct ui *ui, int with_keys)
{
    fd_set rd;
    int top = -1, timeout = -1, jfd = ui_check_fd(ui), wfd = ui->watch ? watch_fd(ui->watch) : -1;
    int pfd = ui->prog_watch ? watch_fd(ui->prog_watch) : -1;
    int fds[4] = {with_keys ? STDIN_FILENO : -1, jfd, wfd, pfd};

    FD_ZERO(&rd);
    for (int i = 0; i < 4; i++)
        if (fds[i] >= 0) {
            FD_SET(fds[i], &rd);
            top = fds[i] > top ? fds[i] : top;
        }
    if (jfd >= 0)
        timeout = JOB_TICK_MS;
    for (int i = 0; i < 2; i++) {
        struct watch *w = i ? ui->prog_watch : ui->watch;
        int t = w ? watch_timeout_ms(w, util_now()) : -1;
        if (t >= 0 && (timeout < 0 || t < timeout))
            timeout = t;
    }
    struct timespec ts = {timeout / 1000, (timeout % 1000) * 1000000L};
    if (top >= 0 || timeout >= 0)
        pselect(top + 1, &rd, NULL, NULL, timeout >= 0 ? &ts : NULL, &wait_mask);
    deliver_pending();
    /* A terminal that went away reads as ready forever: treat it as a hangup. */
    if (with_keys && FD_ISSET(STDIN_FILENO, &rd)) {
        struct pollfd p = {STDIN_FILENO, POLLIN, 0};
        if (poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
            got_signal = SIGHUP;
    }
    if (ui->job) {
        ui_check_poll(ui);
        ui->dirty = 1;          /* the clock on the check screen moves */
    }
    watch_tick(ui);
    progress_tick(ui);
}

static void loop_terminal(struct ui *ui)
{
    while (!ui->quit && !got_signal) {
        if (ui->dirty)
            draw(ui);
        wait_events(ui, 1);
        int ch;
        while (!ui->quit && !got_signal && (ch = getch()) != ERR)
            dispatch(ui, ch);
    }
}

static int loop_script(struct ui *ui)
{
    int *keys = calloc(MAX_SCRIPT_KEYS, sizeof *keys), n;
    char err[160];
    if (!keys)
        return EXIT_INTERNAL;
    if ((n = ui_keys_parse(ui->opts->keys ? ui->opts->keys : "", keys, MAX_SCRIPT_KEYS, err, sizeof err)) < 0) {
        ui_message(ui, DOC_BAD, "%s", err);
        n = 0;
    }
    for (int k = 0; k <= n && !got_signal; k++) {
        /* Each key waits for the check before it, as a person would. */
        while (ui->job && !got_signal)
            wait_events(ui, 0);
        if (ui->dirty)
            draw(ui);
        if (k == n || ui->quit)
            break;
        if (keys[k] >= UI_KEY_RESIZE_BASE) {
            int code = keys[k] - UI_KEY_RESIZE_BASE;
            resize_term(code / 1000, code % 1000);
            dispatch(ui, KEY_RESIZE);
        } else {
            dispatch(ui, keys[k]);
        }
    }
    free(keys);
    return n < 0 ? EXIT_USAGE : EXIT_OK;
}

/* ---- the terminal ------------------------------------------------------- */

static SCREEN *screen_open(struct ui *ui, FILE **devnull)
{
    SCREEN *scr = NULL;
    if (ui->opts->keys || ui->opts->dump) {
        /* Off-screen: curses keeps the screen in memory and writes to /dev/null. */
        static const char *const terms[] = {NULL, "xterm-256color", "xterm", "vt100"};
        if (!(devnull[0] = fopen("/dev/null", "w")) || !(devnull[1] = fopen("/dev/null", "r")))
            return NULL;
        for (size_t i = 0; !scr && i < sizeof terms / sizeof terms[0]; i++)
            if (i || getenv("TERM"))
                scr = newterm(i ? terms[i] : getenv("TERM"), devnull[0], devnull[1]);
        if (scr)
            resize_term(ui->opts->rows > 0 ? ui->opts->rows : 30, ui->opts->cols > 0 ? ui->opts->cols : 100);
    } else {
        scr = newterm(NULL, stdout, stdin);
    }
    if (!scr)
        return NULL;
    set_term(scr);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    getmaxyx(stdscr, ui->rows, ui->cols);
    ui_draw_init(ui);
    return scr;
}

static void progress_open(struct ui *ui)
{
    char note[768] = "", err[768] = "";
    ui->prog_path = progress_path(ui->app->root, ui->app->progress_path);
    int rc = ui->prog_path ? progress_load(ui->prog_path, &ui->prog, note, sizeof note, err, sizeof err)
                           : PROGRESS_ERROR;
    ui->prog_ok = rc == PROGRESS_OK;
    if (!ui->prog_ok) {
        progress_init(&ui->prog);
        ui_message(ui, DOC_BAD, "%s; progress is not recorded this session", err[0] ? err : "out of memory");
    } else if (note[0]) {
        ui_message(ui, DOC_WARN, "%s", note);
    }
    /* Without a watch the screen shows the file as it was at the start. */
    if (ui->prog_path)
        ui->prog_watch = watch_open(ui->prog_path, 0, err, sizeof err);
}

int ui_run(struct app *app, const struct ui_opts *opts)
{
    struct ui ui;
    struct sigaction old[NCAUGHT];
    sigset_t old_mask;
    FILE *devnull[2] = {NULL, NULL};
    SCREEN *scr = NULL;
    char err[512] = "";
    int rc = EXIT_OK;

    memset(&ui, 0, sizeof ui);
    ui.app = app;
    ui.opts = opts;
    ui.first_frame_ms = -1;
    ui.check_place = -1;
    ui.watch_lab = -1;
    setlocale(LC_ALL, "");
    ui.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    progress_open(&ui);
    if (!ui.msg[0] && check_session_building(app))
        ui_message(&ui, DOC_DIM, "make builds the judges in the background: a check waits for them");
    got_signal = 0;
    signals_install(old, &old_mask);
    if (!(scr = screen_open(&ui, devnull))) {
        snprintf(err, sizeof err, "cannot start the screen (is TERM=%s right?)", getenv("TERM") ? getenv("TERM") : "");
        rc = EXIT_INTERNAL;
        goto out;
    }
    ui_push(&ui, ui_main_new());
    if (!ui.top) {
        snprintf(err, sizeof err, "out of memory");
        rc = EXIT_INTERNAL;
        goto out;
    }
    if (opts->result_file && ui_result_open(&ui, opts->result_file, err, sizeof err) != 0) {
        rc = EXIT_USAGE;
        goto out;
    }
    ui.dirty = 1;
    if (opts->keys || opts->dump)
        rc = loop_script(&ui);
    else
        loop_terminal(&ui);
    if (opts->dump)
        ui_dump(stdout);
out:
    ui_check_cancel(&ui);
    while (ui.top && ui.top->below)
        ui_pop(&ui);
    if (ui.top)
        ui.top->ops->free(ui.top);
    watch_close(ui.watch);
    watch_close(ui.prog_watch);
    if (scr) {
        endwin();
        delscreen(scr);
    }
    for (int i = 0; i < 2; i++)
        if (devnull[i])
            fclose(devnull[i]);
    signals_restore(old, &old_mask);
    if (err[0])
        fprintf(stderr, "cudatutor: %s\n", err);
    if ((opts->dump || getenv("CUDATUTOR_TIMING")) && ui.first_frame_ms >= 0)
        fprintf(stderr, "cudatutor: first frame after %.1f ms\n", ui.first_frame_ms);
    progress_free(&ui.prog);
    free(ui.prog_path);
    if (got_signal)
        rc = 128 + got_signal;
    return rc;
}
