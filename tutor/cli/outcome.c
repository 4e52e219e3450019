/* outcome.c — see outcome.h.  One process runs one command, so the state is
 * the process's: whether JSON was asked for and said, and the first error. */
#include "cli/outcome.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/app.h"
#include "sys/util.h"

static struct {
    int json;                   /* --json */
    int said;                   /* a JSON answer is on stdout */
    int failed;                 /* err holds the first error */
    char cmd[32];
    char err[1024];
    pid_t pager;                /* the pager stdout goes to; 0: none */
    int cols;                   /* the terminal's width, read before the pager took stdout */
} out;

void outcome_json(int on)
{
    out.json = on;
}

void outcome_fail(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "cudatutor%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", msg);
    if (out.failed)
        return;
    out.failed = 1;
    util_copy(out.cmd, sizeof out.cmd, cmd ? cmd : "");
    util_copy(out.err, sizeof out.err, msg);
}

void outcome_put_text(const char *text)
{
    puts(text);
    fflush(stdout);
    out.said = 1;
}

int outcome_put(cJSON *o)
{
    char *s = o ? cJSON_Print(o) : NULL;
    if (s)
        outcome_put_text(s);
    free(s);
    cJSON_Delete(o);
    return s ? EXIT_OK : EXIT_INTERNAL;
}

/* The pager to run: $PAGER as the user set it ("" or "cat": none), else
 * less when PATH has it; NULL when there is none. */
static const char *pager_command(void)
{
    const char *env = getenv("PAGER");
    if (env)
        return *env && strcmp(env, "cat") ? env : NULL;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        char *f = util_format("%.*s/less", (int)n, p);
        int found = f && n && access(f, X_OK) == 0;
        free(f);
        if (found)
            return "less";
        p += n + (p[n] == ':');
    }
    return NULL;
}

void outcome_page(void)
{
    const char *cmd = out.json || out.pager || !isatty(STDOUT_FILENO) ? NULL : pager_command();
    int fd[2];
    if (!cmd || pipe(fd))
        return;
    out.cols = outcome_width();
    fflush(stdout);
    /* less: quit when it all fits one screen, pass colours, leave the
     * text on the terminal afterwards (as git sets it). */
    setenv("LESS", "FRX", 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[0], STDIN_FILENO);
        close(fd[0]);
        close(fd[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    close(fd[0]);
    if (pid < 0 || dup2(fd[1], STDOUT_FILENO) < 0) {
        close(fd[1]);
        out.cols = 0;
        return;
    }
    close(fd[1]);
    /* A reader who quits the pager early ends the printing, not the program. */
    signal(SIGPIPE, SIG_IGN);
    out.pager = pid;
}

/* The pager has all there is: stdout is closed to it, and it is waited for. */
static void pager_end(void)
{
    if (!out.pager)
        return;
    fflush(stdout);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        close(null);
    } else {
        close(STDOUT_FILENO);
    }
    while (waitpid(out.pager, NULL, 0) < 0 && errno == EINTR)
        ;
    out.pager = 0;
}

int outcome_end(int rc)
{
    pager_end();
    if (!out.json || out.said || rc == EXIT_OK)
        return rc;
    cJSON *o = cJSON_CreateObject();
    if (out.cmd[0])
        cJSON_AddStringToObject(o, "command", out.cmd);
    else
        cJSON_AddNullToObject(o, "command");
    cJSON_AddStringToObject(o, "error", out.failed ? out.err : "failed; stderr says why");
    cJSON_AddNumberToObject(o, "exit", rc);
    outcome_put(o);
    return rc;
}

int outcome_width(void)
{
    const char *env = getenv("COLUMNS");
    char *end;
    long v = env && *env ? strtol(env, &end, 10) : 0;
    struct winsize ws;
    if (out.cols)
        return out.cols;
    if (v > 0 && v < 10000 && !*end)
        return (int)v;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

void outcome_print_doc(struct doc *d)
{
    /* The locale is the user's only for this question: the rest of the
     * command line prints and parses in "C". */
    const char *was = setlocale(LC_CTYPE, NULL);
    char *keep = was ? strdup(was) : NULL;
    int utf8 = setlocale(LC_CTYPE, "") && !strcmp(nl_langinfo(CODESET), "UTF-8");
    if (keep) {
        setlocale(LC_CTYPE, keep);
        free(keep);
    }
    if (!utf8)
        doc_ascii(d);
    doc_print(stdout, d);
}
