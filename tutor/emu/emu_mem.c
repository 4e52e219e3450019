/* emu_mem.c — the emulator's address map: the global ranges a launch may
 * touch (sorted, looked up by binary search behind a one-entry cache), and
 * the reserved windows that give shared and local memory generic addresses
 * no host allocation can take. */
#include "emu/emu_int.h"
#include "emu/emu_pstate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Each window's size: address space only, reserved and never backed.  It
 * holds the largest shared memory a block has (227 KiB) and a module's
 * .local declarations (MODULE_LOCAL) with room to spare, so an access a
 * little past either still reads as that space's fault.  A
 * window of 4 GiB each, two for each of the CPU judge's two emulators,
 * made every load fail under an address-space limit of 8 GiB (ulimit -v),
 * the reference solutions' too. */
#define WINDOW (16ull << 20)
_Static_assert(MODULE_LOCAL + 16 < WINDOW, "a module's local declarations fit the window");

/* A new emulator with CFG's settings (defaults for zeros); NULL when the
 * host has no memory or no address space for the windows. */
struct emu *emu_new(const struct emu_config *cfg)
{
    struct emu *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    if (cfg)
        e->cfg = *cfg;
    if (e->cfg.sm_count <= 0)
        e->cfg.sm_count = 132;
    if (e->cfg.warps_per_sm <= 0)
        e->cfg.warps_per_sm = 64;
    if (!(e->cfg.clock_ghz > 0))
        e->cfg.clock_ghz = 1.755;
    e->win_bytes = WINDOW;
    void *w = mmap(NULL, 2 * WINDOW, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (w == MAP_FAILED) {
        free(e);
        return NULL;
    }
    e->shared_win = (uint64_t)(uintptr_t)w;
    e->local_win = e->shared_win + WINDOW;
    return e;
}

/* Frees E and its map (never the memory the ranges describe). */
void emu_free(struct emu *e)
{
    if (!e)
        return;
    free(e->heap.base);
    free(e->heap.live);
    for (int i = 0; i < e->nranges; i++)
        free(e->ranges[i].name);
    free(e->ranges);
    free(e->frame_buf);
    for (int i = 0; i < e->ngh_chunks; i++)
        emu_mem_huge_free(e->gh_chunks[i], GH_CHUNK);
    free(e->gh_chunks);
    munmap((void *)(uintptr_t)e->shared_win, 2 * WINDOW);
    free(e);
}

void *emu_mem_huge(size_t bytes)
{
    const size_t huge = 2 << 20;
    /* mapped with a huge page's room to spare, the unaligned ends given back */
    uint8_t *p = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    size_t lead = (huge - (uintptr_t)p % huge) % huge;
    if (lead)
        munmap(p, lead);
    if (huge - lead)
        munmap(p + lead + bytes, huge - lead);
    (void)madvise(p + lead, bytes, MADV_HUGEPAGE);
    return p + lead;
}

void emu_mem_huge_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}

