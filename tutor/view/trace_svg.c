/* trace_svg.c — the picture of trace.h as one SVG document, for slides:
 * each step under the one before, its rows as in the terminal (line,
 * warps, operation) with the 32 lanes as cells coloured by what the lane
 * did and lettered as the terminal letters them (so a grey print still
 * reads), the note beside (a conflict or a part-reached barrier in red
 * with a red frame, a split branch or scattered sectors in amber, framed
 * dashed), each folded warp's own words as the row's tooltip, and the
 * step's source lines to the right. */
#include "view/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/jsonw.h"

#define CELL 14             /* a lane's cell, px */
#define ROW 18              /* a row's height, px */
#define LANES_X 190         /* where lane 0 starts */
#define NOTE_X (LANES_X + 32 * CELL + 12)
#define SOURCE_X (NOTE_X + 250)
#define WIDTH (SOURCE_X + 560)
#define MAX_SOURCE 16       /* source lines beside a step */

static void add_label(struct jsonw *b, int x, int y, const char *cls, const char *text)
{
    jsonw_rawf(b, "<text x=\"%d\" y=\"%d\" class=\"%s\">", x, y, cls);
    jsonw_xml(b, text);
    jsonw_rawf(b, "</text>\n");
}

/* A lane's fill, by the letter the terminal draws it with. */
static const char *fill(char c)
{
    switch (c) {
    case 'r': return "#4e79a7";
    case 'w': return "#f28e2b";
    case 'a': return "#b07aa1";
    case 'R': return "#a0cbe8";
    case 'W': return "#ffbe7d";
    case 'A': return "#d4a6c8";
    case '>': return "#edc948";
    case '|': return "#59595e";
    case '-': return "#d9d9d9";
    default: return "#ffffff";
    }
}

static const char *const legend[][2] = {
    {"r", "shared read"}, {"w", "shared write"}, {"a", "shared atomic"}, {"R", "global read"},
    {"W", "global write"}, {"A", "global atomic"}, {">", "jumps"}, {"|", "at the barrier"},
    {"-", "idle at it"}, {".", "elsewhere"},
};

static void add_cell(struct jsonw *b, int x, int y, char c)
{
    jsonw_rawf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" class=\"lane\"/>", x, y, CELL - 1,
        CELL - 1, fill(c));
    if (c != '.' && c != '-') {
        char s[2] = {c, '\0'};
        jsonw_rawf(b, "<text x=\"%d\" y=\"%d\" class=\"%s\">", x + CELL / 2 - 1, y + CELL - 4,
            c == '|' ? "cellw" : "cell");
        jsonw_xml(b, s);
        jsonw_rawf(b, "</text>");
    }
    jsonw_rawf(b, "\n");
}

