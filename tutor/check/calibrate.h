/* calibrate.h — the targets scaled to the student's GPU, as grade.sh scales
 * a grader's.  The catalog's thresholds were set at 80% of what the
 * reference solutions measured on one GPU (targets_gpu, docs/ladder.md), and
 * a ratio to CUB does not carry over to every GPU: on an H200 the solutions
 * of the early labs fall short of their own targets.  So the solutions are
 * checked once on each GPU model, and a lab whose solution measures more
 * than 5% under its catalog figure has its threshold lowered in proportion;
 * a threshold is never raised.
 *
 * The figures are kept in calibration.json beside progress.json, one entry
 * per GPU model, valid while the catalog's targets stay as they were (a
 * hash of them is kept with the entry).  The file is one of
 * sys/jsonfile.h's, as progress.json is: changes under an exclusive
 * flock(2) on PATH.lock to the file as re-read under it, written through a
 * temporary and a rename; a file that does not parse is moved aside
 * (PATH.corrupt-TIME) and reported, never overwritten; a newer schema is
 * refused and left alone.  Its mode bits are not consulted (progress.json's
 * are): a rewrite replaces it whatever they say.  No curses, no printing:
 * callers report what the callbacks and notes tell them. */
#ifndef CALIBRATE_H
#define CALIBRATE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "model/catalog.h"
#include "check/check.h"
#include "sys/jsonfile.h"
#include "sys/toolchain.h"

#define CALIBRATE_SCHEMA 1
/* A solution measuring at least this share of its catalog figure leaves
 * the threshold as it is: run-to-run noise is not a slower GPU. */
#define CALIBRATE_SLACK 0.95

/* Return codes of calibrate_parse, calibrate_load and calibrate_store:
 * jsonfile.h's, which they pass on. */
enum {
    CALIBRATE_OK = JSONFILE_OK,
    CALIBRATE_ERROR = JSONFILE_ERROR,   /* not a calibration, or cannot read, lock or write (message in err) */
    CALIBRATE_NEWER = JSONFILE_NEWER    /* a newer schema: refused, file untouched */
};

/* What calibrate_prepare found for the check it precedes. */
enum calibrate_outcome {
    CALIBRATE_NONE,             /* no GPU named, or no device answered: the catalog's targets */
    CALIBRATE_UNREADABLE,       /* calibration.json cannot be used (said why): the catalog's */
    CALIBRATE_CACHED,           /* this GPU model's entry, as cached */
    CALIBRATE_MEASURED          /* measured just now */
};

/* One lab on one GPU model. */
struct calibrate_lab {
    char id[8];
    char metric[16];
    char case_label[32];
    double catalog_min;
    double catalog_solution;    /* 0: the catalog records none */
    int runs, passed;           /* checks of the solution */
    double solution_here;       /* the lowest figure of its runs; < 0: none */
    double min;                 /* the threshold to judge by here */
    int lowered;
    char why[160];              /* why the catalog's threshold stands untested; "" otherwise */
    /* A target of several cases is scaled as one, by the case where its
     * solution falls furthest short of the catalog's figure: that case
     * when it is not the first ("" when it is), with its two figures. */
    char bound_case[32];
    double bound_here, bound_solution;
};

/* One GPU model's entry. */
struct calibrate_gpu {
    char name[96];              /* as nvidia-smi names it */
    char catalog[24];           /* calibrate_catalog_hash when measured */
    char measured[32];          /* ISO 8601 UTC */
    double seconds;             /* how long measuring took */
    int nruns;                  /* how many checks that was */
    struct calibrate_lab *labs;
    int nlabs;
};

/* The whole file. */
struct calibration {
    struct calibrate_gpu *gpus;
    int ngpus;
};

/* ---- the rule ----------------------------------------------------------- */

/* The threshold to judge a lab by where its reference solution measures
 * solution_here, given the catalog's threshold and the figure the solution
 * measured when it was set: catalog_min × solution_here / catalog_solution,
 * rounded down to 3 significant digits, when solution_here is under
 * CALIBRATE_SLACK × catalog_solution; else catalog_min.  *lowered (if not
 * NULL) says which.  grade.sh's CALIBRATE_JQ computes the same. */
double calibrate_threshold(double catalog_min, double catalog_solution, double solution_here, int *lowered);

/* Fills l for a lab from its runs: `passed` of `runs` passed, the lowest
 * figure among them, and the statuses of those that did not pass ("fail,
 * timeout"), then applies the rule, or says why the catalog's threshold
 * stands (no figure in the catalog, a solution that did not pass). */
void calibrate_judge(struct calibrate_lab *l, const struct lab *lab, int runs, int passed, double lowest,
                     const char *statuses);
/* The same for a target of several cases: lowest[0] is the first case's
 * lowest figure, lowest[1 + k] that of target.also[k] (< 0: none).  The
 * case whose lowest figure is the smallest share of its catalog figure
 * lowers the threshold (calibrate_threshold with that case's figures);
 * check.c lowers the others in the same proportion. */
void calibrate_judge_cases(struct calibrate_lab *l, const struct lab *lab, int runs, int passed,
                           const double *lowest, const char *statuses);

/* FNV-1a over every lab's id, metric, case, threshold and solution figure
 * (and those of a target's further cases): an entry measured against other
 * targets is not used.  16 hex digits. */
void calibrate_catalog_hash(const struct catalog *cat, char *buf, size_t len);

/* ---- the file ----------------------------------------------------------- */

/* calibration.json in the folder of progress.json (progress_path's choice:
 * flag, $CUDATUTOR_PROGRESS, or the workbook).  Heap; NULL: out of memory. */
