/* grade_report.c — see grade_report.h.  Reads the files, hands the structs
 * to model/score and view/grade_reports, writes what they return. */
#include "grade/grade_report.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grade/intake.h"
#include "model/result.h"
#include "model/score.h"
#include "sys/util.h"
#include "view/grade_reports.h"

/* Writes text (NULL: out of memory) to dir/name atomically. */
static int write_text(const char *dir, const char *name, char *text, char *err, size_t errlen)
{
    char *path = util_format("%s/%s", dir, name);
    int rc = -1;
    if (!text || !path)
        snprintf(err, errlen, "out of memory writing %s/%s", dir, name);
    else if (util_write_file(path, text, strlen(text)))
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    else
        rc = 0;
    free(path);
    free(text);
    return rc;
}

/* A lab's check report from dir/labs/ID.json into r: 1 when there is one,
 * 0 when there is none.  One that cannot be read is a verdict of its own,
 * the grader's failure, saying why (the student is still graded). */
static int load_lab(const char *dir, const char *id, struct result *r)
{
    char err[200];
    char *path = util_format("%s/labs/%s.json", dir, id);
    char *json = path ? util_read_file(path, NULL) : NULL;
    int have = json != NULL || (path && errno != ENOENT);
    memset(r, 0, sizeof *r);
    if (have && (!json || result_parse(json, r, err, sizeof err))) {
        if (!json)
            snprintf(err, sizeof err, "%s", strerror(errno));
        memset(r, 0, sizeof *r);
        r->status = STATUS_INTERNAL_ERROR;
        r->summary = util_format("%s: labs/%s.json: %s", status_meaning(STATUS_INTERNAL_ERROR), id, err);
    }
    free(json);
    free(path);
    return have;
}

static int by_lab(const void *a, const void *b)
{
    return strcmp(((const struct score_intake_lab *)a)->lab, ((const struct score_intake_lab *)b)->lab);
}

/* What scoring needs of intake.json (read by intake_load, its only
 * reader), the labs sorted by id, bytewise.  The
 * strings are borrowed from res; -1 when out of memory. */
static int intake_view(const struct intake *res, struct score_intake *in)
{
    memset(in, 0, sizeof *in);
    in->submission = res->submission;
    in->kind = res->kind;
    in->refused = res->refused;
    in->labs = calloc((size_t)res->nlabs + 1, sizeof *in->labs);
    if (!in->labs)
        return -1;
    for (int i = 0; i < res->nlabs; i++) {
        struct score_intake_lab *l = &in->labs[in->nlabs++];
        l->lab = res->labs[i].id;
        l->state = (char *)intake_state_name(&res->labs[i]);
        l->from = res->labs[i].from;
        l->bytes = (double)res->labs[i].bytes;
        l->why = res->labs[i].why;
    }
    qsort(in->labs, (size_t)in->nlabs, sizeof *in->labs, by_lab);
    return 0;
}

/* The sandbox dir/report.json recorded, or "none" (a fresh string; NULL
 * when out of memory). */
static char *previous_sandbox(const char *dir)
{
    struct score_report old;
    char err[200], *sandbox = NULL;
    char *path = util_format("%s/report.json", dir);
    char *json = path ? util_read_file(path, NULL) : NULL;
    if (json && !score_report_parse(&old, json, err, sizeof err)) {
        sandbox = old.sandbox ? strdup(old.sandbox) : NULL;
        score_report_free(&old);
    }
    free(json);
    free(path);
    return sandbox ? sandbox : strdup("none");
}

