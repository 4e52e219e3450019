/* test_progress.c — progress.json: what a check records, the lock rule,
 * and the promises about the file: concurrent writers lose nothing, a kill
 * in the middle of a write leaves a file that parses, a corrupt file is kept
 * aside and reported, a newer schema is refused and left alone. */
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/progress.h"
#include "owned_file.h"
#include "tap.h"
#include "sys/util.h"

static char dir[64];

static char *path_in(const char *name)
{
    return util_format("%s/%s", dir, name);
}

static int fixture(const char *status, struct result *r)
{
    char path[128], err[256];
    snprintf(path, sizeof path, "tests/fixtures/%s.json", status);
    char *text = util_read_file(path, NULL);
    int rc = text ? result_parse(text, r, err, sizeof err) : -1;
    if (rc)
        printf("#   cannot use %s\n", path);
    free(text);
    return rc;
}

static int count_files(const char *prefix)
{
    char *cmd = util_format("ls %s | grep -c '^%s' > %s/count", dir, prefix, dir), *out = path_in("count");
    int n = -1;
    if (cmd && system(cmd) >= 0) {
        char *t = util_read_file(out, NULL);
        n = t ? atoi(t) : -1;
        free(t);
    }
    free(cmd);
    free(out);
    return n;
}

/* ---- recording ---------------------------------------------------------- */

static void a_pass_records_state_best_and_first_pass(void)
{
    struct progress p;
    struct result r;
    if (fixture("pass", &r))
        return;
    progress_init(&p);
    progress_record_check(&p, NULL, &r, "2026-01-02T03:04:05Z");
    const struct progress_lab *l = progress_find(&p, "01");
    EXPECT(l != NULL);
    if (l) {
        EXPECT(l->passed && l->on_target == r.target_met);
        EXPECT(l->attempts == 1);
        EXPECT_STR(l->first_pass, "2026-01-02T03:04:05Z");
        EXPECT_STR(l->last_status, "pass");
        EXPECT(l->best.have && l->best.ms > 0 && l->best.gbps > 0 && l->best.ratio > 0);
        EXPECT_STR(l->best.case_label, "2^28");
        EXPECT(l->best.peak_gbps > 0 && l->best.ref_gbps > l->best.gbps);
        EXPECT_STR(l->gpu, r.device_name);
    }
    result_free(&r);
    progress_free(&p);
}

static void a_later_failure_keeps_the_pass(void)
{
    struct progress p;
    struct result pass, fail;
    if (fixture("pass", &pass) || fixture("fail", &fail))
        return;
    progress_init(&p);
    progress_record_check(&p, NULL, &pass, "2026-01-02T03:04:05Z");
    double best = progress_find(&p, "01")->best.ratio;
    progress_record_check(&p, NULL, &fail, "2026-01-02T04:00:00Z");
    const struct progress_lab *l = progress_find(&p, "01");
    EXPECT(l->passed && l->attempts == 2);
    EXPECT_STR(l->last_status, "fail");
    EXPECT_STR(l->first_pass, "2026-01-02T03:04:05Z");
    EXPECT(l->best.ratio == best);
    result_free(&pass);
    result_free(&fail);
    progress_free(&p);
}

static void the_best_is_the_fastest_plausible_pass(void)
{
    struct progress p;
    struct result r;
    if (fixture("pass", &r))
        return;
    progress_init(&p);
    progress_record_check(&p, NULL, &r, "t1");
    struct rperf *tp = (struct rperf *)result_target_perf(&r);
    double first = tp->ratio;
    tp->ratio = first / 2;          /* slower: not a record */
    progress_record_check(&p, NULL, &r, "t2");
    EXPECT(progress_find(&p, "01")->best.ratio == first);
    tp->ratio = first * 10;         /* faster than the peak allows: flagged, not a record */
    tp->implausible = 1;
    progress_record_check(&p, NULL, &r, "t3");
    EXPECT(progress_find(&p, "01")->best.ratio == first);
    tp->ratio = first * 2;
    tp->implausible = 0;
    progress_record_check(&p, NULL, &r, "t4");
    EXPECT(progress_find(&p, "01")->best.ratio == first * 2);
    result_free(&r);
    progress_free(&p);
}

