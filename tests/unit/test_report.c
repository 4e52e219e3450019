/* test_report.c — every report the grader writes, from a class of student
 * folders built here out of tests/fixtures/ (a check report of every
 * status) and synthetic verdicts (targets met, missed by a share, missed by
 * far, an implausible timing, a calibrated threshold, a race, sizes
 * failed), an archive refused at intake, a lab that never ran, and a text
 * full of what escaping must survive (quotes, <&>, control characters, a
 * byte that is not UTF-8, the grader's work paths):
 *   - byte for byte the golden files (tests/grade/golden/: each student's
 *     report.json, results.json and junit.xml, the class's grades.csv,
 *     junit.xml and summary.txt), under two rubrics;
 *   - JUnit valid against Jenkins's rules (tests/fixtures/junit-10.xsd)
 *     and the grader's own (tests/grade/junit.xsd);
 *   - results.json with only Gradescope's documented fields, of their types;
 *   - the summary's legend drawn from status.h's table;
 *   - the exit status over a class. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade/grade_report.h"
#include "model/score.h"
#include "sys/util.h"
#include "tap.h"
#include "view/grade_reports.h"

static char dir[64];
static struct catalog cat;

#define NOW "2024-05-01T12:00:00Z"
#define SANDBOX "bwrap"

/* ---- building the class ---------------------------------------------------- */

static void put(const char *path, const char *text)
{
    char *folder = strdup(path);
    *strrchr(folder, '/') = '\0';
    if (util_mkdirs(folder) || util_write_file(path, text, strlen(text))) {
        printf("#   cannot write %s\n", path);
        exit(1);
    }
    free(folder);
}

static char *fixture(const char *status)
{
    char *path = util_format("tests/fixtures/%s.json", status);
    char *text = util_read_file(path, NULL);
    if (!text) {
        printf("#   no fixture %s\n", path);
        exit(1);
    }
    free(path);
    return text;
}

/* students/ID/labs/LAB.json from text (freed). */
static void lab_report(const char *out, const char *id, const char *lab, char *text)
{
    char *path = util_format("%s/students/%s/labs/%s.json", out, id, lab);
    put(path, text);
    free(path);
    free(text);
}

/* One lab of intake.json: ok (taken from labs/LAB/kernel.cu) or not, why. */
static char *intake_lab(const char *lab, const char *state, const char *why)
{
    int ok = !strcmp(state, "ok");
    return util_format("\"%s\": {\"state\": \"%s\", \"from\": %s%s%s, \"bytes\": %d, \"why\": %s%s%s}", lab, state,
                       ok ? "\"labs/" : "null", ok ? lab : "", ok ? "/kernel.cu\"" : "", ok ? 812 : 0,
                       why ? "\"" : "null", why ? why : "", why ? "\"" : "");
}

/* students/ID/intake.json from its labs (each freed). */
static void intake(const char *out, const char *id, const char *submission, const char *kind,
                   const char *refused, int n, char **labs)
{
    char *all = strdup("");
    for (int i = 0; i < n; i++) {
        char *next = util_format("%s%s%s", all, i ? ", " : "", labs[i]);
        free(all);
        free(labs[i]);
        all = next;
    }
    char *text = util_format("{\"submission\": \"%s\", \"kind\": %s%s%s, \"refused\": %s%s%s, \"labs\": {%s}}",
                             submission, kind ? "\"" : "", kind ? kind : "null", kind ? "\"" : "",
                             refused ? "\"" : "", refused ? refused : "null", refused ? "\"" : "", all);
    char *path = util_format("%s/students/%s/intake.json", out, id);
    put(path, text);
    free(path);
    free(text);
    free(all);
}

/* A check report of lab 01 as tests/grade.sh makes them: 32 sizes passed,
 * a ratio target met, then the caller's edits of fields. */
