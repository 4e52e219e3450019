/* test_jsonfile.c — sys/jsonfile on a kind of its own (a tally: one count),
 * so that the rules hold for any file that uses them: the schema read (1 up
 * to the kind's, a newer one refused), the layout written, a missing file
 * empty, a file not of its kind kept aside byte for byte (and left where it
 * is without the lock, or when it cannot be moved), a newer one untouched,
 * a change that declines or fails writes nothing, the mode bits where the
 * kind asks, and writers at once losing nothing. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/jsonfile.h"
#include "sys/util.h"
#include "owned_file.h"
#include "tap.h"

static char dir[64];

struct tally {
    int n;
};

static int get_tally(void *obj, const cJSON *root, char *why, size_t whylen)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(root, "n");
    if (!cJSON_IsNumber(n)) {
        snprintf(why, whylen, "\"n\" is not a number");
        return -1;
    }
    ((struct tally *)obj)->n = n->valueint;
    return 0;
}

static int put_tally(const void *obj, cJSON *root)
{
    return cJSON_AddNumberToObject(root, "n", ((const struct tally *)obj)->n) ? 0 : -1;
}

static int fail_put(const void *obj, cJSON *root)
{
    (void)obj;
    (void)root;
    return -1;
}

static const struct jsonfile_kind tally_file = {
    .schema = 2, .size = sizeof(struct tally), .get = get_tally, .put = put_tally,
    .what = "a tally", .newer_advice = " (newer)", .aside_advice = " (aside)", .read_only = NULL,
};
static const struct jsonfile_kind guarded_file = {
    .schema = 2, .size = sizeof(struct tally), .get = get_tally, .put = put_tally,
    .what = "a tally", .newer_advice = "", .aside_advice = "", .read_only = " (chmod it)",
};

static int add_one(void *obj, void *ud)
{
    (void)ud;
    ((struct tally *)obj)->n++;
    return 0;
}

static int decline(void *obj, void *ud)
{
    (void)ud;
    ((struct tally *)obj)->n = 99;
    return 1;
}

static int fail(void *obj, void *ud)
{
    (void)obj;
    (void)ud;
    return -1;
}

static char *path_in(const char *name)
{
    return util_format("%s/%s", dir, name);
}

static void the_schema_is_one_up_to_the_kinds(void)
{
    static const struct {
        const char *text;
        int rc, n;
        const char *why;
    } rows[] = {
        {"{\"schema\": 1, \"n\": 3}", JSONFILE_OK, 3, ""},
        {"{\"schema\": 2, \"n\": 4}", JSONFILE_OK, 4, ""},
        {"{\"schema\": 3, \"n\": 4}", JSONFILE_NEWER, 0,
         "written by a newer cudatutor (schema 3; this one reads schema 2)"},
        {"{\"schema\": 0, \"n\": 4}", JSONFILE_ERROR, 0, "no schema number"},
        {"{\"n\": 4}", JSONFILE_ERROR, 0, "no schema number"},
        {"{\"schema\": \"1\", \"n\": 4}", JSONFILE_ERROR, 0, "no schema number"},
        {"[1]", JSONFILE_ERROR, 0, "not a JSON object"},
        {"{\"schema\": 1, \"n\": ", JSONFILE_ERROR, 0, "not valid JSON (truncated?)"},
        {"", JSONFILE_ERROR, 0, "not valid JSON (truncated?)"},
        {"{\"schema\": 1, \"n\": \"4\"}", JSONFILE_ERROR, 0, "\"n\" is not a number"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct tally t = {.n = 77};
        char why[200] = "";
        EXPECT(jsonfile_parse(&tally_file, &t, rows[i].text, why, sizeof why) == rows[i].rc);
        EXPECT(t.n == rows[i].n);
        EXPECT_STR(why, rows[i].why);
    }
}

static void the_schema_is_written_first(void)
{
    struct tally t = {.n = 5};
    char *text = jsonfile_format(2, put_tally, &t);
    EXPECT_STR(text, "{\n\t\"schema\":\t2,\n\t\"n\":\t5\n}");
    free(text);
    EXPECT(jsonfile_format(2, fail_put, &t) == NULL);
}

static void a_missing_file_is_empty_and_an_update_creates_it(void)
{
    char *path = path_in("new.json"), note[512] = "x", err[512];
    struct tally t = {.n = 5};
    EXPECT(jsonfile_load(path, &tally_file, &t, note, sizeof note, err, sizeof err) == JSONFILE_OK);
    EXPECT(t.n == 0 && note[0] == '\0' && !util_is_file(path));
    EXPECT(jsonfile_update(path, &tally_file, &t, add_one, NULL, note, sizeof note, err, sizeof err) == JSONFILE_OK);
    EXPECT(jsonfile_update(path, &tally_file, &t, add_one, NULL, note, sizeof note, err, sizeof err) == JSONFILE_OK);
    char *text = util_read_file(path, NULL);
    EXPECT_STR(text, "{\n\t\"schema\":\t2,\n\t\"n\":\t2\n}");
    free(text);
    free(path);
}

/* Not of its kind: kept aside as it was, told in the kind's words; the
 * update that found it starts from empty. */
