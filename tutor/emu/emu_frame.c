/* emu_frame.c — a warp's register frames: the junk a GPU's registers
 * start with, the slots that hold constants and special registers, a
 * called function's frame made at its first call, and a lane's activation
 * of a function saved and restored around a recursive call. */
#include "emu/emu_run.h"
#include "emu/emu_undef.h"

#include <stdlib.h>
#include <string.h>

static uint64_t sreg_value(const struct run *r, const struct warp *w, int lane, int id)
{
    uint32_t tid = (uint32_t)(w->index * 32 + lane);
    unsigned bx = r->block[0], by = r->block[1];
    switch (id) {
    case SR_TID_X: return tid % bx;
    case SR_TID_Y: return tid / bx % by;
    case SR_TID_Z: return tid / (bx * by);
    case SR_NTID_X: return r->block[0];
    case SR_NTID_Y: return r->block[1];
    case SR_NTID_Z: return r->block[2];
    case SR_CTAID_X: return r->cta->ctaid[0];
    case SR_CTAID_Y: return r->cta->ctaid[1];
    case SR_CTAID_Z: return r->cta->ctaid[2];
    case SR_NCTAID_X: return r->grid[0];
    case SR_NCTAID_Y: return r->grid[1];
    case SR_NCTAID_Z: return r->grid[2];
    case SR_LANEID: return (uint64_t)lane;
    case SR_WARPID: return (uint64_t)(w->index % r->e->cfg.warps_per_sm);
    case SR_NWARPID: return (uint64_t)r->e->cfg.warps_per_sm;
    case SR_SMID: return r->cta->index % (uint64_t)r->e->cfg.sm_count;
    case SR_NSMID: return (uint64_t)r->e->cfg.sm_count;
    case SR_LANEMASK_EQ: return 1u << lane;
    case SR_LANEMASK_LT: return (1u << lane) - 1;
    case SR_LANEMASK_LE: return (uint32_t)((2ull << lane) - 1);
    case SR_LANEMASK_GT: return (uint32_t)~((2ull << lane) - 1);
    case SR_LANEMASK_GE: return (uint32_t)~((1u << lane) - 1);
    case SR_DYN_SMEM: return r->dyn_smem;
    case SR_TOTAL_SMEM: return r->smem_bytes;
    /* a launch's own number, as a GPU's grids have: never the constant 1 */
    case SR_GRIDID: return r->gridid;
    case SR_CL_RANK: return (uint64_t)r->cta->rank;
    case SR_CL_NRANK: return r->clsize;
    case SR_CL_CTAID_X: return r->cta->ctaid[0] % r->cl[0];
    case SR_CL_CTAID_Y: return r->cta->ctaid[1] % r->cl[1];
    case SR_CL_CTAID_Z: return r->cta->ctaid[2] % r->cl[2];
    case SR_CL_NCTAID_X: return r->cl[0];
    case SR_CL_NCTAID_Y: return r->cl[1];
    case SR_CL_NCTAID_Z: return r->cl[2];
    case SR_CLID_X: return r->cta->ctaid[0] / r->cl[0];
    case SR_CLID_Y: return r->cta->ctaid[1] / r->cl[1];
    case SR_CLID_Z: return r->cta->ctaid[2] / r->cl[2];
    case SR_NCLID_X: return r->grid[0] / r->cl[0];
    case SR_NCLID_Y: return r->grid[1] / r->cl[1];
    case SR_NCLID_Z: return r->grid[2] / r->cl[2];
    case SR_IS_EXPLICIT_CLUSTER: return (uint64_t)r->f->explicit_cluster;
    case SR_ENVREG1: return r->grid_ws >> 32;
    case SR_ENVREG2: return r->grid_ws & 0xffffffffu;
    default: return 1;
    }
}

/* Fills function FN's frame R with junk, as a GPU's registers hold
 * whatever they held: a value read before it is written (an `int sum;`
 * never set) differs from launch to launch and from warp to warp, and a
 * sum built on it is wrong, where zeros would make it right.  Only the
 * registers the function may read before writing them get it (emu_open.c:
 * the others' values are never seen).  Slot 0, the sink '_', is left as
 * it is; the constants are set after. */
void emu_frame_junk(const struct run *r, int fn, uint64_t *R, uint64_t salt)
{
    const struct emu_func *f = &r->m->funcs[fn];
    int n = f->open ? f->nopen : f->nslots - 1;
    uint64_t seed = salt * 0x9E3779B97F4A7C15ull + r->rng;
    for (int i = 0; i < n; i++) {
        int32_t s = f->open ? f->open[i] : i + 1, orig = f->open_salt ? f->open_salt[i] : s;
        uint64_t x = seed ^ ((uint64_t)orig * 0xD1B54A32D192ED03ull), *v = R + (size_t)s * 32;
        for (int l = 0; l < 32; l++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v[l] = x;
        }
    }
}

/* Sets the registers of function FN's frame R that hold constants, once
 * per launch. */
void emu_frame_constants(const struct run *r, int fn, uint64_t *R)
{
    const struct emu_func *f = &r->m->funcs[fn];
    for (int i = 0; i < f->nconsts; i++) {
        uint64_t *s = R + (size_t)f->consts[i].slot * 32;
        for (int l = 0; l < 32; l++)
            s[l] = f->consts[i].bits;
    }
}

/* Special register ID's 32 lanes in S: one value for all but those that
 * differ from thread to thread. */
