/* hx_emu.cu — the CPU judges' side of the CPU tier (docs/harness.md, "The
 * CPU tier"): linked only into build/harness/judge_cpu_*, the judge's own
 * objects with the emulating runtime (tutor/emu/emu_rt.c) in place of
 * libcudart.  The core reaches these through weak declarations (hx.h), so
 * a family never asks which judge it is in: on the CPU it runs its trials
 * as on a GPU, and only what cannot be the same is decided here — which
 * sizes run, that nothing is timed, and what the emulator's stops mean. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../emu/emu_count.h"
#include "../emu/emu_rt.h"
#include "../emu/emu_seal.h"
#include "../emu/emu_trace.h"
#include "hx.h"

namespace hx {

/* The largest trial size emulated when the catalog gives none. */
static const unsigned long long EMU_DEFAULT_MAX_N = 1ull << 20;

/* The emulator's sentence for the first error of the student's code: the
 * CUDA call that returned it records this instead of CUDA's name. */
static void on_student_error(const struct emu_error *err)
{
    set_error_text(err->message);
}

/* The cubin nvcc kept beside the student's PTX (PTX_PATH minus ".ptx",
 * then ".sm_NN.cubin"), into BUF; NULL when there is none.  Its register
 * counts let the emulator refuse a launch a GPU refuses. */
static const char *find_cubin(const char *ptx_path, char *buf, size_t cap)
{
    size_t n = ptx_path ? strlen(ptx_path) : 0;
    glob_t g;
    const char *found = NULL;
    if (n < 4 || strcmp(ptx_path + n - 4, ".ptx") || n + 16 > cap)
        return NULL;
    snprintf(buf, cap, "%.*s.sm_*.cubin", (int)(n - 4), ptx_path);
    if (glob(buf, 0, NULL, &g) == 0 && g.gl_pathc > 0 && strlen(g.gl_pathv[0]) < cap) {
        snprintf(buf, cap, "%s", g.gl_pathv[0]);
        found = buf;
    }
    globfree(&g);
    return found;
}

/* `--trace PATH`: the student's launches' trace (emu_trace.h) as lines of
 * text for `cudatutor trace` (tutor/view/trace.c reads them): "L launch
 * kernel gx gy gz bx by bz" when a launch begins, "F id file" when a
 * source file is first named, and per event "E launch block warp pc kind
 * mask emask bytes file line" and each lane of emask's offset.  The first
 * two blocks of each launch only, and at most TRACE_MAX_EVENTS: the
 * picture is of a small n. */
#define TRACE_MAX_EVENTS 200000
static FILE *trace_file;
static long trace_events;
static uint64_t trace_launch = UINT64_MAX;
static const char *trace_files[32];

static void trace_write(void *ctx, const struct emu_trace_event *ev)
{
    (void)ctx;
    int f = 0;
    if (ev->block >= 2 || trace_events >= TRACE_MAX_EVENTS)
        return;
    trace_events++;
    if (ev->launch != trace_launch) {
        trace_launch = ev->launch;
        fprintf(trace_file, "L %llu %s %u %u %u %u %u %u\n", (unsigned long long)ev->launch, ev->kernel,
                ev->grid[0], ev->grid[1], ev->grid[2], ev->block_dim[0], ev->block_dim[1], ev->block_dim[2]);
    }
    while (f < 32 && trace_files[f] && trace_files[f] != ev->file)
        f++;
    if (f < 32 && !trace_files[f]) {
        trace_files[f] = ev->file;
        fprintf(trace_file, "F %d %s\n", f, ev->file && ev->file[0] ? ev->file : "?");
    }
    fprintf(trace_file, "E %llu %llu %u %u %d %08x %08x %u %d %u", (unsigned long long)ev->launch,
            (unsigned long long)ev->block, ev->warp, ev->pc, (int)ev->kind, ev->mask, ev->emask, ev->bytes,
            f < 32 ? f : -1, ev->line);
    if (ev->kind != EMU_TR_BRANCH && ev->kind != EMU_TR_BARRIER && ev->kind != EMU_TR_EXIT &&
        ev->kind != EMU_TR_OTHER)
        for (uint32_t m = ev->emask; m; m &= m - 1)
            fprintf(trace_file, " %u", ev->off[__builtin_ctz(m)]);
    fputc('\n', trace_file);
}

