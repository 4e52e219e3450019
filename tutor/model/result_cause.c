/* result_cause.c — see result.h: why a fail failed, read from the report's
 * own fields, and the headline and summary that name it in status.h's
 * words (FAIL_CAUSE_TABLE), so that the tutor, the command line and the
 * grader lead with the same line; what a summary says beyond its
 * headline. */
#include "model/result.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/catalog.h"
#include "sys/util.h"

static const char *const headlines[] = {
#define FAIL_CAUSE_HEADLINE_(e, headline, drawn) headline,
    FAIL_CAUSE_TABLE(FAIL_CAUSE_HEADLINE_)
#undef FAIL_CAUSE_HEADLINE_
};

static const int drawn[] = {
#define FAIL_CAUSE_DRAWN_(e, headline, d) d,
    FAIL_CAUSE_TABLE(FAIL_CAUSE_DRAWN_)
#undef FAIL_CAUSE_DRAWN_
};

/* The emulator's counters whose events the picture of a trace marks: a
 * branch that splits a warp, a shared request's passes (bank conflicts),
 * a barrier (view/trace.h). */
static const char *const pictured[] = {"divergent_branches", "shared_load_wavefronts", "shared_store_wavefronts",
                                       "barriers"};

/* The emulator opens the sentence of a race with these words, then the
 * place, then ": " (tutor/emu/emu_shadow.c). */
#define RACE_OPENS "race on "
/* The emulator's sentence for an undefined value reaching what the
 * kernel's result depends on holds these words (tutor/emu/emu_undef.c). */
#define UNDEFINED_SAYS "a value that is undefined"
/* The judge opens a timed test it refuses as too fast with these. */
#define IMPLAUSIBLE_OPENS "implausible: "
/* The one race checker whose findings are races (on shared memory). */
#define RACE_TOOL "racecheck"


/* n as a student reads it: "2^20" for a power of two from 1024 up, else
 * the number. */
static void size_words(char *buf, size_t len, unsigned long long n)
{
    int k = 0;
    while (k < 63 && (1ull << k) < n)
        k++;
    if (n >= 1024 && (1ull << k) == n)
        snprintf(buf, len, "2^%d", k);
    else
        snprintf(buf, len, "%llu", n);
}

/* The first test that failed, in the report's order (smallest size first),
 * or NULL. */
static const struct rtest *first_failing(const struct result *r)
{
    for (int i = 0; i < r->ntests; i++)
        if (!r->tests[i].pass)
            return &r->tests[i];
    return NULL;
}

/* Whether text is one of the report's messages: the emulator's sentence
 * for what stopped a kernel is both the failing test's message and the
 * note of the CUDA call it failed. */
static int among_messages(const struct result *r, const char *text)
{
    for (int i = 0; text[0] && i < r->nmsgs; i++)
        if (!strcmp(r->messages[i], text))
            return 1;
    return 0;
}

/* The first race checker that found something, or NULL. */
static const struct rsan *dirty_tool(const struct result *r)
{
    for (int i = 0; i < r->nsan; i++)
        if (!r->san[i].clean)
            return &r->san[i];
    return NULL;
}

/* The first technique the PTX does not show, or NULL. */
static const struct rtech *missing_technique(const struct result *r)
{
    for (int i = 0; i < r->ntech; i++)
        if (!r->tech[i].found)
            return &r->tech[i];
    return NULL;
}

/* The cause a failing test shows, with what it is about. */
static enum fail_cause test_cause(const struct result *r, const struct rtest *t, char *what, size_t len)
{
    const char *m = t->message ? t->message : "";
    if (!strncmp(m, RACE_OPENS, strlen(RACE_OPENS)) && strchr(m, ':')) {
        const char *place = m + strlen(RACE_OPENS);
        snprintf(what, len, "%.*s", (int)(strchr(place, ':') - place), place);
        return FAIL_RACE;
    }
    size_words(what, len, t->n);
    if (!strncmp(m, IMPLAUSIBLE_OPENS, strlen(IMPLAUSIBLE_OPENS)))
        return FAIL_IMPLAUSIBLE;
    if (!(t->expected && t->expected[0]) && r->emulated && among_messages(r, m))
        return strstr(m, UNDEFINED_SAYS) ? FAIL_UNDEFINED : FAIL_SYNC;
    return FAIL_WRONG_RESULT;
}

enum fail_cause result_cause(const struct result *r, char *what, size_t len)
{
    const struct rtest *t = first_failing(r);
    const struct rsan *s = dirty_tool(r);
    const struct rtech *k = missing_technique(r);
    util_copy(what, len, "");
    if (r->status != STATUS_FAIL)
        return FAIL_CAUSE_NONE;
    if (t)
        return test_cause(r, t, what, len);
    if (s && !strcmp(s->tool, RACE_TOOL)) {
        snprintf(what, len, "shared memory (%s)", s->tool);
        return FAIL_RACE;
    }
    if (s) {
        util_copy(what, len, s->tool);
        return FAIL_SANITIZER;
    }
    if (k) {
        util_copy(what, len, k->name);
        return FAIL_TECHNIQUE;
    }
    return FAIL_CAUSE_NONE;
}

