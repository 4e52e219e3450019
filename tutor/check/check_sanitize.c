/* check_sanitize.c — the race checkers: compute-sanitizer's racecheck,
 * synccheck and memcheck, each around a judge in sanitize mode on small
 * sizes.  They start when the judge's trials pass and overlap its timing
 * (their trials wait for the timed section through the GPU lock), and a
 * kernel that failed already has them stopped.  Only the judge is
 * instrumented (--target-processes application-only): the runner it starts
 * runs no GPU code, and cannot tell it runs under a tool. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_stage.h"
#include "emu/emu_ptxscan.h"
#include "model/result.h"
#include "sys/util.h"

/* Keeps the "=========" lines of a compute-sanitizer report, at most 12. */
static char *sanitizer_excerpt(const char *out, int *hazards)
{
    size_t cap = 4096, used = 0;
    char *s = calloc(cap, 1);
    int lines = 0;
    *hazards = 0;
    for (const char *p = out; s && *p;) {
        const char *eol = strchr(p, '\n');
        size_t l = eol ? (size_t)(eol - p) : strlen(p);
        if (!strncmp(p, "========= ", 10)) {
            if (strstr(p, "Error") || strstr(p, "Hazard") || strstr(p, "hazard") ||
                strstr(p, "Invalid") || strstr(p, "Barrier"))
                (*hazards)++;
            if (lines++ < 12 && used + l + 2 < cap) {
                memcpy(s + used, p, l);
                used += l;
                s[used++] = '\n';
            }
        }
        p += l + (eol ? 1 : 0);
    }
    return s;
}

static const char *const san_tools[] = CHECK_SAN_TOOLS;
enum { SAN_TOOLS = sizeof san_tools / sizeof san_tools[0] };

/* One compute-sanitizer tool run over the harness in sanitize mode. */
struct san_job {
    struct check_state *run;
    const char *tool;
    char *json;
    char **hx;
    char *argv[128];
    char *kernels[CHECK_SAN_KERNELS_MAX];  /* "kne=NAME" of each of the student's kernels */
    int nkernels;
    struct proc_spec spec;
    struct proc_result pr;
    struct waits waits;
    double judge_waited;    /* the judge's waits for the GPU when this tool started */
    int rc, started;
    int relayed;            /* run beside the judge at the far end of --gpu-via */
    int batched;            /* ran clean in a grader's batch (--sanitized): its report is here */
    struct via_job via;
    pthread_t thread;
};

static void san_line(void *ud, const char *line)
{
    if (!strncmp(line, "@gpu ", 5))
        waits_line(&((struct san_job *)ud)->waits, line);
}

static double san_grace(void *ud)
{
    return waits_grace(&((struct san_job *)ud)->waits);
}

/* A tool ends by the whole check's bound, the judge's waits for the GPU
 * before it started and its own forgiven.  Asked in the tool's thread: it
 * reads nothing the judge's thread writes. */
static double san_cutoff(void *ud)
{
    const struct san_job *j = ud;
    return check_deadline(j->run, j->judge_waited + waits_grace(&j->waits));
}

static void *san_thread(void *arg)
{
    struct san_job *j = arg;
    j->rc = proc_run(&j->spec, &j->pr);
    return NULL;
}

static int kernel_add(void *ud, const char *name, int len)
{
    struct san_job *j = ud;
    if (j->nkernels == CHECK_SAN_KERNELS_MAX)
        return 1;
    return !(j->kernels[j->nkernels++] = util_format("kne=%.*s", len, name));
}

/* A tool's cost is per launch watched, and most of a trial's launches are
 * the judge's own (its inputs, its checks, the baseline), whose accesses,
 * barriers and races are not the student's to answer for: watching only
 * the kernels the student's module defines took a lab 07 racecheck run
 * from 2.8 s to 1.0 s on an H200 (6.7 to 1.1 CPU seconds).  Every launch
 * of the student's code is of one of them: the runner has no GPU code, and
 * the judge launches only the module's entries.  A module whose PTX cannot
 * be read, or with more kernels than the filter takes, is watched whole. */
static void san_kernels(struct check_state *r, struct san_job *j)
{
    size_t len = 0;
    char *ptx = r->ptx ? util_read_file(r->ptx, &len) : NULL;
    if (!ptx || emu_ptx_entries(ptx, len, kernel_add, j) || j->nkernels == 0) {
        for (int i = 0; i < j->nkernels; i++)
            free(j->kernels[i]);
        j->nkernels = 0;
    }
    free(ptx);
}

