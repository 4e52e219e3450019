/* test_catalog.c — the real catalog loads and is complete; broken catalogs
 * are refused with the path of the offending value. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    EXPECT(cat.nlabs >= 10 && cat.nlabs <= 99);
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
         * target not yet measured on a GPU says it is provisional. */
        EXPECT(cat.labs[i].target.solution > cat.labs[i].target.min ||
               (cat.labs[i].target.provisional && cat.labs[i].target.solution == 0));
        for (int k = 0; k < cat.labs[i].target.nalso; k++)
            EXPECT(cat.labs[i].target.also[k].solution > cat.labs[i].target.also[k].min ||
                   (cat.labs[i].target.provisional && cat.labs[i].target.also[k].solution == 0));
    }
    /* Lab 15 judges two cases and the same bits on every run; lab 08, where
     * float atomics are taught, neither. */
    const struct lab *l15 = catalog_find(&cat, "15"), *l08 = catalog_find(&cat, "08");
    EXPECT(l15 && l08);
    if (l15 && l08) {
        EXPECT(l15->deterministic && !l08->deterministic && l08->target.nalso == 0);
        EXPECT_STR(l15->family->name, "reduce_float");
        EXPECT_STR(l15->target.case_label, "2^22");
        EXPECT(l15->target.min == 1.01 && l15->target.nalso == 1);
        EXPECT_STR(l15->target.also[0].case_label, "2^28");
        EXPECT(l15->target.also[0].min == 0.80);
    }
    /* Where those figures were measured: the calibration's words name it. */
    EXPECT_STR(cat.targets_gpu, "NVIDIA H100 80GB HBM3");
    EXPECT(catalog_find(&cat, "1") == &cat.labs[0]);
    EXPECT(catalog_find(&cat, "01") == &cat.labs[0]);
    EXPECT(catalog_find(&cat, "interleaved-addressing") == &cat.labs[0]);
    EXPECT(catalog_find(&cat, "10") == &cat.labs[9]);
    char past[16];
    snprintf(past, sizeof past, "%02d", cat.nlabs + 1);
    EXPECT(catalog_find(&cat, past) == NULL);
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

/* Every row of family.h has the rest of its pieces: its catalog entry, a
 * lab, an entry point in lab.h, a judge's source, and its two judges built
 * (the Makefile takes its list from the table); a family's rows elsewhere
 * are derived from the table, so nothing else can be missing. */
