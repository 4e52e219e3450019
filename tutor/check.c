/* check.c — see check.h.  The stages run in the order of docs/harness.md and
 * each can end the check with a verdict; the report is built as it goes so
 * that whatever stage stopped, the JSON says what happened up to there. */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <unistd.h>

#include "ncu.h"
#include "proc.h"
#include "result.h"
#include "rules.h"
#include "util.h"

/* Lab 09's integrands: LAB_INTEGRAND_COUNT in tutor/lab.h (a test keeps the
 * two equal). */
#define TRAPEZOID_INTEGRANDS 4

#define COMPILE_TIMEOUT_S 180
#define OUTPUT_KEEP 8192
#define SANITIZER_EXIT 86

/* What --build-only leaves in the work folder for --run-only. */
#define BUILD_JSON "build.json"
#define BUILT_NOTE "built; not run (--build-only)"

/* How long a harness may wait for the GPU before it goes on regardless
 * (--gpu-lock-wait), and the most waiting a check forgives a child: a run
 * may wait twice (trials, then timing), and a kernel that prints the wait
 * line itself gains no more than this. */
#define GPU_WAIT_S 120
#define GRACE_MAX_S (2 * GPU_WAIT_S + 10)

/* Time a child spent waiting for the GPU, from its "@gpu wait" and
 * "@gpu go" lines: it does not count against the kernel's time limit. */
struct waits {
    double start;           /* when the open wait began; 0: none open */
    double total;
};

struct san_job;

/* Everything one check carries from stage to stage. */
struct run {
    const struct toolchain *tc;
    const struct catalog *cat;
    const struct lab *lab;
    const struct check_opts *o;
    cJSON *root;
    char *dir, *src, *obj, *bin, *keep, *ptx;
    unsigned long long seed;
    int integrand;
    char last_stage[160];
    double t0;
    int lock_fd;            /* held on the work folder for the whole check */
    char *gpu_lock;         /* the file the harness runs share the GPU through */
    struct waits hx_waits;  /* the harness's waits for the GPU */
    double trials_t0;       /* when the harness began its trials; 0: not yet */
    double trials_w0;       /* its waits for the GPU by then */
    int trials_done;        /* it said "@passed correctness" */
    struct san_job *san;    /* the race checkers, once started */
    double san_t0;
    atomic_int san_cancel;
};

unsigned long long check_new_seed(void)
{
    unsigned long long s = 0;
    if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s)
        s = (unsigned long long)getpid() * 0x9e3779b97f4a7c15ull ^ (unsigned long long)(util_now() * 1e9);
    return s & ((1ull << 48) - 1);
}

static void progress(struct run *r, const char *stage, int i, int n, const char *detail)
{
    if (r->o->progress)
        r->o->progress(r->o->ud, stage, i, n, detail ? detail : "");
}

static void set_status(struct run *r, enum status s)
{
    cJSON_DeleteItemFromObjectCaseSensitive(r->root, "status");
    cJSON_AddStringToObject(r->root, "status", status_name(s));
}

static enum status get_status(const struct run *r)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->root, "status");
    int s = cJSON_IsString(v) ? status_from_name(v->valuestring) : -1;
    return s < 0 ? STATUS_INTERNAL_ERROR : (enum status)s;
}

static void message(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void message(struct run *r, const char *fmt, ...)
{
    cJSON *msgs = cJSON_GetObjectItemCaseSensitive(r->root, "messages");
    va_list ap;
    va_start(ap, fmt);
    char *s = util_vformat(fmt, ap);
    va_end(ap);
    if (!msgs)
        msgs = cJSON_AddArrayToObject(r->root, "messages");
    if (s && msgs)
        cJSON_AddItemToArray(msgs, cJSON_CreateString(s));
    free(s);
}

/* The last `keep` bytes of text, starting at a line boundary where possible. */
static const char *tail(const char *text, size_t keep)
{
    size_t len = strlen(text);
    if (len <= keep)
        return text;
    const char *p = text + len - keep, *nl = strchr(p, '\n');
    return nl ? nl + 1 : p;
}

/* ---- compile ------------------------------------------------------------ */

/* nvcc's front end says "file(12): error: ..."; the host compiler and the
 * linker say "file:12:5: error: ...".  Both become {file, line, severity,
 * message}, so the tutor can point at the student's line. */
static void parse_diagnostics(cJSON *list, const char *log)
{
    for (const char *line = log; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char buf[1024], file[512] = "", sev[16] = "";
        int ln = 0, col = 0, off = 0;
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        line += len + (eol ? 1 : 0);
        if (sscanf(buf, "%511[^(:\n](%d): %15[a-z ]:%n", file, &ln, sev, &off) >= 3 && off > 0) {
        } else if (sscanf(buf, "%511[^:\n]:%d:%d: %15[a-z ]:%n", file, &ln, &col, sev, &off) >= 4 &&
                   off > 0) {
        } else {
            continue;
        }
        if (strncmp(sev, "error", 5) && strncmp(sev, "warning", 7) && strncmp(sev, "fatal", 5))
            continue;
        if (cJSON_GetArraySize(list) >= 30)
            return;
        const char *msg = buf + off;
        while (*msg == ' ')
            msg++;
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "file", file);
        cJSON_AddNumberToObject(d, "line", ln);
        cJSON_AddStringToObject(d, "severity", !strncmp(sev, "warning", 7) ? "warning" : "error");
        cJSON_AddStringToObject(d, "message", msg);
        cJSON_AddItemToArray(list, d);
    }
}

static int run_tool(struct run *r, char *const *argv, double timeout, struct proc_result *pr)
{
    struct proc_spec spec = {.argv = argv, .timeout_s = timeout, .output_cap = 64 * 1024};
    (void)r;
    return proc_run(&spec, pr);
}

