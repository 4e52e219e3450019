/* score.c — see score.h.  Every figure is one fixed sequence of double
 * operations (so the same inputs give the same doubles, and the golden
 * reports of tests/grade/golden/ hold byte for byte); a status's words
 * come from status.h only (status_meaning), and a lab that is not graded says so in the
 * rubric's words ("not graded: ...") instead of a second wording of its
 * status. */
#include "model/score.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/jsonw.h"

/* ---- small strings -------------------------------------------------------- */

/* A growing string: jsonw's buffer, written raw (plain text, as the
 * XML and CSV writers do); its oom is set once any allocation failed. */
struct sb {
    struct jsonw w;
};

static void sb_add(struct sb *b, const char *s, size_t n) { jsonw_raw(&b->w, s, n); }
static void sb_put(struct sb *b, const char *s) { sb_add(b, s, strlen(s)); }

static void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    char small[512];
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->w.oom = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        sb_add(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->w.oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_add(b, big, (size_t)n);
    free(big);
}

/* A number in text, in jsonw_number's form (the reports' one rule). */
static void sb_num(struct sb *b, double x)
{
    char buf[40];
    jsonw_number(buf, sizeof buf, x);
    sb_put(b, buf);
}

/* The text built, or NULL (out of memory); b is spent.  jsonw_take ends
 * a report with a newline, which a line of text here does not have. */
static char *sb_take(struct sb *b)
{
    char *s = jsonw_take(&b->w);
    if (s)
        s[strlen(s) - 1] = '\0';
    return s;
}

