/* test_result.c — reading check JSON: a recorded report of every status in
 * tests/fixtures/ parses, and each says what its status promises. */
#include <dirent.h>
#include <stdlib.h>

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
    EXPECT(!r.target_json);
    result_free(&r);
}

TAP_MAIN(T(every_status_has_a_fixture), T(pass_has_timing_and_target), T(summaries_open_with_the_meaning),
         T(fail_names_the_smallest_failing_size), T(compile_error_points_at_a_line),
         T(rejected_names_symbol_and_rule), T(no_gpu_ran_nothing), T(timeout_and_runtime_error_explain),
         T(malformed_input_refused), T(status_table_consistent))