static void sreg_lanes(const struct run *r, const struct warp *w, int id, uint64_t *s)
{
    if (id == SR_TID_X || id == SR_TID_Y || id == SR_TID_Z) {
        /* lane 0's coordinates divided out once, the others counted on */
        uint32_t bx = r->block[0], by = r->block[1], t = (uint32_t)w->index * 32;
        uint32_t c[3] = {t % bx, t / bx % by, t / (bx * by)}, k = (uint32_t)(id - SR_TID_X);
        for (int l = 0; l < 32; l++) {
            s[l] = c[k];
            if (++c[0] == bx) {
                c[0] = 0;
                if (++c[1] == by) {
                    c[1] = 0;
                    c[2]++;
                }
            }
        }
        return;
    }
    if (id == SR_LANEID || (id >= SR_LANEMASK_EQ && id <= SR_LANEMASK_GE)) {
        for (int l = 0; l < 32; l++)
            s[l] = sreg_value(r, w, l, id);
        return;
    }
    uint64_t v = sreg_value(r, w, 0, id);   /* the same in every lane */
    for (int l = 0; l < 32; l++)
        s[l] = v;
}

/* Sets the special registers of every frame W has, once per block. */
void emu_warp_sregs(const struct run *r, struct warp *w)
{
    for (int fn = 0; fn < r->m->nfuncs; fn++) {
        const struct emu_func *f = &r->m->funcs[fn];
        uint64_t *R = w->frames[fn];
        if (!R)
            continue;
        for (int i = 0; i < f->nsregs; i++)
            sreg_lanes(r, w, f->sregs[i].sreg, R + (size_t)f->sregs[i].slot * 32);
    }
}

/* W's frame of function FN, made (junk, constants, special registers,
 * definedness) the first time the warp calls it; 0, or -1 out of memory
 * (reported). */
int emu_frame_of(struct run *r, struct warp *w, int fn)
{
    if (w->frames[fn])
        return 0;
    const struct emu_func *f = &r->m->funcs[fn];
    w->frames[fn] = calloc((size_t)f->nslots * 32, sizeof **w->frames);
    if (!w->frames[fn]) {
        emu_error_set(r->err, EMU_NOMEM, NULL, 0, NULL, "out of memory calling %s", f->name);
        r->st = EMU_NOMEM;
        return -1;
    }
    emu_frame_junk(r, fn, w->frames[fn], (uint64_t)w->index << 16 | (uint64_t)fn);
    emu_frame_constants(r, fn, w->frames[fn]);
    if (r->hazards && emu_undef_frame(r, w, fn)) {
        emu_error_set(r->err, EMU_NOMEM, NULL, 0, NULL, "out of memory calling %s", f->name);
        r->st = EMU_NOMEM;
        return -1;
    }
    for (int i = 0; i < f->nsregs; i++)
        sreg_lanes(r, w, f->sregs[i].sreg, w->frames[fn] + (size_t)f->sregs[i].slot * 32);
    return 0;
}

/* What one activation of function FN keeps in lane L, beside the call
 * stack: its registers (the lane's column of the function's frame), its
 * local memory and its incoming parameters.  A lane that enters FN again
 * (recursion) saves them first and gets them back when the inner call
 * returns, so one frame per function serves every depth. */
static size_t activation_bytes(const struct run *r, int fn)
{
    const struct emu_func *f = &r->m->funcs[fn];
    return (size_t)f->nslots * 8 + f->local_bytes + f->param_bytes;
}

static void activation_copy(struct run *r, struct warp *w, int l, int fn, uint8_t *buf, int save)
{
    const struct emu_func *f = &r->m->funcs[fn];
    uint64_t *R = w->frames[fn];
    for (int32_t s = 0; s < f->nslots; s++, buf += 8) {
        if (save)
            memcpy(buf, &R[(size_t)s * 32 + l], 8);
        else
            memcpy(&R[(size_t)s * 32 + l], buf, 8);
    }
    int64_t at = f->local_bytes ? emu_local_at(r, f->local_base, f->local_bytes) : -1;
    if (at >= 0) {
        uint8_t *loc = w->local + (size_t)l * r->local_bytes + (uint64_t)at;
        memcpy(save ? buf : loc, save ? loc : buf, f->local_bytes);
    }
    buf += f->local_bytes;
    if (f->param_bytes && f->nparams) {
        uint8_t *par = w->scratch + (size_t)l * SCRATCH_BYTES + (f->param_offset[0] - PARAM_SCRATCH);
        memcpy(save ? buf : par, save ? par : buf, f->param_bytes);
    }
}

/* Saves lane L's activation of FN before it enters FN again; 0 or -1. */
int emu_frame_save(struct run *r, struct warp *w, int l, int fn)
{
    if (!w->saves && !(w->saves = calloc(32, sizeof *w->saves)))
        return -1;
    struct lane_saves *s = &w->saves[l];
    size_t n = activation_bytes(r, fn);
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4096;
        while (cap < s->len + n)
            cap *= 2;
        uint8_t *b = realloc(s->bytes, cap);
        if (!b)
            return -1;
        s->bytes = b;
        s->cap = cap;
    }
    activation_copy(r, w, l, fn, s->bytes + s->len, 1);
    s->len += n;
    s->at |= 1ull << w->depth[l];
    return 0;
}

/* Lane L returns from depth D of FN: the activation saved on entering it
 * comes back. */
void emu_frame_restore(struct run *r, struct warp *w, int l, int fn, int d)
{
    struct lane_saves *s = w->saves ? &w->saves[l] : NULL;
    if (!s || !((s->at >> d) & 1))
        return;
    s->len -= activation_bytes(r, fn);
    activation_copy(r, w, l, fn, s->bytes + s->len, 0);
    s->at &= ~(1ull << d);
    /* the registers come back with values the inner call's definedness
     * does not describe: taken as defined (a miss, never a false report) */
    for (int32_t k = 0; w->uframes && w->uframes[fn] && k < r->m->funcs[fn].nslots; k++)
        w->uframes[fn][k].lanes &= ~(1u << l);
}
