/* test_result.c — reading check JSON: a recorded report of every status in
 * tests/fixtures/ parses, and each says what its status promises. */
#include <dirent.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "model/catalog.h"
#include "model/result.h"
#include "tap.h"
#include "sys/util.h"

static int load(const char *status, struct result *r)
{
    char path[256], err[256];
    memset(r, 0, sizeof *r);
    snprintf(path, sizeof path, "tests/fixtures/%s.json", status);
    char *text = util_read_file(path, NULL);
    if (!text) {
        printf("#   missing fixture %s\n", path);
        return -1;
    }
    int rc = result_parse(text, r, err, sizeof err);
    if (rc)
        printf("#   %s: %s\n", path, err);
    free(text);
    return rc;
}

static void every_status_has_a_fixture(void)
{
    for (int s = 0; s < STATUS_CHECK_COUNT; s++) {
        struct result r;
        EXPECT(load(status_name((enum status)s), &r) == 0);
        if (r.schema) {
            EXPECT_STR(status_name(r.status), status_name((enum status)s));
            EXPECT(r.summary[0] != '\0');
            result_free(&r);
        }
    }
}

static void pass_has_timing_and_target(void)
{
    struct result r;
    if (load("pass", &r))
        return;
    EXPECT(r.ntests > 0 && r.nperf > 0 && r.have_device);
    for (int i = 0; i < r.ntests; i++)
        EXPECT(r.tests[i].pass);
    const struct rperf *tp = result_target_perf(&r);
    EXPECT(tp != NULL);
    if (tp)
        EXPECT(tp->median_ms > 0 && tp->samples >= 10 && tp->ratio > 0 && tp->min_ms <= tp->median_ms &&
               tp->median_ms <= tp->max_ms);
    result_free(&r);
}

static void fail_names_the_smallest_failing_size(void)
{
    struct result r;
    if (load("fail", &r))
        return;
    int first = -1;
    for (int i = 0; i < r.ntests && first < 0; i++)
        if (!r.tests[i].pass)
            first = i;
    EXPECT(first >= 0);
    if (first >= 0 && r.first_failing_n) {
        EXPECT(r.tests[first].n == r.first_failing_n);
        EXPECT(strcmp(r.tests[first].expected, r.tests[first].got) != 0);
    }
    result_free(&r);
}

static void compile_error_points_at_a_line(void)
{
    struct result r;
    if (load("compile_error", &r))
        return;
    EXPECT(r.ndiags > 0);
    if (r.ndiags)
        EXPECT(r.diags[0].line > 0 && strstr(r.diags[0].file, "kernel.cu"));
    result_free(&r);
}

static void rejected_names_symbol_and_rule(void)
{
    struct result r;
    if (load("rejected", &r))
        return;
    EXPECT(r.nviol > 0 && r.viol_rules[0][0]);
    EXPECT(strstr(r.summary, r.viol_symbols[0]) != NULL);
    result_free(&r);
}

static void no_gpu_ran_nothing(void)
{
    struct result r;
    if (load("no_gpu", &r))
        return;
    EXPECT(r.ntests == 0 && r.nperf == 0 && !r.have_device);
    EXPECT_STR(r.summary, "compiled; not run: no CUDA device");
    result_free(&r);
}

static void timeout_and_runtime_error_explain(void)
{
    struct result r;
    if (load("timeout", &r) == 0) {
        EXPECT(r.nmsgs > 0 && strstr(r.summary, "timed out"));
        result_free(&r);
    }
    if (load("runtime_error", &r) == 0) {
        EXPECT(r.nmsgs > 0 && strstr(r.summary, "crashed"));
        result_free(&r);
    }
}

