/* check_judge.c — the judge stage of a check: runs the family's prebuilt
 * judge (tutor/harness/) with the student's runner and device code, as a
 * child with a wall-clock limit, reading its progress on a private channel
 * (proc's channel fd) and merging its report into the check's.  When that
 * judge finds no GPU, the family's CPU judge runs the same trials on the
 * PTX emulator (docs/harness.md, "The CPU tier").
 *
 * What the student's code prints reaches the check in two places, both
 * plain text and never protocol: the judge's stdout and stderr (a kernel's
 * printf lands there) and the runner's output file (its host code's). */
#include <pthread.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_stage.h"
#include "model/result.h"
#include "sys/util.h"

static void cpu_beside_end(struct check_state *r);

static double run_grace(void *ud)
{
    return waits_grace(&((struct check_state *)ud)->hx_waits);
}

/* The CPU judge's trials are its whole run, and share no GPU: they get
 * the run's limit. */
static double trials_limit(const struct check_state *r)
{
    double scale = r->o->timeout_scale > 0 ? r->o->timeout_scale : 1;
    return (r->emulated ? r->lab->family->timeout_s : r->lab->family->trials_timeout_s) * scale;
}

/* While the trials run they have their own, shorter limit (the catalog's
 * trials_timeout_s): a kernel that never ends is stopped after it, not
 * after the whole run's limit — in a grader it holds the GPU meanwhile, and
 * no other run can time a kernel beside it.  0 when the trials are not
 * running. */
static double trials_cutoff(const struct check_state *r)
{
    if (!r->trials_t0 || r->trials_done)
        return 0;
    return r->trials_t0 + trials_limit(r) + waits_grace(&r->hx_waits) - r->trials_w0;
}

/* The judge ends by the trials' cutoff or the whole check's, the sooner. */
static double run_cutoff(void *ud)
{
    const struct check_state *r = ud;
    double trials = trials_cutoff(r), whole = check_deadline(r, waits_grace(&r->hx_waits));
    return trials > 0 && trials < whole ? trials : whole;
}

/* "@stage correctness 3/32 n=31" from the judge becomes a progress call;
 * "@gpu ..." lines are its waits; "@passed correctness" ends the trials and
 * starts the race checkers, whose trials then wait for the timing to end.
 * These come on the judge's private channel only: a kernel that prints
 * them on stdout changes nothing. */
static void on_line(void *ud, const char *line)
{
    struct check_state *r = ud;
    char name[32];
    int i = 0, n = 0, off = 0;
    if (!strncmp(line, "@gpu ", 5))
        waits_line(&r->hx_waits, line);
    if (!strcmp(line, "@passed correctness")) {
        r->trials_done = 1;
        if (r->trials_passed)
            r->trials_passed(r);
    }
    if (strncmp(line, "@stage ", 7))
        return;
    if (sscanf(line + 7, "%31s %d/%d %n", name, &i, &n, &off) < 3)
        return;
    enum stage_id s = stage_from_name(name);
    if (s == STAGE_COUNT)
        return;
    /* the GPU judge found a GPU after all: the CPU judge beside it goes */
    if (s == STAGE_CORRECTNESS && !r->emulated && r->cpu_beside) {
        cpu_beside_end(r);
        counters_ahead_end(r);
    }
    if (s == STAGE_CORRECTNESS && !r->trials_t0) {
        r->trials_t0 = util_now();
        r->trials_w0 = waits_grace(&r->hx_waits);
    }
    util_copy(r->last_stage, sizeof r->last_stage, line + 7);
    check_progress(r, s, i, n, line + 7 + off);
}

/* A rejected plan names what it broke like the build's rules do, so that
 * every rejection's summary reads the same: the meaning, then "uses X —
 * rule". */
static void plan_violation(struct check_state *r)
{
    if (r->res->plan_violation && check_get_status(r) == STATUS_REJECTED && r->res->have_violations)
        result_add_violation(r->res, PLAN_SYMBOL, r->res->plan_violation, 0);
}

/* The student's text: what the kernels printed (the judge's stdout and
 * stderr) and then what the host code printed (the runner's file); the
 * last OUTPUT_KEEP bytes of the two together, like any output. */
