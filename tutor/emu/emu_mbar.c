/* emu_mbar.c — mbarrier, the split-phase barrier object in shared memory
 * that cuda::barrier, cuda::pipeline and TMA's completion use: init,
 * arrive (with a count, drop, noComplete, expect_tx), test_wait and
 * try_wait (by state or by parity), pending_count, expect_tx, complete_tx,
 * inval, and cp.async.mbarrier.arrive.
 *
 * The object's 8 bytes hold its state, so a kernel that copies or clears
 * it sees memory, as on a GPU: the phase's parity (bit 63), the pending
 * arrivals (bits 0-20), the expected ones (21-41) and the transaction
 * count (42-62, offset by 2^20: it may go below zero while a phase is
 * open, as the ISA allows).  An arrive returns the state before it, whose
 * parity names the phase a wait is for.
 *
 * Ordering, for the hazard shadow: each thread carries a clock.  An arrive
 * adds the arriving thread's clock to its phase's and moves the thread's
 * on; a wait that finds the phase complete lifts the waiter's clock past
 * the phase's.  A shared access stamped with a clock below the accessing
 * thread's is ordered before it (emu_shadow.c), so what producers stored
 * before arriving is ordered before what consumers read after waiting.
 * The clocks never order two accesses that are not ordered; some that
 * are unordered they miss (a thread's access after its arrive, against
 * a waiter's): a race through an mbarrier is reported when the clocks
 * show it, never invented. */
#include "emu/emu_run.h"

#include <stdlib.h>
#include <string.h>

enum { PEND_BITS = 21, COUNT_MAX = (1 << 20) - 1, TX_ZERO = 1 << 20 };
#define FIELD(v, at) (((v) >> (at)) & ((1u << PEND_BITS) - 1))
#define TX(v) ((int32_t)FIELD(v, 2 * PEND_BITS) - TX_ZERO)
#define PHASE_BIT (1ull << 63)

/* An mbarrier's clocks: what arrived in the open phase, and what each
 * parity's last completed phase had. */
struct mbar_side {
    uint32_t off;
    uint32_t open, done[2];
};

static uint64_t pack(uint64_t phase, uint32_t pend, uint32_t expect, int32_t tx)
{
    return phase | (uint64_t)pend | (uint64_t)expect << PEND_BITS |
           (uint64_t)(uint32_t)(tx + TX_ZERO) << (2 * PEND_BITS);
}

/* The running block's side record of the mbarrier at shared OFF, made on
 * first use; NULL out of memory. */
static struct mbar_side *side_of(struct run *r, uint32_t off)
{
    struct cta *c = r->cta;
    for (int i = 0; i < c->nmb; i++)
        if (c->mb[i].off == off)
            return &c->mb[i];
    if (c->nmb == c->capmb) {
        int cap = c->capmb ? c->capmb * 2 : 8;
        struct mbar_side *n = realloc(c->mb, (size_t)cap * sizeof *n);
        if (!n)
            return NULL;
        c->mb = n;
        c->capmb = cap;
    }
    struct mbar_side *s = &c->mb[c->nmb++];
    memset(s, 0, sizeof *s);
    s->off = off;
    return s;
}

/* Lane L's clock, made on the block's first mbarrier; NULL out of memory. */
static uint32_t *clock_of(struct run *r, struct warp *w, int l)
{
    struct cta *c = r->cta;
    if (!c->mbclk && !(c->mbclk = calloc(r->nthreads, sizeof *c->mbclk)))
        return NULL;
    return &c->mbclk[w->index * 32 + l];
}

static int nomem(struct run *r)
{
    emu_error_set(r->err, EMU_NOMEM, NULL, 0, NULL, "out of memory for an mbarrier");
    r->st = EMU_NOMEM;
    return -1;
}

/* The phase completes: its clocks are kept by parity, and the next one
 * expects what this one did. */
static uint64_t complete(uint64_t v, struct mbar_side *s)
{
    uint32_t expect = FIELD(v, PEND_BITS);
    s->done[(v & PHASE_BIT) ? 1 : 0] = s->open;
    s->open = 0;
    return pack((v & PHASE_BIT) ^ PHASE_BIT, expect, expect, 0);
}