char *calibrate_path(const char *root, const char *progress_flag);

void calibrate_free(struct calibration *c);
void calibrate_gpu_free(struct calibrate_gpu *g);
/* A deep copy; -1 when out of memory (dst is then empty). */
int calibrate_gpu_copy(struct calibrate_gpu *dst, const struct calibrate_gpu *src);

/* Parses the file's text.  Returns CALIBRATE_OK, CALIBRATE_NEWER, or
 * CALIBRATE_ERROR with a reason in err when the text is not a calibration
 * file. */
int calibrate_parse(struct calibration *c, const char *text, char *err, size_t errlen);
/* The JSON text of c (heap; NULL when out of memory). */
char *calibrate_format(const struct calibration *c);
/* One GPU's entry as JSON, its name included (NULL when out of memory). */
cJSON *calibrate_gpu_json(const struct calibrate_gpu *g);

/* Reads path into c; a missing file is an empty calibration.  A corrupt one
 * is moved aside under the lock, c is empty, and note says where it went
 * (note is "" otherwise).  Returns as calibrate_parse, with a message in err. */
int calibrate_load(const char *path, struct calibration *c, char *note, size_t notelen, char *err, size_t errlen);

/* Puts g in the file in place of any entry of its GPU model, under the lock,
 * keeping the other models' entries.  Returns as calibrate_load. */
int calibrate_store(const char *path, const struct calibrate_gpu *g, char *note, size_t notelen, char *err,
                    size_t errlen);

/* The entry of GPU model `name` measured against catalog hash `hash`, or NULL. */
const struct calibrate_gpu *calibrate_find(const struct calibration *c, const char *name, const char *hash);
/* A lab's record in an entry, or NULL. */
const struct calibrate_lab *calibrate_lab(const struct calibrate_gpu *g, const char *id);

/* ---- measuring ---------------------------------------------------------- */

/* A line for the user ("calibrating the targets for ..."). */
typedef void (*calibrate_say_fn)(void *ud, const char *line);

/* What a front end asks for. */
struct calibrate_req {
    const struct toolchain *tc;
    const struct catalog *cat;
    const char *path;                   /* calibration.json */
    const struct check_opts *base;      /* the check it precedes (its --wrap, time limits,
                                           budget and GPU lock carry over); NULL: defaults */
    int force;                          /* measure even when an entry is cached */
    calibrate_say_fn say;
    /* Stage "calibrate", run i of n, and a detail naming the lab and the
     * stage of its check. */
    check_progress_fn progress;
    void *ud;
};

/* The model of the GPU the checks will use, from nvidia-smi: the first one
 * CUDA_VISIBLE_DEVICES names, else GPU 0.  Returns 0, or -1 when there is
 * no nvidia-smi or it names none (buf is then ""). */
int calibrate_gpu_name(char *buf, size_t len);

/* The model of one GPU as nvidia-smi names it: sel is its index or UUID
 * as CUDA_VISIBLE_DEVICES spells it ("" or NULL: the first GPU).  A
 * grader names each of its GPUs so, from threads that share one
 * environment.  Returns as calibrate_gpu_name. */
int calibrate_gpu_name_of(const char *sel, char *buf, size_t len);

/* Checks each lab's reference solution (solutions/NN-slug/kernel.cu) with a
 * fixed seed, --quick, no sanitizer, through check_run.  Labs whose catalog records no solution figure are not run.
 * Fills out for GPU model `gpu`.  Returns 0; 1 when the checks found no
 * CUDA device, or ran on another GPU model than `gpu` (a line through
 * q->say tells which; out is then empty); -1 with err when the workbook
 * itself is broken. */
int calibrate_measure(const struct calibrate_req *q, const char *gpu, struct calibrate_gpu *out, char *err,
                      size_t errlen);

/* What a check does first: names the GPU, and returns its cached entry, or
 * (when there is none for this model and catalog, or q->force) measures
 * one, telling the user through q->say what it is about to do, and caches
 * it.  Another process measuring the same file is waited for, then its
 * entry used.  Without a GPU nothing is measured or cached.  Returns an
 * outcome, with out filled for CALIBRATE_CACHED and CALIBRATE_MEASURED
 * (calibrate_report sums a fresh one up); -1 with err when the workbook
 * itself is broken. */
int calibrate_prepare(const struct calibrate_req *q, struct calibrate_gpu *out, char *err, size_t errlen);

/* ---- using it ----------------------------------------------------------- */

/* Sets o->target_min to the lab's lowered threshold, unless one is given. */
void calibrate_apply(struct check_opts *o, const struct calibrate_gpu *g, const struct lab *lab);

/* Adds target.calibration to a check's report when the check was judged by
 * g's threshold for its lab: the GPU, the solution's figure here and in the
 * catalog, the catalog's GPU, and whether the threshold was lowered. */
void calibrate_annotate(struct result *report, const struct calibrate_gpu *g, const struct catalog *cat);

/* One lab's line: "01  ratio at 2^28: its solution 0.109 here, 0.159 in the
 * catalog; threshold 0.12 -> 0.0822". */
void calibrate_lab_line(const struct calibrate_lab *l, char *buf, size_t len);

/* The lines that sum an entry up, through say: which thresholds were
 * lowered ("no threshold lowered" when none), and each lab whose catalog
 * threshold stands untested, with why. */
void calibrate_report(const struct calibrate_gpu *g, calibrate_say_fn say, void *ud);

#endif /* CALIBRATE_H */
