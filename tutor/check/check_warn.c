/* check_warn.c — the compiler's warnings about the student's file, taken
 * from a compile's log into the result as diagnostics of severity
 * "warning": the first few, each once, with its line.  A warning is often
 * the cause of the verdict that follows ("pointless comparison of unsigned
 * integer with zero" on the loop that then hangs), so the front ends show
 * them beside it.  A leaf of check/: check_build.c calls it once. */
#include "check/check_warn.h"

#include <stdio.h>
#include <string.h>

#include "model/result.h"

/* Whether the log's name for a file is the student's file: nvcc names it
 * as it was given, a header by its own path. */
static int is_student_file(const char *named, const char *src)
{
    size_t ln = strlen(named), ls = strlen(src);
    if (ln == ls)
        return !strcmp(named, src);
    if (ln > ls)
        return !strcmp(named + ln - ls, src) && named[ln - ls - 1] == '/';
    return !strcmp(src + ls - ln, named) && src[ls - ln - 1] == '/';
}

/* One line of the log as a warning: "FILE(LINE): warning #186-D: TEXT"
 * (nvcc's front end; the number is kept, it is what -diag-suppress takes)
 * or "FILE:LINE:COL: warning: TEXT" (the host compiler).  0 and the parts,
 * or -1 when the line is no warning with a line. */
static int parse_warning(const char *line, char *file, size_t filelen, int *ln, char *msg, size_t msglen)
{
    char f[512], code[32] = "";
    int l = 0, col = 0, off = 0;
    if (sscanf(line, "%511[^(:\n](%d): warning %31[^:\n]:%n", f, &l, code, &off) >= 3 && off > 0) {
    } else if (sscanf(line, "%511[^(:\n](%d): warning:%n", f, &l, &off) >= 2 && off > 0) {
    } else if (sscanf(line, "%511[^:\n]:%d:%d: warning:%n", f, &l, &col, &off) >= 3 && off > 0) {
    } else {
        return -1;
    }
    const char *text = line + off;
    text += strspn(text, " ");
    snprintf(file, filelen, "%s", f);
    *ln = l;
    if (code[0])
        snprintf(msg, msglen, "%s %s", code, text);
    else
        snprintf(msg, msglen, "%s", text);
    return 0;
}

static int already_taken(const struct result *res, const char *file, int ln, const char *msg)
{
    for (int i = 0; i < res->ndiags; i++)
        if (res->diags[i].line == ln && !strcmp(res->diags[i].severity, "warning") &&
            !strcmp(res->diags[i].file, file) && !strcmp(res->diags[i].message, msg))
            return 1;
    return 0;
}

void check_warnings(struct result *res, const char *log, const char *src)
{
    int taken = 0, more = 0;
    for (const char *line = log; line && *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char buf[1024], file[512], msg[1024];
        int ln;
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        line += len + (eol ? 1 : 0);
        /* nvcc's front end runs once for the host and once per GPU
         * architecture and says each warning each time. */
        if (parse_warning(buf, file, sizeof file, &ln, msg, sizeof msg) || !is_student_file(file, src) ||
            already_taken(res, file, ln, msg))
            continue;
        if (taken < CHECK_WARNINGS_SHOWN) {
            result_add_diag(res, file, ln, "warning", msg);
            taken++;
        } else {
            more++;
        }
    }
    if (more)
        result_add_message(res, "nvcc gave %d more warning%s about %s (the compile log has them all)", more,
                           more == 1 ? "" : "s", src);
}
