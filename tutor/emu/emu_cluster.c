/* emu_cluster.c — thread block clusters: the blocks of one cluster are
 * resident together (emu_sched.c starts them at once in neighbouring
 * slots), each reads and writes the others' shared memory through
 * distributed shared memory, and they meet at the cluster's barrier.
 *
 * Addresses: a block's own shared memory is offsets 0 up, as without
 * clusters; mapa gives the same offset of the block with rank R as the
 * offset plus (R + 1) << 18, in the .shared::cluster window and, through
 * the generic window, as a generic address.  So a plain shared address is
 * the running block's own, and an address mapa made names its block
 * whichever block uses it.
 *
 * The barrier (barrier.cluster.arrive / .wait, cluster.sync()) counts the
 * cluster's threads that have not exited: each thread's arrivals and
 * passed waits are counted (struct cta's carr, cwait), and a wait passes
 * once as many phases have completed as the thread has arrived.  The
 * hazard shadow orders an access before another whose thread waited on a
 * phase the first's thread arrived at after it (emu_shadow.c), so reading
 * a neighbour's shared memory without cluster.sync() between its store
 * and the load is a race by line, and a read of a block that has exited
 * is a fault: its shared memory is gone. */
#include "emu/emu_run.h"

#include <string.h>

struct cta *emu_cluster_target(struct run *r, struct warp *w, int l, int pc, uint64_t *off)
{
    uint64_t sel = *off >> DSMEM_RANK_SHIFT;
    *off &= (1ull << DSMEM_RANK_SHIFT) - 1;
    if (sel > r->clsize)
        return emu_fault(r, w, l, pc, "used the shared memory of block %llu of its cluster, which "
                         "has %u", (unsigned long long)(sel - 1), r->clsize), NULL;
    struct cta *c = &r->cta->first[sel - 1];
    if (!c->active || c->index != r->cta->first->index + (sel - 1))
        return emu_fault(r, w, l, pc, "used the shared memory of block %u of its cluster (rank "
                         "%llu), which has exited: a block's shared memory lasts while it runs, "
                         "so end with cluster.sync() when others read it",
                         c->ctaid[0], (unsigned long long)(sel - 1)), NULL;
    return c;
}

/* Completes the open phase of C's cluster barrier if every thread of the
 * cluster that has not exited has arrived. */
static void phase_check(struct run *r, struct cta *c)
{
    uint32_t live = 0;
    for (uint32_t i = 0; i < r->clsize; i++)
        if (c->first[i].active)
            live += c->first[i].live_threads;
    struct cluster_bar *b = c->cbar;
    if (b->arrived && b->arrived >= live) {
        b->arrived = 0;
        b->phases++;
    }
}

void emu_cluster_exit(struct run *r, struct warp *w, uint32_t lanes)
{
    struct cta *c = r->cta;
    if (!c->carr)
        return;
    for (uint32_t m = lanes; m; m &= m - 1) {
        uint32_t t = (uint32_t)(w->index * 32 + __builtin_ctz(m));
        if (c->carr[t] > c->cbar->phases && c->cbar->arrived)
            c->cbar->arrived--;
    }
    phase_check(r, c);
}

static void lanes_to(struct warp *w, uint32_t mask, uint32_t npc)
{
    if (w->uni && mask == (w->live & ~w->exited)) {
        w->upc = npc;
        return;
    }
    if (w->uni) {
        for (int l = 0; l < 32; l++)
            w->pc[l] = w->upc;
        w->uni = 0;
    }
    for (uint32_t m = mask; m; m &= m - 1)
        w->pc[__builtin_ctz(m)] = npc;
}

int emu_cluster_step(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                     uint32_t emask, uint32_t pc)
{
    struct cta *c = r->cta;
    uint64_t *R = w->R;
    switch (in->op) {
    case OP_MAPA:
    case OP_GETCTARANK: {
        int generic = in->space != SP_DSMEM;
        uint64_t base = generic ? r->e->shared_win : 0;
        for (uint32_t m = emask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            uint64_t a = R[(size_t)in->o[1].reg * 32 + l];
            uint64_t off = a - base;
            if (generic && off >= r->e->win_bytes)
                return emu_fault(r, w, l, (int)pc, "asked %s of 0x%llx, which is not shared "
                                 "memory", in->op == OP_MAPA ? "mapa" : "getctarank",
                                 (unsigned long long)a);
            uint64_t sel = (off & 0xffffffffull) >> DSMEM_RANK_SHIFT;
            if (in->op == OP_GETCTARANK) {
                R[(size_t)in->o[0].reg * 32 + l] = sel ? sel - 1 : c->rank;
                continue;
            }
            uint64_t rank = R[(size_t)in->o[2].reg * 32 + l] & 0xffffffffu;
            if (rank >= r->clsize)
                return emu_fault(r, w, l, (int)pc, "mapped shared memory to block %llu of its "
                                 "cluster, which has %u (mapa)", (unsigned long long)rank,
                                 r->clsize);
            off = (off & ((1ull << DSMEM_RANK_SHIFT) - 1)) | (rank + 1) << DSMEM_RANK_SHIFT;
            uint64_t v = base + off;
            R[(size_t)in->o[0].reg * 32 + l] = emu_type_size[in->type] == 4 ? v & 0xffffffffu : v;
        }
        R[0] = 0;
        lanes_to(w, mask, pc + 1);
        return 1;
    }
    case OP_CBAR_ARRIVE:
        for (uint32_t m = emask; m; m &= m - 1) {
            uint32_t t = (uint32_t)(w->index * 32 + __builtin_ctz(m));
            if (c->carr[t] > c->cwait[t])
                return emu_fault(r, w, __builtin_ctz(m), (int)pc, "arrives at the cluster's "
                                 "barrier twice without waiting between: each arrive needs its "
                                 "wait (barrier.cluster.wait, cluster.sync())");
            c->carr[t]++;
            c->carr_any = 1;
            c->cbar->arrived++;
        }
        if (emask) {
            c->blk_release++;
            phase_check(r, c);
        }
        lanes_to(w, mask, pc + 1);
        return 1;
    default: {  /* OP_CBAR_WAIT: the lanes whose phase completed go on */
        uint32_t go = mask & ~emask;
        for (uint32_t m = emask; m; m &= m - 1) {
            uint32_t t = (uint32_t)(w->index * 32 + __builtin_ctz(m));
            if (c->cbar->phases >= c->carr[t]) {
                c->cwait[t] = c->carr[t];
                go |= 1u << __builtin_ctz(m);
            }
        }
        if (go & emask)
            emu_cta_acquire(c);
        if (go)
            lanes_to(w, go, pc + 1);
        if (!go)    /* only the cluster's other threads can move the barrier on */
            emu_wait_on(w, (const uint8_t *)&c->cbar->phases, sizeof c->cbar->phases);
        return 1;
    }
    }
}
