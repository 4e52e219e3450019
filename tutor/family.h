/* family.h — the judge's families, one row each, read by C (the catalog, the
 * runner) and CUDA C++ (the judges) alike: the one numbering a family has,
 * on the wire between judge and runner as in the catalog.
 *
 * A row names the family (its JSON name in data/labs.json, its entry point
 * lab_<name> in lab.h, its judge tutor/harness/hx_fam_<name>.cu, built as
 * judge_<name> and judge_cpu_<name>) and the entry point's four buffers in
 * lab.h's words, each (name, size, writable):
 *
 *   size FB_N       n 4-byte elements         FB_ONE4, FB_ONE8  one value
 *   size FB_LIMBS   n numbers of LAB_MP_LIMBS FB_SCRATCH LAB_SCRATCH_BYTES(n)
 *   size FB_FAMILY  the family's judge sets it (n alone does not say)
 *
 * FB_NONE is a buffer the entry point does not take.  The runner calls the
 * entry point with the arguments runner.c lists under ENTRY_ARGS_<name>;
 * the Makefile takes its list of judges from this table; a family that
 * lacks one of these pieces does not build, and tests/unit/test_catalog.c
 * fails for one without its catalog entry, a lab or a judge. */
#ifndef FAMILY_H
#define FAMILY_H

#define FAMILY_TABLE(X)                                                                                    \
    X(FAMILY_REDUCE_INT, reduce_int, ("d_in", FB_N, 0), ("d_out", FB_ONE4, 1), ("d_scratch", FB_SCRATCH, 1), \
      FB_NONE)                                                                                             \
    X(FAMILY_REDUCE_FLOAT, reduce_float, ("d_in", FB_N, 0), ("d_out", FB_ONE4, 1),                         \
      ("d_scratch", FB_SCRATCH, 1), FB_NONE)                                                               \
    X(FAMILY_TRAPEZOID, trapezoid, FB_NONE, ("d_out", FB_ONE4, 1), ("d_scratch", FB_SCRATCH, 1), FB_NONE)  \
    X(FAMILY_MPADD, mpadd, ("a", FB_LIMBS, 0), ("b", FB_LIMBS, 0), ("r", FB_LIMBS, 1), ("carry_out", FB_N, 1)) \
    X(FAMILY_ARGMAX, argmax, ("d_in", FB_N, 0), ("d_out", FB_ONE8, 1), ("d_scratch", FB_SCRATCH, 1), FB_NONE) \
    X(FAMILY_SELECT, select, ("d_in", FB_N, 0), ("d_out", FB_N, 1), ("d_scratch", FB_SCRATCH, 1),          \
      ("d_count", FB_ONE4, 1))                                                                             \
    X(FAMILY_SCAN, scan, ("d_in", FB_N, 0), ("d_out", FB_N, 1), ("d_scratch", FB_SCRATCH, 1), FB_NONE)     \
    X(FAMILY_ROWNORM, rownorm, ("d_in", FB_FAMILY, 0), ("d_out", FB_FAMILY, 1), FB_NONE, FB_NONE)

enum family_size { FB_ABSENT, FB_N, FB_ONE4, FB_ONE8, FB_LIMBS, FB_SCRATCH, FB_FAMILY };
#define FB_NONE ((const char *)0, FB_ABSENT, 0)

/* From 1: a zeroed call names no family. */
enum family_id {
    FAMILY_NONE,
#define FAMILY_ENUM_(e, name, b0, b1, b2, b3) e,
    FAMILY_TABLE(FAMILY_ENUM_)
#undef FAMILY_ENUM_
    FAMILY_END                  /* one past the last */
};
#define FAMILY_COUNT (FAMILY_END - 1)

#define FAMILY_STR_(x) #x
#define FAMILY_BUF_NAME_(name, size, writable) name
#define FAMILY_BUF_SIZE_(name, size, writable) size
#define FAMILY_BUF_WRITABLE_(name, size, writable) writable

/* The family's JSON name; NULL for an id outside the table. */
static inline const char *family_json_name(int id)
{
    switch (id) {
#define FAMILY_NAME_(e, name, b0, b1, b2, b3) \
    case e:                                   \
        return FAMILY_STR_(name);
        FAMILY_TABLE(FAMILY_NAME_)
#undef FAMILY_NAME_
    default:
        return (const char *)0;
    }
}

/* Buffer b (0 to 3) of the family's entry point: its name in lab.h (NULL
 * when the entry point takes none there), its size, whether the kernel may
 * write it. */
struct family_buffer {
    const char *name;
    enum family_size size;
    int writable;
};

static inline struct family_buffer family_buffer(int id, int b)
{
    struct family_buffer none = {(const char *)0, FB_ABSENT, 0};
    switch (id) {
#define FAMILY_BUFS_(e, name, b0, b1, b2, b3)                                                     \
    case e: {                                                                                     \
        const struct family_buffer r[4] = {                                                       \
            {FAMILY_BUF_NAME_ b0, FAMILY_BUF_SIZE_ b0, FAMILY_BUF_WRITABLE_ b0},                 \
            {FAMILY_BUF_NAME_ b1, FAMILY_BUF_SIZE_ b1, FAMILY_BUF_WRITABLE_ b1},                 \
            {FAMILY_BUF_NAME_ b2, FAMILY_BUF_SIZE_ b2, FAMILY_BUF_WRITABLE_ b2},                 \
            {FAMILY_BUF_NAME_ b3, FAMILY_BUF_SIZE_ b3, FAMILY_BUF_WRITABLE_ b3}};                \
        return b >= 0 && b < 4 ? r[b] : none;                                                     \
    }
        FAMILY_TABLE(FAMILY_BUFS_)
#undef FAMILY_BUFS_
    default:
        return none;
    }
}

#endif /* FAMILY_H */
