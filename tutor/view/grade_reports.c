/* grade_reports.c — see grade_reports.h.  Each function is one report (the student's
 * report.json, Gradescope's results.json, JUnit, grades.csv, the summary
 * table) over the scored struct, in jsonw's layout; what a status is
 * called and means comes from status.h alone. */
#include "view/grade_reports.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/csv.h"
#include "sys/jsonw.h"
#include "sys/util.h"

/* ---- report.json -------------------------------------------------------- */

/* A score that is null for a lab not graded. */
static void graded_number(struct jsonw *w, const struct score_lab *l, double x)
{
    if (l->graded)
        jsonw_double(w, x);
    else
        jsonw_null(w);
}

/* A JSON text written by another program (the check's target), in place. */
static void passthrough(struct jsonw *w, const char *json)
{
    cJSON *v = json ? cJSON_Parse(json) : NULL;
    jsonw_cjson(w, v);
    cJSON_Delete(v);
}

static void lab_json(struct jsonw *w, const struct score_lab *l)
{
    jsonw_object(w);
    jsonw_key(w, "lab");
    jsonw_string(w, l->lab);
    jsonw_key(w, "title");
    jsonw_string(w, l->title);
    jsonw_key(w, "status");
    jsonw_string(w, status_name(l->status));
    jsonw_key(w, "graded");
    jsonw_bool(w, l->graded);
    jsonw_key(w, "provisional");
    jsonw_bool(w, l->provisional);
    jsonw_key(w, "score");
    graded_number(w, l, l->score);
    jsonw_key(w, "max_score");
    jsonw_double(w, l->max_score);
    jsonw_key(w, "correctness");
    jsonw_object(w);
    jsonw_key(w, "score");
    graded_number(w, l, l->correctness);
    jsonw_key(w, "max");
    jsonw_double(w, l->correctness_max);
    jsonw_end_object(w);
    jsonw_key(w, "performance");
    jsonw_object(w);
    jsonw_key(w, "score");
    graded_number(w, l, l->performance);
    jsonw_key(w, "max");
    jsonw_double(w, l->performance_max);
    jsonw_key(w, "why");
    jsonw_string(w, l->performance_why);
    jsonw_end_object(w);
    jsonw_key(w, "target");
    passthrough(w, l->target_json);
    jsonw_key(w, "tests");
    jsonw_object(w);
    jsonw_key(w, "passed");
    jsonw_double(w, l->tests_passed);
    jsonw_key(w, "total");
    jsonw_double(w, l->tests_total);
    jsonw_end_object(w);
    jsonw_key(w, "seed");
    if (l->have_seed)
        jsonw_double(w, l->seed);
    else
        jsonw_null(w);
    jsonw_key(w, "seconds");
    if (l->have_seconds)
        jsonw_double(w, l->seconds);
    else
        jsonw_null(w);
    jsonw_key(w, "summary");
    jsonw_string(w, l->summary);
    jsonw_key(w, "intake");
    jsonw_object(w);
    jsonw_key(w, "state");
    jsonw_string(w, l->intake.state);
    jsonw_key(w, "from");
    jsonw_string(w, l->intake.from);
    jsonw_key(w, "bytes");
    jsonw_double(w, l->intake.bytes);
    jsonw_key(w, "why");
    jsonw_string(w, l->intake.why);
    jsonw_end_object(w);
    jsonw_key(w, "text");
    jsonw_string(w, l->text);
    jsonw_end_object(w);
}

