/* bench.c — the PTX emulator's speed on real kernels: the solutions of
 * labs 01, 07, 13 and 15 over 2^20 elements, each launched as its
 * launcher launches it, with the hazard checks off and on:
 *   lab 01  passes of 128-thread blocks until one block is left;
 *   lab 07  one grid of 1024-thread blocks filling 132 SMs twice, after
 *           zeroing the sum;
 *   lab 13  tile_sums, scan_sums (one block) and scan_tiles, 8192-element
 *           tiles of 512-thread blocks, the tiles' sums in the scratch;
 *   lab 15  one launch of one 1024-thread block per SM (132), the last
 *           block to draw its ticket adding the partials.
 * Each lab runs once untimed (a check launches its kernels many times),
 * then timed: prints thread-instructions per second of CPU time (per core:
 * the goal is 100 M/s, DESIGN §11) and of wall time, and checks each
 * result against the CPU's.
 * Usage: bench [PTXDIR] [N] [LAB[:on|:off]...]
 *   PTXDIR as tests/emu/forms.sh writes it (default build/emu/forms/ptx),
 *   N elements (2^20), LAB 1, 7, 13 or 15 (all four when none). */
#include "emu/emu.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum shape { ONE_BLOCK_LEFT, GRID_STRIDE, SCAN, LAST_BLOCK };

struct lab {
    const char *name, *ptx;
    enum shape shape;
};

static const struct lab bench_labs[] = {
    {"lab 01 solution", "solutions_01-interleaved-addressing_kernel.ptx", ONE_BLOCK_LEFT},
    {"lab 07 solution", "solutions_07-multiple-elements-per-thread_kernel.ptx", GRID_STRIDE},
    {"lab 13 solution", "solutions_13-scan_kernel.ptx", SCAN},
    {"lab 15 solution", "solutions_15-epilogue_kernel.ptx", LAST_BLOCK},
};

/* The buffers of one run: N elements in, the result (N ints for the
 * scan, else one word), and the lab's scratch (LAB_SCRATCH_BYTES). */
