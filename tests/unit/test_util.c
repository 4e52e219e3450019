/* test_util.c — sys/util's list growth (util_grow): room made at least
 * doubling, the list kept, nothing moved when the room is there, and a size
 * past what memory can address refused with the list as it was; and its
 * file copy (util_copy_file). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/util.h"
#include "tap.h"

static void test_grow_keeps_and_doubles(void)
{
    int *v = NULL;
    size_t cap = 0, growths = 0;
    for (int n = 0; n < 1000; n++) {
        size_t had = cap;
        int *more = util_grow(v, &cap, (size_t)n + 1, sizeof *v);
        EXPECT(more != NULL);
        if (!more)
            break;
        growths += cap != had;
        EXPECT(cap >= (size_t)n + 1);
        v = more;
        v[n] = n * 7;
    }
    int same = 1;
    for (int n = 0; n < 1000; n++)
        same &= v[n] == n * 7;
    EXPECT(same);
    /* 1000 one at a time, doubling from 16: 16, 32, ... 1024. */
    EXPECT(cap == 1024);
    EXPECT(growths == 7);
    free(v);
}

static void test_grow_room_already(void)
{
    size_t cap = 0;
    char *b = util_grow(NULL, &cap, 100, 1);
    EXPECT(b != NULL && cap >= 100);
    size_t had = cap;
    EXPECT(util_grow(b, &cap, had, 1) == b);
    EXPECT(cap == had);
    char *c = util_grow(b, &cap, had + 1, 1);
    EXPECT(c != NULL && cap >= 2 * had);
    free(c ? c : b);
}

static void test_grow_too_large(void)
{
    size_t cap = 0;
    int *v = util_grow(NULL, &cap, 4, sizeof *v);
    EXPECT(v != NULL && cap >= 4);
    size_t had = cap;
    errno = 0;
    EXPECT(util_grow(v, &cap, SIZE_MAX / 2, sizeof *v) == NULL);
    EXPECT(errno == ENOMEM);
    EXPECT(cap == had);
    free(v);
}

static void test_copy_file(void)
{
    char dir[] = "/tmp/cudatutor-util.XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    char *src = util_format("%s/a", dir), *dst = util_format("%s/b", dir), *none = util_format("%s/none", dir);
    static const char bytes[] = "one\0two\n";
    EXPECT(util_write_file(src, bytes, sizeof bytes) == 0);
    EXPECT(util_copy_file(src, dst) == 0);
    size_t len = 0;
    char *got = util_read_file(dst, &len);
    EXPECT(got && len == sizeof bytes && !memcmp(got, bytes, len));
    free(got);
    /* No source: ENOENT, and what was at dst stays. */
    errno = 0;
    EXPECT(util_copy_file(none, dst) == -1 && errno == ENOENT);
    got = util_read_file(dst, &len);
    EXPECT(got && len == sizeof bytes);
    free(got);
    unlink(src);
    unlink(dst);
    rmdir(dir);
    free(src);
    free(dst);
    free(none);
}

int main(void)
{
    static const struct tap_test tests[] = {
        {"util_grow: one at a time, at least doubling, the items kept", test_grow_keeps_and_doubles},
        {"util_grow: the same list when the room is there", test_grow_room_already},
        {"util_grow: a size past addressable memory refused, the list as it was", test_grow_too_large},
        {"util_copy_file: the bytes copied; no source is ENOENT, the destination kept", test_copy_file},
    };
    return tap_run(tests, (int)(sizeof tests / sizeof tests[0]));
}