void result_headline(const struct result *r, char *buf, size_t len)
{
    char what[256];
    enum fail_cause c = result_cause(r, what, sizeof what);
    if (c == FAIL_CAUSE_NONE)
        util_copy(buf, len, status_meaning(r->status));
    else
        snprintf(buf, len, "%s%s", headlines[c], what);
}

/* What a failing test shows after the headline: its name where the size
 * does not say it all ("timed 2^28"), then expected and got, or its
 * sentence. */
static void test_words(const struct result *r, const struct rtest *t, enum fail_cause c, char *buf, size_t len)
{
    char plain[48];
    const char *m = t->message ? t->message : "";
    snprintf(plain, sizeof plain, "n=%llu", t->n);
    if (c == FAIL_RACE) {
        /* The place is in the headline; the threads and lines follow it. */
        const char *rest = strchr(m, ':');
        util_append(buf, len, ": at n = %llu, %s", t->n, rest && rest[1] ? rest + 2 : m);
        return;
    }
    util_append(buf, len, ": ");
    if (t->name && t->name[0] && strcmp(t->name, plain))
        util_append(buf, len, "%s: ", t->name);
    if (c == FAIL_IMPLAUSIBLE) {
        util_append(buf, len, "%s", m + strlen(IMPLAUSIBLE_OPENS));
        return;
    }
    if (t->n == r->first_failing_n && t->expected && t->expected[0])
        util_append(buf, len, "the smallest failing size; ");
    if (t->expected && t->expected[0])
        util_append(buf, len, "expected %s, got %s%s%s", t->expected, t->got ? t->got : "", m[0] ? " — " : "", m);
    else
        util_append(buf, len, "%s", m);
}

void result_fail_words(const struct result *r, char *buf, size_t len)
{
    char what[256];
    enum fail_cause c = result_cause(r, what, sizeof what);
    const struct rtest *t = first_failing(r);
    const struct rsan *s = dirty_tool(r);
    const struct rtech *k = missing_technique(r);

    result_headline(r, buf, len);
    if (c == FAIL_CAUSE_NONE) {
        if (r->nmsgs)
            util_append(buf, len, ": %s", r->messages[r->nmsgs - 1]);
        return;
    }
    if (t) {
        test_words(r, t, c, buf, len);
        return;
    }
    if (s) {
        /* The check's own sentence about the tool, else where to look. */
        for (int i = r->nmsgs - 1; i >= 0; i--)
            if (!strncmp(r->messages[i], s->tool, strlen(s->tool))) {
                util_append(buf, len, ": %s", r->messages[i]);
                return;
            }
        util_append(buf, len, ": see the race checkers' report");
        return;
    }
    util_append(buf, len, ": %s", k->why && k->why[0] ? k->why : "the lab asks for it");
    for (int i = (int)(k - r->tech) + 1, more = 0; i < r->ntech; i++)
        if (!r->tech[i].found)
            util_append(buf, len, "%s%s", more++ ? ", " : "; also missing: ", r->tech[i].name);
}

/* The rest of s after its opening head and ": "; NULL when s does not
 * open with head. */
static const char *after(const char *s, const char *head)
{
    size_t n = strlen(head);
    if (!n || strncmp(s, head, n))
        return NULL;
    if (!s[n])
        return s + n;
    return !strncmp(s + n, ": ", 2) ? s + n + 2 : NULL;
}

const char *result_detail(const struct result *r)
{
    const char *s = r->summary ? r->summary : "", *rest;
    char head[512];
    result_headline(r, head, sizeof head);
    if ((rest = after(s, head)) || (rest = after(s, status_meaning(r->status))))
        return rest;
    return s;
}

/* Whether COUNTER ("a+b" a sum) names a counter the picture marks. */
static int counter_pictured(const char *counter)
{
    for (size_t i = 0; i < sizeof pictured / sizeof pictured[0]; i++) {
        size_t n = strlen(pictured[i]);
        for (const char *p = strstr(counter, pictured[i]); p; p = strstr(p + 1, pictured[i]))
            if ((p == counter || p[-1] == '+') && (p[n] == '\0' || p[n] == '+'))
                return 1;
    }
    return 0;
}

void result_picture(const struct result *r, const struct lab *lab, char *buf, size_t len)
{
    char what[256];
    enum fail_cause c = result_cause(r, what, sizeof what);
    const struct rtech *k = missing_technique(r);
    util_copy(buf, len, "");
    if (c == FAIL_CAUSE_NONE || !drawn[c])
        return;
    /* a technique: only the lesson's, counted where the picture marks it */
    if (c == FAIL_TECHNIQUE && !(lab && lab->lesson.counter && k && !strcmp(k->name, lab->lesson.name) &&
                                 counter_pictured(lab->lesson.counter)))
        return;
    const char *file = r->file ? r->file : "", *id = r->lab ? r->lab : "";
    size_t dl = lab ? strlen(lab->dir) : 0;
    int own = lab && !strncmp(file, lab->dir, dl) && !strcmp(file + dl, "/kernel.cu");
    if (own || !file[0])
        snprintf(buf, len, "%s%s%s", FAIL_PICTURE, id, FAIL_PICTURE_KEY);
    else
        snprintf(buf, len, "%s%s %s", FAIL_PICTURE, id, file);
}