static void malformed_input_refused(void)
{
    struct result r;
    char err[128];
    EXPECT(result_parse("[1, 2]", &r, err, sizeof err) == -1);
    EXPECT(result_parse("{\"schema\": 9, \"status\": \"pass\"}", &r, err, sizeof err) == -1);
    EXPECT(strstr(err, "schema 9") != NULL);
    EXPECT(result_parse("{\"schema\": 1, \"status\": \"great\"}", &r, err, sizeof err) == -1);
    EXPECT(strstr(err, "unknown status \"great\"") != NULL);
    EXPECT(result_parse("{\"schema\": 1, \"status\": \"pass\", \"tests\": 3}", &r, err, sizeof err) == 0);
    EXPECT(r.ntests == 0);
    result_free(&r);
}

/* target.also: each further case of a target, in order; a case that was
 * not timed has no value, and the perf entry of each is found by label. */
static void target_cases_read_in_order(void)
{
    struct result r;
    char err[128];
    static const char json[] =
        "{\"schema\": 1, \"status\": \"pass\", \"perf\": [{\"label\": \"2^22\", \"ratio\": 1.4},"
        " {\"label\": \"2^28\", \"ratio\": 0.98}], \"target\": {\"metric\": \"ratio\", \"case\": \"2^22\","
        " \"min\": 1.3, \"value\": 1.4, \"met\": false, \"also\": [{\"case\": \"2^28\", \"min\": 1,"
        " \"value\": 0.98, \"met\": false}, {\"case\": \"2^26\", \"min\": 0.9, \"catalog_min\": 1,"
        " \"value\": null, \"met\": false}]}}";
    EXPECT(result_parse(json, &r, err, sizeof err) == 0);
    EXPECT(r.ntarget_also == 2 && !r.target_met && r.target_value == 1.4);
    if (r.ntarget_also == 2) {
        EXPECT_STR(r.target_also[0].case_label, "2^28");
        EXPECT(r.target_also[0].min == 1 && r.target_also[0].value == 0.98 && !r.target_also[0].met);
        EXPECT(r.target_also[0].catalog_min == 0);
        EXPECT_STR(r.target_also[1].case_label, "2^26");
        EXPECT(r.target_also[1].value < 0 && r.target_also[1].catalog_min == 1);
    }
    EXPECT(result_target_perf(&r) == &r.perf[0]);
    EXPECT(result_perf(&r, "2^28") == &r.perf[1] && result_perf(&r, "2^26") == NULL);
    result_free(&r);
    /* A single case, as every report before: no further cases. */
    EXPECT(result_parse("{\"schema\": 1, \"status\": \"pass\", \"target\": {\"case\": \"2^28\"}}", &r, err,
                        sizeof err) == 0);
    EXPECT(r.have_target && r.ntarget_also == 0);
    result_free(&r);
}

static void status_table_consistent(void)
{
    for (int s = 0; s < STATUS_CHECK_COUNT; s++)
        EXPECT(status_from_name(status_name((enum status)s)) == s);
    EXPECT(status_exit_code(STATUS_PASS) == 0);
    EXPECT(status_exit_code(STATUS_NO_GPU) == 3);
    EXPECT(status_exit_code(STATUS_FAIL) == 1);
}

/* Every summary opens with its status's meaning (status.h's words); the
 * detail a screen shows under the meaning is the rest.  What is absent
 * and what is empty are told apart for the grader's text. */
static void summaries_open_with_the_meaning(void)
{
    for (int s = 0; s < STATUS_CHECK_COUNT; s++) {
        struct result r;
        if (load(status_name((enum status)s), &r))
            continue;
        const char *m = status_meaning(r.status), *d = result_detail(&r);
        size_t n = strlen(m);
        EXPECT(!strncmp(r.summary, m, n));
        EXPECT(d[0] ? d == r.summary + n + 2 && !strncmp(r.summary + n, ": ", 2) : d == r.summary + n);
        if (r.ntests)
            EXPECT(r.tests[0].have_expected && r.tests[0].have_got && r.tests[0].have_message);
        EXPECT(r.have_seed && r.have_total_s);
        result_free(&r);
    }
    struct result r;
    char err[128];
    EXPECT(result_parse("{\"schema\": 1, \"status\": \"fail\", \"summary\": \"failed n=2\", "
                        "\"tests\": [{\"name\": \"n=2\", \"pass\": false}]}", &r, err, sizeof err) == 0);
    EXPECT_STR(result_detail(&r), "failed n=2");          /* an older report: all of it */
    EXPECT(!r.tests[0].have_expected && !r.tests[0].have_message && !r.have_seed && !r.have_total_s);
    char *t = result_target_json(&r);
    EXPECT(!t);
    free(t);
    result_free(&r);
}

