/* test_sheet.c — the generated pages: a results page for the recorded
 * verdict of every status says what the status promises (expected and got,
 * the smallest failing n, timing against the reference, the target, the
 * student's statement under a compile error), hints escalate, and the chart
 * draws the student's own ladder from progress. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/progress.h"
#include "view/sheet.h"
#include "tap.h"
#include "sys/util.h"
#include "view/verdict.h"

#define WIDTH 98

static int fixture(const char *status, struct result *r)
{
    char path[128], err[256];
    snprintf(path, sizeof path, "tests/fixtures/%s.json", status);
    char *text = util_read_file(path, NULL);
    int rc = text ? result_parse(text, r, err, sizeof err) : -1;
    if (rc)
        printf("#   cannot use %s\n", path);
    free(text);
    return rc;
}

/* The doc as one string, lines joined by \n. */
static char *flat(const struct doc *d)
{
    size_t n = 1;
    for (int i = 0; i < d->nlines; i++)
        n += d->lines[i].len + 1;
    char *s = malloc(n), *p = s;
    for (int i = 0; s && i < d->nlines; i++) {
        memcpy(p, d->lines[i].text, d->lines[i].len);
        p += d->lines[i].len;
        *p++ = '\n';
    }
    if (s)
        *p = '\0';
    return s;
}

static int has(const char *text, const char *what)
{
    if (strstr(text, what))
        return 1;
    printf("#   missing \"%s\"\n", what);
    return 0;
}

/* Prose fits; quoted output, reports and code may not. */
static void fits(const struct doc *d, int width)
{
    for (int i = 0; i < d->nlines; i++) {
        const struct doc_line *l = &d->lines[i];
        if (l->len && l->style[0] != DOC_BLOCK && l->style[0] != DOC_DIM &&
            doc_width(l->text, l->len) > width) {
            printf("#   too wide: \"%s\"\n", l->text);
            EXPECT(0);
        }
    }
}

static char *page(const char *status, const char *src)
{
    struct result r;
    struct doc d;
    if (fixture(status, &r))
        return NULL;
    doc_init(&d);
    sheet_result(&d, &r, NULL, src, WIDTH);
    fits(&d, WIDTH);
    char *s = flat(&d);
    doc_free(&d);
    result_free(&r);
    return s;
}

static void every_status_has_a_page(void)
{
    /* Each page leads with its headline: the status's meaning, a fail's cause. */
    for (int st = 0; st < STATUS_CHECK_COUNT; st++) {
        struct result r;
        char head[256] = "";
        char *s = page(status_name((enum status)st), NULL);
        EXPECT(s != NULL);
        if (!fixture(status_name((enum status)st), &r)) {
            result_headline(&r, head, sizeof head);
            result_free(&r);
        }
        if (s)
            EXPECT(has(s, head[0] ? head : status_meaning((enum status)st)));
        free(s);
    }
}

static void pass_shows_timing_and_target(void)
{
    char *s = page("pass", NULL);
    if (!s)
        return;
    EXPECT(has(s, " PASS "));
    EXPECT(has(s, "32/32 sizes passed"));
    EXPECT(has(s, "Timing"));
    EXPECT(has(s, "2^28"));
    EXPECT(has(s, "← target"));
    EXPECT(has(s, "GB/s"));
    EXPECT(has(s, ": met"));
    EXPECT(has(s, "racecheck"));
    EXPECT(has(s, "block barrier: found"));
    free(s);
}

static void fail_shows_expected_got_and_smallest_n(void)
{
    struct result r;
    char *s = page("fail", NULL);
    if (!s || fixture("fail", &r)) {
        free(s);
        return;
    }
    char want[160];
    snprintf(want, sizeof want, "smallest failing n = %llu", r.first_failing_n);
    EXPECT(has(s, " FAIL "));
    EXPECT(has(s, want));
    /* The heading names the cause, not every way a kernel can fail. */
    snprintf(want, sizeof want, "wrong result at n = %llu", r.first_failing_n);
    EXPECT(has(s, want));
    EXPECT(!strstr(s, status_meaning(STATUS_FAIL)));
    for (int i = 0; i < r.ntests; i++)
        if (!r.tests[i].pass) {
            snprintf(want, sizeof want, "expected %s, got %s", r.tests[i].expected, r.tests[i].got);
            EXPECT(has(s, want));
            break;
        }
    EXPECT(!strstr(s, "Timing"));
    result_free(&r);
    free(s);
}

