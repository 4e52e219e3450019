/* emu_trace.c — the trace hook's events (emu_trace.h): an instruction's
 * kind, its lanes and the shared words or global addresses they touch,
 * told to the config's hook before the instruction runs. */
#include "emu/emu_trace.h"
#include "emu/emu_run.h"

#include <string.h>

/* Each lane of MASK's address through operand AO into OFF; the kind, by
 * the instruction's space (a generic address by the first lane's window). */
static enum emu_trace_kind addresses(const struct run *r, const struct warp *w, const struct emu_insn *in,
                                     const struct emu_opnd *ao, uint32_t mask, uint32_t *off, int ld, int atom)
{
    const uint64_t *base = ao->reg >= 0 ? w->R + (size_t)ao->reg * 32 : NULL;
    const struct emu *e = r->e;
    int space = in->space;
    if (space == SP_GENERIC && mask) {
        uint64_t a = (base ? base[__builtin_ctz(mask)] : 0) + (uint64_t)ao->off;
        space = a - e->shared_win < e->win_bytes ? SP_SHARED : a - e->local_win < e->win_bytes ? SP_LOCAL
                                                                                               : SP_GLOBAL;
    }
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint64_t a = (base ? base[l] : 0) + (uint64_t)ao->off;
        off[l] = (uint32_t)(space == SP_SHARED && in->space == SP_GENERIC ? a - e->shared_win : a);
    }
    if (space == SP_SHARED)
        return atom ? EMU_TR_SHARED_ATOM : ld ? EMU_TR_SHARED_LD : EMU_TR_SHARED_ST;
    if (space == SP_GLOBAL)
        return atom ? EMU_TR_GLOBAL_ATOM : ld ? EMU_TR_GLOBAL_LD : EMU_TR_GLOBAL_ST;
    return EMU_TR_LOCAL;
}

void emu_trace_step(struct run *r, const struct warp *w, const struct emu_insn *in, uint32_t mask,
                    uint32_t emask, uint32_t pc)
{
    struct emu_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.launch = r->e->launches;
    ev.block = r->cta->index;
    ev.warp = (uint32_t)w->index;
    ev.pc = pc;
    ev.kernel = r->f->name;
    memcpy(ev.grid, r->grid, sizeof ev.grid);
    memcpy(ev.block_dim, r->block, sizeof ev.block_dim);
    /* a helper inlined from a header is shown at its call in the kernel */
    ev.file = emu_file_name(r->m, in->cline ? in->cfile : in->file);
    ev.line = in->cline ? in->cline : in->line;
    ev.mask = mask;
    ev.emask = emask;
    switch (emu_ops[in->op].cls) {
    case C_MEM:
        ev.bytes = (uint32_t)emu_type_size[in->type] * in->vec;
        ev.kind = addresses(r, w, in, &in->o[in->op == OP_LD ? 1 : 0], emask, ev.off, in->op == OP_LD, 0);
        break;
    case C_ATOM:
        ev.bytes = (uint32_t)emu_type_size[in->type];
        ev.kind = addresses(r, w, in, &in->o[in->op == OP_RED ? 0 : 1], emask, ev.off, 0, 1);
        break;
    case C_BRA:
    case C_BRX:
        ev.kind = EMU_TR_BRANCH;
        break;
    case C_BAR:
        ev.kind = EMU_TR_BARRIER;
        break;
    case C_EXIT:
        ev.kind = EMU_TR_EXIT;
        break;
    case C_RET:
        ev.kind = in->fn == r->fn ? EMU_TR_EXIT : EMU_TR_OTHER;
        break;
    default:
        ev.kind = EMU_TR_OTHER;
        break;
    }
    r->e->cfg.trace(r->e->cfg.trace_ctx, &ev);
}