char *report_json(const struct score_report *r)
{
    struct jsonw w;
    jsonw_init(&w, 1);
    jsonw_object(&w);
    jsonw_key(&w, "schema");
    jsonw_double(&w, 1);
    jsonw_key(&w, "student");
    jsonw_string(&w, r->student);
    jsonw_key(&w, "submission");
    jsonw_string(&w, r->submission);
    jsonw_key(&w, "score");
    jsonw_double(&w, r->score);
    jsonw_key(&w, "max_score");
    jsonw_double(&w, r->max_score);
    jsonw_key(&w, "graded_max_score");
    jsonw_double(&w, r->graded_max_score);
    jsonw_key(&w, "labs_not_graded");
    jsonw_double(&w, r->labs_not_graded);
    jsonw_key(&w, "labs_provisional");
    jsonw_double(&w, r->labs_provisional);
    jsonw_key(&w, "complete");
    jsonw_bool(&w, r->complete);
    jsonw_key(&w, "refused");
    jsonw_string(&w, r->refused);
    jsonw_key(&w, "labs");
    jsonw_array(&w);
    for (int i = 0; i < r->nlabs; i++)
        lab_json(&w, &r->labs[i]);
    jsonw_end_array(&w);
    jsonw_key(&w, "grader");
    jsonw_object(&w);
    jsonw_key(&w, "rubric_sha256");
    jsonw_string(&w, r->rubric_sha256);
    jsonw_key(&w, "sandbox");
    jsonw_string(&w, r->sandbox);
    jsonw_key(&w, "graded_at");
    jsonw_string(&w, r->graded_at);
    jsonw_end_object(&w);
    jsonw_end_object(&w);
    return jsonw_take(&w);
}

/* ---- Gradescope ----------------------------------------------------------- */

/* A number in jsonw_number's form, into a buffer of 40. */
static const char *num(char buf[40], double x)
{
    jsonw_number(buf, 40, x);
    return buf;
}

/* The results' output line: the points, what is not graded yet, what
 * was judged on the CPU only, and a refusal. */
static char *gradescope_output(const struct score_report *r)
{
    char a[40], b[40], c[40];
    char *head = r->labs_not_graded > 0
                     ? util_format("%s: %s of %s points; %d lab(s) not graded yet (%s points in all)",
                                   r->student, num(a, r->score), num(b, r->graded_max_score),
                                   r->labs_not_graded, num(c, r->max_score))
                     : util_format("%s: %s of %s points (all labs graded)", r->student, num(a, r->score),
                                   num(b, r->graded_max_score));
    if (head && r->labs_provisional > 0) {
        char *more = util_format("%s; %d lab(s) judged on the CPU without a GPU: provisional until graded "
                                 "on a GPU", head, r->labs_provisional);
        free(head);
        head = more;
    }
    if (!head || !r->refused)
        return head;
    char *all = util_format("%s.\nThe submission was refused: %s", head, r->refused);
    free(head);
    return all;
}

char *report_gradescope(const struct score_report *r, const struct rubric *rb)
{
    struct jsonw w;
    double seconds = 0;
    char *output = gradescope_output(r);
    if (!output)
        return NULL;
    for (int i = 0; i < r->nlabs; i++)
        seconds += r->labs[i].have_seconds ? r->labs[i].seconds : 0;

    jsonw_init(&w, 1);
    jsonw_object(&w);
    jsonw_key(&w, "score");
    jsonw_double(&w, r->score);
    jsonw_key(&w, "execution_time");
    jsonw_double(&w, floor(seconds));
    jsonw_key(&w, "output");
    jsonw_string(&w, output);
    jsonw_key(&w, "visibility");
    jsonw_string(&w, rb->visibility);
    jsonw_key(&w, "stdout_visibility");
    jsonw_string(&w, rb->stdout_visibility);
    jsonw_key(&w, "tests");
    jsonw_array(&w);
    for (int i = 0; i < r->nlabs; i++) {
        const struct score_lab *l = &r->labs[i];
        char *name = util_format("Lab %s: %s", l->lab, l->title);
        jsonw_object(&w);
        jsonw_key(&w, "name");
        jsonw_string(&w, name ? name : l->lab);
        free(name);
        jsonw_key(&w, "number");
        jsonw_string(&w, l->lab);
        /* A lab not graded has no score, max_score or status: Gradescope
         * then counts it nowhere. */
        if (l->graded) {
            jsonw_key(&w, "score");
            jsonw_double(&w, l->score);
            jsonw_key(&w, "max_score");
            jsonw_double(&w, l->max_score);
            /* Gradescope's two test statuses, not ours. */
            jsonw_key(&w, "status");
            jsonw_string(&w, l->status == STATUS_PASS ? "passed" : "failed");
        }
        jsonw_key(&w, "visibility");
        jsonw_string(&w, rb->visibility);
        jsonw_key(&w, "output");
        jsonw_string(&w, l->text);
        jsonw_key(&w, "tags");
        jsonw_array(&w);
        jsonw_string(&w, status_name(l->status));
        if (l->provisional)
            jsonw_string(&w, "provisional");
        jsonw_end_array(&w);
        /* Gradescope stores extra_data with the submission and hands it
         * back to later runs of the autograder, in which students' kernels
         * run: it carries no seed (report.json, the instructor's, does). */
        jsonw_key(&w, "extra_data");
        jsonw_object(&w);
        jsonw_key(&w, "status");
        jsonw_string(&w, status_name(l->status));
        jsonw_key(&w, "provisional");
        jsonw_bool(&w, l->provisional);
        jsonw_end_object(&w);
        jsonw_end_object(&w);
    }
    jsonw_end_array(&w);
    jsonw_key(&w, "extra_data");
    jsonw_object(&w);
    jsonw_key(&w, "student");
    jsonw_string(&w, r->student);
    jsonw_key(&w, "submission");
    jsonw_string(&w, r->submission);
    jsonw_key(&w, "labs_not_graded");
    jsonw_double(&w, r->labs_not_graded);
    jsonw_key(&w, "labs_provisional");
    jsonw_double(&w, r->labs_provisional);
    jsonw_end_object(&w);
    jsonw_end_object(&w);
    free(output);
    return jsonw_take(&w);
}