static void a_file_not_of_its_kind_is_kept_aside(void)
{
    static const char bad[] = "{\"schema\": 1, \"n\": null}";
    char *path = path_in("bad.json"), note[1024], err[512], want[1024];
    struct tally t;
    util_write_file(path, bad, strlen(bad));
    EXPECT(jsonfile_update(path, &tally_file, &t, add_one, NULL, note, sizeof note, err, sizeof err) == JSONFILE_OK);
    char *aside = NULL;
    EXPECT(t.n == 1 && owned_asides(path, &aside) == 1);
    char *kept = aside ? util_read_file(aside, NULL) : NULL;
    EXPECT_STR(kept, bad);
    /* The note names where it went and ends in the kind's words. */
    snprintf(want, sizeof want, "%s was not a tally (\"n\" is not a number); kept it as %s (aside)", path,
             aside ? aside : "?");
    EXPECT_STR(note, want);
    free(kept);
    free(aside);
    free(path);
}

/* A file not of its kind that cannot be moved aside (its name aside would
 * be too long) is refused, and stays as it was: never written over. */
static void a_file_that_cannot_be_moved_is_not_written_over(void)
{
    static const char bad[] = "{\"schema\": 1}";
    char note[512], err[2048], want[2048];
    char *path = owned_long_path(dir);
    struct tally t;
    EXPECT(path != NULL);
    if (!path)
        return;
    util_write_file(path, bad, strlen(bad));
    EXPECT(jsonfile_update(path, &tally_file, &t, add_one, NULL, note, sizeof note, err, sizeof err) ==
           JSONFILE_ERROR);
    snprintf(want, sizeof want,
             "%s is not a tally (\"n\" is not a number) and could not be moved aside: File name too long", path);
    EXPECT_STR(err, want);
    char *now = util_read_file(path, NULL);
    EXPECT_STR(now, bad);
    free(now);
    free(path);
}

/* Without the lock (PATH.lock cannot be opened) nothing is moved: a reader
 * may not take a name a writer holding the lock may be about to use. */
static void without_the_lock_nothing_is_moved(void)
{
    static const char bad[] = "{\"schema\": 1}";
    char *path = path_in("nolock.json"), *lock = path_in("nolock.json.lock"), note[512], err[512];
    struct tally t;
    util_write_file(path, bad, strlen(bad));
    mkdir(lock, 0755);
    EXPECT(jsonfile_load(path, &tally_file, &t, note, sizeof note, err, sizeof err) == JSONFILE_ERROR);
    EXPECT(owned_asides(path, NULL) == 0 && util_is_file(path));
    EXPECT(jsonfile_update(path, &tally_file, &t, add_one, NULL, note, sizeof note, err, sizeof err) ==
           JSONFILE_ERROR);
    char *now = util_read_file(path, NULL);
    EXPECT_STR(now, bad);
    free(now);
    rmdir(lock);
    free(lock);
    free(path);
}

static void a_newer_file_is_left_untouched(void)
{
    static const char newer[] = "{\"schema\": 3, \"n\": 1, \"more\": []}";
    char *path = path_in("newer.json"), note[512], err[512], want[640];
    struct tally t;
    util_write_file(path, newer, strlen(newer));
    EXPECT(jsonfile_load(path, &tally_file, &t, note, sizeof note, err, sizeof err) == JSONFILE_NEWER);
    EXPECT(jsonfile_update(path, &tally_file, &t, add_one, NULL, note, sizeof note, err, sizeof err) ==
           JSONFILE_NEWER);
    snprintf(want, sizeof want,
             "%s was written by a newer cudatutor (schema 3; this one reads schema 2); left it untouched (newer)",
             path);
    EXPECT_STR(err, want);
    char *now = util_read_file(path, NULL);
    EXPECT_STR(now, newer);
    EXPECT(owned_asides(path, NULL) == 0);
    free(now);
    free(path);
}

