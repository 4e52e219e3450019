/* trace.c — the model of trace.h: the CPU judge's trace lines read into
 * events, each event given its warp's phase (the barriers that warp had
 * passed), and a phase of block 0 made a step of rows, one per
 * instruction of interest, the warps that did the same thing folded into
 * one row.  trace_page.c draws a step as a page, trace_svg.c as SVG. */
#include "view/trace.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

/* The emulator's kinds (tutor/emu/emu_trace.h's enum emu_trace_kind),
 * as the trace file numbers them. */
enum { K_OTHER, K_SH_LD, K_SH_ST, K_SH_ATOM, K_GL_LD, K_GL_ST, K_GL_ATOM, K_LOCAL, K_BRANCH, K_BARRIER, K_EXIT };

#define MAX_WARPS 32
#define MAX_FILES 32
#define MAX_ROWS 96

struct tev {
    unsigned long long launch, block;
    unsigned warp, pc, line, bytes;
    int kind, file, phase;
    uint32_t mask, emask;
    uint32_t off[32];
};

struct tlaunch {
    unsigned long long id;
    char name[64];
    unsigned grid[3], blk[3];
    int first, count;           /* its events */
    int nphases;                /* of block 0 */
};

struct trace {
    struct tev *ev;
    int nev;
    size_t cap;
    struct tlaunch *la;
    int nla;
    size_t lacap;
    char *files[MAX_FILES];
};

/* "_Z12reduce_blockPKiPij" -> "reduce_block"; other names as they are. */
static void demangle(const char *m, char *out, size_t len)
{
    char *end;
    long k;
    if (!strncmp(m, "_Z", 2) && (k = strtol(m + 2, &end, 10)) > 0 && (size_t)k < len && strlen(end) >= (size_t)k)
        m = end;
    else
        k = (long)strlen(m);
    snprintf(out, len, "%.*s", (int)(k < (long)len ? k : (long)len - 1), m);
}

static int add_event(struct trace *t, const char *line)
{
    struct tev e;
    unsigned long long launch, block;
    int used = 0;
    memset(&e, 0, sizeof e);
    if (sscanf(line, "E %llu %llu %u %u %d %x %x %u %d %u%n", &launch, &block, &e.warp, &e.pc, &e.kind,
               &e.mask, &e.emask, &e.bytes, &e.file, &e.line, &used) != 10 || !t->nla || e.warp >= MAX_WARPS)
        return 0;
    e.launch = launch;
    e.block = block;
    const char *p = line + used;
    for (uint32_t m = e.emask; m && *p; m &= m - 1) {
        char *end;
        e.off[__builtin_ctz(m)] = (uint32_t)strtoul(p, &end, 10);
        if (end == p)
            break;
        p = end;
    }
    struct tev *ev = util_grow(t->ev, &t->cap, (size_t)t->nev + 1, sizeof *ev);
    if (!ev)
        return -1;
    t->ev = ev;
    t->ev[t->nev++] = e;
    t->la[t->nla - 1].count++;
    return 0;
}

static int add_launch(struct trace *t, const char *line)
{
    struct tlaunch l;
    char name[256];
    memset(&l, 0, sizeof l);
    if (sscanf(line, "L %llu %255s %u %u %u %u %u %u", &l.id, name, &l.grid[0], &l.grid[1], &l.grid[2], &l.blk[0],
               &l.blk[1], &l.blk[2]) != 8)
        return 0;
    demangle(name, l.name, sizeof l.name);
    l.first = t->nev;
    struct tlaunch *la = util_grow(t->la, &t->lacap, (size_t)t->nla + 1, sizeof *la);
    if (!la)
        return -1;
    t->la = la;
    t->la[t->nla++] = l;
    return 0;
}

/* Each event's phase: the barriers its warp had reached before it. */
static void phases(struct trace *t)
{
    for (int i = 0; i < t->nla; i++) {
        struct tlaunch *l = &t->la[i];
        int passed[2][MAX_WARPS] = {{0}};
        for (int k = l->first; k < l->first + l->count; k++) {
            struct tev *e = &t->ev[k];
            int b = e->block < 2 ? (int)e->block : 1;
            e->phase = passed[b][e->warp];
            if (e->kind == K_BARRIER)
                passed[b][e->warp]++;
            if (b == 0 && e->phase + 1 > l->nphases)
                l->nphases = e->phase + 1;
        }
    }
}

