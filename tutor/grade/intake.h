/* intake.h — taking one submission in: a workbook folder or a .tar.gz,
 * .tgz, .tar or .zip of one, from which only each selected lab's kernel.cu
 * is taken (labs/NN-slug/kernel.cu or NN-slug/kernel.cu, or the same one
 * folder down), into a fresh copy of the pristine workbook; intake.json says
 * what was taken, refused or missing.
 *
 * Archives are read with libarchive and judged while they are read, never
 * unpacked first and never by the sizes their headers claim: the members
 * counted, the bytes actually decompressed counted, each kernel.cu's bytes
 * counted, and reading stops at the first limit passed.  Nothing but the
 * taken kernels is ever written, and only to paths built from the catalog.
 * A folder is read without following a symbolic link anywhere on the way
 * to a kernel.cu.  Each kernel.cu is judged by model/intake_rule.h (a
 * regular file, the size limit, UTF-8 text), whose sentences it gives, as
 * the tutor's check does. */
#ifndef INTAKE_H
#define INTAKE_H

#include <stddef.h>

#include "model/catalog.h"
#include "status.h"

/* --max-file-kb, --max-unpacked-mb, --max-members. */
struct intake_limits {
    int max_file_kb;            /* the largest kernel.cu taken, in KiB */
    int max_unpacked_mb;        /* the most an archive may decompress to, in MiB */
    int max_members;            /* the most members (of any type) an archive may hold */
};

#define INTAKE_LIMITS_DEFAULT {256, 64, 10000}

/* One lab's kernel.cu. */
struct intake_lab {
    const struct lab *lab;      /* from the catalog given to intake_take (NULL after
                                 * intake_load, which has only the id) */
    char *id;                   /* "01" */
    int ok;                     /* taken: WORKDIR/wb/<lab dir>/kernel.cu holds it */
    enum status status;         /* when not ok: STATUS_MISSING, STATUS_UNCHANGED
                                 * or STATUS_REFUSED (status.h's words) */
    char *from;                 /* the member or the path inside the folder it came
                                 * from; NULL when none was found */
    long long bytes;            /* its size as read; 0 when none was read */
    char *why;                  /* the reason when not ok, e.g. "labs/01-x/kernel.cu
                                 * is a link"; NULL when ok */
};

struct intake {
    char *submission;           /* the name as given ("bob.tar.gz") */
    char *kind;                 /* "folder", "tar.gz", "tar", "zip"; NULL when it is
                                 * none of them (then refused says so) */
    char *refused;              /* why the whole submission was refused (every lab is
                                 * then refused with this reason); NULL when not */
    struct intake_lab *labs;    /* in the order of the labs given */
    int nlabs;
};

/* Takes submission src (a path; name is what it is called, its basename,
 * whose extension picks the archive kind, any case) into the student's
 * work folder dir:
 *   - removes dir and everything in it first (never following a link);
 *   - dir/wb/: data/labs.json and tutor/lab.h copied from the pristine
 *     workbook, and <lab dir>/kernel.cu for each lab taken (mode 0644);
 *   - dir/intake.json: {submission, kind, refused, labs: {ID: {state,
 *     from, bytes, why}}} with state "ok" or status.h's name, and null for
 *     a kind, refused, from or why that is not there (an invalid UTF-8
 *     byte in a name is written as U+FFFD).
 * labs[0..nlabs) are the labs to take (--labs), from cat;
 * labs NULL takes every lab of cat, in its order.  A
 * kernel.cu byte-equal to the pristine stub (PRISTINE/<lab stub>,
 * data/stubs/, never the grading checkout's labs/) is "unchanged" and not
 * kept.  res gets what intake.json says (free with intake_free).
 * Returns 0 whatever was taken or refused; -1 with err only when the
 * grader itself failed (dir could not be written, the pristine workbook
 * unreadable, out of memory): the student is then not graded. */
int intake_take(const struct catalog *cat, const struct lab *const *labs, int nlabs,
                const char *pristine, const char *name, const char *src, const char *dir,
                const struct intake_limits *lim, struct intake *res, char *err, size_t errlen);

/* Reads an intake.json back (resume, rescore, the reports): the only way
 * to read one.  Labs keep the file's order; lab pointers are NULL.
 * Returns 0, or -1 with "PATH: why" in err. */
int intake_load(const char *path, struct intake *res, char *err, size_t errlen);

void intake_free(struct intake *res);

/* The lab's state as intake.json names it: "ok" or status_name(status). */
const char *intake_state_name(const struct intake_lab *l);

/* The entry for lab id ("01"), or NULL. */
const struct intake_lab *intake_find(const struct intake *res, const char *id);

#endif /* INTAKE_H */
