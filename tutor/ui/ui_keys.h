/* ui_keys.h — every key binding, once: the key, a second key, how the help
 * screen names them, the flag the binding raises when the view on top does
 * not handle the key itself, and the help text.  The keymap lookup and the
 * ? screen are both generated from this table. */
#ifndef UI_KEYS_H
#define UI_KEYS_H

/*  action        key         alt         shown      global flag   help */
#define UI_KEYMAP(X)                                                                                        \
    X(ACT_DOWN,     'j',        KEY_DOWN,   "j ↓",     0,            "next lab; in a page, scroll down")      \
    X(ACT_UP,       'k',        KEY_UP,     "k ↑",     0,            "previous lab; in a page, scroll up")    \
    X(ACT_PGDN,     KEY_NPAGE,  ' ',        "PgDn Space", 0,         "the lesson or page down a screen")      \
    X(ACT_PGUP,     KEY_PPAGE,  'b',        "PgUp b",  0,            "up a screen")                           \
    X(ACT_TOP,      KEY_HOME,   '<',        "Home <",  0,            "to the top")                            \
    X(ACT_BOTTOM,   KEY_END,    '>',        "End >",   0,            "to the end")                            \
    X(ACT_OPEN,     '\n',       KEY_ENTER,  "Enter",   UI_LESSON,    "read the lesson full screen")           \
    X(ACT_SEARCH,   '/',        0,          "/",       UI_SEARCH,    "search the lesson or page")             \
    X(ACT_NEXT,     'n',        0,          "n",       0,            "next match")                            \
    X(ACT_PREV,     'N',        0,          "N",       0,            "previous match")                        \
    X(ACT_CHECK,    'c',        0,          "c",       UI_CHECK,     "check your kernel")                      \
    X(ACT_EDIT,     'e',        0,          "e",       UI_EDIT,      "edit kernel.cu in $VISUAL or $EDITOR")  \
    X(ACT_TRACE,    't',        0,          "t",       UI_TRACE,     "see your kernel run: its steps at n=64 on the emulator, Space for the next barrier, j/k each row") \
    X(ACT_HINT,     'h',        0,          "h",       UI_HINT,      "the next hint, after asking (recorded, never graded)") \
    X(ACT_RESET,    'r',        0,          "r",       UI_RESET,     "reset kernel.cu to the stub (asks first, keeps a backup)") \
    X(ACT_SOLUTION, 's',        0,          "s",       UI_SOLUTION,  "the solution, once the lab has passed") \
    X(ACT_CHART,    'g',        0,          "g",       UI_CHART,     "the chart: your own ladder of GB/s")    \
    X(ACT_WATCH,    'w',        0,          "w",       UI_WATCH,     "watch mode on/off: check on every save") \
    X(ACT_PROGRESS, 'p',        0,          "p",       UI_PROGRESS,  "your progress: labs passed, best results, hints used") \
    X(ACT_HELP,     '?',        KEY_F(1),   "? F1",    UI_HELP,      "this help")                             \
    X(ACT_BACK,     'q',        27,         "q Esc",   UI_CLOSE,     "back; on the main screen q quits")      \
    X(ACT_QUIT,     'Q',        0,          "Q",       UI_QUIT,      "quit from anywhere")

enum ui_action {
    ACT_NONE,
#define UI_ACTION_ENUM_(act, key, alt, shown, flag, help) act,
    UI_KEYMAP(UI_ACTION_ENUM_)
#undef UI_ACTION_ENUM_
    ACT_COUNT
};

#endif /* UI_KEYS_H */
