/* emu_forms.c — what the decoder knows of a mnemonic and its operands:
 * the words after the opcode (types, spaces, comparisons, rounding,
 * modifiers, memory-model words) as a table, and the operands each decoded
 * form takes as a table of shapes, so that nothing the interpreter reads
 * without checking can be missing or misplaced. */
#include "emu/emu_forms.h"

#include <stdio.h>

struct suffix {
    const char *w;
    int cls;
    int val;
};
enum { S_TYPE, S_SPACE, S_CMP, S_RND, S_FLAG, S_SUB, S_VEC, S_IGNORE, S_PRMT, S_TESTP, S_CP, S_MB };
/* cp's second and later words (S_CP's values, bits) */
enum { CPW_ASYNC = 1, CPW_COMMIT = 2, CPW_WAIT = 4, CPW_WAITALL = 8, CPW_MBAR = 16, CPW_NOINC = 32,
       CPW_OTHER = 64, CPW_BULK = 128, CPW_TX = 256 };
/* mbarrier's words (S_MB's values, bits): the operation, then its
 * modifiers as enum MBS_* (emu_int.h) shifted up */
enum { MBW_INIT = 1, MBW_INVAL = 2, MBW_ARRIVE_DROP = 4, MBW_TEST = 8, MBW_TRY = 16,
       MBW_PENDING = 32, MBW_EXPECT_TX = 64, MBW_COMPLETE_TX = 128, MBW_PARITY = 256,
       MBW_NOCOMPLETE = 512, MBW_CLUSTER = 1024, MBW_WAIT = 2048 };

