/* zoo_run.c — runs every kernel of the zoo (tests/emu/zoo/zoo.cu, as PTX)
 * on seeded inputs and writes what each thread left in each slot, one text
 * line per kernel and slot: a hash of the slot over all threads and its
 * first threads' words.  Built twice from this one file: against the PTX
 * emulator (tests/emu/zoo.sh, CI) and, with -DZOO_GPU, against the CUDA
 * driver (tests/device/emu-zoo.sh, on the GPU), so both run the very same
 * PTX text on the very same words; `zoo_run --compare GPU EMU` then names
 * every slot whose bits differ.  The GPU's file is kept in the tree
 * (tests/emu/zoo/h100.txt), so CI holds the emulator to the GPU's bits.
 *
 *   zoo_run ZOO.ptx [SEED]        one line per kernel and slot on stdout
 *                                 (ZOO_FULL=1: every thread's words on each)
 *   zoo_run --compare GPU EMU     the differences, "zoo: N slots, N equal,
 *                                 N differ, N not emulated"; 1 if any differ */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

#ifdef ZOO_GPU
#include <cuda.h>
#else
#include "emu/emu.h"
#endif

enum { BLOCKS = 4, BLOCK = 64, THREADS = BLOCKS * BLOCK, SLOTS = 16, SHOWN = 4 };

/* The kernels, in the order zoo.cu defines them.  A kernel built on the
 * approximate instructions (ex2/lg2/sin/cos/rsqrt/rcp .approx), which the
 * emulator computes correctly rounded, is compared within the error the
 * ISA and the CUDA guide state for them, carried through libdevice: ULPS
 * units in the last place of the GPU's value, or ABS where the result is
 * near zero; its lines carry every thread's words. */
enum tol { EXACT, F32, F64 };
static const struct zoo_kernel {
    const char *name;
    enum tol tol;
    int ulps;
    double abs;
} zoo_kernels[] = {
    {"zoo_int", EXACT, 0, 0},
    {"zoo_int64", EXACT, 0, 0},
    {"zoo_simd", EXACT, 0, 0},
    {"zoo_simd2", EXACT, 0, 0},
    {"zoo_fround", EXACT, 0, 0},
    {"zoo_fconv", EXACT, 0, 0},
    {"zoo_fmath", EXACT, 0, 0},             /* libdevice on exact arithmetic alone: the same bits */
    {"zoo_fapprox", F32, 1024, 0x1p-18},    /* __powf, __sinf...: refused by the emulator, kept for the GPU's record */
    {"zoo_f64", EXACT, 0, 0},
    {"zoo_nan", EXACT, 0, 0},
    {"zoo_dmath", EXACT, 0, 0},
    {"zoo_warp", EXACT, 0, 0},
    {"zoo_atomic", EXACT, 0, 0},
    {"zoo_cg", EXACT, 0, 0},
    {"zoo_ctrl", EXACT, 0, 0},
    {"zoo_mem", EXACT, 0, 0},
    {"zoo_half", EXACT, 0, 0},
    {"zoo_ptrs", EXACT, 0, 0},
    {"zoo_cg2", EXACT, 0, 0},
    {"zoo_dpx", EXACT, 0, 0},
};
enum { NKERNELS = sizeof zoo_kernels / sizeof zoo_kernels[0] };

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* One input word: random bits, a small integer, a float the ISA treats
 * apart (zeros, infinities, NaNs, subnormals, halves, the integer
 * limits) or an ordinary float. */
