/* grade_report.h — the grader's reports as files: a student folder
 * scored into its three reports, the class's reports over every student
 * folder, and the exit status over them.  Every file is written through a
 * temporary and a rename (util_write_file): a reader, a merge or an
 * interrupted grader sees an old report or a new one, never half of one. */
#ifndef GRADE_REPORT_H
#define GRADE_REPORT_H

#include <stddef.h>

#include "model/catalog.h"
#include "model/rubric.h"

/* Scores the student folder dir as student: reads dir/intake.json and
 * dir/labs/NN.json (a lab's check report, for each lab intake took in),
 * writes dir/report.json, dir/results.json and dir/junit.xml.  sandbox and
 * graded_at (UTC, 2024-05-01T12:00:00Z) are recorded in the report; a
 * NULL sandbox keeps the one dir/report.json recorded ("none" without one),
 * as --rescore does.
 * Returns 0, or -1 with one line in err (no intake.json, a write failed). */
int grade_report_student(const char *dir, const char *student, const struct rubric *rb,
                         const struct catalog *cat, const char *sandbox, const char *graded_at,
                         char *err, size_t errlen);

/* The class's reports in out: out/grades.csv, out/junit.xml and
 * out/summary.txt over every out/students/ID/report.json (folders whose
 * name starts with '.' are a student being written, and skipped).  With no
 * student, grades.csv is empty and nothing else is written.  *nstudents
 * gets how many there were, *exit_status the grader's exit code over them
 * (score_exit_status: 0, 3 or 4).  Returns 0, or -1 with one line in err
 * (a report that does not parse names its path). */
int grade_report_class(const char *out, int *nstudents, int *exit_status, char *err, size_t errlen);

#endif /* GRADE_REPORT_H */
