/* grade_selftest.c — --selftest: the reference solutions and every kernel
 * of the bank (the .cu files of tests/bank/, whose first line says "// bank: lab=NN
 * expect=STATUS [cpu=STATUS]") graded as if they were students, through
 * the whole grader (intake, sandbox, pools, reports), and a table that
 * shows each got its expected verdict.  A bank kernel with an "// escape:
 * PATH" line must also have left nothing at PATH (relative to its work
 * folder).  Without a GPU, cpu= is the verdict expected (default: the
 * GPU's where the CPU judge of the lab's family runs the trials on the
 * emulator; else rejected stays rejected and the rest is no_gpu). */
#define _GNU_SOURCE     /* FNM_EXTMATCH: --bank '@(raw_*|opens_*)' as bash matched it */
#include "grade/grade_run.h"

#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grade/grade_report.h"
#include "model/result.h"
#include "model/score.h"
#include "sys/util.h"

/* More than this much output kept in a verdict is wrong (the cap is 8 KiB). */
#define OUTPUT_WRONG 9000

struct expect {
    char id[ROSTER_ID_MAX + 1];
    char lab[8];
    char want[24], want_cpu[24];
    char escape[PATH_MAX];
};

/* The value of "key=word" in line ("" when absent). */
static void meta(const char *line, const char *key, char *buf, size_t len)
{
    const char *p = strstr(line, key);
    buf[0] = '\0';
    if (!p)
        return;
    p += strlen(key);
    size_t n = strspn(p, !strcmp(key, "lab=") ? "0123456789" : "abcdefghijklmnopqrstuvwxyz_");
    if (n < len)
        snprintf(buf, len, "%.*s", (int)n, p);
}

/* The "// escape: PATH" line of a bank file ("" when none). */
static void escape_of(const char *text, char *buf, size_t len)
{
    buf[0] = '\0';
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (!strncmp(line, "// escape:", 10)) {
            const char *p = line + 10 + strspn(line + 10, " ");
            snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
            return;
        }
}

/* Copies one file, creating dst's folder. */
static int put(const char *src, const char *dir, const char *name)
{
    size_t len;
    char *text = util_read_file(src, &len), *dst = util_format("%s/%s", dir, name);
    int rc = !text || !dst || util_mkdirs(dir) || util_write_file(dst, text, len) ? -1 : 0;
    free(text);
    free(dst);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The bank's files, sorted. */
static char **bank_files(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **v = NULL;
    *n = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".cu"))
            continue;
        char **grown = realloc(v, (size_t)(*n + 1) * sizeof *v);
        if (!grown)
            break;
        v = grown;
        if ((v[*n] = strdup(e->d_name)))
            (*n)++;
    }
    if (d)
        closedir(d);
    if (v)
        qsort(v, (size_t)*n, sizeof *v, by_name);
    return v;
}

/* What a student's report says lab's status is ("none" when nothing). */
static void got_status(const struct grade *g, const char *id, const char *lab, char *buf, size_t len)
{
    char *path = util_format("%s/%s/report.json", g->students, id), *text = path ? util_read_file(path, NULL) : NULL;
    char err[160];
    struct score_report rep;
    util_copy(buf, len, "none");
    if (text && score_report_parse(&rep, text, err, sizeof err) == 0) {
        for (int i = 0; i < rep.nlabs; i++)
            if (!strcmp(rep.labs[i].lab, lab))
                util_copy(buf, len, status_name(rep.labs[i].status));
        score_report_free(&rep);
    }
    free(text);
    free(path);
}

/* How much program output the lab's verdict kept. */
static size_t output_kept(const struct grade *g, const char *id, const char *lab)
{
    char *path = util_format("%s/%s/labs/%s.json", g->students, id, lab), err[160];
    struct result r;
    size_t n = 0;
    if (path && result_read_file(path, &r, err, sizeof err) == 0) {
        n = r.have_output ? strlen(r.output) : 0;
        result_free(&r);
    }
    free(path);
    return n;
}

/* WORK/ID/LAB/PATH, resolved without needing it to exist (realpath -m):
 * WORK is absolute already, so grade_absolute only takes "." and ".."
 * lexically. */
static char *escape_path(const struct grade *g, const struct expect *e)
{
    char *p = util_format("%s/%s/%s/%s", g->work, e->id, e->lab, e->escape);
    char *out = p ? grade_absolute(p) : NULL;
    free(p);
    return out;
}