static int stage_compile(struct run *r)
{
    char arch[32], inc[4096], def[48];
    cJSON *c = cJSON_AddObjectToObject(r->root, "compile");
    struct proc_result pr;
    int rc;

    progress(r, "compile", 0, 0, r->src);
    snprintf(arch, sizeof arch, "-arch=%s", r->tc->arch);
    snprintf(inc, sizeof inc, "-I%s", r->tc->include_dir);
    snprintf(def, sizeof def, "-DLAB_INTEGRAND=%d", r->integrand);
    /* -keep leaves the PTX in the keep folder for the technique checks, so one
     * nvcc run serves both. */
    char *argv[] = {r->tc->nvcc, "-c", arch, "-std=c++17", "-O3", "-lineinfo", inc, def,
                    "-keep", "-keep-dir", r->keep, "-o", r->obj, r->src, NULL};
    if (run_tool(r, argv, COMPILE_TIMEOUT_S, &pr)) {
        message(r, "%s", pr.error);
        proc_result_free(&pr);
        return -1;
    }
    cJSON_AddBoolToObject(c, "ok", pr.exited && pr.exit_code == 0);
    cJSON_AddNumberToObject(c, "seconds", pr.seconds);
    cJSON_AddStringToObject(c, "log", tail(pr.output, 16384));
    parse_diagnostics(cJSON_AddArrayToObject(c, "diagnostics"), pr.output);
    rc = pr.exited && pr.exit_code == 0 ? 0 : 1;
    if (rc) {
        char why[160];
        proc_describe(&pr, why, sizeof why);
        set_status(r, STATUS_COMPILE_ERROR);
        if (!pr.exited || pr.timed_out)
            message(r, "nvcc did not finish: %s", why);
    }
    proc_result_free(&pr);
    return rc;
}

/* ---- rules -------------------------------------------------------------- */

static void add_violations(cJSON *list, const struct rules_report *rep)
{
    for (int i = 0; i < rep->nv; i++) {
        cJSON *v = cJSON_CreateObject();
        cJSON_AddStringToObject(v, "symbol", rep->v[i].symbol);
        cJSON_AddStringToObject(v, "rule", rep->v[i].rule);
        cJSON_AddItemToArray(list, v);
    }
}

static int stage_rules(struct run *r)
{
    struct rules_report rep = {0};
    struct proc_result pr = {0};
    cJSON *sym = cJSON_AddObjectToObject(r->root, "symbols");
    char *source = util_read_file(r->src, NULL);
    int rc = -1;

    progress(r, "rules", 0, 0, "host symbols and PTX");
    if (!r->tc->nm) {
        message(r, "nm not found: install binutils");
        goto out;
    }
    char *argv[] = {r->tc->nm, "-P", r->obj, NULL};
    if (run_tool(r, argv, 30, &pr) || !pr.exited || pr.exit_code != 0) {
        message(r, "nm %s failed: %s", r->obj, pr.output ? pr.output : pr.error);
        goto out;
    }
    /* The source first: "#include <cub/...>" explains the symbols it brings. */
    if ((source && rules_check_source(source, &rep)) ||
        rules_check_symbols(r->cat, r->lab->family->entry, pr.output, &rep))
        goto out;
    rules_sort(&rep);
    cJSON_AddBoolToObject(sym, "checked", 1);
    add_violations(cJSON_AddArrayToObject(sym, "violations"), &rep);
    rc = 0;
    if (rep.nv) {
        set_status(r, STATUS_REJECTED);
        rc = 1;
    } else if (!rep.entry_defined) {
        cJSON *c = cJSON_GetObjectItemCaseSensitive(r->root, "compile");
        cJSON *diags = cJSON_GetObjectItemCaseSensitive(c, "diagnostics");
        cJSON *d = cJSON_CreateObject();
        char *msg = util_format("%s is not defined: the file must define it with extern \"C\"",
                                r->lab->family->entry);
        cJSON_AddStringToObject(d, "file", r->src);
        cJSON_AddNumberToObject(d, "line", 0);
        cJSON_AddStringToObject(d, "severity", "error");
        cJSON_AddStringToObject(d, "message", msg ? msg : "entry point missing");
        cJSON_AddItemToArray(diags, d);
        free(msg);
        set_status(r, STATUS_COMPILE_ERROR);
        rc = 1;
    }

    /* Techniques are read from the PTX the compile kept; they are judged even
     * without a GPU, because they need none. */
    char *ptx = util_read_file(r->ptx, NULL);
    cJSON *tech = cJSON_AddArrayToObject(r->root, "techniques");
    int found[32] = {0};
    if (ptx)
        rules_check_ptx(r->lab, ptx, found);
    else if (r->lab->ntech)
        message(r, "no PTX at %s: technique checks skipped", r->ptx);
    for (int i = 0; ptx && i < r->lab->ntech && i < 32; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", r->lab->tech[i].name);
        cJSON_AddBoolToObject(t, "found", found[i]);
        cJSON_AddStringToObject(t, "why", r->lab->tech[i].why);
        cJSON_AddItemToArray(tech, t);
    }
    free(ptx);
out:
    free(source);
    proc_result_free(&pr);
    rules_report_free(&rep);
    return rc;
}

/* ---- link --------------------------------------------------------------- */

static int stage_link(struct run *r)
{
    char arch[32];
    const char *parts[] = {"hx_core.o", "hx_time.o", "hx_report.o", "hx_lock.o", NULL};
    char *fam = util_format("%s/hx_fam_%s.o", r->tc->harness_dir, r->lab->family->name);
    enum { NPARTS = 4 };
    char *objs[NPARTS] = {0};
    struct proc_result pr = {0};
    int rc = -1;

    progress(r, "link", 0, 0, "with the harness");
    snprintf(arch, sizeof arch, "-arch=%s", r->tc->arch);
    for (int i = 0; parts[i]; i++)
        objs[i] = util_format("%s/%s", r->tc->harness_dir, parts[i]);
    for (int i = 0; i < NPARTS; i++)
        if (!objs[i] || !util_is_file(objs[i]) || !fam || !util_is_file(fam)) {
            message(r, "the harness is not built (%s is missing): run make",
                    fam && !util_is_file(fam) ? fam : objs[i] ? objs[i] : "?");
            goto out;
        }
    char *argv[] = {r->tc->nvcc, arch, "-o", r->bin, r->obj, fam, objs[0], objs[1], objs[2], objs[3], NULL};
    if (run_tool(r, argv, COMPILE_TIMEOUT_S, &pr)) {
        message(r, "%s", pr.error);
        goto out;
    }
    rc = 0;
    if (!pr.exited || pr.exit_code != 0) {
        /* A kernel file that defines a harness symbol twice, say: the
         * student's problem, shown like a compile error. */
        cJSON *c = cJSON_GetObjectItemCaseSensitive(r->root, "compile");
        cJSON_ReplaceItemInObjectCaseSensitive(c, "ok", cJSON_CreateFalse());
        cJSON_ReplaceItemInObjectCaseSensitive(c, "log", cJSON_CreateString(tail(pr.output, 16384)));
        parse_diagnostics(cJSON_GetObjectItemCaseSensitive(c, "diagnostics"), pr.output);
        set_status(r, STATUS_COMPILE_ERROR);
        message(r, "linking with the harness failed");
        rc = 1;
    }
out:
    for (int i = 0; i < NPARTS; i++)
        free(objs[i]);
    free(fam);
    proc_result_free(&pr);
    return rc;
}