static const struct suffix suffixes[] = {
    {"eq", S_CMP, CMP_EQ}, {"ne", S_CMP, CMP_NE}, {"lt", S_CMP, CMP_LT}, {"le", S_CMP, CMP_LE},
    {"gt", S_CMP, CMP_GT}, {"ge", S_CMP, CMP_GE}, {"lo", S_CMP, CMP_LO}, {"ls", S_CMP, CMP_LS},
    {"hi", S_CMP, CMP_HI}, {"hs", S_CMP, CMP_HS}, {"equ", S_CMP, CMP_EQU}, {"neu", S_CMP, CMP_NEU},
    {"ltu", S_CMP, CMP_LTU}, {"leu", S_CMP, CMP_LEU}, {"gtu", S_CMP, CMP_GTU},
    {"geu", S_CMP, CMP_GEU}, {"num", S_CMP, CMP_NUM}, {"nan", S_CMP, CMP_NAN},
    {"rn", S_RND, RND_RN}, {"rz", S_RND, RND_RZ}, {"rm", S_RND, RND_RM}, {"rp", S_RND, RND_RP},
    {"rna", S_RND, RND_RNA}, {"rni", S_RND, RND_RNI}, {"rzi", S_RND, RND_RZI},
    {"rmi", S_RND, RND_RMI}, {"rpi", S_RND, RND_RPI},
    {"global", S_SPACE, SP_GLOBAL}, {"shared", S_SPACE, SP_SHARED},
    {"shared::cta", S_SPACE, SP_SHARED}, {"shared::cluster", S_SPACE, SP_DSMEM},
    {"local", S_SPACE, SP_LOCAL},
    {"param", S_SPACE, SP_PARAM}, {"const", S_SPACE, SP_CONST},
    {"ftz", S_FLAG, F_FTZ}, {"sat", S_FLAG, F_SAT}, {"approx", S_FLAG, F_APPROX},
    {"full", S_FLAG, F_FULL}, {"lo", S_FLAG, F_LO}, {"hi", S_FLAG, F_HI}, {"wide", S_FLAG, F_WIDE}, {"cc", S_FLAG, F_CC},
    {"volatile", S_FLAG, F_VOLATILE}, {"uni", S_FLAG, F_UNI}, {"shiftamt", S_FLAG, F_SHIFTAMT},
    {"clamp", S_FLAG, F_CLAMP}, {"wrap", S_FLAG, F_WRAP}, {"l", S_FLAG, F_LEFT},
    {"r", S_FLAG, F_RIGHT}, {"to", S_FLAG, F_TO}, {"nc", S_FLAG, F_NC},
    {"aligned", S_FLAG, F_ALIGNED}, {"sync", S_FLAG, F_SYNC}, {"arrive", S_FLAG, F_ARRIVE},
    {"red", S_FLAG, F_RED}, {"warp", S_FLAG, F_WARP}, {"L2::cache_hint", S_FLAG, F_HINT},
    {"add", S_SUB, SUB_ADD}, {"min", S_SUB, SUB_MIN}, {"max", S_SUB, SUB_MAX},
    {"inc", S_SUB, SUB_INC}, {"dec", S_SUB, SUB_DEC}, {"cas", S_SUB, SUB_CAS},
    {"exch", S_SUB, SUB_EXCH}, {"and", S_SUB, SUB_AND}, {"or", S_SUB, SUB_OR},
    {"xor", S_SUB, SUB_XOR}, {"popc", S_SUB, SUB_POPC}, {"all", S_SUB, SUB_ALL},
    {"any", S_SUB, SUB_ANY}, {"ballot", S_SUB, SUB_BALLOT}, {"up", S_SUB, SUB_UP},
    {"down", S_SUB, SUB_DOWN}, {"bfly", S_SUB, SUB_BFLY}, {"idx", S_SUB, SUB_IDX},
    {"v2", S_VEC, 2}, {"v4", S_VEC, 4},
    {"f4e", S_PRMT, 1}, {"b4e", S_PRMT, 2}, {"rc8", S_PRMT, 3}, {"ecl", S_PRMT, 4},
    {"ecr", S_PRMT, 5}, {"rc16", S_PRMT, 6},
    {"relaxed", S_FLAG, F_STRONG}, {"acquire", S_FLAG, F_STRONG | F_ACQ},
    {"release", S_FLAG, F_STRONG | F_REL}, {"acq_rel", S_FLAG, F_STRONG | F_ACQ | F_REL},
    {"sc", S_FLAG, F_STRONG | F_ACQ | F_REL}, {"weak", S_IGNORE, 0}, {"cta", S_FLAG, F_CTA},
    {"gpu", S_IGNORE, 0}, {"sys", S_IGNORE, 0}, {"gl", S_IGNORE, 0}, {"ca", S_IGNORE, 0},
    {"cg", S_IGNORE, 0}, {"cs", S_IGNORE, 0}, {"lu", S_IGNORE, 0}, {"cv", S_IGNORE, 0},
    {"wb", S_IGNORE, 0}, {"wt", S_IGNORE, 0}, {"L1::no_allocate", S_IGNORE, 0},
    {"L1::evict_last", S_IGNORE, 0}, {"L1::evict_first", S_IGNORE, 0},
    {"L1::evict_normal", S_IGNORE, 0}, {"L1::evict_unchanged", S_IGNORE, 0},
    {"L2::evict_first", S_IGNORE, 0}, {"L2::evict_last", S_IGNORE, 0},
    {"L2::evict_normal", S_IGNORE, 0}, {"L2::64B", S_IGNORE, 0}, {"L2::128B", S_IGNORE, 0},
    {"L2::256B", S_IGNORE, 0}, {"fractional", S_IGNORE, 0}, {"noftz", S_IGNORE, 0},
    {"relu", S_FLAG, F_RELU}, {"NaN", S_FLAG, F_NANP},
    {"async", S_CP, CPW_ASYNC}, {"commit_group", S_CP, CPW_COMMIT}, {"wait_group", S_CP, CPW_WAIT},
    {"wait_all", S_CP, CPW_WAITALL}, {"bulk", S_CP, CPW_BULK},
    {"mbarrier::complete_tx::bytes", S_CP, CPW_TX}, {"mbarrier", S_CP, CPW_MBAR},
    {"noinc", S_CP, CPW_NOINC}, {"zfill", S_CP, CPW_OTHER},
    {"init", S_MB, MBW_INIT}, {"inval", S_MB, MBW_INVAL}, {"arrive_drop", S_MB, MBW_ARRIVE_DROP},
    {"test_wait", S_MB, MBW_TEST}, {"try_wait", S_MB, MBW_TRY},
    {"pending_count", S_MB, MBW_PENDING}, {"expect_tx", S_MB, MBW_EXPECT_TX},
    {"complete_tx", S_MB, MBW_COMPLETE_TX}, {"parity", S_MB, MBW_PARITY},
    {"noComplete", S_MB, MBW_NOCOMPLETE}, {"cluster", S_MB, MBW_CLUSTER},
    {"wait", S_MB, MBW_WAIT}, {"mbarrier_init", S_IGNORE, 0},
    {"finite", S_TESTP, 1}, {"infinite", S_TESTP, 2}, {"notanumber", S_TESTP, 3},
    {"normal", S_TESTP, 4}, {"subnormal", S_TESTP, 5}, {"number", S_TESTP, 6},
};

