/* bench.c — the PTX emulator's speed on real kernels: lab 01's and lab 07's
 * solutions summing 2^20 ints, launched as their launchers launch them
 * (lab 01: passes of 128-thread blocks until one block is left; lab 07:
 * one grid of 1024-thread blocks filling 132 SMs twice, after zeroing the
 * sum), with the hazard checks off and on.  Prints thread-instructions per
 * second of CPU time (per core: the goal is 100 M/s, DESIGN §11) and of
 * wall time, and checks each sum.
 * Usage: bench [PTXDIR] [N]   PTXDIR as tests/emu/forms.sh writes it
 *                             (default build/emu/forms/ptx), N ints (2^20). */
#include "emu/emu.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct lab {
    const char *name, *ptx;
    unsigned block;
    int single_pass;   /* 07: one grid-stride launch adding into *out */
};

static const struct lab bench_labs[] = {
    {"lab 01 solution", "solutions_01-interleaved-addressing_kernel.ptx", 128, 0},
    {"lab 07 solution", "solutions_07-multiple-elements-per-thread_kernel.ptx", 1024, 1},
};

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *read_text(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long size;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (p = malloc((size_t)size + 1)) && fread(p, 1, (size_t)size, f) == (size_t)size) {
        p[size] = 0;
        *len = (size_t)size;
    } else {
        free(p);
        p = NULL;
    }
    fclose(f);
    return p;
}

/* Launches the solution's passes over IN[0..n) into *OUT; EMU_OK or why not. */
static enum emu_status run_lab(struct emu *e, const struct lab *lab, const struct emu_kernel *k, int *in,
                               unsigned n, int *out, int *scratch, struct emu_error *err)
{
    if (lab->single_pass) {
        unsigned want = (n + 4 * lab->block - 1) / (4 * lab->block), blocks = 132 * 2;
        if (blocks > want) blocks = want;
        void *args[3] = {&in, &n, &out};
        struct emu_launch l = {{blocks, 1, 1}, {lab->block, 1, 1}, 0, args};
        *out = 0;
        return emu_launch(e, k, &l, err);
    }
    /* lab 01's launcher: ping-pong between two halves of the scratch */
    int *bufs[2] = {scratch, scratch + (n + lab->block - 1) / lab->block};
    const int *src = in;
    unsigned len = n;
    for (int which = 0;; which ^= 1) {
        unsigned blocks = (len + lab->block - 1) / lab->block;
        int *dst = blocks == 1 ? out : bufs[which];
        void *args[3] = {&src, &dst, &len};
        struct emu_launch l = {{blocks, 1, 1}, {lab->block, 1, 1}, 0, args};
        enum emu_status st = emu_launch(e, k, &l, err);
        if (st != EMU_OK || blocks == 1) return st;
        src = dst;
        len = blocks;
    }
}

/* One lab at one hazard setting: 0, or 1 with the reason printed. */
static int bench(const struct lab *lab, const char *dir, unsigned n, int hazards)
{
    char path[4096];
    size_t len = 0;
    int rc = 1;
    snprintf(path, sizeof path, "%s/%s", dir, lab->ptx);
    char *ptx = read_text(path, &len);
    int *in = malloc((size_t)n * 4), *out = malloc(64), *scratch = malloc(((size_t)n / 64 + 16) * 4);
    struct emu_config cfg = {.sm_count = 132, .warps_per_sm = 64, .clock_ghz = 1.98, .seed = 7,
                             .hazards = hazards, .budget = 0};
    struct emu *e = emu_new(&cfg);
    struct emu_module *m = NULL;
    struct emu_error err;
    struct emu_stats s0, s1;
    memset(&err, 0, sizeof err);
    if (!ptx) {
        fprintf(stderr, "bench: cannot read %s (run tests/emu/forms.sh first)\n", path);
        goto done;
    }
    if (!in || !out || !scratch || !e) {
        fprintf(stderr, "bench: out of memory\n");
        goto done;
    }
    if (emu_mem_map(e, in, (size_t)n * 4, "d_in") || emu_mem_map(e, out, 64, "d_out") ||
        emu_mem_map(e, scratch, ((size_t)n / 64 + 16) * 4, "d_scratch")) {
        fprintf(stderr, "bench: emu_mem_map failed\n");
        goto done;
    }
    if (emu_module_load(e, ptx, len, &m, &err) != EMU_OK) {
        fprintf(stderr, "bench: %s: %s\n", path, err.message);
        goto done;
    }
    const struct emu_kernel *k = emu_module_kernel_at(m, 0);
    if (!k) {
        fprintf(stderr, "bench: %s has no kernel\n", path);
        goto done;
    }
    long long want = 0;
    uint64_t x = 12345;
    for (unsigned i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        in[i] = (int)(x >> 54) - 512;
        want += in[i];
    }
    emu_stats(e, &s0);
    double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    enum emu_status st = run_lab(e, lab, k, in, n, out, scratch, &err);
    double wall = seconds(CLOCK_MONOTONIC) - w0, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    emu_stats(e, &s1);
    if (st != EMU_OK) {
        fprintf(stderr, "bench: %s: status %d: %s\n", lab->name, (int)st, err.message);
        goto done;
    }
    uint64_t ti = s1.thread_instructions - s0.thread_instructions;
    printf("%s, %u ints, hazards %s: %.1f M thread-instructions (%.1f M warp), %.3f s CPU, %.3f s wall: "
           "%.0f M/s per core, %.0f M/s wall; sum %s\n",
           lab->name, n, hazards ? "on " : "off", (double)ti / 1e6,
           (double)(s1.warp_instructions - s0.warp_instructions) / 1e6, cpu, wall, (double)ti / cpu / 1e6,
           (double)ti / wall / 1e6, (long long)*out == want ? "right" : "WRONG");
    rc = (long long)*out == want ? 0 : 1;
done:
    if (m) emu_module_unload(m);
    if (e) emu_free(e);
    free(ptx);
    free(in);
    free(out);
    free(scratch);
    return rc;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "build/emu/forms/ptx";
    unsigned n = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 1u << 20;
    int rc = 0;
    if (n == 0 || n > (1u << 28)) {
        fprintf(stderr, "usage: bench [PTXDIR] [N ints, 1..2^28]\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof bench_labs / sizeof bench_labs[0]; i++)
        for (int hazards = 0; hazards <= 1; hazards++) rc |= bench(&bench_labs[i], dir, n, hazards);
    return rc;
}
