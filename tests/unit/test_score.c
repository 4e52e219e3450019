/* test_score.c — the rubric and the scoring: load_rubric's rules, each
 * with grade.sh's message, and the two new ones; the rubric's hash as
 * sha256sum prints it; the points of a pass on target, at a share of it,
 * far under it, with an implausible timing, with an untimed target; of a
 * fail (a race, sizes failed); of what earns nothing; of what is not
 * graded; the rejected penalty that never takes a total below zero; a
 * lab taken in with no report; the paths cleaned from a student's text. */
#include <math.h>
#include <stdlib.h>

#include "model/score.h"
#include "sys/util.h"
#include "tap.h"

/* ---- the rubric ---------------------------------------------------------- */

/* The error rubric_parse gives text, or "" when it loads. */
static const char *problem(const char *text)
{
    static char err[512];
    struct rubric rb;
    err[0] = '\0';
    if (!rubric_parse(&rb, text, strlen(text), "r.json", err, sizeof err))
        rubric_free(&rb);
    return err;
}

#define LABS "\"labs\": {\"01\": {\"correctness\": 6, \"performance\": 2}}"

static void the_rubric_s_rules_and_messages(void)
{
    EXPECT_STR(problem("{\"schema\": 1, " LABS "}"), "");
    EXPECT_STR(problem("{\"schema\": 2, " LABS "}"), "r.json: schema must be 1");
    EXPECT_STR(problem("{\"schema\": 1, \"labs\": []}"), "r.json: labs must be an object of lab ids");
    EXPECT_STR(problem("{\"schema\": 1, \"labs\": {\"01\": {\"correctness\": -1, \"performance\": 2}}}"),
               "r.json: every lab needs correctness and performance points (numbers >= 0)");
    EXPECT_STR(problem("{\"schema\": 1, \"labs\": {\"01\": {\"correctness\": 6}}}"),
               "r.json: every lab needs correctness and performance points (numbers >= 0)");
    EXPECT_STR(problem("{\"schema\": 1, " LABS ", \"default\": {\"correctness\": 1}}"),
               "r.json: default needs correctness and performance points");
    EXPECT_STR(problem("{\"schema\": 1, " LABS ", \"performance\": {\"partial_from\": 1.5}}"),
               "r.json: performance.partial_from must be between 0 and 1");
    EXPECT_STR(problem("{\"schema\": 1, " LABS ", \"fail_credit\": 2}"), "r.json: fail_credit must be between 0 and 1");
    EXPECT_STR(problem("{\"schema\": 1, " LABS ", \"rejected_penalty\": -1}"),
               "r.json: rejected_penalty must be a number >= 0");
    EXPECT_STR(problem("{\"schema\": 1, " LABS ", \"not_graded\": \"no_gpu\"}"),
               "r.json: not_graded must be a list of statuses");
    /* New: a misspelt status once left a lab graded without a word. */
    EXPECT_STR(problem("{\"schema\": 1, " LABS ", \"not_graded\": [\"no-gpu\"]}"),
               "r.json: not_graded: \"no-gpu\" is not a status (status.h names them)");
    EXPECT_STR(problem("{\"schema\": 1, " LABS ", \"gradescope\": {\"visibility\": \"shown\"}}"),
               "r.json: gradescope.visibility must be visible, hidden, after_due_date or after_published");
    EXPECT(!strncmp(problem("{\"schema\": 1, "), "r.json is not valid JSON", 24));
}

static void the_defaults_and_the_file_s_values(void)
{
    struct rubric rb;
    char err[256];
    const char *text = "{\"schema\": 1, " LABS ", \"default\": {\"correctness\": 7, \"performance\": 3}}";
    EXPECT(rubric_parse(&rb, text, strlen(text), "r", err, sizeof err) == 0);
    EXPECT(rb.partial_from == 0.5 && rb.fail_credit == 0 && rb.rejected_penalty == 0);
    EXPECT(rb.not_graded[STATUS_NO_GPU] && rb.not_graded[STATUS_INTERNAL_ERROR] && !rb.not_graded[STATUS_FAIL]);
    EXPECT_STR(rb.visibility, "visible");
    EXPECT_STR(rb.stdout_visibility, "hidden");
    EXPECT(rubric_points(&rb, "01")->correctness == 6 && rubric_points(&rb, "09")->performance == 3);
    const char *ids[] = {"01", "09"};
    EXPECT(rubric_check_labs(&rb, "r", ids, 2, err, sizeof err) == 0);
    rubric_free(&rb);

    text = "{\"schema\": 1, " LABS "}";
    EXPECT(rubric_parse(&rb, text, strlen(text), "r", err, sizeof err) == 0);
    EXPECT(rubric_points(&rb, "09") == NULL);
    EXPECT(rubric_check_labs(&rb, "r", ids, 2, err, sizeof err) == -1);
    EXPECT_STR(err, "r has no points for lab 09 (and no default)");
    rubric_free(&rb);
}

