/* check_via_run.c — a run through the student's GPU command (see
 * check_via.h): the command line, the wait shown and bounded, the cancel;
 * the judge's run through it and the relay (check_relay.c; its frames are
 * read in check_via_frames.c), and the judge stage with the CPU tier
 * first. */
#define _GNU_SOURCE     /* getrandom, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "check/check_via_int.h"
#include "model/result.h"
#include "sys/util.h"

/* The files the judge writes that a check reads: its report and the
 * runner's output, named by these options of its command line. */
static const char *const returned[VIA_FILES] = {"--json", "--runner-out"};

/* ---- running through the command ---------------------------------------- */

/* The command line that runs `args` through the student's command: the
 * shell reads it as the student wrote it (quotes, $VARIABLES), and the
 * arguments follow it word for word. */
static char **via_argv(const char *cmd, char *const *args)
{
    int n = 0;
    while (args[n])
        n++;
    char **argv = calloc((size_t)n + 5, sizeof *argv);
    char *script = util_format("%s \"$@\"", cmd);
    if (!argv || !script) {
        free(argv);
        free(script);
        return NULL;
    }
    argv[0] = "/bin/sh";
    argv[1] = "-c";
    argv[2] = script;
    argv[3] = "sh";
    for (int i = 0; i < n; i++)
        argv[4 + i] = args[i];
    return argv;
}

static void via_argv_free(char **argv)
{
    if (argv)
        free(argv[2]);
    free(argv);
}

/* ^C, the tutor's cancel (SIGTERM) and a hang-up while the command runs:
 * the command's whole process group is stopped, then the signal is
 * raised again as it came. */
static volatile sig_atomic_t via_signal;
static atomic_int via_cancel;

static void via_on_signal(int sig)
{
    via_signal = sig;
    atomic_store(&via_cancel, 1);
}

static const int via_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { VIA_NSIGNALS = sizeof via_signals / sizeof via_signals[0] };

static void via_catch(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = via_on_signal;
    sigemptyset(&sa.sa_mask);
    via_signal = 0;
    atomic_store(&via_cancel, 0);
    for (int i = 0; i < VIA_NSIGNALS; i++)
        sigaction(via_signals[i], &sa, &old[i]);
}

/* Restores the handlers; a signal that came is raised again now that the
 * command is gone, so the process ends (or the caller's handler runs) as
 * it would have. */
static void via_release(const struct sigaction *old)
{
    for (int i = 0; i < VIA_NSIGNALS; i++)
        sigaction(via_signals[i], &old[i], NULL);
    if (via_signal)
        raise(via_signal);
}

/* "queued on the cluster (12 s)", once a second until the run starts. */
static void queue_line(struct via_call *c)
{
    double now = util_now();
    if (c->ready_at || !c->progress || now - c->shown < 1)
        return;
    char d[96];
    snprintf(d, sizeof d, "queued on the cluster (%.0f s)", now - c->t0);
    c->progress(c->ud, c->stage, c->i, c->n, d);
    c->shown = now;
}

/* Waiting to start does not count against the judge's limits. */
static double via_grace(void *ud)
{
    struct via_call *c = ud;
    queue_line(c);
    double queued = (c->ready_at ? c->ready_at : util_now()) - c->t0;
    return queued + (c->inner && c->inner->grace ? c->inner->grace(c->inner->ud) : 0);
}

/* Until the run starts, the wait's bound; then the judge's own limit and
 * cutoffs; once it ended, the whole check's bound for the runs beside it,
 * their waits for the GPU forgiven as the judge's are. */
static double via_cutoff(void *ud)
{
    struct via_call *c = ud;
    if (!c->ready_at)
        return c->t0 + c->wait_s;
    if (!c->inner)
        return 0;
    double waited = c->inner->grace ? c->inner->grace(c->inner->ud) : 0;
    if (c->exit_seen && c->run) {
        double most = 0;
        for (int k = 0; k < c->njobs; k++) {
            double g = c->jobs[k]->grace ? c->jobs[k]->grace(c->jobs[k]->ud) : 0;
            most = g > most ? g : most;
        }
        return check_deadline(c->run, waited + most);
    }
    double own = c->ready_at + c->inner->timeout_s + waited;
    double cut = c->inner->cutoff ? c->inner->cutoff(c->inner->ud) : 0;
    return cut > 0 && cut < own ? cut : own;
}

