/* grade_work.c — each student's folders: WORK/ID while it is graded (the
 * workbook copy intake made, one folder per lab with its build, run, logs
 * and final verdict), then STUDENTS/ID once every lab has a verdict,
 * written aside and renamed into place, so that STUDENTS/ID/report.json
 * exists only for a finished student: that is what resuming reads. */
#include "grade/grade_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade/grade_report.h"
#include "grade/intake.h"
#include "status.h"
#include "model/result.h"
#include "sys/util.h"

/* The most of a log an internal_error verdict quotes. */
#define LOG_TAIL 2000

int grade_work_skip(int force, int have_report)
{
    return !force && have_report;
}

int grade_work_intake(struct grade *g, int s, const struct lab **labs)
{
    const struct grade_sub *sub = &g->subs[s];
    struct intake in = {0};
    struct intake_limits lim = {g->o->max_file_kb, g->o->max_unpacked_mb, g->o->max_members};
    char err[512];
    char *dir = util_format("%s/%s", g->work, sub->id);
    int n = -1;

    if (!dir) {
        grade_error(g, "out of memory taking %s in", sub->id);
        return -1;
    }
    if (intake_take(&g->cat, g->labs, g->nlabs, g->pristine, sub->name, sub->path, dir, &lim, &in, err,
                    sizeof err)) {
        grade_error(g, "could not take %s in: %s", sub->name, err);
        goto out;
    }
    n = 0;
    for (int i = 0; i < in.nlabs; i++) {
        if (!in.labs[i].ok)
            continue;
        char *wd = util_format("%s/%s", dir, in.labs[i].id);
        int bad = !wd || util_mkdirs(wd);
        free(wd);
        if (bad) {
            grade_error(g, "cannot create %s/%s", dir, in.labs[i].id);
            n = -1;
            goto out;
        }
        for (int j = 0; j < g->nlabs; j++)
            if (!strcmp(g->labs[j]->id, in.labs[i].id))
                labs[n++] = g->labs[j];
    }
    /* The sandbox's user builds and runs in there, and no other user of
     * the machine reads it. */
    if ((!strcmp(g->mode, "bwrap-nobody") && grade_work_chown(dir, GRADE_SANDBOX_NOBODY)) || chmod(dir, 0700)) {
        grade_error(g, "cannot hand %s to the sandbox's user: %s", dir, strerror(errno));
        n = -1;
    }
out:
    intake_free(&in);
    free(dir);
    return n;
}

/* The last LOG_TAIL bytes of a file, "" when it cannot be read (heap). */
static char *log_tail(const char *path)
{
    size_t len = 0;
    char *text = path ? util_read_file(path, &len) : NULL;
    if (!text)
        return strdup("");
    if (len > LOG_TAIL) {
        memmove(text, text + len - LOG_TAIL, LOG_TAIL);
        text[LOG_TAIL] = '\0';
    }
    return text;
}

int grade_work_final(const char *dir, const char *lab, const char *file, const char *why, const char *log)
{
    char *text = file ? util_read_file(file, NULL) : NULL, *out = NULL, *path = util_format("%s/final.json", dir);
    char err[160];
    struct result rep;
    int rc = -1, verdict = text && result_parse(text, &rep, err, sizeof err) == 0;

    if (verdict)
        result_free(&rep);
    if (!path)
        goto done;
    if (verdict) {
        rc = util_write_file(path, text, strlen(text));
        goto done;
    }
    /* No verdict: the lab is the grader's failure, said with the end of
     * the log, in status.h's words: a result of its own, with no stage
     * behind it (no family, file or seed). */
    char *tail = log_tail(log);
    if (tail && result_init(&rep, lab, "", "", 0) == 0) {
        rep.have_seed = 0;
        result_set_text(&rep.tool, "cudatutor grade");
        result_add_message(&rep, "%s", why);
        rep.summary = util_format("%s: %s", status_meaning(STATUS_INTERNAL_ERROR), why);
        rep.have_output = 1;
        rep.output = tail;
        tail = NULL;
        out = rep.summary && rep.nmsgs == 1 ? result_to_json(&rep, 1) : NULL;
        result_free(&rep);
    }
    free(tail);
    rc = out ? util_write_file(path, out, strlen(out)) : -1;
done:
    free(text);
    free(out);
    free(path);
    return rc;
}

/* The labs intake took in for student s (ok ones), from its intake.json;
 * -1 when it cannot be read. */
static int taken_labs(const struct grade *g, int s, struct intake *in)
{
    char err[256];
    char *path = util_format("%s/%s/intake.json", g->work, g->subs[s].id);
    int rc = path ? intake_load(path, in, err, sizeof err) : -1;
    free(path);
    return rc;
}

