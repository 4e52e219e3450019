/* test_catalog.c — the real catalog loads and is complete; broken catalogs
 * are refused with the path of the offending value. */
#include <stdlib.h>

#include "model/catalog.h"
#include "tap.h"
#include "sys/util.h"

/* A minimal valid catalog with one lab; %s slots let a test break one part. */
#define MINI \
    "{\"schema\": 1, \"contract\": 2, \"families\": {\"reduce_int\": {\"reference\": \"CUB\", \"timeout_s\": 10," \
    " \"trials_timeout_s\": 5, \"plan_timeout_s\": 5, \"max_steps\": 32, \"max_local_bytes\": 4096," \
    " \"sizes\": [1, 2], \"sanitize_sizes\": [1], \"perf\": [{\"label\": \"2^20\", \"n\": 1048576}]}}," \
    " \"host_symbols\": {\"allow\": [\"cudaLaunchKernel\"], \"deny\": [], \"deny_defined\": []}," \
    " \"labs\": [{\"id\": \"%s\", \"slug\": \"one\", \"title\": \"One\", \"summary\": \"s\"," \
    " \"family\": \"%s\", \"target\": {\"metric\": \"%s\", \"case\": \"%s\", \"min\": 0.5}," \
    " \"techniques\": [], \"hints\": [%s]}]}"

static int parse_mini(const char *id, const char *fam, const char *metric, const char *cas,
                      const char *hints, char *err, size_t len)
{
    struct catalog cat;
    char *text = util_format(MINI, id, fam, metric, cas, hints);
    int rc = catalog_parse(&cat, text, "t.json", err, len);
    if (rc == 0)
        catalog_free(&cat);
    free(text);
    return rc;
}

static void real_catalog_loads(void)
{
    struct catalog cat;
    char err[256] = "";
    int rc = catalog_load(&cat, "data/labs.json", "data/labs.json", err, sizeof err);
    EXPECT_STR(err, "");
    EXPECT(rc == 0);
    if (rc)
        return;
    /* The ten core labs, then the bonus labs, all opened by lab 08. */
    EXPECT(cat.nlabs >= 10 && cat.nlabs <= 15);
    for (int i = 0; i < cat.nlabs; i++) {
        char id[16];
        /* 01 to 10 in order; the bonus labs after them. */
        snprintf(id, sizeof id, "%02d", i + 1);
        EXPECT_STR(cat.labs[i].id, id);
        EXPECT(cat.labs[i].bonus == (i >= 10));
        EXPECT(cat.labs[i].opens_after == (i >= 10 ? 7 : i - 1));
        for (int h = 0; h < CATALOG_HINTS; h++)
            EXPECT(cat.labs[i].hints[h] && strlen(cat.labs[i].hints[h]) > 20);
        EXPECT(cat.labs[i].family != NULL);
        EXPECT(cat.labs[i].target.min > 0);
        /* The solution's own figure, from which grade.sh calibrates; a
         * provisional target may wait for its first GPU run. */
        EXPECT(cat.labs[i].target.solution > cat.labs[i].target.min ||
               (cat.labs[i].target.provisional && cat.labs[i].target.solution == 0));
    }
    /* Where those figures were measured: the calibration's words name it. */
    EXPECT_STR(cat.targets_gpu, "NVIDIA H100 80GB HBM3");
    EXPECT(catalog_find(&cat, "1") == &cat.labs[0]);
    EXPECT(catalog_find(&cat, "01") == &cat.labs[0]);
    EXPECT(catalog_find(&cat, "interleaved-addressing") == &cat.labs[0]);
    EXPECT(catalog_find(&cat, "10") == &cat.labs[9]);
    EXPECT(catalog_find(&cat, "16") == NULL);
    EXPECT(catalog_find(&cat, "") == NULL);
    EXPECT(catalog_next(&cat, &cat.labs[0]) == &cat.labs[1]);
    EXPECT(catalog_next(&cat, &cat.labs[cat.nlabs - 1]) == NULL);
    EXPECT(catalog_opener(&cat, &cat.labs[0]) == NULL);
    EXPECT(catalog_opener(&cat, &cat.labs[9]) == &cat.labs[8]);
    EXPECT_STR(cat.labs[0].dir, "labs/01-interleaved-addressing");
    EXPECT_STR(cat.labs[0].stub, "data/stubs/01-interleaved-addressing.cu");
    EXPECT_STR(cat.labs[7].family->name, "reduce_float");
    EXPECT_STR(cat.labs[9].family->entry, "lab_mpadd");
    EXPECT(catalog_find(&cat, "13") && !strcmp(catalog_find(&cat, "13")->family->entry, "lab_scan"));
    EXPECT(catalog_find(&cat, "butterfly") && !strcmp(catalog_find(&cat, "14")->family->name, "rownorm"));
    catalog_free(&cat);
}

static void minimal_catalog_parses(void)
{
    char err[256] = "";
    EXPECT(parse_mini("01", "reduce_int", "ratio", "2^20", "\"a\", \"b\", \"c\"", err, sizeof err) == 0);
    EXPECT_STR(err, "");
}

static void unknown_family_named_with_path(void)
{
    char err[256];
    EXPECT(parse_mini("01", "x", "ratio", "2^20", "\"a\", \"b\", \"c\"", err, sizeof err) == -1);
    EXPECT_STR(err, "t.json: labs[0].family: unknown family \"x\"");
}

