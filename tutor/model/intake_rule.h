/* intake_rule.h — what a lab's kernel.cu must be for the grader to take it
 * in, and the sentence that says why one is not: a regular file (not a
 * link, a folder, a FIFO or a device), at most INTAKE_RULE_MAX_KB KiB
 * (the grader's --max-file-kb), and text: UTF-8 without a NUL byte.  The
 * grader's intake (grade/intake.c) and the tutor's check (check/check_intake.c)
 * both judge with it, so a student meets a rule, in the grader's words,
 * before submitting.  Each sentence names the file as the student knows it. */
#ifndef INTAKE_RULE_H
#define INTAKE_RULE_H

#include <stddef.h>

/* The largest kernel.cu taken, in KiB, unless --max-file-kb says otherwise. */
#define INTAKE_RULE_MAX_KB 256

/* The sentences (heap; NULL when out of memory).  name is the file's path
 * as the student knows it; upto, in intake_rule_symlink, how much of name
 * leads to the link (a folder on the way may be the link). */
char *intake_rule_not_regular(const char *name);
char *intake_rule_symlink(const char *name, size_t upto);
char *intake_rule_link(const char *name);
char *intake_rule_too_big(const char *name, long long bytes, int max_kb);
char *intake_rule_grew(const char *name, int max_kb);

/* The text rule over the len bytes of data: 0 when they are UTF-8 without
 * a NUL byte; 1 with *why ("NAME is not text: line 3 holds a NUL byte",
 * "NAME is not UTF-8 text: line 7 holds the byte 0xe9", the first such
 * line); -1 when out of memory. */
int intake_rule_text(const char *name, const char *data, size_t len, char **why);

/* Reads the file at path, relative to the folder open as dirfd (or
 * AT_FDCWD), as intake does: never following a link at path itself,
 * refusing what is not a regular file before it is opened and after (a
 * file swapped meanwhile), at most max_kb KiB + 1 bytes read, then the
 * text rule.  0 with *data (heap, NUL-terminated, *len bytes; data may be
 * NULL when only the verdict is wanted); 1 with *why when refused, the
 * size read in *len; -1 when out of memory.  A path that is not there at
 * all is refused as not a regular file (intake looks before it reads). */
int intake_rule_read(int dirfd, const char *path, const char *name, int max_kb, char **data, size_t *len,
                     char **why);

#endif /* INTAKE_RULE_H */