/* The hash is of the file's bytes, as sha256sum | cut -c1-16 prints it. */
static void the_rubric_s_hash_is_sha256sum_s(void)
{
    struct rubric rb;
    char err[256];
    FILE *p = popen("sha256sum data/rubric.json | cut -c1-16", "r");
    char want[32] = "";
    if (!p || !fgets(want, sizeof want, p)) {
        printf("#   sha256sum did not run\n");
        tap_failed_ = 1;
    }
    if (p)
        pclose(p);
    want[strcspn(want, "\n")] = '\0';
    EXPECT(rubric_load(&rb, "data/rubric.json", err, sizeof err) == 0);
    EXPECT_STR(rb.sha256, want);
    rubric_free(&rb);
    EXPECT(rubric_load(&rb, "/nonexistent/rubric.json", err, sizeof err) == -1);
    EXPECT_STR(err, "no rubric at /nonexistent/rubric.json");
}

/* ---- scoring --------------------------------------------------------------- */

static struct rubric rb;

/* One lab 01 scored from a check report (NULL: none) taken in as state. */
static struct score_report one(const char *state, const char *json)
{
    struct score_intake_lab l = {.lab = "01", .state = (char *)state, .from = NULL, .bytes = 1, .why = NULL};
    struct score_intake in = {.submission = "x", .kind = "folder", .refused = NULL, .labs = &l, .nlabs = 1};
    struct result r;
    const struct result *reps[1] = {NULL};
    struct score_report out;
    char err[256];
    if (json) {
        if (result_parse(json, &r, err, sizeof err)) {
            printf("#   %s\n", err);
            exit(1);
        }
        reps[0] = &r;
    }
    if (score_student(&out, "s", &in, reps, &rb, NULL, "none", "now", err, sizeof err)) {
        printf("#   %s\n", err);
        exit(1);
    }
    if (json)
        result_free(&r);
    return out;
}

/* A pass of 32 sizes with its target: value, met, implausible. */
static char *pass(const char *value, int met, int implausible)
{
    return util_format("{\"schema\": 1, \"status\": \"pass\", \"summary\": \"ok\", \"tests\": [{\"name\": \"n=1\", "
                       "\"pass\": true}], \"target\": {\"metric\": \"ratio\", \"case\": \"2^28\", \"min\": 0.2, "
                       "\"value\": %s, \"met\": %s}, \"perf\": [{\"label\": \"2^28\", \"implausible\": %s}]}",
                       value, met ? "true" : "false", implausible ? "true" : "false");
}

/* A check report of status with npass of 4 sizes passed. */
static char *of(const char *status, int npass)
{
    char *tests = strdup("");
    for (int i = 0; i < 4; i++) {
        char *t = util_format("%s%s{\"name\": \"n=%d\", \"pass\": %s}", tests, i ? ", " : "", i, i < npass ? "true" : "false");
        free(tests);
        tests = t;
    }
    char *s = util_format("{\"schema\": 1, \"status\": \"%s\", \"summary\": \"%s\", \"tests\": [%s, "
                          "{\"name\": \"timed\", \"pass\": false}]}", status, status, tests);
    free(tests);
    return s;
}

/* The score of one lab from json (freed), and its performance points. */
static double score_of(char *json, double *perf)
{
    struct score_report r = one("ok", json);
    double s = r.labs[0].graded ? r.labs[0].score : NAN;
    if (perf)
        *perf = r.labs[0].performance;
    score_report_free(&r);
    free(json);
    return s;
}

static void the_points_of_a_pass(void)
{
    double perf;
    EXPECT(score_of(pass("0.3", 1, 0), &perf) == 8 && perf == 2);        /* on target: 6 + 2 */
    EXPECT(score_of(pass("0.15", 0, 0), &perf) == 7 && perf == 1);       /* 3/4 of it: half of 2 */
    EXPECT(score_of(pass("0.08", 0, 0), &perf) == 6 && perf == 0);       /* under half: nothing */
    EXPECT(score_of(pass("9", 0, 1), &perf) == 6 && perf == 0);          /* implausible */
    EXPECT(score_of(pass("9", 1, 1), &perf) == 6 && perf == 0);          /* implausible beats met */
    EXPECT(score_of(pass("null", 0, 0), &perf) == 6 && perf == 0);       /* not timed */
    /* 0.17 of 0.2: (0.85 - 0.5) / 0.5 = 0.7 of 2, rounded to 1.4. */
    EXPECT(score_of(pass("0.17", 0, 0), &perf) == 7.4 && perf == 1.4);

    char *below = pass("0.15", 0, 0);
    struct score_report r = one("ok", below);
    free(below);
    EXPECT_STR(r.labs[0].performance_why,
               "ratio 0.15 at 2^28: target 0.2 not met (credit from 0.5 x the target)");
    score_report_free(&r);
    char *lowered = strdup("{\"schema\": 1, \"status\": \"pass\", \"target\": {\"metric\": \"ratio\", \"case\": "
                           "\"2^28\", \"min\": 0.1, \"catalog_min\": 0.12, \"value\": 0.1234, \"met\": true}}");
    r = one("ok", lowered);
    EXPECT_STR(r.labs[0].performance_why, "ratio 0.12 at 2^28: target 0.1 (lowered for this GPU from the catalog's 0.12) met");
    score_report_free(&r);
    free(lowered);
}

