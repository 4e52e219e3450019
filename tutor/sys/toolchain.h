/* toolchain.h — where things are: the workbook, lab.h, the compiled harness,
 * and the CUDA tools (nvcc, nm, compute-sanitizer, ncu).  Found once at start;
 * every later step reads paths from here instead of searching again. */
#ifndef TOOLCHAIN_H
#define TOOLCHAIN_H

#include <stddef.h>

struct toolchain {
    char *root;             /* the workbook: data/labs.json, labs/, build/ */
    char *include_dir;      /* the folder holding lab.h */
    char *harness_dir;      /* judge_<family>, rt.o and runner.o */
    char *build_dir;        /* scratch space for checks */
    char *nvcc;             /* NULL: none found */
    char *nm;
    char *cxx;              /* the C++ compiler that links the runner (g++, else c++) */
    char *sanitizer;        /* compute-sanitizer, or NULL */
    char *ncu;              /* Nsight Compute CLI, or NULL */
    char arch[16];          /* sm_90: what the harness objects were built for */
};

/* Finds the workbook: `explicit_root` if given, else $CUDATUTOR_ROOT, else the
 * nearest folder at or above the current one that holds data/labs.json.
 * Writes a heap path to *out.  Returns 0, or -1 with a message in err. */
int toolchain_find_root(const char *explicit_root, char **out, char *err, size_t errlen);

/* Fills tc for the given root.  Missing tools are NULL, not errors: a check
 * reports what it could not do. */
int toolchain_init(struct toolchain *tc, const char *root, char *err, size_t errlen);

void toolchain_free(struct toolchain *tc);

/* Whether another check of the lab is running now: check_run holds
 * build/check/NN/.lock for a whole check, and a second check of the same
 * lab waits for it.  Lets a front end say what it waits for. */
int toolchain_check_busy(const struct toolchain *tc, const char *lab_id);

/* A path inside the workbook (heap). */
char *toolchain_path(const struct toolchain *tc, const char *rel);

#endif /* TOOLCHAIN_H */
