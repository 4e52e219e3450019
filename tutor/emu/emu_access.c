/* emu_access.c — loads, stores, atomics and cvta: every address resolved
 * to its state space and checked (global against the map, shared against
 * the block's bytes, local against the thread's), and, when hazards are
 * tracked, handed to the shadows (emu_shadow.c) that find unordered
 * conflicting accesses (DESIGN §11). */
#include "emu/emu_run.h"
#include "emu/emu_hops.h"
#include "emu/emu_undef.h"
#include "emu/emu_lanes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *verb(int kind)
{
    return kind == ACC_READ ? "read" : kind == ACC_WRITE ? "wrote" : "atomically updated";
}

/* The host pointer for lane L's access; NULL after reporting a fault. */
uint8_t *emu_resolve(struct run *r, struct warp *w, int l, int pc, int space, uint64_t addr,
                     uint32_t bytes, int kind, const void *val)
{
    if (addr & (bytes - 1))
        return emu_fault(r, w, l, pc, "%s %u bytes at a misaligned address (0x%llx)",
                         kind == ACC_READ ? "read" : "wrote", bytes, (unsigned long long)addr),
               NULL;
    if (space == SP_GENERIC) {
        if (addr - r->e->shared_win < r->e->win_bytes) {
            space = SP_DSMEM;   /* mapa's addresses name other blocks' */
            addr -= r->e->shared_win;
        } else if (addr - r->e->local_win < r->e->win_bytes) {
            space = SP_LOCAL;
            addr -= r->e->local_win;
        } else {
            space = SP_GLOBAL;
        }
    }
    struct cta *target = r->cta;
    switch (space) {
    case SP_DSMEM:
        if (addr >> DSMEM_RANK_SHIFT && !(target = emu_cluster_target(r, w, l, pc, &addr)))
            return NULL;
        /* fall through */
    case SP_SHARED:
        if (addr + bytes > r->smem_bytes || addr + bytes < addr)
            return emu_fault(r, w, l, pc, "%s %u bytes at shared offset %llu, past the block's %u bytes of shared memory",
                             verb(kind), bytes, (unsigned long long)addr, r->smem_bytes),
                   NULL;
        if (r->hazards && emu_shadow_shared(r, w, l, pc, target, (uint32_t)addr, bytes, kind, val))
            return NULL;
        return target->smem + addr;
    case SP_LOCAL: {
        int64_t at = emu_local_at(r, addr, bytes);
        if (at < 0)
            return emu_fault(r, w, l, pc, "%s %u bytes at local offset %llu, outside the local memory of the "
                             "functions this kernel runs (%u bytes a thread)",
                             verb(kind), bytes, (unsigned long long)addr, r->local_bytes),
                   NULL;
        return w->local + (size_t)l * r->local_bytes + (uint64_t)at;
    }
    case SP_PARAM:
        if (addr >= PARAM_SCRATCH) {
            addr -= PARAM_SCRATCH;
            if (addr + bytes > SCRATCH_BYTES)
                return emu_fault(r, w, l, pc, "used a call parameter out of range"), NULL;
            return w->scratch + (size_t)l * SCRATCH_BYTES + addr;
        }
        if (kind != ACC_READ || addr + bytes > r->param_bytes)
            return emu_fault(r, w, l, pc, "%s %u bytes at parameter offset %llu, past the kernel's %u bytes of parameters",
                             verb(kind), bytes, (unsigned long long)addr, r->param_bytes),
                   NULL;
        return r->params + addr;
    default: {
        const struct emu_range *g = emu_mem_find(r->e, &r->mem_last, addr, bytes);
        if (!g) {
            char place[160];
            emu_mem_describe(r->e, addr, place, sizeof place);
            return emu_fault(r, w, l, pc, "%s %u bytes at %s", verb(kind), bytes, place), NULL;
        }
        if (addr < g->lo || addr + bytes > g->hi) {
            int before = addr < g->lo;
            return emu_fault(r, w, l, pc, "%s %u bytes at %s + %lld bytes, %s the %llu bytes the "
                             "lab gives it (its allocation here is larger, a GPU's need not be)",
                             verb(kind), bytes, g->name, (long long)(addr - g->lo),
                             before ? "before" : "ending past", (unsigned long long)(g->hi - g->lo)),
                   NULL;
        }
        if (r->hazards && kind == ACC_WRITE && emu_shadow_store(r, w, l, pc, addr, bytes))
            return NULL;
        if (r->hazards && kind == ACC_READ && !(r->code[pc].flags & F_STRONG) &&
            emu_shadow_load(r, w, l, pc, addr, bytes, g->track_reads))
            return NULL;
        return (uint8_t *)(uintptr_t)addr;
    }
    }
}