/* ---- run ---------------------------------------------------------------- */

static void waits_line(struct waits *w, const char *line)
{
    if (!strcmp(line, "@gpu wait") && !w->start)
        w->start = util_now();
    else if (!strcmp(line, "@gpu go") && w->start) {
        w->total += util_now() - w->start;
        w->start = 0;
    }
}

static double waits_grace(const struct waits *w)
{
    double g = w->total + (w->start ? util_now() - w->start : 0);
    return g < GRACE_MAX_S ? g : GRACE_MAX_S;
}

static void san_begin(struct run *r);

static double run_grace(void *ud)
{
    return waits_grace(&((struct run *)ud)->hx_waits);
}

static double trials_limit(const struct run *r)
{
    double scale = r->o->timeout_scale > 0 ? r->o->timeout_scale : 1;
    return r->lab->family->trials_timeout_s * scale;
}

/* While the trials run they have their own, shorter limit (the catalog's
 * trials_timeout_s): a kernel that never ends is stopped after it, not
 * after the whole run's limit — in a grader it holds the GPU meanwhile, and
 * no other run can time a kernel beside it. */
static double run_cutoff(void *ud)
{
    const struct run *r = ud;
    if (!r->trials_t0 || r->trials_done)
        return 0;
    return r->trials_t0 + trials_limit(r) + waits_grace(&r->hx_waits) - r->trials_w0;
}

/* "@stage correctness 3/32 n=31" from the harness becomes a progress call;
 * "@gpu ..." lines are its waits; "@passed correctness" ends the trials and
 * starts the race checkers, whose trials then wait for the timing to finish. */
static void on_line(void *ud, const char *line)
{
    struct run *r = ud;
    char name[32];
    int i = 0, n = 0, off = 0;
    if (!strncmp(line, "@gpu ", 5))
        waits_line(&r->hx_waits, line);
    if (!strcmp(line, "@passed correctness")) {
        r->trials_done = 1;
        san_begin(r);
    }
    if (strncmp(line, "@stage ", 7))
        return;
    if (sscanf(line + 7, "%31s %d/%d %n", name, &i, &n, &off) < 3)
        return;
    if (!strcmp(name, "correctness") && !r->trials_t0) {
        r->trials_t0 = util_now();
        r->trials_w0 = waits_grace(&r->hx_waits);
    }
    util_copy(r->last_stage, sizeof r->last_stage, line + 7);
    progress(r, name, i, n, line + 7 + off);
}

/* Drops the harness's @ lines: they are protocol, not the kernel's output. */
static char *strip_stages(const char *out)
{
    size_t len = strlen(out);
    char *s = malloc(len + 1), *w = s;
    if (!s)
        return NULL;
    for (const char *p = out; *p;) {
        const char *eol = strchr(p, '\n');
        size_t l = eol ? (size_t)(eol - p) + 1 : strlen(p);
        if (*p != '@') {
            memcpy(w, p, l);
            w += l;
        }
        p += l;
    }
    *w = '\0';
    return s;
}

static char **harness_argv(struct run *r, const char *json, const char *mode,
                           const unsigned long long *sizes, int nsizes, int with_perf)
{
    const struct family_spec *f = r->lab->family;
    char **argv = calloc(64, sizeof *argv);
    int a = 0;
    size_t cap = (size_t)nsizes * 12 + 1;
    char *list = calloc(cap, 1);

    if (!argv || !list) {
        free(argv);
        free(list);
        return NULL;
    }
    for (int i = 0; r->o->wrap && r->o->wrap[i] && a < 24; i++)
        argv[a++] = strdup(r->o->wrap[i]);
    argv[a++] = strdup(r->bin);
    argv[a++] = strdup("--json");
    argv[a++] = strdup(json);
    argv[a++] = strdup("--lab");
    argv[a++] = strdup(r->lab->id);
    argv[a++] = strdup("--family");
    argv[a++] = strdup(f->name);
    argv[a++] = strdup("--mode");
    argv[a++] = strdup(mode);
    argv[a++] = strdup("--seed");
    argv[a++] = util_format("%llu", r->seed);
    argv[a++] = strdup("--integrand");
    argv[a++] = util_format("%d", r->integrand);
    for (int i = 0; i < nsizes; i++) {
        size_t used = strlen(list);
        snprintf(list + used, cap - used, "%s%llu", i ? "," : "", sizes[i]);
    }
    argv[a++] = strdup("--sizes");
    argv[a++] = list;
    argv[a++] = strdup("--gpu-lock");
    argv[a++] = strdup(r->gpu_lock);
    argv[a++] = strdup("--gpu-lock-wait");
    argv[a++] = util_format("%d", GPU_WAIT_S);
    /* A lock given from outside is a grader's: many runs at once, and even
     * their start-ups must stay out of each other's timed sections. */
    argv[a++] = strdup("--gpu-lock-init");
    argv[a++] = strdup(r->o->gpu_lock ? "1" : "0");
    if (r->o->time_budget_ms > 0) {
        argv[a++] = strdup("--budget-ms");
        argv[a++] = util_format("%d", r->o->time_budget_ms);
    }
    for (int i = 0; with_perf && i < f->nperf && a < 60; i++) {
        if (r->o->quick && strcmp(f->perf[i].label, r->lab->target.case_label))
            continue;
        argv[a++] = strdup("--perf");
        argv[a++] = f->perf[i].input[0]
                        ? util_format("%s:%llu:%s", f->perf[i].label, f->perf[i].n, f->perf[i].input)
                        : util_format("%s:%llu", f->perf[i].label, f->perf[i].n);
    }
    argv[a] = NULL;
    return argv;
}

