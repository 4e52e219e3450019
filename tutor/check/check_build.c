/* check_build.c — the build stages of a check: compile the student's file
 * as its own object (keeping its PTX, its fatbin and the compiler's list of
 * the files it read), check the rules a CPU can check, and link the object
 * with the recording runtime into the runner.  The runner is linked
 * statically and against the recording runtime only (tutor/runner/rt.c), so
 * a CUDA call the runtime lacks does not link: the check is rejected, naming
 * the call and the rule. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_nvcc.h"
#include "check/check_stage.h"
#include "check/check_warn.h"
#include "check/rules.h"
#include "sys/elfsym.h"
#include "sys/util.h"

/* nvcc's front end says "file(12): error: ..."; the host compiler and the
 * linker say "file:12:5: error: ...".  Both become {file, line, severity,
 * message}, so the tutor can point at the student's line. */
static void parse_diagnostics(struct result *res, const char *log, int *have_error)
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
        if (strncmp(sev, "error", 5) && strncmp(sev, "fatal", 5)) /* warnings: check_warn.c */
            continue;
        /* Past the cap only the first error is still taken: a file with
         * many warnings must not lose the error that stopped it. */
        int is_error = strncmp(sev, "warning", 7) != 0;
        if (res->ndiags >= 30 && (!is_error || *have_error))
            continue;
        *have_error |= is_error;
        const char *msg = buf + off;
        while (*msg == ' ')
            msg++;
        result_add_diag(res, file, ln, !strncmp(sev, "warning", 7) ? "warning" : "error", msg);
    }
}

static int run_tool(char *const *argv, double timeout, struct proc_result *pr)
{
    struct proc_spec spec = {.argv = argv, .timeout_s = timeout, .output_cap = 64 * 1024};
    return proc_run(&spec, pr);
}

/* In C++17 libstdc++'s <cmath>, which CUDA's runtime header includes, also
 * brings std::beta, std::riemann_zeta and the other special functions:
 * templates that nvcc's front ends parse for every kernel, about 40% of
 * a lab's compile (cudafe++ 1.2 s -> 0.3 s, cicc 0.66 s -> 0.39 s for lab
 * 07's solution).  Defining that header's include guard leaves them out.
 * No lab needs them; a kernel that calls one is told std has no such
 * member.  A libstdc++ that renames the guard only compiles slower. */
#define NO_SPECFUN "-D_GLIBCXX_BITS_SPECFUN_H"

/* cooperative_groups.h brings libcu++'s atomics, chrono, strings and the
 * half-precision headers for the few of its features that need cuda::std
 * (reduce_update_async, thread scopes): three times lab 16's compile
 * (cudafe++ 3.5 s -> 0.65 s, cicc 2.3 s -> 0.8 s, host 2.2 s -> 0.64 s
 * under load here), for the same PTX.  Its own switch leaves them out; a
 * file that uses one of those features fails to compile with it and is
 * compiled again without (compile_light). */
#define CG_LIGHT "-D_CG_LIMIT_INCLUDED_DEPENDENCIES"

/* Whether nvcc's steps run two at a time (check_nvcc.c): with a second
 * core to run them on, unless CUDATUTOR_NVCC_SPLIT=0 (to measure what it
 * saves). */
