/* emu_coop.c — a cooperative launch (cuLaunchCooperativeKernel), which
 * cooperative_groups' this_grid().sync() needs.  nvcc compiles that barrier
 * to plain PTX: the grid workspace's address from %envreg1 (high half) and
 * %envreg2 (low half), a trap when it is 0 (a launch that was not
 * cooperative), then per block a bar.sync, one thread's
 * atom.add.release.gpu on the workspace's counter and an ld.acquire.gpu
 * spin until its top bit flips, and a bar.sync.  So the emulator needs no
 * instruction of its own for it: the workspace, and every block resident
 * at once, since a block that spins waits for blocks that must have
 * started, which the driver guarantees by refusing a grid larger than the
 * GPU holds. */
#include "emu/emu_run.h"

#include <stdlib.h>
#include <string.h>

/* cooperative_groups' view of the workspace (details/driver_abi.h): its
 * size, then the barrier's counter. */
struct grid_ws {
    uint32_t size;
    uint32_t barrier;
};

enum emu_status emu_coop_begin(struct run *r, int *threads)
{
    uint64_t most = (uint64_t)emu_sched_per_sm(r->e, r->nwarps, r->smem_bytes) * (uint64_t)r->e->cfg.sm_count;
    if (r->nblocks > most) {
        emu_error_set(r->err, EMU_FAULT, NULL, 0, NULL,
                      "a cooperative launch of %llu blocks, more than the GPU holds at once (%llu: "
                      "cudaErrorCooperativeLaunchTooLarge)",
                      (unsigned long long)r->nblocks, (unsigned long long)most);
        return EMU_FAULT;
    }
    struct grid_ws *ws = calloc(1, sizeof *ws);
    if (!ws)
        return EMU_NOMEM;
    ws->size = sizeof *ws;
    if (emu_mem_map(r->e, ws, sizeof *ws, "the grid barrier's workspace")) {
        free(ws);
        return EMU_NOMEM;
    }
    r->grid_ws = (uint64_t)(uintptr_t)ws;
    r->nctas = (uint32_t)r->nblocks;
    *threads = 1;
    return EMU_OK;
}

void emu_coop_end(struct run *r)
{
    if (!r->grid_ws)
        return;
    void *ws = (void *)(uintptr_t)r->grid_ws;
    emu_mem_unmap(r->e, ws);
    free(ws);
    r->grid_ws = 0;
}

int emu_coop_reads_workspace(const struct run *r)
{
    for (int fn = 0; fn < r->m->nfuncs; fn++)
        for (int i = 0; i < r->m->funcs[fn].nsregs; i++)
            if (r->m->funcs[fn].sregs[i].sreg == SR_ENVREG1 || r->m->funcs[fn].sregs[i].sreg == SR_ENVREG2)
                return 1;
    return 0;
}