static void free_argv(char **argv)
{
    for (int i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

/* Moves the harness report's keys into the check report. */
static void merge_report(struct run *r, cJSON *h)
{
    static const char *const keys[] = {"status", "seed", "device", "integrand", "tests",
                                       "first_failing_n", "perf", "mode", "phases", NULL};
    for (int i = 0; keys[i]; i++) {
        cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(h, keys[i]);
        if (!v)
            continue;
        cJSON_DeleteItemFromObjectCaseSensitive(r->root, keys[i]);
        cJSON_AddItemToObject(r->root, keys[i], v);
    }
    cJSON *msgs = cJSON_GetObjectItemCaseSensitive(h, "messages"), *m;
    cJSON_ArrayForEach(m, msgs)
        if (cJSON_IsString(m))
            message(r, "%s", m->valuestring);
    cJSON *hr = cJSON_GetObjectItemCaseSensitive(h, "elapsed_s");
    if (cJSON_IsNumber(hr))
        cJSON_AddNumberToObject(r->root, "harness_s", hr->valuedouble);
}

static double timeout_for(const struct run *r)
{
    double scale = r->o->timeout_scale > 0 ? r->o->timeout_scale : 1;
    return r->lab->family->timeout_s * scale;
}

static int stage_run(struct run *r)
{
    char *json = util_format("%s/harness.json", r->dir);
    char **argv = NULL;
    struct proc_result pr = {0};
    int rc = -1;

    if (!json)
        goto out;
    unlink(json);
    argv = harness_argv(r, json, "check", r->lab->family->sizes, r->lab->family->nsizes, 1);
    if (!argv)
        goto out;
    progress(r, "correctness", 0, r->lab->family->nsizes, "starting");
    r->last_stage[0] = '\0';
    struct proc_spec spec = {.argv = argv, .cwd = r->dir, .timeout_s = timeout_for(r),
                             .output_cap = OUTPUT_KEEP * 8, .on_line = on_line, .ud = r,
                             .grace = run_grace, .cutoff = run_cutoff};
    if (proc_run(&spec, &pr)) {
        message(r, "%s", pr.error);
        goto out;
    }
    cJSON_AddNumberToObject(r->root, "run_s", pr.seconds);
    char *out = strip_stages(pr.output);
    if (out) {
        char *text = pr.dropped ? util_format("%s\n[... %zu more bytes of output dropped]",
                                              tail(out, OUTPUT_KEEP), pr.dropped)
                                : strdup(tail(out, OUTPUT_KEEP));
        cJSON_AddStringToObject(r->root, "output", text ? text : "");
        free(text);
        free(out);
    }

    char *text = pr.timed_out ? NULL : util_read_file(json, NULL);
    cJSON *h = text ? cJSON_Parse(text) : NULL;
    free(text);
    rc = 0;
    double cut = run_cutoff(r);
    if (pr.timed_out && cut > 0 && util_now() >= cut) {
        set_status(r, STATUS_TIMEOUT);
        message(r, "timed out after %.0f s: the correctness trials ran past their %g s limit "
                   "during %s: the whole process group was killed",
                pr.seconds, trials_limit(r), r->last_stage);
    } else if (pr.timed_out) {
        set_status(r, STATUS_TIMEOUT);
        message(r, "timed out after %.0f s%s%s: the whole process group was killed",
                pr.seconds, r->last_stage[0] ? " during " : "", r->last_stage);
    } else if (!h) {
        char why[200];
        proc_describe(&pr, why, sizeof why);
        set_status(r, pr.started ? STATUS_RUNTIME_ERROR : STATUS_INTERNAL_ERROR);
        message(r, "the harness ended without a report (%s)%s%s", why,
                r->last_stage[0] ? " during " : "", r->last_stage);
    } else {
        merge_report(r, h);
        cJSON_Delete(h);
    }
out:
    free_argv(argv);
    free(json);
    proc_result_free(&pr);
    return rc;
}

/* ---- sanitizer ---------------------------------------------------------- */

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

static const char *const san_tools[] = {"racecheck", "synccheck", "memcheck"};
enum { SAN_TOOLS = sizeof san_tools / sizeof san_tools[0] };

/* One compute-sanitizer tool run over the harness in sanitize mode. */
struct san_job {
    const char *tool;
    char *json, *code;
    char **hx;
    char *argv[96];
    struct proc_spec spec;
    struct proc_result pr;
    struct waits waits;
    int rc, started;
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

static void *san_thread(void *arg)
{
    struct san_job *j = arg;
    j->rc = proc_run(&j->spec, &j->pr);
    return NULL;
}

static int san_prepare(struct run *r, struct san_job *j, const char *tool)
{
    const struct family_spec *f = r->lab->family;
    int a = 0, skip = 0;

    j->tool = tool;
    j->rc = -1;
    j->json = util_format("%s/sanitize-%s.json", r->dir, tool);
    j->code = util_format("%d", SANITIZER_EXIT);
    if (!j->json || !j->code)
        return -1;
    j->hx = harness_argv(r, j->json, "sanitize", f->sanitize_sizes, f->nsanitize, 0);
    if (!j->hx)
        return -1;
    /* The sandbox prefix, if any, goes in front of compute-sanitizer. */
    for (; r->o->wrap && r->o->wrap[skip]; skip++)
        j->argv[a++] = j->hx[skip];
    j->argv[a++] = r->tc->sanitizer;
    j->argv[a++] = "--tool";
    j->argv[a++] = (char *)tool;
    j->argv[a++] = "--error-exitcode";
    j->argv[a++] = j->code;
    j->argv[a++] = "--print-limit";
    j->argv[a++] = "20";
    for (int i = skip; j->hx[i] && a < 94; i++)
        j->argv[a++] = j->hx[i];
    j->spec = (struct proc_spec){j->argv, r->dir, timeout_for(r) * 3, OUTPUT_KEEP * 8,
                                 san_line, j, san_grace, &r->san_cancel};
    return 0;
}

/* Records one tool's findings; returns 1 when they fail the kernel. */
static int san_record(struct run *r, cJSON *list, struct san_job *j)
{
    int hazards, dirty = 0;
    if (j->rc != 0) {
        message(r, "%s could not start: %s", j->tool, j->pr.error);
        return 0;
    }
    char *excerpt = sanitizer_excerpt(j->pr.output, &hazards);
    int clean = j->pr.exited && j->pr.exit_code == 0;
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "tool", j->tool);
    cJSON_AddBoolToObject(e, "clean", clean);
    cJSON_AddNumberToObject(e, "seconds", j->pr.seconds);
    cJSON_AddStringToObject(e, "report", excerpt ? excerpt : "");
    cJSON_AddItemToArray(list, e);
    /* The harness under the tool writes its own report: a kernel that went
     * wrong there (instrumentation changes timing, which races feel) fails
     * even when the tool itself saw nothing. */
    char *text = util_read_file(j->json, NULL);
    cJSON *h = text ? cJSON_Parse(text) : NULL;
    const cJSON *st = h ? cJSON_GetObjectItemCaseSensitive(h, "status") : NULL;
    const char *hs = cJSON_IsString(st) ? st->valuestring : NULL;
    if (j->pr.exited && j->pr.exit_code == SANITIZER_EXIT) {
        dirty = 1;
        message(r, "%s found %d problem line(s): see the sanitizer report", j->tool, hazards);
    } else if (hs && strcmp(hs, "pass") && strcmp(hs, "no_gpu")) {
        dirty = 1;
        message(r, "under %s the kernel's run ended in %s", j->tool, hs);
    } else if (!clean) {
        char why[160];
        proc_describe(&j->pr, why, sizeof why);
        message(r, "%s could not judge the kernel (%s)", j->tool, why);
        dirty = j->pr.timed_out;
    }
    cJSON_Delete(h);
    free(text);
    free(excerpt);
    return dirty;
}

/* Starts the three tools at once, each in a thread: they check small sizes,
 * so the GPU has room, and a student waits for the slowest instead of the
 * sum.  Called when the harness says its trials passed, so they overlap its
 * timing (their own trials wait for the timed section to end); does nothing
 * when they run already or are not wanted. */
static void san_begin(struct run *r)
{
    if (r->san || !r->o->sanitize || !r->tc->sanitizer)
        return;
    if (!(r->san = calloc(SAN_TOOLS, sizeof *r->san)))
        return;
    r->san_t0 = util_now();
    atomic_store(&r->san_cancel, 0);
    for (int t = 0; t < SAN_TOOLS; t++)
        if (san_prepare(r, &r->san[t], san_tools[t]) == 0)
            r->san[t].started = pthread_create(&r->san[t].thread, NULL, san_thread, &r->san[t]) == 0;
}

/* Waits for the tools; with `record`, their findings go into the report
 * (and fail the kernel when there are any), otherwise they are stopped
 * first and forgotten: a kernel that failed already needs no race report. */
static void san_end(struct run *r, int record)
{
    cJSON *list = NULL;
    int dirty = 0;
    if (!r->san)
        return;
    if (!record)
        atomic_store(&r->san_cancel, 1);
    else {
        cJSON *san = cJSON_AddObjectToObject(r->root, "sanitizer");
        cJSON_AddBoolToObject(san, "ran", 1);
        list = cJSON_AddArrayToObject(san, "tools");
    }
    for (int t = 0; t < SAN_TOOLS; t++) {
        struct san_job *j = &r->san[t];
        if (j->started)
            pthread_join(j->thread, NULL);
        if (record && !j->started)
            message(r, "%s could not start", san_tools[t]);
        if (record && j->started)
            dirty |= san_record(r, list, j);
        proc_result_free(&j->pr);
        free_argv(j->hx);
        free(j->json);
        free(j->code);
    }
    if (record)
        cJSON_AddNumberToObject(cJSON_GetObjectItemCaseSensitive(r->root, "sanitizer"), "seconds",
                                util_now() - r->san_t0);
    free(r->san);
    r->san = NULL;
    if (dirty)
        set_status(r, STATUS_FAIL);
}

/* The race checkers' verdict on a kernel that passed its trials. */
static int stage_sanitize(struct run *r)
{
    if (!r->o->sanitize || !r->tc->sanitizer) {
        cJSON *san = cJSON_AddObjectToObject(r->root, "sanitizer");
        cJSON_AddBoolToObject(san, "ran", 0);
        cJSON_AddStringToObject(san, "note", !r->o->sanitize
                                                 ? "skipped (--no-sanitize)"
                                                 : "compute-sanitizer not found: races were not checked");
        return 0;
    }
    progress(r, "sanitize", 0, 0, "racecheck, synccheck and memcheck");
    san_begin(r);       /* not yet begun when the run had nothing to time */
    san_end(r, 1);
    return 0;
}

/* ---- profiler counters ------------------------------------------------- */

/* Always read: the kernel time as the profiler sees it, and DRAM throughput. */
static const char *const base_counters[] = {"gpu__time_duration.sum",
                                            "dram__throughput.avg.pct_of_peak_sustained_elapsed"};

static int stage_counters(struct run *r)
{
    const char *names[64];
    int nnames = 0, kernels = 0, a = 0, skip = 0;
    char *metrics = NULL, *log = util_format("%s/ncu.csv", r->dir), *json = util_format("%s/profile.json", r->dir);
    cJSON *c = cJSON_AddObjectToObject(r->root, "counters");
    struct proc_result pr = {0};
    char **hx = NULL, *argv[128] = {0}, *logopt = NULL;
    /* Profile the size the target is judged at. */
    unsigned long long n = r->lab->family->perf[r->lab->family->nperf - 1].n;

    for (int i = 0; i < r->lab->family->nperf; i++)
        if (!strcmp(r->lab->family->perf[i].label, r->lab->target.case_label))
            n = r->lab->family->perf[i].n;
    if (!r->tc->ncu) {
        cJSON_AddStringToObject(c, "note", "ncu not found: no counters");
        goto out;
    }
    for (size_t i = 0; i < sizeof base_counters / sizeof base_counters[0]; i++)
        names[nnames++] = base_counters[i];
    for (int i = 0; i < r->lab->ncounters && nnames < 64; i++)
        names[nnames++] = r->lab->counters[i];
    size_t len = 1;
    for (int i = 0; i < nnames; i++)
        len += strlen(names[i]) + 1;
    if (!log || !json || !(metrics = calloc(len, 1)))
        goto out;
    for (int i = 0; i < nnames; i++) {
        strcat(metrics, i ? "," : "");
        strcat(metrics, names[i]);
    }
    hx = harness_argv(r, json, "profile", &n, 1, 0);
    if (!hx || !(logopt = util_format("%llu", n)))
        goto out;
    progress(r, "counters", 0, 0, "ncu");
    r->hx_waits = (struct waits){0, 0};
    for (; r->o->wrap && r->o->wrap[skip]; skip++)
        argv[a++] = hx[skip];
    unlink(log);
    char *fixed[] = {r->tc->ncu, "--nvtx", "--nvtx-include", "student/", "--clock-control", "none",
                     "--cache-control", "all", "--csv", "--page", "raw", "--print-units", "base",
                     "--log-file", log,
                     "--metrics", metrics, NULL};
    for (int i = 0; fixed[i]; i++)
        argv[a++] = fixed[i];
    for (int i = skip; hx[i] && a < 120; i++)
        argv[a++] = hx[i];
    argv[a++] = "--profile-n";
    argv[a++] = logopt;
    struct proc_spec spec = {argv, r->dir, timeout_for(r) * 4, OUTPUT_KEEP * 8, on_line, r, run_grace, NULL};
    if (proc_run(&spec, &pr) || !pr.exited || pr.exit_code != 0) {
        char why[160];
        proc_describe(&pr, why, sizeof why);
        cJSON_AddStringToObject(c, "note", why);
        message(r, "ncu could not read the counters (%s)", why);
        goto out;
    }
    char *csv = util_read_file(log, NULL);
    cJSON_AddStringToObject(c, "tool", "ncu");
    cJSON_AddNumberToObject(c, "n", (double)n);
    cJSON *m = cJSON_AddObjectToObject(c, "metrics");
    if (csv) {
        double values[64];
        int found[64];
        kernels = ncu_parse(csv, names, nnames, values, found);
        kernels = kernels > 0 ? kernels : 0;
        for (int i = 0; i < nnames; i++)
            if (found[i])
                cJSON_AddNumberToObject(m, names[i], values[i]);
    }
    cJSON_AddNumberToObject(c, "kernels", kernels);
    cJSON_AddNumberToObject(c, "seconds", pr.seconds);
    free(csv);
out:
    proc_result_free(&pr);
    free_argv(hx);
    free(metrics);
    free(logopt);
    free(log);
    free(json);
    return 0;
}

/* ---- target and summary ------------------------------------------------- */

static double perf_metric(const cJSON *p, enum metric m)
{
    const char *key = m == METRIC_RATIO ? "ratio" : m == METRIC_PCT_PEAK ? "pct_peak"
                    : m == METRIC_GBPS ? "gbps" : "rate";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, key);
    double x = cJSON_IsNumber(v) ? v->valuedouble : 0;
    /* The catalog gives pct_peak as a fraction (0.8), the report as percent. */
    return m == METRIC_PCT_PEAK ? x / 100.0 : x;
}

static void stage_target(struct run *r)
{
    const struct target *t = &r->lab->target;
    cJSON *perf = cJSON_GetObjectItemCaseSensitive(r->root, "perf"), *p, *hit = NULL;
    cJSON_ArrayForEach(p, perf) {
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(p, "label");
        if (cJSON_IsString(l) && !strcmp(l->valuestring, t->case_label))
            hit = p;
    }
    /* A grader calibrated for a GPU on which the reference solution itself
     * falls short of the catalog's threshold passes a lower one. */
    double min = r->o->target_min > 0 ? r->o->target_min : t->min;
    cJSON *o = cJSON_AddObjectToObject(r->root, "target");
    cJSON_AddStringToObject(o, "metric", metric_name(t->metric));
    cJSON_AddStringToObject(o, "case", t->case_label);
    cJSON_AddNumberToObject(o, "min", min);
    if (min != t->min)
        cJSON_AddNumberToObject(o, "catalog_min", t->min);
    cJSON_AddBoolToObject(o, "provisional", t->provisional);
    if (!hit) {
        cJSON_AddNullToObject(o, "value");
        cJSON_AddBoolToObject(o, "met", 0);
        return;
    }
    double v = perf_metric(hit, t->metric);
    int implausible = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(hit, "implausible"));
    cJSON_AddNumberToObject(o, "value", v);
    cJSON_AddBoolToObject(o, "met", v >= min && !implausible);
}