static int lower_bound(const struct emu *e, uint64_t addr)
{
    int lo = 0, hi = e->nranges;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (e->ranges[mid].base < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Maps [base, base+bytes) as global memory named NAME; 0 or -1. */
int emu_mem_map(struct emu *e, void *base, size_t bytes, const char *name)
{
    uint64_t b = (uint64_t)(uintptr_t)base;
    if (!e || !base || !bytes || b + bytes < b)
        return -1;
    if (b < e->local_win + WINDOW && b + bytes > e->shared_win)
        return -1;
    int i = lower_bound(e, b);
    if (i < e->nranges && e->ranges[i].base < b + bytes)
        return -1;
    if (i > 0 && e->ranges[i - 1].base + e->ranges[i - 1].bytes > b)
        return -1;
    if (e->nranges == e->cap) {
        int n = e->cap ? e->cap * 2 : 16;
        struct emu_range *r = realloc(e->ranges, (size_t)n * sizeof *r);
        if (!r)
            return -1;
        e->ranges = r;
        e->cap = n;
    }
    char *nm = strdup(name ? name : "a buffer");
    if (!nm)
        return -1;
    memmove(&e->ranges[i + 1], &e->ranges[i], (size_t)(e->nranges - i) * sizeof *e->ranges);
    e->ranges[i] = (struct emu_range){b, bytes, nm, b, b + bytes, 0};
    e->nranges++;
    return 0;
}

/* Forgets the range starting at BASE; 0 or -1. */
int emu_mem_unmap(struct emu *e, void *base)
{
    uint64_t b = (uint64_t)(uintptr_t)base;
    int i = lower_bound(e, b);
    if (i >= e->nranges || e->ranges[i].base != b)
        return -1;
    free(e->ranges[i].name);
    memmove(&e->ranges[i], &e->ranges[i + 1], (size_t)(e->nranges - i - 1) * sizeof *e->ranges);
    e->nranges--;
    return 0;
}

/* Names the range holding BASE again (a buffer the judge places inside a
 * larger allocation, with guard bytes around it, names that allocation);
 * 0 or -1. */
int emu_mem_rename(struct emu *e, void *base, const char *name)
{
    uint64_t b = (uint64_t)(uintptr_t)base;
    int i = lower_bound(e, b + 1) - 1;
    if (i < 0 || b - e->ranges[i].base >= e->ranges[i].bytes || !name)
        return -1;
    char *nm = strdup(name);
    if (!nm)
        return -1;
    free(e->ranges[i].name);
    e->ranges[i].name = nm;
    return 0;
}

/* What the lab gives the kernel of the range holding AT: BYTES from AT
 * (a buffer of n elements; 0: the whole range), only read when INPUT; 0,
 * or -1 when no range holds AT.  AT NULL gives every range back whole. */
int emu_mem_lend(struct emu *e, const void *at, size_t bytes, int input)
{
    uint64_t a = (uint64_t)(uintptr_t)at;
    if (!at) {
        for (int i = 0; i < e->nranges; i++) {
            e->ranges[i].lo = e->ranges[i].base;
            e->ranges[i].hi = e->ranges[i].base + e->ranges[i].bytes;
            e->ranges[i].track_reads = 0;
        }
        return 0;
    }
    int i = lower_bound(e, a + 1) - 1;
    if (i < 0 || a - e->ranges[i].base >= e->ranges[i].bytes)
        return -1;
    struct emu_range *r = &e->ranges[i];
    uint64_t end = r->base + r->bytes;
    r->lo = bytes ? a : r->base;
    r->hi = bytes && bytes < end - a ? a + bytes : end;
    r->track_reads = !input;
    return 0;
}

/* The range holding all of [addr, addr+bytes), or NULL; *LAST caches the
 * index of the last hit. */
const struct emu_range *emu_mem_find(const struct emu *e, int *last, uint64_t addr, size_t bytes)
{
    if (e->nranges == 0)
        return NULL;
    const struct emu_range *r = &e->ranges[*last >= 0 && *last < e->nranges ? *last : 0];
    if (addr - r->base < r->bytes && addr + bytes - r->base <= r->bytes)
        return r;
    int i = lower_bound(e, addr + 1) - 1;
    if (i < 0)
        return NULL;
    r = &e->ranges[i];
    if (addr - r->base < r->bytes && addr + bytes - r->base <= r->bytes) {
        *last = i;
        return r;
    }
    return NULL;
}

/* Says where ADDR is: "d_in + 4096, 0 bytes past its end" or that no
 * allocation holds it. */
void emu_mem_describe(struct emu *e, uint64_t addr, char *out, size_t cap)
{
    int i = lower_bound(e, addr + 1) - 1;
    int j = i + 1;
    if (i >= 0) {
        const struct emu_range *r = &e->ranges[i];
        uint64_t off = addr - r->base;
        if (off < r->bytes) {
            snprintf(out, cap, "%s + %llu", r->name, (unsigned long long)off);
            return;
        }
        if (off - r->bytes < (1u << 20)) {
            snprintf(out, cap, "%s + %llu, %llu bytes past its end", r->name,
                     (unsigned long long)off, (unsigned long long)(off - r->bytes));
            return;
        }
    }
    if (j < e->nranges && e->ranges[j].base - addr <= (1u << 20)) {
        snprintf(out, cap, "%llu bytes before %s", (unsigned long long)(e->ranges[j].base - addr),
                 e->ranges[j].name);
        return;
    }
    if (addr >= e->shared_win && addr < e->shared_win + e->win_bytes) {
        snprintf(out, cap, "shared + %llu", (unsigned long long)(addr - e->shared_win));
        return;
    }
    snprintf(out, cap, "0x%llx, which no allocation holds", (unsigned long long)addr);
}
