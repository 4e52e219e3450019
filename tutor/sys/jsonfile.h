/* jsonfile.h — a JSON file this program owns and rewrites whole (the
 * student's progress.json, calibration.json): an object whose "schema"
 * names its layout, read and changed so that nothing in it is ever lost.
 *
 * The rules, the same for every such file:
 *  - every change is made under an exclusive flock(2) on PATH.lock, to the
 *    file as re-read under that lock, and written to a temporary in the
 *    same folder, fsynced, renamed over PATH, the folder fsynced: two
 *    writers never lose each other's change, and a reader sees the old
 *    file or the new one, never a mix;
 *  - a file that is not one of its kind (not JSON, truncated, no schema, a
 *    field its kind refuses) is never overwritten: it is renamed to
 *    PATH.corrupt-<time> and the caller is told where it went;
 *  - a file of a newer schema is refused and left untouched;
 *  - where its kind says so, a file whose mode bits deny this process
 *    writing is refused and left untouched, and a rewritten one keeps its
 *    mode (a rename would replace it whatever its bits say).
 * Each kind brings only what is its own: its schema, how its object is
 * read from and written to JSON, and its words in the messages. */
#ifndef JSONFILE_H
#define JSONFILE_H

#include <stddef.h>

struct cJSON;

/* What a read or a change of the file came to. */
enum jsonfile_rc {
    JSONFILE_OK = 0,
    JSONFILE_ERROR = -1,        /* not its kind, or cannot read, lock or write (message in err) */
    JSONFILE_NEWER = -2         /* a newer schema: refused, the file untouched */
};

/* Fills obj (all zero bytes on entry) from root, the file's object with a
 * schema this program reads.  Returns 0, or -1 with why when root is not
 * one of its kind; obj is then empty again (all it took freed). */
typedef int (*jsonfile_get)(void *obj, const struct cJSON *root, char *why, size_t whylen);

/* Adds obj's members to root, an object that holds "schema" already;
 * -1 when out of memory. */
typedef int (*jsonfile_put)(const void *obj, struct cJSON *root);

/* One kind of file. */
struct jsonfile_kind {
    int schema;                 /* the layout written, and the newest read */
    size_t size;                /* of its object, which all zero bytes leave empty */
    jsonfile_get get;
    jsonfile_put put;
    /* Its words, each the end of a sentence whose start is fixed: */
    const char *what;           /* "PATH is not WHAT (why)": "valid progress" */
    const char *newer_advice;   /* after "PATH was written by a newer ...; left it untouched" */
    const char *aside_advice;   /* after "PATH was not WHAT (why); kept it as ASIDE" */
    const char *read_only;      /* after "PATH is read-only (mode 0444); left it untouched";
                                 * NULL: its mode bits are not this kind's rule */
};

/* A kind's get reads its fields leniently, as a file an older cudatutor
 * wrote asks: a string member copied into dst (at most len-1 bytes), ""
 * when absent or not a string; a number member, dflt when absent or not a
 * number. */
void jsonfile_str(const struct cJSON *o, const char *key, char *dst, size_t len);
double jsonfile_num(const struct cJSON *o, const char *key, double dflt);

/* Parses TEXT as a file of kind k into obj (emptied first): a JSON object
 * whose "schema" is a number from 1 up to k->schema, then k->get.
 * JSONFILE_OK; JSONFILE_NEWER for a schema past k->schema (a newer
 * cudatutor wrote it); JSONFILE_ERROR for anything else.  Otherwise than
 * OK, obj is empty and why says what is wrong. */
int jsonfile_parse(const struct jsonfile_kind *k, void *obj, const char *text, char *why, size_t whylen);

/* The text of a file of layout SCHEMA: an object, "schema" first, then
 * put's members, in cJSON_Print's layout.  Heap; NULL when out of memory. */
char *jsonfile_format(int schema, jsonfile_put put, const void *obj);

/* Reads path into obj (emptied first); a missing file leaves it empty.  A
 * file not of its kind is moved aside under the lock, obj left empty, and
 * note says where it went (note is "" otherwise); when the lock cannot be
 * taken (a folder this process may not write to) the file is read without
 * it, and one not of its kind is JSONFILE_ERROR, left where it is.
 * Returns as jsonfile_parse, with the message in err. */
int jsonfile_load(const char *path, const struct jsonfile_kind *k, void *obj, char *note, size_t notelen,
                  char *err, size_t errlen);

/* A change to a file's object: returns 0 to write obj, a positive number to
 * leave the file as it is, a negative one when out of memory. */
typedef int (*jsonfile_change)(void *obj, void *ud);

/* Under the lock: reads path into obj as jsonfile_load does (moving a file
 * not of its kind aside, with the note), applies change, and writes obj
 * through a temporary and a rename.  obj is emptied first and holds what
 * was read and changed, which the caller frees whatever the outcome.  Returns
 * JSONFILE_OK (also when change left the file as it was), JSONFILE_NEWER,
 * or JSONFILE_ERROR with the message in err. */
int jsonfile_update(const char *path, const struct jsonfile_kind *k, void *obj, jsonfile_change change, void *ud,
                    char *note, size_t notelen, char *err, size_t errlen);

#endif /* JSONFILE_H */