static int san_prepare(struct check_state *r, struct san_job *j, const char *tool)
{
    const struct family_spec *f = r->lab->family;
    int a = 0, skip = 0;

    j->run = r;
    j->judge_waited = waits_grace(&r->hx_waits);
    j->tool = tool;
    j->rc = -1;
    j->json = util_format("%s/sanitize-%s.json", r->dir, tool);
    if (!j->json)
        return -1;
    j->hx = judge_argv(r, j->json, "sanitize", f->sanitize_sizes, f->nsanitize, 0);
    if (!j->hx)
        return -1;
    /* The sandbox prefix, if any, goes in front of compute-sanitizer. */
    for (skip = judge_wrap_words(r); a < skip; a++)
        j->argv[a] = j->hx[a];
    j->argv[a++] = r->tc->sanitizer;
    const char *const options[] = {CHECK_SAN_OPTIONS(tool)};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        j->argv[a++] = (char *)options[i];
    san_kernels(r, j);
    for (int i = 0; i < j->nkernels; i++) {
        j->argv[a++] = "--kernel-name";
        j->argv[a++] = j->kernels[i];
    }
    for (int i = skip; j->hx[i] && a < 126; i++)
        j->argv[a++] = j->hx[i];
    j->spec = (struct proc_spec){.argv = j->argv, .cwd = r->dir, .timeout_s = check_timeout(r) * 3,
                                 .output_cap = OUTPUT_KEEP * 8, .on_line = san_line, .ud = j,
                                 .grace = san_grace, .cutoff = san_cutoff, .cancel = &r->san_cancel,
                                 .channel = 1};
    return 0;
}

/* What one tool's run makes of the kernel. */
enum san_verdict { SAN_CLEAN, SAN_DIRTY, SAN_TIMEOUT };

/* Records one tool's findings and says what they make of the kernel. */
static enum san_verdict san_record(struct check_state *r, struct san_job *j)
{
    int hazards;
    enum san_verdict v = SAN_CLEAN;
    if (j->rc != 0) {
        check_message(r, "%s could not start: %s", j->tool, j->pr.error);
        return SAN_CLEAN;
    }
    char *excerpt = sanitizer_excerpt(j->pr.output, &hazards);
    int clean = j->pr.exited && j->pr.exit_code == 0;
    /* The harness under the tool writes its own report: a kernel that went
     * wrong there (instrumentation changes timing, which races feel) fails
     * even when the tool itself saw nothing. */
    char *text = util_read_file(j->json, NULL), err[128];
    struct result h = {0};
    const char *hs = text && result_merge_judge(&h, text, err, sizeof err) == 0 ? status_name(h.status) : NULL;
    result_add_san_tool(r->res, j->tool, clean, j->batched ? h.harness_s : j->pr.seconds, excerpt ? excerpt : "");
    if (j->pr.exited && j->pr.exit_code == CHECK_SAN_EXIT) {
        v = SAN_DIRTY;
        check_message(r, "%s found %d problem line(s): see the sanitizer report", j->tool, hazards);
    } else if (hs && h.status != STATUS_PASS && h.status != STATUS_NO_GPU) {
        v = SAN_DIRTY;
        check_message(r, "under %s the kernel's run ended in %s", j->tool, hs);
    } else if (j->pr.timed_out && util_now() >= san_cutoff(j)) {
        v = SAN_TIMEOUT;
        check_message(r, "timed out after %.0f s under %s: the check ran past its %g s bound (the judge "
                         "and the race checkers together; time waiting for the GPU not counted)",
                      util_now() - r->run_t0, j->tool, check_bound(r));
    } else if (!clean) {
        char why[160];
        proc_describe(&j->pr, why, sizeof why);
        check_message(r, "%s could not judge the kernel (%s)", j->tool, why);
        v = j->pr.timed_out ? SAN_DIRTY : SAN_CLEAN;
    }
    result_free(&h);
    free(text);
    free(excerpt);
    return v;
}

/* Whether job j's tool ran clean over this build in a grader's batch:
 * --sanitized names it, and its report there is this build's pass (its
 * seed).  A tool named without one runs as it would without a batch. */