/* JSON text of a file, parsed, or NULL. */
static cJSON *json_of(const char *text)
{
    return text ? cJSON_Parse(text) : NULL;
}

/* parse(to_json(r)) is r, key for key: every recorded report (each
 * status's fixture, and whatever real reports $RESULT_ROUNDTRIP_DIR holds,
 * such as tests/device/result-diff.sh's) read and written again is the same
 * JSON, and writing what was read back gives the same text. */
static void roundtrip_file(const char *path)
{
    char *text = util_read_file(path, NULL), err[256];
    struct result r, back;
    if (!text)
        return;
    cJSON *orig = json_of(text);
    if (!orig || !cJSON_GetObjectItemCaseSensitive(orig, "schema") ||
        result_parse(text, &r, err, sizeof err)) {
        cJSON_Delete(orig);
        free(text);
        return;
    }
    char *once = result_to_json(&r, 1);
    cJSON *written = json_of(once);
    int same = cJSON_Compare(orig, written, 1);
    if (!same)
        printf("#   %s: written again, the JSON differs\n%s\n", path, once ? once : "(null)");
    EXPECT(same);
    EXPECT(once && result_parse(once, &back, err, sizeof err) == 0);
    if (once && back.schema) {
        char *twice = result_to_json(&back, 1);
        EXPECT(twice && !strcmp(once, twice));
        EXPECT(back.status == r.status && back.nmsgs == r.nmsgs && back.ntests == r.ntests &&
               back.nperf == r.nperf && back.nviol == r.nviol && back.ntech == r.ntech &&
               back.ndiags == r.ndiags && back.have_target == r.have_target && back.stage == r.stage);
        EXPECT_STR(back.summary, r.summary);
        free(twice);
        result_free(&back);
    }
    free(once);
    cJSON_Delete(written);
    cJSON_Delete(orig);
    result_free(&r);
    free(text);
}

static void roundtrip_dir(const char *dir, int *files)
{
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".json"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        roundtrip_file(path);
        (*files)++;
    }
    if (d)
        closedir(d);
}

/* result_copy is whole and owns what it holds: the copy of each fixture,
 * its original freed first, writes the original's JSON. */
static void copy_file(const char *path)
{
    char *text = util_read_file(path, NULL), err[256];
    struct result r, c;
    if (!text || result_parse(text, &r, err, sizeof err)) {
        free(text);
        return;
    }
    char *want = result_to_json(&r, 1);
    EXPECT(result_copy(&r, &c) == 0);
    memset(r.summary ? r.summary : err, 'x', r.summary ? strlen(r.summary) : 1);
    result_free(&r);
    char *got = result_to_json(&c, 1);
    EXPECT(want && got && !strcmp(want, got));
    if (want && got && strcmp(want, got))
        printf("#   %s: the copy writes\n%s\n", path, got);
    free(got);
    free(want);
    result_free(&c);
    free(text);
}

static void copies_are_whole(void)
{
    DIR *d = opendir("tests/fixtures");
    struct dirent *e;
    int files = 0;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".json"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "tests/fixtures/%s", e->d_name);
        copy_file(path);
        files++;
    }
    if (d)
        closedir(d);
    EXPECT(files >= STATUS_CHECK_COUNT);
}

