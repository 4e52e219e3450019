/* emu_count.c — the counters of emu_count.h: a memory instruction's
 * requests, wavefronts and sectors from its lanes' addresses, the distinct
 * sectors of a launch in a set, and the launch's figures added into the
 * emulator's when it ends.  The interpreter calls in from one line at each
 * place an event happens (emu_warp.c, emu_sched.c, emu_exec.c). */
#include "emu/emu_count.h"
#include "emu/emu_run.h"

#include <stdlib.h>
#include <string.h>

#define COMB_SUM '+'
#define COMB_MAX '>'
#define COMB_MIN '<'

const struct emu_counter_info emu_counter_info[EMU_CNT_COUNT] = {
#define EMU_COUNTER_ROW_(f, name, ncu, eq, comb, why) {name, ncu, why, eq, COMB_##comb},
    EMU_COUNTERS(EMU_COUNTER_ROW_)
#undef EMU_COUNTER_ROW_
};

int emu_counter_find(const char *name)
{
    for (int i = 0; name && i < EMU_CNT_COUNT; i++)
        if (!strcmp(emu_counter_info[i].name, name))
            return i;
    return -1;
}

void emu_counters_add(struct emu_counters *a, const struct emu_counters *b)
{
    for (int i = 0; i < EMU_CNT_COUNT; i++) {
        uint64_t x = a->v[i], y = b->v[i];
        switch (emu_counter_info[i].comb) {
        case COMB_MAX: a->v[i] = x > y ? x : y; break;
        case COMB_MIN: a->v[i] = !x ? y : !y ? x : x < y ? x : y; break;
        default: a->v[i] = x + y; break;
        }
    }
}

void emu_counters_get(const struct emu *e, struct emu_counters *c)
{
    *c = e->counters;
}

void emu_counters_reset(struct emu *e)
{
    memset(&e->counters, 0, sizeof e->counters);
}

void emu_counters_shape(struct emu *e, int regs, int blocks)
{
    struct emu_counters one;
    memset(&one, 0, sizeof one);
    one.v[EMU_CNT_regs] = regs > 0 ? (uint64_t)regs : 0;
    one.v[EMU_CNT_blocks_sm] = blocks > 0 ? (uint64_t)blocks : 0;
    emu_counters_add(&e->counters, &one);
}

/* ---- one request ------------------------------------------------------------------ */

uint32_t emu_count_wavefronts(const uint32_t *off, uint32_t mask, uint32_t bytes)
{
    uint32_t words = bytes > 4 ? bytes / 4 : 1;
    uint32_t phase = 32 / words, total = 0;
    if (words == 1) {
        /* the common case first: every lane in a bank of its own */
        uint32_t banks = 0, clash = 0;
        for (uint32_t m = mask; m; m &= m - 1) {
            uint32_t b = 1u << (off[__builtin_ctz(m)] / 4 % 32);
            clash |= banks & b;
            banks |= b;
        }
        if (!clash)
            return mask ? 1 : 0;
    }
    for (uint32_t p0 = 0; p0 < 32; p0 += phase) {
        uint32_t pm = mask & (phase == 32 ? ~0u : ((1u << phase) - 1) << p0);
        uint32_t list[32], n = 0;
        if (!pm)
            continue;
        /* the phase's distinct words, kept sorted (addresses mostly rise
         * with the lane, so an insertion is mostly an append) */
        for (uint32_t m = pm; m; m &= m - 1) {
            uint32_t first = off[__builtin_ctz(m)] / 4;
            for (uint32_t k = 0; k < words; k++) {
                uint32_t wd = first + k, j = n;
                while (j > 0 && list[j - 1] > wd)
                    j--;
                if (j > 0 && list[j - 1] == wd)
                    continue;
                memmove(list + j + 1, list + j, (n - j) * sizeof *list);
                list[j] = wd;
                n++;
            }
        }
        uint8_t per_bank[32] = {0};
        uint32_t most = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t c = ++per_bank[list[i] & 31];
            most = c > most ? c : most;
        }
        total += most;
    }
    return total;
}