/* A pass whose target has a second case (lab 15's shape): 2^22's value
 * against 1.3, 2^28's against 1, met, and whether 2^28 was implausible. */
static char *two_cases(const char *v22, const char *v28, int met, int implausible28)
{
    return util_format("{\"schema\": 1, \"status\": \"pass\", \"summary\": \"ok\", \"tests\": [{\"name\": "
                       "\"n=1\", \"pass\": true}], \"target\": {\"metric\": \"ratio\", \"case\": \"2^22\", "
                       "\"min\": 1.3, \"value\": %s, \"met\": %s, \"also\": [{\"case\": \"2^28\", \"min\": 1, "
                       "\"value\": %s, \"met\": %s}]}, \"perf\": [{\"label\": \"2^22\", \"implausible\": false}, "
                       "{\"label\": \"2^28\", \"implausible\": %s}]}",
                       v22, met ? "true" : "false", v28, met ? "true" : "false", implausible28 ? "true" : "false");
}

/* The performance points and their words, from a report (freed). */
static double perf_of(char *json, char *why, size_t len)
{
    struct score_report r = one("ok", json);
    double p = r.labs[0].performance;
    snprintf(why, len, "%s", r.labs[0].performance_why ? r.labs[0].performance_why : "(null)");
    score_report_free(&r);
    free(json);
    return p;
}

/* A target of several cases: met, all of it, every case said; short on
 * one, the share of the case furthest short (0.9 of 1 at 2^28 with
 * partial_from 0.5: 0.8 of the 2 points); a case not timed or an
 * implausible one, nothing. */
static void the_points_of_a_target_of_several_cases(void)
{
    char why[512];
    EXPECT(perf_of(two_cases("1.45", "1.02", 1, 0), why, sizeof why) == 2);
    EXPECT_STR(why, "ratio 1.45 at 2^22: target 1.3; ratio 1.02 at 2^28: target 1 met");
    EXPECT(fabs(perf_of(two_cases("1.45", "0.9", 0, 0), why, sizeof why) - 1.6) < 1e-9);
    EXPECT_STR(why, "ratio 1.45 at 2^22: target 1.3; ratio 0.9 at 2^28: target 1 not met (credit from 0.5 x "
                    "the target, on the case furthest short)");
    EXPECT(perf_of(two_cases("1.45", "null", 0, 0), why, sizeof why) == 0);
    EXPECT_STR(why, "not timed");
    EXPECT(perf_of(two_cases("1.45", "9", 0, 1), why, sizeof why) == 0);
    EXPECT_STR(why, "the timing was implausible (faster than the measured peak)");
}

static void the_points_of_a_fail_and_of_nothing(void)
{
    rb.fail_credit = 0.5;
    EXPECT(score_of(of("fail", 4), NULL) == 3);         /* every size right (a race): 0.5 x 6 */
    EXPECT(score_of(of("fail", 3), NULL) == 2.25);      /* 3 of 4 sizes */
    EXPECT(score_of(of("fail", 0), NULL) == 0);
    rb.fail_credit = 0;
    EXPECT(score_of(of("fail", 4), NULL) == 0);
    static const char *const nothing[] = {"compile_error", "rejected", "runtime_error", "timeout"};
    for (int i = 0; i < 4; i++)
        EXPECT(score_of(of(nothing[i], 4), NULL) == 0);
}

static void what_is_not_graded(void)
{
    char *nogpu = of("no_gpu", 0);
    struct score_report r = one("ok", nogpu);
    free(nogpu);
    EXPECT(!r.labs[0].graded && r.labs_not_graded == 1 && !r.complete);
    EXPECT(r.max_score == 8 && r.graded_max_score == 0 && r.score == 0);
    EXPECT(!strncmp(r.labs[0].text, "not graded: ", 12));
    score_report_free(&r);
    /* Taken in without a report: the grader failed on it, not graded. */
    r = one("ok", NULL);
    EXPECT(r.labs[0].status == STATUS_INTERNAL_ERROR && !r.labs[0].graded);
    EXPECT_STR(r.labs[0].summary, status_meaning(STATUS_INTERNAL_ERROR));
    score_report_free(&r);
    /* Intake's statuses are graded zero, worded by status.h. */
    r = one(status_name(STATUS_UNCHANGED), NULL);
    EXPECT(r.labs[0].status == STATUS_UNCHANGED && r.labs[0].graded && r.labs[0].score == 0);
    EXPECT(!strncmp(r.labs[0].text, status_meaning(STATUS_UNCHANGED), strlen(status_meaning(STATUS_UNCHANGED))));
    score_report_free(&r);
}

