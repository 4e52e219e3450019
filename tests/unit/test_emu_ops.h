/* test_emu_ops.h — one tiny PTX kernel per instruction form, the operands it
 * runs on and the PTX ISA's answer for each thread: shared by the unit test
 * (emulator against the ISA, tests/unit/test_emu_ops.c) and the GPU
 * differential (the same PTX text run by the H100, tests/device/emu-diff.sh).
 *
 * A kernel t(in, out, p) runs OPS_THREADS threads in blocks of OPS_BLOCK.
 * Thread i reads its operands from in[4i .. 4i+4) (8 bytes each, the low
 * bytes hold narrower types) and writes its results to out[4i .. 4i+4),
 * which start as zero; p is an 8-byte parameter the same for every thread. */
#ifndef TEST_EMU_OPS_H
#define TEST_EMU_OPS_H

#include <stddef.h>
#include <stdint.h>

enum { OPS_THREADS = 512, OPS_BLOCK = 128, OPS_SLOTS = 4, OPS_CONST_BYTES = 16 };

/* What every reference sees: all threads' operands, the parameter and the
 * module's .const bytes (drawn per run, written into the PTX). */
struct ops_ctx {
    const uint64_t *in;   /* OPS_THREADS * OPS_SLOTS */
    uint64_t param;
    uint8_t cst[OPS_CONST_BYTES];
};

/* The PTX ISA's results of thread T (the slots it leaves alone stay 0). */
typedef void ops_ref_fn(const struct ops_ctx *c, int t, uint64_t out[OPS_SLOTS]);

/* How operands are drawn, per input k (bits k, 4+k, 8+k, 12+k). */
enum {
    OPS_SMALL = 1u << 0,    /* shift amounts, lane offsets, positions: mostly 0..70 */
    OPS_UNI = 1u << 4,      /* the same in every lane of a warp */
    OPS_MASK = 1u << 8,     /* a warp's member mask: all lanes or a random set, uniform */
    OPS_NONZERO = 1u << 12, /* never 0 (a divisor whose zero the ISA leaves open) */
    OPS_EQ01 = 1u << 16,    /* input 1 equals input 0 in half the threads (cas, setp.eq) */
    OPS_REFUSED = 1u << 17, /* an approximation: the emulator must refuse it (needs a GPU); no ref */
};
#define OPS_IN(flag, k) ((unsigned)(flag) << (k))

/* One row: FORM as forms.sh writes it; VARIANT tells rows of one form apart
 * ("" for the plain one); SIG the register types "outputs:inputs", one
 * letter each (p pred, h 16-bit, r 32-bit, R 64-bit, f f32, F f64); BODY
 * the instruction(s), NULL for "FORM d0, ..., a0, ...;"; REF the ISA's
 * results, bit for bit (NULL for an OPS_REFUSED row). */
struct ops_row {
    const char *form, *variant, *sig, *body;
    unsigned gen;
    ops_ref_fn *ref;
};

/* The rows of the corpus's forms (test_emu_ops_table.c), then rows of
 * forms outside it that student code is likely to reach (carry chains,
 * bit fields, funnel shifts, more comparisons and conversions:
 * test_emu_ops_extra.c); an extra form the emulator does not know is a
 * skip, one it knows must be right. */
extern const struct ops_row ops_corpus_rows[], ops_extra_rows[];
extern const int ops_corpus_nrows, ops_extra_nrows;
/* Rows of the forms emulated since the opcodes became rows: half floats,
 * mad24, dp4a/dp2a, ldu, isspacep (test_emu_ops_half.c); extras too. */
extern const struct ops_row ops_half_rows[];
extern const int ops_half_nrows;

/* Row I of the tables in turn, how many there are, and whether row I is
 * an extra. */
const struct ops_row *ops_row(int i);
int ops_count(void);
int ops_is_extra(int i);

/* The row's name for a TAP line or a report: "form" or "form (variant)". */
void ops_row_name(const struct ops_row *r, char *buf, size_t size);

/* Draws every thread's operands for row R from SEED into IN, and the run's
 * parameter and .const bytes into C (C->in is set to IN). */
void ops_draw(const struct ops_row *r, uint64_t seed, uint64_t *in, struct ops_ctx *c);

/* Writes row R's module into BUF (SIZE bytes): 0, or -1 when it does not
 * fit or the body names an unknown placeholder. */
int ops_ptx(const struct ops_row *r, const struct ops_ctx *c, char *buf, size_t size);

/* Whether GOT matches WANT for row R in slot S: bit for bit (NaNs too:
 * the references write the H100's). */
int ops_equal(const struct ops_row *r, int slot, uint64_t want, uint64_t got);

#endif