/* Adds sector S to the N distinct ones in OUT (HI: the largest so far):
 * a warp's addresses mostly rise, so a sector above HI is new without a
 * search. */
static inline void sector_add(uint64_t *out, uint32_t *n, uint64_t *hi, uint64_t s)
{
    if (*n && s <= *hi)
        for (uint32_t j = *n; j > 0; j--)
            if (out[j - 1] == s)
                return;
    *hi = !*n || s > *hi ? s : *hi;
    out[(*n)++] = s;
}
/* The distinct sectors of the lanes of MASK into OUT (at most 64); their
 * count.  An access of 16 bytes or fewer is aligned to its size, so it
 * lies in one sector; lanes mostly climb through memory, so a sector past
 * the highest one so far is new without a search. */
static uint32_t sectors_of(const uint64_t *addr, uint32_t mask, uint32_t bytes, uint64_t *out)
{
    uint32_t n = 0;
    uint64_t hi = 0;
    for (uint32_t m = mask; m; m &= m - 1) {
        uint64_t a = addr[__builtin_ctz(m)];
        for (uint64_t s = a >> 5; s <= (a + bytes - 1) >> 5 && n < 64; s++) {
            sector_add(out, &n, &hi, s);
        }
    }
    return n;
}

uint32_t emu_count_sectors(const uint64_t *addr, uint32_t mask, uint32_t bytes)
{
    uint64_t s[64];
    return sectors_of(addr, mask, bytes, s);
}

/* ---- the launch's distinct sectors ---------------------------------------------- */

/* A set of sectors is a table of pages, each a bitmap of SECTORS_PAGE
 * sectors (128 KiB of memory), with the last page used at hand: the
 * accesses of a warp, and of the warps after it, mostly fall in one. */
#define SECTORS_PAGE 4096u

static uint64_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* The bitmap of page PG (stored as PG + 1, 0 being empty), made when
 * new; NULL out of memory. */
static uint64_t *page_of(struct emu_sectors *set, uint64_t pg)
{
    if (set->last_key == pg + 1)
        return set->last;
    if (set->used * 2 >= set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 64;
        struct emu_sector_page *t = calloc(cap, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < set->cap; i++) {
            size_t j = hash64(set->pages[i].key) & (cap - 1);
            while (set->pages[i].key && t[j].key)
                j = (j + 1) & (cap - 1);
            if (set->pages[i].key)
                t[j] = set->pages[i];
        }
        free(set->pages);
        set->pages = t;
        set->cap = cap;
    }
    size_t j = hash64(pg + 1) & (set->cap - 1);
    while (set->pages[j].key && set->pages[j].key != pg + 1)
        j = (j + 1) & (set->cap - 1);
    if (!set->pages[j].key) {
        if (!(set->pages[j].bits = calloc(SECTORS_PAGE / 64, sizeof(uint64_t))))
            return NULL;
        set->pages[j].key = pg + 1;
        set->used++;
    }
    set->last_key = pg + 1;
    return set->last = set->pages[j].bits;
}

/* Adds sector S; out of memory it is left uncounted. */
static void set_add(struct emu_sectors *set, uint64_t s)
{
    uint64_t *bits = page_of(set, s / SECTORS_PAGE), b = 1ull << (s % 64);
    uint32_t w = (uint32_t)(s % SECTORS_PAGE / 64);
    if (bits && !(bits[w] & b)) {
        bits[w] |= b;
        set->count++;
    }
}

