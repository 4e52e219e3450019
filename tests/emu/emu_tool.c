/* emu_tool.c — a driver for the PTX emulator, for tests/emu.sh and for
 * measuring it: no CUDA runtime, just emu.h.
 *
 *   emu_tool parse FILE.ptx...          one line a file: "ok N kernels" or the status and message
 *   emu_tool reduce FILE.ptx N [hazards|threads=T] lab 01's launcher: passes of reduce_block<<<ceil(len/128),
 *                                       128>>>(src, dst, len) until one block is left; prints the
 *                                       sum, the expected sum and the speed
 *   emu_tool run FILE.ptx KERNEL GRID BLOCK [hazards|threads=T|coop|coop+hazards] ARG...
 *                                       one launch of KERNEL (a mangled name, or "0" for the first);
 *                                       each ARG a scalar (i32:V u32:V u64:V f32:V f64:V) or a buffer
 *                                       buf:TYPE:N:FILL (TYPE i32 u32 f32 f64 u64, FILL iota zero ones
 *                                       mod7) mapped as d0, d1, ...; prints the status and each
 *                                       buffer's sum and first elements
 *   emu_tool regs FILE.cubin KERNEL [THREADS]
 *                                       the registers a thread of KERNEL uses (the cubin's
 *                                       count), and whether a block of THREADS fits an SM */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu/emu.h"

