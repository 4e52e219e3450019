/* ui_check.c — a check runs in a child process so that the screen stays
 * alive (resizes, the clock, cancelling with q) while nvcc and the GPU work.
 * So does a trace (the t key): the same child, building the kernel and
 * tracing one call of it (check_trace_opts) instead, its picture then
 * shown by ui_trace.c and nothing recorded.
 * The child runs the check session (check/check_session.h) and passes its
 * events to the parent as they are, one fixed-size record each (struct
 * child_msg), then a record that the verdict follows, as its JSON, until
 * the pipe ends; or a record that the workbook itself is broken.  The
 * parent shows the stages, then the results screen, and records the
 * verdict in progress.json. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check/check.h"
#include "check/check_session.h"
#include "view/sheet.h"
#include "view/trace.h"
#include "ui/ui_view.h"
#include "sys/util.h"
#include "model/workspace.h"

/* One record from the child: an event of the session, the workbook's
 * failure, or the verdict's JSON next. */
enum child_kind { CHILD_EVENT, CHILD_BROKEN, CHILD_VERDICT };

struct child_msg {
    enum child_kind kind;
    enum check_event_kind event;
    enum stage_id stage;
    int i, n;
    char text[600];             /* the detail, the note or the failure, cut to fit */
};

/* A record is written whole in one write, so that it arrives whole. */
_Static_assert(sizeof(struct child_msg) <= PIPE_BUF, "a child_msg must fit one atomic pipe write");

struct check_job {
    pid_t pid;
    int fd;
    int lab;
    int trace;                  /* a trace, not a check */
    int tracing;                /* the trace's call runs */
    char *buf;                  /* everything read so far */
    size_t len, cap, parsed;    /* parsed: bytes of records consumed */
    long json_at;               /* where the verdict's JSON starts; -1 not yet */
    int stage;                  /* the latest stage the screen lists (stage_label); -1 none */
    int i, n;
    int waiting;                /* for another check of the same lab */
    int calibrating;            /* timing the reference solutions first */
    int asking;                 /* asking the GPU command which GPU it reaches */
    char detail[160];
    char note[512];             /* calibration's latest line for the user */
    char error[512];            /* CHILD_BROKEN: the workbook is broken */
    double started;
};

static const char *const spinner[] = {"|", "/", "-", "\\"};

/* ---- the child ---------------------------------------------------------- */

