/* test_standing.c — the progress page and the words it shares with
 * `cudatutor progress`: the count of core and bonus labs passed, the best
 * result of a timed pass, every lab's row, the first pass's date only where
 * the width allows, and every line within the width. */
#include <stdio.h>
#include <stdlib.h>

#include "model/progress.h"
#include "sys/util.h"
#include "tap.h"
#include "view/standing.h"

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

static struct lab some_labs[] = {{.id = "01", .title = "Interleaved addressing"},
                            {.id = "02", .title = "Strided index"},
                            {.id = "11", .title = "Argmax", .bonus = 1}};
static struct catalog cat = {.labs = some_labs, .nlabs = 3};

/* Progress with lab 01 passed on a timed run, after 3 checks and a hint. */
static int passed_01(struct progress *p)
{
    char err[256];
    char *text = util_read_file("tests/fixtures/pass.json", NULL);
    struct result r;
    progress_init(p);
    if (!text || result_parse(text, &r, err, sizeof err)) {
        printf("#   cannot use tests/fixtures/pass.json\n");
        free(text);
        return -1;
    }
    free(text);
    progress_record_check(p, NULL, &r, "2026-03-04T05:06:07Z");
    progress_record_check(p, NULL, &r, "2026-03-05T05:06:07Z");
    progress_record_check(p, NULL, &r, "2026-03-06T05:06:07Z");
    progress_record_hint(p, "01", 1);
    result_free(&r);
    return 0;
}

static void the_summary_counts_core_and_bonus_apart(void)
{
    struct progress p;
    char buf[256];
    if (passed_01(&p))
        return;
    standing_summary(&cat, &p, 0, "P", buf, sizeof buf);
    EXPECT_STR(buf, "P: 1 of 2 labs passed; bonus: 0 of 1");
    cat.nlabs = 2;
    standing_summary(&cat, &p, 0, "P", buf, sizeof buf);
    EXPECT_STR(buf, "P: 1 of 2 labs passed");
    cat.nlabs = 3;
    progress_free(&p);
}

static void the_best_is_in_words(void)
{
    struct progress p;
    char buf[64], want[64];
    standing_best(NULL, buf, sizeof buf);
    EXPECT_STR(buf, "-");
    if (passed_01(&p))
        return;
    const struct progress_lab *pl = progress_find(&p, "01");
    snprintf(want, sizeof want, "%.0f GB/s, %.2fx ref", pl->best.gbps, pl->best.ratio);
    standing_best(pl, buf, sizeof buf);
    EXPECT_STR(buf, want);
    progress_free(&p);
}

static void the_page_has_every_lab_within_the_width(void)
{
    struct progress p;
    if (passed_01(&p))
        return;
    const int widths[] = {78, 98};
    for (int k = 0; k < 2; k++) {
        struct doc d;
        doc_init(&d);
        standing_page(&d, &cat, &p, 0, "/w/progress.json", widths[k]);
        for (int i = 0; i < d.nlines; i++)
            if (doc_width(d.lines[i].text, d.lines[i].len) > widths[k]) {
                printf("#   %d columns: line %d is wider: %s\n", widths[k], i, d.lines[i].text);
                tap_failed_ = 1;
            }
        char *s = flat(&d), best[64];
        standing_best(progress_find(&p, "01"), best, sizeof best);
        EXPECT(s && has(s, "/w/progress.json: 1 of 2 labs passed; bonus: 0 of 1"));
        EXPECT(s && has(s, best) && has(s, "pass"));
        EXPECT(s && has(s, "Hints used: 1 in all"));
        for (int i = 0; s && i < cat.nlabs; i++) {
            char row[16];
            snprintf(row, sizeof row, "\n  %s  ", some_labs[i].id);
            EXPECT(has(s, row));
        }
        /* The date of the first pass waits for a wide page. */
        EXPECT(s && (widths[k] < 90) == !strstr(s, "2026-03-04"));
        free(s);
        doc_free(&d);
    }
    progress_free(&p);
}

/* What a check changed, in the one sentence the command and the tutor
 * print: the pass, then the labs opened, neighbours in the catalog of one
 * kind as a run. */
static void a_change_is_worded_once(void)
{
    struct lab labs[6] = {{.id = "08"}, {.id = "09"}, {.id = "10"},
                          {.id = "11", .bonus = 1}, {.id = "12", .bonus = 1}, {.id = "13", .bonus = 1}};
    struct catalog six = {.labs = labs, .nlabs = 6};
    char buf[256];
    struct progress_change c = {.lab = 0, .was = LAB_OPEN, .now = LAB_PASSED, .nopened = 1, .opened = {1}};
    standing_change(&six, &c, buf, sizeof buf);
    EXPECT_STR(buf, "Lab 08 passed.  Lab 09 is open.");
    c = (struct progress_change){.lab = 0, .was = LAB_OPEN, .now = LAB_ON_TARGET, .nopened = 4,
                                 .opened = {1, 3, 4, 5}};
    standing_change(&six, &c, buf, sizeof buf);
    EXPECT_STR(buf, "Lab 08 passed and on target.  Labs 09 and 11 to 13 (bonus) are open.");
    c = (struct progress_change){.lab = 1, .was = LAB_PASSED, .now = LAB_ON_TARGET};
    standing_change(&six, &c, buf, sizeof buf);
    EXPECT_STR(buf, "Lab 09 passed and on target.");
    c = (struct progress_change){.lab = 1, .was = LAB_ON_TARGET, .now = LAB_ON_TARGET};
    standing_change(&six, &c, buf, sizeof buf);
    EXPECT_STR(buf, "");
    c = (struct progress_change){.lab = 0, .was = LAB_OPEN, .now = LAB_OPEN};
    standing_change(&six, &c, buf, sizeof buf);
    EXPECT_STR(buf, "");
    c = (struct progress_change){.lab = 0, .was = LAB_OPEN, .now = LAB_PASSED, .nopened = 4, .opened = {1, 3, 4, 5}};
    standing_change(&six, &c, buf, 20);
    EXPECT_STR(buf, "Lab 08 passed.  Lab");
}

TAP_MAIN(T(the_summary_counts_core_and_bonus_apart), T(the_best_is_in_words),
         T(the_page_has_every_lab_within_the_width), T(a_change_is_worded_once))
