/* trace.h — the picture of a kernel running (`cudatutor trace`): the
 * emulator's steps of one call at a small n (the CPU judge's --trace file,
 * tutor/harness/hx_emu.cu) drawn barrier to barrier, block 0 of each
 * launch: per source line, which lanes of each warp were active, read or
 * wrote which shared words, took a branch or waited at a barrier, with
 * bank conflicts, divergence and a barrier only part of a warp reached
 * marked, and the source lines beside.  Each step is one page that fits
 * 80×24, readable without colour; text without curses. */
#ifndef TRACE_H
#define TRACE_H

#include <stddef.h>

#define TRACE_WIDTH 80
#define TRACE_HEIGHT 24

struct trace;

/* Reads the trace file's text; NULL with ERR set when it holds no launch. */
struct trace *trace_parse(const char *text, char *err, size_t errlen);
void trace_free(struct trace *t);
/* How many steps (pages) the trace has: each launch's barrier-to-barrier phases. */
int trace_steps(const struct trace *t);

/* What a row's note marks: nothing, a fault (a bank conflict, a barrier
 * only part of a warp reached) or a cost to look at (a split branch,
 * scattered global sectors). */
enum trace_mark { TRACE_PLAIN, TRACE_BAD, TRACE_WARN };

/* One row of a step: an instruction of interest at one source line, the
 * warps that did the same thing with it folded into one row. */
struct trace_row {
    unsigned line;              /* 0: unknown */
    const char *file;           /* its source file as the trace names it, or NULL */
    char warps[16];             /* "w0-3", "w0,2" */
    char op[4];                 /* ld st atm (shared) LD ST ATM (global) if bar */
    char lanes[33];             /* per lane: r w a, R W A, > jumps, | at the barrier,
                                   - there but idle, . elsewhere */
    char note[64];              /* "words 0..31 (w0)", "2-way conflict, 0..62 by 2" */
    char detail[160];           /* each folded warp's own words where they differ
                                   ("w0 0..30 by 2; w1 32..62 by 2"), else "" */
    enum trace_mark mark;
    int branch;                 /* a branch that split the warp (its note counts the lanes) */
};

#define TRACE_MAX_ROWS 128

/* Step K of a trace, as the page and the SVG draw it. */
struct trace_step {
    char kernel[64];            /* demangled */
    unsigned blocks, threads;   /* the launch's grid and block, as counts */
    int launch, launches;       /* 1 first */
    int step, steps;            /* 1 first */
    unsigned open, close;       /* the barriers' lines that open and close it; 0: the
                                   start, the end */
    int nrows, more;            /* more: rows past TRACE_MAX_ROWS, not kept */
    struct trace_row rows[TRACE_MAX_ROWS];
};

/* Fills ST with step K (0 first); -1 when there is no such step. */
int trace_step(const struct trace *t, int k, struct trace_step *st);

struct trace_look {
    const char *lab;            /* "01" */
    unsigned long long n;       /* the size traced */
    const char *source;         /* the kernel's text, for the lines beside; NULL: none */
    const char *source_name;    /* its name in the trace's files ("kernel.cu") */
    const char *stopped;        /* how the call ended when not cleanly (a hazard's
                                   sentence): said on the last page; NULL: it ended */
    int color;                  /* ANSI colours for a terminal (trace_page) */
    int height;                 /* the page's lines; 0: TRACE_HEIGHT */
    int cursor;                 /* the row picked (1 first), drawn marked with its
                                   warps' words in place of the legend; 0: none */
};

/* ---- trace_page.c ---------------------------------------------------------------- */

/* Step K (0 first) as at most TRACE_HEIGHT lines of at most TRACE_WIDTH
 * columns, each ending in a newline (heap; NULL out of memory). */
char *trace_page(const struct trace *t, int k, const struct trace_look *look);

struct doc;
/* The same page as styled lines appended to D (the tutor paints it):
 * faults in DOC_BAD, costs in DOC_WARN, the picked row and its source
 * line in DOC_MARK.  -1 when there is no step K. */
int trace_page_doc(const struct trace *t, int k, const struct trace_look *look, struct doc *d);

/* The source line LINE of TEXT, tabs as spaces, leading blanks dropped,
 * other control and non-ASCII bytes as '?'. */
void trace_source_line(const char *text, unsigned line, char *out, size_t len);

/* ---- trace_svg.c ---------------------------------------------------------------- */

/* Every step of the trace as one SVG document for slides: the steps one
 * under another, each row's 32 lanes as coloured cells, the words read and
 * written, conflicts and divergence marked, the source lines beside
 * (heap; NULL out of memory). */
char *trace_svg(const struct trace *t, const struct trace_look *look);

#endif