static char *verdict(const char *status, const char *target, const char *tests, const char *perf)
{
    return util_format("{\"schema\": 1, \"lab\": \"01\", \"status\": \"%s\", \"summary\": \"%s\", \"seed\": 1, "
                       "\"tests\": %s, \"target\": %s, \"perf\": %s}",
                       status, status, tests, target, perf);
}

/* 32 sizes n=0..31, the first nfail of them failed, with or without the
 * expected and got of a real judge. */
static char *sizes(int nfail, int full)
{
    char *all = strdup("[");
    for (int i = 0; i < 32; i++) {
        char *next = full ? util_format("%s%s{\"name\": \"n=%d\", \"n\": %d, \"expected\": \"%d\", \"got\": \"%d\", "
                                        "\"pass\": %s, \"message\": \"\"}", all, i ? ", " : "", i, i, i,
                                        i < nfail ? -1 : i, i < nfail ? "false" : "true")
                          : util_format("%s%s{\"name\": \"n=%d\", \"pass\": %s}", all, i ? ", " : "", i,
                                        i < nfail ? "false" : "true");
        free(all);
        all = next;
    }
    char *done = util_format("%s]", all);
    free(all);
    return done;
}

#define TARGET(value, met, extra) \
    "{\"metric\": \"ratio\", \"case\": \"2^28\", \"min\": 0.2, \"value\": " value ", \"met\": " met extra "}"
#define PERF(implausible) "[{\"label\": \"2^28\", \"implausible\": " implausible "}]"

/* One synthetic student with one lab 01 verdict. */
static void synthetic(const char *out, const char *id, char *report)
{
    char *labs[] = {intake_lab("01", "ok", NULL)};
    intake(out, id, "x", "folder", NULL, 1, labs);
    lab_report(out, id, "01", report);
}