/* mbarrier's operation and modifiers (MBW, its words) as a decoded form:
 * 0, or -1 for one not emulated (a cluster's barrier in another block's
 * shared memory, or no operation or two). */
static int emu_forms_mbarrier(struct emu_insn *in, int mbw)
{
    int arrive = (in->flags & F_ARRIVE) != 0;
    int ops = arrive + !!(mbw & MBW_INIT) + !!(mbw & MBW_INVAL) + !!(mbw & MBW_ARRIVE_DROP) +
              !!(mbw & (MBW_TEST | MBW_TRY)) + !!(mbw & MBW_PENDING) +
              !!((mbw & (MBW_EXPECT_TX | MBW_COMPLETE_TX)) && !arrive);
    if (ops != 1 || in->space == SP_DSMEM || (mbw & MBW_WAIT))
        return -1;
    in->sub = (uint8_t)(((mbw & MBW_ARRIVE_DROP) ? MBS_DROP : 0) |
                        ((mbw & MBW_NOCOMPLETE) ? MBS_NOCOMPLETE : 0) |
                        ((mbw & MBW_EXPECT_TX) ? MBS_EXPECT : 0) |
                        ((mbw & MBW_PARITY) ? MBS_PARITY : 0) |
                        ((mbw & MBW_COMPLETE_TX) ? MBS_COMPLETE : 0));
    if (mbw & MBW_TRY)
        in->aux = 1;
    in->op = (mbw & MBW_INIT) ? OP_MB_INIT : (mbw & MBW_INVAL) ? OP_MB_INVAL
           : (mbw & (MBW_TEST | MBW_TRY)) ? OP_MB_TEST : (mbw & MBW_PENDING) ? OP_MB_PENDING
           : (arrive || (mbw & MBW_ARRIVE_DROP)) ? OP_MB_ARRIVE : OP_MB_TX;
    return 0;
}

/* Splits a mnemonic into the instruction's opcode, types and flags; 0, or
 * -1 (reported: an unknown word is EMU_UNSUPPORTED naming the mnemonic). */
