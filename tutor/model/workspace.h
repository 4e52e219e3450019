/* workspace.h — the student's files in a lab folder: where the kernel is,
 * the pristine stub (data/stubs/NN-slug.cu, kept with the catalog so that
 * neither the student's edits nor their git commits can change it),
 * putting it back after a timestamped backup of the student's work, reading
 * the reference solution, and opening the kernel in the student's editor.
 * No curses: the UI ends its screen around workspace_edit. */
#ifndef WORKSPACE_H
#define WORKSPACE_H

#include <stddef.h>

#include "model/catalog.h"

/* ROOT/labs/NN-slug/kernel.cu (heap; NULL when out of memory). */
char *workspace_kernel(const char *root, const struct lab *lab);

/* Whether the lab folder holds name ("kernel.cu", "README.md"): 0 when it
 * does (a kernel.cu that is there as anything, a link or a folder too: the
 * check's intake rule refuses what is not a plain file); -1 when it does
 * not, with a message in err that names what is missing and the command
 * that restores it. */
int workspace_present(const char *root, const struct lab *lab, const char *name, char *err, size_t errlen);

/* The pristine stub's text (heap), or NULL with a message in err that says
 * how to restore a missing one. */
char *workspace_stub(const char *root, const struct lab *lab, char *err, size_t errlen);

/* Puts the pristine stub back in place of the lab's kernel.cu (creating the
 * lab folder's file if it was deleted).  The student's file, when it exists
 * and differs from the stub, is first copied to kernel.cu.bak-YYYYmmdd-HHMMSS;
 * its path goes into backup ("" when no backup was needed).  Needs no git.
 * Returns 0, or -1 with a message in err (stub missing, cannot write) and
 * the student's file untouched. */
int workspace_reset(const char *root, const struct lab *lab, char *backup, size_t backuplen, char *err,
                    size_t errlen);

/* The reference solution's text (heap), or NULL with a message in err. */
char *workspace_solution(const char *root, const struct lab *lab, char *err, size_t errlen);

/* Runs $VISUAL, else $EDITOR, else vi on path, at line when line > 0 (as
 * "+LINE path", whatever the editor), in the foreground of the terminal;
 * returns when the editor exits.  The caller must have given up the
 * screen.  Returns 0, or -1 with a message in err. */
int workspace_edit(const char *path, int line, char *err, size_t errlen);

#endif /* WORKSPACE_H */