/* ---- JUnit -------------------------------------------------------------- */

enum report_junit_kind report_junit_kind(const struct score_lab *l)
{
    if (l->status == STATUS_PASS)
        return REPORT_JUNIT_PASS;
    /* Not graded: the grader's own failure is an error (the lab could not
     * be judged); the rest (no GPU, missing, ...) the rubric chose to skip. */
    if (!l->graded)
        return l->status == STATUS_INTERNAL_ERROR ? REPORT_JUNIT_ERROR : REPORT_JUNIT_SKIPPED;
    return REPORT_JUNIT_FAILURE;
}

/* A time in seconds, to the millisecond. */
static void secs(struct jsonw *w, double s)
{
    char buf[40];
    jsonw_number(buf, sizeof buf, round(s * 1000) / 1000);
    jsonw_raw(w, buf, strlen(buf));
}

static void put(struct jsonw *w, const char *s) { jsonw_raw(w, s, strlen(s)); }

static void putn(struct jsonw *w, double x)
{
    char buf[40];
    jsonw_number(buf, sizeof buf, x);
    put(w, buf);
}

/* How many labs of the kind in reps. */
static int count_kind(const struct score_report *reps, int n, enum report_junit_kind k)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < reps[i].nlabs; j++)
            c += report_junit_kind(&reps[i].labs[j]) == k;
    return c;
}

/* tests="" failures="" errors="" skipped="" of reps. */
static void counts(struct jsonw *w, const struct score_report *reps, int n)
{
    int tests = 0;
    for (int i = 0; i < n; i++)
        tests += reps[i].nlabs;
    put(w, " tests=\"");
    putn(w, tests);
    put(w, "\" failures=\"");
    putn(w, count_kind(reps, n, REPORT_JUNIT_FAILURE));
    put(w, "\" errors=\"");
    putn(w, count_kind(reps, n, REPORT_JUNIT_ERROR));
    put(w, "\" skipped=\"");
    putn(w, count_kind(reps, n, REPORT_JUNIT_SKIPPED));
    put(w, "\"");
}

