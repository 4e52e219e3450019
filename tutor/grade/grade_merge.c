/* grade_merge.c — the two ways of reporting without grading: --merge
 * gathers the students of several shards' output folders into one, and
 * --rescore applies the rubric again to every student's saved verdicts
 * (no GPU needed); both end in the class reports, as a grading does. */
#include "grade/grade_run.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grade/grade_report.h"
#include "sys/util.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of dir's sub-folders that hold file (sorted; a name starting
 * with '.' is a student being written: skipped).  -1 when dir cannot be
 * read. */
static int folders_with(const char *dir, const char *file, char ***names, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    *names = NULL;
    *n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *p = util_format("%s/%s/%s", dir, e->d_name, file);
        int have = p && util_is_file(p);
        free(p);
        if (!have)
            continue;
        char **v = realloc(*names, (size_t)(*n + 1) * sizeof *v);
        if (!v || !(v[*n] = strdup(e->d_name))) {
            free(v ? v : *names);
            closedir(d);
            *names = NULL;
            return -1;
        }
        *names = v;
        (*n)++;
    }
    closedir(d);
    qsort(*names, (size_t)*n, sizeof **names, by_name);
    return 0;
}

static void free_names(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Whether two files hold the same bytes. */
static int same_file(const char *a, const char *b)
{
    size_t la, lb;
    char *x = util_read_file(a, &la), *y = util_read_file(b, &lb);
    int same = x && y && la == lb && !memcmp(x, y, la);
    free(x);
    free(y);
    return same;
}

int grade_merge(struct grade *g)
{
    const struct grade_opts *o = g->o;
    char real[PATH_MAX];
    int rc, n = 0;

    if ((rc = grade_setup_workbook(g)))
        return rc;
    if (!o->out) {
        return grade_usage("--merge needs --out DIR");
    }
    for (int i = 0; i < o->nargs; i++) {
        char *s = util_format("%s/students", o->args[i]);
        int ok = s && util_is_dir(s);
        free(s);
        if (!ok) {
            return grade_usage("%s is not a grade output folder (no students/)", o->args[i]);
        }
    }
    if ((rc = grade_setup_out(g, o->out)) || (rc = grade_load_catalog(g, 1)))
        return rc;
    for (int i = 0; i < o->nargs; i++) {
        char **ids;
        int nids;
        if (!realpath(o->args[i], real) || !strcmp(real, g->out))
            continue;
        char *from = util_format("%s/students", real);
        if (!from || folders_with(from, "report.json", &ids, &nids)) {
            free(from);
            grade_error(g, "cannot read %s/students", real);
            continue;
        }
        for (int k = 0; k < nids; k++) {
            char *src = util_format("%s/%s", from, ids[k]), *dst = util_format("%s/%s", g->students, ids[k]);
            char *tmp = util_format("%s/.tmp-%s", g->students, ids[k]);
            char *a = src ? util_format("%s/report.json", src) : NULL, *b = dst ? util_format("%s/report.json", dst) : NULL;
            if (!src || !dst || !tmp || !a || !b) {
                grade_error(g, "out of memory");
            } else {
                if (util_is_dir(dst) && !same_file(a, b))
                    grade_warn(g, "%s is in more than one shard: keeping the one from %s", ids[k], real);
                util_remove_tree(tmp);
                if (grade_work_copy_tree(src, tmp) || util_remove_tree(dst) || rename(tmp, dst))
                    grade_error(g, "cannot copy %s into %s: %s", src, g->students, strerror(errno));
                else
                    n++;
            }
            free(src);
            free(dst);
            free(tmp);
            free(a);
            free(b);
        }
        free_names(ids, nids);
        free(from);
    }
    grade_say(g, "merged %d student(s) into %s", n, g->out);
    return grade_finish_reports(g);
}

int grade_rescore(struct grade *g)
{
    const char *out = g->o->out ? g->o->out : "grade-out";
    char err[512], now[32], **ids = NULL;
    int rc, n = 0, nids = 0;

    if ((rc = grade_setup_workbook(g)))
        return rc;
    char *students = util_format("%s/students", out);
    int ok = students && util_is_dir(students);
    free(students);
    if (!ok) {
        return grade_usage("%s has no students/ to rescore", out);
    }
    if ((rc = grade_setup_out(g, out)) || (rc = grade_load_catalog(g, 1)) || (rc = grade_load_rubric(g)))
        return rc;
    if (folders_with(g->students, "intake.json", &ids, &nids)) {
        fprintf(stderr, "cudatutor grade: cannot read %s\n", g->students);
        return EXIT_INTERNAL;
    }
    grade_utc(now, sizeof now, time(NULL));
    for (int i = 0; i < nids; i++) {
        char *dir = util_format("%s/%s", g->students, ids[i]);
        if (!dir)
            continue;
        /* No sandbox given: each report keeps the one it was graded in. */
        if (grade_report_student(dir, ids[i], &g->rubric, &g->cat, NULL, now, err, sizeof err)) {
            fprintf(stderr, "cudatutor grade: cannot rescore %s: %s\n", ids[i], err);
            free(dir);
            free_names(ids, nids);
            return EXIT_INTERNAL;
        }
        free(dir);
        n++;
    }
    free_names(ids, nids);
    grade_say(g, "rescored %d student(s) with %s", n, g->rubric_path);
    return grade_finish_reports(g);
}
