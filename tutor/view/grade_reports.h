/* grade_reports.h — every report the grader writes, each a function over scored
 * students (model/score.h): the student's report.json, Gradescope's
 * results.json, JUnit XML (one student's, or the class's), grades.csv and
 * the summary table.  A status is named and worded only through status.h's
 * table (status_name, status_meaning, status_letter); the summary's legend
 * is built from it.  Each returns a fresh string ending in a newline, the
 * same bytes for the same input (tests/grade/golden/ holds them), or NULL
 * when out of memory.  Nothing here writes a file:
 * tutor/grade/grade_report.h does. */
#ifndef GRADE_REPORTS_H
#define GRADE_REPORTS_H

#include "model/rubric.h"
#include "model/score.h"

/* How a lab reads in JUnit: one function, so that a status's kind is
 * decided in one place.  A pass passes; a graded non-pass is a failure; a
 * lab not graded is an error when its status is the grader's own failure
 * (internal_error), else skipped. */
enum report_junit_kind {
    REPORT_JUNIT_PASS,
    REPORT_JUNIT_FAILURE,
    REPORT_JUNIT_ERROR,
    REPORT_JUNIT_SKIPPED
};
enum report_junit_kind report_junit_kind(const struct score_lab *l);

/* report.json: the struct's fields in score.h's order. */
char *report_json(const struct score_report *r);

/* Gradescope's results.json (their autograder's documented fields: score,
 * execution_time, output, visibility, stdout_visibility, tests[] with
 * name, number, score, max_score, status, output, tags, visibility,
 * extra_data); visibility from the rubric.  A lab not graded carries no
 * score, max_score or status, so Gradescope does not count it. */
char *report_gradescope(const struct score_report *r, const struct rubric *rb);

/* JUnit XML: <testsuites> with one <testsuite> per student in reps' order
 * (n = 1 for a student's own junit.xml), one <testcase> per lab; text
 * without the control characters XML forbids, and &<>'" escaped. */
char *report_junit(const struct score_report *reps, int n);

/* grades.csv: a header row (student, submission, score, max_score,
 * graded_max_score, labs_not_graded, provisional: the labs judged on the
 * CPU only, "01 02", each lab's score, each lab's status_NN, refused), then a row per student sorted by id; strings
 * quoted, numbers bare, an empty cell for a lab not graded; a string a
 * spreadsheet would read as a formula (a submission named "=1+1") behind a
 * single quote (csv.h).  The labs are every lab id any student has,
 * sorted. */
char *report_csv(const struct score_report *reps, int n);

/* summary.txt: a line per student sorted by id, a letter per lab (its
 * status's letter; a pass that missed its target in lower case; a '*'
 * after it when the lab was judged on the CPU only), the
 * legend built from status.h's table, and the class's mean; a student
 * cell that a spreadsheet would read as a formula behind a single quote,
 * as in grades.csv. */
char *report_summary(const struct score_report *reps, int n);

#endif /* GRADE_REPORTS_H */