void emu_prepare(struct opts *o, struct report *r)
{
    unsigned long long bound = o->emu_max_n ? o->emu_max_n : EMU_DEFAULT_MAX_N;
    int kept = 0;

    r->emulated = 1;
    r->emu_max_n = bound;
    for (int i = 0; i < o->nsizes; i++) {
        if (o->sizes[i] <= bound)
            o->sizes[kept++] = o->sizes[i];
        else
            r->not_run[r->nnot_run++] = o->sizes[i];
    }
    o->nsizes = kept;
    /* One size again, the kept one nearest 4096 from 1000 up, with new
     * inputs (a trial's are drawn from its place in the list): a kernel
     * that keeps its results across calls of one size, which a GPU's timed
     * samples catch (tests/bank/mpadd_cached_carries.cu), is caught here
     * too, at the cost of one small trial. */
    int again = -1;
    for (int i = 0; i < kept; i++)
        if (o->sizes[i] >= 1000 &&
            (again < 0 || llabs((long long)o->sizes[i] - 4096) < llabs((long long)o->sizes[again] - 4096)))
            again = i;
    if (again >= 0 && kept < MAX_SIZES)
        o->sizes[o->nsizes++] = o->sizes[again];
    /* A time on the emulator says nothing about a GPU: no timed case, no
     * peak, no CUB timed against the student. */
    o->nperf = 0;
    static char cubin[4096];
    struct emu_rt_options eo = {o->seed, 0, on_student_error, find_cubin(o->ptx, cubin, sizeof cubin),
                                o->mode == MODE_PROFILE, NULL, NULL};
    /* opened now: the seal (emu_seal.h) refuses opening files later */
    if (o->trace_path && o->mode == MODE_PROFILE && (trace_file = fopen(o->trace_path, "w"))) {
        eo.trace = trace_write;
        eo.trace_ctx = NULL;
    }
    emu_rt_configure(&eo);
}

int emu_seal_judge(struct ctx *c)
{
    char why[160];
    if (report_prepare(c->o)) {
        note(c->r, "internal: the CPU judge could not open its report");
        return -1;
    }
    if (emu_seal(plan_runner_pid(), why, sizeof why)) {
        note(c->r, "internal: %s", why);
        return -1;
    }
    return 0;
}

int emu_crosscheck(void)
{
    static int on = -1;
    if (on < 0) {
        const char *v = getenv("HX_JUDGE_CROSSCHECK");
        on = v && *v;
    }
    return on;
}

/* The SMs the families size their own kernels' grids by (dev.sms times a
 * few blocks): on a GPU, enough blocks to fill it; on the emulator, whose
 * blocks run one after another, a thread that finds no element still
 * costs its instructions, and an H100's 1056 blocks of 256 threads cost
 * more than the elements of every trial below 2^16 together.  One SM's
 * worth keeps the grid-stride loops whole.  The report keeps the device
 * the student's launcher was told of (emu_finish puts it back). */
static int emu_sms;

void emu_device(struct ctx *c)
{
    emu_sms = c->r->dev.sms;
    c->r->dev.sms = 1;
}

void emu_bind(struct ctx *c, const struct call *k)
{
    (void)c;
    /* each buffer as the lab gives it (family.h): its bytes for this n,
     * and whether the kernel writes it, so that an access past d_in[n]
     * is named and another block's store after a read is held to it */
    emu_rt_lend(NULL, 0, 0);
    for (int i = 0; i < 4; i++) {
        const char *name = family_buffer(k->family, i).name;
        if (!k->ptr[i] || !name)
            continue;
        emu_rt_name((const void *)(uintptr_t)k->ptr[i], name);
        emu_rt_lend((const void *)(uintptr_t)k->ptr[i], k->bytes[i], !k->writable[i]);
    }
}