/* COUNT arrivals by lane L (with IN's drop, noComplete and expect_tx TX);
 * the state before them in *OLD.  0 or -1 (reported). */
static int arrive(struct run *r, struct warp *w, int l, int pc, const struct emu_insn *in,
                  uint8_t *p, struct mbar_side *s, uint32_t count, uint32_t tx, uint64_t *old)
{
    uint64_t v;
    memcpy(&v, p, 8);
    *old = v;
    uint32_t pend = FIELD(v, 0), expect = FIELD(v, PEND_BITS);
    int32_t txc = TX(v);
    if (count == 0 || count > pend)
        return emu_fault(r, w, l, pc, "arrives %u time%s at an mbarrier whose phase waits for %u "
                         "more: more arrivals than its count (set by init) allows",
                         count, count == 1 ? "" : "s", pend);
    if (tx > COUNT_MAX || txc + (int64_t)tx > COUNT_MAX)
        return emu_fault(r, w, l, pc, "expects %u more bytes at an mbarrier already expecting %d: "
                         "past its limit", tx, txc);
    pend -= count;
    txc += (int32_t)tx;
    if (in->sub & MBS_DROP)
        expect -= count;
    uint32_t *clk = clock_of(r, w, l);
    if (!clk)
        return nomem(r);
    s->open = *clk > s->open ? *clk : s->open;
    (*clk)++;
    v = pack(v & PHASE_BIT, pend, expect, txc);
    if (pend == 0 && txc == 0) {
        if (in->sub & MBS_NOCOMPLETE)
            return emu_fault(r, w, l, pc, "arrives with .noComplete and completes the mbarrier's "
                             "phase: undefined, as the PTX ISA says");
        v = complete(v, s);
    }
    memcpy(p, &v, 8);
    return 0;
}

/* N bytes expected (EXPECT) or completed at the mbarrier P by lane L: a
 * completion is a release, as an arrival is.  0 or -1. */
static int transact(struct run *r, struct warp *w, int l, int pc, uint8_t *p, struct mbar_side *s,
                    uint32_t n, int expect)
{
    uint64_t v;
    memcpy(&v, p, 8);
    int32_t txc = TX(v);
    int64_t next = expect ? (int64_t)txc + n : (int64_t)txc - n;
    if (n > COUNT_MAX || next > COUNT_MAX || next < -COUNT_MAX)
        return emu_fault(r, w, l, pc, "%s %u bytes at an mbarrier whose count of bytes is %d: "
                         "past its limit of %d", expect ? "expects" : "completes", n, txc, COUNT_MAX);
    if (!expect) {
        uint32_t *clk = clock_of(r, w, l);
        if (!clk)
            return nomem(r);
        s->open = *clk > s->open ? *clk : s->open;
        (*clk)++;
    }
    v = pack(v & PHASE_BIT, FIELD(v, 0), FIELD(v, PEND_BITS), (int32_t)next);
    if (FIELD(v, 0) == 0 && next == 0)
        v = complete(v, s);
    memcpy(p, &v, 8);
    return 0;
}

/* The mbarrier lane L names: its bytes, checked and held to the shadow
 * (an init writes it; every other form is an atomic access of a word that
 * must have been initialised); its shared offset in *OFF.  NULL after
 * reporting. */
static uint8_t *object(struct run *r, struct warp *w, int l, int pc, const struct emu_insn *in,
                       const struct emu_opnd *a, uint32_t *off)
{
    uint64_t addr = (a->reg >= 0 ? w->R[(size_t)a->reg * 32 + l] : 0) + (uint64_t)a->off;
    int space = in->space;
    if (space == SP_SHARED)
        addr &= 0xffffffffull;
    int init = in->op == OP_MB_INIT;
    uint8_t *p = emu_resolve(r, w, l, pc, space, addr, 8, init ? ACC_WRITE : ACC_ATOMIC, NULL);
    if (!p)
        return NULL;
    if (p < r->cta->smem || p >= r->cta->smem + r->smem_bytes)
        return emu_fault(r, w, l, pc, "uses an mbarrier outside shared memory: an mbarrier "
                         "lives in the block's shared memory"), NULL;
    *off = (uint32_t)(p - r->cta->smem);
    if (!init && r->hazards && emu_shadow_undefined(r, *off, 8))
        return emu_hazard(r, w, l, pc, "uses an mbarrier that no thread has initialised "
                          "(mbarrier.init, cuda::barrier's init): initialise it, then "
                          "__syncthreads(), before any thread arrives or waits"), NULL;
    return p;
}