struct trace *trace_parse(const char *text, char *err, size_t errlen)
{
    struct trace *t = calloc(1, sizeof *t);
    const char *p = text;
    if (!t)
        goto oom;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[1024];
        int id;
        if (len < sizeof line) {
            memcpy(line, p, len);
            line[len] = '\0';
            char name[512];
            if (line[0] == 'L' && add_launch(t, line))
                goto oom;
            if (line[0] == 'E' && add_event(t, line))
                goto oom;
            if (line[0] == 'F' && sscanf(line, "F %d %511s", &id, name) == 2 && id >= 0 && id < MAX_FILES &&
                !t->files[id] && !(t->files[id] = strdup(name)))
                goto oom;
        }
        p = nl ? nl + 1 : NULL;
    }
    if (!t->nla || !t->nev) {
        snprintf(err, errlen, "the trace holds no launch of the kernel");
        trace_free(t);
        return NULL;
    }
    phases(t);
    return t;
oom:
    snprintf(err, errlen, "out of memory");
    trace_free(t);
    return NULL;
}

void trace_free(struct trace *t)
{
    if (!t)
        return;
    for (int i = 0; i < MAX_FILES; i++)
        free(t->files[i]);
    free(t->ev);
    free(t->la);
    free(t);
}

int trace_steps(const struct trace *t)
{
    int n = 0;
    for (int i = 0; i < t->nla; i++)
        n += t->la[i].nphases;
    return n;
}

/* ---- one row's lanes and what they did ------------------------------------------ */

/* Passes the 32 banks take to serve the words the lanes of M touch, BYTES
 * each (a wide access is served a half or a quarter warp at a time). */
static int bank_passes(const uint32_t *off, uint32_t m, uint32_t bytes)
{
    uint32_t words = bytes > 4 ? bytes / 4 : 1, group = 32 / words;
    int total = 0;
    for (uint32_t g0 = 0; g0 < 32; g0 += group) {
        uint32_t seen[128];
        int nseen = 0, per_bank[32] = {0}, most = 0;
        for (uint32_t l = g0; l < g0 + group; l++) {
            if (!((m >> l) & 1))
                continue;
            for (uint32_t k = 0; k < words; k++) {
                uint32_t w = off[l] / 4 + k;
                int j = 0;
                while (j < nseen && seen[j] != w)
                    j++;
                if (j < nseen || nseen == 128)
                    continue;
                seen[nseen++] = w;
                if (++per_bank[w % 32] > most)
                    most = per_bank[w % 32];
            }
        }
        total += most;
    }
    return total;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct units (OFF / UNIT) the lanes of M touch, sorted, in U; their count. */
static int distinct(const uint32_t *off, uint32_t m, uint32_t unit, uint32_t *u)
{
    int n = 0;
    for (uint32_t b = m; b; b &= b - 1)
        u[n++] = off[__builtin_ctz(b)] / unit;
    qsort(u, (size_t)n, sizeof *u, cmp_u32);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!k || u[k - 1] != u[i])
            u[k++] = u[i];
    return k;
}

/* A shared access's words in a few characters: "words 0..62 by 2". */
static void words_of(const uint32_t *w, int n, int lanes, char *buf, size_t len)
{
    if (n == 1) {
        snprintf(buf, len, lanes > 1 ? "word %u, broadcast" : "word %u", w[0]);
        return;
    }
    uint32_t d = w[1] - w[0];
    int even = 1;
    for (int i = 2; i < n && even; i++)
        even = w[i] - w[i - 1] == d;
    if (even && d == 1)
        snprintf(buf, len, "words %u..%u", w[0], w[n - 1]);
    else if (even)
        snprintf(buf, len, "words %u..%u by %u", w[0], w[n - 1], d);
    else
        snprintf(buf, len, "%d words", n);
}