static uint32_t draw_word(uint64_t *s)
{
    static const uint32_t special[] = {
        0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
        0xffc00001, 0x7f800001, 0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0x3f000000,
        0x3fc00000, 0x40200000, 0xc0200000, 0x4f000000, 0xcf000000, 0x4f800000, 0x5f000000,
        0x501502f9, 0x3effffff, 0x4b000001, 0xcb7fffff,
    };
    uint64_t r = splitmix(s);
    unsigned kind = (unsigned)(r % 20);
    uint32_t hi = (uint32_t)(r >> 32);
    if (kind < 10)
        return (uint32_t)splitmix(s);
    if (kind < 13)
        return (uint32_t)((int32_t)(hi % 17) - 8);
    if (kind < 18)
        return special[hi % (sizeof special / sizeof special[0])];
    float x = (float)((int32_t)hi) / 2147483648.0f * 100.0f;
    uint32_t w;
    memcpy(&w, &x, 4);
    return w;
}

/* Kernel K's input words under SEED: four a thread. */
static void draw_inputs(uint64_t seed, int k, uint32_t *in)
{
    uint64_t s = seed * 1000003u + (uint64_t)k;
    for (int i = 0; i < THREADS * 4; i++)
        in[i] = draw_word(&s);
}

/* FNV-1a over a slot's words, thread after thread. */
static uint64_t slot_hash(const uint32_t *out, int slot)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int t = 0; t < THREADS; t++) {
        uint32_t w = out[(size_t)t * SLOTS + slot];
        for (int i = 0; i < 4; i++) {
            h ^= (w >> (8 * i)) & 0xff;
            h *= 0x100000001b3ull;
        }
    }
    return h;
}

/* The backends: load the module, run kernel K on IN into OUT.  0, or -1
 * with why (a form not emulated says "not emulated: ..."). */
#ifdef ZOO_GPU
static CUmodule zoo_mod;

static int backend_load(const char *ptx, char *why, size_t cap)
{
    static CUcontext ctx;
    CUdevice dev;
    if ((!ctx && (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
                  cuCtxSetCurrent(ctx))) ||
        cuModuleLoadData(&zoo_mod, ptx)) {
        snprintf(why, cap, "the CUDA driver cannot load the zoo");
        return -1;
    }
    return 0;
}

static void backend_unload(void)
{
    if (zoo_mod)
        cuModuleUnload(zoo_mod);
    zoo_mod = NULL;
}

static int backend_run(const char *name, const uint32_t *in, uint32_t *out, char *why, size_t cap)
{
    CUfunction fn;
    CUdeviceptr din = 0, dout = 0;
    int rc = -1;
    size_t inb = (size_t)THREADS * 4 * 4, outb = (size_t)THREADS * SLOTS * 4;
    if (cuModuleGetFunction(&fn, zoo_mod, name) || cuMemAlloc(&din, inb) || cuMemAlloc(&dout, outb) ||
        cuMemcpyHtoD(din, in, inb) || cuMemsetD8(dout, 0, outb)) {
        snprintf(why, cap, "cannot set %s up", name);
        goto out;
    }
    void *args[] = {&din, &dout};
    if (cuLaunchKernel(fn, BLOCKS, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL) || cuCtxSynchronize() ||
        cuMemcpyDtoH(out, dout, outb)) {
        snprintf(why, cap, "%s failed on the GPU", name);
        goto out;
    }
    rc = 0;
out:
    if (din)
        cuMemFree(din);
    if (dout)
        cuMemFree(dout);
    return rc;
}
#else
static struct emu *zoo_emu;
static struct emu_module *zoo_mod;

static int backend_load(const char *ptx, char *why, size_t cap)
{
    struct emu_config cfg = {.sm_count = 132, .warps_per_sm = 64, .clock_ghz = 1.98, .seed = 7,
                             .hazards = 1, .budget = 200u * 1000 * 1000};
    struct emu_error err;
    zoo_emu = emu_new(&cfg);
    if (!zoo_emu) {
        snprintf(why, cap, "no memory for the emulator");
        return -1;
    }
    if (emu_module_load(zoo_emu, ptx, strlen(ptx), &zoo_mod, &err) != EMU_OK) {
        snprintf(why, cap, "%s%s", err.status == EMU_UNSUPPORTED ? "not emulated: " : "", err.message);
        zoo_mod = NULL;
        return -1;
    }
    return 0;
}