static void no_gpu_and_compile_errors_are_attempts_not_passes(void)
{
    struct progress p;
    struct result r;
    progress_init(&p);
    const char *st[] = {"no_gpu", "compile_error"};
    for (int i = 0; i < 2; i++) {
        if (fixture(st[i], &r))
            continue;
        progress_record_check(&p, NULL, &r, "t");
        result_free(&r);
    }
    const struct progress_lab *l = progress_find(&p, "01");
    EXPECT(l && l->attempts == 2 && !l->passed && !l->best.have && !l->first_pass[0]);
    progress_free(&p);
}

static void hints_used_only_grow(void)
{
    struct progress p;
    progress_init(&p);
    EXPECT(progress_record_hint(&p, "03", 2) == 2);
    EXPECT(progress_record_hint(&p, "03", 1) == 2);
    EXPECT(progress_record_hint(&p, "03", 3) == 3);
    progress_free(&p);
}

static void a_lab_opens_when_the_one_before_passes(void)
{
    struct lab labs[3] = {{.id = "01", .opens_after = -1}, {.id = "02", .opens_after = 0},
                          {.id = "03", .opens_after = 1}};
    struct catalog cat = {.labs = labs, .nlabs = 3};
    struct progress p;
    progress_init(&p);
    EXPECT(progress_state(&p, &cat, 0, 0) == LAB_OPEN);
    EXPECT(progress_state(&p, &cat, 1, 0) == LAB_LOCKED);
    EXPECT(progress_state(&p, &cat, 2, 1) == LAB_OPEN);
    progress_lab(&p, "01", 1)->passed = 1;
    EXPECT(progress_state(&p, &cat, 0, 0) == LAB_PASSED);
    EXPECT(progress_state(&p, &cat, 1, 0) == LAB_OPEN);
    EXPECT(progress_state(&p, &cat, 2, 0) == LAB_LOCKED);
    progress_lab(&p, "02", 1)->on_target = 1;
    progress_lab(&p, "02", 1)->passed = 1;
    EXPECT(progress_state(&p, &cat, 1, 0) == LAB_ON_TARGET);
    EXPECT_STR(lab_state_name(LAB_ON_TARGET), "on_target");
    progress_free(&p);
}

/* progress_record_check says what the check changed, by the catalog's
 * rule: the lab's state before and after, and the labs it opened (the
 * next one and those that name it in opens_after), once. */
static void a_check_says_what_it_changed(void)
{
    struct lab labs[4] = {{.id = "01", .opens_after = -1}, {.id = "02", .opens_after = 0},
                          {.id = "03", .opens_after = 0, .bonus = 1}, {.id = "04", .opens_after = 0, .bonus = 1}};
    struct catalog cat = {.labs = labs, .nlabs = 4};
    struct progress p;
    struct result pass, fail;
    if (fixture("pass", &pass) || fixture("fail", &fail))
        return;
    progress_init(&p);
    struct progress_change c = progress_record_check(&p, &cat, &fail, "t1");
    EXPECT(c.lab == 0 && c.was == LAB_OPEN && c.now == LAB_OPEN && c.nopened == 0);
    c = progress_record_check(&p, &cat, &pass, "t2");
    EXPECT(c.lab == 0 && c.was == LAB_OPEN && c.now == (pass.target_met ? LAB_ON_TARGET : LAB_PASSED));
    EXPECT(c.nopened == 3 && c.opened[0] == 1 && c.opened[1] == 2 && c.opened[2] == 3);
    c = progress_record_check(&p, &cat, &pass, "t3");
    EXPECT(c.was == c.now && c.nopened == 0);
    c = progress_record_check(&p, NULL, &pass, "t4");
    EXPECT(c.lab == -1 && c.nopened == 0);
    EXPECT(progress_find(&p, "01")->attempts == 4);
    result_free(&pass);
    result_free(&fail);
    progress_free(&p);
}

/* A pass on the CPU emulator (no GPU) opens the next lab like any pass, is
 * marked cpu_only until a GPU pass, survives the file, and never records
 * the emulator as the GPU. */
