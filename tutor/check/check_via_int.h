/* check_via_int.h — what check_via.c, check_via_run.c and
 * check_via_frames.c share (private):
 * one run through the student's GPU command, with its wait shown and
 * bounded, its cancel, and the relay's frames read back. */
#ifndef CHECK_VIA_INT_H
#define CHECK_VIA_INT_H

#include "check/check_stage.h"
#include "check/check_via.h"

/* How many of the judge's files come back in frames: its report and the
 * runner's output (check_via_run.c names them). */
enum { VIA_FILES = 2 };
/* How many runs may go beside the judge (the race checkers). */
enum { VIA_JOBS = 4 };

/* How much of the command's own text (srun's messages, ssh's) is kept for
 * the message that says why it failed. */
enum { VIA_TEXT = 1024 };

/* One run through the command: the waiting before it starts, shown and
 * bounded, then the caller's limits. */
struct via_call {
    const char *cmd;
    double wait_s, t0, ready_at;        /* ready_at: 0 until the run started */
    double shown;                       /* when the queue's line was last shown */
    check_progress_fn progress;
    void *ud;
    enum stage_id stage;
    int i, n;
    const struct proc_spec *inner;      /* the judge's own spec; NULL for a question */
    struct check_state *run;                    /* the check, whose judge starts with "ready"; or NULL */
    char text[VIA_TEXT];                /* the command's own words, the last of them */
    long job;                           /* the Slurm job srun named; 0: none */
    /* The relay's side (a judge run). */
    char nonce[33];
    int exit_seen;
    struct proc_result judge;           /* how the judge ended, as relayed; its output */
    size_t out_cap, out_alloc;
    char *file[VIA_FILES];              /* returned files' bytes */
    size_t file_len[VIA_FILES], file_cap[VIA_FILES];
    int file_seen[VIA_FILES];
    /* Runs beside the judge, as via_submit gave them, and their bytes. */
    int in_w;                           /* the relay's stdin; -1 once closed */
    struct via_job *jobs[VIA_JOBS];
    int njobs;
    size_t job_out_alloc[VIA_JOBS];
    char *job_file[VIA_JOBS];
    size_t job_file_len[VIA_JOBS], job_file_cap[VIA_JOBS];
};

/* Runs args through c->cmd (the shell reads the command, the arguments
 * follow word for word), with in_fd as its stdin (0: /dev/null): the wait
 * before the run starts is shown as "queued on the cluster (N s)" through
 * c->progress, counted against no limit, and bounded by c->wait_s; ^C,
 * SIGTERM and SIGHUP stop the command's whole process group (and scancel the
 * job srun named, if any), and are raised again once it is gone.  Returns proc_run's result in *outer (caller
 * frees). */
int via_exec(struct via_call *c, char *const *args, int in_fd, struct proc_result *outer);

/* A line of the command's stdout or stderr (proc's on_line, ud a
 * via_call): a frame of the relay's when it opens with "@NONCE ", else
 * the command's own text, kept in c->text. */
void via_line(void *ud, const char *line);

/* A job's line for the relay (a JSON object on one line, ending in a
 * newline): the command line, its folder, limit and output cap, and the
 * files to send back ("" where none).  NULL when out of memory. */
char *via_job_line(char *const *argv, const char *cwd, double timeout_s, size_t output_cap, const char *const *files,
                   int nfiles);

/* "the GPU command `srun -p gpu` failed (exit 1): srun: error: ..." */
void via_describe_failure(const struct via_call *c, const struct proc_result *outer, char *buf, size_t len);

/* gpu-via.json (check_via_memo.c), at s->memo.  Load: 1 when it answers
 * for s->cmd, with the GPU's name and arch, or with a failure less than
 * VIA_RETRY_S old (its words in s->error, s->retry_s the seconds left);
 * 0 when the command must be asked.  Store: the name and arch asked. */
int via_memo_load(struct via_setup *s);
void via_memo_store(const struct via_setup *s);

/* Remembers in memo (gpu-via.json; NULL: nothing) that the GPU side of cmd
 * failed now, for why; or, after a GPU run, that it works. */
void via_memo_failure(const char *memo, const char *cmd, const char *why);
void via_memo_success(const char *memo, const char *cmd);

#endif /* CHECK_VIA_INT_H */
