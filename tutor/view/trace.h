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

struct trace_look {
    const char *lab;            /* "01" */
    unsigned long long n;       /* the size traced */
    const char *source;         /* the kernel's text, for the lines beside; NULL: none */
    const char *source_name;    /* its name in the trace's files ("kernel.cu") */
    const char *stopped;        /* how the call ended when not cleanly (a hazard's
                                   sentence): said on the last page; NULL: it ended */
    int color;                  /* ANSI colours for a terminal */
};

/* Step K (0 first) as at most TRACE_HEIGHT lines of at most TRACE_WIDTH
 * columns, each ending in a newline (heap; NULL out of memory). */
char *trace_page(const struct trace *t, int k, const struct trace_look *look);

#endif