static void a_pass_on_the_cpu_opens_the_next_lab(void)
{
    static const char cpu_pass[] =
        "{\"schema\": 1, \"tool\": \"cudatutor\", \"lab\": \"01\", \"family\": \"reduce_int\", "
        "\"status\": \"pass\", \"device\": {\"name\": \"PTX emulator on the CPU\", \"cc\": \"9.0\"}, "
        "\"tests\": [], \"perf\": [], \"emulator\": {\"max_n\": 1048576, \"not_run\": [4194301]}, "
        "\"summary\": \"passed on the CPU\"}";
    struct lab labs[2] = {{.id = "01", .opens_after = -1}, {.id = "02", .opens_after = 0}};
    struct catalog cat = {.labs = labs, .nlabs = 2};
    struct progress p, q;
    struct result cpu, gpu;
    char err[256];
    progress_init(&p);
    progress_init(&q);
    if (result_parse(cpu_pass, &cpu, err, sizeof err) || fixture("pass", &gpu)) {
        printf("#   %s\n", err);
        EXPECT(0);
        return;
    }
    EXPECT(cpu.emulated && cpu.emu_max_n == 1048576);
    progress_record_check(&p, NULL, &cpu, "t1");
    const struct progress_lab *l = progress_find(&p, "01");
    EXPECT(l && l->passed && l->cpu_only && l->gpu[0] == '\0');
    EXPECT(progress_state(&p, &cat, 1, 0) == LAB_OPEN);
    char *text = progress_format(&p);
    EXPECT(text && strstr(text, "\"passed_on\"") && progress_parse(&q, text, err, sizeof err) == 0);
    free(text);
    EXPECT(progress_find(&q, "01") && progress_find(&q, "01")->cpu_only);
    /* A GPU pass adds the timing and the GPU; a later CPU pass takes neither away. */
    progress_record_check(&p, NULL, &gpu, "t2");
    l = progress_find(&p, "01");
    EXPECT(l && !l->cpu_only && l->best.have);
    EXPECT_STR(l->gpu, gpu.device_name);
    progress_record_check(&p, NULL, &cpu, "t3");
    l = progress_find(&p, "01");
    EXPECT(l && !l->cpu_only && l->best.have);
    EXPECT_STR(l->gpu, gpu.device_name);
    EXPECT_STR(l->first_pass, "t1");
    result_free(&cpu);
    result_free(&gpu);
    progress_free(&p);
    progress_free(&q);
}

/* The bonus labs name the lab that opens them ("opens_after": "08"): they
 * open together when it passes, whatever happens to the labs between. */
static void bonus_labs_open_when_their_opener_passes(void)
{
    struct lab labs[5] = {{.id = "07", .opens_after = -1}, {.id = "08", .opens_after = 0},
                          {.id = "09", .opens_after = 1}, {.id = "11", .opens_after = 1, .bonus = 1},
                          {.id = "12", .opens_after = 1, .bonus = 1}};
    struct catalog cat = {.labs = labs, .nlabs = 5};
    struct progress p;
    progress_init(&p);
    EXPECT(catalog_opener(&cat, &labs[0]) == NULL);
    EXPECT(catalog_opener(&cat, &labs[4]) == &labs[1]);
    EXPECT(progress_state(&p, &cat, 3, 0) == LAB_LOCKED);
    progress_lab(&p, "07", 1)->passed = 1;
    EXPECT(progress_state(&p, &cat, 3, 0) == LAB_LOCKED);
    EXPECT(progress_state(&p, &cat, 4, 1) == LAB_OPEN);
    progress_lab(&p, "08", 1)->passed = 1;
    EXPECT(progress_state(&p, &cat, 2, 0) == LAB_OPEN);
    EXPECT(progress_state(&p, &cat, 3, 0) == LAB_OPEN);
    EXPECT(progress_state(&p, &cat, 4, 0) == LAB_OPEN);
    /* Lab 11 passed does not open 12 any further: 08 already did. */
    progress_lab(&p, "11", 1)->passed = 1;
    EXPECT(progress_state(&p, &cat, 3, 0) == LAB_PASSED);
    progress_free(&p);
    /* Without 08, a pass of 11 (recorded under --unlock-all) opens nothing. */
    progress_init(&p);
    progress_lab(&p, "11", 1)->passed = 1;
    EXPECT(progress_state(&p, &cat, 4, 0) == LAB_LOCKED);
    progress_free(&p);
}

