/* emu_async.c — cp.async: copies from global into shared memory that land
 * later, when the thread that started them waits (cp.async.wait_group N:
 * every committed group but the N most recent; wait_all: every group).
 * cuda::memcpy_async and __pipeline_memcpy_async compile to these.
 *
 * A copy reads its source when it starts (the source must not change
 * meanwhile on a GPU either) and writes its destination when it is waited
 * for; until then the destination's words are marked in the hazard shadow,
 * so reading them before the wait is a hazard by line, as the CUDA guide
 * makes it undefined, and without hazard tracking the reader sees what was
 * there before, as a GPU may. */
#include "emu/emu_run.h"

#include <stdlib.h>
#include <string.h>

/* Copies a lane may have in flight: far more than any pipeline keeps. */
enum { ASYNC_MAX = 64 };

struct async_copy {
    uint32_t dst, bytes, group, pc;
    uint8_t data[16];
};

struct async_lane {
    struct async_copy q[ASYNC_MAX];
    uint32_t n;             /* in flight, oldest first */
    uint32_t committed;     /* groups committed so far; a new copy joins group `committed` */
};

void emu_async_reset(struct warp *w)
{
    if (!w->async)
        return;
    for (int l = 0; l < 32; l++)
        w->async[l].n = w->async[l].committed = 0;
}

/* cp.async.{ca,cg}.shared.global [dst], [src], cp-size[, src-size] for
 * lane L: the source read now (src-size bytes, the rest zeros), the
 * destination marked as being filled. */
static int copy_start(struct run *r, struct warp *w, const struct emu_insn *in, int l, int pc)
{
    const uint64_t *R = w->R;
    struct async_lane *a = &w->async[l];
    uint64_t dst = ((in->o[0].reg >= 0 ? R[(size_t)in->o[0].reg * 32 + l] : 0) +
                    (uint64_t)in->o[0].off) & 0xffffffffull;
    uint64_t src = (in->o[1].reg >= 0 ? R[(size_t)in->o[1].reg * 32 + l] : 0) + (uint64_t)in->o[1].off;
    uint32_t size = (uint32_t)R[(size_t)in->o[2].reg * 32 + l];
    uint32_t from = in->nops > 3 ? (uint32_t)R[(size_t)in->o[3].reg * 32 + l] : size;
    if ((size != 4 && size != 8 && size != 16) || from > size)
        return emu_fault(r, w, l, pc, "started a cp.async of %u bytes (%u from the source): the "
                         "copy takes 4, 8 or 16, and no more from the source", size, from);
    if (dst % size || dst + size > r->smem_bytes)
        return emu_fault(r, w, l, pc, "started a cp.async into shared offset %llu, %s",
                         (unsigned long long)dst,
                         dst % size ? "not aligned to its size" : "past the block's shared memory");
    if (a->n == ASYNC_MAX)
        return emu_fault(r, w, l, pc, "has %d cp.async copies in flight: wait for some", ASYNC_MAX);
    struct async_copy *c = &a->q[a->n];
    memset(c->data, 0, sizeof c->data);
    if (from) {
        const uint8_t *p = emu_resolve(r, w, l, pc, SP_GLOBAL, src, from, ACC_READ, NULL);
        if (!p)
            return -1;
        memcpy(c->data, p, from);
    }
    if (r->hazards && emu_shadow_pending(r, w, l, pc, (uint32_t)dst, size))
        return -1;
    c->dst = (uint32_t)dst;
    c->bytes = size;
    c->group = a->committed;
    c->pc = (uint32_t)pc;
    a->n++;
    return 0;
}

/* Lane L's copies of groups below UPTO land, as its writes at PC. */
static int copies_land(struct run *r, struct warp *w, int l, uint32_t upto, int pc)
{
    struct async_lane *a = &w->async[l];
    uint32_t kept = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        struct async_copy *c = &a->q[i];
        if (c->group >= upto) {
            a->q[kept++] = *c;
            continue;
        }
        if (r->hazards) {
            emu_shadow_filled(r, c->dst, c->bytes);
            if (emu_shadow_shared(r, w, l, pc, r->cta, c->dst, c->bytes, ACC_WRITE, NULL))
                return -1;
        }
        memcpy(r->cta->smem + c->dst, c->data, c->bytes);
    }
    a->n = kept;
    return 0;
}

int emu_async_land_all(struct run *r, struct warp *w, int l, int pc)
{
    return w->async ? copies_land(r, w, l, UINT32_MAX, pc) : 0;
}

int emu_async(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc)
{
    if (!w->async && !(w->async = calloc(32, sizeof *w->async))) {
        emu_error_set(r->err, EMU_NOMEM, NULL, 0, NULL, "out of memory starting a cp.async");
        r->st = EMU_NOMEM;
        return -1;
    }
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        struct async_lane *a = &w->async[l];
        switch (in->op) {
        case OP_CP_ASYNC:
            if (copy_start(r, w, in, l, pc))
                return -1;
            break;
        case OP_CP_COMMIT:
            a->committed++;
            break;
        default: {
            /* wait_all commits first; wait_group N leaves the N most
             * recent committed groups in flight, and uncommitted copies */
            uint32_t keep = 0;
            if (in->sub == 1)
                a->committed++;
            else if (in->nops == 1)
                keep = (uint32_t)w->R[(size_t)in->o[0].reg * 32 + l];
            if (copies_land(r, w, l, keep < a->committed ? a->committed - keep : 0, pc))
                return -1;
            break;
        }
        }
    }
    return 0;
}