/* The lanes warp E's instruction had in the block (the warp's threads). */
static uint32_t warp_lanes(const struct tlaunch *l, unsigned warp)
{
    unsigned threads = l->blk[0] * l->blk[1] * l->blk[2];
    if (threads >= (warp + 1) * 32)
        return 0xffffffffu;
    return threads > warp * 32 ? (1u << (threads - warp * 32)) - 1 : 0;
}

enum { MARK_NONE, MARK_BAD, MARK_WARN };

/* E's 32 lane characters into LANES, what it did into NOTE, and whether
 * the note marks a fault of speed or of sense. */
static int draw_event(const struct tlaunch *l, const struct tev *e, char lanes[33], char *note, size_t len,
                      char *shape, size_t slen)
{
    static const char mark[] = {[K_SH_LD] = 'r', [K_SH_ST] = 'w', [K_SH_ATOM] = 'a', [K_GL_LD] = 'R',
                                [K_GL_ST] = 'W', [K_GL_ATOM] = 'A', [K_BRANCH] = '>', [K_BARRIER] = '|'};
    uint32_t u[32];
    int on = __builtin_popcount(e->emask), at = __builtin_popcount(e->mask);
    for (int i = 0; i < 32; i++)
        lanes[i] = !((e->mask >> i) & 1) ? '.' : !((e->emask >> i) & 1) ? '-' : mark[e->kind];
    lanes[32] = '\0';
    note[0] = '\0';
    shape[0] = '\0';
    switch (e->kind) {
    case K_SH_LD:
    case K_SH_ST:
    case K_SH_ATOM: {
        char w[32];
        int n = distinct(e->off, e->emask, 4, u), passes = bank_passes(e->off, e->emask, e->bytes);
        words_of(u, n, on, w, sizeof w);
        /* warps alike but for where their words start draw as one row */
        snprintf(shape, slen, "%d %u %d", n, n > 1 ? u[1] - u[0] : 0, passes);
        if (passes > (e->bytes > 4 ? (int)(e->bytes / 4) : 1)) {
            snprintf(note, len, "%d-way conflict, %.16s", passes & 0xff, w + (strncmp(w, "words ", 6) ? 0 : 6));
            return MARK_BAD;
        }
        snprintf(note, len, "%s", w);
        return MARK_NONE;
    }
    case K_GL_LD:
    case K_GL_ST:
    case K_GL_ATOM: {
        int n = distinct(e->off, e->emask, 32, u), need = (int)((on * e->bytes + 31) / 32);
        snprintf(note, len, "%d sector%s%s", n, n == 1 ? "" : "s", n > need ? ", scattered" : "");
        return n > need ? MARK_WARN : MARK_NONE;
    }
    case K_BRANCH:
        snprintf(note, len, "diverges: %d jump, %d stay", on, at - on);
        return MARK_WARN;
    case K_BARRIER:
        if ((e->mask & warp_lanes(l, e->warp)) != warp_lanes(l, e->warp)) {
            snprintf(note, len, "only %d of %d lanes here", at, __builtin_popcount(warp_lanes(l, e->warp)));
            return MARK_BAD;
        }
        return MARK_NONE;
    default:
        return MARK_NONE;
    }
}

/* Whether E belongs in the picture: memory of the lab's (not parameters),
 * a branch that splits the warp, a barrier. */
static int drawn(const struct tev *e)
{
    switch (e->kind) {
    case K_BRANCH:
        return e->emask && e->emask != e->mask;
    case K_SH_LD: case K_SH_ST: case K_SH_ATOM: case K_GL_LD: case K_GL_ST: case K_GL_ATOM: case K_BARRIER:
        return 1;
    default:
        return 0;
    }
}

struct row {
    unsigned pc, occ, line;
    int kind, file;
    int have[MAX_WARPS], mark[MAX_WARPS];
    char lanes[MAX_WARPS][33];
    char note[MAX_WARPS][48];
    char shape[MAX_WARPS][48];      /* what else must match for two warps to share the row */
};

/* Rows by source line, then in program order (the same whichever warp ran
 * first). */
static int row_cmp(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->pc != y->pc)
        return x->pc < y->pc ? -1 : 1;
    return (int)x->occ - (int)y->occ;
}