int grade_report_student(const char *dir, const char *student, const struct rubric *rb,
                         const struct catalog *cat, const char *sandbox, const char *graded_at,
                         char *err, size_t errlen)
{
    struct intake res = {0};
    struct score_intake in = {0};
    struct score_report rep = {0};
    struct result *labs = NULL;
    const struct result **reports = NULL;
    char why[256];
    int rc = -1;
    char *path = util_format("%s/intake.json", dir);
    char *kept = sandbox ? NULL : previous_sandbox(dir);

    if (!path || (!sandbox && !kept)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (intake_load(path, &res, err, errlen))
        goto done;
    labs = calloc((size_t)res.nlabs + 1, sizeof *labs);
    reports = calloc((size_t)res.nlabs + 1, sizeof *reports);
    if (!labs || !reports || intake_view(&res, &in)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < in.nlabs; i++)
        if (load_lab(dir, in.labs[i].lab, &labs[i]))
            reports[i] = &labs[i];
    if (score_student(&rep, student, &in, reports, rb, cat, sandbox ? sandbox : kept, graded_at, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", student, why);
        goto done;
    }
    if (write_text(dir, "report.json", report_json(&rep), err, errlen) ||
        write_text(dir, "results.json", report_gradescope(&rep, rb), err, errlen) ||
        write_text(dir, "junit.xml", report_junit(&rep, 1), err, errlen))
        goto done;
    rc = 0;
done:
    for (int i = 0; labs && i < res.nlabs; i++)
        result_free(&labs[i]);
    free(labs);
    free(reports);
    free(in.labs);
    score_report_free(&rep);
    intake_free(&res);
    free(path);
    free(kept);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_student(const void *a, const void *b)
{
    return strcmp(((const struct score_report *)a)->student, ((const struct score_report *)b)->student);
}

/* The student folders of out/students that hold a report.json, sorted;
 * -1 when the folder cannot be read (none yet is 0 students). */
static int student_dirs(const char *students, char ***names, int *n)
{
    DIR *d = opendir(students);
    struct dirent *e;
    size_t cap = 0;
    *names = NULL;
    *n = 0;
    if (!d)
        return errno == ENOENT ? 0 : -1;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *report = util_format("%s/%s/report.json", students, e->d_name);
        int have = report && util_is_file(report);
        free(report);
        if (!have)
            continue;
        char **v = util_grow(*names, &cap, (size_t)*n + 1, sizeof *v);
        if (!v)
            goto oom;
        *names = v;
        if (!((*names)[*n] = strdup(e->d_name)))
            goto oom;
        (*n)++;
    }
    closedir(d);
    qsort(*names, (size_t)*n, sizeof **names, by_name);
    return 0;
oom:
    closedir(d);
    errno = ENOMEM;
    return -1;
}

int grade_report_class(const char *out, int *nstudents, int *exit_status, char *err, size_t errlen)
{
    char **names = NULL, why[256];
    int n = 0, nread = 0, rc = -1;
    struct score_report *reps = NULL;
    char *students = util_format("%s/students", out);

    *nstudents = 0;
    *exit_status = 0;
    if (!students || student_dirs(students, &names, &n)) {
        snprintf(err, errlen, "cannot read %s/students: %s", out, strerror(errno));
        goto done;
    }
    if (n == 0) {
        rc = write_text(out, "grades.csv", strdup(""), err, errlen);
        goto done;
    }
    if (!(reps = calloc((size_t)n, sizeof *reps))) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (; nread < n; nread++) {
        char *path = util_format("%s/%s/report.json", students, names[nread]);
        char *json = path ? util_read_file(path, NULL) : NULL;
        int bad = !json || score_report_parse(&reps[nread], json, why, sizeof why);
        if (bad)
            snprintf(err, errlen, "%s: %s", path ? path : names[nread], json ? why : strerror(errno));
        free(json);
        free(path);
        if (bad)
            goto done;
    }
    qsort(reps, (size_t)n, sizeof *reps, by_student);
    if (write_text(out, "grades.csv", report_csv(reps, n), err, errlen) ||
        write_text(out, "junit.xml", report_junit(reps, n), err, errlen) ||
        write_text(out, "summary.txt", report_summary(reps, n), err, errlen))
        goto done;
    *nstudents = n;
    *exit_status = score_exit_status(reps, n);
    rc = 0;
done:
    for (int i = 0; i < nread; i++)
        score_report_free(&reps[i]);
    free(reps);
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(students);
    return rc;
}