static void testcase(struct jsonw *w, const struct score_report *s, const struct score_lab *l)
{
    enum report_junit_kind k = report_junit_kind(l);
    put(w, "    <testcase classname=\"");
    jsonw_xml(w, s->student);
    put(w, "\" name=\"");
    jsonw_xml(w, l->lab);
    put(w, " ");
    jsonw_xml(w, l->title);
    put(w, "\" time=\"");
    secs(w, l->have_seconds ? l->seconds : 0);
    put(w, "\">\n");
    if (k == REPORT_JUNIT_FAILURE || k == REPORT_JUNIT_ERROR) {
        const char *tag = k == REPORT_JUNIT_FAILURE ? "failure" : "error";
        put(w, "      <");
        put(w, tag);
        put(w, " type=\"");
        jsonw_xml(w, status_name(l->status));
        put(w, "\" message=\"");
        jsonw_xml(w, l->summary);
        put(w, "\">");
        jsonw_xml(w, l->text);
        put(w, "</");
        put(w, tag);
        put(w, ">\n");
    } else if (k == REPORT_JUNIT_SKIPPED) {
        put(w, "      <skipped message=\"");
        jsonw_xml(w, l->summary);
        put(w, "\"/>\n");
    }
    put(w, "      <system-out>");
    jsonw_xml(w, l->text);
    put(w, "</system-out>\n");
    put(w, "    </testcase>\n");
}

static void property(struct jsonw *w, const char *name, const char *value, int escape)
{
    put(w, "      <property name=\"");
    put(w, name);
    put(w, "\" value=\"");
    if (escape)
        jsonw_xml(w, value);
    else
        put(w, value);
    put(w, "\"/>\n");
}

static void testsuite(struct jsonw *w, const struct score_report *s)
{
    char buf[40];
    double t = 0;
    for (int i = 0; i < s->nlabs; i++)
        t += s->labs[i].have_seconds ? s->labs[i].seconds : 0;
    put(w, "  <testsuite name=\"");
    jsonw_xml(w, s->student);
    put(w, "\"");
    counts(w, s, 1);
    put(w, " time=\"");
    secs(w, t);
    put(w, "\">\n");
    put(w, "    <properties>\n");
    property(w, "score", num(buf, s->score), 0);
    property(w, "max_score", num(buf, s->max_score), 0);
    property(w, "graded_max_score", num(buf, s->graded_max_score), 0);
    property(w, "labs_provisional", num(buf, s->labs_provisional), 0);
    property(w, "submission", s->submission, 1);
    put(w, "    </properties>\n");
    for (int i = 0; i < s->nlabs; i++)
        testcase(w, s, &s->labs[i]);
    put(w, "  </testsuite>\n");
}

char *report_junit(const struct score_report *reps, int n)
{
    struct jsonw w;
    jsonw_init(&w, 0);
    put(&w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    put(&w, "<testsuites name=\"cudatutor grade\"");
    counts(&w, reps, n);
    put(&w, ">\n");
    for (int i = 0; i < n; i++)
        testsuite(&w, &reps[i]);
    put(&w, "</testsuites>");
    return jsonw_take(&w);
}

/* ---- the class: sorted by student ----------------------------------------- */

static int by_student(const void *a, const void *b)
{
    const struct score_report *x = *(const struct score_report *const *)a;
    const struct score_report *y = *(const struct score_report *const *)b;
    return strcmp(x->student ? x->student : "", y->student ? y->student : "");
}

/* reps as pointers sorted by student id (bytewise, which on UTF-8 is
 * codepoint order); NULL when out of memory. */
static const struct score_report **sorted(const struct score_report *reps, int n)
{
    const struct score_report **v = calloc((size_t)n + 1, sizeof *v);
    if (!v)
        return NULL;
    for (int i = 0; i < n; i++)
        v[i] = &reps[i];
    /* ids are unique, so qsort's order is the one order there is. */
    qsort(v, (size_t)n, sizeof *v, by_student);
    return v;
}

static int by_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every lab id any student has, sorted, each once; *nids its count. */
static const char **lab_ids(const struct score_report *reps, int n, int *nids)
{
    int total = 0, k = 0;
    for (int i = 0; i < n; i++)
        total += reps[i].nlabs;
    const char **ids = calloc((size_t)total + 1, sizeof *ids);
    if (!ids)
        return NULL;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < reps[i].nlabs; j++)
            ids[k++] = reps[i].labs[j].lab;
    qsort(ids, (size_t)k, sizeof *ids, by_str);
    int u = 0;
    for (int i = 0; i < k; i++)
        if (!u || strcmp(ids[u - 1], ids[i]))
            ids[u++] = ids[i];
    *nids = u;
    return ids;
}

