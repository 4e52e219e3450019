/* owned_file.h — what the tests of a file this program owns (sys/jsonfile:
 * progress.json, calibration.json, a kind of their own) share: where a
 * corrupt file was kept, and a path whose name aside would be too long.
 * Static, for the one test program that includes it. */
#ifndef OWNED_FILE_H
#define OWNED_FILE_H

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/util.h"

/* How many files PATH.corrupt-* there are; the name when there is exactly
 * one goes to *name (heap; NULL otherwise), when name is not NULL. */
static size_t owned_asides(const char *path, char **name)
{
    char *pattern = util_format("%s.corrupt-*", path);
    glob_t g;
    size_t n = 0;
    if (name)
        *name = NULL;
    if (pattern && glob(pattern, 0, NULL, &g) == 0) {
        n = g.gl_pathc;
        if (name && n == 1)
            *name = strdup(g.gl_pathv[0]);
        globfree(&g);
    }
    free(pattern);
    return n;
}

/* A path of about 1000 bytes under DIR, in folders made here: its
 * corrupt-<time> name passes the 1024 bytes a name aside may have, so the
 * file cannot be moved aside.  Heap; NULL when out of memory. */
static char *owned_long_path(const char *dir)
{
    char part[241], *path = strdup(dir);
    memset(part, 'x', sizeof part - 1);
    part[sizeof part - 1] = '\0';
    for (int i = 0; path && i < 4; i++) {
        char *deeper = util_format("%s/%s", path, part);
        free(path);
        path = deeper;
        if (path)
            mkdir(path, 0755);
    }
    char *file = path ? util_format("%s/w.json", path) : NULL;
    free(path);
    return file;
}

#endif /* OWNED_FILE_H */