/* Step K at height Y; returns the height after it. */
static int add_step(struct jsonw *b, const struct trace *t, int k, const struct trace_look *look, int y)
{
    static struct trace_step st;
    unsigned lines[MAX_SOURCE];
    int nlines = 0;
    char text[256];
    if (trace_step(t, k, &st))
        return y;
    jsonw_rawf(b, "<g class=\"step\" id=\"step%d\">\n", st.step);
    snprintf(text, sizeof text, "trace %s: %s<<<%u,%u>>> n=%llu, launch %d of %d, block 0, step %d of %d",
             look->lab, st.kernel, st.blocks, st.threads, look->n, st.launch, st.launches, st.step, st.steps);
    add_label(b, 10, y + 16, "head", text);
    snprintf(text, sizeof text, "%s%.0u, %s%.0u (%u warps)", st.open ? "after the barrier at line " : "from the start",
             st.open, st.close ? "up to the next at line " : "to the end", st.close, (st.threads + 31) / 32);
    add_label(b, 10, y + 34, "sub", text);
    y += 44;
    add_label(b, 10, y + 12, "dim", "line warps  op");
    for (int l = 0; l < 32; l += 8)
        jsonw_rawf(b, "<text x=\"%d\" y=\"%d\" class=\"dim\">%d</text>\n", LANES_X + l * CELL, y + 12, l);
    jsonw_rawf(b, "<text x=\"%d\" y=\"%d\" class=\"dim\">31</text>\n", LANES_X + 31 * CELL, y + 12);
    add_label(b, NOTE_X, y + 12, "dim", "what");
    add_label(b, SOURCE_X, y + 12, "dim", "source");
    y += ROW;
    int top = y;
    if (!st.nrows)
        add_label(b, 10, y + 12, "dim", "(no shared or global access, divergent branch or barrier in block 0 here)");
    for (int r = 0; r < st.nrows; r++, y += ROW) {
        const struct trace_row *row = &st.rows[r];
        const char *cls = row->mark == TRACE_BAD ? "bad" : row->mark == TRACE_WARN ? "warn" : "note";
        jsonw_rawf(b, "<g class=\"row\"><title>line %u, ", row->line);
        jsonw_xml(b, row->warps);
        jsonw_rawf(b, ": ");
        jsonw_xml(b, row->detail[0] ? row->detail : row->note);
        jsonw_rawf(b, "</title>\n");
        snprintf(text, sizeof text, "%4u %-6s %s", row->line, row->warps, row->op);
        add_label(b, 10, y + 12, "mono", text);
        for (int l = 0; l < 32; l++)
            add_cell(b, LANES_X + l * CELL, y, row->lanes[l]);
        if (row->mark != TRACE_PLAIN)
            jsonw_rawf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame-%s\"/>\n", LANES_X - 2,
                y - 2, 32 * CELL + 3, CELL + 3, cls);
        add_label(b, NOTE_X, y + 12, cls, row->note);
        jsonw_rawf(b, "</g>\n");
        int j = 0;
        while (j < nlines && lines[j] != row->line)
            j++;
        if (j == nlines && nlines < MAX_SOURCE && row->line && look->source && row->file && look->source_name &&
            !strcmp(row->file, look->source_name))
            lines[nlines++] = row->line;
    }
    if (st.more) {
        snprintf(text, sizeof text, "... %d more row%s in this step", st.more, st.more == 1 ? "" : "s");
        add_label(b, 10, y + 12, "dim", text);
        y += ROW;
    }
    /* the source lines beside, in order */
    for (int i = 1; i < nlines; i++)
        for (int j = i; j > 0 && lines[j - 1] > lines[j]; j--) {
            unsigned x = lines[j];
            lines[j] = lines[j - 1];
            lines[j - 1] = x;
        }
    for (int i = 0; i < nlines; i++) {
        char src[120];
        trace_source_line(look->source, lines[i], src, sizeof src);
        snprintf(text, sizeof text, "%4u | %s", lines[i], src);
        add_label(b, SOURCE_X, top + i * ROW + 12, "code", text);
    }
    if (top + nlines * ROW > y)
        y = top + nlines * ROW;
    if (st.step == st.steps && look->stopped) {
        snprintf(text, sizeof text, "stopped here: %.200s", look->stopped);
        add_label(b, 10, y + 14, "bad", text);
        y += ROW + 4;
    }
    jsonw_rawf(b, "</g>\n");
    return y + 22;
}

char *trace_svg(const struct trace *t, const struct trace_look *look)
{
    struct jsonw body = {0}, b = {0};
    int y = 40;
    /* the legend first: a cell and its meaning each */
    for (size_t i = 0, x = 10; i < sizeof legend / sizeof legend[0]; i++) {
        add_cell(&body, (int)x, 14, legend[i][0][0]);
        add_label(&body, (int)x + CELL + 4, 25, "dim", legend[i][1]);
        x += CELL + 4 + 8 * strlen(legend[i][1]) + 18;
    }
    add_label(&body, 10, y + 4, "dim", "red: a bank conflict or a barrier part of a warp reached; amber: a branch "
                                       "that splits a warp, scattered global sectors");
    y += 16;
    for (int k = 0; k < trace_steps(t); k++)
        y = add_step(&body, t, k, look, y);
    jsonw_rawf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    jsonw_rawf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" xml:space=\"preserve\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", WIDTH,
        y, WIDTH, y);
    jsonw_rawf(&b, "<title>");
    jsonw_xml(&b, "cudatutor trace ");
    jsonw_xml(&b, look->lab);
    jsonw_rawf(&b, " at n=%llu</title>\n", look->n);
    jsonw_rawf(&b, "<style>\n"
                   "text { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; fill: #222; "
                   "white-space: pre; }\n"
                   ".head { font-weight: bold; font-size: 13px; }\n"
                   ".dim { fill: #777; }\n"
                   ".bad { fill: #c62828; font-weight: bold; }\n"
                   ".warn { fill: #a86400; }\n"
                   ".code { fill: #1a4a7a; }\n"
                   ".cell { font-size: 9px; text-anchor: middle; fill: #111; }\n"
                   ".cellw { font-size: 9px; text-anchor: middle; fill: #fff; }\n"
                   ".lane { stroke: #bbb; stroke-width: 0.5; }\n"
                   ".frame-bad { fill: none; stroke: #c62828; stroke-width: 2; }\n"
                   ".frame-warn { fill: none; stroke: #e8a33d; stroke-width: 1.5; stroke-dasharray: 4 2; }\n"
                   "</style>\n");
    jsonw_rawf(&b, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n");
    if (body.buf)
        jsonw_raw(&b, body.buf, body.len);
    jsonw_rawf(&b, "</svg>");   /* and the newline jsonw_take ends with */
    if (body.oom)
        b.oom = 1;
    jsonw_free(&body);
    return jsonw_take(&b);
}