int emu_forms_mnemonic(struct parser *P, const char *s, int len, struct emu_insn *in)
{
    const char *dot = memchr(s, '.', (size_t)len);
    int blen = dot ? (int)(dot - s) : len;
    int op = -1;
    for (int i = 0; i < OP_COUNT; i++)
        if (emu_ops[i].name[0] && (int)strlen(emu_ops[i].name) == blen &&
            !memcmp(emu_ops[i].name, s, (size_t)blen))
            op = i;
    if (op < 0 || emu_ops[op].cls == C_GPU)
        return emu_parse_unsupported(P, s, len);
    in->op = (uint16_t)op;
    in->vec = 1;
    int ntypes = 0, cpw = 0, mbw = 0;
    const char *p = dot;
    while (p && p < s + len) {
        const char *w = p + 1;
        const char *q = w;
        while (q < s + len && *q != '.')
            q++;
        int wl = (int)(q - w);
        p = q < s + len ? q : NULL;
        /* the type words */
        int ty = 0;
        for (int i = 1; i < T_COUNT; i++) {
            const char *n = emu_type_name[i];
            if ((int)strlen(n) == wl) {
                int ok = 1;
                for (int j = 0; j < wl; j++)
                    if ((w[j] | 0x20) != (n[j] | 0x20))
                        ok = 0;
                if (ok)
                    ty = i;
            }
        }
        if (ty) {
            /* the video instructions name d's, a's and b's types: emulated
             * where all three are one */
            if (op == OP_VABSDIFF4 && ntypes >= 1) {
                if (ty != in->type)
                    return emu_parse_unsupported(P, s, len);
                continue;
            }
            if (ntypes >= 2)
                return emu_parse_unsupported(P, s, len);
            if (ntypes++ == 0)
                in->type = (uint8_t)ty;
            else
                in->type2 = (uint8_t)ty;
            continue;
        }
        const struct suffix *sf = NULL;
        for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
            if ((int)strlen(suffixes[i].w) == wl && !memcmp(suffixes[i].w, w, (size_t)wl)) {
                sf = &suffixes[i];
                /* "lo" and "hi" are mul's halves and setp's unsigned comparisons */
                if (sf->cls == S_CMP && (sf->val == CMP_LO || sf->val == CMP_HI) &&
                    op != OP_SETP && op != OP_SET && op != OP_SLCT)
                    continue;
                break;
            }
        if (!sf)
            return emu_parse_unsupported(P, s, len);
        switch (sf->cls) {
        case S_CMP: in->cmp = (uint8_t)sf->val; break;
        case S_RND: in->rnd = (uint8_t)sf->val; break;
        case S_SPACE: in->space = (uint8_t)sf->val; break;
        case S_FLAG:
            in->flags |= (uint32_t)sf->val;
            if (sf->val == F_UNI && op == OP_VOTE)
                in->sub = SUB_UNI;
            break;
        case S_SUB:
            if (op == OP_SETP || op == OP_SET)
                in->cmp2 = (uint8_t)sf->val;
            else
                in->sub = (uint8_t)sf->val;
            break;
        case S_VEC: in->vec = (uint8_t)sf->val; break;
        case S_TESTP: in->sub = (uint8_t)sf->val; break;
        case S_CP: cpw |= sf->val; break;
        case S_MB: mbw |= sf->val; break;
        case S_PRMT:
            in->flags |= F_PRMT_MODE;
            in->aux = sf->val;
            break;
        default: break;
        }
    }
    /* bar and barrier split by their second word; every bar is aligned
     * (the ISA: bar.sync is barrier.sync.aligned) */
    if (op == OP_BAR)
        in->flags |= F_ALIGNED;
    if (op == OP_BAR || op == OP_BARRIER) {
        if (in->flags & F_WARP)
            in->op = OP_WARPSYNC;
        else if (in->flags & F_RED)
            in->op = OP_BAR_RED;
        else if (in->flags & F_ARRIVE)
            in->op = OP_BAR_ARRIVE;
        else if ((in->flags & F_SYNC) || op == OP_BARRIER)
            in->op = OP_BAR_SYNC;
        else
            in->op = OP_BAR_SYNC;   /* "bar 0" is bar.sync */
    }
    if (in->op == OP_LDU)
        in->op = OP_LD;     /* a load the warp's lanes make of one address: a load */
    if ((in->op == OP_CP) != (cpw != 0))
        return emu_parse_unsupported(P, s, len);
    if (in->op == OP_CP) {
        /* cp.async's copy, commit_group, wait_group N, wait_all and
         * mbarrier.arrive[.noinc]; the bulk (TMA) copies are not emulated:
         * the one cuda::memcpy_async makes of an aligned_size_t<16> copy
         * ran here and crashed the H200's judge, a difference not yet
         * understood */
        if (!(cpw & CPW_ASYNC) || (cpw & (CPW_OTHER | CPW_BULK | CPW_TX)) || mbw ||
            !(cpw & CPW_MBAR) != !(in->flags & F_ARRIVE) || ((cpw & CPW_NOINC) && !(cpw & CPW_MBAR)))
            return emu_parse_unsupported(P, s, len);
        in->op = (cpw & CPW_MBAR) ? OP_CP_MBAR : (cpw & CPW_COMMIT) ? OP_CP_COMMIT
               : (cpw & (CPW_WAIT | CPW_WAITALL)) ? OP_CP_WAIT : OP_CP_ASYNC;
        if (cpw & CPW_WAITALL)
            in->sub = 1;    /* commit, then wait for every group */
        if (cpw & CPW_NOINC)
            in->sub = MBS_NOINC;
    } else if (cpw) {
        return emu_parse_unsupported(P, s, len);
    }
    /* barrier.cluster.arrive[.release|.relaxed][.aligned] and
     * barrier.cluster.wait[.acquire][.aligned]; a fence at cluster scope
     * orders between blocks as one at gpu scope does */
    if (op == OP_BARRIER && mbw == MBW_CLUSTER && !(in->flags & ~(F_ARRIVE | F_ALIGNED | F_STRONG |
                                                                     F_REL | F_ACQ))) {
        in->op = (in->flags & F_ARRIVE) ? OP_CBAR_ARRIVE : OP_CBAR_WAIT;
        mbw = 0;
    } else if (op == OP_BARRIER && mbw == (MBW_CLUSTER | MBW_WAIT) && !(in->flags & ~(F_ALIGNED |
                                                                           F_STRONG | F_ACQ))) {
        in->op = OP_CBAR_WAIT;
        mbw = 0;
    } else if ((op == OP_FENCE || op == OP_MEMBAR) && mbw == MBW_CLUSTER) {
        mbw = 0;
    }
    if ((in->op == OP_MBARRIER) != (mbw != 0 || (op == OP_MBARRIER && (in->flags & F_ARRIVE))))
        return emu_parse_unsupported(P, s, len);
    if (in->op == OP_MBARRIER && emu_forms_mbarrier(in, mbw))
        return emu_parse_unsupported(P, s, len);
    if (in->op == OP_MEMBAR || in->op == OP_FENCE) {
        /* membar.gl/.sys, fence.sc/.acq_rel at gpu or sys scope: release
         * and acquire between blocks; at cta scope, nothing between them */
        in->op = (in->flags & F_CTA) ? OP_NOP : OP_FENCE;
        in->flags |= F_REL | F_ACQ;
    } else if (in->op == OP_PREFETCH || in->op == OP_PMEVENT) {
        in->op = OP_NOP;
    }
    if (in->flags & F_VOLATILE)
        in->flags |= F_STRONG;
    /* another block's shared memory: loads, stores, atomics, cvta and
     * mapa; no copy, wait or test reads it */
    if (in->space == SP_DSMEM && in->op != OP_LD && in->op != OP_ST && in->op != OP_ATOM &&
        in->op != OP_RED && in->op != OP_CVTA && in->op != OP_MAPA && in->op != OP_GETCTARANK)
        return emu_parse_unsupported(P, s, len);
    return 0;
}