/* The class of the file's comment in out/students. */
static void make_class(const char *out)
{
    char miss[200], *labs[8];
    snprintf(miss, sizeof miss, "no labs/03-x/kernel.cu in the submission");

    labs[0] = intake_lab("01", "ok", NULL);
    labs[1] = intake_lab("02", "ok", NULL);
    labs[2] = intake_lab("03", status_name(STATUS_MISSING), miss);
    labs[3] = intake_lab("04", status_name(STATUS_UNCHANGED), status_meaning(STATUS_UNCHANGED));
    intake(out, "alice", "alice", "folder", NULL, 4, labs);
    lab_report(out, "alice", "01", fixture("pass"));
    lab_report(out, "alice", "02", fixture("compile_error"));

    static const char *const bob[] = {"fail", "rejected", "no_gpu", "internal_error", "runtime_error", "timeout"};
    for (int i = 0; i < 7; i++) {
        char id[3] = {'0', (char)('1' + i), '\0'};
        labs[i] = intake_lab(id, "ok", NULL);
        if (i < 6)
            lab_report(out, "bob", id, fixture(bob[i]));
    }
    intake(out, "bob", "bob.tar.gz", "tar.gz", NULL, 7, labs);

    const char *bomb = "archive bomb: it unpacks to 73400320 bytes (the limit is 64 MiB)";
    labs[0] = intake_lab("01", status_name(STATUS_REFUSED), bomb);
    labs[1] = intake_lab("02", status_name(STATUS_REFUSED), bomb);
    intake(out, "carol", "carol.zip", "zip", bomb, 2, labs);

    labs[0] = intake_lab("01", status_name(STATUS_REFUSED), "not a folder or a .tar.gz, .tgz, .tar or .zip archive");
    intake(out, "dave", "dave.rar", NULL, "not a folder or a .tar.gz, .tgz, .tar or .zip archive", 1, labs);

    char *t;
    synthetic(out, "met", verdict("pass", TARGET("0.3", "true", ""), t = sizes(0, 0), PERF("false")));
    free(t);
    synthetic(out, "below", verdict("pass", TARGET("0.15", "false", ""), t = sizes(0, 0), PERF("false")));
    free(t);
    synthetic(out, "slow", verdict("pass", TARGET("0.08", "false", ""), t = sizes(0, 0), PERF("false")));
    free(t);
    synthetic(out, "cheat", verdict("pass", TARGET("9", "false", ""), t = sizes(0, 0), PERF("true")));
    free(t);
    synthetic(out, "lowered", verdict("pass", TARGET("0.1733333", "false", ", \"catalog_min\": 0.25"),
                                      t = sizes(0, 0), PERF("false")));
    free(t);
    synthetic(out, "untimed", verdict("pass", TARGET("null", "false", ""), t = sizes(0, 1), PERF("false")));
    free(t);
    synthetic(out, "racy", verdict("fail", TARGET("0.3", "true", ""), t = sizes(0, 0), PERF("false")));
    free(t);
    synthetic(out, "wrong", verdict("fail", TARGET("0.3", "true", ""), t = sizes(8, 0), PERF("false")));
    free(t);
    synthetic(out, "wrong2", verdict("fail", "null", t = sizes(3, 1), "[]"));
    free(t);
    synthetic(out, "hung", verdict("timeout", "null", "[]", "[]"));
    /* Judged on the CPU tier: a pass (provisional, untimed), and a kernel
     * the emulator refused, which is graded as not passed. */
    synthetic(out, "cpupass",
              strdup("{\"schema\": 1, \"lab\": \"01\", \"status\": \"pass\", \"summary\": \"pass\", \"seed\": 1, "
                     "\"tests\": [{\"name\": \"n=1\", \"pass\": true}], \"target\": null, \"perf\": [], "
                     "\"emulator\": {\"max_n\": 1048576, \"not_run\": [4194301]}}"));
    synthetic(out, "cpurefused",
              strdup("{\"schema\": 1, \"lab\": \"01\", \"status\": \"no_gpu\", \"seed\": 1, "
                     "\"summary\": \"compiled; not run: no CUDA device: needs a GPU: .f16 (PTX line 30) is not emulated\", "
                     "\"tests\": [], \"target\": null, \"perf\": [], "
                     "\"emulator\": {\"max_n\": 1048576, \"not_run\": []}}"));
    synthetic(out, "cheats", verdict("rejected", "null", "[]", "[]"));

    /* What escaping and cleaning must survive. */
    synthetic(out, "O'Brien & <Sons>",
              strdup("{\"schema\": 1, \"lab\": \"01\", \"status\": \"fail\", \"seed\": 7, "
                     "\"summary\": \"failed \\\"n=3\\\" at /home/t/grade-out/work/O_Brien/wb/labs/01-x/kernel.cu:7: "
                     "a <b> & c\\u0001\\u0007 tab\\there \\u00e9 \xff end\", "
                     "\"compile\": {\"diagnostics\": [{\"file\": \"/srv/o/work/x/wb/labs/01-x/kernel.cu\", \"line\": 7, "
                     "\"severity\": \"warning\", \"message\": \"unused 'x'\"}]}, "
                     "\"symbols\": {\"violations\": [{\"symbol\": \"cudaMemcpy\", \"rule\": \"no host copies\"}]}, "
                     "\"techniques\": [{\"name\": \"shared memory\", \"found\": false, \"why\": \"no .shared\"}, "
                     "{\"name\": \"warp\", \"found\": true, \"why\": \"\"}], "
                     "\"sanitizer\": {\"ran\": true, \"tools\": [{\"tool\": \"racecheck\", \"clean\": false, "
                     "\"report\": \"\\n1\\n2\\n\\n3\\n4\\n5\\n6\\n7\\n\"}, {\"tool\": \"memcheck\", \"clean\": true}]}, "
                     "\"tests\": [{\"name\": \"n=1\", \"pass\": true}, {\"name\": \"n=2\", \"pass\": false, "
                     "\"expected\": \"\", \"got\": \"5\", \"message\": \"\"}, {\"name\": \"timed\", \"pass\": false}], "
                     "\"timing\": {\"total_s\": 2.71828}}"));
}

