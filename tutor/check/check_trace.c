/* check_trace.c — `cudatutor trace`: the student's kernel built as for a
 * check, then one call of it on the CPU judge at a small n (the profile
 * mode, every launch's non-arithmetic steps written by the emulator's
 * trace hook, tutor/emu/emu_trace.h), and how that call ended: a pass, or
 * the hazard or fault that stopped it, whose step the picture ends on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check.h"
#include "check/check_stage.h"
#include "sys/util.h"

int stage_trace(struct check_state *r)
{
    unsigned long long n = r->o->trace_n ? r->o->trace_n : CHECK_TRACE_N;
    char *json = util_format("%s/trace.json", r->dir), *nword = util_format("%llu", n), *argv[128] = {0};
    char **hx = NULL, *text = NULL, err[160];
    struct proc_result pr = {0};
    int a = 0, rc = -1;

    /* the picture is the emulator's, with or without a GPU */
    r->emulated = 1;
    if (!json || !nword || !(hx = judge_argv(r, json, "profile", &n, 1, 0)))
        goto out;
    check_progress(r, STAGE_TRACE, 0, 0, "the emulator");
    for (int i = 0; hx[i] && a < 120; i++)
        argv[a++] = hx[i];
    argv[a++] = "--profile-n";
    argv[a++] = nword;
    argv[a++] = "--trace";
    argv[a++] = (char *)r->o->trace;
    unlink(r->o->trace);
    unlink(json);
    struct proc_spec spec = {.argv = argv, .cwd = r->dir, .timeout_s = check_timeout(r),
                             .output_cap = OUTPUT_KEEP, .channel = 1,
                             .as_bytes = (size_t)r->lab->family->emu_memory_mib << 20};
    if (proc_run(&spec, &pr) || (!pr.exited && !pr.signaled)) {
        check_message(r, "the CPU judge could not run");
        check_set_status(r, STATUS_INTERNAL_ERROR);
        goto out;
    }
    text = util_read_file(json, NULL);
    if (!text || result_merge_judge(r->res, text, err, sizeof err)) {
        char why[160];
        proc_describe(&pr, why, sizeof why);
        check_message(r, "the CPU judge left no report (%s)", why);
        check_set_status(r, STATUS_INTERNAL_ERROR);
        goto out;
    }
    rc = 0;
out:
    proc_result_free(&pr);
    judge_argv_free(hx);
    free(text);
    free(nword);
    free(json);
    return rc;
}

void check_trace_opts(struct check_opts *o, const char *file, const char *work_dir, const char *steps)
{
    memset(o, 0, sizeof *o);
    o->file = file;
    o->work_dir = work_dir;
    o->trace = steps;
    o->trace_n = CHECK_TRACE_N;
    o->seed = 1;
    o->have_seed = 1;
}

char *check_trace_dir(const struct toolchain *tc, const struct lab *lab)
{
    return util_format("%s/trace/%s", tc->build_dir, lab->id);
}

const char *check_trace_stopped(const struct result *res)
{
    if (res->status == STATUS_PASS || !res->nmsgs)
        return res->status == STATUS_PASS ? NULL : status_name(res->status);
    return res->messages[res->nmsgs - 1];
}
