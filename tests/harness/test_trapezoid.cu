/* test_trapezoid.cu — the trapezoid family's host arithmetic, without a GPU:
 * the integrands it draws stay in the ranges lab.h promises, the exact
 * integral it checks timed samples against agrees with the rule itself, and
 * the error bound behind the timed tolerance holds, and the reference sum
 * is right where the host refuses its threads (the CPU judge's address-space
 * bound: a thread's stack is 8 MiB).  It includes the family's
 * source, so it sees its static functions; nothing here touches a device. */
#include "../../tutor/harness/hx_fam_trapezoid.cu"
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tap.h"

using namespace hx;

enum { DRAWS = 200 };

/* Every parameter within lab.h's ranges, and the interval within [-2, 2]
 * and at least a quarter of it. */
static void draws_in_range(void)
{
    for (uint64_t k = 0; k < 20 * DRAWS; k++) {
        struct tcase t = pick(1234 + k, 1 + k % 7, k);
        float c0 = fabsf(t.p.c0), r = fabsf(t.p.c1) / c0;
        EXPECT(c0 >= 0.5f && c0 <= 2.0f);
        EXPECT(r >= 0.2f * 0.999999f && r <= 0.5f * 1.000001f);
        EXPECT(t.p.w >= 0.5f && t.p.w <= 2.0f);
        EXPECT(t.p.phi >= 0.0f && t.p.phi <= 2.0f);
        EXPECT(t.p.k >= 0.25f * 0.999999f && t.p.k <= 4.0f * 1.000001f);
        EXPECT(t.p.m >= -1.0f && t.p.m <= 1.0f);
        EXPECT(t.a >= -2.0f && t.b <= 2.0f && t.b - t.a >= 1.0f);
    }
}

/* f keeps the sign of c0 and |f| stays within [|c0|/2, 3|c0|/2]: the trial
 * tolerance takes sum |f| = |sum f| from it. */
static void one_sign(void)
{
    for (uint64_t k = 0; k < DRAWS; k++) {
        struct tcase t = pick(99, 5, k);
        double c0 = t.p.c0;
        for (int i = 0; i <= 400; i++) {
            double y = f64(&t.p, -2.0 + i * 0.01);
            EXPECT(y * c0 > 0 && fabs(y) >= 0.5 * fabs(c0) * 0.999999 && fabs(y) <= 1.5 * fabs(c0) * 1.000001);
        }
    }
}

/* The Gauss-Legendre integral against the rule in float64 at 4096 and 8192
 * strips, extrapolated (Richardson): they agree far inside anything the
 * timed tolerance could notice. */
static void integral_matches_rule(void)
{
    double worst = 0;
    for (uint64_t k = 0; k < DRAWS; k++) {
        struct tcase t = pick(7, 11, k);
        double t1 = reference(rule_of(&t, 4096)).value, t2 = reference(rule_of(&t, 8192)).value;
        double extrapolated = t2 + (t2 - t1) / 3.0, gl = integral(&t.p, t.a, t.b);
        worst = fmax(worst, fabs(gl - extrapolated) / fabs(gl));
    }
    printf("# worst relative gap %.3g\n", worst);
    EXPECT(worst < 1e-11);
}

/* |rule - integral| <= (b-a) h^2 / 12 * f2_bound, from 1 strip to many. */
static void rule_error_bound_holds(void)
{
    static const unsigned ns[] = {1, 2, 7, 64, 1000};
    for (uint64_t k = 0; k < DRAWS; k++) {
        struct tcase t = pick(31, 3, k);
        double exact_value = integral(&t.p, t.a, t.b), w = (double)t.b - (double)t.a;
        for (unsigned j = 0; j < sizeof ns / sizeof ns[0]; j++) {
            double h = w / ns[j];
            double got = reference(rule_of(&t, ns[j])).value;
            EXPECT(fabs(got - exact_value) <= w * h * h / 12.0 * f2_bound(&t.p));
        }
    }
}

/* The timed tolerance is at least the trial one (h * sum w_i = b - a). */
static void timed_tolerance_covers_trials(void)
{
    for (uint64_t k = 0; k < DRAWS; k++) {
        struct tcase t = pick(5, 8, k);
        EXPECT(exact(&t, 5000).tol >= reference(rule_of(&t, 5000)).tol);
    }
}

/* Where no thread can start (the address space bounded just above what the
 * process holds), every part still runs, on the calling thread, and the
 * reference is the same sum: it once ended the CPU judge on an uncaught
 * std::system_error, which the check showed as a runtime error. */
static void reference_without_threads(void)
{
    struct tcase t = pick(7, 2, 1);
    struct rule r = rule_of(&t, 3u << 20);
    double want = chunk_sum(0, r.n + 1, &r);
    pid_t pid = fork();
    if (pid == 0) {
        unsigned long kb = 0;
        char line[256];
        FILE *f = fopen("/proc/self/status", "r");
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "VmSize: %lu kB", &kb) == 1)
                break;
        if (f)
            fclose(f);
        struct rlimit rl = {(kb + 2048) << 10, (kb + 2048) << 10};
        if (!kb || setrlimit(RLIMIT_AS, &rl))
            _exit(3);
        int ran[4] = {0, 0, 0, 0};
        host_parallel(4, [&ran](unsigned w) { ran[w]++; });
        double got = host_parallel_sum(r.n + 1, chunk_sum, &r);
        _exit(ran[0] == 1 && ran[1] == 1 && ran[2] == 1 && ran[3] == 1 &&
                      fabs(got - want) <= 1e-9 * fabs(want) ? 0 : 1);
    }
    int st = 0;
    EXPECT(pid > 0 && waitpid(pid, &st, 0) == pid);
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    EXPECT(fabs(host_parallel_sum(r.n + 1, chunk_sum, &r) - want) <= 1e-9 * fabs(want));
}

TAP_MAIN(T(draws_in_range), T(one_sign), T(integral_matches_rule), T(rule_error_bound_holds),
         T(timed_tolerance_covers_trials), T(reference_without_threads))