/* The rows of phase P of launch L's block 0, by line. */
static int rows_of(const struct trace *t, const struct tlaunch *l, int p, struct row *rows, int *more)
{
    int n = 0;
    unsigned seen_pc[MAX_WARPS][64], seen_n[MAX_WARPS] = {0}, seen_occ[MAX_WARPS][64];
    *more = 0;
    for (int k = l->first; k < l->first + l->count; k++) {
        const struct tev *e = &t->ev[k];
        unsigned occ = 0, j;
        if (e->block != 0 || e->phase != p || !drawn(e))
            continue;
        for (j = 0; j < seen_n[e->warp] && seen_pc[e->warp][j] != e->pc; j++)
            ;
        if (j < seen_n[e->warp])
            occ = ++seen_occ[e->warp][j];
        else if (j < 64) {
            seen_pc[e->warp][j] = e->pc;
            seen_occ[e->warp][j] = 0;
            seen_n[e->warp]++;
        }
        int r = 0;
        while (r < n && !(rows[r].pc == e->pc && rows[r].occ == occ))
            r++;
        if (r == n) {
            if (n == MAX_ROWS) {
                (*more)++;
                continue;
            }
            memset(&rows[n], 0, sizeof rows[n]);
            rows[n].pc = e->pc;
            rows[n].occ = occ;
            rows[n].line = e->line;
            rows[n].kind = e->kind;
            rows[n].file = e->file;
            n++;
        }
        rows[r].have[e->warp] = 1;
        rows[r].mark[e->warp] = draw_event(l, e, rows[r].lanes[e->warp], rows[r].note[e->warp], 48,
                                           rows[r].shape[e->warp], 48);
        if (!rows[r].shape[e->warp][0])
            memcpy(rows[r].shape[e->warp], rows[r].note[e->warp], sizeof rows[r].shape[e->warp]);
    }
    qsort(rows, (size_t)n, sizeof *rows, row_cmp);
    return n;
}

/* ---- a step: its rows folded ------------------------------------------------------ */

/* The warps marked in SAME, as "w0-3" or "w0,2" (or "5warps" when that
 * is shorter). */
static void warp_label(const int *same, char *buf, size_t len)
{
    size_t used = 0;
    int count = 0;
    buf[0] = '\0';
    for (int w = 0; w < MAX_WARPS;) {
        if (!same[w]) {
            w++;
            continue;
        }
        int e = w;
        while (e + 1 < MAX_WARPS && same[e + 1])
            e++;
        count += e - w + 1;
        if (e > w)
            used += (size_t)snprintf(buf + used, len > used ? len - used : 0, "%s%d-%d", used ? "," : "w", w, e);
        else
            used += (size_t)snprintf(buf + used, len > used ? len - used : 0, "%s%d", used ? "," : "w", w);
        w = e + 1;
    }
    if (used > 6)
        snprintf(buf, len, "%dwarps", count);
}