struct bufs {
    unsigned n;
    int *in, *out, *scratch;
    size_t out_bytes, scratch_bytes;
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

static enum emu_status launch(struct emu *e, const struct emu_kernel *k, unsigned blocks,
                              unsigned threads, void **args, struct emu_error *err)
{
    struct emu_launch l = {{blocks, 1, 1}, {threads, 1, 1}, 0, args};
    if (!k) {
        snprintf(err->message, sizeof err->message, "the module lacks a kernel");
        return EMU_FAULT;
    }
    return emu_launch(e, k, &l, err);
}

/* Launches the lab's kernels over B as its launcher does; EMU_OK or why not. */
static enum emu_status run_lab(struct emu *e, const struct lab *lab, const struct emu_module *m,
                               struct bufs *b, struct emu_error *err)
{
    const struct emu_kernel *k = emu_module_kernel_at(m, 0);
    unsigned n = b->n;
    if (lab->shape == GRID_STRIDE) {
        unsigned want = (n + 4 * 1024 - 1) / (4 * 1024), blocks = want < 264 ? want : 264;
        void *args[3] = {&b->in, &n, &b->out};
        *b->out = 0;
        return launch(e, k, blocks, 1024, args, err);
    }
    if (lab->shape == SCAN) {
        unsigned tiles = (n + 8191) / 8192;
        bool aligned = (uintptr_t)b->in % 16 == 0 && (uintptr_t)b->out % 16 == 0;
        int *sums = b->scratch;
        void *tile_args[4] = {&b->in, &n, &sums, &aligned};
        void *sums_args[2] = {&sums, &tiles};
        void *scan_args[5] = {&b->in, &b->out, &n, &sums, &aligned};
        enum emu_status st = launch(e, emu_module_kernel(m, "_Z9tile_sumsPKijPib"), tiles, 512,
                                    tile_args, err);
        if (st == EMU_OK)
            st = launch(e, emu_module_kernel(m, "_Z9scan_sumsPij"), 1, 1024, sums_args, err);
        return st == EMU_OK ? launch(e, emu_module_kernel(m, "_Z10scan_tilesPKiPijS0_b"), tiles, 512,
                                     scan_args, err)
                            : st;
    }
    if (lab->shape == LAST_BLOCK) {
        unsigned head = (unsigned)((4 - (uintptr_t)b->in / 4 % 4) % 4);
        unsigned want = (n / 4 + 1023) / 1024, blocks = want < 132 ? want : 132;
        void *args[5] = {&b->in, &n, &head, &b->scratch, &b->out};
        return launch(e, k, blocks ? blocks : 1, 1024, args, err);
    }
    /* lab 01's launcher: ping-pong between two halves of the scratch */
    int *halves[2] = {b->scratch, b->scratch + (n + 127) / 128};
    const int *src = b->in;
    unsigned len = n;
    for (int which = 0;; which ^= 1) {
        unsigned blocks = (len + 127) / 128;
        int *dst = blocks == 1 ? b->out : halves[which];
        void *args[3] = {&src, &dst, &len};
        enum emu_status st = launch(e, k, blocks, 128, args, err);
        if (st != EMU_OK || blocks == 1) return st;
        src = dst;
        len = blocks;
    }
}

/* Fills B's input (ints in [-512, 512), or those as floats for lab 15). */
static void fill(const struct lab *lab, struct bufs *b)
{
    uint64_t x = 12345;
    for (unsigned i = 0; i < b->n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int v = (int)(x >> 54) - 512;
        if (lab->shape == LAST_BLOCK) {
            float f = (float)v;
            memcpy(&b->in[i], &f, 4);
        } else {
            b->in[i] = v;
        }
    }
}

/* Whether B's result is the CPU's: the sum, every inclusive prefix, or
 * the float sum within a rounding error of the order the blocks add in. */
static int right(const struct lab *lab, const struct bufs *b)
{
    long long sum = 0;
    if (lab->shape == LAST_BLOCK) {
        double want = 0, mag = 0;
        float got;
        for (unsigned i = 0; i < b->n; i++) {
            float f;
            memcpy(&f, &b->in[i], 4);
            want += f;
            mag += fabs(f);
        }
        memcpy(&got, b->out, 4);
        return fabs(got - want) <= 1e-6 * mag;
    }
    for (unsigned i = 0; i < b->n; i++) {
        sum += b->in[i];
        if (lab->shape == SCAN && b->out[i] != (int)sum)
            return 0;
    }
    return lab->shape == SCAN || *b->out == sum;
}

/* One lab at one hazard setting: 0, or 1 with the reason printed. */
static int bench(const struct lab *lab, const char *dir, unsigned n, int hazards)
{
    char path[4096];
    size_t len = 0;
    int rc = 1;
    struct bufs b = {n, NULL, NULL, NULL, lab->shape == SCAN ? (size_t)n * 4 : 64, (size_t)n / 4 + 65536};
    snprintf(path, sizeof path, "%s/%s", dir, lab->ptx);
    char *ptx = read_text(path, &len);
    b.in = aligned_alloc(16, ((size_t)n * 4 + 15) / 16 * 16);
    b.out = aligned_alloc(16, (b.out_bytes + 15) / 16 * 16);
    b.scratch = aligned_alloc(16, b.scratch_bytes);
    struct emu_config cfg = {.sm_count = 132, .warps_per_sm = 64, .clock_ghz = 1.98, .seed = 7,
                             .hazards = hazards, .budget = 0};
    struct emu *e = emu_new(&cfg);
    struct emu_module *m = NULL;
    struct emu_error err;
    struct emu_stats s0, s1;
    enum emu_status st;
    memset(&err, 0, sizeof err);
    if (!ptx) {
        fprintf(stderr, "bench: cannot read %s (run tests/emu/forms.sh first)\n", path);
        goto done;
    }
    if (!b.in || !b.out || !b.scratch || !e) {
        fprintf(stderr, "bench: out of memory\n");
        goto done;
    }
    if (emu_mem_map(e, b.in, (size_t)n * 4, "d_in") || emu_mem_map(e, b.out, b.out_bytes, "d_out") ||
        emu_mem_map(e, b.scratch, b.scratch_bytes, "d_scratch")) {
        fprintf(stderr, "bench: emu_mem_map failed\n");
        goto done;
    }
    if (emu_module_load(e, ptx, len, &m, &err) != EMU_OK) {
        fprintf(stderr, "bench: %s: %s\n", path, err.message);
        goto done;
    }
    fill(lab, &b);
    /* a check launches its kernels again and again: the first run, which
     * also pays for memory the emulator touches the first time, is not timed */
    if ((st = run_lab(e, lab, m, &b, &err)) != EMU_OK) {
        fprintf(stderr, "bench: %s: status %d: %s\n", lab->name, (int)st, err.message);
        goto done;
    }
    emu_stats(e, &s0);
    double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    st = run_lab(e, lab, m, &b, &err);
    double wall = seconds(CLOCK_MONOTONIC) - w0, cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    emu_stats(e, &s1);
    if (st != EMU_OK) {
        fprintf(stderr, "bench: %s: status %d: %s\n", lab->name, (int)st, err.message);
        goto done;
    }
    uint64_t ti = s1.thread_instructions - s0.thread_instructions;
    rc = !right(lab, &b);
    printf("%s, %u elements, hazards %s: %.1f M thread-instructions (%.1f M warp), %.3f s CPU, "
           "%.3f s wall: %.0f M/s per core, %.0f M/s wall; result %s\n",
           lab->name, n, hazards ? "on " : "off", (double)ti / 1e6,
           (double)(s1.warp_instructions - s0.warp_instructions) / 1e6, cpu, wall, (double)ti / cpu / 1e6,
           (double)ti / wall / 1e6, rc ? "WRONG" : "right");
done:
    if (m) emu_module_unload(m);
    if (e) emu_free(e);
    free(ptx);
    free(b.in);
    free(b.out);
    free(b.scratch);
    return rc;
}

/* bench [PTXDIR] [N] [LAB...]: LAB a number (1, 7, 13, 15) runs that
 * lab's alone, both hazard settings, or with ":off" or ":on" one of them;
 * none runs them all. */
int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "build/emu/forms/ptx";
    unsigned n = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 1u << 20;
    int rc = 0;
    if (n == 0 || n > (1u << 28)) {
        fprintf(stderr, "usage: bench [PTXDIR] [N elements, 1..2^28] [LAB...]\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof bench_labs / sizeof bench_labs[0]; i++) {
        for (int hazards = 0; hazards <= 1; hazards++) {
            int pick = argc <= 3;
            for (int a = 3; a < argc; a++) {
                const char *on = strchr(argv[a], ':');
                pick |= atoi(argv[a]) == atoi(bench_labs[i].name + 4) &&
                        (!on || !strcmp(on + 1, hazards ? "on" : "off"));
            }
            if (pick)
                rc |= bench(&bench_labs[i], dir, n, hazards);
        }
    }
    return rc;
}
