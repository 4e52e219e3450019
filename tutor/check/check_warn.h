/* check_warn.h — the compiler's warnings about the student's file, for the
 * verdict to show beside it (check_warn.c). */
#ifndef CHECK_WARN_H
#define CHECK_WARN_H

struct result;

/* How many distinct warnings a result keeps; the rest are counted. */
#define CHECK_WARNINGS_SHOWN 5

/* Adds to res, as diagnostics of severity "warning", the first
 * CHECK_WARNINGS_SHOWN distinct warnings of a compile's log that name the
 * file src with a line (nvcc's "FILE(LINE): warning #N-D: TEXT", kept as
 * "#N-D TEXT", and the host compiler's "FILE:LINE:COL: warning: TEXT");
 * a warning said again (nvcc says each once per pass) is taken once.
 * When there are more, one message counts them. */
void check_warnings(struct result *res, const char *log, const char *src);

#endif /* CHECK_WARN_H */
