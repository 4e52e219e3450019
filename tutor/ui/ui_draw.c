/* ui_draw.c — painting: document styles to colours (or, on monochrome
 * terminals and under NO_COLOR, to attributes alone), glyphs with ASCII
 * stand-ins, clipped text, bars, the status line, and the text dump. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "ui/ui_view.h"

/* Colour pairs; 0 is the terminal's own. */
enum { PAIR_GREEN = 1, PAIR_RED, PAIR_YELLOW, PAIR_CYAN, PAIR_BLUE, PAIR_MAGENTA };

/* Per style: the attributes with colour, and without. */
static const struct {
    short pair;
    attr_t color_attr, mono_attr;
} styles[DOC_STYLE_COUNT] = {
    [DOC_TEXT] = {0, A_NORMAL, A_NORMAL},
    [DOC_H1] = {PAIR_CYAN, A_BOLD | A_UNDERLINE, A_BOLD | A_UNDERLINE},
    [DOC_H2] = {PAIR_CYAN, A_BOLD, A_BOLD},
    [DOC_H3] = {0, A_BOLD, A_BOLD},
    [DOC_STRONG] = {0, A_BOLD, A_BOLD},
    [DOC_EM] = {0, A_UNDERLINE, A_UNDERLINE},
    [DOC_CODE] = {PAIR_YELLOW, A_NORMAL, A_BOLD},
    [DOC_BLOCK] = {PAIR_YELLOW, A_NORMAL, A_NORMAL},
    [DOC_LINK] = {PAIR_BLUE, A_UNDERLINE, A_UNDERLINE},
    [DOC_QUOTE] = {0, A_DIM, A_DIM},
    [DOC_DIM] = {0, A_DIM, A_DIM},
    [DOC_GOOD] = {PAIR_GREEN, A_BOLD, A_BOLD},
    [DOC_BAD] = {PAIR_RED, A_BOLD, A_BOLD | A_UNDERLINE},
    [DOC_WARN] = {PAIR_YELLOW, A_BOLD, A_BOLD},
    [DOC_MARK] = {0, A_REVERSE, A_REVERSE},
    [DOC_BAR] = {PAIR_GREEN, A_NORMAL, A_NORMAL},
    [DOC_REF] = {PAIR_MAGENTA, A_BOLD, A_BOLD},
};

void ui_draw_init(struct ui *ui)
{
    ui->color = ui->app->color && has_colors();
    if (!ui->color)
        return;
    start_color();
    use_default_colors();
    init_pair(PAIR_GREEN, COLOR_GREEN, -1);
    init_pair(PAIR_RED, COLOR_RED, -1);
    init_pair(PAIR_YELLOW, COLOR_YELLOW, -1);
    init_pair(PAIR_CYAN, COLOR_CYAN, -1);
    init_pair(PAIR_BLUE, COLOR_BLUE, -1);
    init_pair(PAIR_MAGENTA, COLOR_MAGENTA, -1);
}

attr_t ui_attr(const struct ui *ui, enum doc_style st)
{
    if (st >= DOC_STYLE_COUNT)
        return A_NORMAL;
    if (!ui->color)
        return styles[st].mono_attr;
    return styles[st].color_attr | (styles[st].pair ? COLOR_PAIR(styles[st].pair) : 0);
}

const char *ui_glyph(const struct ui *ui, const char *utf8, const char *ascii)
{
    return ui->utf8 ? utf8 : ascii;
}

/* Bytes of s (len bytes) that fit in cols columns. */
static size_t fit(const char *s, size_t len, int cols, int *used)
{
    size_t i = 0;
    int w = 0;
    while (i < len && w < cols) {
        i++;
        while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        w++;
    }
    *used = w;
    return i;
}

int ui_put(struct ui *ui, int y, int x, int cols, enum doc_style st, const char *text)
{
    int used = 0;
    size_t n = fit(text, strlen(text), cols, &used);
    if (n) {
        attr_t a = ui_attr(ui, st);
        attron(a);
        mvaddnstr(y, x, text, (int)n);
        attroff(a);
    }
    return used;
}

/* Where needle occurs in text, case-insensitively: marks in hit[]. */
static void mark_hits(const char *text, size_t len, const char *needle, unsigned char *hit)
{
    size_t nlen = needle ? strlen(needle) : 0;
    memset(hit, 0, len);
    for (size_t i = 0; nlen && i + nlen <= len; i++)
        if (!strncasecmp(text + i, needle, nlen))
            memset(hit + i, 1, nlen);
}

void ui_put_line(struct ui *ui, int y, int x, int cols, const struct doc_line *l, const char *needle)
{
    unsigned char hit[1024];
    size_t len = l->len < sizeof hit ? l->len : sizeof hit;
    mark_hits(l->text, len, needle, hit);
    move(y, x);
    for (size_t i = 0; i < len && cols > 0;) {
        size_t j = i + 1;
        while (j < len && l->style[j] == l->style[i] && hit[j] == hit[i])
            j++;
        int used;
        size_t n = fit(l->text + i, j - i, cols, &used);
        attr_t a = ui_attr(ui, (enum doc_style)l->style[i]) | (hit[i] ? A_REVERSE : 0);
        attron(a);
        addnstr(l->text + i, (int)n);
        attroff(a);
        cols -= used;
        i = j;
    }
}

