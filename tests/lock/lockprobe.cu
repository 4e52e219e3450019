/* lockprobe.cu — a stand-in for a harness run, for tests/lock.sh: takes the
 * GPU lock the way the harness does (hx_lock.cu) and reports when it got
 * it and when it let go, so that the test can check who overlapped whom.
 * Needs no GPU.  Usage: lockprobe FILE share|own|trials HOLD_MS WAIT_S
 * (trials: shared, as 50 ms trials with gpu_yield before each; a step
 * aside prints "aside FROM TO"). */
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../tutor/harness/hx.h"

static double now_ms(void)
{
    using namespace std::chrono;
    return duration<double, std::milli>(system_clock::now().time_since_epoch()).count();
}

int main(int argc, char **argv)
{
    static hx::opts o;
    static hx::report r;
    hx::ctx c = {};

    if (argc != 5 || (strcmp(argv[2], "share") && strcmp(argv[2], "own") && strcmp(argv[2], "trials"))) {
        fputs("usage: lockprobe FILE share|own|trials HOLD_MS WAIT_S\n", stderr);
        return 2;
    }
    o.gpu_lock = argv[1];
    o.gpu_lock_wait_s = atof(argv[4]);
    c.o = &o;
    c.r = &r;
    if (hx::gpu_lock_open(&c))
        return 1;
    int rc = strcmp(argv[2], "own") ? hx::gpu_share(&c) : hx::gpu_own(&c);
    printf("got %.0f %s\n", now_ms(), rc ? "late" : "held");
    fflush(stdout);
    if (!strcmp(argv[2], "trials")) {
        for (double left = atof(argv[3]); left > 0; left -= 50) {
            double t = now_ms(), waited = r.wait_s;
            hx::gpu_yield(&c);
            if (r.wait_s > waited)
                printf("aside %.0f %.0f\n", t, now_ms());
            fflush(stdout);
            usleep(50000);
        }
    } else {
        usleep((useconds_t)(atof(argv[3]) * 1000));
    }
    printf("released %.0f\n", now_ms());
    fflush(stdout);
    hx::gpu_release(&c);
    for (int i = 0; i < r.nmsgs; i++)
        printf("note %s\n", r.messages[i]);
    return 0;
}