static void compile_error_quotes_the_students_line(void)
{
    struct result r;
    struct doc d;
    if (fixture("compile_error", &r))
        return;
    /* A source whose diagnostic line is recognisable. */
    char src[4096] = "";
    for (int i = 1; i <= r.diags[0].line + 2 && i < 60; i++) {
        char l[64];
        snprintf(l, sizeof l, i == r.diags[0].line ? "    bad_line_%d();\n" : "    line_%d();\n", i);
        strcat(src, l);
    }
    doc_init(&d);
    sheet_result(&d, &r, NULL, src, WIDTH);
    int marked = -1;
    for (int i = 0; i < d.nlines; i++) {
        const char *p = strstr(d.lines[i].text, "bad_line_");
        if (p && d.lines[i].style[p - d.lines[i].text] == DOC_MARK)
            marked = i;
    }
    EXPECT(marked > 0);
    char want[32];
    snprintf(want, sizeof want, "%d │", r.diags[0].line);
    EXPECT(marked > 0 && strstr(d.lines[marked].text, want));
    char *s = flat(&d);
    EXPECT(has(s, r.diags[0].message));
    free(s);
    doc_free(&d);
    result_free(&r);
}

/* The quoted lines of a compile-error page whose one diagnostic is on line
 * `line` of src, each as "N │ text" ("*" before N when marked), joined. */
static char *quoted(const char *src, int line)
{
    struct result r;
    struct doc d;
    if (fixture("compile_error", &r))
        return NULL;
    r.diags[0].line = line;
    doc_init(&d);
    sheet_result(&d, &r, NULL, src, WIDTH);
    char *out = calloc(1, 4096);
    for (int i = 0; out && i < d.nlines; i++) {
        const char *bar = strstr(d.lines[i].text, " │ ");
        if (!bar)
            continue;
        size_t at = (size_t)(bar - d.lines[i].text) + strlen(" │ ");
        int marked = at < d.lines[i].len && d.lines[i].style[at] == DOC_MARK;
        char num[16];
        snprintf(num, sizeof num, "%d", atoi(d.lines[i].text));
        snprintf(out + strlen(out), 4096 - strlen(out), "%s%s:%s|", marked ? "*" : "", num, d.lines[i].text + at);
    }
    doc_free(&d);
    result_free(&r);
    return out;
}

/* nvcc names the line where it noticed the mistake: a missing ";" on the
 * next statement (past blank and comment lines), a bad argument on the
 * last line of a call.  The quote must hold the line with the mistake. */
static void compile_error_quotes_the_whole_statement(void)
{
    const char *semi = "#include \"lab.h\"\n__global__ void k(const int *in, int *out)\n{\n"
                       "    int a = in[0]\n\n    // write it out\n    out[0] = a;\n}\n";
    char *q = quoted(semi, 7);
    EXPECT(q && has(q, "3:{|4:    int a = in[0]|5:|6:    // write it out|*7:    out[0] = a;|8:}|"));
    free(q);
    const char *call = "void f(void)\n{\n    g(a,\n      b,\n      c d);\n    h();\n}\n";
    q = quoted(call, 5);
    EXPECT(q && has(q, "2:{|3:    g(a,|4:      b,|*5:      c d);|6:    h();|"));
    free(q);
    /* Down to the end of the statement the line starts. */
    q = quoted(call, 3);
    EXPECT(q && has(q, "2:{|*3:    g(a,|4:      b,|5:      c d);|6:    h();|"));
    free(q);
    /* A statement of its own: the line and one either side, as before. */
    q = quoted(call, 6);
    EXPECT(q && has(q, "5:      c d);|*6:    h();|7:}|"));
    free(q);
}

static void no_gpu_says_nothing_ran(void)
{
    char *s = page("no_gpu", NULL);
    if (!s)
        return;
    EXPECT(has(s, " NO GPU "));
    EXPECT(has(s, "no CUDA device"));
    EXPECT(has(s, "nothing was run or timed"));
    EXPECT(!strstr(s, "Correctness") && !strstr(s, "Timing"));
    free(s);
}

static void rejected_names_the_symbol(void)
{
    struct result r;
    char *s = page("rejected", NULL);
    if (s && !fixture("rejected", &r)) {
        EXPECT(r.nviol > 0 && has(s, r.viol_symbols[0]));
        result_free(&r);
    }
    free(s);
}

static void hints_escalate(void)
{
    struct lab lab = {.id = "01", .title = "T", .hints = {"first `a`", "second", "third"}};
    struct doc d;
    doc_init(&d);
    sheet_hints(&d, &lab, 2, 1, 60);
    char *s = flat(&d);
    EXPECT(has(s, "Hint 1 of 3") && has(s, "first a") && has(s, "Hint 2 of 3  (new)"));
    EXPECT(!strstr(s, "third"));
    EXPECT(has(s, "Press h again") && has(s, "never affect your grade"));
    free(s);
    doc_free(&d);
    doc_init(&d);
    sheet_hints(&d, &lab, 2, 0, 60);
    s = flat(&d);
    EXPECT(has(s, "Hint 2 of 3") && !strstr(s, "(new)"));
    free(s);
    doc_free(&d);
    doc_init(&d);
    sheet_hints(&d, &lab, 3, 1, 60);
    s = flat(&d);
    EXPECT(has(s, "third") && has(s, "the last hint"));
    free(s);
    doc_free(&d);
}

