/* emu_pack.c — a function's registers packed into fewer slots.  nvcc's
 * PTX names a fresh virtual register for nearly every value (hundreds in
 * an unrolled kernel), and a warp's frame holds a row of 32 lanes for each
 * slot, every resident warp one frame: most of a large kernel's frame was
 * memory each launch faulted in and the caches carried without use.  Two
 * registers whose values are never live at once share a slot, as a
 * register allocator would place them.
 *
 * Only registers every read of which some write before it on every path
 * covers (not open, emu_open.c) are packed: an open register's junk, its
 * definedness and its stale value from the block before stay its own.
 * Where the analysis cannot see the whole function (a jump table, a jump
 * out of it) every register is open and nothing is packed. */
#include "emu/emu_run.h"
#include "emu/emu_undef.h"

#include <stdlib.h>
#include <string.h>

#define HAS(w, s) (((w)[(s) / 64] >> ((s) % 64)) & 1)
#define ADD(w, s) ((w)[(s) / 64] |= 1ull << ((s) % 64))

/* The packing of one function: candidate slots numbered 0..nc-1. */
struct pack {
    const struct emu_module *m;
    const struct emu_func *f;
    int32_t *cand;      /* slot -> candidate index, -1 for a slot kept as it is */
    int nc, words;
    uint64_t *live;     /* per instruction: the candidates live on entry */
    uint64_t *clash;    /* nc x nc: the pairs that may not share a slot */
};

/* Calls FN with every register operand of IN (its slot, and whether IN
 * surely writes it: a killing definition). */
#define EACH_REG(in, FN)                                                                          \
    do {                                                                                            \
        int sure_ = emu_open_writes_surely(in), nd_ = sure_ ? (in)->ndest : 0;                     \
        if ((in)->guard > 0)                                                                        \
            FN((in)->guard, 0);                                                                     \
        if ((in)->op == OP_CALL && (in)->target < 0 && (in)->aux > 0)                               \
            FN((in)->aux, 0);                                                                       \
        for (int i_ = 0; i_ < (in)->nops; i_++) {                                                   \
            const struct emu_opnd *o_ = &(in)->o[i_];                                              \
            if ((o_->kind == OK_REG || o_->kind == OK_ADDR) && o_->reg > 0)                         \
                FN(o_->reg, i_ < nd_ && o_->kind == OK_REG);                                        \
            for (int k_ = 0; o_->kind == OK_VEC && k_ < o_->n; k_++)                                \
                if (o_->vec[k_] > 0)                                                                \
                    FN(o_->vec[k_], i_ < nd_);                                                      \
        }                                                                                           \
    } while (0)

/* IN's candidates: those it reads (and, not surely writing them, may
 * write: USE) and those it surely writes (KILL). */
static void insn_sets(const struct pack *p, const struct emu_insn *in, uint64_t *use, uint64_t *kill)
{
    memset(use, 0, (size_t)p->words * sizeof *use);
    memset(kill, 0, (size_t)p->words * sizeof *kill);
#define NOTE(s, k)                                                                                  \
    do {                                                                                            \
        int32_t c_ = p->cand[s];                                                                    \
        if (c_ >= 0) {                                                                              \
            if (k)                                                                                  \
                ADD(kill, c_);                                                                      \
            else                                                                                    \
                ADD(use, c_);                                                                       \
        }                                                                                           \
    } while (0)
    EACH_REG(in, NOTE);
#undef NOTE
}

/* Liveness, backward to a fixed point: live on entry = used, or live
 * after and not surely written.  0, or -1 where an instruction leaves the
 * function's reach. */