static void summarize(struct run *r)
{
    struct result res;
    char err[128], buf[512];
    char *json = cJSON_PrintUnformatted(r->root);

    if (!json || result_parse(json, &res, err, sizeof err)) {
        free(json);
        cJSON_AddStringToObject(r->root, "summary", status_meaning(get_status(r)));
        return;
    }
    free(json);
    const struct rperf *tp = result_target_perf(&res);
    int failing = -1;
    for (int i = 0; i < res.ntests && failing < 0; i++)
        if (!res.tests[i].pass)
            failing = i;

    switch (res.status) {
    case STATUS_PASS:
        if (tp && tp->gbps > 0)
            snprintf(buf, sizeof buf, "passed: %d tests; %s in %.3f ms, %.0f GB/s, %.0f%% of peak, "
                                      "%.2fx %s; target %s", res.ntests, tp->label, tp->median_ms,
                     tp->gbps, tp->pct_peak, tp->ratio, tp->ref_name,
                     res.target_met ? "met" : "not met yet");
        else if (tp)
            snprintf(buf, sizeof buf, "passed: %d tests; %s in %.3f ms, %.1f %s, %.2fx the reference; "
                                      "target %s", res.ntests, tp->label, tp->median_ms, tp->rate,
                     tp->rate_unit, tp->ratio, res.target_met ? "met" : "not met yet");
        else
            snprintf(buf, sizeof buf, "passed: %d tests", res.ntests);
        break;
    case STATUS_FAIL:
        if (failing >= 0 && res.tests[failing].expected[0])
            snprintf(buf, sizeof buf, "failed %s%s: expected %s, got %s — %s", res.tests[failing].name,
                     res.first_failing_n ? " (the smallest failing size)" : "",
                     res.tests[failing].expected, res.tests[failing].got, res.tests[failing].message);
        else if (failing >= 0)
            snprintf(buf, sizeof buf, "failed %s: %s", res.tests[failing].name, res.tests[failing].message);
        else if (res.nmsgs)
            snprintf(buf, sizeof buf, "failed: %s", res.messages[res.nmsgs - 1]);
        else
            snprintf(buf, sizeof buf, "failed");
        break;
    case STATUS_COMPILE_ERROR:
        if (res.ndiags)
            snprintf(buf, sizeof buf, "compile error: %s:%d: %s", res.diags[0].file, res.diags[0].line,
                     res.diags[0].message);
        else
            snprintf(buf, sizeof buf, "compile error: see the compiler's log");
        break;
    case STATUS_REJECTED:
        snprintf(buf, sizeof buf, "rejected: uses %s — %s", res.nviol ? res.viol_symbols[0] : "?",
                 res.nviol ? res.viol_rules[0] : "");
        break;
    case STATUS_NO_GPU:
        snprintf(buf, sizeof buf, "%s", status_meaning(res.status));
        break;
    default:
        snprintf(buf, sizeof buf, "%s%s%s", status_meaning(res.status), res.nmsgs ? ": " : "",
                 res.nmsgs ? res.messages[res.nmsgs - 1] : "");
        break;
    }
    cJSON_AddStringToObject(r->root, "summary", buf);
    result_free(&res);
}