/* Lays the submissions out in subs/ and their expectations in e. */
static int lay_out(struct grade *g, const char *subs, struct expect *e, int cap, int *ne)
{
    char *bank = util_format("%s/tests/bank", g->pristine);
    int nfiles = 0;
    char **files = bank ? bank_files(bank, &nfiles) : NULL;

    *ne = 0;
    for (int i = 0; i < g->nlabs; i++) {
        const struct lab *lab = g->labs[i];
        char *sol = util_format("%s/%s/kernel.cu", g->pristine, lab->solution_dir);
        char *dir = util_format("%s/solutions/%s", subs, lab->dir);
        if (!sol || !dir || put(sol, dir, "kernel.cu")) {
            fprintf(stderr, "cudatutor grade: cannot copy %s\n", sol ? sol : "a solution");
            free(sol);
            free(dir);
            free(bank);
            return -1;
        }
        free(sol);
        free(dir);
        struct expect *x = &e[(*ne)++];
        memset(x, 0, sizeof *x);
        util_copy(x->id, sizeof x->id, "solutions");
        util_copy(x->lab, sizeof x->lab, lab->id);
        util_copy(x->want, sizeof x->want, status_name(STATUS_PASS));
        util_copy(x->want_cpu, sizeof x->want_cpu, status_name(STATUS_NO_GPU));
    }
    for (int f = 0; f < nfiles; f++) {
        char name[ROSTER_ID_MAX - 8], first[512], lab[8], want[24], cpu[24];
        char *path = util_format("%s/%s", bank, files[f]), *text = path ? util_read_file(path, NULL) : NULL;
        /* A bank kernel's name is its student id: short enough to be one. */
        snprintf(name, sizeof name, "%.*s", (int)(strlen(files[f]) - 3), files[f]);
        snprintf(first, sizeof first, "%.*s", text ? (int)strcspn(text, "\n") : 0, text ? text : "");
        meta(first, "lab=", lab, sizeof lab);
        meta(first, "expect=", want, sizeof want);
        meta(first, "cpu=", cpu, sizeof cpu);
        const struct lab *l = NULL;
        for (int i = 0; i < g->nlabs && lab[0]; i++)
            if (!strcmp(g->labs[i]->id, lab))
                l = g->labs[i];
        if (!lab[0] || !want[0])
            grade_warn(g, "%s: no '// bank: lab=NN expect=STATUS' line", path ? path : files[f]);
        else if (l && *ne < cap && (!g->o->bank || fnmatch(g->o->bank, name, FNM_EXTMATCH) == 0)) {
            struct expect *x = &e[*ne];
            memset(x, 0, sizeof *x);
            snprintf(x->id, sizeof x->id, "bank-%s", name);
            util_copy(x->lab, sizeof x->lab, lab);
            util_copy(x->want, sizeof x->want, want);
            /* Without a GPU the runner's plans are still checked, and the
             * CPU judge, where there is one, reaches the GPU's verdicts:
             * cpu= is the verdict expected there. */
            const char *rejected = status_name(STATUS_REJECTED), *off = getenv("CUDATUTOR_NO_EMULATOR");
            char *cpu_judge = util_format("%s/judge_cpu_%s", g->harness_dir, l->family->name);
            int emulated = cpu_judge && util_is_file(cpu_judge) && !(off && *off);
            free(cpu_judge);
            util_copy(x->want_cpu, sizeof x->want_cpu,
                      cpu[0] ? cpu : !strcmp(want, rejected) || emulated ? want : status_name(STATUS_NO_GPU));
            escape_of(text, x->escape, sizeof x->escape);
            char *dir = util_format("%s/%s/%s", subs, x->id, l->dir);
            if (dir && put(path, dir, "kernel.cu") == 0) {
                if (x->escape[0]) {
                    char *esc = escape_path(g, x);
                    if (esc)
                        unlink(esc);
                    free(esc);
                }
                (*ne)++;
            }
            free(dir);
        }
        free(text);
        free(path);
    }
    for (int f = 0; f < nfiles; f++)
        free(files[f]);
    free(files);
    free(bank);
    return 0;
}

