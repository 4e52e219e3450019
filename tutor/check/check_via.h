/* check_via.h — a check whose GPU is on another machine: the CPU tier judges
 * here, then the GPU judge runs through a command that runs its arguments
 * where the GPU is and sees this folder at the same path ("srun -p gpu
 * --gres=gpu:1 -t 2", "ssh gpuhost --", "docker exec -i box").  The command is
 * the student's, set once (--gpu-via, $CUDATUTOR_GPU_VIA, or the workbook's
 * cudatutor.conf); the GPU's model and compute capability are asked through
 * it once and kept in gpu-via.json beside calibration.json.
 *
 * Across such a command only stdin, stdout and stderr travel, so the
 * judge's private channel (proc's fd 3) cannot.  A relay at the far end
 * (`cudatutor gpu-relay`, check_relay.c) runs the judge with its channel
 * there (and the race checkers beside it) and sends the channel's lines,
 * the output, the report files and how each run ended as frames on its
 * stdout, each line opened by a
 * nonce that the tutor sends on the relay's stdin and nowhere else (never
 * in argv or the environment).  What the student's code prints reaches the
 * relay as the judge's output and travels hex-encoded inside an "out"
 * frame, and any line without the nonce is the command's own text: neither
 * can pass for a channel line, a report or an ending (docs/harness.md,
 * "The GPU elsewhere"). */
#ifndef CHECK_VIA_H
#define CHECK_VIA_H

#include <stddef.h>

#include "check/check.h"

/* How long a GPU run (or the question of which GPU) may wait to start
 * unless told otherwise: a cluster's queue. */
#define VIA_WAIT_S 600
/* The workbook's settings file, at its top (beside data/). */
#define VIA_CONFIG "cudatutor.conf"
/* Where the GPU at the other end is remembered, beside calibration.json,
 * and for VIA_RETRY_S seconds that the GPU side failed: checks in that
 * time are judged here alone, without waiting on the command again. */
#define VIA_CACHE "gpu-via.json"
#define VIA_RETRY_S 300

/* What the front ends hold for a check through the command. */
struct via_setup {
    char *cmd;                  /* the command; NULL: none is set */
    double wait_s;
    char name[96];              /* the GPU there, as nvidia-smi names it; "" unknown */
    char arch[16];              /* sm_90; "" unknown */
    char error[600];            /* why the GPU is not asked: asking failed, now or less
                                   than VIA_RETRY_S ago; "" when it did not */
    double retry_s;             /* with error: seconds until the command is tried again */
    char *memo;                 /* gpu-via.json's path; NULL: nothing is remembered */
};

/* Fills s from the first of: flag_cmd (--gpu-via), $CUDATUTOR_GPU_VIA, the
 * line "gpu-via = COMMAND" of ROOT/cudatutor.conf; the bound likewise from
 * flag_wait (> 0), $CUDATUTOR_GPU_VIA_WAIT, "gpu-via-wait = SECONDS", else
 * VIA_WAIT_S.  An empty command means none.  Returns 0, or -1 with err
 * naming the file and line (or variable) that is wrong. */
int via_config(const char *root, const char *flag_cmd, double flag_wait, struct via_setup *s, char *err,
               size_t errlen);

/* Asks the GPU at the other end its model and compute capability
 * (nvidia-smi through the command), unless s->memo (gpu-via.json) holds the
 * answer for this very command, or a failure of it less than VIA_RETRY_S
 * old.  Progress ("queued on the cluster (12 s)") goes to progress/ud as
 * stage "gpu".  On failure, or one remembered, s->error says why (the
 * command's own words) and s->retry_s when it is tried again; a check then
 * keeps its CPU tier's verdict. */
void via_ask(struct via_setup *s, check_progress_fn progress, void *ud);


/* via_config and via_ask for a front end: s->memo beside calibration.json
 * (calibrate_path's folder).  Returns as via_config; s->cmd NULL: no
 * command is set. */
int via_prepare(struct via_setup *s, const char *root, const char *progress_flag, const char *flag_cmd,
                double flag_wait, check_progress_fn progress, void *ud, char *err, size_t errlen);

/* Points o at s (command, bound, arch, error, memo); nothing when s has no command. */
void via_apply(struct check_opts *o, const struct via_setup *s);

void via_setup_free(struct via_setup *s);

/* The far end: `cudatutor gpu-relay`, run by the command.  Reads the nonce
 * and the job from stdin, runs the judge, writes the frames on stdout;
 * stops the judge when stdin ends (the tutor, or the command, is gone).
 * Returns the process's exit code. */
int via_relay_main(void);

#endif /* CHECK_VIA_H */