/* ---- comparing with the golden files ---------------------------------------- */

/* Whether two files hold the same bytes; the first line that differs when not. */
static int same_file(const char *a, const char *b)
{
    size_t la = 0, lb = 0;
    char *x = util_read_file(a, &la), *y = util_read_file(b, &lb);
    int same = x && y && la == lb && !memcmp(x, y, la);
    if (!same) {
        printf("#   %s differs from %s\n", a, b);
        int line = 1;
        for (size_t i = 0; x && y && i < la && i < lb; i++) {
            if (x[i] != y[i]) {
                size_t s = i;
                while (s > 0 && x[s - 1] != '\n')
                    s--;
                printf("#   line %d:\n#   made:   %.160s\n#   golden: %.160s\n", line, x + s, y + s);
                break;
            }
            line += x[i] == '\n';
        }
    }
    free(x);
    free(y);
    return same;
}

/* The checked-in copy of a report: tests/grade/golden/SET/NAME.  With
 * CUDATUTOR_UPDATE_GOLDEN=1 the C report is written there first (after a
 * deliberate change of a report, the catalog or the rubric: the diff is
 * then reviewed in git). */
static int same_as_golden(const char *made, const char *set, const char *name)
{
    char *golden = util_format("tests/grade/golden/%s/%s", set, name);
    if (getenv("CUDATUTOR_UPDATE_GOLDEN")) {
        size_t n = 0;
        char *text = util_read_file(made, &n);
        char *folder = strdup(golden);
        *strrchr(folder, '/') = '\0';
        if (!text || util_mkdirs(folder) || util_write_file(golden, text, n))
            printf("#   cannot update %s\n", golden);
        free(text);
        free(folder);
    }
    int same = same_file(made, golden);
    free(golden);
    return same;
}

/* Every student scored with the rubric at rubric_path, then the class,
 * each file compared with its golden copy in tests/grade/golden/SET/. */
static void grade_and_compare(const char *out, const char *rubric_path, const char *set)
{
    struct rubric rb;
    char err[512];
    if (rubric_load(&rb, rubric_path, err, sizeof err)) {
        printf("#   %s\n", err);
        tap_failed_ = 1;
        return;
    }
    static const char *const ids[] = {"alice", "bob", "carol", "dave", "met", "below", "slow", "cheat", "lowered",
                                      "untimed", "racy", "wrong", "wrong2", "hung", "cheats", "O'Brien & <Sons>",
                                      "cpupass", "cpurefused"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char *sd = util_format("%s/students/%s", out, ids[i]);
        EXPECT(grade_report_student(sd, ids[i], &rb, &cat, SANDBOX, NOW, err, sizeof err) == 0);
        static const char *const files[] = {"report.json", "results.json", "junit.xml"};
        for (int f = 0; f < 3; f++) {
            char *a = util_format("%s/%s", sd, files[f]), *g = util_format("students/%02zu/%s", i, files[f]);
            EXPECT(same_as_golden(a, set, g));
            free(a);
            free(g);
        }
        free(sd);
    }
    int n = 0, code = -1;
    EXPECT(grade_report_class(out, &n, &code, err, sizeof err) == 0);
    EXPECT(n == (int)(sizeof ids / sizeof ids[0]));
    static const char *const files[] = {"grades.csv", "junit.xml", "summary.txt"};
    for (int f = 0; f < 3; f++) {
        char *a = util_format("%s/%s", out, files[f]);
        EXPECT(same_as_golden(a, set, files[f]));
        free(a);
    }
    rubric_free(&rb);
}

static void the_reports_are_the_golden_files_byte_for_byte(void)
{
    char *out = util_format("%s/class", dir);
    make_class(out);
    grade_and_compare(out, "data/rubric.json", "default");
    free(out);
}

/* The same verdicts under a strict rubric: a rejection costs a point,
 * a fail earns a quarter, the slope starts at 0.6, and a grader's failure
 * is graded (zero) while no_gpu is not. */