/* ---- the check ---------------------------------------------------------- */

/* FNV-1a of the kernel file, so that --run-only never runs a build of other
 * contents.  NULL when the file cannot be read. */
static char *source_hash(const char *path)
{
    size_t len = 0;
    char *text = util_read_file(path, &len);
    unsigned long long h = 0xcbf29ce484222325ull;
    if (!text)
        return NULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    free(text);
    return util_format("%016llx", h);
}

/* --run-only: the build.json that --build-only wrote in the work folder, if
 * it was made of this lab, this file and these contents (and this seed, which
 * picks lab 09's integrand at compile time).  NULL with a message in err. */
static cJSON *load_build(struct run *r, const char *file, char *err, size_t errlen)
{
    char *path = util_format("%s/%s", r->dir, BUILD_JSON);
    char *text = path ? util_read_file(path, NULL) : NULL;
    char *hash = source_hash(r->src);
    cJSON *b = text ? cJSON_Parse(text) : NULL;
    const cJSON *lab = cJSON_GetObjectItemCaseSensitive(b, "lab");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(b, "file");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(b, "source_hash");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(b, "seed");

    if (!text)
        snprintf(err, errlen, "no build in %s: run check %s --build-only with the same --work-dir first",
                 r->dir, r->lab->id);
    else if (!b || !cJSON_IsString(lab) || !cJSON_IsString(f) || !cJSON_IsNumber(seed))
        snprintf(err, errlen, "%s is not a build that --build-only wrote", path);
    else if (strcmp(lab->valuestring, r->lab->id))
        snprintf(err, errlen, "the build in %s is of lab %s, not %s", r->dir, lab->valuestring, r->lab->id);
    else if (strcmp(f->valuestring, file))
        snprintf(err, errlen, "the build in %s is of %s, not %s", r->dir, f->valuestring, file);
    else if (!hash || !cJSON_IsString(h) || strcmp(h->valuestring, hash))
        snprintf(err, errlen, "%s changed since it was built: build again", file);
    else if (r->o->have_seed && (unsigned long long)seed->valuedouble != r->o->seed)
        snprintf(err, errlen, "the build in %s was made for seed %.0f: build again, or leave out --seed",
                 r->dir, seed->valuedouble);
    else
        err[0] = '\0';
    if (err[0]) {
        cJSON_Delete(b);
        b = NULL;
    }
    free(path);
    free(text);
    free(hash);
    return b;
}

