/* emu_fuzz.c — a mutation fuzzer for the PTX emulator, which runs a
 * student's PTX (inline asm included) inside the trusted judge: PTX files
 * are cut, spliced and retyped at random, loaded, and their first kernel
 * launched on a mapped buffer.  Built with AddressSanitizer and
 * UndefinedBehaviorSanitizer (make build/tests/emu_fuzz), any memory error
 * or undefined behaviour stops it with the sanitizer's report.  Not part of
 * `make test`: minutes per run.
 *
 *   build/tests/emu_fuzz ITERATIONS SEED FILE.ptx...   (the PTX tests/emu.sh caches in build/emu/ptx) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"

static unsigned long long rng_state = 88172645463325252ull;

static unsigned long long rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 64)) != NULL)
            *len = fread(buf, 1, (size_t)n, f);
    }
    fclose(f);
    return buf;
}

/* Cuts, retypes, copies or duplicates a few random spans of BUF. */
static char *mutate(char *buf, size_t *len)
{
    static const char bytes[] = ",;{}[]()%.0123456789-+!|@_ \n";
    int muts = 1 + (int)(rng() % 4);
    for (int k = 0; k < muts && *len > 16; k++) {
        size_t n = *len, at = rng() % n, span = 1 + rng() % 40;
        if (at + span > n)
            span = n - at;
        switch (rng() % 4) {
        case 0:
            memmove(buf + at, buf + at + span, n - at - span);
            *len = n - span;
            break;
        case 1:
            buf[at] = bytes[rng() % (sizeof bytes - 1)];
            break;
        case 2:
            buf[at] = buf[rng() % n];
            break;
        default: {
            char *grown = malloc(n + span);
            if (!grown)
                return buf;
            memcpy(grown, buf, at + span);
            memcpy(grown + at + span, buf + at, n - at);
            free(buf);
            buf = grown;
            *len = n + span;
        }
        }
    }
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: emu_fuzz ITERATIONS SEED FILE.ptx...\n");
        return 2;
    }
    long iters = strtol(argv[1], NULL, 0);
    rng_state += strtoull(argv[2], NULL, 0);
    long loaded = 0, launched = 0;
    static unsigned char mem[1 << 16];
    for (long it = 0; it < iters; it++) {
        size_t len = 0;
        char *ptx = slurp(argv[3 + rng() % (unsigned long long)(argc - 3)], &len);
        if (!ptx)
            continue;
        ptx = mutate(ptx, &len);
        struct emu_config cfg = {.seed = (uint64_t)it, .hazards = (int)(it & 1), .budget = 200000,
                                 .threads = (int)(it % 3)};
        struct emu *e = emu_new(&cfg);
        struct emu_module *m;
        struct emu_error err;
        if (e && emu_module_load(e, ptx, len, &m, &err) == EMU_OK) {
            loaded++;
            const struct emu_kernel *k = emu_module_kernel_at(m, 0);
            struct emu_kernel_info info;
            if (k)
                emu_kernel_info(k, &info);
            if (k && emu_mem_map(e, mem, sizeof mem, "buf") == 0) {
                unsigned char vals[EMU_MAX_PARAMS][16];
                void *args[EMU_MAX_PARAMS];
                int ok = 1;
                for (int i = 0; i < info.nparams; i++) {
                    memset(vals[i], 0, sizeof vals[i]);
                    void *p = mem;
                    unsigned v = (unsigned)(rng() % 300);
                    if (info.param_size[i] > sizeof vals[i])
                        ok = 0;
                    else if (info.param_size[i] == 8)
                        memcpy(vals[i], &p, 8);
                    else
                        memcpy(vals[i], &v, info.param_size[i] < 4 ? info.param_size[i] : 4);
                    args[i] = vals[i];
                }
                struct emu_launch l = {.grid = {1 + (unsigned)(rng() % 3), 1, 1},
                                       .block = {1 + (unsigned)(rng() % 128), 1, 1},
                                       .args = args};
                if (ok) {
                    emu_launch(e, k, &l, &err);
                    launched++;
                }
            }
            emu_module_unload(m);
        }
        emu_free(e);
        free(ptx);
    }
    printf("%ld iterations: %ld loaded, %ld launched, no error found\n", iters, loaded, launched);
    return 0;
}