/* Adds every sector of FROM into TO and empties FROM. */
static void set_merge(struct emu_sectors *to, struct emu_sectors *from)
{
    for (size_t i = 0; i < from->cap; i++) {
        uint64_t *src = from->pages[i].bits, *dst;
        if (!from->pages[i].key || !(dst = page_of(to, from->pages[i].key - 1)))
            continue;
        for (uint32_t w = 0; w < SECTORS_PAGE / 64; w++) {
            to->count += (uint64_t)__builtin_popcountll(src[w] & ~dst[w]);
            dst[w] |= src[w];
        }
    }
}

static void set_free(struct emu_sectors *set)
{
    for (size_t i = 0; i < set->cap; i++)
        free(set->pages[i].bits);
    free(set->pages);
    memset(set, 0, sizeof *set);
}

/* ---- the interpreter's hooks ------------------------------------------------------ */

/* Each lane's address of a load, store or atomic (operand AO), split into
 * shared offsets (SH, lanes *SM) and global addresses (GL, lanes *GM);
 * local, parameter and constant accesses are in neither. */
static void split(const struct run *r, const struct warp *w, const struct emu_insn *in,
                  const struct emu_opnd *ao, uint32_t mask, uint32_t *sh, uint32_t *sm, uint64_t *gl,
                  uint32_t *gm)
{
    const uint64_t *base = ao->reg >= 0 ? w->R + (size_t)ao->reg * 32 : NULL;
    const uint64_t off = (uint64_t)ao->off;
    const struct emu *e = r->e;
    *sm = *gm = 0;
    if (!base && in->space != SP_GENERIC) {
        /* one address for every lane: a variable's */
        for (uint32_t m = mask; m; m &= m - 1)
            sh[__builtin_ctz(m)] = (uint32_t)off, gl[__builtin_ctz(m)] = off;
        *sm = in->space == SP_SHARED ? mask : 0;
        *gm = in->space == SP_GLOBAL ? mask : 0;
        return;
    }
    switch (in->space) {
    case SP_SHARED:
        for (uint32_t m = mask; m; m &= m - 1)
            sh[__builtin_ctz(m)] = (uint32_t)(base[__builtin_ctz(m)] + off);
        *sm = mask;
        return;
    case SP_GLOBAL:
        for (uint32_t m = mask; m; m &= m - 1)
            gl[__builtin_ctz(m)] = base[__builtin_ctz(m)] + off;
        *gm = mask;
        return;
    case SP_GENERIC:
        for (uint32_t m = mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            uint64_t a = (base ? base[l] : 0) + off;
            if (a - e->shared_win < e->win_bytes) {
                sh[l] = (uint32_t)(a - e->shared_win);
                *sm |= 1u << l;
            } else if (a - e->local_win >= e->win_bytes) {
                gl[l] = a;
                *gm |= 1u << l;
            }
        }
        return;
    default:
        return;
    }
}

/* The common shapes in one pass over the lanes, through a register: a
 * shared access of a word or less that no two lanes' banks share, and a
 * global access of 16 bytes or less (aligned to its size, as the access
 * itself checks, so in one sector).  0: another shape, for the general
 * path. */
static int count_fast(struct run *r, const struct warp *w, const struct emu_insn *in, uint32_t mask,
                      uint32_t bytes, int is_ld)
{
    const struct emu_opnd *ao = &in->o[is_ld ? 1 : 0];
    if (ao->reg < 0)
        return 0;
    const uint64_t *base = w->R + (size_t)ao->reg * 32, off = (uint64_t)ao->off;
    if (in->space == SP_SHARED && bytes <= 4) {
        uint32_t banks = 0, clash = 0;
        for (uint32_t m = mask; m; m &= m - 1) {
            uint32_t b = 1u << ((uint32_t)(base[__builtin_ctz(m)] + off) / 4 % 32);
            clash |= banks & b;
            banks |= b;
        }
        if (clash)
            return 0;
        r->cnt.v[is_ld ? EMU_CNT_sh_ld_req : EMU_CNT_sh_st_req]++;
        r->cnt.v[is_ld ? EMU_CNT_sh_ld_wf : EMU_CNT_sh_st_wf]++;
        return 1;
    }
    if (in->space != SP_GLOBAL || bytes > 16)
        return 0;
    uint64_t sec[32], hi = 0;
    uint32_t n = 0;
    for (uint32_t m = mask; m; m &= m - 1) {
        uint64_t s = (base[__builtin_ctz(m)] + off) >> 5;
        sector_add(sec, &n, &hi, s);
    }
    r->cnt.v[is_ld ? EMU_CNT_gl_ld_req : EMU_CNT_gl_st_req]++;
    r->cnt.v[is_ld ? EMU_CNT_gl_ld_sec : EMU_CNT_gl_st_sec] += n;
    for (uint32_t i = 0; i < n; i++)
        set_add(is_ld ? &r->cnt_rd : &r->cnt_wr, sec[i]);
    return 1;
}