static void the_rejected_penalty_stops_at_zero(void)
{
    struct score_intake_lab l[2] = {{.lab = "01", .state = "ok"}, {.lab = "02", .state = "ok"}};
    struct score_intake in = {.labs = l, .nlabs = 2};
    struct result a, b;
    char err[256], *pj = pass("0.3", 1, 0), *rj = of("rejected", 0);
    const struct result *reps[2] = {&a, &b};
    struct score_report r;
    EXPECT(result_parse(pj, &a, err, sizeof err) == 0 && result_parse(rj, &b, err, sizeof err) == 0);
    rb.rejected_penalty = 3;
    EXPECT(score_student(&r, "s", &in, reps, &rb, NULL, "none", "now", err, sizeof err) == 0);
    EXPECT(r.score == 5);                                   /* 8 + 0 - 3 */
    score_report_free(&r);
    rb.rejected_penalty = 100;
    EXPECT(score_student(&r, "s", &in, reps, &rb, NULL, "none", "now", err, sizeof err) == 0);
    EXPECT(r.score == 0 && r.max_score == 18);
    score_report_free(&r);
    rb.rejected_penalty = 0;
    result_free(&a);
    result_free(&b);
    free(pj);
    free(rj);
}

static void r2_rounds_as_jq_does(void)
{
    /* jq -n '(1.005 * 100 | round) / 100' is 1: 1.005 * 100 is just under
     * 100.5 in doubles; 2.345 * 100 just over 234.5. */
    EXPECT(score_r2(1.005) == 1);
    EXPECT(score_r2(2.345) == 2.35);
    EXPECT(score_r2(0.125) == 0.13);
    EXPECT(score_r2(-0.125) == -0.13);                          /* halves away from zero */
    EXPECT(score_r2(6.6666666) == 6.67);
}

/* ---- clean ------------------------------------------------------------------- */

static void clean_is(const char *in, const char *want)
{
    char *got = score_clean(in);
    EXPECT_STR(got, want);
    free(got);
}

static void the_grader_s_paths_are_cleaned(void)
{
    clean_is("/home/t/out/work/alice/wb/labs/01-x/kernel.cu:7: error", "labs/01-x/kernel.cu:7: error");
    clean_is("at /o/work/a/wb/labs/01/kernel.cu and /p/work/b/wb/x", "at labs/01/kernel.cu and x");
    /* Greedy: the last /work/X/wb/ of one run of path characters. */
    clean_is("/a/work/x/wb/b/work/y/wb/k.cu", "k.cu");
    /* A ':' or '"' or space ends the prefix; the folder may hold them. */
    clean_is("file:/a/work/x/wb/k.cu", "file:k.cu");
    clean_is("\"/a/work/x:y/wb/k.cu\"", "\"k.cu\"");
    clean_is("/a/work/x y/wb/k.cu", "/a/work/x y/wb/k.cu");
    clean_is("/a/work//wb/k.cu", "/a/work//wb/k.cu");
    clean_is("/a/work/x/wbk.cu", "/a/work/x/wbk.cu");
    clean_is("", "");
    clean_is("no paths", "no paths");
}

int main(void)
{
    static const struct tap_test tests[] = {
        T(the_rubric_s_rules_and_messages),
        T(the_defaults_and_the_file_s_values),
        T(the_rubric_s_hash_is_sha256sum_s),
        T(the_points_of_a_pass), T(the_points_of_a_target_of_several_cases),
        T(the_points_of_a_fail_and_of_nothing),
        T(what_is_not_graded),
        T(the_rejected_penalty_stops_at_zero),
        T(r2_rounds_as_jq_does),
        T(the_grader_s_paths_are_cleaned),
    };
    char err[256];
    const char *text = "{\"schema\": 1, \"labs\": {\"01\": {\"correctness\": 6, \"performance\": 2}}, "
                       "\"default\": {\"correctness\": 7, \"performance\": 3}}";
    if (rubric_parse(&rb, text, strlen(text), "r", err, sizeof err)) {
        printf("#   %s\n", err);
        return 1;
    }
    int rc = tap_run(tests, (int)(sizeof tests / sizeof tests[0]));
    rubric_free(&rb);
    return rc;
}
