/* emu_open.c — the registers a function may read before it writes them:
 * only those need the junk a GPU's registers start with (emu_warp.c), and
 * a frame of hundreds of registers (a kernel with its loops unrolled)
 * would spend more filling every one than running.  A forward pass over
 * the function's instructions: at each, the registers every path from the
 * entry has written, where a path is what one lane runs.  Only a write
 * that cannot skip a lane counts: an unguarded ALU result or load, or an
 * unguarded shuffle's or vote's (a lane passes one only once the warp ran
 * it, its value junk where the source lane took no part); any other
 * instruction's operands are taken as read, where what it does with its
 * own destinations is the step's business. */
#include "emu/emu_int.h"

#include <stdlib.h>
#include <string.h>

int emu_open_writes_surely(const struct emu_insn *in)
{
    int cls = emu_ops[in->op].cls;
    return in->guard < 0 && ((cls == C_ALU && in->alu) || in->op == OP_LD || in->op == OP_SHFL ||
                             in->op == OP_VOTE);
}

/* Slot S of the set at W (one bit a slot). */
#define HAS(w, s) (((w)[(s) / 64] >> ((s) % 64)) & 1)
#define ADD(w, s) ((w)[(s) / 64] |= 1ull << ((s) % 64))

/* Every slot IN reads, each S given to READ with the set WRITTEN before it. */
static void mark_reads(const struct emu_insn *in, const uint64_t *written, uint8_t *open)
{
    int first = emu_open_writes_surely(in) ? in->ndest : 0;
    if (in->guard > 0 && !HAS(written, in->guard))
        open[in->guard] = 1;
    for (int i = first; i < in->nops; i++) {
        const struct emu_opnd *o = &in->o[i];
        if ((o->kind == OK_REG || o->kind == OK_ADDR) && o->reg > 0 && !HAS(written, o->reg))
            open[o->reg] = 1;
        for (int k = 0; o->kind == OK_VEC && k < o->n; k++)
            if (o->vec[k] > 0 && !HAS(written, o->vec[k]))
                open[o->vec[k]] = 1;
    }
}

static void add_writes(const struct emu_insn *in, uint64_t *set)
{
    if (!emu_open_writes_surely(in))
        return;
    for (int i = 0; i < in->ndest; i++) {
        const struct emu_opnd *o = &in->o[i];
        if (o->kind == OK_REG && o->reg > 0)
            ADD(set, o->reg);
        for (int k = 0; o->kind == OK_VEC && k < o->n; k++)
            if (o->vec[k] > 0)
                ADD(set, o->vec[k]);
    }
}

int emu_open_successors(const struct emu_insn *in, int *next, int *to)
{
    int cls = emu_ops[in->op].cls;
    *next = 1;
    *to = -1;
    if (cls == C_BRX)
        return 0;
    if (cls == C_BRA) {
        *to = in->target;
        *next = in->guard >= 0;
    } else if (cls == C_EXIT || cls == C_RET || cls == C_TRAP) {
        *next = in->guard >= 0;
    }
    return 1;
}

/* Function FN's open registers into its list; 0, or -1 out of memory
 * (every register is then open: the list stays NULL). */
static int func_open(struct emu_module *m, struct emu_func *f)
{
    int n = f->count, words = (f->nslots + 63) / 64, rc = -1;
    uint64_t *in = malloc((size_t)(n + 1) * (size_t)words * sizeof *in);
    uint8_t *open = calloc((size_t)f->nslots, 1);
    if (!in || !open)
        goto done;
    /* every set starts full (the meet's top) but the entry's: the sink,
     * the constants and the special registers are set before any runs */
    memset(in, 0xff, (size_t)n * (size_t)words * sizeof *in);
    memset(in, 0, (size_t)words * sizeof *in);
    ADD(in, 0);
    for (int i = 0; i < f->nconsts; i++)
        ADD(in, f->consts[i].slot);
    for (int i = 0; i < f->nsregs; i++)
        ADD(in, f->sregs[i].slot);
    uint64_t *out = in + (size_t)n * words;     /* scratch: one instruction's out */
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            const struct emu_insn *ins = &m->insn[f->first + i];
            int next, to;
            if (!emu_open_successors(ins, &next, &to)) {
                rc = 0;     /* a jump table: every register open */
                memset(open, 1, (size_t)f->nslots);
                goto list;
            }
            memcpy(out, in + (size_t)i * words, (size_t)words * sizeof *out);
            add_writes(ins, out);
            int targets[2] = {next && i + 1 < n ? i + 1 : -1, to >= 0 ? to - f->first : -1};
            for (int t = 0; t < 2; t++) {
                if (targets[t] < 0)
                    continue;
                if (targets[t] >= n) {
                    memset(open, 1, (size_t)f->nslots);
                    rc = 0;
                    goto list;
                }
                uint64_t *dst = in + (size_t)targets[t] * words;
                for (int k = 0; k < words; k++) {
                    uint64_t v = dst[k] & out[k];
                    changed |= v != dst[k];
                    dst[k] = v;
                }
            }
        }
    }
    for (int i = 0; i < n; i++)
        mark_reads(&m->insn[f->first + i], in + (size_t)i * words, open);
    rc = 0;
list:
    f->nopen = 0;
    f->open = malloc((size_t)f->nslots * sizeof *f->open);
    if (!f->open) {
        rc = -1;
        goto done;
    }
    for (int32_t s = 1; s < f->nslots; s++)
        if (open[s])
            f->open[f->nopen++] = s;
done:
    free(in);
    free(open);
    return rc;
}

/* Each function of M's open registers (emu_func's open, nopen); 0 or -1. */
int emu_open_regs(struct emu_module *m)
{
    for (int i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].count > 0 && func_open(m, &m->funcs[i]))
            return -1;
    return 0;
}