/* --run-only: takes the compile, rules and technique sections of the build,
 * and its verdict when the build already decided one (a compile error, a
 * rejection).  Returns 0 when the harness should run. */
static int stage_resume(struct run *r, cJSON *build)
{
    static const char *const keys[] = {"compile", "symbols", "techniques", NULL};
    const cJSON *m, *st = cJSON_GetObjectItemCaseSensitive(build, "status");
    int s = cJSON_IsString(st) ? status_from_name(st->valuestring) : -1;

    for (int i = 0; keys[i]; i++) {
        cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(build, keys[i]);
        if (v)
            cJSON_AddItemToObject(r->root, keys[i], v);
    }
    cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(build, "messages"))
        if (cJSON_IsString(m) && strcmp(m->valuestring, BUILT_NOTE))
            message(r, "%s", m->valuestring);
    if (s != STATUS_NO_GPU) {
        set_status(r, s < 0 ? STATUS_INTERNAL_ERROR : (enum status)s);
        return 1;
    }
    if (!util_is_file(r->bin)) {
        message(r, "the build left no %s: build again", r->bin);
        return 1;
    }
    return 0;
}

/* --build-only: keeps the report for --run-only. */
static void save_build(struct run *r)
{
    char *path = util_format("%s/%s", r->dir, BUILD_JSON);
    char *text = cJSON_Print(r->root);
    if (!path || !text || util_write_file(path, text, strlen(text))) {
        set_status(r, STATUS_INTERNAL_ERROR);
        message(r, "cannot write %s", path ? path : BUILD_JSON);
    }
    free(path);
    free(text);
}

