/* jsonfile.c — see jsonfile.h.  What makes rewriting a whole file safe is
 * the order: lock, re-read, change, write a temporary, fsync, rename, fsync
 * the folder, unlock; and that a file not of its kind is renamed aside
 * under the lock, so that no write takes its name first. */
#include "sys/jsonfile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/util.h"

void jsonfile_str(const cJSON *o, const char *key, char *dst, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    util_copy(dst, len, cJSON_IsString(v) ? v->valuestring : "");
}

double jsonfile_num(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int jsonfile_parse(const struct jsonfile_kind *k, void *obj, const char *text, char *why, size_t whylen)
{
    cJSON *root = cJSON_Parse(text);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
    int rc = JSONFILE_ERROR;

    memset(obj, 0, k->size);
    if (!cJSON_IsObject(root))
        snprintf(why, whylen, "%s", root ? "not a JSON object" : "not valid JSON (truncated?)");
    else if (!cJSON_IsNumber(schema) || schema->valueint < 1)
        snprintf(why, whylen, "no schema number");
    else if (schema->valueint > k->schema) {
        snprintf(why, whylen, "written by a newer cudatutor (schema %d; this one reads schema %d)",
                 schema->valueint, k->schema);
        rc = JSONFILE_NEWER;
    } else if (k->get(obj, root, why, whylen) == 0)
        rc = JSONFILE_OK;
    cJSON_Delete(root);
    return rc;
}

char *jsonfile_format(int schema, jsonfile_put put, const void *obj)
{
    cJSON *root = cJSON_CreateObject();
    char *text = NULL;
    if (root && cJSON_AddNumberToObject(root, "schema", schema) && put(obj, root) == 0)
        text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
}

/* The lock on path.lock, held for one read-change-write only, so that a
 * wait for it is brief; its fd (closing it lets go), or -1 with errno. */
static int lock_take(const char *path)
{
    char *lp = util_format("%s.lock", path);
    int fd = lp ? util_lock(lp) : -1;
    free(lp);
    return fd;
}

/* Reads path into obj.  locked: this process holds the lock, and so may
 * move a file not of its kind aside (else it is only told). */
static int read_file(const char *path, const struct jsonfile_kind *k, int locked, void *obj, char *note,
                     size_t notelen, char *err, size_t errlen)
{
    char why[200], aside[1024];
    char *text = util_read_file(path, NULL);
    int rc;

    memset(obj, 0, k->size);
    if (!text) {
        if (errno == ENOENT)
            return JSONFILE_OK;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return JSONFILE_ERROR;
    }
    rc = jsonfile_parse(k, obj, text, why, sizeof why);
    free(text);
    if (rc == JSONFILE_NEWER) {
        snprintf(err, errlen, "%s was %s; left it untouched%s", path, why, k->newer_advice);
        return rc;
    }
    if (rc == JSONFILE_OK)
        return rc;
    if (!locked) {
        snprintf(err, errlen, "%s is not %s (%s)", path, k->what, why);
        return rc;
    }
    if (util_move_aside(path, aside, sizeof aside) != 0) {
        snprintf(err, errlen, "%s is not %s (%s) and could not be moved aside: %s", path, k->what, why,
                 strerror(errno));
        return JSONFILE_ERROR;
    }
    snprintf(note, notelen, "%s was not %s (%s); kept it as %s%s", path, k->what, why, aside, k->aside_advice);
    return JSONFILE_OK;
}

int jsonfile_load(const char *path, const struct jsonfile_kind *k, void *obj, char *note, size_t notelen,
                  char *err, size_t errlen)
{
    int fd = lock_take(path), rc;
    if (notelen)
        note[0] = '\0';
    /* A folder this process cannot write to still has a file to read. */
    rc = read_file(path, k, fd >= 0, obj, note, notelen, err, errlen);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Whether the mode bits of a file give its writer (by the owner, group or
 * other class this process falls in) the right to write it.  The bits, not
 * access(2): root may write anything, yet a student who made the file
 * read-only asked for it to be left alone. */
static int mode_writable(const struct stat *st)
{
    if (st->st_uid == geteuid())
        return (st->st_mode & S_IWUSR) != 0;
    if (st->st_gid == getegid())
        return (st->st_mode & S_IWGRP) != 0;
    return (st->st_mode & S_IWOTH) != 0;
}

int jsonfile_update(const char *path, const struct jsonfile_kind *k, void *obj, jsonfile_change change, void *ud,
                    char *note, size_t notelen, char *err, size_t errlen)
{
    struct stat st;
    char *text = NULL;
    int fd, rc, changed, keep_mode;

    memset(obj, 0, k->size);
    if (notelen)
        note[0] = '\0';
    if ((fd = lock_take(path)) < 0) {
        snprintf(err, errlen, "cannot lock %s.lock: %s", path, strerror(errno));
        return JSONFILE_ERROR;
    }
    /* Checked before the read, so that such a file stays where it is even
     * when it is not of its kind. */
    keep_mode = k->read_only && stat(path, &st) == 0;
    if (keep_mode && !mode_writable(&st)) {
        snprintf(err, errlen, "%s is read-only (mode %04o); left it untouched%s", path,
                 (unsigned)(st.st_mode & 07777), k->read_only);
        rc = JSONFILE_ERROR;
        goto out;
    }
    if ((rc = read_file(path, k, 1, obj, note, notelen, err, errlen)) != JSONFILE_OK)
        goto out;
    if ((changed = change(obj, ud)) > 0)
        goto out;
    rc = JSONFILE_ERROR;
    if (changed < 0 || !(text = jsonfile_format(k->schema, k->put, obj))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (util_write_file(path, text, strlen(text)) != 0 || (keep_mode && chmod(path, st.st_mode & 07777) != 0)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        goto out;
    }
    util_sync_dir(path);
    rc = JSONFILE_OK;
out:
    close(fd);
    free(text);
    return rc;
}