static void child_send(int fd, enum child_kind kind, const struct check_event *ev, const char *text)
{
    struct child_msg m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    if (ev) {
        m.event = ev->kind;
        m.stage = ev->stage;
        m.i = ev->i;
        m.n = ev->n;
    }
    util_copy(m.text, sizeof m.text, text ? text : "");
    /* One line on the screen: a compiler's or a command's words may hold
     * line breaks and tabs. */
    for (char *p = m.text; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
    util_write_all(fd, &m, sizeof m);
}

static void child_event(void *ud, const struct check_event *ev)
{
    child_send(*(int *)ud, CHILD_EVENT, ev, ev->text);
}

static void child_progress(void *ud, enum stage_id stage, int i, int n, const char *detail)
{
    struct check_event ev = {.kind = CHECK_EVENT_PROGRESS, .stage = stage, .i = i, .n = n, .text = detail};
    child_send(*(int *)ud, CHILD_EVENT, &ev, detail);
}

/* The lab's own kernel.cu traced in build/trace/NN, as `cudatutor trace NN`. */
static int child_trace(struct ui *ui, int lab, int *fd, struct result *rep, char *err, size_t errlen)
{
    const struct lab *l = &ui->app->cat.labs[lab];
    char *dir = check_trace_dir(&ui->app->tc, l), *steps = dir ? util_format("%s/%s", dir, CHECK_TRACE_FILE) : NULL;
    char *own = util_format("%s/%s/kernel.cu", ui->app->root, l->dir);
    struct check_opts o;
    int rc = -1;
    if (steps && own) {
        check_trace_opts(&o, own, dir, steps);
        /* a kernel that does not build must not draw the last one's steps */
        unlink(steps);
        o.progress = child_progress;
        o.ud = fd;
        rc = check_run(&ui->app->tc, &ui->app->cat, l, &o, rep, err, errlen);
    } else {
        util_copy(err, errlen, "out of memory");
    }
    free(own);
    free(steps);
    free(dir);
    return rc;
}

static void child_run(struct ui *ui, int lab, int trace, int fd)
{
    struct check_opts o;
    char err[512] = "";
    int devnull = open("/dev/null", O_RDWR);

    /* Its own group, the default signals, and no terminal: nothing the check
     * does may reach the screen or be stopped by the tutor's ^C handling. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGWINCH, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
    }
    memset(&o, 0, sizeof o);
    o.sanitize = 1;
    /* The GPU elsewhere as $CUDATUTOR_GPU_VIA or cudatutor.conf set it, the
     * targets scaled to this GPU unless --no-calibrate. */
    struct check_session session = {.app = ui->app, .calibrated = 1, .via = 1, .event = child_event, .ud = &fd};
    struct result rep;
    int ran = (trace ? child_trace(ui, lab, &fd, &rep, err, sizeof err)
                     : check_session_run(&session, &ui->app->cat.labs[lab], &o, &rep, err, sizeof err)) == 0;
    /* The verdict crosses the pipe as its JSON. */
    char *text = ran ? result_to_json(&rep, 0) : NULL;
    if (text) {
        child_send(fd, CHILD_VERDICT, NULL, NULL);
        util_write_all(fd, text, strlen(text));
    } else {
        child_send(fd, CHILD_BROKEN, NULL, ran ? "out of memory" : err);
    }
    _exit(0);
}

/* ---- the parent --------------------------------------------------------- */

static void job_free(struct check_job *j)
{
    if (!j)
        return;
    if (j->fd >= 0)
        close(j->fd);
    free(j->buf);
    free(j);
}

static void take_event(struct check_job *j, const struct child_msg *m)
{
    if (m->event == CHECK_EVENT_NOTE) {
        util_copy(j->note, sizeof j->note, m->text);
        return;
    }
    j->waiting = m->stage == STAGE_WAIT;
    j->calibrating = m->stage == STAGE_CALIBRATE;
    j->asking = m->stage == STAGE_GPU;
    j->tracing = m->stage == STAGE_TRACE;
    if (stage_label(m->stage))
        j->stage = (int)m->stage;
    else if (j->tracing)
        j->stage = STAGE_LINK + 1;      /* built: the trace's own line is on */
    j->i = m->i;
    j->n = m->n;
    util_copy(j->detail, sizeof j->detail, m->text);
}

/* Consumes the whole records read so far; notices where the JSON starts. */
static void parse(struct check_job *j)
{
    while (j->json_at < 0 && j->len - j->parsed >= sizeof(struct child_msg)) {
        struct child_msg m;
        memcpy(&m, j->buf + j->parsed, sizeof m);
        m.text[sizeof m.text - 1] = '\0';
        j->parsed += sizeof m;
        if (m.kind == CHILD_VERDICT)
            j->json_at = (long)j->parsed;
        else if (m.kind == CHILD_BROKEN)
            util_copy(j->error, sizeof j->error, m.text);
        else
            take_event(j, &m);
    }
}

struct result_page {
    struct result r;
    char *src;
    char title[128];
};

static void result_build(struct doc *d, struct ui *ui, void *ctx, int width)
{
    struct result_page *rp = ctx;
    sheet_result(d, &rp->r, rp->r.lab ? catalog_find(&ui->app->cat, rp->r.lab) : NULL, rp->src, width);
}

static void result_page_free(void *ctx)
{
    struct result_page *rp = ctx;
    result_free(&rp->r);
    free(rp->src);
    free(rp);
}

/* The results screen for a parsed verdict (taken over: freed with the page). */
static struct view *result_view(struct ui *ui, struct result *r)
{
    struct result_page *rp = calloc(1, sizeof *rp);
    if (!rp) {
        result_free(r);
        return NULL;
    }
    rp->r = *r;
    char *path = r->file[0] == '/' ? strdup(r->file) : util_format("%s/%s", ui->app->root, r->file);
    rp->src = path ? util_read_file(path, NULL) : NULL;
    free(path);
    char head[sizeof rp->title];
    /* "Lab 01: " and the headline, cut to the title bar's room. */
    int at = snprintf(rp->title, sizeof rp->title, "Lab %s: ", r->lab);
    result_headline(r, head, sizeof head);
    if (at > 0 && (size_t)at < sizeof rp->title)
        util_copy(rp->title + at, sizeof rp->title - (size_t)at, head);
    struct view *v = ui_pager_new(VIEW_RESULT, rp->title, result_build, rp, result_page_free);
    /* e jumps to the first error in the student's own file. */
    for (int i = 0; v && i < r->ndiags && !v->edit_line; i++)
        if (sheet_same_file(r->diags[i].file, r->file))
            v->edit_line = r->diags[i].line;
    return v;
}

/* A trace's picture from its steps file, or why there is none. */
static void trace_show(struct ui *ui, int lab, const struct result *r)
{
    const struct lab *l = &ui->app->cat.labs[lab];
    char err[256] = "", *dir = check_trace_dir(&ui->app->tc, l);
    char *steps = dir ? util_format("%s/%s", dir, CHECK_TRACE_FILE) : NULL;
    char *text = steps ? util_read_file(steps, NULL) : NULL;
    struct trace *t = text ? trace_parse(text, err, sizeof err) : NULL;
    if (t) {
        char *own = util_format("%s/%s/kernel.cu", ui->app->root, l->dir);
        char *source = own ? util_read_file(own, NULL) : NULL;
        /* the view takes the trace and the source over */
        ui_replace(ui, ui_trace_new(l->id, CHECK_TRACE_N, t, source, "kernel.cu", check_trace_stopped(r)));
        free(own);
    } else {
        ui_message(ui, DOC_BAD, "lab %s: nothing to draw: %s", l->id,
                   r->summary && r->summary[0] ? r->summary : text ? err : "the kernel did not run");
    }
    free(text);
    free(steps);
    free(dir);
}

static void finish(struct ui *ui)
{
    struct check_job *j = ui->job;
    char err[256];
    int status;
    struct result r;

    ui->job = NULL;
    while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (ui->top && ui->top->kind == VIEW_CHECK)
        ui_pop(ui);
    if (j->json_at >= 0 && j->trace) {
        if (result_parse(j->buf + j->json_at, &r, err, sizeof err) == 0) {
            trace_show(ui, j->lab, &r);
            result_free(&r);
        } else {
            ui_message(ui, DOC_BAD, "the trace's verdict did not parse: %s", err);
        }
    } else if (j->json_at >= 0) {
        if (result_parse(j->buf + j->json_at, &r, err, sizeof err) == 0) {
            ui_record(ui, &r);
            ui_replace(ui, result_view(ui, &r));
        } else {
            ui_message(ui, DOC_BAD, "the check's verdict did not parse: %s", err);
        }
    } else if (j->error[0]) {
        ui_message(ui, DOC_BAD, "the check could not run: %s", j->error);
    } else {
        ui_message(ui, DOC_BAD, "the check ended without a verdict (%s %d)",
                   WIFSIGNALED(status) ? "signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
    job_free(j);
    ui->dirty = 1;
}

void ui_check_poll(struct ui *ui)
{
    struct check_job *j = ui->job;
    if (!j)
        return;
    for (;;) {
        char *n = util_grow(j->buf, &j->cap, j->len + 4096 + 1, 1);
        if (!n) {
            ui_check_cancel(ui);
            ui_message(ui, DOC_BAD, "out of memory reading the check");
            return;
        }
        j->buf = n;
        ssize_t got = read(j->fd, j->buf + j->len, j->cap - j->len - 1);    /* one for the NUL */
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;              /* EAGAIN: all read for now */
        j->len += (size_t)got;
        j->buf[j->len] = '\0';
        if (got == 0) {
            parse(j);
            finish(ui);
            return;
        }
    }
    parse(j);
}

int ui_check_fd(const struct ui *ui)
{
    return ui->job ? ui->job->fd : -1;
}

void ui_check_cancel(struct ui *ui)
{
    struct check_job *j = ui->job;
    if (!j)
        return;
    ui->job = NULL;
    /* First a word: a check waiting on a GPU command stops that command's
     * whole process group (a job in a queue, an ssh) before it ends. */
    kill(j->pid, SIGTERM);
    for (int i = 0; i < 40 && waitpid(j->pid, NULL, WNOHANG) == 0; i++)
        usleep(25000);
    /* The child's group; what it started has time limits of its own. */
    kill(-j->pid, SIGKILL);
    kill(j->pid, SIGKILL);
    while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    job_free(j);
    if (ui->top && ui->top->kind == VIEW_CHECK)
        ui_pop(ui);
}

/* ---- the progress screen ------------------------------------------------ */

/* Writes text from row y on, broken at spaces to the screen's width;
 * returns the row after it. */
static int put_wrapped(struct ui *ui, int y, enum doc_style st, const char *text)
{
    int width = ui->cols - 4;
    while (*text && y < ui->rows - 2) {
        int n = (int)strlen(text);
        if (n > width) {
            n = width;
            while (n > 0 && text[n] != ' ')
                n--;
            if (n == 0)
                n = width;
        }
        char line[512];
        snprintf(line, sizeof line, "%.*s", n, text);
        ui_put(ui, y++, 2, width, st, line);
        text += n;
        while (*text == ' ')
            text++;
    }
    return y;
}

/* While the reference solutions run before a check on a new GPU model:
 * what is happening and why, and which run is on. */
static void calibrate_draw(struct ui *ui, const struct check_job *j)
{
    char what[200];
    int y = put_wrapped(ui, 2, DOC_STRONG, j->note[0] ? j->note : "calibrating the targets for this GPU");
    snprintf(what, sizeof what, "%d/%d  %s", j->i, j->n, j->detail);
    ui_put(ui, y + 1, 2, ui->cols - 4, DOC_TEXT, what);
    put_wrapped(ui, y + 3, DOC_DIM,
                "The catalog's targets were set on another GPU; the reference solutions are timed once on this "
                "model so that a target is never beyond them here.  Then your check runs.  q cancels both.");
}

static void check_draw(struct view *v, struct ui *ui)
{
    struct check_job *j = ui->job;
    const struct lab *lab;
    char title[160], right[48];
    (void)v;
    if (!j)
        return;
    lab = &ui->app->cat.labs[j->lab];
    double t = util_now() - j->started;
    snprintf(title, sizeof title, " %s lab %s: %s", j->trace ? "Tracing" : "Checking", lab->id, lab->title);
    snprintf(right, sizeof right, " %s %.0f s ", spinner[(int)(t * 4) % 4], t);
    ui_bar(ui, 0, title, right, A_REVERSE | A_BOLD);
    if (j->calibrating) {
        calibrate_draw(ui, j);
        return;
    }
    int y = 2;
    /* a trace builds as a check does, then runs one call */
    for (int s = 0; stage_label((enum stage_id)s) && (!j->trace || s <= STAGE_LINK); s++, y++) {
        const char *mark = s < j->stage ? ui_glyph(ui, "✓", "+") : s == j->stage ? ui_glyph(ui, "▸", ">") : " ";
        ui_put(ui, y, 2, 2, s < j->stage ? DOC_GOOD : DOC_STRONG, mark);
        ui_put(ui, y, 5, 16, s <= j->stage ? DOC_STRONG : DOC_DIM, stage_label((enum stage_id)s));
        if (s == j->stage) {
            char what[200];
            if (j->n > 0)
                snprintf(what, sizeof what, "%d/%d  %s", j->i, j->n, j->detail);
            else
                snprintf(what, sizeof what, "%s", j->detail);
            ui_put(ui, y, 22, ui->cols - 23, DOC_TEXT, what);
        }
    }
    if (j->trace) {
        char what[160];
        snprintf(what, sizeof what, "one call at n=%d on the emulator, every lane's step written down",
                 CHECK_TRACE_N);
        ui_put(ui, y, 2, 2, DOC_STRONG, j->tracing ? ui_glyph(ui, "▸", ">") : " ");
        ui_put(ui, y, 5, 16, j->tracing ? DOC_STRONG : DOC_DIM, "trace");
        ui_put(ui, y, 22, ui->cols - 23, j->tracing ? DOC_TEXT : DOC_DIM, what);
        ui_put(ui, y + 2, 2, ui->cols - 4, DOC_DIM, "Compiling takes a few seconds.  q cancels the trace.");
        return;
    }
    if (j->asking) {
        char what[240];
        snprintf(what, sizeof what, "Asking the GPU command which GPU it reaches: %s", j->detail);
        ui_put(ui, y + 1, 2, ui->cols - 4, DOC_WARN, what);
        y += 1;
    }
    if (j->waiting) {
        /* Two lines: at 80 columns one would cut the command short. */
        char why[160];
        snprintf(why, sizeof why, "Waiting for another check of lab %s to end; this one starts then.",
                 lab->id);
        ui_put(ui, y + 1, 2, ui->cols - 4, DOC_WARN, why);
        snprintf(why, sizeof why, "(a tutor, or cudatutor check %s, in another terminal)", lab->id);
        ui_put(ui, y + 2, 2, ui->cols - 4, DOC_WARN, why);
        y += 2;
    }
    ui_put(ui, y + 1, 2, ui->cols - 4, DOC_DIM,
           "Compiling takes a few seconds; timing needs a GPU.  q cancels the check.");
}

static int check_key(struct view *v, struct ui *ui, enum ui_action act, int ch)
{
    (void)v;
    (void)ch;
    if (act == ACT_BACK || act == ACT_QUIT) {
        int trace = ui->job && ui->job->trace;
        ui_check_cancel(ui);
        ui_message(ui, DOC_WARN, trace ? "trace cancelled" : "check cancelled");
        return act == ACT_QUIT ? UI_QUIT : UI_REDRAW;
    }
    return 0;
}

static void check_free(struct view *v)
{
    free(v);
}

static const struct view_ops check_ops = {check_draw, check_key, NULL, check_free};

/* A check of LAB's kernel.cu, or a trace of it, in a child process. */
static void job_start(struct ui *ui, int lab, int trace)
{
    struct check_job *j = NULL;
    struct view *cv = NULL;
    int fds[2] = {-1, -1};

    if (ui->job) {
        ui_message(ui, DOC_WARN, "a %s is already running", ui->job->trace ? "trace" : "check");
        return;
    }
    if (ui_state(ui, lab) == LAB_LOCKED) {
        const struct lab *opener = catalog_opener(&ui->app->cat, &ui->app->cat.labs[lab]);
        ui_message(ui, DOC_WARN, "lab %s is locked: pass lab %s first (or start with --unlock-all)",
                   ui->app->cat.labs[lab].id, opener ? opener->id : ui->app->cat.labs[lab].id);
        return;
    }
    /* A deleted kernel.cu is the workbook's trouble, not a compile error;
     * the status line has room for the tutor's own fix only. */
    char missing[768];
    if (workspace_present(ui->app->root, &ui->app->cat.labs[lab], "kernel.cu", missing, sizeof missing)) {
        ui_message(ui, DOC_BAD, "%s/kernel.cu is missing: r puts the stub back", ui->app->cat.labs[lab].dir);
        return;
    }
    if (!(j = calloc(1, sizeof *j)) || !(cv = calloc(1, sizeof *cv)) || pipe(fds) != 0)
        goto fail;
    /* Close-on-exec at both ends: a compiler the child starts must not hold
     * the pipe open after the child is gone. */
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    j->fd = fds[0];
    j->lab = lab;
    j->trace = trace;
    j->json_at = -1;
    j->stage = -1;
    j->started = util_now();
    fflush(NULL);
    if ((j->pid = fork()) < 0)
        goto fail;
    if (j->pid == 0) {
        close(fds[0]);
        child_run(ui, lab, trace, fds[1]);
    }
    setpgid(j->pid, j->pid);
    close(fds[1]);
    ui->job = j;
    cv->ops = &check_ops;
    cv->kind = VIEW_CHECK;
    cv->keys = "q cancel";
    ui_push(ui, cv);
    return;
fail:
    ui_message(ui, DOC_BAD, "cannot start a %s: %s", trace ? "trace" : "check", strerror(errno));
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    if (j)
        j->fd = -1;
    job_free(j);
    free(cv);
}

void ui_check_start(struct ui *ui, int lab)
{
    job_start(ui, lab, 0);
}

void ui_trace_start(struct ui *ui, int lab)
{
    job_start(ui, lab, 1);
}

int ui_result_open(struct ui *ui, const char *path, char *err, size_t errlen)
{
    struct result r;
    char why[256];
    char *text = util_read_file(path, NULL);
    if (!text) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = result_parse(text, &r, why, sizeof why);
    free(text);
    if (rc) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    const struct lab *lab = catalog_find(&ui->app->cat, r.lab);
    if (lab)
        ui->sel = (int)(lab - ui->app->cat.labs);
    ui_push(ui, result_view(ui, &r));
    return 0;
}