void emu_count_mem(struct run *r, const struct warp *w, const struct emu_insn *in, uint32_t mask)
{
    int is_ld = in->op == OP_LD;
    uint32_t sh[32], sm, gm, bytes = (uint32_t)emu_type_size[in->type] * in->vec;
    uint64_t gl[32], sec[64];
    /* parameters, local and constant memory: not what the lessons count */
    if (!bytes || (in->space != SP_GENERIC && in->space != SP_GLOBAL && in->space != SP_SHARED) ||
        count_fast(r, w, in, mask, bytes, is_ld))
        return;
    split(r, w, in, &in->o[is_ld ? 1 : 0], mask, sh, &sm, gl, &gm);
    if (sm) {
        r->cnt.v[is_ld ? EMU_CNT_sh_ld_req : EMU_CNT_sh_st_req]++;
        r->cnt.v[is_ld ? EMU_CNT_sh_ld_wf : EMU_CNT_sh_st_wf] += emu_count_wavefronts(sh, sm, bytes);
    }
    if (gm) {
        uint32_t n = sectors_of(gl, gm, bytes, sec);
        r->cnt.v[is_ld ? EMU_CNT_gl_ld_req : EMU_CNT_gl_st_req]++;
        r->cnt.v[is_ld ? EMU_CNT_gl_ld_sec : EMU_CNT_gl_st_sec] += n;
        for (uint32_t i = 0; i < n; i++)
            set_add(is_ld ? &r->cnt_rd : &r->cnt_wr, sec[i]);
    }
}

/* ADDR took N more updates; a full table drops new words (the busiest
 * is among the first a kernel hammers). */
static void hot_add(struct emu_hot *h, uint64_t addr, uint64_t n)
{
    if (!h->addr && (!(h->addr = calloc(HOT_WORDS, sizeof *h->addr)) ||
                     !(h->updates = calloc(HOT_WORDS, sizeof *h->updates)))) {
        free(h->addr);
        h->addr = NULL;
        return;
    }
    uint64_t key = addr + 1;
    for (uint32_t i = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 52), k = 0; k < HOT_WORDS;
         k++, i = (i + 1) & (HOT_WORDS - 1)) {
        if (h->addr[i] == key || !h->addr[i]) {
            h->addr[i] = key;
            h->updates[i] += n;
            return;
        }
    }
}

static void hot_free(struct emu_hot *h)
{
    free(h->addr);
    free(h->updates);
    h->addr = NULL;
    h->updates = NULL;
}

/* The updates of a warp's atomic to each word it names: an integer add
 * or increment is one whatever the lanes (ptxas turns one into a warp's
 * sum and a single atomic: on an H200 2^28 lanes' atomicAdd(&count, 1)
 * took 7 ms, their float atomicAdd to one word 468 ms), any other one
 * per lane. */