static void add_output(struct check_state *r, const struct proc_result *pr)
{
    char *path = judge_runner_out(r, "check");
    char *host = path ? util_read_file(path, NULL) : NULL;
    char *all = util_format("%s%s%s", pr->output, host && *host && *pr->output ? "\n" : "", host ? host : "");
    size_t len = all ? strlen(all) : 0;
    const char *kept = all ? check_tail(all, OUTPUT_KEEP) : "";
    size_t dropped = pr->dropped + (len - strlen(kept));
    char *text = pr->dropped ? util_format("%s\n[... %zu more bytes of output dropped]", kept, dropped)
                             : strdup(kept);
    result_set_text(&r->res->output, text);
    r->res->have_output = 1;
    free(text);
    free(all);
    free(host);
    free(path);
}

/* The CPU judge's address space: the catalog's bound for the family.  The
 * student's PTX runs in that process, and an emulated kernel's memory (a
 * large __device__ array, its shadow, its registers) is the host's. */
static size_t cpu_judge_bytes(const struct check_state *r)
{
    return (size_t)r->lab->family->emu_memory_mib << 20;
}

/* The judge's process: its command line, where its report goes, and how
 * it is run (proc_spec); started at once, or ahead of the build by
 * judge_early_begin. */
struct judge_job {
    char *json;
    char **argv;
    struct proc_spec spec;
    struct proc_result pr;
    struct proc *p;         /* an early judge, started and waiting at its gate */
    int gate;               /* the gate's write end; -1 once opened or shut */
    double t0;              /* when the process started */
    double opened;          /* when its gate opened */
    atomic_int cancel;
};

static void job_free(struct judge_job *j)
{
    if (!j)
        return;
    if (j->gate >= 0)
        close(j->gate);
    judge_argv_free(j->argv);
    free(j->json);
    proc_result_free(&j->pr);
    free(j);
}

/* The judge's time before the gate opened is the build's, not its own. */
static double early_grace(void *ud)
{
    const struct check_state *r = ud;
    return run_grace(ud) + r->gate_wait_s;
}

static struct judge_job *job_new(struct check_state *r, int early)
{
    struct judge_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->gate = -1;
    /* the CPU judge's report apart: it may run beside the GPU judge's dry
     * run (judge_early_begin) */
    if (!(j->json = util_format("%s/%sharness.json", r->dir, r->emulated ? "cpu-" : "")))
        goto fail;
    unlink(j->json);
    j->argv = judge_argv(r, j->json, "check", r->lab->family->sizes, r->lab->family->nsizes,
                         JUDGE_PERF | (early ? JUDGE_GATE : 0));
    if (!j->argv)
        goto fail;
    j->spec = (struct proc_spec){.argv = j->argv, .cwd = r->dir, .timeout_s = check_timeout(r),
                                 .output_cap = OUTPUT_KEEP * 8, .on_line = on_line, .ud = r,
                                 .grace = early ? early_grace : run_grace, .cutoff = run_cutoff, .channel = 1,
                                 .as_bytes = r->emulated ? cpu_judge_bytes(r) : 0, .cancel = &j->cancel};
    return j;
fail:
    job_free(j);
    return NULL;
}

/* The judge's report into the check's, once its process ended. */
static void job_collect(struct check_state *r, struct judge_job *j)
{
    struct proc_result *pr = &j->pr;
    r->res->run_s = pr->seconds - r->gate_wait_s;
    r->res->have_run_s = 1;
    add_output(r, pr);

    char *text = pr->timed_out ? NULL : util_read_file(j->json, NULL), merr[128];
    int merged = text && result_merge_judge(r->res, text, merr, sizeof merr) == 0;
    free(text);
    /* Which bound ended it: the trials', the whole check's, or the
     * judge's own run limit. */
    double now = util_now(), trials = trials_cutoff(r), whole = check_deadline(r, waits_grace(&r->hx_waits));
    if (pr->timed_out && trials > 0 && now >= trials) {
        check_set_status(r, STATUS_TIMEOUT);
        check_message(r, "timed out after %.0f s: the correctness trials ran past their %g s limit "
                         "during %s: the whole process group was killed",
                      pr->seconds, trials_limit(r), r->last_stage);
    } else if (pr->timed_out && now >= whole) {
        check_set_status(r, STATUS_TIMEOUT);
        check_message(r, "timed out after %.0f s: the check ran past its %g s bound (time waiting for "
                         "the GPU not counted)%s%s: the whole process group was killed",
                      pr->seconds, check_bound(r), r->last_stage[0] ? " during " : "", r->last_stage);
    } else if (pr->timed_out) {
        check_set_status(r, STATUS_TIMEOUT);
        check_message(r, "timed out after %.0f s: the judge ran past its %g s limit%s%s: the whole "
                         "process group was killed",
                      pr->seconds, check_timeout(r), r->last_stage[0] ? " during " : "", r->last_stage);
    } else if (!merged) {
        char why[200];
        proc_describe(pr, why, sizeof why);
        check_set_status(r, pr->started ? STATUS_RUNTIME_ERROR : STATUS_INTERNAL_ERROR);
        check_message(r, "the judge ended without a report (%s)%s%s", why,
                      r->last_stage[0] ? " during " : "", r->last_stage);
    } else {
        plan_violation(r);
    }
}

