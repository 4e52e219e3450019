/* stage.h — the stages of a check, shared by the judge (CUDA C++) and the
 * tutor (C).  One X-macro table: the name the judge writes on its channel
 * ("@stage correctness 3/32 n=31") and a progress line carries, and the
 * label of the stages the tutor's check screen lists, in the order it
 * lists them (NULL: a stage that screen tells in words of its own, or not
 * at all).  The listed stages come first, so their order is the enum's. */
#ifndef STAGE_H
#define STAGE_H

#include <string.h>

/*        enum                name           label on the check screen */
#define STAGE_TABLE(X)                                                  \
    X(STAGE_COMPILE,      "compile",     "compile")                     \
    X(STAGE_RULES,        "rules",       "rules of lab.h")              \
    X(STAGE_LINK,         "link",        "link")                        \
    X(STAGE_CORRECTNESS,  "correctness", "correctness")                 \
    X(STAGE_TIMING,       "timing",      "timing")                      \
    X(STAGE_PEAK,         "peak",        "measured peak")               \
    X(STAGE_SANITIZE,     "sanitize",    "race check")                  \
    X(STAGE_PLANS,        "plans",       NULL) /* no GPU: each size's launch plan */ \
    X(STAGE_COUNTERS,     "counters",    NULL)                          \
    X(STAGE_TRACE,        "trace",       NULL) /* drawing one call on the emulator */ \
    X(STAGE_VERDICT,      "verdict",     NULL) /* the race checkers' words, once known */ \
    X(STAGE_DONE,         "done",        NULL)                          \
    X(STAGE_WAIT,         "wait",        NULL) /* for another check of the same lab */ \
    X(STAGE_GPU,          "gpu",         NULL) /* asking the GPU command which GPU it reaches */ \
    X(STAGE_CALIBRATE,    "calibrate",   NULL) /* timing the reference solutions first */

enum stage_id {
#define STAGE_ENUM_(e, name, label) e,
    STAGE_TABLE(STAGE_ENUM_)
#undef STAGE_ENUM_
    STAGE_COUNT
};

/* The stage's name; "" for a number outside the table. */
static inline const char *stage_name(enum stage_id s)
{
    static const char *const names[] = {
#define STAGE_NAME_(e, name, label) name,
        STAGE_TABLE(STAGE_NAME_)
#undef STAGE_NAME_
    };
    return (int)s >= 0 && s < STAGE_COUNT ? names[s] : "";
}

/* The check screen's label, or NULL when that screen does not list it. */
static inline const char *stage_label(enum stage_id s)
{
    static const char *const labels[] = {
#define STAGE_LABEL_(e, name, label) label,
        STAGE_TABLE(STAGE_LABEL_)
#undef STAGE_LABEL_
    };
    return (int)s >= 0 && s < STAGE_COUNT ? labels[s] : NULL;
}

/* The stage a name names; STAGE_COUNT for none. */
static inline enum stage_id stage_from_name(const char *name)
{
    for (int s = 0; s < STAGE_COUNT; s++)
        if (!strcmp(stage_name((enum stage_id)s), name))
            return (enum stage_id)s;
    return STAGE_COUNT;
}

#endif /* STAGE_H */
