/* test_watch.c — watch mode's file watcher, with inotify and with polling:
 * a save is reported once after it settles, a burst of writes is one
 * report, an editor's save-by-rename counts, a file that appears counts,
 * and nothing is reported when nothing changed. */
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "sys/util.h"
#include "sys/watch.h"

static char dir[64];

/* Calls watch_check for `secs`, as the UI's loop would; returns how many
 * changes it reported. */
static int run_for(struct watch *w, double secs)
{
    int n = 0;
    for (double end = util_now() + secs; util_now() < end;) {
        usleep(20000);
        n += watch_check(w, util_now());
    }
    return n;
}

static void save(const char *path, const char *text)
{
    util_write_file(path, text, strlen(text));      /* a temporary renamed over it, as editors do */
}

static void overwrite(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void scenario(int force_poll)
{
    char err[256];
    char *path = util_format("%s/kernel%d.cu", dir, force_poll);
    save(path, "v1");
    struct watch *w = watch_open(path, force_poll, err, sizeof err);
    EXPECT(w != NULL);
    if (!w) {
        free(path);
        return;
    }
    EXPECT_STR(watch_mode(w), force_poll ? "polling" : "inotify");
    EXPECT(run_for(w, 0.6) == 0);                   /* quiet: nothing */
    save(path, "v2 longer");
    EXPECT(run_for(w, 1.1) == 1);                   /* one save, one report */
    for (int i = 0; i < 5; i++) {                   /* a burst: one report */
        char text[32];
        snprintf(text, sizeof text, "burst %d%*s", i, i, "");
        overwrite(path, text);
        usleep(60000);
    }
    EXPECT(run_for(w, 1.4) == 1);
    watch_close(w);
    free(path);
}

static void inotify_reports_each_save_once(void)
{
    scenario(0);
}

static void polling_reports_each_save_once(void)
{
    scenario(1);
}

static void a_file_that_appears_counts(void)
{
    char err[256];
    char *path = util_format("%s/later.cu", dir);
    struct watch *w = watch_open(path, 0, err, sizeof err);
    EXPECT(w && run_for(w, 0.4) == 0);
    save(path, "new");
    EXPECT(w && run_for(w, 1.2) == 1);
    watch_close(w);
    free(path);
}

static void a_neighbour_does_not_count(void)
{
    char err[256];
    char *path = util_format("%s/mine.cu", dir), *other = util_format("%s/other.cu", dir);
    save(path, "mine");
    struct watch *w = watch_open(path, 0, err, sizeof err);
    save(other, "theirs");
    EXPECT(w && run_for(w, 0.8) == 0);
    watch_close(w);
    free(path);
    free(other);
}

int main(void)
{
    static const struct tap_test tests[] = {
        T(inotify_reports_each_save_once),
        T(polling_reports_each_save_once),
        T(a_file_that_appears_counts),
        T(a_neighbour_does_not_count),
    };
    return tap_run_in(dir, sizeof dir, "watch", tests, (int)(sizeof tests / sizeof tests[0]));
}