/* A judge may start while nvcc still compiles: its process, the CUDA
 * context and the device's figures cost a GPU check a few tenths of a
 * second that the compile hides.  It waits at its gate (--gate) for the
 * build, reading none of the student's files until then.  Only for a
 * check of its own: a grader's runs (a GPU lock given, a sandbox prefix)
 * would hold a share of the GPU through a compile, and --gpu-via,
 * --build-only, --run-only and a trace run no judge here after a build.
 * CUDATUTOR_JUDGE_EARLY=0 turns it off (to measure what it saves). */
static struct judge_job *job_early(struct check_state *r)
{
    int gate[2] = {-1, -1};
    struct judge_job *j = NULL;

    /* a socket, not a pipe: the word goes with MSG_NOSIGNAL, so a judge
     * gone before it costs the check no SIGPIPE */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, gate) || !(j = job_new(r, 1)))
        goto fail;
    j->spec.in_fd = gate[0];
    j->p = proc_start(&j->spec, &j->pr);
    close(gate[0]);
    gate[0] = -1;
    if (!j->p)
        goto fail;
    j->gate = gate[1];
    j->t0 = util_now();
    return j;
fail:
    if (gate[0] >= 0)
        close(gate[0]);
    if (gate[1] >= 0)
        close(gate[1]);
    job_free(j);
    return NULL;
}

/* Lets an early judge past its gate: the build is whole.  A judge that
 * could not start, or died at its gate, reads no word: its end is told as
 * any judge's that left no report. */
static void job_open(struct judge_job *j)
{
    char go = 'g';
    if (j->gate < 0)
        return;
    if (j->pr.started)
        (void)!send(j->gate, &go, 1, MSG_NOSIGNAL);
    close(j->gate);
    j->gate = -1;
    j->opened = util_now();
}

/* Stops an early judge the check will not use, wherever it is. */
static void job_withdraw(struct judge_job *j)
{
    if (!j)
        return;
    if (j->gate >= 0)
        close(j->gate);
    j->gate = -1;
    atomic_store(&j->cancel, 1);
    proc_wait(j->p);
    job_free(j);
}

/* Whether this machine shows no GPU a CUDA program could open: neither
 * the NVIDIA driver's control device nor WSL's GPU.  Then the GPU judge
 * will find none, and the CPU judge can run beside it. */
static int no_gpu_here(void)
{
    return access("/dev/nvidiactl", F_OK) != 0 && access("/dev/dxg", F_OK) != 0;
}

/* Without a GPU, the CPU judge starts beside the GPU judge once the build
 * is whole (its gate opens), with its profiles: its run goes on while
 * the GPU judge checks the launcher's plans by the stand-in device.  Not
 * before: it reads the cubin's register counts as it starts.  The GPU
 * judge's verdict still comes first (stage_judge): the CPU judge's counts
 * only when that one is no_gpu, and is withdrawn otherwise.
 * CUDATUTOR_NO_EMULATOR asks for the plans alone. */
static void cpu_beside_begin(struct check_state *r)
{
    const char *off = getenv("CUDATUTOR_NO_EMULATOR");
    struct judge_job *j;
    if (r->cpu_beside || r->emulated || (off && *off) || !no_gpu_here() || !judge_cpu_exists(r))
        return;
    r->emulated = 1;
    if ((j = job_new(r, 0)) && (j->p = proc_start(&j->spec, &j->pr))) {
        j->t0 = j->opened = util_now();
        r->cpu_beside = j;
        counters_ahead(r);
    } else {
        job_free(j);
    }
    r->emulated = 0;
}

static void cpu_beside_end(struct check_state *r)
{
    struct judge_job *j = r->cpu_beside;
    r->cpu_beside = NULL;
    job_withdraw(j);
}