static void the_chart_draws_the_students_ladder(void)
{
    struct lab labs[4] = {{.id = "01", .title = "Interleaved addressing"},
                          {.id = "02", .title = "Strided index"},
                          {.id = "03", .title = "Sequential addressing"},
                          {.id = "11", .title = "Argmax", .bonus = 1}};
    struct catalog cat = {.labs = labs, .nlabs = 4};
    struct progress p;
    struct result r;
    struct doc d;
    progress_init(&p);
    doc_init(&d);
    sheet_chart(&d, &cat, &p, WIDTH);
    char *s = flat(&d);
    EXPECT(has(s, "No timed passes yet"));
    free(s);
    doc_free(&d);
    if (fixture("pass", &r))
        return;
    progress_record_check(&p, NULL, &r, "t");
    doc_init(&d);
    sheet_chart(&d, &cat, &p, WIDTH);
    fits(&d, WIDTH);
    s = flat(&d);
    char want[64];
    snprintf(want, sizeof want, "%5.0f GB/s", progress_find(&p, "01")->best.gbps);
    EXPECT(has(s, want));
    EXPECT(has(s, r.device_name));
    EXPECT(has(s, "█") && has(s, "│"));
    EXPECT(has(s, "The ladder"));
    EXPECT(has(s, "no timed pass yet"));
    /* The bonus labs under their own heading, after the core ones. */
    EXPECT(has(s, "Bonus") && strstr(s, "Bonus") > strstr(s, "Sequential addressing") &&
           strstr(s, "Bonus") < strstr(s, "Argmax"));
    free(s);
    doc_free(&d);
    result_free(&r);
    progress_free(&p);
}

/* The pass fixture judged by another threshold: `target` is merged into
 * its target object. */
static int retargeted(const char *target, struct result *r)
{
    char err[256];
    char *text = util_read_file("tests/fixtures/pass.json", NULL), *out = NULL;
    cJSON *root = text ? cJSON_Parse(text) : NULL, *patch = cJSON_Parse(target), *v;
    cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "target");
    int rc = -1;
    if (!t || !patch)
        goto out;
    cJSON_ArrayForEach(v, patch) {
        cJSON_DeleteItemFromObjectCaseSensitive(t, v->string);
        cJSON_AddItemToObject(t, v->string, cJSON_Duplicate(v, 1));
    }
    out = cJSON_PrintUnformatted(root);
    rc = out ? result_parse(out, r, err, sizeof err) : -1;
out:
    if (rc)
        printf("#   cannot retarget the pass fixture\n");
    free(out);
    free(text);
    cJSON_Delete(root);
    cJSON_Delete(patch);
    return rc;
}

/* The results page and the terminal's verdict, both in verdict.c's words. */
static void both_views(const struct result *r, char **page_text, char **verdict_text)
{
    struct doc d;
    size_t len = 0;
    FILE *f = open_memstream(verdict_text, &len);
    doc_init(&d);
    sheet_result(&d, r, NULL, NULL, WIDTH);
    fits(&d, WIDTH);
    *page_text = flat(&d);
    doc_free(&d);
    if (f) {
        verdict_print(f, r, NULL, 0, 80);
        fclose(f);
    }
}