/* Reads BYTES at generic ADDR for lane LANE (printf's arguments); 0 or -1
 * with the fault reported. */
int emu_read_generic(struct run *r, struct warp *w, int lane, int pc, uint64_t addr, void *out,
                     size_t bytes)
{
    int hz = r->hazards, rc = 0;
    r->hazards = 0;
    for (size_t i = 0; i < bytes; i++) {
        uint8_t *q = emu_resolve(r, w, lane, pc, SP_GENERIC, addr + i, 1, ACC_READ, NULL);
        if (!q) {
            rc = -1;
            break;
        }
        ((uint8_t *)out)[i] = *q;
    }
    r->hazards = hz;
    return rc;
}

static inline uint64_t load_bits(const uint8_t *p, int type)
{
    int sz = emu_type_size[type];
    switch (sz) {
    case 1: {
        uint8_t v = *p;
        return emu_type_kind[type] == 's' ? (uint64_t)(int64_t)(int8_t)v : v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return emu_type_kind[type] == 's' ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return emu_type_kind[type] == 's' ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

/* ---- definedness (emu_undef.c): what a memory access reads and writes ------------- */

/* The state space generic ADDR lies in. */
static int space_of(const struct run *r, int space, uint64_t addr)
{
    if (space != SP_GENERIC)
        return space;
    if (addr - r->e->shared_win < r->e->win_bytes)
        return SP_SHARED;
    if (addr - r->e->local_win < r->e->win_bytes)
        return SP_LOCAL;
    return SP_GLOBAL;
}

/* An address computed from an undefined value, in any lane of MASK: a
 * hazard.  0, or -1 (reported). */
static int undef_address(struct run *r, struct warp *w, const struct emu_insn *in,
                         const struct emu_opnd *ao, uint32_t mask, int pc)
{
    uint32_t u = ao->reg > 0 ? w->U[ao->reg].lanes & mask : 0;
    if (!u)
        return 0;
    uint64_t org = w->U[ao->reg].origin;
    return emu_undef_report(r, w, u, pc, org, in->op == OP_LD ? "loads from an address made of"
                                             : in->op == OP_ST ? "stores to an address made of"
                                                               : "updates an address made of");
}

/* Bit i set when element i of the value operand VO is undefined in lane
 * L; *ORG the first one's origin. */
static uint32_t value_undef(const struct warp *w, const struct emu_insn *in,
                            const struct emu_opnd *vo, int l, uint64_t *org)
{
    uint32_t u = 0;
    for (int i = 0; i < in->vec; i++) {
        int slot = vo->kind == OK_VEC ? vo->vec[i] : vo->reg;
        if (slot > 0 && ((w->U[slot].lanes >> l) & 1)) {
            u |= 1u << i;
            if (!*org)
                *org = w->U[slot].origin;
        }
    }
    return u;
}

/* The lanes of MASK in which some element of the value operand VO is
 * undefined. */
static uint32_t value_undef_lanes(const struct warp *w, const struct emu_insn *in,
                                  const struct emu_opnd *vo, uint32_t mask)
{
    uint32_t u = 0;
    for (int i = 0; i < in->vec; i++) {
        int slot = vo->kind == OK_VEC ? vo->vec[i] : vo->reg;
        if (slot > 0)
            u |= w->U[slot].lanes;
    }
    return u & mask;
}

/* Before lane L's access: a store of an undefined value to shared memory
 * leaves the words it writes undefined (r->st_undef, for the shadow); to
 * global memory it is a hazard (the judge reads it), said once the
 * address is known good: 1, its origin in r->st_origin.  A load starts
 * with nothing found undefined.  0 otherwise. */
static int undef_before(struct run *r, struct warp *w, const struct emu_insn *in,
                        const struct emu_opnd *vo, int l, int space, uint64_t addr)
{
    r->ld_undef = 0;
    r->ld_origin = 0;
    r->st_undef = 0;
    if (in->op == OP_LD)
        return 0;
    uint64_t org = 0;
    uint32_t u = value_undef(w, in, vo, l, &org);
    if (!u)
        return 0;
    int sp = space_of(r, space, addr);
    if (sp == SP_GLOBAL) {
        r->st_origin = org;
        return 1;
    }
    if (sp == SP_SHARED || sp == SP_DSMEM) {
        /* element i covers the words of its bytes */
        int esz = emu_type_size[in->type];
        uint32_t first = (uint32_t)(addr & 0xffffffffu) / 4;
        for (int i = 0; i < in->vec; i++)
            if ((u >> i) & 1)
                for (uint32_t b = (uint32_t)(addr & 0xffffffffu) + (uint32_t)(i * esz),
                              e = b + (uint32_t)esz; b < e; b += 4 - b % 4)
                    r->st_undef |= 1u << ((b / 4 - first) & 31);
        r->st_origin = org;
    }
    return 0;
}

/* After lane L's load: each destination element is undefined where a
 * shared word it came from was (a register or memory the emulator does
 * not track, global, local, parameters, is defined). */
static void undef_loaded(struct run *r, struct warp *w, const struct emu_insn *in,
                         const struct emu_opnd *vo, int l)
{
    int esz = emu_type_size[in->type];
    uint32_t bit = 1u << l;
    for (int i = 0; i < in->vec; i++) {
        int slot = vo->kind == OK_VEC ? vo->vec[i] : vo->reg;
        if (slot <= 0)
            continue;
        uint32_t b = (uint32_t)(i * esz), words = 0;
        for (uint32_t k = b / 4; k <= (b + (uint32_t)esz - 1) / 4; k++)
            words |= 1u << (k & 31);
        /* the access's words counted from its first: its start is aligned to its size */
        if (r->ld_undef & words) {
            /* the origin the lowest undefined lane's, which a report names */
            if (!(w->U[slot].lanes & (bit - 1)))
                w->U[slot].origin = r->ld_origin;
            w->U[slot].lanes |= bit;
        } else {
            w->U[slot].lanes &= ~bit;
        }
    }
    r->ld_undef = 0;
    r->ld_origin = 0;
}

/* Before lane L's atomic: an undefined operand leaves a shared word
 * undefined, and is a hazard in global memory (1, as undef_before). */
static int undef_atom_before(struct run *r, struct warp *w, const struct emu_insn *in, int bi,
                             int l, uint64_t addr)
{
    r->ld_undef = 0;
    r->ld_origin = 0;
    r->st_undef = 0;
    uint64_t org = 0;
    uint32_t u = 0;
    for (int i = bi; i < in->nops && i <= bi + 1; i++) {
        int32_t s = in->o[i].reg;
        if (in->o[i].kind == OK_REG && s > 0 && ((w->U[s].lanes >> l) & 1)) {
            u = 1;
            if (!org)
                org = w->U[s].origin;
        }
    }
    if (!u)
        return 0;
    int sp = space_of(r, in->space, addr);
    r->st_origin = org;
    if (sp == SP_SHARED || sp == SP_DSMEM) {
        r->st_undef = 0xffffffffu;
        return 0;
    }
    return 1;
}

/* The hazard undef_before or undef_atom_before found: lane L of W at PC
 * VERB ADDR ("stores to d_out + 8") an undefined value.  -1. */
static int undef_global(struct run *r, struct warp *w, int l, int pc, const char *verb,
                        uint64_t addr)
{
    char place[200], what[260];
    /* the element of the buffer as the lab lends it: "d_out[3]" */
    uint64_t esz = emu_type_size[r->code[pc].type];
    const struct emu_range *g = emu_mem_find(r->e, &r->mem_last, addr, 1);
    if (g && addr >= g->lo && addr < g->hi && esz && (addr - g->lo) % esz == 0)
        snprintf(place, sizeof place, "%s[%llu]", g->name, (unsigned long long)((addr - g->lo) / esz));
    else
        emu_mem_describe(r->e, addr, place, sizeof place);
    snprintf(what, sizeof what, "%s %s", verb, place);
    return emu_undef_report(r, w, 1u << l, pc, r->st_origin, what);
}

/* After lane L's atomic: its old value is undefined where the shared
 * word was. */
static void undef_atom_old(struct run *r, struct warp *w, const struct emu_insn *in, int l)
{
    int32_t s = in->o[0].reg;
    if (s > 0) {
        if (r->ld_undef) {
            if (!(w->U[s].lanes & ((1u << l) - 1)))
                w->U[s].origin = r->ld_origin;
            w->U[s].lanes |= 1u << l;
        } else {
            w->U[s].lanes &= ~(1u << l);
        }
    }
    r->ld_undef = 0;
    r->ld_origin = 0;
}

/* ld or st of one register in the running block's shared memory (the
 * common access of a block's tree), lane by lane as emu_ld_st's loop does
 * it, without the generic resolution; the checks emu_resolve makes stay,
 * and it says what a lane that fails them did.  0 or -1 (reported). */
static int shared_scalar(struct run *r, struct warp *w, const struct emu_insn *in, const uint64_t *base,
                         uint32_t mask, int pc)
{
    int is_ld = in->op == OP_LD;
    const struct emu_opnd *ao = &in->o[is_ld ? 1 : 0], *vo = &in->o[is_ld ? 0 : 1];
    uint32_t bytes = emu_type_size[in->type];
    uint64_t *v = w->R + (size_t)vo->reg * 32;
    /* every lane in bounds and aligned: the warp at once */
    uint32_t off[32], bad = 0;
    LANES(mask) {
        uint64_t addr = (base[l] + (uint64_t)ao->off) & 0xffffffffull;
        bad |= (addr & (bytes - 1)) || addr + bytes > r->smem_bytes;
        off[l] = (uint32_t)addr;
    }
    uint8_t *smem = r->cta->smem;
    if (!bad && r->hazards) {
        uint32_t undef;
        uint64_t origin;
        if (emu_shadow_shared_warp(r, w, pc, mask, off, bytes, is_ld ? ACC_READ : ACC_WRITE,
                                   is_ld ? NULL : v, &undef, &origin))
            return -1;
        if (!is_ld)
            return 0;
        /* as undef_loaded lane by lane: the origin is the lowest
         * undefined lane's where no lower lane was undefined before */
        struct uslot *u = &w->U[vo->reg];
        if (vo->reg > 0) {
            uint32_t kept = u->lanes & ~mask;
            if (undef && !(kept & ((1u << __builtin_ctz(undef)) - 1)))
                u->origin = origin;
            u->lanes = kept | undef;
        }
    }
    if (!bad) {
        if (is_ld)
            LANES(mask) v[l] = load_bits(smem + off[l], in->type);
        else if (!r->hazards)
            LANES(mask) memcpy(smem + off[l], &v[l], bytes);
        return 0;
    }
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint64_t addr = (base[l] + (uint64_t)ao->off) & 0xffffffffull;
        uint8_t *p = r->cta->smem + addr;
        if (r->hazards) {
            r->ld_undef = r->st_undef = 0;
            r->ld_origin = 0;
        }
        int kind = is_ld ? ACC_READ : ACC_WRITE;
        if ((addr & (bytes - 1)) || addr + bytes > r->smem_bytes) {
            p = emu_resolve(r, w, l, pc, SP_SHARED, addr, bytes, kind, is_ld ? NULL : &v[l]);
            if (!p)
                return -1;
        } else if (r->hazards && emu_shadow_shared(r, w, l, pc, r->cta, (uint32_t)addr, bytes, kind,
                                                   is_ld ? NULL : &v[l])) {
            return -1;
        }
        r->st_undef = 0;
        if (!is_ld) {
            memcpy(p, &v[l], bytes);
            continue;
        }
        if (r->hazards)
            undef_loaded(r, w, in, vo, l);
        v[l] = load_bits(p, in->type);
    }
    return 0;
}

/* ld.param of a kernel parameter at a fixed offset: one value for every
 * lane, read once.  1 done; 0 when it is another form, or one the lane
 * path reports (a misaligned or out-of-range offset). */
static int param_broadcast(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask,
                           uint32_t bytes)
{
    const struct emu_opnd *ao = &in->o[1], *vo = &in->o[0];
    uint64_t addr = (uint64_t)ao->off;
    if (ao->reg >= 0 || addr >= PARAM_SCRATCH || (addr & (bytes - 1)) || addr + bytes > r->param_bytes)
        return 0;
    uint64_t v = load_bits(r->params + addr, in->type), *d = w->R + (size_t)vo->reg * 32;
    EACH_LANE(mask, d[l] = v);
    return 1;
}

/* ld/st.global of a register or a vector whose lanes all fall in one
 * buffer the lab lends, aligned: the buffer found once, the shadows held lane by lane,
 * the data moved.  1 done; 0 when a lane is out of it or misaligned (the
 * lane path says which); -1 a hazard reported. */
static int global_wide(struct run *r, struct warp *w, const struct emu_insn *in, const uint64_t *base,
                       uint32_t mask, int pc, uint32_t bytes)
{
    int is_ld = in->op == OP_LD;
    const struct emu_opnd *ao = &in->o[is_ld ? 1 : 0], *vo = &in->o[is_ld ? 0 : 1];
    uint64_t lo = UINT64_MAX, hi = 0, bits = 0, off = (uint64_t)ao->off;
    LANES(mask) {
        uint64_t a = base[l] + off;
        bits |= a;
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
    }
    if (bits & (bytes - 1))
        return 0;
    const struct emu_range *g = emu_mem_find(r->e, &r->mem_last, lo, bytes);
    if (!g || lo < g->lo || hi + bytes > g->hi || hi + bytes < hi)
        return 0;
    if (r->hazards) {
        if (is_ld && emu_shadow_load_lanes(r, w, pc, mask, base, off, bytes, lo, hi, g->track_reads))
            return -1;
        if (!is_ld)
            LANES(mask) {
                if (emu_shadow_store(r, w, (int)l, pc, base[l] + off, bytes))
                    return -1;
            }
    }
    uint64_t *R = w->R;
    if (vo->kind == OK_REG) {
        uint64_t *v = R + (size_t)vo->reg * 32;
        if (is_ld)
            LANES(mask) v[l] = load_bits((const uint8_t *)(uintptr_t)(base[l] + off), in->type);
        else
            LANES(mask) memcpy((uint8_t *)(uintptr_t)(base[l] + off), &v[l], bytes);
        return 1;
    }
    uint32_t esz = emu_type_size[in->type];
    LANES(mask) {
        uint8_t *p = (uint8_t *)(uintptr_t)(base[l] + off);
        for (int i = 0; i < in->vec; i++) {
            uint64_t *v = R + (size_t)vo->vec[i] * 32 + l;
            if (is_ld)
                *v = load_bits(p + i * esz, in->type);
            else
                memcpy(p + i * esz, v, esz);
        }
        if (is_ld)
            R[l] = 0;   /* an element of '_' lands in the sink */
    }
    return 1;
}

/* ld / st over the lanes of MASK; 0 or -1 (reported). */
int emu_ld_st(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc)
{
    if ((in->flags & (F_REL | F_CTA)) == F_REL)
        r->cta->blk_release++;
    int is_ld = in->op == OP_LD;
    const struct emu_opnd *ao = &in->o[is_ld ? 1 : 0];
    const struct emu_opnd *vo = &in->o[is_ld ? 0 : 1];
    int esz = emu_type_size[in->type];
    if (in->type == T_PRED || !esz)
        return emu_fault(r, w, __builtin_ctz(mask), pc, "used a load or store without a type");
    uint32_t bytes = (uint32_t)(esz * in->vec);
    uint64_t *R = w->R;
    const uint64_t *base = ao->reg >= 0 ? R + (size_t)ao->reg * 32 : NULL;
    int space = in->space;
    if (r->hazards && undef_address(r, w, in, ao, mask, pc))
        return -1;
    /* definedness lane by lane only where it can differ between lanes: a
     * load that may read shared memory, a store of an undefined value */
    int lanewise = r->hazards && (is_ld ? space == SP_SHARED || space == SP_DSMEM || space == SP_GENERIC
                                        : value_undef_lanes(w, in, vo, mask) != 0);
    const uint32_t lanes = mask;
    int scalar = in->vec == 1 && vo->kind == OK_REG && !(in->flags & F_STRONG);
    if (scalar && space == SP_SHARED && base && (is_ld || !lanewise)) {
        if (shared_scalar(r, w, in, base, mask, pc))
            return -1;
        mask = 0;   /* done: on to what follows every access */
    } else if (scalar && space == SP_PARAM && is_ld) {
        if (param_broadcast(r, w, in, mask, bytes))
            mask = 0;
    } else if (!(in->flags & F_STRONG) && space == SP_GLOBAL && base && !lanewise) {
        int done = global_wide(r, w, in, base, mask, pc, bytes);
        if (done < 0)
            return -1;
        if (done)
            mask = 0;
    }
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint64_t addr = (base ? base[l] : 0) + (uint64_t)ao->off;
        if (space == SP_SHARED || space == SP_DSMEM || (space == SP_PARAM && addr >= PARAM_SCRATCH))
            addr &= 0xffffffffull;
        /* a store's bytes, for the shared shadow's same-value rule */
        uint8_t val[32];
        if (!is_ld && r->hazards && space != SP_GLOBAL)
            for (int i = 0; i < in->vec; i++) {
                int slot = vo->kind == OK_VEC ? vo->vec[i] : vo->reg;
                memcpy(val + i * esz, &R[(size_t)slot * 32 + l], (size_t)esz);
            }
        int gu = lanewise && undef_before(r, w, in, vo, l, space, addr);
        uint8_t *p = emu_resolve(r, w, l, pc, space, addr, bytes, is_ld ? ACC_READ : ACC_WRITE,
                                 is_ld ? NULL : val);
        r->st_undef = 0;
        if (!p)
            return -1;
        if (gu)
            return undef_global(r, w, l, pc, "stores to", addr);
        if (lanewise && is_ld)
            undef_loaded(r, w, in, vo, l);
        if (in->vec == 1 && vo->kind == OK_REG) {
            if (is_ld) {
                R[(size_t)vo->reg * 32 + l] = load_bits(p, in->type);
                if ((in->flags & F_STRONG) && m == mask)
                    emu_spin_poll(w, p, (uint32_t)esz);
            } else {
                uint64_t v = R[(size_t)vo->reg * 32 + l];
                memcpy(p, &v, (size_t)esz);
            }
            continue;
        }
        for (int i = 0; i < in->vec; i++) {
            int slot = vo->kind == OK_VEC ? vo->vec[i] : vo->reg;
            if (is_ld) {
                R[(size_t)slot * 32 + l] = load_bits(p + i * esz, in->type);
            } else {
                uint64_t v = R[(size_t)slot * 32 + l];
                memcpy(p + i * esz, &v, (size_t)esz);
            }
        }
        if (is_ld)
            R[l] = 0;
    }
    if (r->hazards && is_ld && !lanewise)
        for (int i = 0; i < in->vec; i++) {
            int slot = vo->kind == OK_VEC ? vo->vec[i] : vo->reg;
            if (slot > 0)
                w->U[slot].lanes &= ~lanes;
        }
    if (is_ld && (in->flags & F_STRONG))
        r->cta->sig_seen = 1;
    if ((in->flags & (F_ACQ | F_CTA)) == F_ACQ)
        emu_cta_acquire(r->cta);
    return 0;
}

/* atom.add.f32: on global memory subnormal inputs and results flushed to
 * sign-preserving zero (the ISA; the H100's shared-memory atomics keep
 * them, FLUSH 0), a NaN the canonical 0x7fffffff; atom.add.f64: a NaN
 * operand's bits as they are, the added value's first, and an invalid sum
 * 0xfff8000000000000 (the H100's, where the ISA leaves them open). */
static uint64_t atom_fadd(uint64_t old, uint64_t b, int sz, int flush)
{
    if (sz == 4 && !flush)
        return emu_b32(emu_f32(old) + emu_f32(b));
    if (sz == 4)
        return emu_b32(emu_ftz32(emu_ftz32(emu_f32(old)) + emu_ftz32(emu_f32(b))));
    double d = emu_f64(old) + emu_f64(b);
    if (d != d)
        return emu_isnan64(b) ? b : emu_isnan64(old) ? old : 0xfff8000000000000ull;
    return emu_b64(d);
}

static uint64_t atom_op(const struct emu_insn *in, uint64_t old, uint64_t b, uint64_t c)
{
    int type = in->type, sz = emu_type_size[type];
    uint64_t m = sz >= 8 ? ~0ull : (1ull << (sz * 8)) - 1;
    char k = emu_type_kind[type];
    old &= m;
    b &= m;
    switch (in->sub) {
    case SUB_ADD: {
        uint32_t hs;
        if (k == 'f')
            return atom_fadd(old, b, sz, in->space != SP_SHARED && in->space != SP_DSMEM);
        if (k == 'h')   /* a NaN sum leaves the word (emu_atom stops there) */
            return emu_hops_atom_add(type, (uint32_t)old, (uint32_t)b, &hs) ? old : hs;
        return (old + b) & m;
    }
    case SUB_MIN:
    case SUB_MAX: {
        int lt;
        if (k == 's') {
            int sh = 64 - sz * 8;
            lt = ((int64_t)(old << sh) >> sh) < ((int64_t)(b << sh) >> sh);
        } else {
            lt = old < b;
        }
        return (in->sub == SUB_MIN) == lt ? old : b;
    }
    case SUB_INC: return old >= b ? 0 : old + 1;
    case SUB_DEC: return (old == 0 || old > b) ? b : old - 1;
    case SUB_CAS: return old == b ? c & m : old;
    case SUB_EXCH: return b;
    case SUB_AND: return old & b;
    case SUB_OR: return old | b;
    case SUB_XOR: return old ^ b;
    default: return old;
    }
}

/* atom / red over the lanes of MASK, one lane after another. */
int emu_atom(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc)
{
    int is_red = in->op == OP_RED;
    const struct emu_opnd *ao = &in->o[is_red ? 0 : 1];
    int bi = is_red ? 1 : 2;
    int sz = emu_type_size[in->type];
    /* the forms the decoder lets through (emu_forms.c refuses the rest) */
    if (!in->sub || (sz != 2 && sz != 4 && sz != 8))
        return emu_fault(r, w, __builtin_ctz(mask), pc, "ran an atomic form that is not emulated");
    uint64_t *R = w->R;
    if (r->hazards && undef_address(r, w, in, ao, mask, pc))
        return -1;
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint64_t addr = (ao->reg >= 0 ? R[(size_t)ao->reg * 32 + l] : 0) + (uint64_t)ao->off;
        if (in->space == SP_SHARED || in->space == SP_DSMEM)
            addr &= 0xffffffffull;
        int gu = r->hazards && undef_atom_before(r, w, in, bi, l, addr);
        uint8_t *p = emu_resolve(r, w, l, pc, in->space, addr, (uint32_t)sz,
                                 in->sub == SUB_EXCH ? ACC_EXCH : ACC_ATOMIC, NULL);
        r->st_undef = 0;
        if (!p)
            return -1;
        if (gu)
            return undef_global(r, w, l, pc, "atomically combines into", addr);
        if (r->hazards && !is_red)
            undef_atom_old(r, w, in, l);
        uint64_t b = R[(size_t)in->o[bi].reg * 32 + l];
        uint64_t c = in->sub == SUB_CAS ? R[(size_t)in->o[bi + 1].reg * 32 + l] : 0;
        uint64_t old = 0;
        if (r->pool && sz == 2) {
            uint16_t o = __atomic_load_n((uint16_t *)(void *)p, __ATOMIC_RELAXED);
            while (!__atomic_compare_exchange_n((uint16_t *)(void *)p, &o,
                                                (uint16_t)atom_op(in, o, b, c), 0,
                                                __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
                ;
            old = o;
        } else if (r->pool && sz == 4) {
            /* blocks on other host threads: a compare-and-swap loop */
            uint32_t o = __atomic_load_n((uint32_t *)(void *)p, __ATOMIC_RELAXED);
            while (!__atomic_compare_exchange_n((uint32_t *)(void *)p, &o,
                                                (uint32_t)atom_op(in, o, b, c), 0,
                                                __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
                ;
            old = o;
        } else if (r->pool) {
            uint64_t o = __atomic_load_n((uint64_t *)(void *)p, __ATOMIC_RELAXED);
            while (!__atomic_compare_exchange_n((uint64_t *)(void *)p, &o, atom_op(in, o, b, c), 0,
                                                __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
                ;
            old = o;
        } else {
            memcpy(&old, p, (size_t)sz);
            uint64_t nv = atom_op(in, old, b, c);
            memcpy(p, &nv, (size_t)sz);
        }
        uint32_t hs;
        if (emu_type_kind[in->type] == 'h' && emu_hops_atom_add(in->type, (uint32_t)old, (uint32_t)b, &hs))
            /* its bits are the atomic unit's: the ISA leaves them open */
            return emu_needs_gpu(r, pc, "atom.add", "a half-float atomic add whose sum is a NaN, whose bits "
                                 "are the GPU's");
        if (!is_red)
            R[(size_t)in->o[0].reg * 32 + l] = old;
        if (!is_red && m == mask && atom_op(in, old, b, c) == (old & (sz >= 8 ? ~0ull : (1ull << (sz * 8)) - 1)))
            emu_spin_poll(w, p, (uint32_t)sz);  /* an atomic that changed nothing: a poll */
    }
    R[0] = 0;
    if ((in->flags & (F_REL | F_CTA)) == F_REL)
        r->cta->blk_release++;
    if (!is_red)
        r->cta->sig_seen = 1;
    if ((in->flags & (F_ACQ | F_CTA)) == F_ACQ)
        emu_cta_acquire(r->cta);
    return 0;
}

/* cvta[.to].space over the lanes of MASK. */
int emu_cvta(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask)
{
    uint64_t *d = w->R + (size_t)in->o[0].reg * 32, *a = w->R + (size_t)in->o[1].reg * 32;
    uint64_t base = in->space == SP_SHARED || in->space == SP_DSMEM ? r->e->shared_win
                  : in->space == SP_LOCAL  ? r->e->local_win
                                           : 0;
    uint64_t m = emu_type_size[in->type] == 4 ? 0xffffffffull : ~0ull;
    if (in->space == SP_PARAM)
        return emu_fault(r, w, __builtin_ctz(mask), (int)(in - r->code),
                         "used cvta.param, which is not emulated");
    for (uint32_t mm = mask; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        d[l] = ((in->flags & F_TO) ? a[l] - base : a[l] + base) & m;
    }
    return 0;
}

/* isspacep for the lanes of MASK: whether each generic address lies in the
 * instruction's window (.global: in neither of the other two). */
void emu_isspacep(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask)
{
    uint64_t *d = w->R + (size_t)in->o[0].reg * 32;
    const uint64_t *a = w->R + (size_t)in->o[1].reg * 32;
    const struct emu *e = r->e;
    for (uint32_t mm = mask; mm; mm &= mm - 1) {
        int l = __builtin_ctz(mm);
        int sh = a[l] >= e->shared_win && a[l] - e->shared_win < e->win_bytes;
        int lo = a[l] >= e->local_win && a[l] - e->local_win < e->win_bytes;
        d[l] = in->space == SP_SHARED ? sh : in->space == SP_LOCAL ? lo : !sh && !lo;
    }
}