static int san_batched(const struct check_state *r, const struct san_job *j)
{
    size_t n = strlen(j->tool);
    int named = 0;
    for (const char *p = r->o->sanitized; p && *p && !named; p += strcspn(p, ","), p += *p == ',')
        named = strcspn(p, ",") == n && !strncmp(p, j->tool, n);
    if (!named)
        return 0;
    char *text = util_read_file(j->json, NULL), err[128];
    struct result h = {0};
    int passed = text && result_merge_judge(&h, text, err, sizeof err) == 0 && h.status == STATUS_PASS &&
                 h.seed == r->seed;
    result_free(&h);
    free(text);
    return passed;
}

/* One tool's line of the batch file, into f: 0, or -1 when a word cannot
 * be written (a tab or a line break in it). */
static int batch_line(FILE *f, struct san_job *j, int skip)
{
    int bad = 0;
    fprintf(f, "%s\t%s\t", j->tool, j->argv[skip]);
    for (int i = 0; i < j->nkernels; i++)
        fprintf(f, "%s%s", i ? "," : "", j->kernels[i] + 4);   /* past "kne=" */
    for (int i = skip; j->hx[i]; i++) {
        bad |= j->hx[i][strcspn(j->hx[i], "\t\n")] != 0;
        fprintf(f, "\t%s", j->hx[i]);
    }
    fputc('\n', f);
    return bad ? -1 : 0;
}

void san_batch_write(struct check_state *r)
{
    char *path = util_format("%s/%s", r->dir, CHECK_SAN_BATCH_FILE), *tmp = util_format("%s/.%s", r->dir, CHECK_SAN_BATCH_FILE);
    FILE *f = tmp ? fopen(tmp, "we") : NULL;
    int bad = !f;
    for (int t = 0; f && t < SAN_TOOLS; t++) {
        struct san_job j = {0};
        bad |= san_prepare(r, &j, san_tools[t]) || batch_line(f, &j, judge_wrap_words(r));
        judge_argv_free(j.hx);
        for (int i = 0; i < j.nkernels; i++)
            free(j.kernels[i]);
        free(j.json);
    }
    if (f && (fclose(f) | bad || rename(tmp, path)))
        unlink(tmp);
    free(path);
    free(tmp);
}

/* Starts the three tools at once, each in a thread: they check small sizes,
 * so the GPU has room, and a student waits for the slowest instead of the
 * sum.  Called when the harness says its trials passed, so they overlap its
 * timing (their own trials wait for the timed section to end); does nothing
 * when they run already or are not wanted. */
void san_begin(struct check_state *r)
{
    /* Through --gpu-via they run beside the judge there, through its relay,
     * and only while it runs (not beside the CPU tier here). */
    if (r->san || (!r->o->sanitize && !r->force_sanitize) || !r->tc->sanitizer || (r->o->gpu_via && !r->via_live))
        return;
    if (!(r->san = calloc(SAN_TOOLS, sizeof *r->san)))
        return;
    r->san_t0 = util_now();
    atomic_store(&r->san_cancel, 0);
    for (int t = 0; t < SAN_TOOLS; t++) {
        struct san_job *j = &r->san[t];
        if (san_prepare(r, j, san_tools[t]) != 0)
            continue;
        if (san_batched(r, j)) {
            /* Its run is over: the tool exited 0 with this build's report
             * written where its own run writes it, which san_record reads. */
            j->pr = (struct proc_result){.started = 1, .exited = 1, .output = calloc(1, 1)};
            j->rc = j->pr.output ? 0 : -1;
            j->started = j->batched = 1;
        } else if (r->o->gpu_via) {
            j->via = (struct via_job){.argv = j->argv, .cwd = j->spec.cwd, .timeout_s = j->spec.timeout_s,
                                      .output_cap = j->spec.output_cap, .file = j->json, .on_line = san_line,
                                      .grace = san_grace, .ud = j};
            j->started = j->relayed = via_submit(r, &j->via) == 0;
        } else
            j->started = pthread_create(&j->thread, NULL, san_thread, j) == 0;
    }
}

/* Waits for the tools; with `record`, their findings go into the report
 * (and fail the kernel when there are any), otherwise they are stopped
 * first and forgotten: a kernel that failed already needs no race report. */