static int split_wanted(void)
{
    const char *env = getenv("CUDATUTOR_NVCC_SPLIT");
    return !(env && !strcmp(env, "0")) && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

/* Where the host compiler's headers are kept precompiled for every lab's
 * compile (check_pch.c): the build's, beside the labs' work folders.  NULL
 * (none) when CUDATUTOR_HOST_PCH=0 (to measure what they save). */
static char *pch_dir(const struct check_state *r)
{
    const char *env = getenv("CUDATUTOR_HOST_PCH");
    if (env && !strcmp(env, "0"))
        return NULL;
    return util_format("%s/check/host-pch", r->tc->build_dir);
}

/* The compile's outcome, from nvcc or from the test suite's cache. */
struct compiled {
    int exited, exit_code, timed_out;
    double seconds;
    char *log;
    char why[160];
};

/* One compile of the student's file, CG_LIGHT with `light`: 0 with *out
 * filled (whatever nvcc said), -1 when nvcc could not be run (a message
 * says why). */
static int compile_once(struct check_state *r, int light, struct compiled *out)
{
    char arch[32], inc[4096];
    struct proc_result pr = {0};
    const char *cache = getenv("CUDATUTOR_COMPILE_CACHE");
    char *key = NULL;
    int rc = -1, lock = -1;

    snprintf(arch, sizeof arch, "-arch=%s", r->tc->arch);
    snprintf(inc, sizeof inc, "-I%s", r->tc->include_dir);
    /* One nvcc run serves every later stage: -keep leaves the PTX (technique
     * checks, plans without a GPU) and the fatbin (the judge loads it), -MD
     * the list of files the compiler read (the include rule).  NO_SPECFUN
     * spares the compile C++17's special functions (see its definition). */
    char *argv[] = {r->tc->nvcc, "-c", arch, "-std=c++17", NO_SPECFUN, "-O3", "-lineinfo", inc,
                    "-MD", "-MF", r->deps, "-keep", "-keep-dir", r->keep, "-o", r->obj, r->src, NULL, NULL};
    char *flags[] = {"-c", arch, "-std=c++17", NO_SPECFUN, "-O3", "-lineinfo", "-MD", "-keep", NULL, NULL};
    if (light) {
        argv[sizeof argv / sizeof *argv - 2] = CG_LIGHT;
        flags[sizeof flags / sizeof *flags - 2] = CG_LIGHT;
    }
    memset(out, 0, sizeof *out);
    if (cache && *cache && (key = cache_key(r, flags)) && util_mkdirs(cache) == 0 &&
        (cache_fetch(r, cache, key, &out->exit_code, &out->log) == 0 ||
         ((lock = cache_lock(cache, key)) >= 0 && cache_fetch(r, cache, key, &out->exit_code, &out->log) == 0))) {
        out->exited = 1;
        rc = 0;
        goto done;
    }
    char *plan = util_format("%s/nvcc-plan", r->dir), *pch = pch_dir(r);
    const char *early = getenv("CUDATUTOR_HOST_EARLY");
    int how = split_wanted() ? nvcc_split_run(argv, r->deps, r->obj, plan, pch, !(early && !strcmp(early, "0")),
                                              COMPILE_TIMEOUT_S, &pr) : 1;
    free(plan);
    free(pch);
    if (how < 0 || (how > 0 && run_tool(argv, COMPILE_TIMEOUT_S, &pr))) {
        check_message(r, "%s", pr.error);
        goto done;
    }
    out->exited = pr.exited;
    out->exit_code = pr.exit_code;
    out->timed_out = pr.timed_out;
    out->seconds = pr.seconds;
    if (!(out->log = strdup(pr.output ? pr.output : "")))
        goto done;
    proc_describe(&pr, out->why, sizeof out->why);
    if (key && out->exited && !out->timed_out)
        cache_store(r, cache, key, out->exit_code, out->log);
    rc = 0;
done:
    if (lock >= 0)
        close(lock);
    free(key);
    proc_result_free(&pr);
    return rc;
}

/* Whether the file names cooperative_groups (a header of it, or its
 * namespace through one): then CG_LIGHT is tried first. */
static int wants_light(const struct check_state *r)
{
    char *text = util_read_file(r->src, NULL);
    int yes = text && strstr(text, "cooperative_groups");
    free(text);
    return yes;
}

int stage_compile(struct check_state *r)
{
    struct compiled out = {0};
    int rc = -1, light = wants_light(r);

    check_progress(r, STAGE_COMPILE, 0, 0, r->src);
    if (compile_once(r, light, &out))
        goto done;
    /* what the light header lacks may be what the file uses: its verdict
     * is the full header's */
    if (light && !(out.exited && out.exit_code == 0)) {
        double first = out.seconds;
        free(out.log);
        if (compile_once(r, 0, &out))
            goto done;
        out.seconds += first;
    }
    result_set_compile(r->res, out.exited && out.exit_code == 0, out.seconds, check_tail(out.log, 16384));
    int have_error = 0;
    parse_diagnostics(r->res, out.log, &have_error);
    check_warnings(r->res, out.log, r->src);
    rc = out.exited && out.exit_code == 0 ? 0 : 1;
    if (rc) {
        check_set_status(r, STATUS_COMPILE_ERROR);
        if (!out.exited || out.timed_out)
            check_message(r, "nvcc did not finish: %s", out.why);
    }
done:
    free(out.log);
    return rc;
}

/* ---- rules -------------------------------------------------------------- */

static void add_violations(struct result *res, const struct rules_report *rep)
{
    res->have_violations = 1;
    for (int i = 0; i < rep->nv; i++)
        result_add_violation(res, rep->v[i].symbol, rep->v[i].rule, rep->v[i].defined);
}

/* The entry point is missing: nvcc compiled the file, but the build of the
 * runner cannot go on without it.  A diagnostic of the file (line 0), which
 * the summary shows without a line. */
static void entry_missing(struct check_state *r)
{
    char *msg = util_format("defines no extern \"C\" %s, the entry point lab %s's harness calls "
                            "(lab.h declares it; the stub defines it at its end)",
                            r->lab->family->entry, r->lab->id);
    result_add_diag(r->res, r->src, 0, "error", msg ? msg : "entry point missing");
    free(msg);
    check_set_status(r, STATUS_COMPILE_ERROR);
}

/* Techniques are read from the PTX the compile kept; they are judged even
 * without a GPU, because they need none. */
static void techniques(struct check_state *r)
{
    char *ptx = util_read_file(r->ptx, NULL);
    int found[32] = {0};
    r->res->have_tech = 1;
    if (ptx)
        rules_check_ptx(r->lab, ptx, found);
    else if (r->lab->ntech)
        check_message(r, "no PTX at %s: technique checks skipped", r->ptx);
    for (int i = 0; ptx && i < r->lab->ntech && i < 32; i++)
        result_add_technique(r->res, r->lab->tech[i].name, found[i], r->lab->tech[i].why);
    free(ptx);
}

int stage_rules(struct check_state *r)
{
    struct rules_report rep = {0};
    struct proc_result pr = {0};
    char *deps = util_read_file(r->deps, NULL);
    int rc = -1;

    r->res->have_symbols = 1;
    check_progress(r, STAGE_RULES, 0, 0, "host symbols, headers and PTX");
    if (!deps) {
        check_message(r, "nvcc left no list of the files it read (%s)", r->deps);
        goto out;
    }
    /* The object's symbols as nm -P lists them: read here, or from nm for
     * an object elfsym does not read. */
    char *syms = elfsym_list(r->obj);
    if (!syms && !r->tc->nm) {
        check_message(r, "nm not found: install binutils");
        goto out;
    }
    char *argv[] = {r->tc->nm, "-P", r->obj, NULL};
    if (!syms && (run_tool(argv, 30, &pr) || !pr.exited || pr.exit_code != 0)) {
        check_message(r, "nm %s failed: %s", r->obj, pr.output ? pr.output : pr.error);
        goto out;
    }
    /* The headers first: "includes .../cub/..." explains the symbols they bring. */
    int failed = rules_check_includes(deps, &rep) ||
                 rules_check_symbols(r->cat, r->lab->family->entry, syms ? syms : pr.output, &rep);
    free(syms);
    if (failed)
        goto out;
    rules_sort(&rep);
    r->res->symbols_checked = 1;
    add_violations(r->res, &rep);
    rc = 0;
    if (rep.nv) {
        check_set_status(r, STATUS_REJECTED);
        rc = 1;
    } else if (!rep.entry_defined) {
        entry_missing(r);
        rc = 1;
    }
    techniques(r);
out:
    free(deps);
    proc_result_free(&pr);
    rules_report_free(&rep);
    return rc;
}

/* ---- link --------------------------------------------------------------- */

/* "undefined reference to `cudaMalloc'" lines of the linker (gold quotes
 * the name 'so') become violations: the call, and the rule the catalog
 * gives for it. */
static int undefined_calls(struct check_state *r, const char *log)
{
    static const char said[] = "undefined reference to ";
    int n = 0;
    for (const char *p = strstr(log, said); p; p = strstr(p + 1, said)) {
        char name[256];
        const char *s = p + strlen(said), *e;
        if (*s != '`' && *s != '\'')
            continue;
        e = strchr(++s, '\'');
        if (!e || e - s >= (long)sizeof name)
            continue;
        memcpy(name, s, (size_t)(e - s));
        name[e - s] = '\0';
        if (result_has_violation(r->res, name))
            continue;
        const char *rule = rules_deny_rule(r->cat, name);
        result_add_violation(r->res, name, rule ? rule : "not a call the recording runtime has: a "
                                                          "launcher may call only what lab.h allows", 0);
        n++;
    }
    return n;
}

/* The runner's link: its command line, and its process while it runs
 * beside the rules. */
struct link_job {
    char *rt, *main_o;
    char *argv[12];
    struct proc_spec spec;
    struct proc *p;
    struct proc_result pr;
    atomic_int cancel;
};

static void link_free(struct link_job *j)
{
    if (!j)
        return;
    free(j->rt);
    free(j->main_o);
    proc_result_free(&j->pr);
    free(j);
}

/* The link's job, not started; NULL with a message (its verdict:
 * internal_error) when the workbook lacks what it needs. */
static struct link_job *link_new(struct check_state *r)
{
    struct link_job *j = calloc(1, sizeof *j);
    int a = 0;
    if (!j || !(j->rt = util_format("%s/rt.o", r->tc->harness_dir)) ||
        !(j->main_o = util_format("%s/runner.o", r->tc->harness_dir)))
        goto fail;
    if (!util_is_file(j->rt) || !util_is_file(j->main_o)) {
        check_message(r, "the recording runtime is not built (%s is missing): run make",
                      util_is_file(j->rt) ? j->main_o : j->rt);
        goto fail;
    }
    if (!r->tc->cxx) {
        check_message(r, "no C++ compiler (g++) to link the runner with: install g++");
        goto fail;
    }
    /* Static: the sandbox lets the runner open no file, so no loader could
     * find a shared library, and maps no executable memory.  gold links
     * it in half the time of the default linker, where binutils has it.
     * No object of it is LTO's: the linker's LTO plugin would only be
     * loaded (a tenth of the link), the runner the same without it. */
    char *gold = util_which("ld.gold");
    j->argv[a++] = r->tc->cxx;
    j->argv[a++] = "-static";
    j->argv[a++] = "-fno-use-linker-plugin";
    if (gold)
        j->argv[a++] = "-fuse-ld=gold";
    free(gold);
    j->argv[a++] = "-o";
    j->argv[a++] = r->bin;
    j->argv[a++] = r->obj;
    j->argv[a++] = j->main_o;
    j->argv[a++] = j->rt;
    j->argv[a] = NULL;
    j->spec = (struct proc_spec){.argv = j->argv, .timeout_s = COMPILE_TIMEOUT_S, .output_cap = 64 * 1024,
                                 .cancel = &j->cancel};
    return j;
fail:
    link_free(j);
    return NULL;
}

void link_begin(struct check_state *r)
{
    /* a workbook without the runtime is told by stage_link */
    char *rt = util_format("%s/rt.o", r->tc->harness_dir);
    int ready = rt && util_is_file(rt) && r->tc->cxx;
    free(rt);
    if (r->link || !ready || !(r->link = link_new(r)))
        return;
    if (!(r->link->p = proc_start(&r->link->spec, &r->link->pr))) {
        link_free(r->link);
        r->link = NULL;
    }
}

void link_end(struct check_state *r)
{
    struct link_job *j = r->link;
    if (!j)
        return;
    r->link = NULL;
    atomic_store(&j->cancel, 1);
    proc_wait(j->p);
    link_free(j);
}

int stage_link(struct check_state *r)
{
    struct link_job *j = r->link;
    struct proc_result *pr;
    int rc = -1;

    check_progress(r, STAGE_LINK, 0, 0, "the runner");
    r->link = NULL;
    if (j) {
        proc_wait(j->p);
    } else if (!(j = link_new(r))) {
        return -1;
    } else if (proc_run(&j->spec, &j->pr)) {
        check_message(r, "%s", j->pr.error);
        goto out;
    }
    pr = &j->pr;
    rc = 0;
    if (!pr->exited || pr->exit_code != 0) {
        rc = 1;
        if (r->res->have_violations && undefined_calls(r, pr->output)) {
            check_set_status(r, STATUS_REJECTED);
            goto out;
        }
        /* Anything else (a symbol defined twice, say) is the student's
         * problem too, shown like a compile error. */
        r->res->compile_ok = 0;
        result_set_text(&r->res->compile_log, check_tail(pr->output, 16384));
        int have_error = 0;
        parse_diagnostics(r->res, pr->output, &have_error);
        check_set_status(r, STATUS_COMPILE_ERROR);
        check_message(r, "linking the runner failed");
    }
out:
    link_free(j);
    return rc;
}
