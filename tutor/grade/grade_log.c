/* grade_log.c — how the grader speaks (see grade_run.h): notes and
 * warnings on stderr, the errors kept for the end of the run, the events
 * file, usage and internal errors with their exit codes, and the time in
 * the reports' form.  A leaf of tutor/grade/: every stage calls it, it
 * calls no stage. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grade/grade_run.h"
#include "sys/util.h"

#define PROG "cudatutor grade"

void grade_say(const struct grade *g, const char *fmt, ...)
{
    va_list ap;
    if (g->o->quiet)
        return;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void grade_warn(const struct grade *g, const char *fmt, ...)
{
    va_list ap;
    (void)g;
    va_start(ap, fmt);
    fputs(PROG ": warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void grade_error(struct grade *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = util_vformat(fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&g->mu);
    char *all = util_format("%s" PROG ": %s\n", g->errors ? g->errors : "", line ? line : "out of memory");
    if (all) {
        free(g->errors);
        g->errors = all;
    }
    pthread_mutex_unlock(&g->mu);
    free(line);
}

void grade_event(struct grade *g, const char *fmt, ...)
{
    char line[ROSTER_ID_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || g->events_fd < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    /* One write of an O_APPEND file: lines of several threads never mix. */
    (void)!write(g->events_fd, line, (size_t)n);
}

int grade_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nRun " PROG " --help (or ./grade.sh --help) for the options.\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

int grade_internal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_INTERNAL;
}

void grade_utc(char *buf, size_t len, time_t t)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