static void bad_metric_and_case(void)
{
    char err[256];
    EXPECT(parse_mini("01", "reduce_int", "speed", "2^20", "\"a\", \"b\", \"c\"", err, sizeof err) == -1);
    EXPECT(strstr(err, "labs[0].target: metric: unknown metric \"speed\"") != NULL);
    EXPECT(parse_mini("01", "reduce_int", "ratio", "2^99", "\"a\", \"b\", \"c\"", err, sizeof err) == -1);
    EXPECT(strstr(err, "labs[0].target: case: \"2^99\" is not a perf label") != NULL);
}

static void hints_must_be_three(void)
{
    char err[256];
    EXPECT(parse_mini("01", "reduce_int", "ratio", "2^20", "\"a\", \"b\"", err, sizeof err) == -1);
    EXPECT(strstr(err, "t.json: labs[0].hints") != NULL);
    EXPECT(parse_mini("01", "reduce_int", "ratio", "2^20", "\"a\", \"\", \"c\"", err, sizeof err) == -1);
    EXPECT(strstr(err, "labs[0].hints[1]") != NULL);
}

static void bad_id(void)
{
    char err[256];
    EXPECT(parse_mini("1", "reduce_int", "ratio", "2^20", "\"a\", \"b\", \"c\"", err, sizeof err) == -1);
    EXPECT(strstr(err, "labs[0]: id: \"1\" must be two digits") != NULL);
}

static void invalid_json_names_line(void)
{
    struct catalog cat;
    char err[256];
    EXPECT(catalog_parse(&cat, "{\n\"schema\": 1,\n oops }", "t.json", err, sizeof err) == -1);
    EXPECT_STR(err, "t.json: line 3: not valid JSON");
}

static void newer_schema_refused(void)
{
    struct catalog cat;
    char err[256];
    EXPECT(catalog_parse(&cat, "{\"schema\": 2}", "t.json", err, sizeof err) == -1);
    EXPECT(strstr(err, "t.json: schema: version 2; this tutor reads version 1") != NULL);
}

static void other_contract_refused(void)
{
    struct catalog cat;
    char err[256];
    /* Labs written for contract 1 (lab 09's integrand fixed at compile time). */
    EXPECT(catalog_parse(&cat, "{\"schema\": 1, \"contract\": 1}", "t.json", err, sizeof err) == -1);
    EXPECT(strstr(err, "t.json: contract: the labs are written for lab.h contract 1; this tutor provides 2") != NULL);
}

static void missing_file(void)
{
    struct catalog cat;
    char err[256];
    EXPECT(catalog_load(&cat, "/nonexistent/labs.json", "nowhere.json", err, sizeof err) == -1);
    EXPECT_STR(err, "nowhere.json: No such file or directory");
}

/* Parses MINI with its first `from` overwritten by `to` (the same length);
 * returns catalog_parse's result, the message in err. */
static int parse_edited(const char *from, const char *to, char *err, size_t len)
{
    struct catalog cat;
    char *text = util_format(MINI, "01", "reduce_int", "ratio", "2^20", "\"a\", \"b\", \"c\"");
    char *p = strstr(text, from);
    memcpy(p, to, strlen(to));
    int rc = catalog_parse(&cat, text, "t.json", err, len);
    if (rc == 0)
        catalog_free(&cat);
    free(text);
    return rc;
}

static void size_out_of_range(void)
{
    char err[256];
    EXPECT(parse_edited("[1, 2]", "[0, 2]", err, sizeof err) == -1);
    EXPECT(strstr(err, "families.reduce_int.sizes[0]: must be an integer from 1 to 2^28") != NULL);
}

static void trials_limit_within_run_limit(void)
{
    char err[256];
    EXPECT(parse_edited("\"timeout_s\": 10,", "\"timeout_s\":  3,", err, sizeof err) == -1);
    EXPECT(strstr(err, "families.reduce_int: trials_timeout_s: 5 is longer than timeout_s (3)") != NULL);
}

/* Parses MINI with `what` inserted into its lab (before "techniques"). */
static int parse_with(const char *what, char *err, size_t len)
{
    struct catalog cat;
    char *text = util_format(MINI, "01", "reduce_int", "ratio", "2^20", "\"a\", \"b\", \"c\"");
    char *at = strstr(text, "\"techniques\"");
    char *edited = util_format("%.*s%s %s", (int)(at - text), text, what, at);
    int rc = catalog_parse(&cat, edited, "t.json", err, len);
    if (rc == 0)
        catalog_free(&cat);
    free(text);
    free(edited);
    return rc;
}

/* A lab's opener must come before it, and "bonus" is a boolean. */
static void opens_after_and_bonus(void)
{
    char err[256];
    EXPECT(parse_with("\"opens_after\": \"01\",", err, sizeof err) == -1);
    EXPECT(strstr(err, "labs[0].opens_after: \"01\" is not a lab before this one") != NULL);
    EXPECT(parse_with("\"opens_after\": 8,", err, sizeof err) == -1);
    EXPECT(strstr(err, "labs[0].opens_after: must be a lab id") != NULL);
    EXPECT(parse_with("\"bonus\": 1,", err, sizeof err) == -1);
    EXPECT(strstr(err, "labs[0].bonus: must be true or false") != NULL);
    EXPECT(parse_with("\"bonus\": true,", err, sizeof err) == 0);
}

TAP_MAIN(T(real_catalog_loads), T(minimal_catalog_parses), T(unknown_family_named_with_path),
         T(bad_metric_and_case), T(hints_must_be_three), T(bad_id), T(invalid_json_names_line),
         T(newer_schema_refused), T(other_contract_refused), T(missing_file), T(size_out_of_range),
         T(trials_limit_within_run_limit), T(opens_after_and_bonus))
