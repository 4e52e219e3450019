/* rubric.h — data/rubric.json, how the grader turns a lab's verdict into
 * points (docs/instructor-guide.md explains every key): the points of each
 * lab, the performance credit's slope, the credit of a fail, the penalty of
 * a rejection, the statuses that are not graded, and how Gradescope shows
 * the results.  Loaded and validated once, each rule with the sentence
 * that names the field and the value it refuses; the scoring (model/score.h) and the reports read it from here. */
#ifndef RUBRIC_H
#define RUBRIC_H

#include <stddef.h>

#include "status.h"

#define RUBRIC_SCHEMA 1

struct rubric_points {
    double correctness, performance;
};

struct rubric_lab {
    char *id;                   /* the key in labs: "01" */
    struct rubric_points points;
};

struct rubric {
    struct rubric_lab *labs;    /* in the file's order */
    int nlabs;
    int have_default;
    struct rubric_points fallback;      /* "default": a lab not in labs */
    double partial_from;        /* performance.partial_from, 0.5 when absent */
    double fail_credit;         /* 0 when absent */
    double rejected_penalty;    /* 0 when absent */
    int not_graded[STATUS_COUNT];       /* 1: no score; default no_gpu and internal_error */
    char *visibility;           /* gradescope.visibility, "visible" when absent */
    char *stdout_visibility;    /* gradescope.stdout_visibility, "hidden" when absent */
    char sha256[17];            /* the file's first 16 hex digits (sha256sum | cut -c1-16) */
};

/* Parses and validates rubric text; name is how messages call the file
 * (its path).  On error returns -1 and writes one line into err, the
 * message that names the field: "NAME: fail_credit must be between 0 and 1",
 * "NAME is not valid JSON: ...".  The hash is of text as given. */
int rubric_parse(struct rubric *rb, const char *text, size_t len, const char *name, char *err, size_t errlen);

/* Reads and parses a file; a file that cannot be read is "no rubric at PATH". */
int rubric_load(struct rubric *rb, const char *path, char *err, size_t errlen);

void rubric_free(struct rubric *rb);

/* A lab's points: its entry in labs, else the default; NULL when neither. */
const struct rubric_points *rubric_points(const struct rubric *rb, const char *lab);

/* Every lab of ids[0..n) has points; else -1 with "NAME has no points for
 * lab 07 (and no default)" in err. */
int rubric_check_labs(const struct rubric *rb, const char *name, const char *const *ids, int n,
                      char *err, size_t errlen);

#endif /* RUBRIC_H */
