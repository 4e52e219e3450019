/* check_early.h — the host compiler's step begun before the fatbinary is
 * made, its object nvcc's byte for byte (check_early.c). */
#ifndef CHECK_EARLY_H
#define CHECK_EARLY_H

struct early_host {
    char *standin;      /* the stand-in fatbinary C file's text */
    char *fatbin_c;     /* where the stub includes it from (nvcc's --embedded-fatbin) */
    char *next;         /* where fatbinary writes the real one meanwhile */
    char *s_path;       /* the host compiler's assembly */
    int placed;         /* the stand-in is at fatbin_c */
};

/* Readies e from the fatbinary C file an earlier compile left at fatbin_c
 * (the stand-in copies it, its data one .quad) and points *fatbin_cmd (a
 * command of the plan, replaced) at e->next.  0, or -1 with nothing
 * changed (no earlier file, or one of a shape this does not know). */
int early_plan(struct early_host *e, char **fatbin_cmd, const char *fatbin_c, const char *obj);

/* Puts the stand-in where the stub includes it from; 0 or -1. */
int early_standin(struct early_host *e);

/* host_cmd (the plan's host compile: -c ... -o "OBJ") as a compile to
 * e->s_path; heap, NULL when it has no such words. */
char *early_compile_cmd(const struct early_host *e, const char *host_cmd, const char *obj);

/* Once fatbinary wrote e->next: the stand-in's data in e->s_path replaced
 * by the real file's, and the command (heap) that assembles it into the
 * object as host_cmd would have compiled cfile into it.  NULL when the real
 * file differs from the stand-in by more than its data, or the assembly
 * does not hold the stand-in's block once. */
char *early_assemble_cmd(struct early_host *e, const char *host_cmd, const char *cfile);

/* fatbinary's file where nvcc leaves it (or, when none was made, no
 * stand-in left), the assembly removed, e freed. */
void early_free(struct early_host *e);

/* Only fatbinary's file put where nvcc leaves it (before the host
 * compiler reads it); early_free does the rest. */
void early_settle(struct early_host *e);

#endif /* CHECK_EARLY_H */