static void a_second_rubric_too(void)
{
    char *out = util_format("%s/class", dir), *rubric = util_format("%s/strict.json", dir);
    put(rubric, "{\"schema\": 1, \"labs\": {\"01\": {\"correctness\": 6, \"performance\": 2}}, "
                "\"default\": {\"correctness\": 7.5, \"performance\": 2.5}, \"performance\": {\"partial_from\": 0.6}, "
                "\"fail_credit\": 0.25, \"rejected_penalty\": 1, \"not_graded\": [\"no_gpu\"], "
                "\"gradescope\": {\"visibility\": \"after_published\", \"stdout_visibility\": \"visible\"}}\n");
    grade_and_compare(out, rubric, "strict");
    free(out);
    free(rubric);
}

/* ---- JUnit, Gradescope, the legend, the exit status --------------------------- */

static void junit_is_valid_against_jenkins_and_our_xsd(void)
{
    char *cmd = util_format("xmllint --noout --schema tests/fixtures/junit-10.xsd '%s/class/junit.xml' "
                            "'%s/class/students'/*/junit.xml 2>&1 | grep -v validates >&2; "
                            "xmllint --noout --schema tests/grade/junit.xsd '%s/class/junit.xml' "
                            "'%s/class/students'/*/junit.xml 2>&1 | grep -v validates >&2; exit 0",
                            dir, dir, dir, dir);
    char *strict = util_format("xmllint --noout --schema tests/fixtures/junit-10.xsd '%s/class/junit.xml' "
                               "'%s/class/students'/*/junit.xml 2>/dev/null && "
                               "xmllint --noout --schema tests/grade/junit.xsd '%s/class/junit.xml' "
                               "'%s/class/students'/*/junit.xml 2>/dev/null", dir, dir, dir, dir);
    if (system("command -v xmllint > /dev/null 2>&1")) {
        printf("#   xmllint is not installed: not validated\n");
    } else {
        int rc = system(strict);
        if (rc)
            EXPECT(system(cmd) == 0 && rc == 0);
        /* The schema is not a no-op: a testcase without a name fails it. */
        char *bad = util_format("%s/bad.xml", dir);
        put(bad, "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"a\" tests=\"1\" failures=\"0\" "
                 "errors=\"0\"><testcase classname=\"a\"/></testsuite></testsuites>\n");
        char *check = util_format("xmllint --noout --schema tests/fixtures/junit-10.xsd '%s' 2>/dev/null", bad);
        EXPECT(system(check) != 0);
        free(check);
        free(bad);
    }
    free(cmd);
    free(strict);
}

/* One of Gradescope's visibilities. */
static int visibility(const cJSON *v)
{
    static const char *const ok[] = {"visible", "hidden", "after_due_date", "after_published"};
    for (int i = 0; cJSON_IsString(v) && i < 4; i++)
        if (!strcmp(v->valuestring, ok[i]))
            return 1;
    return 0;
}

/* Every key of o is one of the names. */
static int only_keys(const cJSON *o, const char *const *names, int n)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, o) {
        int known = 0;
        for (int i = 0; i < n; i++)
            known |= !strcmp(k->string, names[i]);
        if (!known) {
            printf("#   not a Gradescope field: %s\n", k->string);
            return 0;
        }
    }
    return 1;
}