static void backend_unload(void)
{
    if (zoo_mod)
        emu_module_unload(zoo_mod);
    zoo_mod = NULL;
    emu_free(zoo_emu);
    zoo_emu = NULL;
}

static int backend_run(const char *name, const uint32_t *in, uint32_t *out, char *why, size_t cap)
{
    const struct emu_kernel *k = emu_module_kernel(zoo_mod, name);
    struct emu_error err;
    size_t inb = (size_t)THREADS * 4 * 4, outb = (size_t)THREADS * SLOTS * 4;
    int rc = -1;
    uint32_t *din = malloc(inb), *dout = calloc(1, outb);
    if (!k || !din || !dout || emu_mem_map(zoo_emu, din, inb, "in") || emu_mem_map(zoo_emu, dout, outb, "out")) {
        snprintf(why, cap, "cannot set %s up", name);
        goto out;
    }
    memcpy(din, in, inb);
    void *args[] = {&din, &dout};
    struct emu_launch l = {{BLOCKS, 1, 1}, {BLOCK, 1, 1}, 0, args};
    enum emu_status st = emu_launch(zoo_emu, k, &l, &err);
    if (st != EMU_OK) {
        snprintf(why, cap, "%s%s", st == EMU_UNSUPPORTED ? "not emulated: " : "", err.message);
        goto out;
    }
    memcpy(out, dout, outb);
    rc = 0;
out:
    if (din)
        emu_mem_unmap(zoo_emu, din);
    if (dout)
        emu_mem_unmap(zoo_emu, dout);
    free(din);
    free(dout);
    return rc;
}
#endif

/* Every kernel on its seeded words; one line per slot (its hash, then the
 * first threads' words, or every thread's when FULL or the kernel is
 * compared within a tolerance), or one line per kernel that did not run
 * ("NAME - why"). */
static int run_all(const char *ptx_path, uint64_t seed, int full)
{
    static uint32_t in[THREADS * 4], out[THREADS * SLOTS];
    char why[600];
    char *ptx = util_read_file(ptx_path, NULL);
    if (!ptx) {
        fprintf(stderr, "zoo_run: cannot read %s\n", ptx_path);
        return 2;
    }
    printf("# zoo seed %" PRIu64 " threads %d slots %d\n", seed, THREADS, SLOTS);
    for (int k = 0; k < NKERNELS; k++) {
        draw_inputs(seed, k, in);
        /* the whole module each time: a form the emulator refuses refuses
         * only the kernels that reach it, and each kernel starts afresh */
        int failed = backend_load(ptx, why, sizeof why) || backend_run(zoo_kernels[k].name, in, out, why, sizeof why);
        backend_unload();
        if (failed) {
            for (char *p = why; *p; p++)
                if (*p == '\n' || *p == '\t')
                    *p = ' ';
            printf("%s\t-\t%s\n", zoo_kernels[k].name, why);
            continue;
        }
        int all = zoo_kernels[k].tol != EXACT || full;
        for (int slot = 0; slot < SLOTS; slot++) {
            printf("%s\t%d\t%016" PRIx64, zoo_kernels[k].name, slot, slot_hash(out, slot));
            for (int t = 0; t < (all ? THREADS : SHOWN); t++)
                printf("\t%08" PRIx32, out[(size_t)t * SLOTS + slot]);
            printf("\n");
        }
    }
    free(ptx);
    return 0;
}

/* A file's lines, "NAME\tSLOT\tHASH\tWORD..." or "NAME\t-\twhy", and the
 * seed its header names. */
struct lines {
    char **line;
    int n;
    uint64_t seed;
};

