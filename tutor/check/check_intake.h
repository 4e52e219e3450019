/* check_intake.h — the grader's intake rules (model/intake_rule.h) applied
 * by a check before it reads or builds the student's file, so that what the
 * grader would refuse is refused here first, in the grader's words. */
#ifndef CHECK_INTAKE_H
#define CHECK_INTAKE_H

struct check_state;

/* Judges r's source, named file in the report, by the intake rules with
 * the grader's default size limit.  0 when the grader would take it in,
 * or when nothing is there at all (the check says so itself); 1 when it
 * would refuse it: the status is then "refused" and the one message the
 * grader's sentence ("labs/01-x/kernel.cu is 6291456 bytes (the limit is
 * 256 KiB)"); -1 when out of memory. */
int check_intake(struct check_state *r, const char *file);

#endif /* CHECK_INTAKE_H */