static const struct score_lab *find_lab(const struct score_report *r, const char *id)
{
    for (int i = 0; i < r->nlabs; i++)
        if (!strcmp(r->labs[i].lab, id))
            return &r->labs[i];
    return NULL;
}

/* ---- grades.csv ------------------------------------------------------------ */

/* One row's cells: strings quoted, numbers bare, null as nothing. */
static void csv_string(FILE *f, int *first, const char *s)
{
    if (!*first)
        fputc(',', f);
    *first = 0;
    if (s)
        csv_put_string(f, s);
}

static void csv_number(FILE *f, int *first, double x)
{
    if (!*first)
        fputc(',', f);
    *first = 0;
    csv_put_number(f, x);
}

/* The labs of R judged on the CPU only, "01 02"; NULL when out of memory. */
static char *provisional_ids(const struct score_report *r)
{
    char *ids = strdup("");
    for (int i = 0; ids && i < r->nlabs; i++) {
        if (!r->labs[i].provisional)
            continue;
        char *more = util_format("%s%s%s", ids, *ids ? " " : "", r->labs[i].lab);
        free(ids);
        ids = more;
    }
    return ids;
}

char *report_csv(const struct score_report *reps, int n)
{
    static const char *const head[] = {"student", "submission", "score", "max_score", "graded_max_score",
                                       "labs_not_graded", "provisional"};
    char *text = NULL;
    size_t len = 0;
    int nids = 0;
    const struct score_report **v = sorted(reps, n);
    const char **ids = lab_ids(reps, n, &nids);
    FILE *f = v && ids ? open_memstream(&text, &len) : NULL;
    if (!f)
        goto done;
    int first = 1;
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        csv_string(f, &first, head[i]);
    for (int i = 0; i < nids; i++)
        csv_string(f, &first, ids[i]);
    for (int i = 0; i < nids; i++) {
        char *h = util_format("status_%s", ids[i]);
        csv_string(f, &first, h ? h : "");
        free(h);
    }
    csv_string(f, &first, "refused");
    fputc('\n', f);
    for (int s = 0; s < n; s++) {
        const struct score_report *r = v[s];
        first = 1;
        csv_string(f, &first, r->student);
        csv_string(f, &first, r->submission);
        csv_number(f, &first, r->score);
        csv_number(f, &first, r->max_score);
        csv_number(f, &first, r->graded_max_score);
        csv_number(f, &first, r->labs_not_graded);
        char *prov = provisional_ids(r);
        csv_string(f, &first, prov ? prov : "");
        free(prov);
        for (int i = 0; i < nids; i++) {
            const struct score_lab *l = find_lab(r, ids[i]);
            if (l && l->graded)
                csv_number(f, &first, l->score);
            else
                csv_string(f, &first, "");
        }
        for (int i = 0; i < nids; i++) {
            const struct score_lab *l = find_lab(r, ids[i]);
            csv_string(f, &first, l ? status_name(l->status) : "");
        }
        csv_string(f, &first, r->refused ? r->refused : "");
        fputc('\n', f);
    }
    if (fclose(f)) {
        free(text);
        text = NULL;
    }
done:
    free(v);
    free(ids);
    return text;
}

/* ---- summary.txt ------------------------------------------------------------ */

/* s padded with spaces to n characters (codepoints), left or right. */
static void pad(struct jsonw *w, const char *s, int n, int right)
{
    int len = 0;
    for (const char *p = s; *p; p++)
        len += ((unsigned char)*p & 0xc0) != 0x80;
    if (right)
        for (int i = len; i < n; i++)
            put(w, " ");
    put(w, s);
    if (!right)
        for (int i = len; i < n; i++)
            put(w, " ");
}

/* After a lab's letter: judged on the CPU only. */
#define PROVISIONAL_MARK '*'

