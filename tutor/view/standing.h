/* standing.h — the student's standing from progress: the count of labs
 * passed, each lab's best result in words, and the page the tutor shows on
 * its progress key.  `cudatutor progress` prints the same count and results,
 * so the command and the screen say the same thing in the same words; and
 * what one check changed, worded once for the command and the tutor. */
#ifndef STANDING_H
#define STANDING_H

#include <stddef.h>

#include "model/catalog.h"
#include "model/progress.h"
#include "view/doc.h"

/* "PATH: 3 of 10 labs passed" (the core labs), then "; bonus: 0 of 5" when
 * the catalog has bonus labs, into buf. */
void standing_summary(const struct catalog *cat, const struct progress *p, int unlock_all, const char *path,
                      char *buf, size_t len);

/* A lab's best timed pass in words ("475 GB/s, 0.93x ref", or a rate for
 * labs timed in other units), or "-" before one. */
void standing_best(const struct progress_lab *pl, char *buf, size_t len);

/* What a check changed, in the words every front end prints (the CLI
 * after "progress: ", the tutor on its status line): "Lab 01 passed.",
 * "Lab 01 passed and on target.", then "  Lab 02 is open." or "  Labs 09
 * and 11 to 15 (bonus) are open."; "" when nothing changed. */
void standing_change(const struct catalog *cat, const struct progress_change *c, char *buf, size_t len);

/* The progress page: the summary, then per lab its state, checks, hints
 * used, best result and last verdict (and the date of the first pass where
 * the width allows), then the hints in all.  Fits width columns. */
void standing_page(struct doc *d, const struct catalog *cat, const struct progress *p, int unlock_all,
                   const char *path, int width);

#endif /* STANDING_H */