static void the_path_is_flag_then_environment_then_root(void)
{
    char *a, *b, *c;
    setenv("CUDATUTOR_PROGRESS", "/env/p.json", 1);
    a = progress_path("/root", "/flag/p.json");
    b = progress_path("/root", NULL);
    unsetenv("CUDATUTOR_PROGRESS");
    c = progress_path("/root", NULL);
    EXPECT_STR(a, "/flag/p.json");
    EXPECT_STR(b, "/env/p.json");
    EXPECT_STR(c, "/root/progress.json");
    free(a);
    free(b);
    free(c);
}

/* ---- the file ----------------------------------------------------------- */

static int bump(struct progress *p, void *ud)
{
    struct progress_lab *l = progress_lab(p, ud, 1);
    if (!l)
        return 1;
    l->attempts++;
    return 0;
}

static void round_trip_through_the_file(void)
{
    char *path = path_in("rt.json"), note[512], err[512];
    struct progress p, q;
    struct result r;
    if (fixture("pass", &r))
        goto out;
    progress_init(&p);
    progress_record_check(&p, NULL, &r, "2026-01-02T03:04:05Z");
    progress_record_hint(&p, "01", 2);
    char *text = progress_format(&p);
    EXPECT(text && util_write_file(path, text, strlen(text)) == 0);
    free(text);
    EXPECT(progress_load(path, &q, note, sizeof note, err, sizeof err) == PROGRESS_OK);
    EXPECT(note[0] == '\0');
    const struct progress_lab *a = progress_find(&p, "01"), *b = progress_find(&q, "01");
    EXPECT(b != NULL);
    if (a && b) {
        EXPECT(a->passed == b->passed && a->on_target == b->on_target && a->attempts == b->attempts);
        EXPECT(a->hints_used == b->hints_used && b->hints_used == 2);
        EXPECT(a->best.ms == b->best.ms && a->best.gbps == b->best.gbps && a->best.ratio == b->best.ratio);
        EXPECT_STR(a->first_pass, b->first_pass);
        EXPECT_STR(a->last_summary, b->last_summary);
        EXPECT_STR(a->gpu, b->gpu);
    }
    progress_free(&p);
    progress_free(&q);
    result_free(&r);
out:
    free(path);
}

static void a_missing_file_is_empty_and_an_update_creates_it(void)
{
    char *path = path_in("new.json"), note[512], err[512];
    struct progress p;
    EXPECT(progress_load(path, &p, note, sizeof note, err, sizeof err) == PROGRESS_OK && p.nlabs == 0);
    EXPECT(progress_update(path, bump, "04", NULL, note, sizeof note, err, sizeof err) == PROGRESS_OK);
    EXPECT(util_is_file(path));
    EXPECT(progress_load(path, &p, note, sizeof note, err, sizeof err) == PROGRESS_OK);
    EXPECT(p.nlabs == 1 && progress_find(&p, "04") && progress_find(&p, "04")->attempts == 1);
    progress_free(&p);
    free(path);
}

static void a_corrupt_file_is_moved_aside_and_reported(void)
{
    char *path = path_in("bad.json"), note[512], err[512];
    const char *broken = "{\"schema\": 1, \"labs\": {\"01\": {\"attempts\": 3";
    struct progress p;
    util_write_file(path, broken, strlen(broken));
    EXPECT(progress_update(path, bump, "01", &p, note, sizeof note, err, sizeof err) == PROGRESS_OK);
    EXPECT(strstr(note, "bad.json.corrupt-") != NULL);
    EXPECT(progress_find(&p, "01") && progress_find(&p, "01")->attempts == 1);
    progress_free(&p);
    EXPECT(count_files("bad.json.corrupt-") == 1);
    /* The backup holds exactly what was there. */
    char *cmd = util_format("cat %s/bad.json.corrupt-* > %s/aside", dir, dir), *aside = path_in("aside");
    char *got = cmd && system(cmd) >= 0 ? util_read_file(aside, NULL) : NULL;
    EXPECT_STR(got, broken);
    free(got);
    free(cmd);
    free(aside);
    free(path);
}

static void an_empty_file_is_corrupt_too(void)
{
    char *path = path_in("empty.json"), note[512] = "", err[512];
    struct progress p;
    util_write_file(path, "", 0);
    EXPECT(progress_load(path, &p, note, sizeof note, err, sizeof err) == PROGRESS_OK);
    EXPECT(strstr(note, "empty.json.corrupt-") != NULL);
    EXPECT(!util_is_file(path));
    progress_free(&p);
    free(path);
}