/* A change that declines, or runs out of memory, writes nothing. */
static void a_change_may_leave_the_file_alone(void)
{
    static const char one[] = "{\"schema\": 1, \"n\": 1}";
    char *path = path_in("keep.json"), note[512], err[512] = "";
    struct tally t;
    util_write_file(path, one, strlen(one));
    EXPECT(jsonfile_update(path, &tally_file, &t, decline, NULL, note, sizeof note, err, sizeof err) == JSONFILE_OK);
    EXPECT(t.n == 99);
    EXPECT(jsonfile_update(path, &tally_file, &t, fail, NULL, note, sizeof note, err, sizeof err) == JSONFILE_ERROR);
    EXPECT_STR(err, "out of memory");
    char *now = util_read_file(path, NULL);
    EXPECT_STR(now, one);
    free(now);
    free(path);
}

/* A kind that asks for it: a file whose bits deny writing stays as it is,
 * even when it is not of its kind; a writable one keeps its mode.  A kind
 * that does not is rewritten (the rename does not ask the file). */
static void the_mode_bits_where_the_kind_asks(void)
{
    static const char bad[] = "{\"schema\": 1}", one[] = "{\"schema\": 1, \"n\": 1}";
    char *path = path_in("mode.json"), note[512], err[512], want[640];
    struct tally t;
    struct stat st;
    util_write_file(path, bad, strlen(bad));
    chmod(path, 0444);
    EXPECT(jsonfile_update(path, &guarded_file, &t, add_one, NULL, note, sizeof note, err, sizeof err) ==
           JSONFILE_ERROR);
    snprintf(want, sizeof want, "%s is read-only (mode 0444); left it untouched (chmod it)", path);
    EXPECT_STR(err, want);
    char *now = util_read_file(path, NULL);
    EXPECT_STR(now, bad);
    EXPECT(owned_asides(path, NULL) == 0);
    free(now);
    util_write_file(path, one, strlen(one));
    chmod(path, 0600);
    EXPECT(jsonfile_update(path, &guarded_file, &t, add_one, NULL, note, sizeof note, err, sizeof err) == JSONFILE_OK);
    EXPECT(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600 && t.n == 2);
    chmod(path, 0444);
    EXPECT(jsonfile_update(path, &tally_file, &t, add_one, NULL, note, sizeof note, err, sizeof err) == JSONFILE_OK);
    EXPECT(stat(path, &st) == 0 && (st.st_mode & 07777) != 0444 && t.n == 3);
    free(path);
}

/* N processes each add M at once: the lock and the re-read under it mean
 * every one of the N*M lands. */
static void writers_at_once_lose_nothing(void)
{
    enum { N = 6, M = 40 };
    char *path = path_in("busy.json"), note[512], err[512];
    pid_t kids[N];
    for (int k = 0; k < N; k++) {
        if ((kids[k] = fork()) == 0) {
            struct tally t;
            for (int m = 0; m < M; m++)
                if (jsonfile_update(path, &tally_file, &t, add_one, NULL, note, sizeof note, err, sizeof err))
                    _exit(1);
            _exit(0);
        }
    }
    int failed = 0;
    for (int k = 0; k < N; k++) {
        int st;
        waitpid(kids[k], &st, 0);
        failed += !WIFEXITED(st) || WEXITSTATUS(st);
    }
    EXPECT(failed == 0);
    struct tally t;
    EXPECT(jsonfile_load(path, &tally_file, &t, note, sizeof note, err, sizeof err) == JSONFILE_OK);
    EXPECT(t.n == N * M);
    EXPECT(owned_asides(path, NULL) == 0);
    free(path);
}

int main(void)
{
    static const struct tap_test tests[] = {
        T(the_schema_is_one_up_to_the_kinds),
        T(the_schema_is_written_first),
        T(a_missing_file_is_empty_and_an_update_creates_it),
        T(a_file_not_of_its_kind_is_kept_aside),
        T(a_file_that_cannot_be_moved_is_not_written_over),
        T(without_the_lock_nothing_is_moved),
        T(a_newer_file_is_left_untouched),
        T(a_change_may_leave_the_file_alone),
        T(the_mode_bits_where_the_kind_asks),
        T(writers_at_once_lose_nothing),
    };
    return tap_run_in(dir, sizeof dir, "jsonfile", tests, (int)(sizeof tests / sizeof tests[0]));
}
