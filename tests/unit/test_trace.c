/* test_trace.c — the picture of view/trace.h from a trace written by
 * hand: a strided shared load marked as the bank conflict it is (in red
 * with colour), a half-warp store after the barrier, a divergent branch,
 * the stop's sentence flowed within the page, a file that holds no
 * launch refused; the tutor's page with a picked row and a height, and the
 * SVG of the same steps. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "view/doc.h"
#include "view/trace.h"

/* One warp of one block: at line 7 a load of every second word, the
 * barrier at line 8, then a branch half the lanes take and a store by the
 * other half at line 9. */
static const char hand[] =
    "L 1 _Z3sumPi 1 1 1 32 1 1\n"
    "F 0 k.cu\n"
    "E 1 0 0 5 1 ffffffff ffffffff 4 0 7 0 8 16 24 32 40 48 56 64 72 80 88 96 104 112 120 128 136 144 152 160 168 176 184 192 200 208 216 224 232 240 248\n"
    "E 1 0 0 6 9 ffffffff ffffffff 0 0 8\n"
    "E 1 0 0 7 8 ffffffff ffff0000 0 0 9\n"
    "E 1 0 0 8 2 0000ffff 0000ffff 4 0 9 0 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60\n";

static const char source[] = "a\nb\nc\nd\ne\nf\nint v = s[2 * t];\n__syncthreads();\nif (t < 16) s[t] = v;\n";

static void conflict_marked(void)
{
    char err[128] = "";
    struct trace *t = trace_parse(hand, err, sizeof err);
    EXPECT(t != NULL);
    if (!t)
        return;
    EXPECT(trace_steps(t) == 2);
    struct trace_look look = {.lab = "01", .n = 32, .source = source, .source_name = "k.cu"};
    char *p = trace_page(t, 0, &look);
    EXPECT(p && strstr(p, "trace 01: sum<<<1,32>>> n=32, launch 1 of 1, block 0, step 1 of 2\n"));
    EXPECT(p && strstr(p, "   7 w0     ld  rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr 2-way conflict, 0..62 by 2\n"));
    EXPECT(p && strstr(p, "   7 | int v = s[2 * t];\n"));
    EXPECT(p && strstr(p, "   8 w0     bar |||||||||||||||||||||||||||||||| \n"));
    free(p);
    look.color = 1;
    p = trace_page(t, 0, &look);
    EXPECT(p && strstr(p, "\033[31m2-way conflict, 0..62 by 2\033[0m"));
    free(p);
    trace_free(t);
}

static void after_the_barrier(void)
{
    char err[128] = "";
    struct trace *t = trace_parse(hand, err, sizeof err);
    if (!t)
        return;
    struct trace_look look = {.lab = "01", .n = 32, .source = source, .source_name = "k.cu",
                              .stopped = "thread 3 of block 0 read 4 bytes of shared memory no thread wrote, "
                                         "a word of the array nobody stored to before the barrier (k.cu:9)"};
    char *p = trace_page(t, 1, &look);
    EXPECT(p && strstr(p, "after the barrier at line 8, to the end (1 warps)\n"));
    EXPECT(p && strstr(p, "   9 w0     if  ---------------->>>>>>>>>>>>>>>> diverges: 16 jump, 16 stay\n"));
    EXPECT(p && strstr(p, "   9 w0     st  wwwwwwwwwwwwwwww................ words 0..15\n"));
    EXPECT(p && strstr(p, "\nstopped here: thread 3 of block 0 read 4 bytes of shared memory no thread\n"
                          "  wrote, a word of the array nobody stored to before the barrier (k.cu:9)\n"));
    /* at most 24 lines of at most 80 columns */
    int lines = 0, widest = 0;
    for (const char *q = p; q && *q;) {
        const char *nl = strchr(q, '\n');
        int w = (int)(nl - q);
        widest = w > widest ? w : widest;
        lines++;
        q = nl + 1;
    }
    EXPECT(lines <= TRACE_HEIGHT && widest <= TRACE_WIDTH);
    free(p);
    EXPECT(trace_page(t, 2, &look) == NULL);
    trace_free(t);
}

static void nothing_to_draw(void)
{
    char err[128] = "";
    EXPECT(trace_parse("F 0 k.cu\n", err, sizeof err) == NULL);
    EXPECT_STR(err, "the trace holds no launch of the kernel");
}

/* How many times NEEDLE is in HAY. */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay ? strstr(hay, needle) : NULL; p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The tutor's page: a picked row marked with '>' and its warps' words in
 * place of the legend, in the styles the screen paints (a fault DOC_BAD,
 * the picked row DOC_MARK); a shorter page keeps to its height. */
static void picked_row(void)
{
    char err[128] = "";
    struct trace *t = trace_parse(hand, err, sizeof err);
    static struct trace_step st;
    if (!t)
        return;
    EXPECT(trace_step(t, 1, &st) == 0 && st.nrows == 2 && st.step == 2 && st.steps == 2 && st.open == 8);
    EXPECT(!strcmp(st.rows[0].op, "if") && st.rows[0].mark == TRACE_WARN && st.rows[1].mark == TRACE_PLAIN);
    EXPECT(trace_step(t, 2, &st) == -1);
    struct trace_look look = {.lab = "01", .n = 32, .source = source, .source_name = "k.cu", .cursor = 1};
    char *p = trace_page(t, 0, &look);
    EXPECT(p && strstr(p, ">  7 w0     ld  rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr 2-way conflict, 0..62 by 2\n"));
    EXPECT(p && strstr(p, "\n> 7 w0 ld, 32 lanes: 2-way conflict, 0..62 by 2\n"));
    EXPECT(p && !strstr(p, "r w shared read/write"));
    free(p);
    struct doc d;
    doc_init(&d);
    look.cursor = 0;
    EXPECT(trace_page_doc(t, 0, &look, &d) == 0);
    int bad = 0;
    for (int i = 0; i < d.nlines; i++)
        for (size_t b = 0; b < d.lines[i].len; b++)
            bad += d.lines[i].style[b] == DOC_BAD;
    EXPECT(bad == (int)strlen("2-way conflict, 0..62 by 2"));
    doc_free(&d);
    look.height = 6;
    look.cursor = 2;
    p = trace_page(t, 1, &look);
    EXPECT(count(p, "\n") <= 6 && p && strstr(p, ">  9 w0     st  "));
    free(p);
    trace_free(t);
}

/* The SVG: both steps, the conflict framed red, the split branch amber,
 * the source beside with XML's specials escaped, the stop's sentence. */
static void svg_drawn(void)
{
    char err[128] = "";
    struct trace *t = trace_parse(hand, err, sizeof err);
    if (!t)
        return;
    struct trace_look look = {.lab = "01", .n = 32, .source = source, .source_name = "k.cu", .stopped = "a & b"};
    char *svg = trace_svg(t, &look);
    EXPECT(svg && !strncmp(svg, "<?xml version=\"1.0\"", 19) && strstr(svg, "</svg>\n"));
    EXPECT(count(svg, "<g class=\"step\"") == 2 && count(svg, "<g class=\"row\">") == 4);
    EXPECT(count(svg, "class=\"frame-bad\"") == 1 && count(svg, "class=\"frame-warn\"") == 1);
    EXPECT(count(svg, "   9 | if (t &lt; 16) s[t] = v;") == 1 && !strstr(svg, "t < 16"));
    EXPECT(count(svg, "stopped here: a &amp; b") == 1);
    free(svg);
    trace_free(t);
}

TAP_MAIN(T(conflict_marked), T(after_the_barrier), T(nothing_to_draw), T(picked_row), T(svg_drawn))
