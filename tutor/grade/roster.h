/* roster.h — who a submission belongs to: the student id derived from a
 * folder or archive name, and the instructor's roster CSV (--roster) that
 * maps submission names to ids (docs/instructor-guide.md, "Student ids",
 * is the rule). */
#ifndef ROSTER_H
#define ROSTER_H

#include <stddef.h>

/* A derived id is at most this many bytes, plus the NUL. */
#define ROSTER_ID_MAX 100

struct roster_entry {
    char *submission;           /* a submission's name (folder or archive) or its stem */
    char *student;              /* the id as the roster spells it (not yet derived) */
};

struct roster {
    struct roster_entry *entries;   /* in file order; a later row for the same
                                     * submission wins */
    int n;
};

/* A student id from a folder or archive name, safe as one path component:
 * one extension .tar.gz, .tgz, .tar or .zip dropped (any case), every byte
 * outside A-Za-z0-9._@+- turned into '_' (so "é" is "__"), leading '.' and
 * '-' dropped, cut to ROSTER_ID_MAX bytes, "student" when nothing is left.
 * "../x.tar.gz" -> "_x", ".hidden" -> "hidden", "Bob Smith.ZIP" ->
 * "Bob_Smith".  Writes into out (len > ROSTER_ID_MAX always fits); returns
 * 0, or -1 when it did not fit (out then holds a cut id, still safe). */
int roster_derive_id(const char *name, char *out, size_t len);

/* Parses a roster: a header row naming a submission column (submission,
 * file, folder or archive: the last of these wins) and an id column
 * (student_id, studentid, student, id or sid: the first wins), case and
 * spaces ignored, other columns ignored; then one row per student, rows
 * with either cell empty skipped.  name is how errors call the file.
 * Returns 0, or -1 with the sentence in err:
 *   "NAME needs a header row with the columns submission and student_id"
 *   "NAME: line 3: a quoted field is not closed" (csv.h's reasons). */
int roster_parse(struct roster *r, const char *text, size_t len, const char *name,
                 char *err, size_t errlen);

/* Reads and parses path; one more error: "cannot read the roster PATH". */
int roster_load(struct roster *r, const char *path, char *err, size_t errlen);

void roster_free(struct roster *r);

/* The roster's student for a submission name, looked up by the name as
 * given ("bob.tar.gz"), then by its derived stem ("bob"); NULL when the
 * roster has neither.  The result is the roster's spelling: pass it
 * through roster_derive_id before using it as a path. */
const char *roster_lookup(const struct roster *r, const char *name);

/* The id a submission is graded as: the roster's entry derived when there
 * is one (returns 1), else the name's own derived id (returns 0; the grader
 * then warns "NAME is not in the roster: graded as ID" when a roster was
 * given).  r may be NULL (no roster).  out as for roster_derive_id; -1
 * when it did not fit. */
int roster_student_id(const struct roster *r, const char *name, char *out, size_t len);

#endif /* ROSTER_H */
