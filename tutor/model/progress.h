/* progress.h — the student's progress.json: what each lab's checks achieved
 * (attempts, first pass, best timing, last verdict, hints used, GPU), and
 * the rule that opens a lab once the lab before it (or the one its catalog
 * entry names in "opens_after") has passed.
 *
 * Safety, since two tutors (a TUI and a `check` in another terminal) may
 * write at once: the file is one of sys/jsonfile.h's, every change a
 * function applied under an exclusive flock(2) on PATH.lock to the file as
 * re-read under that lock, then written to a temporary in the same folder,
 * fsynced and renamed over PATH.  A file that does not parse is never
 * overwritten: it is renamed to PATH.corrupt-<time> and reported.  A file
 * of a newer schema is refused and left alone, and so is one whose mode
 * bits deny writing.  No curses, no printing: callers decide how to report. */
#ifndef PROGRESS_H
#define PROGRESS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "model/catalog.h"
#include "model/result.h"
#include "sys/jsonfile.h"

#define PROGRESS_SCHEMA 1

/* What a lab shows in the menu: stored achievements plus the lock rule. */
#define LAB_STATE_TABLE(X)                                        \
    X(LAB_LOCKED,    "locked",    "locked")                       \
    X(LAB_OPEN,      "open",      "open")                         \
    X(LAB_PASSED,    "passed",    "passed")                       \
    X(LAB_ON_TARGET, "on_target", "on target")

enum lab_state {
#define LAB_STATE_ENUM_(e, json, label) e,
    LAB_STATE_TABLE(LAB_STATE_ENUM_)
#undef LAB_STATE_ENUM_
    LAB_STATE_COUNT
};

/* Return codes of progress_parse, progress_load and progress_update:
 * jsonfile.h's, which they pass on. */
enum {
    PROGRESS_OK = JSONFILE_OK,
    PROGRESS_ERROR = JSONFILE_ERROR,    /* not progress, or cannot read, lock or write (message in err) */
    PROGRESS_NEWER = JSONFILE_NEWER     /* a newer schema: refused, file untouched */
};

/* The best timed pass, on the target's case (GB/s and % of peak are < 0 for
 * compute-bound families, which report a rate instead). */
struct progress_best {
    int have;
    char case_label[32];
    unsigned long long n;
    double ms, gbps, pct_peak, ratio, rate;
    char rate_unit[24];
    double peak_gbps;           /* the device's measured read bandwidth in that run */
    double ref_gbps;            /* the reference (CUB) on the same data */
    char ref_name[48];
};

struct progress_lab {
    char id[8];
    int passed, on_target;      /* ever: a later failure does not undo a pass */
    int cpu_only;               /* passed, but only on the CPU emulator so far ("passed_on": "cpu"):
                                 * it opens the next lab; a GPU pass adds the timing */
    int attempts;
    char first_pass[32];        /* ISO 8601 UTC; "" before the first pass */
    struct progress_best best;
    char last_status[24];       /* "" before the first check */
    char last_summary[256];
    char last_time[32];
    int hints_used;
    char gpu[96];               /* the device of the last check that had one */
};

struct progress {
    struct progress_lab *labs;
    int nlabs;
    size_t cap;
};

/* The file to use: flag if given, else $CUDATUTOR_PROGRESS, else
 * ROOT/progress.json.  Heap string; NULL when out of memory. */
char *progress_path(const char *root, const char *flag);

void progress_init(struct progress *p);
void progress_free(struct progress *p);

/* Parses progress JSON.  Returns PROGRESS_OK, PROGRESS_NEWER, or
 * PROGRESS_ERROR when the text is not a progress file (truncated, not an
 * object, no schema); a reason goes into err. */
int progress_parse(struct progress *p, const char *text, char *err, size_t errlen);

/* The JSON text of p (heap; NULL when out of memory). */
char *progress_format(const struct progress *p);

/* `progress --json`'s object: the file's members, every lab of cat present
 * (a lab without a record as a fresh one reads) with its state as shown
 * (unlock_all as the front end was told).  NULL when out of memory; free
 * it with cJSON_Delete. */
cJSON *progress_view(const struct progress *p, const struct catalog *cat, int unlock_all);

