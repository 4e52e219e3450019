/* score.h — one student's grade, the one verdict model every report is
 * drawn from: what intake took in (intake.json), each lab's check report
 * (read through model/result.h), the rubric and the catalog in; a struct
 * with each lab's status, points, target and the text a student reads out.
 * Each number is computed in one fixed order of double operations, so the
 * same inputs give the same bytes on any machine; a status is worded only
 * as status.h words it.  Also the struct read back
 * from a report.json, for the class reports, and the grader's exit status
 * over a class. */
#ifndef SCORE_H
#define SCORE_H

#include <stddef.h>

#include "model/catalog.h"
#include "model/result.h"
#include "model/rubric.h"

/* One lab as intake.json records it (tutor/grade/intake.h writes it and
 * reads it back; the grade layer hands scoring this view of it):
 * {"state": "ok", "from": "labs/01-x/kernel.cu", "bytes": 812, "why": null}. */
struct score_intake_lab {
    char *lab;                  /* the key: "01" */
    char *state;                /* "ok", or an intake status's name: missing, unchanged, refused */
    char *from;                 /* the archive member or file taken; NULL: none */
    double bytes;
    char *why;                  /* why it was not taken; NULL: it was */
};

/* intake.json: {"submission", "kind", "refused", "labs": {"01": {...}}}. */
struct score_intake {
    char *submission;           /* the file or folder name handed in; NULL: null */
    char *kind;                 /* "folder", "tar.gz", "tar", "zip"; NULL: not one of them */
    char *refused;              /* why the whole submission was refused; NULL: it was not */
    struct score_intake_lab *labs;      /* sorted by lab id, bytewise */
    int nlabs;
};


/* One lab of a student's report (report.json's labs[], in its order). */
struct score_lab {
    char *lab, *title;
    enum status status;         /* intake's state when it is not ok, else the check's */
    int graded;                 /* 0: the rubric's not_graded: no score, not in graded_max_score;
                                   a lab the CPU tier judged is graded, whatever its status */
    int provisional;            /* judged on the CPU tier (the PTX emulator, no GPU): the GPU's
                                   verdict is final, this one stands until a GPU grades the lab */
    double score;               /* graded only; rounded to 2 places */
    double max_score;
    double correctness, correctness_max;        /* correctness: graded only */
    double performance, performance_max;        /* performance: graded only */
    char *performance_why;      /* how the performance points came about; NULL: null */
    char *target_json;          /* the check's target object as it wrote it; NULL: null */
    int target_met;             /* target.met is true (the summary table's p against P) */
    int tests_passed, tests_total;      /* correctness sizes (tests named n=...) */
    int have_seed;
    double seed;                /* the run's seed (below 2^48, exact in a double) */
    int have_seconds;
    double seconds;             /* the check's timing.total_s */
    char *summary;              /* one line, the grader's paths removed */
    struct score_intake_lab intake;
    char *text;                 /* the lines a student reads, the grader's paths removed */
};

/* report.json. */
struct score_report {
    char *student;
    char *submission;           /* NULL: null */
    double score;               /* the graded labs' scores less the rejected penalty, never below 0 */
    double max_score;           /* every lab */
    double graded_max_score;    /* the graded labs only */
    int labs_not_graded;
    int labs_provisional;       /* labs judged on the CPU tier only */
    int complete;               /* every lab graded */
    char *refused;              /* NULL: null */
    struct score_lab *labs;
    int nlabs;
    char *rubric_sha256, *sandbox, *graded_at;  /* grader: {...} */
};

/* Scores one student: in's labs in their order; reports[i] is the check
 * report of in->labs[i] when the lab was taken in and ran, else NULL (a lab
 * taken in without one is an internal_error).  cat names the labs (title);
 * sandbox and graded_at are recorded as given.  Returns 0, or -1 when out
 * of memory or a lab has no points in the rubric (err says which); on
 * error out holds nothing that needs freeing. */
int score_student(struct score_report *out, const char *student, const struct score_intake *in,
                  const struct result *const *reports, const struct rubric *rb, const struct catalog *cat,
                  const char *sandbox, const char *graded_at, char *err, size_t errlen);

/* Reads a report.json back (what the class reports and --rescore start
 * from).  Returns 0, or -1 with a one-line message in err. */
int score_report_parse(struct score_report *r, const char *json, char *err, size_t errlen);

void score_report_free(struct score_report *r);

/* The grader's exit status over a class: 4 (EXIT_INTERNAL) when some lab's
 * status exits 4, 3 when some lab's exits 3 (no_gpu) and it was not
 * graded, else 0: the highest exit code above 1 of status.h's table (a
 * wrong kernel is graded, not an error of the grader, and so is a kernel
 * the CPU tier could not run). */
int score_exit_status(const struct score_report *reps, int n);

/* x rounded to two places: round(x * 100) / 100, halves away from zero. */
double score_r2(double x);

/* s without the grader's work paths: every "…/work/ID/wb/" (a run of
 * non-space, non-':' non-'"' characters, then /work/, one folder, /wb/)
 * removed, so a student sees labs/01-x/kernel.cu:7: and not the
 * instructor's folders.  A fresh string; NULL when out of memory. */
char *score_clean(const char *s);

#endif /* SCORE_H */