static void a_calibrated_target_says_why_in_plain_words(void)
{
    struct result r;
    char *p = NULL, *v = NULL;
    static const char words[] = "(scaled to this NVIDIA H200: its reference solution measures 0.109×; the "
                                "catalog's 0.12× is for the NVIDIA H100 80GB HBM3)";
    if (retargeted("{\"min\": 0.0822, \"catalog_min\": 0.12, \"calibration\": {\"gpu\": \"NVIDIA H200\", "
                   "\"lowered\": true, \"solution_here\": 0.109, \"catalog_solution\": 0.159, "
                   "\"catalog_gpu\": \"NVIDIA H100 80GB HBM3\"}}", &r))
        return;
    both_views(&r, &p, &v);
    EXPECT(p && has(p, "0.0822× CUB DeviceReduce::Sum at 2^28: met"));
    EXPECT(v && has(v, "target       0.0822× CUB DeviceReduce::Sum at 2^28: met (measured 0.1"));
    EXPECT(v && has(v, words));
    /* The page wraps the words at its width: compare them joined again. */
    char *joined = p ? strdup(p) : NULL;
    for (char *c = joined, *w = joined; c && *c; c++)
        if (*c == '\n' && c[1] == ' ' && c[2] == ' ') {
            *w++ = ' ';
            c += 2;
        } else {
            *w++ = *c;
            if (!c[1])
                *w = '\0';
        }
    EXPECT(joined && has(joined, words));
    free(joined);
    free(p);
    free(v);
    result_free(&r);

    /* A grader's --target-min, not a calibration of the tutor's. */
    if (retargeted("{\"min\": 0.09, \"catalog_min\": 0.12}", &r))
        return;
    both_views(&r, &p, &v);
    EXPECT(v && has(v, "0.09× CUB DeviceReduce::Sum at 2^28: met") && has(v, "(given by --target-min; the "
                                                                          "catalog's is 0.12×)"));
    free(p);
    free(v);
    result_free(&r);

    /* The catalog's own threshold needs no words. */
    if (fixture("pass", &r))
        return;
    both_views(&r, &p, &v);
    EXPECT(v && has(v, "target       0.12× CUB DeviceReduce::Sum at 2^28: met (measured 0.1"));
    EXPECT(v && !strstr(v, "scaled") && !strstr(v, "--target-min"));
    EXPECT(p && !strstr(p, "scaled") && !strstr(p, "--target-min"));
    free(p);
    free(v);
    result_free(&r);
}

/* A target of several cases (lab 15's kind) names each, marks each in the
 * timing table, and is met only with all of them; lowered by the case
 * where the solution fell furthest short, it says which. */
static void a_target_of_several_cases_names_each(void)
{
    struct result r;
    char *p = NULL, *v = NULL;
    if (retargeted("{\"case\": \"2^22\", \"min\": 0.25, \"value\": 0.298124, \"met\": false, \"also\": "
                   "[{\"case\": \"2^28\", \"min\": 0.2, \"value\": 0.158542, \"met\": false}]}", &r))
        return;
    EXPECT(r.ntarget_also == 1 && r.target_also[0].value == 0.158542 && !r.target_also[0].met);
    both_views(&r, &p, &v);
    EXPECT(v && has(v, "target       0.25× CUB DeviceReduce::Sum at 2^22 and 0.2× at 2^28: not met yet "
                       "(measured 0.298× at 2^22 and 0.159× at 2^28)"));
    EXPECT(p && has(p, "0.25× CUB DeviceReduce::Sum at 2^22 and 0.2× at 2^28: not met yet\n  measured 0.298× at "
                       "2^22 and 0.159× at 2^28"));
    /* Both cases carry the mark in the timing table. */
    int marks = 0;
    for (const char *c = p; c && (c = strstr(c, "← target")); c++)
        marks++;
    EXPECT(marks == 2);
    free(p);
    free(v);
    result_free(&r);

    if (retargeted("{\"case\": \"2^22\", \"min\": 0.164, \"catalog_min\": 0.25, \"value\": 0.298124, "
                   "\"met\": true, \"calibration\": {\"gpu\": \"NVIDIA H200\", \"lowered\": true, \"case\": "
                   "\"2^28\", \"solution_here\": 0.109, \"catalog_solution\": 0.166, \"catalog_gpu\": "
                   "\"NVIDIA H100 80GB HBM3\"}, \"also\": [{\"case\": \"2^28\", \"min\": 0.131, \"catalog_min\": "
                   "0.2, \"value\": 0.158542, \"met\": true}]}", &r))
        return;
    both_views(&r, &p, &v);
    EXPECT(v && has(v, "0.164× CUB DeviceReduce::Sum at 2^22 and 0.131× at 2^28: met (measured 0.298× at 2^22 "
                       "and 0.159× at 2^28)"));
    EXPECT(v && has(v, "(scaled to this NVIDIA H200: its reference solution measures 0.109× at 2^28, the case "
                       "where it falls furthest short; the catalog's 0.2× there is for the NVIDIA H100 80GB HBM3, "
                       "and every case is lowered alike)"));
    free(p);
    free(v);
    result_free(&r);
}

TAP_MAIN(T(every_status_has_a_page), T(pass_shows_timing_and_target), T(fail_shows_expected_got_and_smallest_n),
         T(compile_error_quotes_the_students_line), T(compile_error_quotes_the_whole_statement),
         T(no_gpu_says_nothing_ran), T(rejected_names_the_symbol),
         T(hints_escalate), T(the_chart_draws_the_students_ladder), T(a_calibrated_target_says_why_in_plain_words),
         T(a_target_of_several_cases_names_each))