static int liveness(struct pack *p, uint64_t *use, uint64_t *kill, uint64_t *out)
{
    const struct emu_func *f = p->f;
    int n = f->count, w = p->words;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = n - 1; i >= 0; i--) {
            const struct emu_insn *in = &p->m->insn[f->first + i];
            int next, to;
            if (!emu_open_successors(in, &next, &to))
                return -1;
            int targets[2] = {next && i + 1 < n ? i + 1 : -1, to >= 0 ? to - f->first : -1};
            memset(out, 0, (size_t)w * sizeof *out);
            for (int t = 0; t < 2; t++) {
                if (targets[t] >= n || (to >= 0 && t == 1 && targets[t] < 0))
                    return -1;
                for (int k = 0; targets[t] >= 0 && k < w; k++)
                    out[k] |= p->live[(size_t)targets[t] * w + k];
            }
            insn_sets(p, in, use, kill);
            uint64_t *li = p->live + (size_t)i * w;
            for (int k = 0; k < w; k++) {
                uint64_t v = use[k] | (out[k] & ~kill[k]);
                changed |= v != li[k];
                li[k] = v;
            }
        }
    }
    return 0;
}

/* The pairs that may not share a slot: whatever an instruction writes (or
 * may write) clashes with what is live after it and with every other
 * register it names, so no step reads a source its own write clobbered.
 * Rows are gathered one way, then made symmetric. */
static void clashes(struct pack *p, uint64_t *use, uint64_t *kill, uint64_t *out)
{
    const struct emu_func *f = p->f;
    int n = f->count, w = p->words;
    for (int i = 0; i < n; i++) {
        const struct emu_insn *in = &p->m->insn[f->first + i];
        int next, to;
        emu_open_successors(in, &next, &to);
        int targets[2] = {next && i + 1 < n ? i + 1 : -1, to >= 0 ? to - f->first : -1};
        memset(out, 0, (size_t)w * sizeof *out);
        for (int t = 0; t < 2; t++)
            for (int k = 0; targets[t] >= 0 && k < w; k++)
                out[k] |= p->live[(size_t)targets[t] * w + k];
        insn_sets(p, in, use, kill);
        /* a sure instruction writes KILL; any other may write what it names */
        int sure = emu_open_writes_surely(in);
        for (int k = 0; k < w; k++)
            out[k] |= use[k] | kill[k];
        for (int k = 0; k < w; k++)
            for (uint64_t wr = sure ? kill[k] : kill[k] | use[k]; wr; wr &= wr - 1) {
                uint64_t *row = p->clash + (size_t)(k * 64 + __builtin_ctzll(wr)) * w;
                for (int j = 0; j < w; j++)
                    row[j] |= out[j];
            }
    }
    for (int a = 0; a < p->nc; a++)
        for (int k = 0; k < w; k++)
            for (uint64_t b = p->clash[(size_t)a * w + k]; b; b &= b - 1)
                ADD(p->clash + (size_t)(k * 64 + __builtin_ctzll(b)) * w, a);
}

/* Rewrites slot S of IN's function through MAP. */
static void remap_insn(struct emu_insn *in, const int32_t *map)
{
    if (in->guard > 0)
        in->guard = map[in->guard];
    if (in->op == OP_CALL && in->target < 0 && in->aux > 0)
        in->aux = map[in->aux];
    for (int i = 0; i < in->nops; i++) {
        struct emu_opnd *o = &in->o[i];
        if ((o->kind == OK_REG || o->kind == OK_ADDR) && o->reg > 0)
            o->reg = map[o->reg];
        for (int k = 0; o->kind == OK_VEC && k < o->n; k++)
            if (o->vec[k] > 0)
                o->vec[k] = map[o->vec[k]];
    }
    emu_undef_plan(in);
}

/* Packs F's candidates by greedy colouring in slot order, then renumbers
 * every slot: the sink, the kept ones in their order, the packed ones;
 * 0, or -1 out of memory (F left as it was). */