/* A killed srun may leave its job in the queue a while: best effort, as
 * scancel may not be here (the command may reach Slurm some other way). */
static void scancel(long job)
{
    char id[24];
    snprintf(id, sizeof id, "%ld", job);
    char *const argv[] = {"scancel", id, NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 10, .output_cap = 1024};
    struct proc_result pr;
    if (proc_run(&spec, &pr) == 0)
        proc_result_free(&pr);
}

/* See check_via_int.h. */
int via_exec(struct via_call *c, char *const *args, int in_fd, struct proc_result *outer)
{
    char **argv = via_argv(c->cmd, args);
    struct sigaction old[VIA_NSIGNALS];
    int rc;

    if (!argv) {
        memset(outer, 0, sizeof *outer);
        util_copy(outer->error, sizeof outer->error, "out of memory");
        return -1;
    }
    /* The judge's limits are via_cutoff's; this one leaves room for the
     * race checkers beside it, as they have here. */
    double inner_limit = c->inner ? 3 * c->inner->timeout_s : 0;
    struct proc_spec spec = {.argv = argv, .timeout_s = inner_limit > 0 ? inner_limit : c->wait_s,
                             .output_cap = VIA_TEXT, .on_line = via_line, .ud = c, .grace = via_grace,
                             .cutoff = via_cutoff, .cancel = &via_cancel, .in_fd = in_fd};
    c->t0 = c->shown = util_now();
    c->shown -= 1;
    via_catch(old);
    rc = proc_run(&spec, outer);
    if (!rc && (outer->cancelled || outer->timed_out) && c->job > 0)
        scancel(c->job);
    via_release(old);
    via_argv_free(argv);
    return rc;
}

/* "`srun -p gpu` failed (exit 1): srun: error: ..." for a message. */
void via_describe_failure(const struct via_call *c, const struct proc_result *outer, char *buf, size_t len)
{
    char why[200];
    proc_describe(outer, why, sizeof why);
    const char *said = c->text;
    /* Its last lines say most: srun and ssh end with the error. */
    size_t n = strlen(said);
    if (n > 300) {
        said += n - 300;
        said += strcspn(said, "\n");
        said += *said == '\n';
    }
    char flat[320];
    util_copy(flat, sizeof flat, said);
    for (char *p = flat; *p; p++)
        if (*p == '\n')
            *p = ' ';
    snprintf(buf, len, "the GPU command `%s` failed (%s)%s%s", c->cmd, outer->started ? why : outer->error,
             flat[0] ? ": " : "", flat);
}

/* ---- the judge through the command -------------------------------------- */

static void run_progress(void *ud, enum stage_id stage, int i, int n, const char *detail)
{
    check_progress(ud, stage, i, n, detail);
}