static void a_newer_schema_is_refused_and_left_alone(void)
{
    char *path = path_in("newer.json"), note[512], err[512];
    const char *text = "{\"schema\": 2, \"labs\": {}, \"future\": true}";
    struct progress p;
    util_write_file(path, text, strlen(text));
    EXPECT(progress_load(path, &p, note, sizeof note, err, sizeof err) == PROGRESS_NEWER);
    EXPECT(strstr(err, "newer") != NULL);
    EXPECT(progress_update(path, bump, "01", NULL, note, sizeof note, err, sizeof err) == PROGRESS_NEWER);
    char *now = util_read_file(path, NULL);
    EXPECT_STR(now, text);
    free(now);
    EXPECT(count_files("newer.json.corrupt") == 0);
    free(path);
}

/* Each problem with the file is told in one sentence, whole and byte for
 * byte: the student reads these, and tests/progress.sh greps them. */
static void each_problem_is_told_in_its_words(void)
{
    char note[4096], err[4096], want[4096];
    const char *broken = "{\"schema\": 1, \"labs\": []}";
    char *path = path_in("words.json"), *lock = util_format("%s.lock", path), *aside;
    char *far = owned_long_path(dir);
    char *tmp = util_format("%s.tmp.%ld", path, (long)getpid());
    struct progress p;

    util_write_file(path, "{\"schema\": 7}", 13);
    EXPECT(progress_load(path, &p, note, sizeof note, err, sizeof err) == PROGRESS_NEWER);
    snprintf(want, sizeof want, "%s was written by a newer cudatutor (schema 7; this one reads schema 1); "
             "left it untouched (update the workbook, or use --progress PATH)", path);
    EXPECT_STR(err, want);

    util_write_file(path, broken, strlen(broken));
    EXPECT(progress_load(path, &p, note, sizeof note, err, sizeof err) == PROGRESS_OK);
    owned_asides(path, &aside);
    snprintf(want, sizeof want,
             "%s was not valid progress (\"labs\" is not an object); kept it as %s and started afresh", path,
             aside ? aside : "?");
    EXPECT_STR(note, want);
    if (aside)
        unlink(aside);
    free(aside);

    /* Without the lock (PATH.lock is a folder) a corrupt file is only told. */
    util_write_file(path, broken, 5);
    unlink(lock);
    mkdir(lock, 0755);
    EXPECT(progress_load(path, &p, note, sizeof note, err, sizeof err) == PROGRESS_ERROR);
    snprintf(want, sizeof want, "%s is not valid progress (not valid JSON (truncated?))", path);
    EXPECT_STR(err, want);
    EXPECT(progress_update(path, bump, "01", NULL, note, sizeof note, err, sizeof err) == PROGRESS_ERROR);
    snprintf(want, sizeof want, "cannot lock %s.lock: Is a directory", path);
    EXPECT_STR(err, want);
    rmdir(lock);

    unlink(path);
    mkdir(path, 0755);
    EXPECT(progress_load(path, &p, note, sizeof note, err, sizeof err) == PROGRESS_ERROR);
    snprintf(want, sizeof want, "cannot read %s: Is a directory", path);
    EXPECT_STR(err, want);
    rmdir(path);

    util_write_file(path, "{\"schema\": 1}", 13);
    chmod(path, 0444);
    EXPECT(progress_update(path, bump, "01", NULL, note, sizeof note, err, sizeof err) == PROGRESS_ERROR);
    snprintf(want, sizeof want, "%s is read-only (mode 0444); left it untouched (chmod u+w it to record progress)",
             path);
    EXPECT_STR(err, want);
    chmod(path, 0644);

    mkdir(tmp, 0755);
    EXPECT(progress_update(path, bump, "01", NULL, note, sizeof note, err, sizeof err) == PROGRESS_ERROR);
    snprintf(want, sizeof want, "cannot write %s: Is a directory", path);
    EXPECT_STR(err, want);
    rmdir(tmp);

    EXPECT(far != NULL);
    if (far) {
        util_write_file(far, broken, strlen(broken));
        EXPECT(progress_update(far, bump, "01", NULL, note, sizeof note, err, sizeof err) == PROGRESS_ERROR);
        snprintf(want, sizeof want,
                 "%s is not valid progress (\"labs\" is not an object) and could not be moved aside: "
                 "File name too long", far);
        EXPECT_STR(err, want);
        char *kept = util_read_file(far, NULL);
        EXPECT_STR(kept, broken);
        free(kept);
    }
    free(tmp);
    free(far);
    free(lock);
    free(path);
}