static void json_roundtrip(void)
{
    int files = 0;
    roundtrip_dir("tests/fixtures", &files);
    roundtrip_dir(getenv("RESULT_ROUNDTRIP_DIR"), &files);
    EXPECT(files >= STATUS_CHECK_COUNT);
}

/* A pass whose race checkers a second run owes (check --sanitize-later)
 * says so in its sanitizer section, and reads back so; a whole verdict
 * has no such key. */
static void pending_sanitizer_roundtrips(void)
{
    struct result r, back = {0};
    char err[128];
    EXPECT(result_init(&r, "01", "reduce_int", "k.cu", 3) == 0);
    result_set_status(&r, STATUS_PASS);
    r.have_sanitizer = r.sanitize_pending = 1;
    char *text = result_to_json(&r, 0);
    EXPECT(text && strstr(text, "\"sanitizer\":{\"ran\":false,\"pending\":true"));
    EXPECT(text && result_parse(text, &back, err, sizeof err) == 0 && back.sanitize_pending && !back.sanitizer_ran);
    if (text)
        result_free(&back);
    free(text);
    r.sanitize_pending = 0;
    r.sanitizer_ran = 1;
    text = result_to_json(&r, 0);
    EXPECT(text && !strstr(text, "pending"));
    EXPECT(text && result_parse(text, &back, err, sizeof err) == 0 && !back.sanitize_pending);
    if (text)
        result_free(&back);
    free(text);
    result_free(&r);
}

/* A result filled as a check's stages fill it says in JSON what it holds,
 * and reads back the same: a build that stopped before its run, a
 * violation the file defines, a target case not timed (null), the judge's
 * report merged with its sections as the judge wrote them. */
