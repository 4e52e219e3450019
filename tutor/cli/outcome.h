/* outcome.h — what a command ends with, said once: an error goes to stderr
 * as "cudatutor CMD: message", and with --json every outcome is also one
 * JSON object on stdout, so that a script reads an answer whatever
 * happened: the command's own object, or {"command", "error", "exit"} when
 * it ended without one (a usage error, a lab that does not exist, no GPU). */
#ifndef OUTCOME_H
#define OUTCOME_H

#include <cjson/cJSON.h>

#include "view/doc.h"

/* Whether the command line asked for JSON (--json). */
void outcome_json(int on);

/* Says on stderr why the command fails, as "cudatutor CMD: message"
 * ("cudatutor: message" when cmd is NULL); the first one said is the error
 * outcome_end reports. */
void outcome_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints a command's JSON answer on stdout and frees it; returns EXIT_OK,
 * or EXIT_INTERNAL when it could not be printed. */
int outcome_put(cJSON *o);

/* Prints JSON text the command made itself (a check's verdict) on stdout. */
void outcome_put_text(const char *text);

/* The end of the command, with its exit code: the pager (outcome_page)
 * given the last of stdout and waited for; under --json, when the
 * command failed (rc != 0) and printed no JSON, the error object.  Returns rc. */
int outcome_end(int rc);

/* When stdout is a terminal and the command line did not ask for JSON:
 * stdout goes to a pager from now on ($PAGER; else less, which quits at
 * once when it all fits one screen), until outcome_end, which waits for it.
 * Piped or redirected, nothing changes. */
void outcome_page(void);

/* How many columns a line printed on stdout may take: $COLUMNS when it is
 * set, else the terminal's width, else (a pipe, a file) 80. */
int outcome_width(void);

/* Prints a document on stdout: as it is where the locale is UTF-8, with
 * ASCII stand-ins elsewhere (view/doc.h). */
void outcome_print_doc(struct doc *d);

#endif /* OUTCOME_H */