int emu_mbar(struct run *r, struct warp *w, const struct emu_insn *in, uint32_t mask, int pc)
{
    uint64_t *R = w->R;
    uint32_t waited = 0, polled = 0;
    uint8_t *last = NULL;
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if (in->op == OP_MB_PENDING) {     /* of a state, not of the object */
            R[(size_t)in->o[0].reg * 32 + l] = FIELD(R[(size_t)in->o[1].reg * 32 + l], 0);
            continue;
        }
        if (in->op == OP_CP_MBAR && emu_async_land_all(r, w, l, pc))
            return -1;
        const struct emu_opnd *a = &in->o[in->op == OP_MB_ARRIVE || in->op == OP_MB_TEST ? 1 : 0];
        uint32_t off;
        uint8_t *p = object(r, w, l, pc, in, a, &off);
        if (!p)
            return -1;
        struct mbar_side *s = side_of(r, off);
        if (!s)
            return nomem(r);
        uint64_t v, old;
        memcpy(&v, p, 8);
        switch (in->op) {
        case OP_MB_INIT: {
            uint64_t count = R[(size_t)in->o[1].reg * 32 + l] & 0xffffffffu;
            if (count == 0 || count > COUNT_MAX)
                return emu_fault(r, w, l, pc, "initialises an mbarrier for %llu arrivals: the "
                                 "count must be 1 to %d", (unsigned long long)count, COUNT_MAX);
            v = pack(0, (uint32_t)count, (uint32_t)count, 0);
            memcpy(p, &v, 8);
            memset(s, 0, sizeof *s);
            s->off = off;
            break;
        }
        case OP_MB_INVAL:
            memset(p, 0, 8);
            break;
        case OP_MB_ARRIVE: {
            uint32_t count = 1, tx = 0;
            if (in->nops == 3) {
                uint32_t x = (uint32_t)R[(size_t)in->o[2].reg * 32 + l];
                if (in->sub & MBS_EXPECT)
                    tx = x;
                else
                    count = x;
            }
            if (arrive(r, w, l, pc, in, p, s, count, tx, &old))
                return -1;
            if (in->o[0].reg)
                R[(size_t)in->o[0].reg * 32 + l] = old;
            break;
        }
        case OP_CP_MBAR:
            /* without .noinc the pending count goes up by the one arrival
             * it makes: the phase waits for the copies and nothing else */
            if ((in->sub & MBS_NOINC) && arrive(r, w, l, pc, in, p, s, 1, 0, &old))
                return -1;
            break;
        case OP_MB_TX:
            if (transact(r, w, l, pc, p, s, (uint32_t)R[(size_t)in->o[1].reg * 32 + l],
                         in->sub & MBS_EXPECT))
                return -1;
            break;
        default: {  /* test_wait, try_wait: by a state's parity, or a parity */
            uint64_t arg = R[(size_t)in->o[2].reg * 32 + l];
            int parity = (in->sub & MBS_PARITY) ? (int)(arg & 1) : (arg & PHASE_BIT) != 0;
            int done = ((v & PHASE_BIT) != 0) != parity;
            R[(size_t)in->o[0].reg * 32 + l] = (uint64_t)done;
            if (done) {
                uint32_t *clk = clock_of(r, w, l);
                if (!clk)
                    return nomem(r);
                uint32_t after = s->done[parity] + 1;
                *clk = after > *clk ? after : *clk;
                waited |= 1u << l;
            } else {
                polled |= 1u << l;
                last = p;
            }
            break;
        }
        }
    }
    /* a wait the whole warp found open: only other threads' arrivals can
     * complete the phase, so the warp waits until the object changes */
    if (in->op == OP_MB_TEST && !waited && polled)
        emu_wait_on(w, last, 8);
    return 0;
}