static void filled_result_roundtrips(void)
{
    struct result r, back;
    char err[128];
    EXPECT(result_init(&r, "02", "reduce_int", "k.cu", 42) == 0);
    EXPECT(r.status == STATUS_INTERNAL_ERROR);
    result_add_message(&r, "note %d", 1);
    result_set_compile(&r, 1, 0.5, "log");
    result_add_diag(&r, "k.cu", 3, "warning", "unused");
    r.have_symbols = r.symbols_checked = 1;
    result_add_violation(&r, "malloc", "no host allocation", 1);
    EXPECT(result_has_violation(&r, "malloc") && !result_has_violation(&r, "free"));
    result_add_technique(&r, "shuffle", 0, "warp sums");
    result_set_status(&r, STATUS_NO_GPU);
    r.stage = RESULT_BUILT;
    r.gpu_via.have = 1;
    result_set_text(&r.gpu_via.command, "srun -p gpu");
    result_set_text(&r.gpu_via.arch, "sm_90");
    result_set_text(&r.gpu_via.cpu_status, "pass");
    r.gpu_via.queued_s = 2.5;
    result_set_text(&r.gpu_via.failed, "the GPU side failed 40 s ago (down)");
    r.gpu_via.retry_s = 260;
    result_set_text(&r.summary, "compiled");
    r.have_predicted = 1;
    r.predicted = (struct rpredicted){"NVIDIA H200", "2^28", 268435456, {4096, 65536}, 1.5e-3, 2.5e-4, 0.1667,
                                      "instructions"};
    char *text = result_to_json(&r, 0);
    EXPECT(text && strstr(text, "\"built\":true") && strstr(text, "\"defined\":true") &&
           strstr(text, "\"status\":\"no_gpu\"") && strstr(text, "\"note 1\""));
    EXPECT(text && result_parse(text, &back, err, sizeof err) == 0);
    if (text && back.schema) {
        EXPECT(back.stage == RESULT_BUILT && back.nviol == 1 && back.viol_defined[0] && back.ntech == 1 &&
               !back.tech[0].found && back.ndiags == 1 && back.diags[0].line == 3 && back.have_seed &&
               back.seed == 42 && !back.have_target);
        EXPECT_STR(result_violation_verb(&back, 0), "defines");
        /* gpu_via: the command, what ran, the CPU tier's verdict; no GPU named. */
        EXPECT(back.gpu_via.have && !back.gpu_via.ran && back.gpu_via.queued_s == 2.5 && !back.gpu_via.gpu);
        EXPECT_STR(back.gpu_via.command, "srun -p gpu");
        EXPECT_STR(back.gpu_via.cpu_status, "pass");
        /* and why the GPU side did not judge, with when it is tried again */
        EXPECT_STR(back.gpu_via.failed, "the GPU side failed 40 s ago (down)");
        EXPECT(back.gpu_via.retry_s == 260);
        /* a prediction comes back whole, named as one */
        EXPECT(back.have_predicted && back.predicted.n == 268435456 && back.predicted.from_n[0] == 4096 &&
               back.predicted.from_n[1] == 65536 && back.predicted.seconds == 1.5e-3 &&
               back.predicted.ref_seconds == 2.5e-4 && back.predicted.ratio == 0.1667);
        EXPECT_STR(back.predicted.gpu, "NVIDIA H200");
        EXPECT_STR(back.predicted.case_label, "2^28");
        EXPECT_STR(back.predicted.bound, "instructions");
        result_free(&back);
    }
    free(text);

    /* The judge's report: its status, tests and sections taken over,
     * its messages after the check's, elapsed_s as harness_s. */
    const char *judge = "{\"schema\":1,\"tool\":\"cudatutor-harness\",\"status\":\"fail\",\"seed\":7,"
                        "\"device\":null,\"tests\":[{\"name\":\"n=2\",\"n\":2,\"expected\":\"3\",\"got\":\"4\","
                        "\"pass\":false,\"message\":\"wrong\"}],\"first_failing_n\":2,\"phases\":{\"init_s\":0.25},"
                        "\"plan\":{\"plans\":4,\"seen\":[\"a\",\"b\"],\"violation\":null},\"messages\":[\"judge says\"],"
                        "\"elapsed_s\":1.5}";
    EXPECT(result_merge_judge(&r, judge, err, sizeof err) == 0);
    EXPECT(r.status == STATUS_FAIL && r.seed == 7 && r.ntests == 1 && r.first_failing_n == 2 &&
           r.plan_plans == 4 && r.plan_nseen == 2 && !r.plan_violation && r.have_harness_s &&
           r.harness_s == 1.5 && r.nmsgs == 2 && !r.have_device);
    EXPECT_STR(r.messages[1], "judge says");
    text = result_to_json(&r, 0);
    /* typed: the phases the judge left out are written as 0 */
    EXPECT(text && strstr(text, "\"device\":null") && strstr(text, "\"phases\":{\"init_s\":0.25,") &&
           strstr(text, "\"harness_s\":1.5") && !strstr(text, "elapsed_s"));
    free(text);
    EXPECT(result_merge_judge(&r, "{\"status\":\"bogus\"}", err, sizeof err) == -1 && r.status == STATUS_FAIL);
    EXPECT(result_merge_judge(&r, "[1]", err, sizeof err) == -1);

    /* A target case that was not timed is null, and reads back as none. */
    r.have_target = 1;
    result_set_text(&r.target_metric, "ratio");
    result_set_text(&r.target_case, "2^28");
    r.target_min = 0.5;
    result_add_target_case(&r, "ripple", 0.4, 0, -1, 0);
    char *t = result_target_json(&r);
    EXPECT(t && strstr(t, "\"also\":[{\"case\":\"ripple\",\"min\":0.4,\"value\":null,"
                          "\"met\":false}]") && strstr(t, "\"value\":null,\"met\":false"));
    free(t);
    result_free(&r);
}

