/* grade_run.h — what the files of one grading share (private to
 * tutor/grade/): the run's state, set up once (grade_setup.c) and read by
 * the stages, and each stage's entry point.  Calls point one way (no two
 * files call each other through any chain, tests/layers.sh): grade.c
 * orders the stages and nothing calls it; every file may call
 * grade_log.c, which calls none of them.  The order:
 * workbook, catalog, rubric, submissions, output folder, the sandbox's
 * folder (grade_setup.c), GPUs (grade_gpus.c), sandbox (grade_probe.c),
 * calibration (grade_calibrate.c), intake and the pools
 * (grade_work.c, grade_pool.c, grade_job.c), run.json, the class reports.  --merge and
 * --rescore are grade_merge.c, --selftest grade_selftest.c. */
#ifndef GRADE_RUN_H
#define GRADE_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "status.h"     /* the exit codes */
#include "grade/grade_opts.h"
#include "grade/grade_sandbox.h"
#include "grade/roster.h"
#include "model/catalog.h"
#include "model/rubric.h"

/* One submission of this shard. */
struct grade_sub {
    char id[ROSTER_ID_MAX + 1];
    char *name;                 /* its file or folder name, as handed in */
    char *path;                 /* absolute, links not resolved (realpath -s) */
};

/* One lab of one student to build and run. */
struct grade_job {
    int sub;                    /* index into subs */
    const struct lab *lab;
    int built;                  /* the build has ended (under the pool's lock) */
    int build_code;             /* its exit code; 124 when it ran out of time */
};

struct grade {
    const struct grade_opts *o;
    const char *prog;           /* the program as started (argv[0]) */
    char *self;                 /* this program: it builds, runs and wraps every check */
    char *pristine;             /* the workbook, resolved */
    char *harness_dir;
    char *rubric_path;          /* resolved */
    struct catalog cat;
    struct rubric rubric;
    int have_cat, have_rubric;
    const struct lab **labs;    /* the labs graded, in catalog order or --labs's */
    int nlabs;

    char *out, *state, *students;
    char *scratch;              /* the sandbox's folder (grade_setup_scratch): WORK, the GPU
                                   locks, the probes, and copies of this program and the
                                   harness where nobody cannot reach them; removed at the end */
    char *work;                 /* SCRATCH/work: a folder per student while it is graded */
    int lock_fd, events_fd;

    struct grade_sub *subs;     /* this shard's, sorted by id */
    int nsubs;
    char **gpus;                /* "" for one unnamed GPU: CUDA_VISIBLE_DEVICES left alone */
    int ngpus;
    int jobs, check_runs;

    char mode[16];              /* the sandbox: bwrap-nobody, bwrap or none */
    char *spec;                 /* STATE/sandbox.json, the --sandbox-exec SPEC of every build and run */
    char *sandbox_notes;        /* why stronger modes were not used; "" */
    char *sandbox_facts;        /* what the probe checked, space-separated; "" */

    double *target_min;         /* [gpu * nlabs + lab]: the calibrated threshold, 0: the catalog's */
    struct cJSON *gpu_others;   /* what grade_gpus_others saw, for run.json; NULL: nothing */

    char **graded_now;          /* the students this run grades */
    int ngraded;
    time_t t0;

    pthread_mutex_t mu;         /* errors and the events file */
    char *errors;               /* lines for stderr at the end; the exit is then 4 */
    atomic_int interrupted;     /* INT or TERM: every child is stopped through it */
    int wake_fd, wake_read;     /* a pipe written when a stage's workers are done, or on a
                                   signal: the pool's progress loop waits on it */
};

/* ---- grade_log.c: how the grader speaks (a leaf: it calls no stage) ------ */