void judge_early_begin(struct check_state *r)
{
    const char *env = getenv("CUDATUTOR_JUDGE_EARLY");
    const struct check_opts *o = r->o;

    if ((env && !strcmp(env, "0")) || o->gpu_via || o->run_only || o->build_only || o->trace || o->wrap ||
        o->gpu_lock || r->early || r->emulated)
        return;
    r->early = job_early(r);
}

void judge_early_end(struct check_state *r)
{
    struct judge_job *j = r->early;
    r->early = NULL;
    job_withdraw(j);
    cpu_beside_end(r);
}

int judge_run(struct check_state *r)
{
    struct judge_job *j = NULL;
    int rc = -1;

    /* the early judge of this kind, else one started now */
    if (r->early && !r->emulated) {
        j = r->early;
        r->early = NULL;
    } else if (r->cpu_beside && r->emulated) {
        j = r->cpu_beside;
        r->cpu_beside = NULL;
    } else {
        judge_early_end(r);
        if (!(j = job_new(r, 0)))
            goto out;
    }
    check_progress(r, STAGE_CORRECTNESS, 0, r->lab->family->nsizes, "starting");
    r->last_stage[0] = '\0';
    r->run_t0 = util_now();
    if (j->p) {
        job_open(j);
        cpu_beside_begin(r);
        r->run_t0 = j->opened;
        r->gate_wait_s = j->opened - j->t0;
        proc_wait(j->p);
        j->p = NULL;
    } else {
        r->gate_wait_s = 0;
        int ran = r->judge_elsewhere && !r->emulated ? r->judge_elsewhere(r, &j->spec, &j->pr)
                                                     : proc_run(&j->spec, &j->pr);
        if (ran) {
            if (ran > 0)
                rc = ran;
            else
                check_message(r, "%s", j->pr.error);
            goto out;
        }
    }
    job_collect(r, j);
    rc = 0;
out:
    job_free(j);
    return rc;
}

int judge_cpu_exists(const struct check_state *r)
{
    char *cpu = util_format("%s/judge_cpu_%s", r->tc->harness_dir, r->lab->family->name);
    int have = cpu && util_is_file(cpu);
    free(cpu);
    return have;
}

/* On a GPU, once the trials passed: the CPU judge again at the small trial
 * sizes, whose race and bounds checks see every access under clocks that
 * advance as on the GPU, so a kernel that takes a safe path only when a
 * race checker slows it down is judged on the path it really takes.  A
 * hazard, a fault or a wrong result there is the verdict.  Anything else
 * short of a clean finish (a form the emulator does not run, its budget
 * or its time spent: what a kernel could do on purpose to dodge it) is
 * kept in r->hazard_open, and the GPU's pass then rests on the race
 * checkers (stage_run).  It needs no GPU, so it starts when the trials
 * pass and runs while the judge times the kernel. */
struct hazard_job {
    char *json;
    char **argv;
    struct proc_spec spec;
    struct proc_result pr;
    atomic_int cancel;
    pthread_t thread;
    int rc;
};

static void *hazard_thread(void *arg)
{
    struct hazard_job *h = arg;
    h->rc = proc_run(&h->spec, &h->pr);
    return NULL;
}

static void hazard_free(struct hazard_job *h)
{
    judge_argv_free(h->argv);
    free(h->json);
    proc_result_free(&h->pr);
    free(h);
}

void hazard_begin(struct check_state *r)
{
    const struct family_spec *f = r->lab->family;
    unsigned long long *sizes = NULL;
    struct hazard_job *h = NULL;
    int n = 0;

    if (r->hz || !r->hazard_wanted || !(h = calloc(1, sizeof *h)))
        return;
    if (!(sizes = calloc((size_t)f->nsizes + 1, sizeof *sizes)))
        goto fail;
    for (int i = 0; i < f->nsizes; i++)
        if (f->sizes[i] <= f->hazard_max_n)
            sizes[n++] = f->sizes[i];
    if (n == 0 || !(h->json = util_format("%s/hazard.json", r->dir)))
        goto fail;
    unlink(h->json);
    r->emulated = 1;
    h->argv = judge_argv(r, h->json, "check", sizes, n, 0);
    r->emulated = 0;
    if (!h->argv)
        goto fail;
    h->spec = (struct proc_spec){.argv = h->argv, .cwd = r->dir, .timeout_s = f->trials_timeout_s * 2.0,
                                 .output_cap = OUTPUT_KEEP, .channel = 1, .as_bytes = cpu_judge_bytes(r),
                                 .cancel = &h->cancel};
    h->rc = -1;
    if (pthread_create(&h->thread, NULL, hazard_thread, h))
        goto fail;
    free(sizes);
    r->hz = h;
    return;
fail:
    free(sizes);
    hazard_free(h);
}