static int prepare(struct run *r, char *err, size_t errlen)
{
    const char *base;
    char *stem;

    if (r->o->work_dir)
        r->dir = strdup(r->o->work_dir);
    else
        r->dir = util_format("%s/check/%s", r->tc->build_dir, r->lab->id);
    r->src = r->o->file ? strdup(r->o->file) : util_format("%s/%s/kernel.cu", r->tc->root, r->lab->dir);
    if (!r->dir || !r->src)
        goto oom;
    /* One lock for every check of this workbook, whatever its work folder:
     * a check in the tutor and one in a terminal do not time at once. */
    r->gpu_lock = r->o->gpu_lock ? strdup(r->o->gpu_lock) : util_format("%s/check/gpu.lock", r->tc->build_dir);
    if (!r->gpu_lock)
        goto oom;
    r->keep = util_format("%s/keep", r->dir);
    r->obj = util_format("%s/kernel.o", r->dir);
    r->bin = util_format("%s/lab%s", r->dir, r->lab->id);
    if (!r->keep || !r->obj || !r->bin)
        goto oom;
    base = strrchr(r->src, '/');
    base = base ? base + 1 : r->src;
    if (!(stem = strdup(base)))
        goto oom;
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = '\0';
    r->ptx = util_format("%s/%s.ptx", r->keep, stem);
    free(stem);
    if (!r->ptx)
        goto oom;
    if (util_mkdirs(r->keep)) {
        snprintf(err, errlen, "cannot create %s: %s", r->keep, strerror(errno));
        return -1;
    }
    /* Two checks of one lab (the tutor and a terminal, say) share this
     * folder: the second waits for the first instead of mixing its files. */
    char *lock = util_format("%s/.lock", r->dir);
    r->lock_fd = lock ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
    free(lock);
    if (r->lock_fd < 0 || flock(r->lock_fd, LOCK_EX) != 0) {
        snprintf(err, errlen, "cannot lock %s: %s", r->dir, strerror(errno));
        return -1;
    }
    /* Stale outputs must never pass for this run's; --run-only runs the
     * build's own, which load_build vouches for. */
    if (!r->o->run_only) {
        char *build = util_format("%s/%s", r->dir, BUILD_JSON);
        if (build)
            unlink(build);
        free(build);
        unlink(r->obj);
        unlink(r->bin);
        unlink(r->ptx);
    }
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

cJSON *check_run(const struct toolchain *tc, const struct catalog *cat, const struct lab *lab,
                 const struct check_opts *opts, char *err, size_t errlen)
{
    struct run r = {.tc = tc, .cat = cat, .lab = lab, .o = opts, .t0 = util_now(), .lock_fd = -1};
    cJSON *build = NULL;
    const char *file;
    int stop;

    if (!tc->nvcc) {
        snprintf(err, errlen, "nvcc not found: install the CUDA toolkit, or set NVCC or CUDA_HOME "
                              "(searched $NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)");
        return NULL;
    }
    if (!(r.root = cJSON_CreateObject()) || prepare(&r, err, errlen)) {
        if (r.root && !err[0])
            snprintf(err, errlen, "out of memory");
        goto fail;
    }
    size_t rl = strlen(tc->root);
    file = !strncmp(r.src, tc->root, rl) && r.src[rl] == '/' ? r.src + rl + 1 : r.src;
    if (opts->run_only && !(build = load_build(&r, file, err, errlen)))
        goto fail;
    if (build)
        r.seed = (unsigned long long)cJSON_GetObjectItemCaseSensitive(build, "seed")->valuedouble;
    else
        r.seed = opts->have_seed ? opts->seed : check_new_seed();
    r.integrand = lab->family->id == FAMILY_TRAPEZOID ? (int)(r.seed % TRAPEZOID_INTEGRANDS) : 0;
    cJSON_AddNumberToObject(r.root, "schema", RESULT_SCHEMA);
    cJSON_AddStringToObject(r.root, "tool", "cudatutor");
    cJSON_AddStringToObject(r.root, "lab", lab->id);
    cJSON_AddStringToObject(r.root, "family", lab->family->name);
    cJSON_AddStringToObject(r.root, "status", "internal_error");
    cJSON_AddNumberToObject(r.root, "seed", (double)r.seed);
    cJSON_AddStringToObject(r.root, "file", file);
    cJSON_AddArrayToObject(r.root, "messages");
    if (opts->build_only || build) {
        char *hash = source_hash(r.src);
        if (hash)
            cJSON_AddStringToObject(r.root, "source_hash", hash);
        free(hash);
    }
    if (build) {
        stop = stage_resume(&r, build);
        cJSON_Delete(build);
        if (stop)
            goto done;
        goto run;
    }

    if (!util_is_file(r.src)) {
        set_status(&r, STATUS_COMPILE_ERROR);
        message(&r, "%s: no such file", r.src);
        goto done;
    }
    if ((stop = stage_compile(&r)) != 0) {
        if (stop < 0)
            set_status(&r, STATUS_INTERNAL_ERROR);
        goto done;
    }
    if ((stop = stage_rules(&r)) != 0) {
        if (stop < 0)
            set_status(&r, STATUS_INTERNAL_ERROR);
        goto done;
    }
    if ((stop = stage_link(&r)) != 0) {
        if (stop < 0)
            set_status(&r, STATUS_INTERNAL_ERROR);
        goto done;
    }
    if (opts->build_only) {
        set_status(&r, STATUS_NO_GPU);
        message(&r, BUILT_NOTE);
        goto done;
    }
run:
    stage_run(&r);
    if (get_status(&r) == STATUS_NO_GPU)
        goto done;
    if (get_status(&r) == STATUS_PASS)
        stage_sanitize(&r);
    san_end(&r, 0);
    if (get_status(&r) == STATUS_PASS && opts->counters)
        stage_counters(&r);
    if (get_status(&r) == STATUS_PASS || get_status(&r) == STATUS_FAIL)
        stage_target(&r);

done:
    /* A missing technique fails a kernel that is otherwise right. */
    if (get_status(&r) == STATUS_PASS) {
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(r.root, "techniques"))
            if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "found"))) {
                set_status(&r, STATUS_FAIL);
                message(&r, "technique missing: %s — %s",
                        cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring,
                        cJSON_GetObjectItemCaseSensitive(t, "why")->valuestring);
            }
    }
    cJSON *timing = cJSON_AddObjectToObject(r.root, "timing");
    cJSON_AddNumberToObject(timing, "total_s", util_now() - r.t0);
    if (opts->build_only)
        save_build(&r);
    summarize(&r);
    progress(&r, "done", 0, 0, status_name(get_status(&r)));
    goto out;
fail:
    cJSON_Delete(r.root);
    r.root = NULL;
out:
    san_end(&r, 0);
    free(r.gpu_lock);
    if (r.lock_fd >= 0)
        close(r.lock_fd);
    free(r.dir);
    free(r.src);
    free(r.obj);
    free(r.bin);
    free(r.keep);
    free(r.ptx);
    return r.root;
}
