/* check_pch.h — the host compiler's step of a split compile with the
 * headers of cudafe++'s file precompiled (check_pch.c). */
#ifndef CHECK_PCH_H
#define CHECK_PCH_H

#include <stddef.h>

/* The host compiler's step as nvcc's plan has it. */
struct pch_job {
    const char *host_cmd;       /* its command, for sh -c: ... -x c++ ... "CFILE" -o "OBJ" */
    const char *cfile;          /* cudafe++'s file it compiles */
    const char *obj;            /* the object it writes */
    const char *dir;            /* where the precompiled headers are kept */
    char *const *env;           /* nvcc's variables, "NAME=VALUE", NULL-terminated */
    double timeout_s;           /* for making a .gch */
};

/* What a compile through the .gch runs, and what it changed. */
struct pch_use {
    char *cmd;                  /* job->host_cmd, told to name a .gch it cannot use */
    char *gch;                  /* the .gch */
    char *orig;                 /* job->cfile's own bytes, orig_len of them */
    size_t orig_len;
};

/* Rewrites job->cfile as `#include` of its headers, precompiled in
 * job->dir (made there first when missing), and its own part: the same
 * translation unit, for use->cmd to compile.  0 with *use filled, or -1
 * with the file untouched (no header to take apart, a header that does not
 * compile silently on its own, a folder that cannot be written). */
int pch_rewrite(const struct pch_job *job, struct pch_use *use);

/* After use->cmd ran (its output, or NULL): job->cfile's own bytes back,
 * a .gch the compile said it could not use dropped (the next compile
 * makes it anew), *use freed.  0, or -1 when the file could not be put
 * back. */
int pch_restore(const struct pch_job *job, struct pch_use *use, const char *output);

#endif /* CHECK_PCH_H */