static int func_pack(struct emu_module *m, struct emu_func *f)
{
    int32_t ns = f->nslots;
    if (!f->open || f->count <= 0 || ns < 3)
        return 0;
    int rc = -1;
    struct pack p = {.m = m, .f = f};
    uint8_t *kept = calloc((size_t)ns, 1), *taken = NULL;
    int32_t *map = malloc((size_t)ns * sizeof *map), *color = NULL;
    uint64_t *use = NULL;
    p.cand = malloc((size_t)ns * sizeof *p.cand);
    if (!kept || !map || !p.cand)
        goto done;
    kept[0] = 1;
    for (int i = 0; i < f->nconsts; i++)
        kept[f->consts[i].slot] = 1;
    for (int i = 0; i < f->nsregs; i++)
        kept[f->sregs[i].slot] = 1;
    for (int i = 0; i < f->nopen; i++)
        kept[f->open[i]] = 1;
    for (int32_t s = 0; s < ns; s++)
        p.cand[s] = kept[s] ? -1 : p.nc++;
    rc = 0;
    if (p.nc < 2)
        goto done;
    rc = -1;
    p.words = (p.nc + 63) / 64;
    size_t w = (size_t)p.words;
    p.live = calloc((size_t)f->count * w, sizeof *p.live);
    p.clash = calloc((size_t)p.nc * w, sizeof *p.clash);
    use = malloc(3 * w * sizeof *use);
    color = malloc((size_t)p.nc * sizeof *color);
    taken = malloc((size_t)p.nc + 1);
    if (!p.live || !p.clash || !use || !color || !taken)
        goto done;
    rc = 0;
    if (liveness(&p, use, use + w, use + 2 * w))
        goto done;  /* a jump the analysis cannot follow: nothing packed */
    clashes(&p, use, use + w, use + 2 * w);
    int ncolors = 0;
    for (int c = 0; c < p.nc; c++) {
        memset(taken, 0, (size_t)ncolors + 1);
        const uint64_t *row = p.clash + (size_t)c * w;
        for (int j = 0; j < c; j++)
            if (HAS(row, j))
                taken[color[j]] = 1;
        int k = 0;
        while (taken[k])
            k++;
        color[c] = k;
        ncolors = k + 1 > ncolors ? k + 1 : ncolors;
    }
    /* the kept slots in their order, one for the immediates of one value */
    int32_t next = 0;
    for (int32_t s = 0; s < ns; s++)
        if (kept[s])
            map[s] = -1;
    for (int i = 0; i < f->nconsts; i++)
        for (int j = 0; j < i && map[f->consts[i].slot] < 0; j++)
            if (f->consts[j].bits == f->consts[i].bits && f->consts[j].slot < f->consts[i].slot)
                map[f->consts[i].slot] = -2 - f->consts[j].slot;
    for (int32_t s = 0; s < ns; s++)
        if (kept[s] && map[s] == -1)
            map[s] = next++;
    for (int32_t s = 0; s < ns; s++)
        if (kept[s] && map[s] < -1)
            map[s] = map[-2 - map[s]];
    if (next + ncolors >= ns)
        goto done;  /* nothing to gain */
    for (int32_t s = 0; s < ns; s++)
        if (!kept[s])
            map[s] = next + color[p.cand[s]];
    if (f->nopen && !(f->open_salt = malloc((size_t)f->nopen * sizeof *f->open_salt))) {
        rc = -1;
        goto done;
    }
    for (int i = 0; i < f->nopen; i++)
        f->open_salt[i] = f->open[i];
    for (int i = 0; i < f->count; i++)
        remap_insn(&m->insn[f->first + i], map);
    int nconsts = 0;
    for (int i = 0; i < f->nconsts; i++) {
        int dup = 0;
        for (int j = 0; j < nconsts; j++)
            dup |= f->consts[j].slot == map[f->consts[i].slot];
        if (!dup) {
            f->consts[nconsts] = f->consts[i];
            f->consts[nconsts++].slot = map[f->consts[i].slot];
        }
    }
    f->nconsts = nconsts;
    for (int i = 0; i < f->nsregs; i++)
        f->sregs[i].slot = map[f->sregs[i].slot];
    for (int i = 0; i < f->nopen; i++)
        f->open[i] = map[f->open[i]];
    f->nslots = next + ncolors;
done:
    free(kept);
    free(map);
    free(p.cand);
    free(p.live);
    free(p.clash);
    free(use);
    free(color);
    free(taken);
    return rc;
}

int emu_pack_slots(struct emu_module *m)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (func_pack(m, &m->funcs[i]))
            return -1;
    return 0;
}
