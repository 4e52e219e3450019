/* sheet.h — the tutor's generated pages as styled documents: the results
 * of a check, a lab's hints, and the chart of the student's own ladder.
 * Pure functions of their inputs, so each page can be tested without a
 * terminal and drawn by any front end. */
#ifndef SHEET_H
#define SHEET_H

#include "model/catalog.h"
#include "view/doc.h"
#include "model/progress.h"
#include "model/result.h"

/* The results screen of one check.  src is the text of the checked file
 * (r->file), or NULL: compile diagnostics in that file then quote their
 * line.  lab: the lab checked (the offer of a fail's picture,
 * result_picture), or NULL. */
void sheet_result(struct doc *d, const struct result *r, const struct lab *lab, const char *src, int width);

/* Whether two names of a file agree: equal, or one is the other with more
 * leading folders (nvcc names files as given; verdicts relative to the root). */
int sheet_same_file(const char *a, const char *b);

/* Hints 1..shown of the lab, the last one marked new when fresh (just
 * spent, not shown again). */
void sheet_hints(struct doc *d, const struct lab *lab, int shown, int fresh, int width);

/* Per lab a bar of the best GB/s against the measured peak, with the
 * reference (CUB) marked, then the ladder as a table with step and total
 * speed-ups, like the seed's table, from the student's own runs. */
void sheet_chart(struct doc *d, const struct catalog *cat, const struct progress *p, int width);

#endif /* SHEET_H */