/* parsed JSON: the report of a fail, parsed (the test's own JSON is right). */
static void parsed(const char *json, struct result *r)
{
    char err[256];
    if (result_parse(json, r, err, sizeof err)) {
        printf("#   %s\n", err);
        memset(r, 0, sizeof *r);
    }
}

/* A fail's headline names its cause in status.h's words, one per way a
 * report shows it; the summary opens with the headline and the detail is
 * the rest; every other status leads with its meaning. */
static void fail_headlines_name_the_cause(void)
{
    static const struct {
        const char *json, *headline, *detail;
    } cases[] = {
        {"\"tests\": [{\"name\": \"n=1\", \"n\": 1, \"pass\": true},"
         " {\"name\": \"n=1025\", \"n\": 1025, \"expected\": \"7\", \"got\": \"6\", \"pass\": false,"
         " \"message\": \"wrong sum: off by -1\"}], \"first_failing_n\": 1025",
         "wrong result at n = 1025", "the smallest failing size; expected 7, got 6 — wrong sum: off by -1"},
        {"\"tests\": [{\"name\": \"timed 2^28\", \"n\": 268435456, \"pass\": false,"
         " \"message\": \"3 of 9 element(s) wrong\"}]",
         "wrong result at n = 2^28", "timed 2^28: 3 of 9 element(s) wrong"},
        {"\"emulator\": {\"max_n\": 1048576}, \"messages\": [\"race on shared memory at offset 64: thread 0 reads it"
         " (k.cu:21), and thread 16 wrote it (k.cu:21) with no barrier between them\"],"
         " \"tests\": [{\"name\": \"n=1\", \"n\": 1, \"pass\": false, \"message\": \"race on shared memory at offset"
         " 64: thread 0 reads it (k.cu:21), and thread 16 wrote it (k.cu:21) with no barrier between them\"}]",
         "race on shared memory at offset 64",
         "at n = 1, thread 0 reads it (k.cu:21), and thread 16 wrote it (k.cu:21) with no barrier between them"},
        {"\"emulator\": {\"max_n\": 1048576}, \"messages\": [\"thread 3 of block 0 waits at barrier 0, which the"
         " block's other threads never reach\"], \"tests\": [{\"name\": \"n=33\", \"n\": 33, \"pass\": false,"
         " \"message\": \"thread 3 of block 0 waits at barrier 0, which the block's other threads never reach\"}]",
         "synchronization error at n = 33",
         "thread 3 of block 0 waits at barrier 0, which the block's other threads never reach"},
        {"\"emulator\": {\"max_n\": 1048576}, \"messages\": [\"thread 0 of block 0 stores to d_out[0] a value"
         " that is undefined: it comes from a variable that k.cu:17 read before anything was stored in it"
         " (k.cu:26)\"], \"tests\": [{\"name\": \"n=1\", \"n\": 1, \"pass\": false, \"message\": \"thread 0 of"
         " block 0 stores to d_out[0] a value that is undefined: it comes from a variable that k.cu:17 read"
         " before anything was stored in it (k.cu:26)\"}]",
         "undefined value at n = 1",
         "thread 0 of block 0 stores to d_out[0] a value that is undefined: it comes from a variable that"
         " k.cu:17 read before anything was stored in it (k.cu:26)"},
        {"\"tests\": [{\"name\": \"timed 2^28\", \"n\": 268435456, \"pass\": false,"
         " \"message\": \"implausible: faster than the measured peak\"}]",
         "implausible timing at n = 2^28", "timed 2^28: faster than the measured peak"},
        {"\"tests\": [{\"name\": \"n=1\", \"n\": 1, \"pass\": true}], \"sanitizer\": {\"ran\": true, \"tools\":"
         " [{\"tool\": \"racecheck\", \"clean\": false, \"report\": \"x\"}]},"
         " \"messages\": [\"racecheck found 2 problem line(s): see the sanitizer report\"]",
         "race on shared memory (racecheck)", "racecheck found 2 problem line(s): see the sanitizer report"},
        {"\"tests\": [{\"name\": \"n=1\", \"n\": 1, \"pass\": true}], \"sanitizer\": {\"ran\": true, \"tools\":"
         " [{\"tool\": \"racecheck\", \"clean\": true, \"report\": \"\"},"
         " {\"tool\": \"memcheck\", \"clean\": false, \"report\": \"x\"}]}",
         "problems found by memcheck", "see the race checkers' report"},
        {"\"tests\": [{\"name\": \"n=1\", \"n\": 1, \"pass\": true}], \"techniques\": ["
         "{\"name\": \"block barrier\", \"found\": true, \"why\": \"b\"},"
         " {\"name\": \"warp shuffle\", \"found\": false, \"why\": \"this lab sums each warp with shuffles\"},"
         " {\"name\": \"atomic add\", \"found\": false, \"why\": \"one per block\"}]",
         "technique missing: warp shuffle", "this lab sums each warp with shuffles; also missing: atomic add"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = util_format("{\"schema\": 1, \"status\": \"fail\", \"summary\": \"\", %s}", cases[i].json);
        struct result r;
        char head[256], words[1024], what[128];
        parsed(json, &r);
        free(json);
        result_headline(&r, head, sizeof head);
        EXPECT_STR(head, cases[i].headline);
        EXPECT(result_cause(&r, what, sizeof what) != FAIL_CAUSE_NONE);
        result_fail_words(&r, words, sizeof words);
        result_set_text(&r.summary, words);
        EXPECT(!strncmp(r.summary, head, strlen(head)));
        EXPECT_STR(result_detail(&r), cases[i].detail);
        result_free(&r);
    }
    /* A fail the report does not explain leads with the status's meaning
     * and its last message; so does every other status. */
    struct result r;
    char head[256], words[512], what[64];
    parsed("{\"schema\": 1, \"status\": \"fail\", \"summary\": \"\", \"messages\": [\"something odd\"]}", &r);
    EXPECT(result_cause(&r, what, sizeof what) == FAIL_CAUSE_NONE);
    result_fail_words(&r, words, sizeof words);
    char *want = util_format("%s: something odd", status_meaning(STATUS_FAIL));
    EXPECT_STR(words, want);
    free(want);
    result_free(&r);
    parsed("{\"schema\": 1, \"status\": \"timeout\", \"summary\": \"\", \"tests\": [{\"name\": \"n=1\", \"n\": 1,"
           " \"pass\": false, \"expected\": \"1\", \"got\": \"2\"}]}", &r);
    result_headline(&r, head, sizeof head);
    EXPECT_STR(head, status_meaning(STATUS_TIMEOUT));
    EXPECT(result_cause(&r, what, sizeof what) == FAIL_CAUSE_NONE);
    result_free(&r);
    /* The fixture of a fail was written before fails had headlines: its
     * summary opens with the meaning, and the detail is still the rest. */
    if (!load("fail", &r)) {
        result_headline(&r, head, sizeof head);
        EXPECT_STR(head, "wrong result at n = 2");
        EXPECT(!strncmp(result_detail(&r), "n=2 (the smallest", 17));
        result_free(&r);
    }
}

/* A fail the picture shows offers the one command that draws it (status.h's
 * FAIL_PICTURE): a race, a stopped barrier, an undefined value the
 * emulator caught, a lesson counted where the picture marks it; never a
 * wrong result, a PTX technique, or a lesson of other counters; the file
 * after the lab when it is not the lab's own. */
static void a_fail_offers_its_picture(void)
{
    static const char race[] = "\"tests\": [{\"name\": \"n=1\", \"n\": 1, \"pass\": false, \"message\": \"race on"
                               " shared memory at offset 64: thread 0 reads it\"}]";
    static const char sync[] = "\"emulator\": {\"max_n\": 64}, \"messages\": [\"thread 3 waits\"], \"tests\": [{\"name\":"
                               " \"n=33\", \"n\": 33, \"pass\": false, \"message\": \"thread 3 waits\"}]";
    static const char undef[] = "\"emulator\": {\"max_n\": 64}, \"messages\": [\"thread 0 stores to d_out[0] a value that is"
                                " undefined\"], \"tests\": [{\"name\": \"n=33\", \"n\": 33, \"pass\": false, \"message\":"
                                " \"thread 0 stores to d_out[0] a value that is undefined\"}]";
    static const char wrong[] = "\"tests\": [{\"name\": \"n=5\", \"n\": 5, \"expected\": \"7\", \"got\": \"6\","
                                " \"pass\": false, \"message\": \"\"}]";
    static const char lesson[] = "\"tests\": [{\"name\": \"n=1\", \"n\": 1, \"pass\": true}], \"techniques\": [{\"name\":"
                                 " \"contiguous working threads\", \"found\": false, \"why\": \"w\"}]";
    static const char ptx[] = "\"tests\": [{\"name\": \"n=1\", \"n\": 1, \"pass\": true}], \"techniques\": [{\"name\":"
                              " \"warp shuffle\", \"found\": false, \"why\": \"w\"}]";
    struct lab lab = {.id = "02", .dir = "labs/02-x",
                      .lesson = {.name = "contiguous working threads", .counter = "divergent_branches"}};
    static const struct {
        const char *json, *file, *counter, *offer;
        int with_lab;
    } cases[] = {
        {race, "labs/02-x/kernel.cu", NULL, "see it: cudatutor trace 02 (t in the tutor)", 1},
        {race, "mine/k.cu", NULL, "see it: cudatutor trace 02 mine/k.cu", 1},
        {sync, "labs/02-x/kernel.cu", NULL, "see it: cudatutor trace 02 (t in the tutor)", 1},
        {undef, "labs/02-x/kernel.cu", NULL, "see it: cudatutor trace 02 (t in the tutor)", 1},
        {wrong, "labs/02-x/kernel.cu", NULL, "", 1},
        {lesson, "labs/02-x/kernel.cu", "divergent_branches", "see it: cudatutor trace 02 (t in the tutor)", 1},
        {lesson, "labs/02-x/kernel.cu", "shared_load_wavefronts+shared_store_wavefronts",
         "see it: cudatutor trace 02 (t in the tutor)", 1},
        {lesson, "labs/02-x/kernel.cu", "warp_instructions", "", 1},
        {lesson, "labs/02-x/kernel.cu", "shared_load_wavefronts_total", "", 1},
        {lesson, "labs/02-x/kernel.cu", "divergent_branches", "", 0},
        {ptx, "labs/02-x/kernel.cu", "divergent_branches", "", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *json = util_format("{\"schema\": 1, \"status\": \"fail\", \"lab\": \"02\", \"file\": \"%s\","
                                 " \"summary\": \"\", %s}", cases[i].file, cases[i].json);
        struct result r;
        char offer[256];
        parsed(json, &r);
        free(json);
        lab.lesson.counter = (char *)cases[i].counter;
        result_picture(&r, cases[i].with_lab ? &lab : NULL, offer, sizeof offer);
        EXPECT_STR(offer, cases[i].offer);
        result_free(&r);
    }
}

TAP_MAIN(T(json_roundtrip), T(copies_are_whole), T(filled_result_roundtrips), T(pending_sanitizer_roundtrips), T(every_status_has_a_fixture), T(pass_has_timing_and_target), T(summaries_open_with_the_meaning), T(fail_headlines_name_the_cause), T(a_fail_offers_its_picture),
         T(fail_names_the_smallest_failing_size), T(compile_error_points_at_a_line),
         T(rejected_names_symbol_and_rule), T(no_gpu_ran_nothing), T(timeout_and_runtime_error_explain),
         T(malformed_input_refused), T(target_cases_read_in_order), T(status_table_consistent))
