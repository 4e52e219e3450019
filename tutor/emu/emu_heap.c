/* emu_heap.c — device malloc and free (and so new and delete, which nvcc
 * makes of them): one arena per emulator the size of a GPU's heap (8 MiB,
 * cudaLimitMallocHeapSize's default), mapped as one global range before
 * the first launch of a module that calls them, and kept across launches
 * as a GPU keeps its heap.  Blocks are handed out first fit, 16-byte
 * aligned, filled with junk: a GPU's are not cleared.  A GPU's allocator
 * spends part of its heap on its own books, so a request that would take
 * the live blocks past half the heap, whose answer (a block or NULL) only
 * the GPU knows, needs a GPU; so does malloc(0). */
#include "emu/emu_run.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { HEAP_BYTES = 8 << 20, HEAP_SURE = HEAP_BYTES / 2, HEAP_ALIGN = 16 };

int emu_heap_open(struct emu *e)
{
    if (e->heap.base)
        return 0;
    uint8_t *base = malloc(HEAP_BYTES);
    if (!base || emu_mem_map(e, base, HEAP_BYTES, "the device heap")) {
        free(base);
        return -1;
    }
    e->heap.base = base;
    return 0;
}

/* A block of BYTES (rounded up), its offset in *OFF; 0, or -1 when the heap
 * has no gap that large or no memory for its books. */
static int heap_take(struct emu_heap *h, uint32_t bytes, uint32_t *off)
{
    uint32_t at = 0;
    int i = 0;
    for (; i < h->nlive && h->live[i].off - at < bytes; i++)
        at = (h->live[i].off + h->live[i].bytes + HEAP_ALIGN - 1) & ~(uint32_t)(HEAP_ALIGN - 1);
    if (HEAP_BYTES - at < bytes)
        return -1;
    if (h->nlive == h->cap) {
        int cap = h->cap ? 2 * h->cap : 64;
        struct emu_heap_block *g = realloc(h->live, (size_t)cap * sizeof *g);
        if (!g)
            return -1;
        h->live = g;
        h->cap = cap;
    }
    memmove(&h->live[i + 1], &h->live[i], (size_t)(h->nlive - i) * sizeof *h->live);
    h->live[i] = (struct emu_heap_block){at, bytes};
    h->nlive++;
    h->used += bytes;
    memset(h->base + at, 0xa5, bytes);
    *off = at;
    return 0;
}

/* Gives back the block at offset OFF; -1 when no live block starts there. */
static int heap_give(struct emu_heap *h, uint64_t off)
{
    int lo = 0, hi = h->nlive;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (h->live[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == h->nlive || h->live[lo].off != off)
        return -1;
    h->used -= h->live[lo].bytes;
    memmove(&h->live[lo], &h->live[lo + 1], (size_t)(h->nlive - lo - 1) * sizeof *h->live);
    h->nlive--;
    return 0;
}

int emu_heap_call(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc)
{
    struct emu_heap *h = &r->e->heap;
    int rc = 0;
    if (r->pool)
        pthread_mutex_lock(&r->pool->lock);
    for (uint32_t m = mask; m && rc == 0; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint8_t *sc = w->scratch + (size_t)l * SCRATCH_BYTES;
        uint64_t arg;
        memcpy(&arg, sc + (in->o[1].off - PARAM_SCRATCH), 8);
        if (in->op == OP_FREE) {
            if (arg && heap_give(h, arg - (uint64_t)(uintptr_t)h->base))
                rc = emu_fault(r, w, l, pc, "freed %#llx, which device malloc did not hand out or which "
                                            "was freed already", (unsigned long long)arg);
            continue;
        }
        uint32_t off;
        uint64_t bytes = (arg + HEAP_ALIGN - 1) & ~(uint64_t)(HEAP_ALIGN - 1);
        if (arg == 0 || arg > HEAP_SURE || h->used + bytes > HEAP_SURE || heap_take(h, (uint32_t)bytes, &off)) {
            rc = arg ? emu_needs_gpu(r, pc, "malloc", "a device malloc of %llu bytes beside %u live: past "
                                     "half of the GPU's 8 MiB heap only the GPU knows whether it has the room",
                                     (unsigned long long)arg, h->used)
                     : emu_needs_gpu(r, pc, "malloc", "malloc(0) returns NULL or a block, as the GPU decides");
            break;
        }
        uint64_t p = (uint64_t)(uintptr_t)(h->base + off);
        emu_shadow_forget(r, p, bytes);
        if (in->o[0].kind == OK_ADDR)
            memcpy(sc + (in->o[0].off - PARAM_SCRATCH), &p, 8);
    }
    if (r->pool)
        pthread_mutex_unlock(&r->pool->lock);
    return rc;
}