/* N processes each record M updates at once: the lock and the re-read mean
 * every one of the N*M lands. */
static void concurrent_writers_lose_nothing(void)
{
    enum { N = 8, M = 25 };
    char *path = path_in("busy.json"), note[512], err[512];
    pid_t kids[N];
    for (int k = 0; k < N; k++) {
        if ((kids[k] = fork()) == 0) {
            char mine[8];
            snprintf(mine, sizeof mine, "%02d", k + 1);
            for (int m = 0; m < M; m++)
                if (progress_update(path, bump, mine, NULL, note, sizeof note, err, sizeof err) ||
                    progress_update(path, bump, "all", NULL, note, sizeof note, err, sizeof err))
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
    struct progress p;
    EXPECT(progress_load(path, &p, note, sizeof note, err, sizeof err) == PROGRESS_OK);
    EXPECT(progress_find(&p, "all") && progress_find(&p, "all")->attempts == N * M);
    for (int k = 0; k < N; k++) {
        char mine[8];
        snprintf(mine, sizeof mine, "%02d", k + 1);
        EXPECT(progress_find(&p, mine) && progress_find(&p, mine)->attempts == M);
    }
    progress_free(&p);
    free(path);
}

static int bump_many(struct progress *p, void *ud)
{
    (void)ud;
    /* Many labs make each write long enough to be caught in the middle. */
    for (int i = 0; i < 60; i++) {
        char id[8];
        snprintf(id, sizeof id, "%02d", i);
        struct progress_lab *l = progress_lab(p, id, 1);
        if (!l)
            return 1;
        l->attempts++;
        snprintf(l->last_summary, sizeof l->last_summary, "%0200d", l->attempts);
    }
    return 0;
}

/* A writer killed at random moments never leaves a file that fails to parse. */
static void a_kill_during_a_write_leaves_a_good_file(void)
{
    char *path = path_in("killed.json"), note[512], err[512];
    int bad = 0;
    srand((unsigned)time(NULL));
    progress_update(path, bump_many, NULL, NULL, note, sizeof note, err, sizeof err);
    for (int round = 0; round < 20; round++) {
        pid_t kid = fork();
        if (kid == 0) {
            for (;;)
                progress_update(path, bump_many, NULL, NULL, note, sizeof note, err, sizeof err);
        }
        usleep(2000 + (useconds_t)(rand() % 20000));
        kill(kid, SIGKILL);
        waitpid(kid, NULL, 0);
        struct progress p;
        note[0] = '\0';
        if (progress_load(path, &p, note, sizeof note, err, sizeof err) != PROGRESS_OK || note[0] ||
            p.nlabs != 60)
            bad++;
        progress_free(&p);
    }
    EXPECT(bad == 0);
    EXPECT(count_files("killed.json.corrupt") == 0);
    free(path);
}

int main(void)
{
    static const struct tap_test tests[] = {
        T(a_pass_records_state_best_and_first_pass),
        T(a_later_failure_keeps_the_pass),
        T(the_best_is_the_fastest_plausible_pass),
        T(no_gpu_and_compile_errors_are_attempts_not_passes),
        T(hints_used_only_grow),
        T(a_lab_opens_when_the_one_before_passes), T(bonus_labs_open_when_their_opener_passes),
        T(a_pass_on_the_cpu_opens_the_next_lab), T(a_check_says_what_it_changed),
        T(the_path_is_flag_then_environment_then_root),
        T(round_trip_through_the_file),
        T(a_missing_file_is_empty_and_an_update_creates_it),
        T(a_corrupt_file_is_moved_aside_and_reported),
        T(an_empty_file_is_corrupt_too),
        T(a_newer_schema_is_refused_and_left_alone),
        T(each_problem_is_told_in_its_words),
        T(concurrent_writers_lose_nothing),
        T(a_kill_during_a_write_leaves_a_good_file),
    };
    return tap_run_in(dir, sizeof dir, "progress", tests, (int)(sizeof tests / sizeof tests[0]));
}