static void results_json_has_gradescope_s_fields(void)
{
    static const char *const top[] = {"score", "execution_time", "output", "visibility", "stdout_visibility",
                                      "tests", "extra_data"};
    static const char *const test[] = {"name", "number", "score", "max_score", "status", "output", "tags",
                                       "visibility", "extra_data"};
    static const char *const ids[] = {"alice", "bob", "carol", "O'Brien & <Sons>", "cpupass", "cpurefused"};
    for (int i = 0; i < 6; i++) {
        char *path = util_format("%s/class/students/%s/results.json", dir, ids[i]);
        char *text = util_read_file(path, NULL);
        cJSON *r = text ? cJSON_Parse(text) : NULL, *t;
        EXPECT(r != NULL);
        EXPECT(only_keys(r, top, 7));
        EXPECT(cJSON_IsNumber(cJSON_GetObjectItem(r, "score")));
        EXPECT(cJSON_IsNumber(cJSON_GetObjectItem(r, "execution_time")));
        EXPECT(cJSON_IsString(cJSON_GetObjectItem(r, "output")));
        EXPECT(visibility(cJSON_GetObjectItem(r, "visibility")));
        EXPECT(visibility(cJSON_GetObjectItem(r, "stdout_visibility")));
        EXPECT(cJSON_GetArraySize(cJSON_GetObjectItem(r, "tests")) > 0);
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(r, "tests")) {
            const cJSON *score = cJSON_GetObjectItem(t, "score"), *st = cJSON_GetObjectItem(t, "status");
            EXPECT(only_keys(t, test, 9));
            EXPECT(cJSON_IsString(cJSON_GetObjectItem(t, "name")));
            EXPECT(cJSON_IsString(cJSON_GetObjectItem(t, "number")));
            EXPECT(cJSON_IsString(cJSON_GetObjectItem(t, "output")));
            EXPECT(visibility(cJSON_GetObjectItem(t, "visibility")));
            EXPECT(cJSON_IsArray(cJSON_GetObjectItem(t, "tags")));
            EXPECT(cJSON_IsObject(cJSON_GetObjectItem(t, "extra_data")));
            /* Graded: score, max_score and Gradescope's passed or failed;
             * not graded: none of the three, so it counts nowhere. */
            if (score) {
                EXPECT(cJSON_IsNumber(score) && cJSON_IsNumber(cJSON_GetObjectItem(t, "max_score")));
                EXPECT(score->valuedouble <= cJSON_GetObjectItem(t, "max_score")->valuedouble);
                EXPECT(cJSON_IsString(st) && (!strcmp(st->valuestring, "passed") || !strcmp(st->valuestring, "failed")));
            } else {
                EXPECT(!cJSON_GetObjectItem(t, "max_score") && !st);
            }
        }
        cJSON_Delete(r);
        free(text);
        free(path);
    }
}

static void the_legend_is_status_h_s_table(void)
{
    char *path = util_format("%s/class/summary.txt", dir);
    char *text = util_read_file(path, NULL);
    EXPECT(text != NULL);
    for (int s = 0; text && s < STATUS_COUNT; s++) {
        char want[200];
        snprintf(want, sizeof want, "%s", status_meaning((enum status)s));
        EXPECT(strstr(text, want) != NULL);
    }
    /* alice: 01 passed on target, 02 did not compile, 03 missing, 04 unchanged. */
    char row[64];
    snprintf(row, sizeof row, "%c  %c  %c  %c ", status_letter(STATUS_PASS), status_letter(STATUS_COMPILE_ERROR),
             status_letter(STATUS_MISSING), status_letter(STATUS_UNCHANGED));
    EXPECT(text && strstr(text, row));
    free(text);
    free(path);
}

static void the_exit_status_is_the_worst_grader_outcome(void)
{
    struct score_lab labs[3] = {{.status = STATUS_FAIL}, {.status = STATUS_NO_GPU}, {.status = STATUS_PASS}};
    struct score_report r = {.labs = labs, .nlabs = 3};
    EXPECT(score_exit_status(&r, 1) == 3);
    /* graded: the CPU tier judged it, and it counts as not passed */
    labs[1].graded = 1;
    EXPECT(score_exit_status(&r, 1) == 0);
    labs[1].graded = 0;
    labs[2].status = STATUS_INTERNAL_ERROR;
    EXPECT(score_exit_status(&r, 1) == 4);
    labs[1].status = labs[2].status = STATUS_REJECTED;
    EXPECT(score_exit_status(&r, 1) == 0);
    EXPECT(score_exit_status(&r, 0) == 0);
}