/* Reads path into p.  A missing file is empty progress.  A corrupt one is
 * moved aside under the lock and p is empty; note then says where it went
 * (note is "" otherwise).  Returns PROGRESS_OK, PROGRESS_NEWER or
 * PROGRESS_ERROR with a message in err. */
int progress_load(const char *path, struct progress *p, char *note, size_t notelen, char *err, size_t errlen);

/* Applies fn to the progress as it is on disk, under the lock, and writes
 * the result atomically.  fn returns 0 to write, nonzero to abandon.  When
 * out is not NULL it receives the merged progress (the caller frees it).
 * Returns as progress_load, and note likewise reports a corrupt file moved
 * aside.  A file whose mode bits deny this process writing (read-only to
 * its owner, say) is refused, PROGRESS_ERROR, even for root; a file that is
 * rewritten keeps its mode. */
typedef int (*progress_fn)(struct progress *p, void *ud);
int progress_update(const char *path, progress_fn fn, void *ud, struct progress *out, char *note,
                    size_t notelen, char *err, size_t errlen);

/* The lab's record, created when create is set (NULL when it is not there,
 * or out of memory). */
struct progress_lab *progress_lab(struct progress *p, const char *id, int create);
const struct progress_lab *progress_find(const struct progress *p, const char *id);

/* What one check changed in the student's standing, computed once where
 * it is recorded (progress_record_check) so that every front end only
 * words it (view/standing's standing_change).  States follow the lock
 * rule without --unlock-all: what the check earned, not what is shown. */
#define PROGRESS_OPENED_MAX 64  /* more labs than one pass opens in any catalog */
struct progress_change {
    int lab;                    /* the checked lab's index in the catalog; -1: none */
    enum lab_state was, now;    /* its state before and after the check */
    int nopened;                /* labs locked before and open after, in catalog order */
    int opened[PROGRESS_OPENED_MAX];
};

/* Records one check of the lab r->lab at time `when` (ISO 8601): an attempt,
 * the last verdict, a pass and its first time (a pass on the CPU emulator
 * counts, marked cpu_only until a GPU pass), on target, the best timed pass
 * (by ratio to the reference; implausible timings are not records) and the
 * GPU (never the emulator).  Returns what changed: the lab's state and the
 * labs it opened, by cat's rule (lab -1 and nothing opened when cat is NULL
 * or does not hold the lab). */
struct progress_change progress_record_check(struct progress *p, const struct catalog *cat, const struct result *r,
                                             const char *when);

/* progress_update's callback for one check: ud is a struct progress_check,
 * with `when` filled by progress_now and cat the catalog; it fills change.
 * Shared by the tutor and the CLI. */
struct progress_check {
    const struct result *r;
    const struct catalog *cat;
    char when[32];
    struct progress_change change;
};
int progress_check_fn(struct progress *p, void *ud);

/* Records that hints 1..k of lab id were shown; returns hints used after. */
int progress_record_hint(struct progress *p, const char *id, int k);

/* progress_update's callback for a hint a front end shows: hint k of lab
 * id when k is given, else the next one (the one after those used; the
 * last once all are), recorded; the hint shown in `shown`. */
struct progress_hint {
    const char *id;
    int k;                      /* 1..CATALOG_HINTS; 0: the next one */
    int shown;
};
int progress_hint_fn(struct progress *p, void *ud);

/* The state of cat->labs[i]: passed or on target from the record, else open
 * when it is the first lab, unlock_all is set or the lab that opens it
 * passed (catalog_opener: the lab before it, or its "opens_after" — lab 08
 * for the bonus labs), else locked. */
enum lab_state progress_state(const struct progress *p, const struct catalog *cat, int i, int unlock_all);

const char *lab_state_name(enum lab_state s);
const char *lab_state_label(enum lab_state s);
/* How a lab's state reads in a list: its label, but "passed CPU" for a
 * pass on the CPU emulator that no GPU check has timed yet (PL may be
 * NULL). */
const char *progress_state_label(const struct progress_lab *pl, enum lab_state s);

/* The current time as ISO 8601 UTC ("2025-11-22T05:50:12Z"). */
void progress_now(char *buf, size_t len);

#endif /* PROGRESS_H */