/* A fresh nonce: 16 random bytes as hex. */
static int make_nonce(char out[33])
{
    unsigned char b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

/* The relay at the far end: $CUDATUTOR_GPU_RELAY (where this program's path
 * differs there), else this very program. */
static char *relay_path(void)
{
    const char *env = getenv("CUDATUTOR_GPU_RELAY");
    if (env && *env)
        return strdup(env);
    return realpath("/proc/self/exe", NULL);
}

int via_run(struct check_state *r, const struct proc_spec *spec, struct proc_result *pr)
{
    struct via_call c = {.cmd = r->o->gpu_via, .wait_s = r->o->gpu_via_wait_s > 0 ? r->o->gpu_via_wait_s : VIA_WAIT_S,
                         .progress = run_progress, .ud = r, .stage = STAGE_CORRECTNESS, .n = r->lab->family->nsizes,
                         .inner = spec, .run = r, .out_cap = spec->output_cap ? spec->output_cap : (1u << 20)};
    const char *files[VIA_FILES] = {0};
    char *relay = relay_path(), *job = NULL, *head = NULL;
    int in[2] = {-1, -1}, rc = -1;
    struct proc_result outer = {0};

    memset(pr, 0, sizeof *pr);
    r->via_note[0] = '\0';
    for (int i = 0; spec->argv[i] && spec->argv[i + 1]; i++)
        for (int k = 0; k < VIA_FILES; k++)
            if (!strcmp(spec->argv[i], returned[k]))
                files[k] = spec->argv[i + 1];
    /* The tutor's limits stop the run first; the relay's is a backstop. */
    if (!relay || make_nonce(c.nonce) ||
        !(job = via_job_line(spec->argv, spec->cwd, spec->timeout_s + GRACE_MAX_S, spec->output_cap, files,
                             VIA_FILES)) ||
        !(head = util_format("%s\n%s", c.nonce, job)) || pipe2(in, O_CLOEXEC)) {
        util_copy(pr->error, sizeof pr->error, relay ? "out of memory, or no random bytes" : "cannot find this program");
        goto out;
    }
    /* The nonce and the job fit in the pipe; its write end stays open until
     * the run ends, and its closing tells the relay to stop the judge. */
    if (util_write_all(in[1], head, strlen(head))) {
        snprintf(pr->error, sizeof pr->error, "cannot hand the job to the relay: %s", strerror(errno));
        goto out;
    }
    char *const args[] = {relay, "gpu-relay", NULL};
    check_progress(r, STAGE_CORRECTNESS, 0, c.n, "queued on the cluster (0 s)");
    c.in_w = in[1];
    r->via_live = &c;
    int ran = via_exec(&c, args, in[0], &outer);
    r->via_live = NULL;
    in[1] = c.in_w;
    /* A run beside the judge that did not come back: stopped by the
     * check's bound, or lost with the command (never the kernel's). */
    for (int k = 0; k < c.njobs; k++)
        if (!c.jobs[k]->done) {
            c.jobs[k]->lost = ran || !outer.timed_out;
            snprintf(c.jobs[k]->pr.error, sizeof c.jobs[k]->pr.error, "the GPU command `%.80s` ended before it did",
                     c.cmd);
        }
    if (ran) {
        util_copy(pr->error, sizeof pr->error, outer.error);
        goto out;
    }
    rc = 0;
    r->via_queued_s = (c.ready_at ? c.ready_at : util_now()) - c.t0;
    if (!c.ready_at || (!c.exit_seen && !outer.timed_out)) {
        /* The run did not happen, or not to its end: the command's failing,
         * never the kernel's. */
        if (outer.cancelled)
            snprintf(r->via_note, sizeof r->via_note, "the GPU run was cancelled");
        else if (!c.ready_at && outer.timed_out)
            snprintf(r->via_note, sizeof r->via_note, "the GPU run did not start in %.0f s (`%s`)", c.wait_s, c.cmd);
        else {
            char why[sizeof r->via_note - 40];
            via_describe_failure(&c, &outer, why, sizeof why);
            snprintf(r->via_note, sizeof r->via_note, "%s%s", why, c.ready_at ? " while the judge ran" : "");
        }
        rc = 1;
        goto out;
    }
    if (c.exit_seen && !c.judge.started) {
        /* The relay ran but the judge did not: a folder or a program that
         * is not where it is here. */
        snprintf(r->via_note, sizeof r->via_note, "the judge could not start at the other end of `%s` (%.200s): "
                 "the workbook must be there at the same path", c.cmd, c.judge.output ? c.judge.output : "");
        rc = 1;
        goto out;
    }
    if (!c.exit_seen) {
        /* The tutor's own limit ended it: the judge's time, the kernel's. */
        c.judge.started = 1;
        c.judge.timed_out = 1;
        c.judge.seconds = util_now() - c.ready_at;
    }
    for (int k = 0; k < VIA_FILES; k++) {
        if (!files[k] || !files[k][0])
            continue;
        if (c.file_seen[k])
            (void)util_write_file(files[k], c.file[k] ? c.file[k] : "", c.file_len[k]);
        else
            unlink(files[k]);
    }
    *pr = c.judge;
    c.judge.output = NULL;
    if (!pr->output)
        pr->output = calloc(1, 1);
out:
    if (rc && !pr->output)
        pr->output = calloc(1, 1);
    for (int i = 0; i < 2; i++)
        if (in[i] >= 0)
            close(in[i]);
    for (int k = 0; k < VIA_FILES; k++)
        free(c.file[k]);
    for (int k = 0; k < VIA_JOBS; k++)
        free(c.job_file[k]);
    free(c.judge.output);
    proc_result_free(&outer);
    free(head);
    free(job);
    free(relay);
    return rc;
}

/* ---- the judge stage ---------------------------------------------------- */

/* The CPU tier's result (or, without one, no_gpu) stands; cpu is taken
 * over.  Why the GPU's is not there is the result's gpu_via.failed, which
 * the verdict shows beside it. */
static void keep_cpu(struct check_state *r, struct result *cpu)
{
    if (cpu && cpu->schema) {
        result_free(r->res);
        *r->res = *cpu;
        memset(cpu, 0, sizeof *cpu);
        r->emulated = 1;
    } else {
        check_set_status(r, STATUS_NO_GPU);
    }
}

/* The result's gpu_via: the command, whether the GPU run happened, how
 * long it waited to start, the GPU asked for, the CPU tier's verdict, and
 * why the GPU side failed with when it is tried again. */
static void via_record(struct check_state *r, int ran, const char *cpu_status, const char *failed, double retry_s)
{
    struct rgpu_via *v = &r->res->gpu_via;
    v->have = 1;
    result_set_text(&v->command, r->o->gpu_via);
    v->ran = ran;
    v->queued_s = r->via_queued_s > 0 ? r->via_queued_s : 0;
    free(v->gpu);
    v->gpu = r->o->gpu_name ? strdup(r->o->gpu_name) : NULL;
    result_set_text(&v->arch, r->tc->arch);
    free(v->cpu_status);
    v->cpu_status = cpu_status && *cpu_status ? strdup(cpu_status) : NULL;
    free(v->failed);
    v->failed = failed && *failed ? strdup(failed) : NULL;
    v->retry_s = v->failed ? retry_s : 0;
}

/* The GPU side failed just now: the CPU tier's verdict, and the failure
 * remembered so that the checks of the next VIA_RETRY_S seconds do not
 * wait on the command again.  A run the student cancelled is no failure. */
static void gpu_failed(struct check_state *r, struct result *cpu, const char *cpu_status, const char *why)
{
    keep_cpu(r, cpu);
    if (!atomic_load(&via_cancel))
        via_memo_failure(r->o->gpu_via_memo, r->o->gpu_via, why);
    via_record(r, 0, cpu_status, why, VIA_RETRY_S);
}

/* The last message of the result, for "found no CUDA device (...)". */
static const char *last_message(const struct check_state *r)
{
    return r->res->nmsgs ? r->res->messages[r->res->nmsgs - 1] : "";
}

int via_stage(struct check_state *r)
{
    const char *off = getenv("CUDATUTOR_NO_EMULATOR");
    char cpu_status[24] = "";
    struct result cpu = {0};
    int rc = 0;

    if (!(off && *off) && judge_cpu_exists(r)) {
        r->emulated = 1;
        if ((rc = judge_run(r)) != 0)
            return rc;
        enum status st = check_get_status(r);
        util_copy(cpu_status, sizeof cpu_status, status_name(st));
        /* A wrong result, a fault, a race or a rule broken is the verdict:
         * no GPU is waited for.  What the emulator cannot run or finish is
         * the GPU's to judge. */
        if (st != STATUS_PASS && st != STATUS_NO_GPU && st != STATUS_TIMEOUT) {
            via_record(r, 0, cpu_status, NULL, 0);
            return 0;
        }
        if (result_copy(r->res, &cpu))
            return -1;
        r->trials_t0 = r->trials_w0 = 0;
        r->trials_done = 0;
        r->last_stage[0] = '\0';
        memset(&r->hx_waits, 0, sizeof r->hx_waits);
    }
    if (r->o->gpu_via_error) {
        keep_cpu(r, &cpu);
        via_record(r, 0, cpu_status, r->o->gpu_via_error, r->o->gpu_via_retry_s);
        goto out;
    }
    r->emulated = 0;
    r->judge_elsewhere = via_run;
    rc = judge_run(r);
    r->judge_elsewhere = NULL;
    if (rc < 0)
        goto out;
    if (rc > 0) {
        rc = 0;
        gpu_failed(r, &cpu, cpu_status, r->via_note);
        goto out;
    }
    if (check_get_status(r) == STATUS_NO_GPU) {
        char why[400];
        snprintf(why, sizeof why, "the GPU run found no CUDA device at the other end of `%s` (%s)", r->o->gpu_via,
                 last_message(r));
        gpu_failed(r, &cpu, cpu_status, why);
        goto out;
    }
    /* The GPU's report replaces the CPU tier's. */
    result_drop_emulator(r->res);
    via_memo_success(r->o->gpu_via_memo, r->o->gpu_via);
    via_record(r, 1, cpu_status, NULL, 0);
out:
    result_free(&cpu);
    return rc;
}