/* A lab judged on the CPU tier is marked provisional in every output, and
 * one the emulator refused ("needs a GPU") is graded as not passed: it
 * stays in graded_max_score.  Before, that refusal was no_gpu, not
 * graded, and the bank's wrong_answer with a never-launched __half kernel
 * left its lab out of the denominator. */
static void cpu_tier_labs_are_graded_and_provisional(void)
{
    char *sd = util_format("%s/class/students", dir);
    char *a = util_format("%s/cpurefused/report.json", sd), *b = util_format("%s/cpupass/results.json", sd);
    char *c = util_format("%s/class/grades.csv", dir), *d = util_format("%s/class/summary.txt", dir);
    char *e = util_format("%s/cpupass/junit.xml", sd);
    char *refused = util_read_file(a, NULL), *results = util_read_file(b, NULL);
    char *csv = util_read_file(c, NULL), *summary = util_read_file(d, NULL), *junit = util_read_file(e, NULL);
    cJSON *r = refused ? cJSON_Parse(refused) : NULL, *g = results ? cJSON_Parse(results) : NULL;
    const cJSON *lab = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "labs"), 0);
    EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(lab, "graded")) && cJSON_IsTrue(cJSON_GetObjectItem(lab, "provisional")));
    EXPECT(cJSON_GetObjectItem(lab, "score") && cJSON_GetObjectItem(lab, "score")->valuedouble == 0);
    EXPECT(cJSON_GetObjectItem(r, "graded_max_score") && cJSON_GetObjectItem(r, "graded_max_score")->valuedouble == 8);
    EXPECT(cJSON_GetObjectItem(r, "labs_not_graded") && cJSON_GetObjectItem(r, "labs_not_graded")->valuedouble == 0);
    const cJSON *test = cJSON_GetArrayItem(cJSON_GetObjectItem(g, "tests"), 0);
    const cJSON *tags = cJSON_GetObjectItem(test, "tags");
    EXPECT(cJSON_GetArraySize(tags) == 2 && !strcmp(cJSON_GetArrayItem(tags, 1)->valuestring, "provisional"));
    EXPECT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(test, "extra_data"), "provisional")));
    EXPECT(strstr(cJSON_GetObjectItem(test, "output")->valuestring, "provisional: judged on the CPU") != NULL);
    EXPECT(strstr(cJSON_GetObjectItem(g, "output")->valuestring, "provisional until graded on a GPU") != NULL);
    EXPECT(csv && strstr(csv, "\"cpupass\",\"x\",6,8,8,0,\"01\","));
    EXPECT(summary && strstr(summary, "cpupass ") && strstr(strstr(summary, "cpupass "), "p*\n"));
    EXPECT(junit && strstr(junit, "<property name=\"labs_provisional\" value=\"1\"/>"));
    cJSON_Delete(r);
    cJSON_Delete(g);
    free(refused);
    free(results);
    free(csv);
    free(summary);
    free(junit);
    free(a);
    free(b);
    free(c);
    free(d);
    free(e);
    free(sd);
}

/* --rescore keeps each student's sandbox: a NULL sandbox takes the one the
 * report recorded. */
static void a_rescore_keeps_the_sandbox(void)
{
    struct rubric rb;
    char err[256];
    char *sd = util_format("%s/class/students/met", dir), *path = util_format("%s/report.json", sd);
    EXPECT(rubric_load(&rb, "data/rubric.json", err, sizeof err) == 0);
    EXPECT(grade_report_student(sd, "met", &rb, &cat, "bwrap-nobody", NOW, err, sizeof err) == 0);
    EXPECT(grade_report_student(sd, "met", &rb, &cat, NULL, NOW, err, sizeof err) == 0);
    char *text = util_read_file(path, NULL);
    EXPECT(text && strstr(text, "\"sandbox\": \"bwrap-nobody\""));
    free(text);
    unlink(path);
    EXPECT(grade_report_student(sd, "met", &rb, &cat, NULL, NOW, err, sizeof err) == 0);
    text = util_read_file(path, NULL);
    EXPECT(text && strstr(text, "\"sandbox\": \"none\""));
    free(text);
    free(path);
    free(sd);
    rubric_free(&rb);
}

