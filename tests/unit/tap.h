/* tap.h — a minimal test harness for the C unit tests: each TEST is a
 * function, EXPECT records a failure with file and line and goes on, and the
 * runner prints one TAP line per test ("ok - name" / "not ok - name"), which
 * tests/run.sh counts. */
#ifndef TAP_H
#define TAP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_failed_;

#define EXPECT(cond)                                                            \
    do {                                                                        \
        if (!(cond)) {                                                          \
            printf("#   %s:%d: expected %s\n", __FILE__, __LINE__, #cond);      \
            tap_failed_ = 1;                                                    \
        }                                                                       \
    } while (0)

#define EXPECT_STR(a, b)                                                        \
    do {                                                                        \
        const char *a_ = (a), *b_ = (b);                                        \
        if (!a_ || !b_ || strcmp(a_, b_)) {                                     \
            printf("#   %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__,         \
                   a_ ? a_ : "(null)", b_ ? b_ : "(null)");                     \
            tap_failed_ = 1;                                                    \
        }                                                                       \
    } while (0)

struct tap_test {
    const char *name;
    void (*fn)(void);
};

static int tap_run(const struct tap_test *tests, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++) {
        tap_failed_ = 0;
        tests[i].fn();
        printf("%s - %s\n", tap_failed_ ? "not ok" : "ok", tests[i].name);
        failed += tap_failed_;
    }
    return failed ? 1 : 0;
}

/* tap_run in a scratch folder of its own: dir (len bytes) gets a fresh
 * /tmp/cudatutor-NAME.XXXXXX, which goes with everything in it after the
 * last test; 1 when it cannot be made. */
static inline int tap_run_in(char *dir, size_t len, const char *name, const struct tap_test *tests, int n)
{
    char cmd[160];
    snprintf(dir, len, "/tmp/cudatutor-%s.XXXXXX", name);
    if (!mkdtemp(dir)) {
        printf("#   mkdtemp %s: %s\n", dir, strerror(errno));
        return 1;
    }
    int rc = tap_run(tests, n);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("#   %s failed\n", cmd);
    return rc;
}

#define TAP_MAIN(...)                                                           \
    int main(void)                                                              \
    {                                                                           \
        static const struct tap_test tests_[] = {__VA_ARGS__};                  \
        return tap_run(tests_, (int)(sizeof tests_ / sizeof tests_[0]));        \
    }

#define T(fn) {#fn, fn}

#endif /* TAP_H */
