/* ui_input.c — keys: the keymap lookup and the help screen, both generated
 * from UI_KEYMAP, and the key scripts of the headless mode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui_view.h"

static const struct binding {
    enum ui_action act;
    int key, alt;
    const char *shown;
    int flag;
    const char *help;
} keymap[] = {
#define UI_BINDING_(act, key, alt, shown, flag, help) {act, key, alt, shown, flag, help},
    UI_KEYMAP(UI_BINDING_)
#undef UI_BINDING_
};
#define NBINDINGS ((int)(sizeof keymap / sizeof keymap[0]))

enum ui_action ui_key_action(int ch)
{
    if (ch == '\r')
        ch = '\n';
    for (int i = 0; i < NBINDINGS; i++)
        if (ch == keymap[i].key || (keymap[i].alt && ch == keymap[i].alt))
            return keymap[i].act;
    return ACT_NONE;
}

int ui_action_flag(enum ui_action act)
{
    for (int i = 0; i < NBINDINGS; i++)
        if (keymap[i].act == act)
            return keymap[i].flag;
    return 0;
}

/* The help's name column: two spaces, then the key or state in this many. */
#define HELP_NAME_COLS 12

/* One row of the help: the name, then its text flowed to width under a
 * hanging indent, so that no line is cut at any width. */
static void help_row(struct doc *d, const char *name, const char *text, int width)
{
    char prefix[64];
    int pad = HELP_NAME_COLS - doc_width(name, strlen(name));
    struct doc_para p = {0};
    snprintf(prefix, sizeof prefix, "  %s%*s", name, pad > 1 ? pad : 1, "");
    doc_para_add(&p, DOC_TEXT, text, strlen(text));
    doc_flow(d, &p, width, prefix, DOC_STRONG);
    doc_para_free(&p);
}

void ui_help_build(struct doc *d, int width, const char *check_does)
{
    doc_newline(d);
    doc_add(d, DOC_H1, "Keys");
    doc_newline(d);
    for (int i = 0; i < NBINDINGS; i++) {
        char text[512];
        /* c says, after its own words, what a check does on this machine. */
        snprintf(text, sizeof text, "%s%s%s", keymap[i].help, keymap[i].act == ACT_CHECK && check_does ? ": " : "",
                 keymap[i].act == ACT_CHECK && check_does ? check_does : "");
        help_row(d, keymap[i].shown, text, width);
    }
    doc_newline(d);
    doc_newline(d);
    doc_add(d, DOC_H2, "The labs");
    /* "passed" is the lab's state once a check ended in pass: worded by
     * status.h, like every verdict. */
    char passed[160];
    snprintf(passed, sizeof passed, "a check ended in %s: %s", status_name(STATUS_PASS),
             status_meaning(STATUS_PASS));
    const char *const legend[][2] = {
        {"locked", "opens when the lab before it passes; the Bonus labs when lab 08 does (--unlock-all opens every lab)"},
        {"open", "yours to do"},
        {"passed", passed},
        {"on target", "passed, and fast enough: the catalog's target met"},
    };
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++)
        help_row(d, legend[i][0], legend[i][1], width);
    doc_newline(d);
    doc_newline(d);
    doc_add(d, DOC_H2, "Everything is also a command");
    struct doc_para p = {0};
    const char *text = "cudatutor list, show NN, check NN, hint NN, reset NN, progress, solution NN: "
                       "run cudatutor --help.  Progress is kept in progress.json in the workbook "
                       "(or --progress PATH, or $CUDATUTOR_PROGRESS).";
    doc_para_add(&p, DOC_TEXT, text, strlen(text));
    doc_flow(d, &p, width, "  ", DOC_TEXT);
    doc_para_free(&p);
}

static const struct {
    const char *name;
    int key;
} names[] = {
    {"Up", KEY_UP},       {"Down", KEY_DOWN}, {"Left", KEY_LEFT},     {"Right", KEY_RIGHT},
    {"PgUp", KEY_PPAGE},  {"PgDn", KEY_NPAGE}, {"Home", KEY_HOME},    {"End", KEY_END},
    {"Enter", '\n'},      {"Esc", 27},         {"Tab", '\t'},         {"BS", KEY_BACKSPACE},
    {"F1", KEY_F(1)},     {"lt", '<'},
};

int ui_keys_parse(const char *s, int *out, int max, char *err, size_t errlen)
{
    int n = 0;
    while (*s && n < max) {
        if (*s != '<') {
            out[n++] = (unsigned char)*s++;
            continue;
        }
        const char *end = strchr(s, '>');
        size_t len = end ? (size_t)(end - s - 1) : 0;
        int rows, cols, found = 0;
        if (!end) {
            snprintf(err, errlen, "key script: no > after %.20s", s);
            return -1;
        }
        if (sscanf(s + 1, "Resize %dx%d>", &cols, &rows) == 2 && cols > 0 && rows > 0 && cols < 1000 &&
            rows < 1000) {
            out[n++] = UI_KEY_RESIZE_BASE + rows * 1000 + cols;
            found = 1;
        }
        for (size_t i = 0; !found && i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == len && !strncmp(s + 1, names[i].name, len)) {
                out[n++] = names[i].key;
                found = 1;
            }
        if (!found) {
            snprintf(err, errlen, "key script: unknown key <%.*s>", (int)(len < 20 ? len : 20), s + 1);
            return -1;
        }
        s = end + 1;
    }
    return n;
}