void san_end(struct check_state *r, int record)
{
    int dirty = 0, late = 0;
    if (!r->san)
        return;
    if (!record)
        atomic_store(&r->san_cancel, 1);
    else {
        r->res->have_sanitizer = 1;
        r->res->sanitizer_ran = 1;
    }
    for (int t = 0; t < SAN_TOOLS; t++) {
        struct san_job *j = &r->san[t];
        if (j->started && !j->relayed && !j->batched)
            pthread_join(j->thread, NULL);
        if (j->relayed) {
            /* Its run ended with the relay's; one that did not come back
             * was stopped by the check's bound, or lost with the command
             * (then it could not judge: never the kernel's failing). */
            j->rc = j->via.lost ? -1 : 0;
            j->pr = j->via.pr;
            if (!j->via.done && !j->via.lost) {
                j->pr.started = 1;
                j->pr.timed_out = 1;
            }
            if (!j->pr.output)
                j->pr.output = calloc(1, 1);
        }
        if (record && !j->started)
            check_message(r, "%s could not start", san_tools[t]);
        if (record && j->started) {
            enum san_verdict v = san_record(r, j);
            dirty |= v == SAN_DIRTY;
            late |= v == SAN_TIMEOUT;
        }
        proc_result_free(&j->pr);
        judge_argv_free(j->hx);
        for (int i = 0; i < j->nkernels; i++)
            free(j->kernels[i]);
        free(j->json);
    }
    if (record) {
        r->res->sanitize_s = util_now() - r->san_t0;
        r->res->have_sanitize_s = 1;
    }
    free(r->san);
    r->san = NULL;
    /* A hazard found is a verdict on the kernel whenever it came; a check
     * that ran out of time without one is a timeout. */
    if (dirty)
        check_set_status(r, STATUS_FAIL);
    else if (late)
        check_set_status(r, STATUS_TIMEOUT);
}

/* What the student may know while the race checkers still run: the
 * judge's and the hazard pass's word, the target case's figures, and what
 * is still running (short: the tutor shows 179 characters of a progress
 * detail).  Said as a progress stage ("verdict") so that every front end
 * shows it where it shows progress; the check's result is the final word
 * and waits for the checkers. */
static void early_words(const struct check_state *r, char *buf, size_t len)
{
    const struct rperf *tp = result_target_perf(r->res);
    char figures[160] = "";
    if (tp)
        snprintf(figures, sizeof figures, "; %s in %.3f ms, %.2fx %s", tp->label, tp->median_ms,
                 tp->ratio, tp->ref_name && tp->ref_name[0] ? tp->ref_name : "the baseline");
    if (r->hazard_open[0])
        snprintf(buf, len, "tests passed%s; the emulator's race check did not finish: the pass waits for "
                           "compute-sanitizer, still running", figures);
    else
        snprintf(buf, len, "pass so far: tests passed%s%s; compute-sanitizer still running, and can still turn it",
                 figures, r->res->have_hazard_pass_s ? ", the emulator's race check clean" : "");
}

/* The race checkers' verdict on a kernel that passed its trials. */
int stage_sanitize(struct check_state *r)
{
    if (r->emulated) {
        /* The emulator tracked hazards in every trial: a race already failed. */
        r->res->have_sanitizer = 1;
        result_set_text(&r->res->sanitizer_note, "no GPU: the emulator checked every trial for races and "
                                                 "out-of-bounds accesses itself");
        return 0;
    }
    if (r->o->gpu_via && !r->san && r->o->sanitize) {
        /* Nothing ran beside the judge there (no compute-sanitizer, or the
         * run had no trials to pass). */
        const char *cpu = r->res->gpu_via.cpu_status;
        int emulated = cpu && status_from_name(cpu) == STATUS_PASS;
        r->res->have_sanitizer = 1;
        r->res->sanitizer_ran = 0;
        result_set_text(&r->res->sanitizer_note,
                        emulated ? "the GPU is elsewhere (--gpu-via): the CPU tier's emulator checked every trial "
                                   "up to its bound for races and out-of-bounds accesses"
                                 : "the GPU is elsewhere (--gpu-via) and the emulator did not judge this kernel: "
                                   "races were not checked");
        return 0;
    }
    if ((!r->o->sanitize && !r->force_sanitize) || !r->tc->sanitizer) {
        r->res->have_sanitizer = 1;
        result_set_text(&r->res->sanitizer_note, !r->o->sanitize && !r->force_sanitize
                                                     ? "skipped (--no-sanitize)"
                                                     : "compute-sanitizer not found: races were not checked");
        return 0;
    }
    san_begin(r);       /* not yet begun when the run had nothing to time */
    if (r->san) {
        char words[400];
        early_words(r, words, sizeof words);
        check_progress(r, STAGE_VERDICT, 0, 0, words);
    } else {
        check_progress(r, STAGE_SANITIZE, 0, 0, "racecheck, synccheck and memcheck");
    }
    san_end(r, 1);
    return 0;
}