/* A lab report that does not read is the grader's failure on that lab,
 * saying why; a student report that does not read stops the class
 * reports and names its path. */
static void unreadable_files_are_named(void)
{
    struct rubric rb;
    char err[512];
    char *out = util_format("%s/broken", dir), *sd = util_format("%s/broken/students/zed", dir);
    char *labs[] = {intake_lab("01", "ok", NULL)};
    intake(out, "zed", "zed", "folder", NULL, 1, labs);
    lab_report(out, "zed", "01", strdup("{\"schema\": 1, \"status\": \"splendid\"}"));
    EXPECT(rubric_load(&rb, "data/rubric.json", err, sizeof err) == 0);
    EXPECT(grade_report_student(sd, "zed", &rb, &cat, SANDBOX, NOW, err, sizeof err) == 0);
    char *path = util_format("%s/report.json", sd), *text = util_read_file(path, NULL);
    EXPECT(text && strstr(text, "\"status\": \"internal_error\"") && strstr(text, "labs/01.json: unknown status"));
    free(text);
    int n, code;
    EXPECT(grade_report_class(out, &n, &code, err, sizeof err) == 0 && code == 4);
    put(path, "{\"student\": ");
    EXPECT(grade_report_class(out, &n, &code, err, sizeof err) == -1);
    EXPECT(strstr(err, path) != NULL);
    char *gone = util_format("%s/intake.json", sd);
    unlink(gone);
    EXPECT(grade_report_student(sd, "zed", &rb, &cat, SANDBOX, NOW, err, sizeof err) == -1);
    EXPECT(strstr(err, "intake.json") != NULL);
    free(gone);
    free(path);
    free(sd);
    free(out);
    rubric_free(&rb);
}

static void no_students_is_an_empty_grades_csv(void)
{
    char *out = util_format("%s/empty", dir), *csv = util_format("%s/empty/grades.csv", dir);
    char err[256];
    int n = -1, code = -1;
    util_mkdirs(out);
    EXPECT(grade_report_class(out, &n, &code, err, sizeof err) == 0);
    EXPECT(n == 0 && code == 0);
    char *text = util_read_file(csv, NULL);
    EXPECT(text && !text[0]);
    free(text);
    free(out);
    free(csv);
}

int main(void)
{
    static const struct tap_test tests[] = {
        T(the_reports_are_the_golden_files_byte_for_byte),
        T(junit_is_valid_against_jenkins_and_our_xsd),
        T(results_json_has_gradescope_s_fields),
        T(the_legend_is_status_h_s_table),
        T(cpu_tier_labs_are_graded_and_provisional),
        T(a_second_rubric_too),
        T(the_exit_status_is_the_worst_grader_outcome),
        T(a_rescore_keeps_the_sandbox),
        T(unreadable_files_are_named),
        T(no_students_is_an_empty_grades_csv),
    };
    char err[256];
    snprintf(dir, sizeof dir, "/tmp/cudatutor-report.XXXXXX");
    if (!mkdtemp(dir) || catalog_load(&cat, "data/labs.json", "data/labs.json", err, sizeof err)) {
        printf("#   setup: %s\n", err);
        return 1;
    }
    int rc = tap_run(tests, (int)(sizeof tests / sizeof tests[0]));
    char *cmd = util_format("rm -rf '%s'", dir);
    if (!getenv("KEEP_REPORT_TMP") && cmd && system(cmd) < 0)
        perror("rm");
    else if (getenv("KEEP_REPORT_TMP"))
        printf("# kept %s\n", dir);
    free(cmd);
    catalog_free(&cat);
    return rc;
}