static int read_lines(const char *path, struct lines *l)
{
    char *text = util_read_file(path, NULL), *save = NULL;
    l->line = NULL;
    l->n = 0;
    l->seed = 0;
    if (!text)
        return -1;
    for (char *p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
        if (*p == '#') {
            sscanf(p, "# zoo seed %" SCNu64, &l->seed);
            continue;
        }
        char **grown = realloc(l->line, (size_t)(l->n + 1) * sizeof *grown);
        if (!grown) {
            free(text);
            return -1;
        }
        l->line = grown;
        l->line[l->n++] = strdup(p);
    }
    free(text);
    return 0;
}

/* The line of L that starts with KEY ("zoo_int\t3\t" or "zoo_int\t-\t"). */
static const char *find_line(const struct lines *l, const char *key)
{
    size_t len = strlen(key);
    for (int i = 0; i < l->n; i++)
        if (!strncmp(l->line[i], key, len))
            return l->line[i];
    return NULL;
}

/* The words after a line's hash: how many (SHOWN or THREADS). */
static int line_words(const char *line, uint32_t *w)
{
    int n = 0;
    const char *p = strchr(line, '\t');
    p = p ? strchr(p + 1, '\t') : NULL;     /* past the name and the slot: at the hash */
    p = p ? strchr(p + 1, '\t') : NULL;
    while (p && n < THREADS) {
        w[n++] = (uint32_t)strtoul(p + 1, NULL, 16);
        p = strchr(p + 1, '\t');
    }
    return n;
}

static double as_f32(uint32_t w)
{
    float f;
    memcpy(&f, &w, 4);
    return f;
}

