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
 *   zoo_run --compare GPU EMU     the differences, "zoo: N slots, N equal,
 *                                 N differ, N not emulated"; 1 if any differ */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef ZOO_GPU
#include <cuda.h>
#else
#include "emu/emu.h"
#endif

enum { BLOCKS = 4, BLOCK = 64, THREADS = BLOCKS * BLOCK, SLOTS = 16, SHOWN = 4, LINE_MAX_BYTES = 4096 };

/* The kernels, in the order zoo.cu defines them. */
static const char *const zoo_kernels[] = {
    "zoo_int", "zoo_int64", "zoo_simd", "zoo_simd2", "zoo_fround", "zoo_fconv", "zoo_fapprox",
    "zoo_fmath", "zoo_f64", "zoo_dmath", "zoo_warp", "zoo_atomic",
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

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
        buf[n] = '\0';
    else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* PTX with every .entry but NAME's left out, so that a form the emulator
 * refuses in one kernel refuses that kernel only.  An entry runs from its
 * ".entry" line to the first "}" that starts a line.  NULL without memory. */
static char *only_entry(const char *ptx, const char *name)
{
    size_t len = strlen(ptx), n = 0, namelen = strlen(name);
    char *out = malloc(len + 1);
    int skipping = 0;
    if (!out)
        return NULL;
    for (const char *p = ptx; *p;) {
        const char *nl = strchr(p, '\n');
        size_t linelen = nl ? (size_t)(nl - p) + 1 : strlen(p);
        const char *entry = strstr(p, ".entry ");
        if (!skipping && entry && entry < p + linelen) {
            const char *at = entry + 7;
            skipping = !(strncmp(at, name, namelen) == 0 && (at[namelen] == '(' || at[namelen] == ' ' ||
                                                            at[namelen] == '\n'));
        }
        if (!skipping) {
            memcpy(out + n, p, linelen);
            n += linelen;
        } else if (p[0] == '}')
            skipping = 0;
        p += linelen;
    }
    out[n] = '\0';
    return out;
}

/* Every kernel on the same seeded words; one line per slot, or one line
 * per kernel that did not run ("NAME - why"). */
static int run_all(const char *ptx_path, uint64_t seed)
{
    static uint32_t in[THREADS * 4], out[THREADS * SLOTS];
    char why[600];
    char *ptx = slurp(ptx_path);
    if (!ptx) {
        fprintf(stderr, "zoo_run: cannot read %s\n", ptx_path);
        return 2;
    }
    printf("# zoo seed %" PRIu64 " threads %d slots %d\n", seed, THREADS, SLOTS);
    for (int k = 0; k < NKERNELS; k++) {
        uint64_t s = seed * 1000003u + (uint64_t)k;
        for (int i = 0; i < THREADS * 4; i++)
            in[i] = draw_word(&s);
        char *one = only_entry(ptx, zoo_kernels[k]);
        int failed = !one || backend_load(one, why, sizeof why) || backend_run(zoo_kernels[k], in, out, why, sizeof why);
        backend_unload();
        free(one);
        if (failed) {
            for (char *p = why; *p; p++)
                if (*p == '\n' || *p == '\t')
                    *p = ' ';
            printf("%s\t-\t%s\n", zoo_kernels[k], why);
            continue;
        }
        for (int slot = 0; slot < SLOTS; slot++) {
            printf("%s\t%d\t%016" PRIx64, zoo_kernels[k], slot, slot_hash(out, slot));
            for (int t = 0; t < SHOWN; t++)
                printf("\t%08" PRIx32, out[(size_t)t * SLOTS + slot]);
            printf("\n");
        }
    }
    free(ptx);
    return 0;
}

/* A file's lines, "NAME\tSLOT\t..." or "NAME\t-\twhy". */
struct lines {
    char **line;
    int n;
};

static int read_lines(const char *path, struct lines *l)
{
    char *text = slurp(path), *save = NULL;
    l->line = NULL;
    l->n = 0;
    if (!text)
        return -1;
    for (char *p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
        if (*p == '#')
            continue;
        char **grown = realloc(l->line, (size_t)(l->n + 1) * sizeof *grown);
        if (!grown)
            return -1;
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

static int compare(const char *gpu_path, const char *emu_path)
{
    struct lines g, e;
    int slots = 0, equal = 0, differ = 0, refused = 0;
    char key[64];
    if (read_lines(gpu_path, &g) || read_lines(emu_path, &e)) {
        fprintf(stderr, "zoo_run: cannot read %s or %s\n", gpu_path, emu_path);
        return 2;
    }
    for (int k = 0; k < NKERNELS; k++) {
        snprintf(key, sizeof key, "%s\t-\t", zoo_kernels[k]);
        const char *gone = find_line(&e, key);
        if (find_line(&g, key)) {
            printf("%s: did not run on the GPU: %s\n", zoo_kernels[k], find_line(&g, key) + strlen(key));
            differ++;
            continue;
        }
        for (int slot = 0; slot < SLOTS; slot++) {
            snprintf(key, sizeof key, "%s\t%d\t", zoo_kernels[k], slot);
            const char *gl = find_line(&g, key), *el = find_line(&e, key);
            slots++;
            if (gone) {
                refused++;
                continue;
            }
            if (gl && el && !strcmp(gl, el)) {
                equal++;
                continue;
            }
            differ++;
            printf("%s slot %d: gpu %s\n%*s   emu %s\n", zoo_kernels[k], slot, gl ? gl + strlen(key) : "(none)",
                   (int)(strlen(zoo_kernels[k]) + 7 + (slot > 9)), "", el ? el + strlen(key) : "(none)");
        }
        if (gone)
            printf("%s: %s\n", zoo_kernels[k], gone + strlen(zoo_kernels[k]) + 3);
    }
    printf("zoo: %d slots, %d equal, %d differ, %d not emulated\n", slots, equal, differ, refused);
    return differ ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--compare"))
        return compare(argv[2], argv[3]);
    if (argc == 2 || argc == 3)
        return run_all(argv[1], argc == 3 ? strtoull(argv[2], NULL, 0) : 20261126);
    fprintf(stderr, "usage: zoo_run ZOO.ptx [SEED] | zoo_run --compare GPU EMU\n");
    return 2;
}
