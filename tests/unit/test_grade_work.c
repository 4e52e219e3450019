/* test_grade_work.c — a lab's final report in the grader's work folder: a
 * check's report that reads as one is kept byte for byte; anything else
 * (none, not JSON, not a report) becomes the grader's own internal_error,
 * a result the scorer reads back with the reason, status.h's wording and
 * the end of the log. */
#include <stdlib.h>
#include <unistd.h>

#include "grade/grade_run.h"
#include "model/result.h"
#include "sys/util.h"
#include "tap.h"

struct dir {
    char path[64];
};

static int dir_make(struct dir *d)
{
    snprintf(d->path, sizeof d->path, "/tmp/test_grade_work.XXXXXX");
    return mkdtemp(d->path) ? 0 : -1;
}

static char *dir_file(const struct dir *d, const char *name)
{
    return util_format("%s/%s", d->path, name);
}

static void dir_drop(struct dir *d)
{
    const char *names[] = {"final.json", "report.json", "log"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *p = dir_file(d, names[i]);
        if (p)
            unlink(p);
        free(p);
    }
    rmdir(d->path);
}

static char *final_text(const struct dir *d)
{
    char *p = dir_file(d, "final.json"), *text = p ? util_read_file(p, NULL) : NULL;
    free(p);
    return text;
}

static void a_report_is_kept_byte_for_byte(void)
{
    struct dir d;
    const char *report = "{\"schema\": 1, \"tool\": \"cudatutor\", \"lab\": \"03\", \"family\": \"reduce\",\n"
                         "  \"status\": \"pass\", \"file\": \"k.cu\", \"messages\": [\"kept\"]}\n";
    EXPECT(dir_make(&d) == 0);
    char *rp = dir_file(&d, "report.json");
    EXPECT(util_write_file(rp, report, strlen(report)) == 0);
    EXPECT(grade_work_final(d.path, "03", rp, "unused", NULL) == 0);
    char *got = final_text(&d);
    EXPECT_STR(got ? got : "", report);
    free(got);
    free(rp);
    dir_drop(&d);
}

/* What the scorer reads of a lab the grader could not judge. */
static void expect_internal(const struct dir *d, const char *why, const char *output)
{
    char *text = final_text(d), err[160], *summary = util_format("%s: %s", status_meaning(STATUS_INTERNAL_ERROR), why);
    struct result r;
    EXPECT(text && result_parse(text, &r, err, sizeof err) == 0);
    if (text && result_parse(text, &r, err, sizeof err) == 0) {
        EXPECT(r.status == STATUS_INTERNAL_ERROR);
        EXPECT_STR(r.tool, "cudatutor grade");
        EXPECT_STR(r.lab, "05");
        EXPECT(r.nmsgs == 1);
        EXPECT_STR(r.nmsgs ? r.messages[0] : "", why);
        EXPECT_STR(r.summary ? r.summary : "", summary);
        EXPECT(r.have_output);
        EXPECT_STR(r.output ? r.output : "", output);
        EXPECT(!r.have_seed);
        result_free(&r);
    }
    free(summary);
    free(text);
}

static void no_report_is_the_graders_failure(void)
{
    struct dir d;
    EXPECT(dir_make(&d) == 0);
    char *log = dir_file(&d, "log");
    EXPECT(util_write_file(log, "nvcc: out of memory\n", 20) == 0);
    EXPECT(grade_work_final(d.path, "05", NULL, "the lab was never run", log) == 0);
    expect_internal(&d, "the lab was never run", "nvcc: out of memory\n");
    free(log);
    dir_drop(&d);
}

/* A report a student's program forged or cut short is not a verdict; the
 * log is kept by its end, where a crash says why. */
static void a_broken_report_is_the_graders_failure(void)
{
    struct dir d;
    char big[5000];
    memset(big, 'x', sizeof big);
    memcpy(big + sizeof big - 4, "END\n", 4);
    EXPECT(dir_make(&d) == 0);
    char *rp = dir_file(&d, "report.json"), *log = dir_file(&d, "log");
    EXPECT(util_write_file(rp, "{\"status\": \"pass\"", 17) == 0);
    EXPECT(util_write_file(log, big, sizeof big) == 0);
    EXPECT(grade_work_final(d.path, "05", rp, "the check ended without a report", log) == 0);
    char *text = final_text(&d);
    struct result r;
    char err[160];
    EXPECT(text && result_parse(text, &r, err, sizeof err) == 0);
    if (text && result_parse(text, &r, err, sizeof err) == 0) {
        EXPECT(r.output && strlen(r.output) < sizeof big);
        EXPECT(r.output && strlen(r.output) >= 4 && !strcmp(r.output + strlen(r.output) - 4, "END\n"));
        result_free(&r);
    }
    free(text);
    free(rp);
    free(log);
    dir_drop(&d);
}

static void no_log_is_an_empty_output(void)
{
    struct dir d;
    EXPECT(dir_make(&d) == 0);
    EXPECT(grade_work_final(d.path, "05", NULL, "why", "/nonexistent/log") == 0);
    expect_internal(&d, "why", "");
    dir_drop(&d);
}

TAP_MAIN(T(a_report_is_kept_byte_for_byte), T(no_report_is_the_graders_failure),
         T(a_broken_report_is_the_graders_failure), T(no_log_is_an_empty_output))