static void every_family_has_its_pieces(void)
{
    struct catalog cat;
    char err[256] = "";
    char *labh = util_read_file("tutor/lab.h", NULL);
    EXPECT(labh != NULL);
    if (catalog_load(&cat, "data/labs.json", "data/labs.json", err, sizeof err) || !labh) {
        EXPECT_STR(err, "");
        free(labh);
        return;
    }
    for (int id = 1; id < FAMILY_END; id++) {
        const char *name = family_json_name(id);
        const struct family_spec *f = NULL;
        int labs = 0;
        for (int i = 0; i < cat.nfamilies; i++)
            if (cat.families[i].id == (enum family_id)id)
                f = &cat.families[i];
        for (int i = 0; i < cat.nlabs; i++)
            labs += cat.labs[i].family->id == (enum family_id)id;
        char *entry = util_format("void lab_%s(", name);
        char *src = util_format("tutor/harness/hx_fam_%s.cu", name);
        char *judge = util_format("build/harness/judge_%s", name);
        char *cpu = util_format("build/harness/judge_cpu_%s", name);
        if (!f || !labs || !strstr(labh, entry) || access(src, R_OK) || access(judge, X_OK) ||
            access(cpu, X_OK))
            printf("#   family %s: catalog entry %d, labs %d, %s in lab.h %d, %s %d, %s %d, %s %d\n", name,
                     f != NULL, labs, entry, strstr(labh, entry) != NULL, src, !access(src, R_OK), judge,
                     !access(judge, X_OK), cpu, !access(cpu, X_OK));
        EXPECT(f && labs > 0 && strstr(labh, entry) && !access(src, R_OK) && !access(judge, X_OK) &&
               !access(cpu, X_OK));
        free(entry);
        free(src);
        free(judge);
        free(cpu);
    }
    /* The numbering is the table's from 1: a zeroed call names none. */
    EXPECT(family_json_name(FAMILY_NONE) == NULL && family_json_name(FAMILY_END) == NULL);
    EXPECT(FAMILY_COUNT == cat.nfamilies);
    catalog_free(&cat);
    free(labh);
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

/* pct_peak is a fraction: 0.5 is half the peak; 830 (a percent typed for
 * it) asks 830 times the peak and is refused. */
static void pct_peak_is_a_fraction(void)
{
    struct catalog cat;
    char err[256];
    EXPECT(parse_mini("01", "reduce_int", "pct_peak", "2^20", "\"a\", \"b\", \"c\"", err, sizeof err) == 0);
    char *text = util_format(MINI, "01", "reduce_int", "pct_peak", "2^20", "\"a\", \"b\", \"c\"");
    char *at = strstr(text, "\"min\": 0.5");
    memcpy(at, "\"min\": 830", strlen("\"min\": 830"));
    EXPECT(catalog_parse(&cat, text, "t.json", err, sizeof err) == -1);
    EXPECT(strstr(err, "labs[0].target: pct_peak is a fraction of the measured peak (0.8 = 80%), at most 1.1: "
                       "min 830") != NULL);
    free(text);
}

static void hints_must_be_three(void)
{
    char err[256];
    EXPECT(parse_mini("01", "reduce_int", "ratio", "2^20", "\"a\", \"b\"", err, sizeof err) == -1);
    EXPECT(strstr(err, "t.json: labs[0].hints") != NULL);
    EXPECT(parse_mini("01", "reduce_int", "ratio", "2^20", "\"a\", \"\", \"c\"", err, sizeof err) == -1);
    EXPECT(strstr(err, "labs[0].hints[1]") != NULL);
}

/* Parses MINI with its first `from` replaced by `to`; returns
 * catalog_parse's result, the message in err (1: no `from` in MINI). */
static int parse_edited(const char *from, const char *to, char *err, size_t len)
{
    struct catalog cat;
    char *text = util_format(MINI, "01", "reduce_int", "ratio", "2^20", "\"a\", \"b\", \"c\"");
    char *at = text ? strstr(text, from) : NULL;
    char *edited = at ? util_format("%.*s%s%s", (int)(at - text), text, to, at + strlen(from)) : NULL;
    int rc = edited ? catalog_parse(&cat, edited, "t.json", err, len) : 1;
    if (edited && rc == 0)
        catalog_free(&cat);
    free(edited);
    free(text);
    return rc;
}

/* A list of strings names the item that is wrong; an optional member of
 * the wrong kind names what it must be. */
static void string_lists_and_optional_members(void)
{
    char err[256];
    EXPECT(parse_edited("\"hints\"", "\"counters\": [\"dram__bytes.sum\", \"a, b\"], \"hints\"", err, sizeof err) == -1);
    EXPECT_STR(err, "t.json: labs[0].counters[1]: must be one metric name");
    EXPECT(parse_edited("\"hints\"", "\"counters\": \"dram__bytes.sum\", \"hints\"", err, sizeof err) == -1);
    EXPECT_STR(err, "t.json: labs[0].counters: must be an array of ncu metric names");
    EXPECT(parse_edited("\"techniques\": []", "\"techniques\": [{\"name\": \"n\", \"why\": \"w\", \"ptx_any\": [\"ld\", 7]}]",
                        err, sizeof err) == -1);
    EXPECT_STR(err, "t.json: labs[0].techniques[0].ptx_any[1]: must be a non-empty string");
    EXPECT(parse_edited("[\"cudaLaunchKernel\"]", "[\"cudaLaunchKernel\", \"\"]", err, sizeof err) == -1);
    EXPECT_STR(err, "t.json: host_symbols.allow[1]: must be a non-empty string");
    EXPECT(parse_edited("\"hints\"", "\"deterministic\": 1, \"hints\"", err, sizeof err) == -1);
    EXPECT_STR(err, "t.json: labs[0].deterministic: must be true or false");
    EXPECT(parse_edited("\"hints\"", "\"lesson\": [], \"hints\"", err, sizeof err) == -1);
    EXPECT_STR(err, "t.json: labs[0].lesson: must be an object");
    EXPECT(parse_edited("\"hints\"", "\"counters\": [\"dram__bytes.sum\"], \"hints\"", err, sizeof err) == 0);
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

/* A family's emulation bound: 2^20 when absent, the catalog's when given,
 * refused outside 1 to 2^28 with its path. */
static void emulation_bound_optional(void)
{
    struct catalog cat;
    char err[256];
    char *text = util_format(MINI, "01", "reduce_int", "ratio", "2^20", "\"a\", \"b\", \"c\"");
    EXPECT(text && catalog_parse(&cat, text, "t.json", err, sizeof err) == 0);
    if (text && cat.nfamilies == 1) {
        EXPECT(cat.families[0].emu_max_n == 1048576);
        catalog_free(&cat);
    }
    char *at = text ? strstr(text, "\"sizes\"") : NULL;
    char *given = at ? util_format("%.*s\"emu_max_n\": 65536, %s", (int)(at - text), text, at) : NULL;
    char *bad = at ? util_format("%.*s\"emu_max_n\": 0, %s", (int)(at - text), text, at) : NULL;
    EXPECT(given && catalog_parse(&cat, given, "t.json", err, sizeof err) == 0);
    if (given && cat.nfamilies == 1) {
        EXPECT(cat.families[0].emu_max_n == 65536);
        catalog_free(&cat);
    }
    EXPECT(bad && catalog_parse(&cat, bad, "t.json", err, sizeof err) == -1);
    EXPECT(bad && strstr(err, "families.reduce_int.emu_max_n: 0 is outside") != NULL);
    free(text);
    free(given);
    free(bad);
}

/* The hazard pass's bound: 4097 when absent, the catalog's when given,
 * refused outside 1 to 2^20 with its path. */
static void hazard_bound_optional(void)
{
    struct catalog cat;
    char err[256];
    char *text = util_format(MINI, "01", "reduce_int", "ratio", "2^20", "\"a\", \"b\", \"c\"");
    EXPECT(text && catalog_parse(&cat, text, "t.json", err, sizeof err) == 0);
    if (text && cat.nfamilies == 1) {
        EXPECT(cat.families[0].hazard_max_n == 4097);
        catalog_free(&cat);
    }
    char *at = text ? strstr(text, "\"sizes\"") : NULL;
    char *given = at ? util_format("%.*s\"hazard_max_n\": 257, %s", (int)(at - text), text, at) : NULL;
    char *bad = at ? util_format("%.*s\"hazard_max_n\": 0, %s", (int)(at - text), text, at) : NULL;
    EXPECT(given && catalog_parse(&cat, given, "t.json", err, sizeof err) == 0);
    if (given && cat.nfamilies == 1) {
        EXPECT(cat.families[0].hazard_max_n == 257);
        catalog_free(&cat);
    }
    EXPECT(bad && catalog_parse(&cat, bad, "t.json", err, sizeof err) == -1);
    EXPECT(bad && strstr(err, "families.reduce_int.hazard_max_n: 0 is outside") != NULL);
    free(text);
    free(given);
    free(bad);
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

/* A catalog of one lab with two timed cases, 2^20 and 2^24: FAMILY, the
 * lab's TARGET, then anything more for the lab (MORE, "" or starting with a
 * comma). */
#define TWO_CASES \
    "{\"schema\": 1, \"contract\": 2, \"families\": {\"%s\": {\"reference\": \"CUB\", \"timeout_s\": 10," \
    " \"trials_timeout_s\": 5, \"plan_timeout_s\": 5, \"max_steps\": 32, \"max_local_bytes\": 4096," \
    " \"sizes\": [1, 2], \"sanitize_sizes\": [1], \"perf\": [{\"label\": \"2^20\", \"n\": 1048576}," \
    " {\"label\": \"2^24\", \"n\": 16777216}]}}," \
    " \"host_symbols\": {\"allow\": [\"cudaLaunchKernel\"], \"deny\": [], \"deny_defined\": []}," \
    " \"labs\": [{\"id\": \"01\", \"slug\": \"one\", \"title\": \"One\", \"summary\": \"s\"," \
    " \"family\": \"%s\", \"target\": %s, \"techniques\": [], \"hints\": [\"a\", \"b\", \"c\"]%s}]}"

/* Parses TWO_CASES of family reduce_int; out (when not NULL) keeps a
 * catalog that parsed, for the caller to free. */
static int parse_target_text(const char *target, const char *more, char *err, size_t len, struct catalog *out)
{
    struct catalog cat;
    char *text = util_format(TWO_CASES, "reduce_int", "reduce_int", target, more);
    int rc = text ? catalog_parse(&cat, text, "t.json", err, len) : -1;
    free(text);
    if (rc == 0 && out)
        *out = cat;
    else if (rc == 0)
        catalog_free(&cat);
    return rc;
}

static void targets_of_several_cases(void)
{
    struct catalog cat;
    char err[256] = "";
    int rc = parse_target_text("{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1.3, \"solution\": 1.6, "
                               "\"also\": [{\"case\": \"2^24\", \"min\": 1.0, \"solution\": 1.05}]}", "",
                               err, sizeof err, &cat);
    EXPECT_STR(err, "");
    EXPECT(rc == 0);
    if (rc == 0) {
        const struct target *t = &cat.labs[0].target;
        EXPECT(t->nalso == 1 && t->min == 1.3 && t->solution == 1.6);
        EXPECT_STR(t->also[0].case_label, "2^24");
        EXPECT(t->also[0].min == 1.0 && t->also[0].solution == 1.05);
        EXPECT(!cat.labs[0].deterministic);
        catalog_free(&cat);
    }
    /* Each further case is a perf label of the family, named once. */
    EXPECT(parse_target_text("{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1, "
                             "\"also\": [{\"case\": \"2^99\", \"min\": 1}]}", "", err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].target.also[0]: case: \"2^99\" is not a perf label of family reduce_int");
    EXPECT(parse_target_text("{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1, "
                             "\"also\": [{\"case\": \"2^20\", \"min\": 1}]}", "", err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].target.also[0]: case: \"2^20\" is already a case of this target");
    EXPECT(parse_target_text("{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1, "
                             "\"also\": [{\"case\": \"2^24\", \"min\": 1}, {\"case\": \"2^24\", \"min\": 2}]}",
                             "", err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].target.also[1]: case: \"2^24\" is already a case of this target");
    EXPECT(parse_target_text("{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1, "
                             "\"also\": [{\"case\": \"2^24\"}]}", "", err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].target.also[0].min: missing");
    EXPECT(parse_target_text("{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1, \"also\": []}", "", err,
                             sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].target.also: needs at least 1 item(s)");
    EXPECT(parse_target_text("{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1, \"also\": [\"2^24\"]}", "",
                             err, sizeof err, NULL) == -1);
    EXPECT(strstr(err, "labs[0].target.also[0]: must be an object") != NULL);
    EXPECT(parse_target_text("{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1, \"also\": [{\"case\": "
                             "\"2^24\", \"min\": 1}, {\"case\": \"2^24\", \"min\": 1}, {\"case\": \"2^24\", \"min\": 1}, "
                             "{\"case\": \"2^24\", \"min\": 1}]}", "", err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].target: also: at most 3 more cases");
}

static void determinism_only_where_the_judge_can(void)
{
    struct catalog cat;
    char err[256] = "";
    static const char one[] = "{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1}";
    EXPECT(parse_target_text(one, ", \"deterministic\": true", err, sizeof err, &cat) == 0);
    EXPECT_STR(err, "");
    if (!err[0]) {
        EXPECT(cat.labs[0].deterministic == 1);
        catalog_free(&cat);
    }
    EXPECT(parse_target_text(one, ", \"deterministic\": 1", err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].deterministic: must be true or false");
    /* The reduce judges call again on one input; the others cannot. */
    char *text = util_format(TWO_CASES, "mpadd", "mpadd", one, ", \"deterministic\": true");
    EXPECT(text && catalog_parse(&cat, text, "t.json", err, sizeof err) == -1);
    EXPECT_STR(err, "t.json: labs[0].deterministic: family mpadd cannot judge it (only the reduce families "
                    "call again on one input)");
    free(text);
}

static void check_timeout_defaults_and_bounds(void)
{
    struct catalog cat;
    char err[256] = "";
    static const char one[] = "{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1}";
    EXPECT(parse_target_text(one, "", err, sizeof err, &cat) == 0);
    if (!err[0]) {
        EXPECT(cat.labs[0].check_timeout_s == CATALOG_CHECK_TIMEOUT_S);
        catalog_free(&cat);
    }
    EXPECT(parse_target_text(one, ", \"check_timeout_s\": 90", err, sizeof err, &cat) == 0);
    if (!err[0]) {
        EXPECT(cat.labs[0].check_timeout_s == 90);
        catalog_free(&cat);
    }
    EXPECT(parse_target_text(one, ", \"check_timeout_s\": 5", err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].check_timeout_s: 5 is outside [10, 3600]");
    EXPECT(parse_target_text(one, ", \"check_timeout_s\": \"60\"", err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].check_timeout_s: must be a number");
}

/* A lesson: its figure and one bound, which its solution meets. */
static void lesson_counter(void)
{
    struct catalog cat;
    char err[256] = "";
    static const char one[] = "{\"metric\": \"ratio\", \"case\": \"2^20\", \"min\": 1}";
#define LESSON(rest) ", \"lesson\": {\"name\": \"n\", \"what\": \"w\", \"why\": \"y\", \"counter\": \"a+b\", " rest "}"
    EXPECT(parse_target_text(one, LESSON("\"over\": \"n\", \"n\": 4096, \"max\": 0.5, \"solution\": 0.25"), err,
                             sizeof err, &cat) == 0);
    if (!err[0]) {
        const struct lesson *ls = &cat.labs[0].lesson;
        EXPECT_STR(ls->counter, "a+b");
        EXPECT_STR(ls->over, "n");
        EXPECT(ls->n == 4096 && ls->max == 0.5 && ls->min == 0 && ls->solution == 0.25);
        catalog_free(&cat);
    }
    EXPECT(parse_target_text(one, "", err, sizeof err, &cat) == 0);
    if (!err[0]) {
        EXPECT(cat.labs[0].lesson.counter == NULL);
        catalog_free(&cat);
    }
    EXPECT(parse_target_text(one, LESSON("\"n\": 4096, \"max\": 0.5, \"solution\": 0.75"), err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].lesson: the reference solution's figure 0.75 does not meet its own bound");
    EXPECT(parse_target_text(one, LESSON("\"n\": 4096, \"min\": 2, \"solution\": 1"), err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].lesson: the reference solution's figure 1 does not meet its own bound");
    EXPECT(parse_target_text(one, LESSON("\"n\": 4096, \"max\": 1, \"min\": 0.5, \"solution\": 1"), err, sizeof err,
                             NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].lesson: has both max and min: a bound is one of the two");
    EXPECT(parse_target_text(one, LESSON("\"n\": 4096, \"solution\": 1"), err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].lesson: needs max or min");
    /* past the family's emulation bound (2^20 here) no CPU judge counts it */
    EXPECT(parse_target_text(one, LESSON("\"n\": 2097152, \"max\": 1, \"solution\": 1"), err, sizeof err, NULL) == -1);
    EXPECT_STR(err, "t.json: labs[0].lesson.n: 2.09715e+06 is outside [1, 1.04858e+06]");
#undef LESSON
}

TAP_MAIN(T(real_catalog_loads), T(lesson_counter), T(every_family_has_its_pieces), T(check_timeout_defaults_and_bounds), T(minimal_catalog_parses), T(unknown_family_named_with_path),
         T(bad_metric_and_case), T(hints_must_be_three), T(string_lists_and_optional_members), T(bad_id), T(invalid_json_names_line),
         T(newer_schema_refused), T(other_contract_refused), T(missing_file), T(size_out_of_range),
         T(trials_limit_within_run_limit), T(opens_after_and_bonus), T(targets_of_several_cases),
         T(determinism_only_where_the_judge_can), T(pct_peak_is_a_fraction), T(emulation_bound_optional),
         T(hazard_bound_optional))