void ui_bar(struct ui *ui, int y, const char *left, const char *right, attr_t attr)
{
    int rw = right ? doc_width(right, strlen(right)) : 0, used;
    size_t n = fit(left, strlen(left), ui->cols - rw - 1, &used);
    attron(attr);
    mvhline(y, 0, ' ', ui->cols);
    mvaddnstr(y, 0, left, (int)n);
    if (rw && rw < ui->cols)
        mvaddstr(y, ui->cols - rw, right);
    attroff(attr);
}

void ui_draw_status(struct ui *ui)
{
    int y = ui->rows - 1;
    move(y, 0);
    clrtoeol();
    if (ui->prompting) {
        ui_put(ui, y, 0, ui->cols, DOC_STRONG, "/");
        ui_put(ui, y, 1, ui->cols - 2, DOC_TEXT, ui->prompt);
        curs_set(1);
        move(y, 1 + (int)strlen(ui->prompt));
        return;
    }
    curs_set(0);
    if (ui->msg[0] && doc_width(ui->msg, strlen(ui->msg)) > ui->cols) {
        /* A long message (a path, an error) takes up to three lines, over
         * the bottom of the screen, until the next key. */
        struct doc d;
        struct doc_para p = {0};
        doc_init(&d);
        doc_para_add(&p, ui->msg_style, ui->msg, strlen(ui->msg));
        doc_flow(&d, &p, ui->cols, "", DOC_TEXT);
        doc_para_free(&p);
        if (!ui->utf8)
            doc_ascii(&d);
        int n = d.nlines < 3 ? d.nlines : 3;
        for (int i = 0; i < n; i++) {
            move(y - n + 1 + i, 0);
            clrtoeol();
            ui_put_line(ui, y - n + 1 + i, 0, ui->cols, &d.lines[i], NULL);
        }
        doc_free(&d);
    } else if (ui->msg[0]) {
        ui_put(ui, y, 0, ui->cols, ui->msg_style, ui->msg);
    } else if (ui->top && ui->top->keys)
        ui_put(ui, y, 0, ui->cols, DOC_DIM, ui->top->keys);
}

/* Flows text to the terminal's width into d; returns its lines, or -1 when
 * a word had to be cut or a line is wider than the terminal (doc_flow keeps
 * lines of 8 columns at least). */
static int flow_whole(struct doc *d, const char *text, int cols)
{
    struct doc_para p = {0};
    const char *w = text;
    doc_para_add(&p, DOC_TEXT, text, strlen(text));
    doc_flow(d, &p, cols, "", DOC_TEXT);
    doc_para_free(&p);
    for (int i = 0; i < d->nlines; i++)
        if (doc_width(d->lines[i].text, d->lines[i].len) > cols)
            return -1;
    while (*w) {
        size_t n = strcspn(w, " ");
        if (doc_width(w, n) > cols)
            return -1;
        w += n + strspn(w + n, " ");
    }
    return d->nlines;
}

void ui_draw_too_small(struct ui *ui)
{
    char need[32], has[48], quit[] = "enlarge it, or press q to quit";
    char full[160], brief[96], bare[32];
    erase();
    snprintf(need, sizeof need, "needs %dx%d", UI_MIN_COLS, UI_MIN_ROWS);
    snprintf(has, sizeof has, "this terminal is %dx%d", ui->cols, ui->rows);
    snprintf(full, sizeof full, "%s; %s: %s", need, has, quit);
    snprintf(brief, sizeof brief, "%s; q quits", need);
    snprintf(bare, sizeof bare, "%dx%d", UI_MIN_COLS, UI_MIN_ROWS);
    /* The whole message where it fits, word for word; then shorter ones,
     * so that a tiny terminal still reads the size it needs. */
    const char *const tries[] = {full, brief, need, bare};
    struct doc d;
    doc_init(&d);
    int n = -1;
    for (size_t t = 0; t < sizeof tries / sizeof tries[0]; t++) {
        doc_free(&d);
        doc_init(&d);
        if ((n = flow_whole(&d, tries[t], ui->cols)) >= 0 && n <= ui->rows)
            break;
    }
    int top = (ui->rows - d.nlines) / 2 > 0 ? (ui->rows - d.nlines) / 2 : 0;
    for (int i = 0; i < d.nlines && top + i < ui->rows; i++)
        ui_put(ui, top + i, 0, ui->cols, i == 0 ? DOC_STRONG : DOC_TEXT, d.lines[i].text);
    doc_free(&d);
}

void ui_dump(FILE *f)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    for (int y = 0; y < rows; y++) {
        char line[4096];
        size_t n = 0, keep = 0;
        mbstate_t ps;
        memset(&ps, 0, sizeof ps);
        for (int x = 0; x < cols && n + MB_LEN_MAX < sizeof line; x++) {
            cchar_t cc;
            wchar_t wc[CCHARW_MAX + 1];
            attr_t a;
            short pair;
            if (mvin_wch(y, x, &cc) == ERR || getcchar(&cc, wc, &a, &pair, NULL) == ERR || !wc[0])
                wc[0] = L' ';
            size_t k = wcrtomb(line + n, wc[0], &ps);
            if (k == (size_t)-1) {
                line[n] = '?';
                k = 1;
            }
            n += k;
            if (wc[0] != L' ')
                keep = n;
        }
        fprintf(f, "%.*s\n", (int)keep, line);
    }
}