/* A note on stderr unless --quiet; a warning always. */
void grade_say(const struct grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void grade_warn(const struct grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A usage error: says it, then how to get help; returns
 * EXIT_USAGE. */
int grade_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The grader itself cannot go on: says why, returns EXIT_INTERNAL. */
int grade_internal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An error that makes the run end in exit 4, said at the end. */
void grade_error(struct grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line appended to STATE/events ("B ID LAB" built, "R ID LAB" run
 * again alone, "C ID LAB" checked, "S ID" finished, "T TOOL FAMILY N
 * found|clean|alone" a race checker's run over a batch of N passes: it
 * found something, or it was clean and the batch cleared them, or it was
 * clean and another tool's run was not, so each runs the tools alone). */
void grade_event(struct grade *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The time now as 2024-05-01T12:00:00Z. */
void grade_utc(char *buf, size_t len, time_t t);

/* ---- grade_setup.c: the set-up stages and the run's end ----------------- */

/* The set-up stages, each returning 0 or an exit code after saying why. */
int grade_setup_workbook(struct grade *g);
int grade_setup_out(struct grade *g, const char *out);
/* The sandbox's folder, wherever the output goes: a new folder under
 * $TMPDIR (or /tmp, where the sandbox's user cannot pass through $TMPDIR),
 * mode 0711, holding WORK and the GPU locks; as root, where nobody cannot
 * reach this program or the harness, copies of them too (g->self and
 * g->harness_dir then name the copies). */
int grade_setup_scratch(struct grade *g);
int grade_load_catalog(struct grade *g, int all_labs);
int grade_load_rubric(struct grade *g);
int grade_collect(struct grade *g, char *const *paths, int npaths);
/* An absolute path without resolving links (realpath -s): the current
 * folder before a relative one, "." and ".." taken lexically (".." of "/"
 * is "/").  Heap; NULL when out of memory or the current folder is
 * unknown. */
char *grade_absolute(const char *p);

/* OUT/run.json: how this run was made (sandbox, GPUs, options, who was
 * graded).  0, or -1 after grade_error. */
int grade_write_run_json(struct grade *g);
/* The class reports, the table, and the exit code over the students. */
int grade_finish_reports(struct grade *g);
void grade_free(struct grade *g);

/* ---- grade_gpus.c -------------------------------------------------------- */

/* Fills g->gpus (--gpus, else CUDA_VISIBLE_DEVICES, else nvidia-smi -L;
 * one unnamed GPU when none is named), the pools' sizes, and a lock file
 * per GPU that the sandbox's user can take.  0, or an exit code. */
int grade_detect_gpus(struct grade *g);
/* The default --check-runs: as many runs on each of ngpus GPUs as cpus
 * CPUs hold (a run with the race checkers keeps about four busy, one
 * without them one and a half) and gpu_gib GiB of its memory hold (0:
 * unknown, not counted), at least 1 and at most 8. */
int grade_runs_per_gpu(long cpus, int ngpus, int sanitize, double gpu_gib);
/* The GPU lock file of gpus[i] (heap). */
char *grade_gpu_lock(const struct grade *g, int i);
/* Warns about, and keeps for run.json, the compute processes nvidia-smi
 * lists on each named GPU; when is "start" or "end" (of the grading).
 * Nothing when nvidia-smi is missing or cannot say. */
void grade_gpus_others(struct grade *g, const char *when);

/* ---- grade_spec.c -------------------------------------------------------- */

/* The spec every mode shares, into sb: hidden paths, binds back, a build's
 * view (with bubblewrap at bwrap; NULL: none), the environment with a PATH
 * of the toolchain's folders, devices, the GPU locks, the limits.  0, or
 * -1 when out of memory or the toolchain cannot be described. */
int grade_spec(struct grade *g, struct grade_sandbox *sb, const char *bwrap);

/* ---- grade_probe.c ------------------------------------------------------- */

/* Chooses the sandbox (--sandbox asks): probes each mode, strongest first;
 * saves the one used as g->spec.  0, or EXIT_SANDBOX / _INTERNAL. */
int grade_choose_sandbox(struct grade *g);

/* ---- grade_calibrate.c --------------------------------------------------- */

/* Fills g->target_min from OUT/calibration.json, measuring first on the
 * GPUs it lacks (or all, with --force).  Nothing without --calibrate or a
 * named GPU.  0, or an exit code. */
int grade_calibrate(struct grade *g);

/* ---- grade_work.c -------------------------------------------------------- */

/* Whether a student already graded in the output folder is skipped: it
 * is finished (its report.json is there) and --force was not given. */
int grade_work_skip(int force, int have_report);
/* Takes submission s in: WORK/ID (wb, intake.json, one folder per lab to
 * build).  Writes the labs to build into labs (nlabs of them) and returns
 * how many, or -1 when the grader itself failed (said through grade_error). */
int grade_work_intake(struct grade *g, int s, const struct lab **labs);
/* The lab's verdict WORK/ID/LAB/final.json: file as it is when it holds one
 * (a JSON object with a status), else an internal_error saying why, with
 * the end of log.  0, or -1 when it cannot be written. */
int grade_work_final(const char *dir, const char *lab, const char *file, const char *why, const char *log);
/* Writes STUDENTS/ID (intake, verdicts, logs, reports) atomically, then
 * removes the work folder.  0, or -1 (said through grade_error). */
int grade_work_finish(struct grade *g, int s);
/* chown -R to the sandbox's user, without following links. */
int grade_work_chown(const char *path, int uid);
/* cp -R src dst (files and folders; a link is copied as a link). */
int grade_work_copy_tree(const char *src, const char *dst);

/* ---- grade_job.c --------------------------------------------------------- */

/* Runs one child to its end: argv in cwd with env ("NAME=VALUE", NULL-
 * terminated, or NULL), stopped by an interrupt; appends its output to log
 * (if not NULL).  Returns the exit code, 124 when it ran out of time, 128+N
 * for a signal, 130 when interrupted, 127 when it could not start. */
int grade_spawn(struct grade *g, char *const *argv, const char *cwd, char *const *env, double timeout_s,
                int nice, const char *log);

/* The wrap words of a sandboxed run: --wrap SELF --wrap-arg=grade ... --wrap-arg=--
 * into argv at *a (12 words at most). */
void grade_wrap_args(const struct grade *g, const char *spec, char **argv, int *a);

/* Whether a check's verdict r (NULL: none came) is one that the grader's
 * own load could have made: a timeout, a runtime or internal error, or a
 * race checker that could not start or judge.  Such a verdict reached
 * while other runs shared the machine is run again alone. */
struct result;
int grade_run_doubtful(const struct result *r);

/* The runs of each GPU: any number shared, or one alone, which goes first
 * (no shared run starts while it waits); and, machine-wide, the runs in
 * flight and how many have started, which say whether a run had company. */
struct grade_gate {
    int shared, waiting, alone;
};
struct grade_gates {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct grade_gate *gpu;
    int active;
    long starts;
};
/* 0, or -1 when out of memory; grade_gates_free either way. */
int grade_gates_init(struct grade_gates *gs, int ngpus);
void grade_gates_free(struct grade_gates *gs);
/* One run on GPU gi, holding its share of the GPU (or all of it, alone),
 * as grade_spawn runs it; with `channel`, a pipe at the child's progress
 * channel (whose lines are dropped) for a judge told to write there.
 * *busy says whether another run was in flight on the machine at any time
 * during it.  Returns as grade_spawn. */
int grade_gate_spawn(struct grade_gates *gs, struct grade *g, int gi, int alone, char *const *argv,
                     const char *cwd, char *const *env, double limit, const char *log, int *busy, int channel);

/* The two runs of a built kernel (check --sanitize-later, --sanitize-from):
 * the judge with its timed sections, then, for a pass, the race checkers
 * apart from them. */
enum grade_phase { GRADE_JUDGE, GRADE_SANITIZE };

/* Compiles job j in the build sandbox (its work folder gets
 * build-report.json and build.log); returns as grade_spawn. */
int grade_job_build(struct grade *g, const struct grade_job *j);

/* One run of built job j, the harness in the sandbox on GPU gi, through
 * its gate.  The judge's run of a pass whose race checkers are still owed
 * leaves judge.json and returns 1: the job then waits for its
 * GRADE_SANITIZE.  Otherwise it leaves final.json, the lab's verdict, and
 * returns 0.  A run whose verdict the grader's own load could have made
 * (grade_run_doubtful) while other runs shared the machine is run again
 * with its GPU to itself, and that run's verdict stands: a kernel is never
 * graded by how busy the grader was.  `sanitized`, for GRADE_SANITIZE:
 * the tools a batch (grade_batch.c) already ran clean over the build,
 * comma-separated, or NULL.  -1 when the verdict cannot be written. */
int grade_job_run(struct grade *g, struct grade_gates *gs, const struct grade_job *j, int gi,
                  enum grade_phase phase, const char *sanitized);

/* ---- grade_batch.c ------------------------------------------------------- */

/* The most judged passes whose race checkers run as one batch. */
#define GRADE_BATCH_MAX 8

/* Runs each race checker once over the n judged passes js (one family, n
 * at most GRADE_BATCH_MAX) on GPU gi, through its gate; cleared[b] gets the
 * tools that cleared job b, comma-separated for grade_job_run (heap), or
 * NULL for none.  The batch clears its jobs of all three tools only when
 * each found nothing and every build passed under each; any other end
 * leaves the tools to each build's own run.  A single pass, or builds
 * whose lines cannot be read, make no batch. */
void grade_batch_sanitize(struct grade *g, struct grade_gates *gs, const struct grade_job *const *js, int n,
                          int gi, char **cleared);

/* ---- grade_pool.c -------------------------------------------------------- */

/* Grades subs (intake, pools, students' reports); 0, or 130 when interrupted. */
int grade_submissions(struct grade *g);

/* Builds every job (--jobs at a time) and runs each as its build ends
 * (--check-runs at a time on each GPU); a student is finished as soon as
 * every lab of it has a verdict.  0, or 130 when interrupted. */
int grade_pool_run(struct grade *g, struct grade_job *jobs, int njobs);

/* A worker's next item of a queue that threads share: under mu, the next
 * of n that *next walks; -1 when none is left or the grading was
 * interrupted. */
int grade_pool_take(struct grade *g, pthread_mutex_t *mu, int *next, int n);

/* ---- grade_merge.c, grade_selftest.c --------------------------------------- */

int grade_merge(struct grade *g);
int grade_rescore(struct grade *g);
int grade_selftest(struct grade *g);

#endif /* GRADE_RUN_H */