/* The finished pass's verdict into the report (see hazard_job). */
static int hazard_record(struct check_state *r, struct hazard_job *hz)
{
    const struct family_spec *f = r->lab->family;
    struct proc_result *pr = &hz->pr;
    char *text = NULL, err[128];
    struct result h = {0};

    if (hz->rc)
        return -1;
    text = pr->timed_out ? NULL : util_read_file(hz->json, NULL);
    int status = text && result_merge_judge(&h, text, err, sizeof err) == 0 ? (int)h.status : -1;
    r->res->hazard_pass_s = pr->seconds;
    r->res->have_hazard_pass_s = 1;
    if (status != STATUS_FAIL && status != STATUS_RUNTIME_ERROR) {
        const char *note = h.nmsgs ? h.messages[h.nmsgs - 1] : "";
        if (pr->timed_out)
            snprintf(r->hazard_open, sizeof r->hazard_open, "it ran past its %.0f s",
                     f->trials_timeout_s * 2.0);
        else if (status != STATUS_PASS)
            snprintf(r->hazard_open, sizeof r->hazard_open, "it ended %s%s%.160s",
                     status < 0 ? "without a report" : status_name((enum status)status),
                     note[0] ? ": " : "", note);
        goto out;
    }
    const char *why = NULL;
    for (int i = 0; i < h.ntests && !why; i++)
        if (!h.tests[i].pass && h.tests[i].have_message)
            why = h.tests[i].message;
    if (!why)
        why = h.nmsgs ? h.messages[h.nmsgs - 1] : "";
    check_set_status(r, (enum status)status);
    check_message(r, "the CPU emulator's race and bounds check (the trials up to n=%llu, each access seen): %s",
                  f->hazard_max_n, why);
out:
    result_free(&h);
    free(text);
    return 0;
}

int hazard_end(struct check_state *r, int record)
{
    struct hazard_job *h = r->hz;
    int rc = 0;
    if (!h)
        return record ? -1 : 0;
    if (!record)
        atomic_store(&h->cancel, 1);
    pthread_join(h->thread, NULL);
    r->hz = NULL;
    if (record)
        rc = hazard_record(r, h);
    hazard_free(h);
    return rc;
}

int stage_judge(struct check_state *r)
{
    const char *off = getenv("CUDATUTOR_NO_EMULATOR");
    /* The hazard pass may start while the judge runs (hazard_begin, when
     * its trials pass); a kernel the judge did not pass needs none. */
    r->hazard_wanted = !(off && *off) && judge_cpu_exists(r);
    int rc = judge_run(r);
    int cpu_next = !rc && check_get_status(r) == STATUS_NO_GPU && !(off && *off) && judge_cpu_exists(r);
    /* a CPU judge started beside this one, and its profiles, serve the
     * CPU judge's run alone */
    if (!cpu_next) {
        cpu_beside_end(r);
        counters_ahead_end(r);
    }
    if (!rc && check_get_status(r) == STATUS_PASS && r->hazard_wanted) {
        hazard_begin(r);    /* not yet begun when the run had nothing to time */
        rc = hazard_end(r, 1);
        r->hazard_wanted = 0;
        return rc;
    }
    r->hazard_wanted = 0;
    hazard_end(r, 0);
    if (!cpu_next)
        return rc;
    /* No GPU: the plans were checked against the PTX; now the trials run
     * on the emulator, when this build has the CPU judges and
     * $CUDATUTOR_NO_EMULATOR does not ask to stop at the plans.  The GPU
     * judge's start is not skipped on a machine known to have no GPU:
     * its dry run judges a plan by the stand-in device (a cooperative
     * grid beyond what is resident: tests/bank's grid_sync_too_large),
     * where the CPU judge alone reaches another verdict, and its report
     * of a plan it refuses is the one graded (device null).  The CPU
     * judge may have run beside it (cpu_beside_begin). */
    r->emulated = 1;
    r->trials_t0 = r->trials_w0 = 0;
    r->trials_done = 0;
    counters_ahead(r);
    return judge_run(r);
}