/* strdup that keeps NULL; *oom set when the copy failed. */
static char *dup_or_null(const char *s, int *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

/* ---- clean ------------------------------------------------------------------ */

static int is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
static int ends_prefix(unsigned char c) { return is_space(c) || c == ':' || c == '"'; }

/* The end of "/work/X/wb/" at s[j] (X: one or more characters, neither '/'
 * nor space), or 0 when none starts there. */
static size_t work_path_end(const char *s, size_t n, size_t j)
{
    if (n - j < 6 || memcmp(s + j, "/work/", 6))
        return 0;
    size_t k = j + 6;
    while (k < n && s[k] != '/' && !is_space((unsigned char)s[k]))
        k++;
    if (k == j + 6 || n - k < 4 || memcmp(s + k, "/wb/", 4))
        return 0;
    return k + 4;
}

/* The grader's work paths cleaned out of a text: [^[:space:]:"]* then
 * /work/, one folder and /wb/, replaced by nothing: from where the scan stands, the earliest match starts
 * at the beginning of the first run of prefix characters (neither space
 * nor ':' nor '"') that holds a "/work/X/wb/", and, the prefix being
 * greedy, ends after the last one that starts in that run. */
char *score_clean(const char *s)
{
    struct sb b = {0};
    if (!s)
        return NULL;
    size_t n = strlen(s), pos = 0;
    while (pos < n) {
        size_t run = pos, end = 0;
        /* The runs of prefix characters from pos, one at a time. */
        while (run < n) {
            size_t e = run;
            while (e < n && !ends_prefix((unsigned char)s[e]))
                e++;
            for (size_t j = run; j < e; j++) {
                size_t m = s[j] == '/' ? work_path_end(s, n, j) : 0;
                if (m)
                    end = m;        /* the last "/work/" start in the run wins */
            }
            if (end)
                break;
            run = e + 1;
        }
        if (!end) {
            sb_add(&b, s + pos, n - pos);
            break;
        }
        sb_add(&b, s + pos, run - pos);
        pos = end;
    }
    return sb_take(&b);
}

double score_r2(double x)
{
    return round(x * 100) / 100;
}

/* ---- JSON ------------------------------------------------------------------ */

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

/* A string member, or NULL (absent, null or not a string). */
static const char *sget(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void intake_lab_free(struct score_intake_lab *l)
{
    free(l->lab);
    free(l->state);
    free(l->from);
    free(l->why);
}

/* A report's intake of one lab (report.json's labs[].intake) into l. */
static int intake_lab_parse(struct score_intake_lab *l, const char *id, const cJSON *v, char *err, size_t errlen)
{
    const char *state = sget(v, "state");
    int oom = 0, st = state ? status_from_name(state) : -1;
    const cJSON *bytes = get(v, "bytes");
    memset(l, 0, sizeof *l);
    if (!cJSON_IsObject(v) || !state ||
        (strcmp(state, "ok") && st != STATUS_MISSING && st != STATUS_UNCHANGED && st != STATUS_REFUSED)) {
        snprintf(err, errlen, "labs.%s.state: \"ok\", \"%s\", \"%s\" or \"%s\", not \"%s\"", id,
                 status_name(STATUS_MISSING), status_name(STATUS_UNCHANGED), status_name(STATUS_REFUSED),
                 state ? state : "");
        return -1;
    }
    l->lab = dup_or_null(id, &oom);
    l->state = dup_or_null(state, &oom);
    l->from = dup_or_null(sget(v, "from"), &oom);
    l->bytes = cJSON_IsNumber(bytes) ? bytes->valuedouble : 0;
    l->why = dup_or_null(sget(v, "why"), &oom);
    if (oom) {
        intake_lab_free(l);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* ---- one lab ------------------------------------------------------------ */

/* What the performance points came from. */
struct perf_credit {
    double credit;
    char *why;                  /* NULL: null */
};

/* One case of a target as the grader words and scores it: the first case
 * (the target's own) or one of target.also. */
struct tcase {
    const char *label;
    double min;
    double value;               /* < 0: not timed (null) */
};

static struct tcase target_case(const struct result *rep, int k)
{
    if (k < 0)
        return (struct tcase){rep->target_case ? rep->target_case : "", rep->target_min,
                              rep->target_have_value ? rep->target_value : -1};
    return (struct tcase){rep->target_also[k].case_label, rep->target_also[k].min, rep->target_also[k].value};
}

/* " (lowered for this GPU from the catalog's X)" when the target names the
 * catalog's threshold. */
static void calibrated(struct sb *b, const struct result *rep)
{
    if (rep->target_catalog_min == 0)
        return;
    sb_put(b, " (lowered for this GPU from the catalog's ");
    sb_num(b, rep->target_catalog_min);
    sb_put(b, ")");
}

/* "METRIC VALUE at CASE: target MIN" for one case of a target. */
static void case_words(struct sb *b, const struct result *rep, struct tcase c)
{
    sb_put(b, rep->target_metric ? rep->target_metric : "null");
    sb_put(b, " ");
    if (c.value >= 0)
        sb_num(b, score_r2(c.value));
    else
        sb_put(b, "null");
    sb_put(b, " at ");
    sb_put(b, c.label);
    sb_put(b, ": target ");
    sb_num(b, c.min);
}

/* A target of several cases (its "also"): every case named; met, all the
 * credit; else the linear share of the case furthest short; a case not
 * timed, none.  Returns the credit, the words in b. */
static double cases_credit(struct sb *b, const struct result *rep, double f)
{
    double least = 1;
    int untimed = 0;

    for (int k = -1; k < rep->ntarget_also; k++) {
        struct tcase c = target_case(rep, k);
        if (c.value < 0 || c.min <= 0) {
            untimed = 1;
            continue;
        }
        double share = f < 1 ? (c.value / c.min - f) / (1 - f) : 0;
        share = share < 0 ? 0 : share > 1 ? 1 : share;
        least = share < least ? share : least;
    }
    if (untimed) {
        sb_put(b, "not timed");
        return 0;
    }
    for (int k = -1; k < rep->ntarget_also; k++) {
        if (k >= 0)
            sb_put(b, "; ");
        case_words(b, rep, target_case(rep, k));
    }
    calibrated(b, rep);
    if (rep->target_met) {
        sb_put(b, " ");
        sb_put(b, result_target_verdict(1));
        return 1;
    }
    sb_put(b, " ");
    sb_put(b, result_target_verdict(0));
    sb_put(b, " (credit from ");
    sb_num(b, f);
    sb_put(b, " x the target, on the case furthest short)");
    return f >= 1 ? 0 : least;
}

/* The performance rule: no target, not timed; an
 * implausible timing of the target's case, nothing; the target met, all;
 * else a linear share from partial_from x the target (none) to the target
 * (all).  -1 when out of memory. */
static int perf_credit(const struct result *rep, const struct rubric *rb, struct perf_credit *pc)
{
    struct sb b = {0};
    struct tcase first = target_case(rep, -1);
    double f = rb->partial_from;
    int implausible = 0;

    pc->credit = 0;
    for (int i = 0; rep->have_target && i < rep->nperf; i++) {
        int ours = !strcmp(rep->perf[i].label, first.label);
        for (int k = 0; k < rep->ntarget_also; k++)
            ours |= !strcmp(rep->perf[i].label, rep->target_also[k].case_label);
        if (rep->perf[i].implausible && ours)
            implausible = 1;
    }
    if (!rep->have_target) {
        sb_put(&b, "not timed");
    } else if (implausible) {
        sb_put(&b, "the timing was implausible (faster than the measured peak)");
    } else if (rep->ntarget_also > 0) {
        pc->credit = cases_credit(&b, rep, f);
    } else if (rep->target_met) {
        pc->credit = 1;
        case_words(&b, rep, first);
        calibrated(&b, rep);
        sb_put(&b, " ");
        sb_put(&b, result_target_verdict(1));
    } else if (first.value < 0 || first.min <= 0) {
        sb_put(&b, "not timed");
    } else {
        double c = 0;
        if (f < 1) {
            c = (first.value / first.min - f) / (1 - f);
            c = c < 0 ? 0 : c > 1 ? 1 : c;
        }
        pc->credit = c;
        case_words(&b, rep, first);
        calibrated(&b, rep);
        sb_put(&b, " ");
        sb_put(&b, result_target_verdict(0));
        sb_put(&b, " (credit from ");
        sb_num(&b, f);
        sb_put(&b, " x the target)");
    }
    pc->why = sb_take(&b);
    return pc->why ? 0 : -1;
}

/* The lines a student reads about one lab, joined with
 * newlines, before the paths are cleaned. */
static char *lab_text(const struct score_lab *e, const struct result *rep)
{
    struct sb b = {0};
    const char *summary = rep && rep->summary && rep->summary[0] ? rep->summary : NULL;
    const char *meaning = status_meaning(e->status);
    /* The verdict is said once, in the words of the lab's summary: the
     * check's, else the intake's sentence (it names the file or the
     * reason), else status.h's.  The intake's sentence follows a check's
     * summary only when it adds to it. */
    const char *head = summary ? summary : e->intake.why ? e->intake.why : meaning;
    int n = 0;
#define LINE() (n++ ? sb_put(&b, "\n") : (void)0)

    LINE();
    if (!e->graded)
        sb_printf(&b, "not graded: %s", head);
    else
        sb_put(&b, head);
    if (e->intake.why && strcmp(e->intake.why, head) && strcmp(e->intake.why, meaning)) {
        LINE();
        sb_put(&b, e->intake.why);
    }
    if (e->provisional) {
        LINE();
        sb_put(&b, "provisional: judged on the CPU (the PTX emulator) without a GPU; a grading on a GPU "
                   "is final");
    }
    if (e->graded) {
        LINE();
        sb_put(&b, "score ");
        sb_num(&b, e->score);
        sb_put(&b, " of ");
        sb_num(&b, e->max_score);
        sb_put(&b, ": correctness ");
        sb_num(&b, e->correctness);
        sb_put(&b, " of ");
        sb_num(&b, e->correctness_max);
        sb_put(&b, ", performance ");
        sb_num(&b, e->performance);
        sb_put(&b, " of ");
        sb_num(&b, e->performance_max);
        if (e->performance_why)
            sb_printf(&b, " (%s)", e->performance_why);
    }
    for (int i = 0; rep && i < rep->ndiags && i < 5; i++) {
        LINE();
        sb_printf(&b, "%s:%d: %s: %s", rep->diags[i].file, rep->diags[i].line, rep->diags[i].severity,
                  rep->diags[i].message);
    }
    for (int i = 0; rep && i < rep->nviol && i < 5; i++) {
        LINE();
        sb_printf(&b, "%s %s: %s", result_violation_verb(rep, i), rep->viol_symbols[i], rep->viol_rules[i]);
    }
    if (e->status == STATUS_PASS || e->status == STATUS_FAIL)
        for (int i = 0; rep && i < rep->ntech; i++)
            if (!rep->tech[i].found) {
                LINE();
                sb_printf(&b, "technique missing: %s: %s", rep->tech[i].name, rep->tech[i].why);
            }
    for (int i = 0; rep && i < rep->nsan; i++) {
        if (rep->san[i].clean)
            continue;
        /* The tool, then the first six lines of its report that are not empty. */
        LINE();
        sb_printf(&b, "%s:\n", rep->san[i].tool);
        const char *p = rep->san[i].report;
        int kept = 0;
        while (*p && kept < 6) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            if (len) {
                if (kept++)
                    sb_put(&b, "\n");
                sb_add(&b, p, len);
            }
            p += len + (nl != NULL);
        }
    }
    for (int i = 0; rep && i < rep->ntests; i++) {
        const struct rtest *t = &rep->tests[i];
        if (t->pass)
            continue;
        LINE();
        sb_printf(&b, "%s: expected %s, got %s", t->name, t->have_expected ? t->expected : "?",
                  t->have_got ? t->got : "?");
        if (t->have_message)
            sb_printf(&b, ": %s", t->message);
        break;
    }
#undef LINE
    return sb_take(&b);
}

static void lab_free(struct score_lab *l)
{
    free(l->lab);
    free(l->title);
    free(l->performance_why);
    free(l->target_json);
    free(l->summary);
    intake_lab_free(&l->intake);
    free(l->text);
}

/* One lab's entry of report.json.  -1: out of memory. */
static int score_lab(struct score_lab *e, const struct score_intake_lab *in, const struct result *rep,
                     const struct rubric_points *p, const struct rubric *rb, const struct catalog *cat)
{
    const struct lab *cl = cat ? catalog_find(cat, in->lab) : NULL;
    struct perf_credit pc = {0, NULL};
    int oom = 0;
    double corr = 0, perf = 0;

    memset(e, 0, sizeof *e);
    if (strcmp(in->state, "ok"))
        e->status = (enum status)status_from_name(in->state);
    else
        e->status = rep ? rep->status : STATUS_INTERNAL_ERROR;
    /* The CPU tier's verdicts are graded, its "needs a GPU" too (as not
     * passed, the reason in the summary): a kernel that makes the emulator
     * refuse it cannot take its lab out of graded_max_score.  Only a lab
     * no judge could run (no GPU, no CPU judge) is the rubric's not_graded. */
    e->provisional = rep && rep->emulated;
    e->graded = !rb->not_graded[e->status] || (e->provisional && e->status == STATUS_NO_GPU);
    e->correctness_max = p->correctness;
    e->performance_max = p->performance;
    e->max_score = p->correctness + p->performance;
    for (int i = 0; rep && i < rep->ntests; i++)
        if (!strncmp(rep->tests[i].name, "n=", 2)) {
            e->tests_total++;
            e->tests_passed += rep->tests[i].pass;
        }
    if (e->status == STATUS_PASS && perf_credit(rep, rb, &pc))
        return -1;
    if (e->graded) {
        if (e->status == STATUS_PASS)
            corr = p->correctness;
        else if (e->status == STATUS_FAIL)
            corr = rb->fail_credit * p->correctness *
                   (e->tests_total > 0 ? (double)e->tests_passed / e->tests_total : 1);
        perf = e->status == STATUS_PASS ? p->performance * pc.credit : 0;
        e->score = score_r2(corr + perf);
        e->correctness = score_r2(corr);
        e->performance = score_r2(perf);
    }
    e->performance_why = pc.why;
    e->lab = dup_or_null(in->lab, &oom);
    e->title = dup_or_null(cl ? cl->title : in->lab, &oom);
    if (rep && rep->have_target && !(e->target_json = result_target_json(rep)))
        oom = 1;
    e->target_met = rep && rep->have_target && rep->target_met;
    e->have_seed = rep && rep->have_seed;
    e->seed = rep ? (double)rep->seed : 0;
    e->have_seconds = rep && rep->have_total_s;
    e->seconds = rep ? rep->total_s : 0;
    if (rep && rep->summary && rep->summary[0])
        e->summary = score_clean(rep->summary);
    else
        e->summary = strdup(in->why ? in->why : status_meaning(e->status));
    oom |= !e->summary;
    e->intake.lab = dup_or_null(in->lab, &oom);
    e->intake.state = dup_or_null(in->state, &oom);
    e->intake.from = dup_or_null(in->from, &oom);
    e->intake.bytes = in->bytes;
    e->intake.why = dup_or_null(in->why, &oom);
    if (!oom) {
        char *raw = lab_text(e, rep);
        e->text = raw ? score_clean(raw) : NULL;
        free(raw);
        oom = !e->text;
    }
    if (oom) {
        lab_free(e);
        return -1;
    }
    return 0;
}

/* ---- one student -------------------------------------------------------- */

int score_student(struct score_report *out, const char *student, const struct score_intake *in,
                  const struct result *const *reports, const struct rubric *rb, const struct catalog *cat,
                  const char *sandbox, const char *graded_at, char *err, size_t errlen)
{
    int oom = 0, nrej = 0;
    double sum = 0;

    memset(out, 0, sizeof *out);
    out->labs = calloc((size_t)in->nlabs + 1, sizeof *out->labs);
    if (!out->labs)
        goto oom;
    for (int i = 0; i < in->nlabs; i++) {
        const struct rubric_points *p = rubric_points(rb, in->labs[i].lab);
        if (!p) {
            snprintf(err, errlen, "the rubric has no points for lab %s (and no default)", in->labs[i].lab);
            score_report_free(out);
            return -1;
        }
        if (score_lab(&out->labs[i], &in->labs[i], reports ? reports[i] : NULL, p, rb, cat))
            goto oom;
        out->nlabs++;
    }
    for (int i = 0; i < out->nlabs; i++) {
        const struct score_lab *l = &out->labs[i];
        nrej += l->status == STATUS_REJECTED;
        out->max_score += l->max_score;
        if (l->graded) {
            sum += l->score;
            out->graded_max_score += l->max_score;
        } else {
            out->labs_not_graded++;
        }
        out->labs_provisional += l->provisional;
    }
    double total = sum - nrej * rb->rejected_penalty;
    out->score = score_r2(total > 0 ? total : 0);
    out->complete = out->labs_not_graded == 0;
    out->student = dup_or_null(student, &oom);
    out->submission = dup_or_null(in->submission, &oom);
    out->refused = dup_or_null(in->refused, &oom);
    out->rubric_sha256 = dup_or_null(rb->sha256, &oom);
    out->sandbox = dup_or_null(sandbox, &oom);
    out->graded_at = dup_or_null(graded_at, &oom);
    if (oom)
        goto oom;
    return 0;
oom:
    score_report_free(out);
    snprintf(err, errlen, "out of memory");
    return -1;
}

void score_report_free(struct score_report *r)
{
    for (int i = 0; r->labs && i < r->nlabs; i++)
        lab_free(&r->labs[i]);
    free(r->labs);
    free(r->student);
    free(r->submission);
    free(r->refused);
    free(r->rubric_sha256);
    free(r->sandbox);
    free(r->graded_at);
    memset(r, 0, sizeof *r);
}

/* ---- report.json read back ------------------------------------------------ */

static double nget(const cJSON *o, const char *key, int *have)
{
    const cJSON *v = get(o, key);
    if (have)
        *have = cJSON_IsNumber(v);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int read_lab(struct score_lab *l, const cJSON *v, char *err, size_t errlen)
{
    const char *status = sget(v, "status"), *lab = sget(v, "lab");
    const cJSON *corr = get(v, "correctness"), *perf = get(v, "performance"), *t = get(v, "target");
    const cJSON *tests = get(v, "tests");
    int oom = 0, st = status ? status_from_name(status) : -1;

    memset(l, 0, sizeof *l);
    if (!lab || st < 0) {
        snprintf(err, errlen, "a lab without a lab id or a known status (\"%s\")", status ? status : "");
        return -1;
    }
    l->status = (enum status)st;
    l->graded = cJSON_IsTrue(get(v, "graded"));
    l->provisional = cJSON_IsTrue(get(v, "provisional"));
    l->score = nget(v, "score", NULL);
    l->max_score = nget(v, "max_score", NULL);
    l->correctness = nget(corr, "score", NULL);
    l->correctness_max = nget(corr, "max", NULL);
    l->performance = nget(perf, "score", NULL);
    l->performance_max = nget(perf, "max", NULL);
    l->performance_why = dup_or_null(sget(perf, "why"), &oom);
    if (cJSON_IsObject(t)) {
        if (!(l->target_json = cJSON_PrintUnformatted(t)))
            oom = 1;
        else {
            /* cJSON's allocator and ours are both malloc; keep free() working. */
            char *copy = dup_or_null(l->target_json, &oom);
            cJSON_free(l->target_json);
            l->target_json = copy;
        }
        l->target_met = cJSON_IsTrue(get(t, "met"));
    }
    l->tests_passed = (int)nget(tests, "passed", NULL);
    l->tests_total = (int)nget(tests, "total", NULL);
    l->seed = nget(v, "seed", &l->have_seed);
    l->seconds = nget(v, "seconds", &l->have_seconds);
    l->lab = dup_or_null(lab, &oom);
    l->title = dup_or_null(sget(v, "title") ? sget(v, "title") : lab, &oom);
    l->summary = dup_or_null(sget(v, "summary") ? sget(v, "summary") : "", &oom);
    l->text = dup_or_null(sget(v, "text") ? sget(v, "text") : "", &oom);
    if (!oom && cJSON_IsObject(get(v, "intake"))) {
        if (intake_lab_parse(&l->intake, lab, get(v, "intake"), err, errlen)) {
            lab_free(l);
            return -1;
        }
    } else if (!oom) {
        l->intake.lab = dup_or_null(lab, &oom);
        l->intake.state = dup_or_null("ok", &oom);
    }
    if (oom) {
        lab_free(l);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int score_report_parse(struct score_report *r, const char *json, char *err, size_t errlen)
{
    cJSON *root = cJSON_Parse(json);
    const cJSON *labs = get(root, "labs"), *grader = get(root, "grader"), *v;
    int oom = 0, rc = -1;
    char why[200];

    memset(r, 0, sizeof *r);
    if (!cJSON_IsObject(root) || !cJSON_IsArray(labs) || !sget(root, "student")) {
        snprintf(err, errlen, "not a student report (an object with student and labs)");
        goto done;
    }
    r->labs = calloc((size_t)cJSON_GetArraySize(labs) + 1, sizeof *r->labs);
    if (!r->labs)
        goto oom;
    cJSON_ArrayForEach(v, labs) {
        if (read_lab(&r->labs[r->nlabs], v, why, sizeof why)) {
            snprintf(err, errlen, "labs[%d]: %s", r->nlabs, why);
            goto done;
        }
        r->nlabs++;
    }
    r->score = nget(root, "score", NULL);
    r->max_score = nget(root, "max_score", NULL);
    r->graded_max_score = nget(root, "graded_max_score", NULL);
    r->labs_not_graded = (int)nget(root, "labs_not_graded", NULL);
    r->labs_provisional = (int)nget(root, "labs_provisional", NULL);
    r->complete = cJSON_IsTrue(get(root, "complete"));
    r->student = dup_or_null(sget(root, "student"), &oom);
    r->submission = dup_or_null(sget(root, "submission"), &oom);
    r->refused = dup_or_null(sget(root, "refused"), &oom);
    r->rubric_sha256 = dup_or_null(sget(grader, "rubric_sha256"), &oom);
    r->sandbox = dup_or_null(sget(grader, "sandbox"), &oom);
    r->graded_at = dup_or_null(sget(grader, "graded_at"), &oom);
    if (oom)
        goto oom;
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
done:
    cJSON_Delete(root);
    if (rc)
        score_report_free(r);
    return rc;
}

int score_exit_status(const struct score_report *reps, int n)
{
    int code = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < reps[i].nlabs; j++) {
            if (reps[i].labs[j].graded && reps[i].labs[j].status == STATUS_NO_GPU)
                continue;
            int c = status_exit_code(reps[i].labs[j].status);
            if (c > 1 && c > code)
                code = c;
        }
    return code;
}