int grade_selftest(struct grade *g)
{
    const struct grade_opts *o = g->o;     /* grade_main set --force, no calibration */
    char tmpl[PATH_MAX], got[32], verdict[PATH_MAX + 64];
    char *subs = NULL, **paths = NULL;
    struct expect *e = NULL;
    int rc, ne = 0, right = 0, wrong = 0, notrun = 0, npaths = 0;

    if ((rc = grade_setup_workbook(g)))
        return rc;
    char *bank = util_format("%s/tests/bank", g->pristine), *sols = util_format("%s/solutions", g->pristine);
    int have = bank && sols && util_is_dir(bank) && util_is_dir(sols);
    free(bank);
    free(sols);
    if (!have) {
        return grade_usage("--selftest needs the workbook's solutions/ and tests/bank/");
    }
    const char *out = o->out;
    if (!out) {
        const char *tmp = getenv("TMPDIR");
        snprintf(tmpl, sizeof tmpl, "%s/grade-selftest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(tmpl)) {
            fprintf(stderr, "cudatutor grade: cannot create a folder in %s\n", tmp && *tmp ? tmp : "/tmp");
            return EXIT_INTERNAL;
        }
        out = tmpl;
    }
    if ((rc = grade_setup_out(g, out)) || (rc = grade_load_catalog(g, 0)) || (rc = grade_load_rubric(g)))
        return rc;
    rc = EXIT_INTERNAL;
    if (!(subs = util_format("%s/selftest", g->state)) ||
        !(e = calloc((size_t)g->nlabs + 1024, sizeof *e)))
        goto out;
    util_remove_tree(subs);
    util_mkdirs(subs);
    if (lay_out(g, subs, e, g->nlabs + 1024, &ne))
        goto out;
    /* The submissions: every folder laid out, once each. */
    if (!(paths = calloc((size_t)ne + 1, sizeof *paths)))
        goto out;
    for (int i = 0; i < ne; i++) {
        int dup = 0;
        for (int k = 0; k < npaths && !dup; k++)
            dup = !strcmp(strrchr(paths[k], '/') + 1, e[i].id);
        if (!dup && !(paths[npaths++] = util_format("%s/%s", subs, e[i].id)))
            goto out;
    }
    if ((rc = grade_collect(g, paths, npaths)) || (rc = grade_setup_scratch(g)) || (rc = grade_detect_gpus(g)) ||
        (rc = grade_choose_sandbox(g)) || (rc = grade_calibrate(g)) || (rc = grade_submissions(g)))
        goto out;
    grade_write_run_json(g);
    int n, code;
    char err[512];
    if (grade_report_class(g->out, &n, &code, err, sizeof err))
        grade_error(g, "%s", err);

    int no_gpu = 1;
    for (int i = 0; i < g->ngpus; i++)
        no_gpu &= !g->gpus[i][0];
    printf("%-28s %-4s %-15s %-15s %s\n", "submission", "lab", "expected", "got", "verdict");
    for (int i = 0; i < ne; i++) {
        const struct expect *x = &e[i];
        got_status(g, x->id, x->lab, got, sizeof got);
        if (!strcmp(got, x->want))
            snprintf(verdict, sizeof verdict, "right");
        else if (!strcmp(got, x->want_cpu) && strcmp(got, status_name(STATUS_NO_GPU)) && no_gpu)
            snprintf(verdict, sizeof verdict, "right without a GPU");
        else if (!strcmp(got, status_name(STATUS_NO_GPU)))
            snprintf(verdict, sizeof verdict, "not run (no GPU)");
        else
            snprintf(verdict, sizeof verdict, "WRONG");
        size_t kept = output_kept(g, x->id, x->lab);
        char *esc = x->escape[0] ? escape_path(g, x) : NULL;
        if (kept > OUTPUT_WRONG) {
            snprintf(verdict, sizeof verdict, "WRONG: %zu bytes of output kept (the cap is 8 KiB)", kept);
        } else if (esc && access(esc, F_OK) == 0) {
            snprintf(verdict, sizeof verdict, "WRONG: %s was created outside the work folder", x->escape);
        } else if (esc && strcmp(got, status_name(STATUS_NO_GPU))) {
            size_t len = strlen(verdict);
            snprintf(verdict + len, sizeof verdict - len, "; %s not created", x->escape);
        }
        free(esc);
        if (!strncmp(verdict, "right", 5))
            right++;
        else if (!strncmp(verdict, "WRONG", 5))
            wrong++;
        else
            notrun++;
        printf("%-28s %-4s %-15s %-15s %s\n", x->id, x->lab, x->want, got, verdict);
    }
    printf("selftest: %d judged right, %d wrong, %d not run; sandbox: %s", right, wrong, notrun, g->mode);
    if (g->sandbox_facts && g->sandbox_facts[0])
        printf(" (checked: %s)", g->sandbox_facts);
    printf("; reports in %s\n", g->out);
    fflush(stdout);
    if (!o->keep_work)
        util_remove_tree(g->work);
    if (g->errors)
        fputs(g->errors, stderr);
    rc = wrong ? EXIT_VERDICT : notrun ? EXIT_NO_GPU : g->errors ? EXIT_INTERNAL : EXIT_OK;
out:
    for (int i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    free(subs);
    free(e);
    return rc;
}
