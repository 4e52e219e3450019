/* test_lesson.c — Markdown to styled lines: headings, emphasis, code,
 * lists and fences come out styled and flowed to the width, names with
 * underscores stay names, every real lesson fits the screen, and the ASCII
 * fallback leaves no byte above 127. */
#include <glob.h>
#include <stdlib.h>

#include "view/doc.h"
#include "view/lesson.h"
#include "tap.h"
#include "sys/util.h"

/* The line whose text is exactly s, or -1. */
static int line_of(const struct doc *d, const char *s)
{
    for (int i = 0; i < d->nlines; i++)
        if (!strcmp(d->lines[i].text, s))
            return i;
    return -1;
}

/* The style of the first byte of `what` in line i. */
static int style_at(const struct doc *d, int i, const char *what)
{
    const char *p = i >= 0 ? strstr(d->lines[i].text, what) : NULL;
    return p ? d->lines[i].style[p - d->lines[i].text] : -1;
}

static void headings_lose_their_hashes(void)
{
    struct doc d;
    doc_init(&d);
    lesson_render(&d, "# Lab 01 — Title\n\n## A section ##\n\ntext\n", 60);
    int h1 = line_of(&d, "Lab 01 — Title"), h2 = line_of(&d, "A section");
    EXPECT(h1 == 0 && h2 > h1);
    EXPECT(style_at(&d, h1, "Lab") == DOC_H1);
    EXPECT(style_at(&d, h2, "A") == DOC_H2);
    EXPECT(d.lines[h2 - 1].len == 0);   /* a blank line before a section */
    doc_free(&d);
}

static void emphasis_code_and_names(void)
{
    struct doc d;
    doc_init(&d);
    lesson_render(&d, "**bold**, *em*, _also_ and `x + y` but lab_reduce_int, __syncthreads() and 2*s*t stay.", 200);
    EXPECT(d.nlines == 1);
    const char *want = "bold, em, also and x + y but lab_reduce_int, __syncthreads() and 2*s*t stay.";
    EXPECT_STR(d.lines[0].text, want);
    EXPECT(style_at(&d, 0, "bold") == DOC_STRONG);
    EXPECT(style_at(&d, 0, "em,") == DOC_EM);
    EXPECT(style_at(&d, 0, "also") == DOC_EM);
    EXPECT(style_at(&d, 0, "x + y") == DOC_CODE);
    EXPECT(style_at(&d, 0, "lab_reduce_int") == DOC_TEXT);
    EXPECT(style_at(&d, 0, "__sync") == DOC_TEXT);
    doc_free(&d);
}

static void links_keep_text_and_address(void)
{
    struct doc d;
    doc_init(&d);
    lesson_render(&d, "See [the guide](https://example.org/g) now.", 200);
    EXPECT_STR(d.lines[0].text, "See the guide (https://example.org/g) now.");
    EXPECT(style_at(&d, 0, "the guide") == DOC_LINK);
    doc_free(&d);
}

static void paragraphs_flow_to_the_width(void)
{
    struct doc d;
    doc_init(&d);
    lesson_render(&d, "one two three four five six seven eight nine ten eleven twelve\nthirteen fourteen\n", 20);
    EXPECT(d.nlines > 3);
    for (int i = 0; i < d.nlines; i++) {
        EXPECT(doc_width(d.lines[i].text, d.lines[i].len) <= 20);
        EXPECT(d.lines[i].len == 0 || d.lines[i].text[d.lines[i].len - 1] != ' ');
    }
    EXPECT(line_of(&d, "one two three four") == 0);
    doc_free(&d);
}

static void lists_hang_under_their_marker(void)
{
    struct doc d;
    doc_init(&d);
    lesson_render(&d, "Intro:\n\n- first item that is long enough to wrap around\n- second\n\n1. **Step.** one two three four five\n2. next\n", 30);
    int a = line_of(&d, "• first item that is long"), b = line_of(&d, "  enough to wrap around");
    EXPECT(a > 0 && b == a + 1);
    EXPECT(line_of(&d, "• second") == b + 1);
    int n1 = -1;
    for (int i = 0; i < d.nlines; i++)
        if (!strncmp(d.lines[i].text, "1. Step.", 8))
            n1 = i;
    EXPECT(n1 > 0 && style_at(&d, n1, "Step") == DOC_STRONG);
    EXPECT(n1 > 0 && !strncmp(d.lines[n1 + 1].text, "   ", 3));
    doc_free(&d);
}