unsigned long long emu_divisions(void)
{
    struct emu_stats ss, js;
    emu_rt_stats(&ss, &js);
    return ss.divisions;
}

/* The test the run stopped in: the last one recorded, failed by run_trials. */
static struct test *stopped_test(struct report *r)
{
    return r->ntests > 0 && !r->tests[r->ntests - 1].pass ? &r->tests[r->ntests - 1] : NULL;
}

/* What a kernel that ran the emulator out of memory is told: the bound is
 * the CPU judge's address-space limit (the catalog's emu_memory_mib, set
 * by the check that started it), and a GPU has the memory. */
static void note_memory(struct report *r)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        note(r, "needs a GPU: the emulator ran out of memory within the CPU judge's bound of %llu MiB "
                "(a large __device__ array, or what the kernel's blocks hold, is more than the CPU "
                "tier gives)", (unsigned long long)(rl.rlim_cur >> 20));
    else
        note(r, "needs a GPU: the emulator ran out of the host's memory");
}

void emu_finish(struct ctx *c)
{
    struct report *r = c->r;
    struct emu_error se, je;
    struct emu_stats ss, js;
    struct test *t;

    if (emu_sms)
        r->dev.sms = emu_sms;
    emu_rt_stats(&ss, &js);
    r->emu_student_instr = ss.thread_instructions;
    r->emu_judge_instr = js.thread_instructions;
    emu_rt_student_error(&se);
    emu_rt_judge_error(&je);
    if (trace_file) {
        fclose(trace_file);
        trace_file = NULL;
    }
    /* a profile: the student's launches' counters, to the check (check_counters.c) */
    if (c->o->mode == MODE_PROFILE && se.status == EMU_OK) {
        struct emu_counters k;
        emu_rt_counters(&k);
        for (int i = 0; i < EMU_CNT_COUNT; i++)
            progress_line("@counter %s %llu", emu_counter_info[i].name, (unsigned long long)k.v[i]);
    }
    if (je.status != EMU_OK) {
        /* The judge's own kernels are the workbook's: never the student's fault. */
        note(r, "internal: the emulator stopped one of the judge's own kernels: %s", je.message);
        r->status = STATUS_INTERNAL_ERROR;
        return;
    }
    switch (se.status) {
    case EMU_OK:
    case EMU_FAULT:     /* a runtime error, recorded as the CUDA call's */
        return;
    case EMU_HAZARD:
        /* What racecheck and synccheck report on a GPU: a wrong kernel
         * that may still give the right answer there, by luck of timing. */
        if ((t = stopped_test(r)))
            test_fail(t, "%s", se.message);
        r->status = STATUS_FAIL;
        return;
    case EMU_LIMIT:
        r->status = STATUS_TIMEOUT;
        return;
    case EMU_UNSUPPORTED:
    case EMU_PARSE:
    case EMU_NOMEM:
        /* Not a verdict on the kernel: only a GPU can judge it.  A module
         * the emulator cannot load stopped the plans' start as the judge's
         * failure; it is not. */
        c->plan_status = STATUS_PASS;
        c->plan_msg[0] = '\0';
        /* The emulator's own sentence is among the messages already (the
         * failed call's); one that does not say so gets it said. */
        if (se.status == EMU_NOMEM)
            note_memory(r);
        else if (strncmp(se.message, "needs a GPU", 11)) {
            if (se.status == EMU_UNSUPPORTED && se.what[0])
                note(r, "needs a GPU: %s is not emulated", se.what);
            else
                note(r, "needs a GPU: the emulator cannot run this kernel (%s)", se.message);
        }
        r->status = STATUS_NO_GPU;
        return;
    }
}

} /* namespace hx */