static const char *status_name(enum emu_status st)
{
    static const char *const names[] = {"ok", "fault", "hazard", "unsupported", "limit", "parse",
                                        "nomem"};
    return (unsigned)st < sizeof names / sizeof *names ? names[st] : "?";
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (!got)
            break;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int cmd_parse(int argc, char **argv)
{
    int bad = 0;
    struct emu *e = emu_new(NULL);
    if (!e)
        return 2;
    for (int i = 0; i < argc; i++) {
        size_t len;
        char *ptx = slurp(argv[i], &len);
        if (!ptx) {
            printf("%s: cannot read\n", argv[i]);
            bad = 1;
            continue;
        }
        struct emu_module *m;
        struct emu_error err;
        enum emu_status st = emu_module_load(e, ptx, len, &m, &err);
        if (st == EMU_OK) {
            int n = 0;
            while (emu_module_kernel_at(m, n))
                n++;
            printf("%s: ok %d kernels (register slots:", argv[i], n);
            for (int k = 0; k < n; k++) {
                struct emu_kernel_info info;
                emu_kernel_info(emu_module_kernel_at(m, k), &info);
                printf(" %d", info.slots);
            }
            printf(")\n");
            emu_module_unload(m);
        } else {
            printf("%s: %s [%s] %s\n", argv[i], status_name(st), err.what, err.message);
        }
        free(ptx);
    }
    emu_free(e);
    return bad;
}

static void print_cb(void *ctx, const char *text, size_t len)
{
    (void)ctx;
    fwrite(text, 1, len, stdout);
}

static int cmd_reduce(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    unsigned n = (unsigned)strtoul(argv[1], NULL, 0);
    struct emu_config cfg = {.seed = 1, .hazards = argc > 2 && !strcmp(argv[2], "hazards"),
                             .budget = 1ull << 36, .print = print_cb};
    if (argc > 2 && !strncmp(argv[2], "threads=", 8))
        cfg.threads = atoi(argv[2] + 8);
    struct emu *e = emu_new(&cfg);
    size_t len;
    char *ptx = slurp(argv[0], &len);
    if (!e || !ptx)
        return 2;
    struct emu_module *m;
    struct emu_error err;
    enum emu_status st = emu_module_load(e, ptx, len, &m, &err);
    free(ptx);
    if (st != EMU_OK) {
        printf("load: %s %s\n", status_name(st), err.message);
        return 1;
    }
    const struct emu_kernel *k = emu_module_kernel_at(m, 0);
    int *in = malloc((size_t)n * sizeof *in);
    int *scratch = malloc(((size_t)n / 64 + 16) * sizeof *scratch);
    int *out = malloc(sizeof *out);
    long long want = 0;
    for (unsigned i = 0; i < n; i++) {
        in[i] = (int)((i * 2654435761u) % 1000) - 500;
        want += in[i];
    }
    *out = 0x7eadbeef;
    emu_mem_map(e, in, (size_t)n * sizeof *in, "d_in");
    emu_mem_map(e, scratch, ((size_t)n / 64 + 16) * sizeof *scratch, "d_scratch");
    emu_mem_map(e, out, sizeof *out, "d_out");
    const unsigned block = 128;
    int *bufs[2] = {scratch, scratch + (n + block - 1) / block};
    const int *src = in;
    unsigned cur = n;
    int which = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    for (;;) {
        unsigned blocks = (cur + block - 1) / block;
        int *dst = blocks == 1 ? out : bufs[which];
        void *args[3] = {&src, &dst, &cur};
        struct emu_launch l = {.grid = {blocks, 1, 1}, .block = {block, 1, 1}, .args = args};
        st = emu_launch(e, k, &l, &err);
        if (st != EMU_OK) {
            printf("launch: %s %s\n", status_name(st), err.message);
            break;
        }
        if (blocks == 1)
            break;
        src = dst;
        cur = blocks;
        which ^= 1;
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    struct emu_stats stats;
    emu_stats(e, &stats);
    printf("sum %d expected %lld\n", *out, (long long)(int)want);
    printf("speed %.1f M thread-instructions/s of CPU time (%llu in %.3f s, %llu warp instructions)\n",
           (double)stats.thread_instructions / s / 1e6,
           (unsigned long long)stats.thread_instructions, s,
           (unsigned long long)stats.warp_instructions);
    emu_module_unload(m);
    emu_free(e);
    free(in);
    free(scratch);
    free(out);
    return st == EMU_OK ? 0 : 1;
}

struct buf {
    char type[8];
    size_t n;
    void *p;
};

static double elem(const struct buf *b, size_t i)
{
    if (!strcmp(b->type, "f32"))
        return ((float *)b->p)[i];
    if (!strcmp(b->type, "f64"))
        return ((double *)b->p)[i];
    if (!strcmp(b->type, "i32"))
        return ((int *)b->p)[i];
    if (!strcmp(b->type, "u32"))
        return ((unsigned *)b->p)[i];
    return (double)((unsigned long long *)b->p)[i];
}

static int cmd_run(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int hz = argc > 4 && (!strcmp(argv[4], "hazards") || !strcmp(argv[4], "coop+hazards"));
    int coop = argc > 4 && !strncmp(argv[4], "coop", 4);
    struct emu_config cfg = {.seed = 1, .hazards = hz, .budget = 1ull << 36, .print = print_cb};
    if (argc > 4 && !strncmp(argv[4], "threads=", 8)) {
        cfg.threads = atoi(argv[4] + 8);
        hz = 1;     /* the option's place is taken */
    }
    if (coop)
        hz = 1;
    struct emu *e = emu_new(&cfg);
    size_t len;
    char *ptx = slurp(argv[0], &len);
    if (!e || !ptx)
        return 2;
    struct emu_module *m;
    struct emu_error err;
    enum emu_status st = emu_module_load(e, ptx, len, &m, &err);
    free(ptx);
    if (st != EMU_OK) {
        printf("load: %s %s\n", status_name(st), err.message);
        return 1;
    }
    const struct emu_kernel *k = strcmp(argv[1], "0") ? emu_module_kernel(m, argv[1])
                                                      : emu_module_kernel_at(m, 0);
    if (!k) {
        printf("no kernel %s\n", argv[1]);
        return 1;
    }
    struct buf bufs[16];
    int nb = 0;
    unsigned char vals[64][8];
    void *args[64];
    int na = 0;
    for (int i = 4 + hz; i < argc && na < 64; i++) {
        char type[8] = "";
        memset(vals[na], 0, 8);
        if (!strncmp(argv[i], "buf:", 4) && nb < 16) {
            struct buf *b = &bufs[nb];
            char fill[16] = "zero";
            unsigned long n = 0;
            if (sscanf(argv[i] + 4, "%7[^:]:%lu:%15s", b->type, &n, fill) < 2)
                return 2;
            size_t esz = !strcmp(b->type, "f64") || !strcmp(b->type, "u64") ? 8 : 4;
            b->n = n;
            b->p = calloc(n ? n : 1, esz);
            for (size_t j = 0; j < n; j++) {
                double v = !strcmp(fill, "iota") ? (double)j : !strcmp(fill, "ones") ? 1.0
                         : !strcmp(fill, "mod7") ? (double)(j % 7) : 0.0;
                if (!strcmp(b->type, "f32"))
                    ((float *)b->p)[j] = (float)v;
                else if (!strcmp(b->type, "f64"))
                    ((double *)b->p)[j] = v;
                else if (esz == 4)
                    ((unsigned *)b->p)[j] = (unsigned)v;
                else
                    ((unsigned long long *)b->p)[j] = (unsigned long long)v;
            }
            char name[8];
            snprintf(name, sizeof name, "d%d", nb);
            emu_mem_map(e, b->p, (n ? n : 1) * esz, name);
            memcpy(vals[na], &b->p, sizeof b->p);
            nb++;
        } else if (sscanf(argv[i], "%7[^:]:", type) == 1) {
            const char *v = strchr(argv[i], ':') + 1;
            if (!strcmp(type, "f32")) {
                float f = strtof(v, NULL);
                memcpy(vals[na], &f, 4);
            } else if (!strcmp(type, "f64")) {
                double d = strtod(v, NULL);
                memcpy(vals[na], &d, 8);
            } else {
                long long x = strtoll(v, NULL, 0);
                memcpy(vals[na], &x, 8);
            }
        }
        args[na] = vals[na];
        na++;
    }
    struct emu_launch l = {.grid = {(unsigned)strtoul(argv[2], NULL, 0), 1, 1},
                           .block = {(unsigned)strtoul(argv[3], NULL, 0), 1, 1}, .args = args};
    st = coop ? emu_launch_cooperative(e, k, &l, &err) : emu_launch(e, k, &l, &err);
    printf("launch: %s %s\n", status_name(st), err.message);
    for (int i = 0; i < nb; i++) {
        double sum = 0;
        for (size_t j = 0; j < bufs[i].n; j++)
            sum += elem(&bufs[i], j);
        printf("d%d sum %.17g first", i, sum);
        for (size_t j = 0; j < bufs[i].n && j < 4; j++)
            printf(" %.9g", elem(&bufs[i], j));
        printf("\n");
        free(bufs[i].p);
    }
    emu_module_unload(m);
    emu_free(e);
    return st == EMU_OK ? 0 : 1;
}

/* regs FILE.cubin KERNEL [THREADS]: the kernel's registers a thread, as
 * the cubin says, and whether a block of THREADS fits an SM. */
static int cmd_regs(int argc, char **argv)
{
    size_t len;
    char *bin = slurp(argv[0], &len);
    if (!bin) {
        fprintf(stderr, "emu_tool: cannot read %s\n", argv[0]);
        return 2;
    }
    int regs = emu_cubin_regs(bin, len, argv[1]);
    free(bin);
    if (regs < 0) {
        printf("unknown\n");
        return 1;
    }
    unsigned threads = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 0;
    if (threads)
        printf("%d %s\n", regs, emu_regs_fit(regs, threads) ? "fits" : "does not fit");
    else
        printf("%d\n", regs);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "parse"))
        return cmd_parse(argc - 2, argv + 2);
    if (argc >= 3 && !strcmp(argv[1], "reduce"))
        return cmd_reduce(argc - 2, argv + 2);
    if (argc >= 3 && !strcmp(argv[1], "run"))
        return cmd_run(argc - 2, argv + 2);
    if (argc >= 4 && !strcmp(argv[1], "regs"))
        return cmd_regs(argc - 2, argv + 2);
    fprintf(stderr, "usage: emu_tool parse FILE.ptx... | emu_tool reduce FILE.ptx N [hazards|threads=T] |\n"
                    "       emu_tool run FILE.ptx KERNEL GRID BLOCK [hazards|threads=T] ARG... |\n"
                    "       emu_tool regs FILE.cubin KERNEL [THREADS]\n");
    return 2;
}