static void fences_keep_their_lines(void)
{
    struct doc d;
    doc_init(&d);
    const char *long_line = "for (unsigned s = 1; s < blockDim.x; s *= 2) { if (tid % (2 * s) == 0) sdata[tid] += x; }";
    char *md = util_format("Text:\n\n```c\n%s\n    indented();\n```\n\nAfter.\n", long_line);
    lesson_render(&d, md, 40);
    int a = line_of(&d, long_line), b = line_of(&d, "    indented();");
    EXPECT(a > 0 && b == a + 1);
    EXPECT(style_at(&d, a, "for") == DOC_BLOCK);
    EXPECT(line_of(&d, "```c") < 0 && line_of(&d, "```") < 0);
    EXPECT(line_of(&d, "After.") == b + 2);
    free(md);
    doc_free(&d);
}

static void quotes_and_tables(void)
{
    struct doc d;
    doc_init(&d);
    lesson_render(&d, "> a quoted\n> line\n\n| a | b |\n|---|---|\n", 60);
    EXPECT(line_of(&d, "│ a quoted line") == 0);
    EXPECT(line_of(&d, "| a | b |") > 0 && style_at(&d, line_of(&d, "| a | b |"), "a") == DOC_BLOCK);
    doc_free(&d);
}

/* Every lesson of the workbook renders and fits: prose is flowed to the
 * width; only code and tables may be wider (the screen clips them). */
static void every_lesson_fits(void)
{
    glob_t g;
    int widths[] = {40, 78, 98}, checked = 0;
    if (glob("labs/*/README.md", 0, NULL, &g) != 0) {
        EXPECT(!"no lessons found");
        return;
    }
    for (size_t f = 0; f < g.gl_pathc; f++) {
        char *md = util_read_file(g.gl_pathv[f], NULL);
        for (int w = 0; md && w < 3; w++) {
            struct doc d;
            doc_init(&d);
            lesson_render(&d, md, widths[w]);
            EXPECT(d.nlines > 20 && !d.oom);
            for (int i = 0; i < d.nlines; i++) {
                const struct doc_line *l = &d.lines[i];
                if (l->len && l->style[0] != DOC_BLOCK && doc_width(l->text, l->len) > widths[w]) {
                    printf("#   %s at %d: \"%s\"\n", g.gl_pathv[f], widths[w], l->text);
                    EXPECT(0);
                }
                EXPECT(!strstr(l->text, "**") && !strstr(l->text, "```"));
            }
            EXPECT(d.lines[0].style[0] == DOC_H1);
            doc_free(&d);
            checked++;
        }
        free(md);
    }
    EXPECT(checked >= 30);
    globfree(&g);
}

static void search_is_case_blind_and_wraps(void)
{
    struct doc d;
    doc_init(&d);
    doc_add(&d, DOC_TEXT, "alpha\nBeta\ngamma\nbeta again");
    EXPECT(doc_find(&d, "beta", 0, 1) == 1);
    EXPECT(doc_find(&d, "beta", 1, 1) == 3);
    EXPECT(doc_find(&d, "beta", 3, 1) == 1);
    EXPECT(doc_find(&d, "BETA", 1, -1) == 3);
    EXPECT(doc_find(&d, "delta", 0, 1) == -1);
    doc_free(&d);
}

static void ascii_fallback_leaves_only_ascii(void)
{
    struct doc d;
    doc_init(&d);
    lesson_render(&d, "# Lab 01 — Title\n\n- 15 µs, 2² × faster → “done”\n", 60);
    doc_ascii(&d);
    for (int i = 0; i < d.nlines; i++)
        for (size_t j = 0; j < d.lines[i].len; j++)
            EXPECT((unsigned char)d.lines[i].text[j] < 128);
    EXPECT(line_of(&d, "Lab 01 -- Title") == 0);
    EXPECT(line_of(&d, "* 15 us, 2^2 x faster -> \"done\"") > 0);
    EXPECT(style_at(&d, 0, "Title") == DOC_H1);
    doc_free(&d);
}

static void cells_pad_and_cut_by_columns(void)
{
    struct doc d;
    doc_init(&d);
    doc_addcell(&d, DOC_TEXT, "ab—c", 6);
    doc_addcell(&d, DOC_TEXT, "abcdefgh", 5);
    EXPECT_STR(d.lines[0].text, "ab—c  abcd…");
    EXPECT(doc_width(d.lines[0].text, d.lines[0].len) == 11);
    doc_free(&d);
}

TAP_MAIN(T(headings_lose_their_hashes), T(emphasis_code_and_names), T(links_keep_text_and_address),
         T(paragraphs_flow_to_the_width), T(lists_hang_under_their_marker), T(fences_keep_their_lines),
         T(quotes_and_tables), T(every_lesson_fits), T(search_is_case_blind_and_wraps),
         T(ascii_fallback_leaves_only_ascii), T(cells_pad_and_cut_by_columns))