/* Copies one file (missing is fine); -1 on a failed copy. */
static int copy_file(const char *src, const char *dst)
{
    if (access(src, F_OK) && errno == ENOENT)
        return 0;
    return util_copy_file(src, dst);
}

int grade_work_finish(struct grade *g, int s)
{
    const char *id = g->subs[s].id;
    struct intake in = {0};
    char err[512], now[32];
    char *src = util_format("%s/%s", g->work, id), *tmp = util_format("%s/.tmp-%s", g->students, id);
    char *dst = util_format("%s/%s", g->students, id), *labs = util_format("%s/labs", tmp);
    char *logs = util_format("%s/logs", tmp);
    int rc = -1;

    if (!src || !tmp || !dst || !labs || !logs || taken_labs(g, s, &in)) {
        grade_error(g, "could not write the reports of %s", id);
        goto out;
    }
    util_remove_tree(tmp);
    if (util_mkdirs(labs) || util_mkdirs(logs))
        goto failed;
    char *from = util_format("%s/intake.json", src), *to = util_format("%s/intake.json", tmp);
    int bad = !from || !to || copy_file(from, to);
    free(from);
    free(to);
    if (bad)
        goto failed;
    for (int i = 0; i < in.nlabs; i++) {
        const char *lab = in.labs[i].id;
        /* The verdict and the logs: WORK/ID/LAB/x -> STUDENTS/ID/y. */
        char *pairs[3][2] = {{util_format("%s/%s/final.json", src, lab), util_format("%s/labs/%s.json", tmp, lab)},
                             {util_format("%s/%s/build.log", src, lab), util_format("%s/logs/%s-build.log", tmp, lab)},
                             {util_format("%s/%s/run.log", src, lab), util_format("%s/logs/%s-run.log", tmp, lab)}};
        for (int k = 0; k < 3; k++) {
            bad |= !pairs[k][0] || !pairs[k][1] || copy_file(pairs[k][0], pairs[k][1]);
            free(pairs[k][0]);
            free(pairs[k][1]);
        }
        if (bad)
            goto failed;
    }
    grade_utc(now, sizeof now, time(NULL));
    if (grade_report_student(tmp, id, &g->rubric, &g->cat, g->mode, now, err, sizeof err)) {
        grade_error(g, "could not write the reports of %s: %s", id, err);
        goto out;
    }
    util_remove_tree(dst);
    if (rename(tmp, dst))
        goto failed;
    util_sync_dir(dst);
    if (!g->o->keep_work)
        util_remove_tree(src);
    grade_event(g, "S %s", id);
    rc = 0;
    goto out;
failed:
    grade_error(g, "could not write the reports of %s: %s", id, strerror(errno));
out:
    intake_free(&in);
    free(src);
    free(tmp);
    free(dst);
    free(labs);
    free(logs);
    return rc;
}

/* Calls visit on each entry of folder src ("." and ".." aside) as
 * SRC/NAME, with DST/NAME beside it when dst is not NULL (else NULL), and
 * arg.  0, or -1 when the folder cannot be read or any entry failed; every
 * entry is visited all the same. */
static int each_entry(const char *src, const char *dst, int (*visit)(const char *, const char *, int), int arg)
{
    DIR *d = opendir(src);
    struct dirent *e;
    int rc = 0;
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *a = util_format("%s/%s", src, e->d_name), *b = dst ? util_format("%s/%s", dst, e->d_name) : NULL;
        if (!a || (dst && !b) || visit(a, b, arg))
            rc = -1;
        free(a);
        free(b);
    }
    closedir(d);
    return rc;
}

static int chown_entry(const char *path, const char *unused, int uid)
{
    (void)unused;
    return grade_work_chown(path, uid);
}

int grade_work_chown(const char *path, int uid)
{
    struct stat st;
    int rc = 0;
    if (lstat(path, &st))
        return -1;
    if (lchown(path, (uid_t)uid, (gid_t)uid))
        rc = -1;
    if (!S_ISDIR(st.st_mode))
        return rc;
    return each_entry(path, NULL, chown_entry, uid) ? -1 : rc;
}

static int copy_entry(const char *src, const char *dst, int unused)
{
    (void)unused;
    return grade_work_copy_tree(src, dst);
}

int grade_work_copy_tree(const char *src, const char *dst)
{
    struct stat st;
    if (lstat(src, &st))
        return -1;
    if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(src, target, sizeof target - 1);
        if (n < 0)
            return -1;
        target[n] = '\0';
        return symlink(target, dst);
    }
    if (!S_ISDIR(st.st_mode)) {
        if (copy_file(src, dst))
            return -1;
        chmod(dst, st.st_mode & 07777);
        return 0;
    }
    if (mkdir(dst, st.st_mode & 07777) && errno != EEXIST)
        return -1;
    return each_entry(src, dst, copy_entry, 0);
}