/* The operands each form takes are its row's shapes (emu_opcodes.def):
 * the interpreter reads operands without looking, so nothing else reaches
 * it. */
static int shape_fits(const struct emu_insn *in, const char *shape, int len)
{
    if (len != in->nops)
        return 0;
    for (int i = 0; i < len; i++) {
        int k = in->o[i].kind;
        int reg = k == OK_REG;
        switch (shape[i]) {
        case 'd': case 'r': if (!reg) return 0; break;
        case 'a': if (k != OK_ADDR) return 0; break;
        case 'V': if (k != OK_VEC) return 0; break;
        default: if (!reg && k != OK_VEC) return 0; break;
        }
    }
    return 1;
}

/* Whether IN's operands and types are a form the interpreter runs: 0, or
 * -1 (reported). */
int emu_forms_check(struct parser *P, const struct emu_insn *in, const char *mn, int mlen)
{
    const struct emu_opinfo *row = &emu_ops[in->op];
    if (!strcmp(row->shapes, "*"))
        return 0;   /* hints and the forms the decoder reads itself */
    {
        if (row->typed >= 1 && !in->type)
            return emu_parse_fail(P, "'%.*s' needs a type", mlen, mn);
        if (row->typed == 2 && !in->type2)
            return emu_parse_fail(P, "'%.*s' needs two types", mlen, mn);
        const char *sh = row->shapes;
        int fits = 0;
        for (;;) {
            const char *bar = strchr(sh, '|');
            int len = bar ? (int)(bar - sh) : (int)strlen(sh);
            if (shape_fits(in, sh, len))
                fits = 1;
            if (!bar)
                break;
            sh = bar + 1;
        }
        if (!fits)
            return emu_parse_fail(P, "'%.*s' with operands it does not take", mlen, mn);
        /* the operands' own consistency */
        if (in->vec > 1 && in->op != OP_LD && in->op != OP_ST)
            return emu_parse_unsupported(P, mn, mlen);
        for (int k = 0; k < in->nops; k++)
            if (in->o[k].kind == OK_VEC && in->op != OP_MOV && in->o[k].n != in->vec)
                return emu_parse_fail(P, "'%.*s' with a vector of %d elements", mlen, mn,
                                      in->o[k].n);
        if (in->op == OP_MOV && (in->o[0].kind == OK_VEC || in->o[1].kind == OK_VEC)) {
            int n = in->o[in->o[0].kind == OK_VEC ? 0 : 1].n;
            if ((n != 2 && n != 4) || (emu_type_size[in->type] * 8) % n ||
                emu_type_size[in->type] * 8 / n < 8)
                return emu_parse_fail(P, "'%.*s' packs %d elements", mlen, mn, n);
        }
        int two = in->aux == 2;
        if (in->op == OP_SETP && in->nops != 3 + two + (in->cmp2 != 0))
            return emu_parse_fail(P, "'%.*s' with operands it does not take", mlen, mn);
        if (in->op == OP_SET && in->nops != 3 + (in->cmp2 != 0))
            return emu_parse_fail(P, "'%.*s' with operands it does not take", mlen, mn);
        if ((in->op == OP_SETP || in->op == OP_SET) && !in->cmp)
            return emu_parse_fail(P, "'%.*s' without a comparison", mlen, mn);
        if (in->op == OP_ATOM && in->nops != 3 + (in->sub == SUB_CAS))
            return emu_parse_fail(P, "'%.*s' with operands it does not take", mlen, mn);
        /* Atomics on 32 and 64 bits, and the 16-bit compare-and-swap; on
         * floats only add and exchange, on half floats (f16, bf16, one or
         * two to the word) only add.  The rest needs a GPU. */
        if (in->op == OP_ATOM || in->op == OP_RED) {
            int sz = emu_type_size[in->type];
            char k = emu_type_kind[in->type];
            if (!in->sub || (sz != 4 && sz != 8 && !(sz == 2 && (in->sub == SUB_CAS || k == 'h'))) ||
                (k == 'f' && in->sub != SUB_ADD && in->sub != SUB_EXCH) || (k == 'h' && in->sub != SUB_ADD))
                return emu_parse_unsupported(P, mn, mlen);
        }
        if (in->op == OP_CVTA && in->space == SP_PARAM)
            return emu_parse_unsupported(P, mn, mlen);
        if (in->op == OP_SHFL && (in->nops != 5 + two || !in->sub))
            return emu_parse_fail(P, "'%.*s' with operands it does not take", mlen, mn);
        if ((in->op == OP_VOTE || in->op == OP_REDUX) && !in->sub)
            return emu_parse_fail(P, "'%.*s' without its operation", mlen, mn);
        if (in->op == OP_TESTP && !in->sub)
            return emu_parse_fail(P, "'%.*s' without its test", mlen, mn);
        if (in->op == OP_BAR_RED && !in->sub)
            return emu_parse_fail(P, "'%.*s' without its operation", mlen, mn);
        if (in->op == OP_REDUX && (emu_type_size[in->type] != 4 || emu_type_kind[in->type] == 'f' ||
                                   in->sub < SUB_ADD || in->sub > SUB_XOR || in->sub == SUB_INC ||
                                   in->sub == SUB_DEC || in->sub == SUB_CAS || in->sub == SUB_EXCH))
            return emu_parse_unsupported(P, mn, mlen);
        if (emu_type_kind[in->type] == 'h' && row->cls != C_ALU && in->op != OP_LD &&
            in->op != OP_ST && in->op != OP_ATOM && in->op != OP_RED)
            return emu_parse_unsupported(P, mn, mlen);
        return 0;
    }
}
