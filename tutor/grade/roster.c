/* roster.c — see roster.h. */
#include "grade/roster.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sys/csv.h"
#include "sys/util.h"

/* name ends in ext, any case. */
static int ends_with_nocase(const char *name, size_t n, const char *ext)
{
    size_t e = strlen(ext);
    return n >= e && !strncasecmp(name + n - e, ext, e);
}

int roster_derive_id(const char *name, char *out, size_t len)
{
    size_t n = strlen(name), o = 0;
    int rc = 0;

    if (!len)
        return -1;
    if (ends_with_nocase(name, n, ".tar.gz"))
        n -= 7;
    else if (ends_with_nocase(name, n, ".tgz") || ends_with_nocase(name, n, ".tar") ||
             ends_with_nocase(name, n, ".zip"))
        n -= 4;
    /* Byte by byte, as tr did: a UTF-8 letter is two or more '_'. */
    for (size_t i = 0; i < n && o < ROSTER_ID_MAX; i++) {
        unsigned char c = (unsigned char)name[i];
        int safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                   c == '.' || c == '_' || c == '@' || c == '+' || c == '-';
        char ch = safe ? (char)c : '_';
        /* A leading '.' or '-' would make a hidden file or an option. */
        if (!o && (ch == '.' || ch == '-'))
            continue;
        if (o + 1 >= len) {
            rc = -1;
            break;
        }
        out[o++] = ch;
    }
    out[o] = '\0';
    if (!o && util_print(out, len, "%s", "student"))
        return -1;
    return rc;
}

/* A header cell as it is compared: lower case, spaces dropped. */
static void header_key(const char *cell, char *key, size_t len)
{
    size_t k = 0;
    for (; *cell && k + 1 < len; cell++)
        if (*cell != ' ')
            key[k++] = (char)((*cell >= 'A' && *cell <= 'Z') ? *cell - 'A' + 'a' : *cell);
    key[k] = '\0';
}

static int key_is(const char *key, const char *const *names)
{
    for (; *names; names++)
        if (!strcmp(key, *names))
            return 1;
    return 0;
}

int roster_parse(struct roster *r, const char *text, size_t len, const char *name,
                 char *err, size_t errlen)
{
    static const char *const sub_names[] = {"submission", "file", "folder", "archive", NULL};
    static const char *const id_names[] = {"student_id", "studentid", "student", "id", "sid", NULL};
    struct csv_table t;
    char why[200];
    int sub_col = -1, id_col = -1, rc = -1;

    memset(r, 0, sizeof *r);
    if (csv_parse(text, len, &t, why, sizeof why)) {
        util_print(err, errlen, "%s: %s", name, why);
        return -1;
    }
    if (t.nrows) {
        for (int i = 0; i < t.rows[0].nfields; i++) {
            char key[64];
            header_key(t.rows[0].fields[i], key, sizeof key);
            if (key_is(key, sub_names))
                sub_col = i;
            else if (key_is(key, id_names) && id_col < 0)
                id_col = i;
        }
    }
    if (sub_col < 0 || id_col < 0) {
        util_print(err, errlen, "%s needs a header row with the columns submission and student_id", name);
        goto out;
    }
    r->entries = calloc((size_t)t.nrows, sizeof *r->entries);
    if (!r->entries && t.nrows) {
        util_print(err, errlen, "%s: out of memory", name);
        goto out;
    }
    for (int i = 1; i < t.nrows; i++) {
        const struct csv_row *row = &t.rows[i];
        if (sub_col >= row->nfields || id_col >= row->nfields)
            continue;
        if (!*row->fields[sub_col] || !*row->fields[id_col])
            continue;
        struct roster_entry *e = &r->entries[r->n];
        e->submission = strdup(row->fields[sub_col]);
        e->student = strdup(row->fields[id_col]);
        r->n++;
        if (!e->submission || !e->student) {
            util_print(err, errlen, "%s: out of memory", name);
            goto out;
        }
    }
    rc = 0;
out:
    csv_free(&t);
    if (rc)
        roster_free(r);
    return rc;
}

int roster_load(struct roster *r, const char *path, char *err, size_t errlen)
{
    size_t len;
    memset(r, 0, sizeof *r);
    char *text = util_read_file(path, &len);
    if (!text) {
        util_print(err, errlen, "cannot read the roster %s", path);
        return -1;
    }
    int rc = roster_parse(r, text, len, path, err, errlen);
    free(text);
    return rc;
}

void roster_free(struct roster *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->entries[i].submission);
        free(r->entries[i].student);
    }
    free(r->entries);
    memset(r, 0, sizeof *r);
}

/* The last row for key (a later row overrides an earlier one), or NULL. */
static const char *find(const struct roster *r, const char *key)
{
    for (int i = r->n - 1; i >= 0; i--)
        if (!strcmp(r->entries[i].submission, key))
            return r->entries[i].student;
    return NULL;
}

const char *roster_lookup(const struct roster *r, const char *name)
{
    char stem[ROSTER_ID_MAX + 1];
    const char *s = find(r, name);
    if (s)
        return s;
    roster_derive_id(name, stem, sizeof stem);
    return find(r, stem);
}

int roster_student_id(const struct roster *r, const char *name, char *out, size_t len)
{
    const char *s = r ? roster_lookup(r, name) : NULL;
    int rc = roster_derive_id(s ? s : name, out, len);
    if (rc)
        return -1;
    return s ? 1 : 0;
}