void trace_source_line(const char *text, unsigned line, char *out, size_t len)
{
    const char *p = text;
    out[0] = '\0';
    for (unsigned i = 1; p && i < line; i++)
        p = (p = strchr(p, '\n')) ? p + 1 : NULL;
    if (!p)
        return;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t k = 0;
    for (; *p && *p != '\n' && k + 1 < len; p++)
        out[k++] = *p == '\t' ? ' ' : (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f ? '?' : *p;
    out[k] = '\0';
}

/* The barrier lines that open and close phase P of L (0: none). */
static void phase_bounds(const struct trace *t, const struct tlaunch *l, int p, unsigned *open, unsigned *close)
{
    *open = *close = 0;
    for (int k = l->first; k < l->first + l->count; k++) {
        const struct tev *e = &t->ev[k];
        if (e->block || e->kind != K_BARRIER)
            continue;
        if (e->phase == p - 1 && !*open)
            *open = e->line;
        if (e->phase == p && !*close)
            *close = e->line;
    }
}

static const char *op_name(int kind)
{
    static const char *const names[] = {[K_SH_LD] = "ld", [K_SH_ST] = "st", [K_SH_ATOM] = "atm",
                                        [K_GL_LD] = "LD", [K_GL_ST] = "ST", [K_GL_ATOM] = "ATM",
                                        [K_BRANCH] = "if", [K_BARRIER] = "bar"};
    return kind >= 0 && kind <= K_BARRIER && names[kind] ? names[kind] : "?";
}

/* Raw rows R (one per instruction and occurrence) into ST's rows, the
 * warps that did the same thing in one. */
static void fold(const struct trace *t, const struct row *rows, int n, struct trace_step *st)
{
    static const enum trace_mark marks[] = {[MARK_NONE] = TRACE_PLAIN, [MARK_BAD] = TRACE_BAD,
                                            [MARK_WARN] = TRACE_WARN};
    for (int r = 0; r < n; r++) {
        int done[MAX_WARPS] = {0};
        for (int w = 0; w < MAX_WARPS; w++) {
            if (!rows[r].have[w] || done[w])
                continue;
            int same[MAX_WARPS] = {0}, differ = 0;
            for (int v = w; v < MAX_WARPS; v++)
                if (rows[r].have[v] && !done[v] && !strcmp(rows[r].lanes[v], rows[r].lanes[w]) &&
                    !strcmp(rows[r].shape[v], rows[r].shape[w]) && rows[r].mark[v] == rows[r].mark[w]) {
                    same[v] = done[v] = 1;
                    differ |= strcmp(rows[r].note[v], rows[r].note[w]) != 0;
                }
            if (st->nrows == TRACE_MAX_ROWS) {
                st->more++;
                continue;
            }
            struct trace_row *o = &st->rows[st->nrows++];
            memset(o, 0, sizeof *o);
            o->line = rows[r].line;
            o->file = rows[r].file >= 0 && rows[r].file < MAX_FILES ? t->files[rows[r].file] : NULL;
            warp_label(same, o->warps, sizeof o->warps);
            snprintf(o->op, sizeof o->op, "%s", op_name(rows[r].kind));
            o->branch = rows[r].kind == K_BRANCH;
            memcpy(o->lanes, rows[r].lanes[w], sizeof o->lanes);
            o->mark = marks[rows[r].mark[w]];
            /* folded warps whose words differ: the first one's, named; each
             * one's in the detail */
            snprintf(o->note, sizeof o->note, differ ? "%.26s (w%d)" : "%.31s", rows[r].note[w], w);
            o->note[31] = '\0';
            for (int v = w; differ && v < MAX_WARPS; v++) {
                size_t used = strlen(o->detail);
                const char *words = rows[r].note[v];
                words += !strncmp(words, "words ", 6) ? 6 : !strncmp(words, "word ", 5) ? 5 : 0;
                if (same[v] && used + 1 < sizeof o->detail)
                    snprintf(o->detail + used, sizeof o->detail - used, "%sw%d %s", used ? "; " : "", v, words);
            }
        }
    }
}

/* The launch and phase of step K. */
static const struct tlaunch *step_at(const struct trace *t, int k, int *phase, int *li)
{
    for (int i = 0; k >= 0 && i < t->nla; i++) {
        if (k < t->la[i].nphases) {
            *phase = k;
            *li = i;
            return &t->la[i];
        }
        k -= t->la[i].nphases;
    }
    return NULL;
}

int trace_step(const struct trace *t, int k, struct trace_step *st)
{
    static struct row rows[MAX_ROWS];
    int p, li, more;
    const struct tlaunch *l = step_at(t, k, &p, &li);
    if (!l)
        return -1;
    memset(st, 0, offsetof(struct trace_step, rows));
    snprintf(st->kernel, sizeof st->kernel, "%s", l->name);
    st->blocks = l->grid[0] * l->grid[1] * l->grid[2];
    st->threads = l->blk[0] * l->blk[1] * l->blk[2];
    st->launch = li + 1;
    st->launches = t->nla;
    st->step = k + 1;
    st->steps = trace_steps(t);
    phase_bounds(t, l, p, &st->open, &st->close);
    int n = rows_of(t, l, p, rows, &more);
    fold(t, rows, n, st);
    st->more += more;
    return 0;
}