/* A lab's letter: its status's, a pass that missed its target in lower
 * case (a lab judged on the CPU only gets PROVISIONAL_MARK after it). */
static char letter(const struct score_lab *l)
{
    char c = status_letter(l->status);
    if (l->status == STATUS_PASS && !l->target_met && c >= 'A' && c <= 'Z')
        c = (char)(c - 'A' + 'a');
    return c;
}

/* The legend, from status.h's table: each letter once, with the meanings
 * of every status that shows it, the lower-case pass, and the mark of a
 * lab judged on the CPU only. */
static void legend(struct jsonw *w)
{
    char seen[STATUS_COUNT];
    int nseen = 0;
    for (int s = 0; s < STATUS_COUNT; s++) {
        char c = status_letter((enum status)s);
        if (memchr(seen, c, (size_t)nseen))
            continue;
        seen[nseen++] = c;
        put(w, s ? "\n" : "");
        char buf[4] = {c, ' ', '\0', '\0'};
        put(w, buf);
        int k = 0;
        for (int t = s; t < STATUS_COUNT; t++)
            if (status_letter((enum status)t) == c) {
                put(w, k++ ? "; or " : "");
                put(w, status_meaning((enum status)t));
            }
        if (s == STATUS_PASS) {
            put(w, ", target ");
            put(w, result_target_verdict(1));
            put(w, "\n");
            char lower[3] = {(char)(c - 'A' + 'a'), ' ', '\0'};
            put(w, lower);
            put(w, status_meaning(STATUS_PASS));
            put(w, ", target ");
            put(w, result_target_verdict(0));
        }
    }
    char mark[3] = {PROVISIONAL_MARK, ' ', '\0'};
    put(w, "\n");
    put(w, mark);
    put(w, "after a letter: judged on the CPU (the PTX emulator) without a GPU, provisional until graded "
           "on a GPU\n");
}

char *report_summary(const struct score_report *reps, int n)
{
    struct jsonw w;
    char buf[40], buf2[40];
    const struct score_report **v = sorted(reps, n);
    if (!v)
        return NULL;
    jsonw_init(&w, 0);
    pad(&w, "student", 24, 0);
    pad(&w, "score", 8, 1);
    pad(&w, "of", 8, 1);
    put(&w, "  labs ");
    for (int i = 0; n && i < v[0]->nlabs; i++) {
        put(&w, i ? " " : "");
        put(&w, v[0]->labs[i].lab);
    }
    put(&w, "\n");
    int not_graded = 0;
    double sum = 0;
    for (int s = 0; s < n; s++) {
        const struct score_report *r = v[s];
        /* The table is pasted into spreadsheets too: a student cell is
         * guarded as grades.csv guards one (csv_is_formula). */
        char *name = util_format("%s%s", csv_is_formula(r->student) ? "'" : "", r->student);
        pad(&w, name ? name : r->student, 24, 0);
        free(name);
        pad(&w, num(buf, r->score), 8, 1);
        pad(&w, num(buf2, r->graded_max_score), 8, 1);
        put(&w, "       ");
        for (int i = 0; i < r->nlabs; i++) {
            char cell[3] = {letter(&r->labs[i]), r->labs[i].provisional ? PROVISIONAL_MARK : ' ', '\0'};
            put(&w, i ? " " : "");
            put(&w, cell);
        }
        if (r->labs_not_graded > 0) {
            char *note = util_format(" (%d not graded)", r->labs_not_graded);
            put(&w, note ? note : "");
            free(note);
        }
        put(&w, "\n");
        not_graded += r->labs_not_graded > 0;
        sum += r->score;
    }
    put(&w, "\n");
    legend(&w);
    char *tail = util_format("%d students; mean %s of %s", n, num(buf, n ? round(sum / n * 100) / 100 : NAN),
                             num(buf2, n ? v[0]->max_score : NAN));
    put(&w, tail ? tail : "");
    free(tail);
    if (not_graded > 0) {
        char *ng = util_format("; %d with labs not graded", not_graded);
        put(&w, ng ? ng : "");
        free(ng);
    }
    free(v);
    return jsonw_take(&w);
}