static void hot_request(struct run *r, const struct emu_insn *in, const uint64_t *gl, uint32_t gm)
{
    int combined = emu_type_kind[in->type] != 'f' && emu_type_kind[in->type] != 'h' &&
                   (in->sub == SUB_ADD || in->sub == SUB_INC);
    for (uint32_t m = gm; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint32_t same = 0;
        for (uint32_t o = gm; o; o &= o - 1)
            if (gl[__builtin_ctz(o)] == gl[l])
                same |= 1u << __builtin_ctz(o);
        if (__builtin_ctz(same) != l)
            continue;       /* counted with its word's lowest lane */
        hot_add(&r->hot, gl[l] & ~3ull, combined ? 1 : popc32(same));
    }
}

void emu_count_atom(struct run *r, const struct warp *w, const struct emu_insn *in, uint32_t mask)
{
    uint32_t sh[32], sm, gm;
    uint64_t gl[32], sec[64];
    split(r, w, in, &in->o[in->op == OP_RED ? 0 : 1], mask, sh, &sm, gl, &gm);
    if (sm)
        r->cnt.v[EMU_CNT_sh_atom_req]++;
    if (!gm)
        return;
    r->cnt.v[EMU_CNT_atom_req]++;
    r->cnt.v[EMU_CNT_atom_thread] += popc32(gm);
    for (uint32_t m = gm; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint32_t others = gm & ~(1u << l), hit = 0;
        for (uint32_t o = others; o && !hit; o &= o - 1)
            hit = gl[__builtin_ctz(o)] == gl[l];
        r->cnt.v[EMU_CNT_atom_same] += hit;
    }
    hot_request(r, in, gl, gm);
    /* L2 reads the sectors an atomic updates and writes them back */
    uint32_t n = sectors_of(gl, gm, (uint32_t)emu_type_size[in->type], sec);
    for (uint32_t i = 0; i < n; i++) {
        set_add(&r->cnt_rd, sec[i]);
        set_add(&r->cnt_wr, sec[i]);
    }
}

void emu_count_merge(struct run *t, struct run *worker)
{
    emu_counters_add(&t->cnt, &worker->cnt);
    for (uint32_t i = 0; worker->hot.addr && i < HOT_WORDS; i++)
        if (worker->hot.addr[i])
            hot_add(&t->hot, worker->hot.addr[i] - 1, worker->hot.updates[i]);
    hot_free(&worker->hot);
    set_merge(&t->cnt_rd, &worker->cnt_rd);
    set_merge(&t->cnt_wr, &worker->cnt_wr);
    set_free(&worker->cnt_rd);
    set_free(&worker->cnt_wr);
}

void emu_count_fresh(struct run *worker)
{
    memset(&worker->cnt, 0, sizeof worker->cnt);
    memset(&worker->cnt_rd, 0, sizeof worker->cnt_rd);
    memset(&worker->cnt_wr, 0, sizeof worker->cnt_wr);
    memset(&worker->hot, 0, sizeof worker->hot);
}

void emu_count_end(struct run *r)
{
    r->cnt.v[EMU_CNT_launches] = 1;
    r->cnt.v[EMU_CNT_blocks] = r->nblocks;
    r->cnt.v[EMU_CNT_threads] = r->nblocks * r->nthreads;
    r->cnt.v[EMU_CNT_warp_inst] = r->stats.warp_instructions;
    r->cnt.v[EMU_CNT_thread_inst] = r->stats.thread_instructions;
    r->cnt.v[EMU_CNT_uniq_rd] = r->cnt_rd.count;
    r->cnt.v[EMU_CNT_uniq_wr] = r->cnt_wr.count;
    uint64_t hottest = 0;
    for (uint32_t i = 0; r->hot.addr && i < HOT_WORDS; i++)
        hottest = r->hot.updates[i] > hottest ? r->hot.updates[i] : hottest;
    r->cnt.v[EMU_CNT_atom_hot] = hottest;
    hot_free(&r->hot);
    emu_counters_add(&r->e->counters, &r->cnt);
    set_free(&r->cnt_rd);
    set_free(&r->cnt_wr);
}