static double as_f64(uint32_t lo, uint32_t hi)
{
    uint64_t b = ((uint64_t)hi << 32) | lo;
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* Whether the emulator's E is the GPU's G within kernel K's tolerance:
 * bits equal, or both finite and |G - E| within ULPS of G's spacing or
 * ABS.  NaNs and infinities must match exactly. */
static int within(const struct zoo_kernel *k, double g, double e)
{
    if (g != g || e != e || g - g != 0 || e - e != 0)
        return 0;
    double d = g > e ? g - e : e - g, mag = g < 0 ? -g : g;
    double ulp = k->tol == F32 ? (mag < 0x1p-126 ? 0x1p-149 : ldexp(1.0, ilogb(mag) - 23))
                               : (mag < 0x1p-1022 ? 0x1p-1074 : ldexp(1.0, ilogb(mag) - 52));
    return d <= k->ulps * ulp || d <= k->abs;
}

/* Slot SLOT of kernel K, both lines with every thread's words: the
 * threads that differ (beyond the tolerance), the first few shown with
 * their inputs. */
static int compare_words(int k, int slot, const uint32_t *g, const uint32_t *e, uint64_t seed)
{
    static uint32_t in[THREADS * 4];
    const struct zoo_kernel *z = &zoo_kernels[k];
    int bad = 0;
    draw_inputs(seed, k, in);
    for (int t = 0; t < THREADS; t++) {
        int ok = g[t] == e[t];
        if (!ok && z->tol == F32)
            ok = within(z, as_f32(g[t]), as_f32(e[t]));
        if (ok)
            continue;
        if (bad++ < 3)
            printf("%s slot %d thread %d: in %08x %08x %08x %08x: gpu %08x, emu %08x\n", z->name, slot, t,
                   in[4 * t], in[4 * t + 1], in[4 * t + 2], in[4 * t + 3], g[t], e[t]);
    }
    return bad;
}

/* A double's two slots (SLOT even) of kernel K, within its tolerance; the
 * first differences printed when SHOW. */
static int compare_doubles(int k, int slot, const uint32_t *glo, const uint32_t *ghi, const uint32_t *elo,
                           const uint32_t *ehi, int show)
{
    const struct zoo_kernel *z = &zoo_kernels[k];
    int bad = 0;
    for (int t = 0; t < THREADS; t++) {
        if ((glo[t] == elo[t] && ghi[t] == ehi[t]) || within(z, as_f64(glo[t], ghi[t]), as_f64(elo[t], ehi[t])))
            continue;
        if (bad++ < 3 && show)
            printf("%s slots %d-%d thread %d: gpu %08x%08x, emu %08x%08x\n", z->name, slot, slot + 1, t, ghi[t],
                   glo[t], ehi[t], elo[t]);
    }
    return bad;
}

static int compare(const char *gpu_path, const char *emu_path)
{
    static uint32_t gw[SLOTS][THREADS], ew[SLOTS][THREADS];
    struct lines g, e;
    int slots = 0, equal = 0, differ = 0, refused = 0;
    char key[64];
    if (read_lines(gpu_path, &g) || read_lines(emu_path, &e)) {
        fprintf(stderr, "zoo_run: cannot read %s or %s\n", gpu_path, emu_path);
        return 2;
    }
    for (int k = 0; k < NKERNELS; k++) {
        const struct zoo_kernel *z = &zoo_kernels[k];
        int gn[SLOTS], en[SLOTS];
        const char *gl[SLOTS], *el[SLOTS];
        snprintf(key, sizeof key, "%s\t-\t", z->name);
        const char *gone = find_line(&e, key);
        if (find_line(&g, key)) {
            printf("%s: did not run on the GPU: %s\n", z->name, find_line(&g, key) + strlen(key));
            slots += SLOTS;
            differ += SLOTS;
            continue;
        }
        if (gone) {
            printf("%s: %s\n", z->name, gone + strlen(key));
            slots += SLOTS;
            refused += SLOTS;
            continue;
        }
        for (int slot = 0; slot < SLOTS; slot++) {
            snprintf(key, sizeof key, "%s\t%d\t", z->name, slot);
            gl[slot] = find_line(&g, key);
            el[slot] = find_line(&e, key);
            gn[slot] = gl[slot] ? line_words(gl[slot], gw[slot]) : 0;
            en[slot] = el[slot] ? line_words(el[slot], ew[slot]) : 0;
        }
        for (int slot = 0; slot < SLOTS; slot++) {
            int bad;
            slots++;
            if (!gl[slot] || !el[slot])
                bad = 1;
            else if (gn[slot] == THREADS && en[slot] == THREADS && z->tol == F64)
                /* a double spans slots 2i and 2i + 1: judged whole, counted twice */
                bad = compare_doubles(k, slot & ~1, gw[slot & ~1], gw[slot | 1], ew[slot & ~1], ew[slot | 1],
                                      !(slot & 1));
            else if (gn[slot] == THREADS && en[slot] == THREADS)
                bad = compare_words(k, slot, gw[slot], ew[slot], g.seed);
            else {
                /* the hash and the words both lines show */
                int n = gn[slot] < en[slot] ? gn[slot] : en[slot];
                bad = strncmp(gl[slot], el[slot], strlen(key) + 16) != 0 ||
                      memcmp(gw[slot], ew[slot], (size_t)n * sizeof gw[slot][0]) != 0;
            }
            if (!bad) {
                equal++;
                continue;
            }
            differ++;
            if (gn[slot] != THREADS || en[slot] != THREADS)
                printf("%s slot %d: gpu %.60s\n%*s   emu %.60s\n", z->name, slot,
                       gl[slot] ? gl[slot] + strlen(key) : "(none)", (int)(strlen(z->name) + 7 + (slot > 9)), "",
                       el[slot] ? el[slot] + strlen(key) : "(none)");
        }
    }
    printf("zoo: %d slots, %d equal, %d differ, %d not emulated\n", slots, equal, differ, refused);
    return differ ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--compare"))
        return compare(argv[2], argv[3]);
    if (argc == 2 || argc == 3)
        return run_all(argv[1], argc == 3 ? strtoull(argv[2], NULL, 0) : 20261126,
                       getenv("ZOO_FULL") && *getenv("ZOO_FULL") == '1');
    fprintf(stderr, "usage: zoo_run ZOO.ptx [SEED] | zoo_run --compare GPU EMU\n");
    return 2;
}
