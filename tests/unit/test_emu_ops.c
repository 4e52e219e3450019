/* test_emu_ops.c — the PTX emulator held to the PTX ISA, one TAP line per
 * instruction form of the corpus (tests/emu/forms.sh): each form's tiny
 * kernel (test_emu_ops_gen.c) runs on the emulator over seeded operands
 * and edge cases, and every thread's results must equal the ISA's
 * (test_emu_ops_table.c) bit for bit, approximate forms within their
 * stated error.  Where the ISA leaves the bits open (a NaN's payload,
 * division by zero, bit-field operands past 255) the references pin the
 * H100's, as tests/device/emu-diff.sh found them.
 *
 *   test_emu_ops                 the TAP test (EMU_OPS_SEED=N draws others)
 *   test_emu_ops --list          the forms the table covers, one a line
 *   test_emu_ops --write DIR     every row's PTX, operands and reference
 *                                results, for the GPU (tests/device/emu-diff.cu)
 *   test_emu_ops --compare DIR   the emulator on DIR's PTX and operands
 *                                against the GPU's results there (and the
 *                                references against the GPU), one line each
 *                                difference and "emu-diff: N forms, ..."
 */
#include "test_emu_ops.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu/emu.h"

enum { PTX_MAX = 16384, SHOW_MAX = 4, OPS_ROWS_MAX = 512 };
#define OPS_WORDS ((size_t)OPS_THREADS * OPS_SLOTS)

static uint64_t default_seed(void)
{
    const char *s = getenv("EMU_OPS_SEED");
    return s && *s ? strtoull(s, NULL, 0) : 20261126;
}

/* ---- the emulator side --------------------------------------------------- */

struct runner {
    struct emu *e;
    uint64_t *in, *out;   /* mapped once, OPS_WORDS each */
};

static int runner_open(struct runner *r)
{
    memset(r, 0, sizeof *r);
    r->in = aligned_alloc(256, OPS_WORDS * 8);
    r->out = aligned_alloc(256, OPS_WORDS * 8);
    if (!r->in || !r->out) return -1;
    struct emu_config cfg = {.sm_count = 132, .warps_per_sm = 64, .clock_ghz = 1.98, .seed = 1,
                             .hazards = 1, .budget = 50u * 1000 * 1000};
    r->e = emu_new(&cfg);
    if (!r->e || emu_mem_map(r->e, r->in, OPS_WORDS * 8, "in") ||
        emu_mem_map(r->e, r->out, OPS_WORDS * 8, "out"))
        return -1;
    return 0;
}

static void runner_close(struct runner *r)
{
    if (r->e) emu_free(r->e);
    free(r->in);
    free(r->out);
}

/* Runs PTX over IN (copied) with PARAM into r->out: EMU_OK, or how it
 * ended with why in WHY (the emulator's status and message). */
static enum emu_status runner_run(struct runner *r, const char *ptx, const uint64_t *in, uint64_t param, char *why,
                      size_t whysize)
{
    memcpy(r->in, in, OPS_WORDS * 8);
    memset(r->out, 0, OPS_WORDS * 8);
    static const char *const names[] = {"ok", "fault", "hazard", "unsupported", "limit", "parse", "nomem"};
    struct emu_error err;
    struct emu_module *m = NULL;
    memset(&err, 0, sizeof err);
    enum emu_status st = emu_module_load(r->e, ptx, strlen(ptx), &m, &err);
    if (st == EMU_OK) {
        const struct emu_kernel *k = emu_module_kernel(m, "t");
        uint64_t pin = (uint64_t)(uintptr_t)r->in, pout = (uint64_t)(uintptr_t)r->out;
        void *args[3] = {&pin, &pout, &param};
        struct emu_launch l = {{OPS_THREADS / OPS_BLOCK, 1, 1}, {OPS_BLOCK, 1, 1}, 0, args};
        if (!k) {
            snprintf(why, whysize, "the module has no kernel t");
            emu_module_unload(m);
            return EMU_PARSE;
        }
        st = emu_launch(r->e, k, &l, &err);
        emu_module_unload(m);
    }
    if (st != EMU_OK)
        snprintf(why, whysize, "%s: %s%s%s (line %d)", (unsigned)st < 7 ? names[st] : "?", err.message,
                 err.what[0] ? " / " : "", err.what, err.line);
    return st;
}

/* ---- comparing ------------------------------------------------------------ */

/* Compares GOT with WANT for row R, printing up to SHOW_MAX differences
 * after PREFIX; the number of threads that differ. */
static int compare(const struct ops_row *r, const uint64_t *in, const uint64_t *want, const uint64_t *got,
                   const char *prefix, const char *wname, const char *gname)
{
    int bad = 0;
    for (int t = 0; t < OPS_THREADS; t++) {
        int differs = 0;
        for (int s = 0; s < OPS_SLOTS; s++) {
            size_t i = (size_t)t * OPS_SLOTS + s;
            if (ops_equal(r, s, want[i], got[i])) continue;
            if (!differs && bad < SHOW_MAX)
                printf("%sthread %d slot %d: in %#llx %#llx %#llx %#llx: %s %#llx, %s %#llx\n", prefix, t, s,
                       (unsigned long long)in[t * OPS_SLOTS], (unsigned long long)in[t * OPS_SLOTS + 1],
                       (unsigned long long)in[t * OPS_SLOTS + 2], (unsigned long long)in[t * OPS_SLOTS + 3],
                       wname, (unsigned long long)want[i], gname, (unsigned long long)got[i]);
            differs = 1;
        }
        bad += differs;
    }
    return bad;
}

static void reference(const struct ops_row *r, const struct ops_ctx *c, uint64_t *want)
{
    memset(want, 0, OPS_WORDS * 8);
    for (int t = 0; r->ref && t < OPS_THREADS; t++) r->ref(c, t, want + (size_t)t * OPS_SLOTS);
}

/* ---- the TAP test ----------------------------------------------------------- */

static int tap(void)
{
    uint64_t seed = default_seed();
    static uint64_t in[OPS_WORDS], want[OPS_WORDS];
    static char ptx[PTX_MAX];
    struct runner run;
    int failed = 0;
    if (ops_count() > OPS_ROWS_MAX) {
        printf("not ok - the table has more rows than OPS_ROWS_MAX\n");
        return 1;
    }
    printf("# seed %llu (EMU_OPS_SEED), %d rows, %d threads each\n", (unsigned long long)seed, ops_count(),
           OPS_THREADS);
    if (runner_open(&run)) {
        printf("not ok - emulator and buffers set up\n");
        runner_close(&run);
        return 1;
    }
    for (int i = 0; i < ops_count(); i++) {
        const struct ops_row *r = ops_row(i);
        struct ops_ctx c;
        char name[160], why[700];
        ops_row_name(r, name, sizeof name);
        ops_draw(r, seed, in, &c);
        if (ops_ptx(r, &c, ptx, sizeof ptx)) {
            printf("#   the row's PTX does not fit or names an unknown placeholder\nnot ok - %s\n", name);
            failed = 1;
            continue;
        }
        enum emu_status st = runner_run(&run, ptx, in, c.param, why, sizeof why);
        if (r->gen & OPS_REFUSED) {
            int refused = st == EMU_UNSUPPORTED && strstr(why, "needs a GPU");
            if (!refused) printf("#   ran (%s), where it must be refused as needing a GPU\n", why);
            printf("%s - %s is refused: needs a GPU\n", refused ? "ok" : "not ok", name);
            failed |= !refused;
            continue;
        }
        if (st == EMU_UNSUPPORTED && ops_is_extra(i)) {
            printf("ok - %s # SKIP not emulated, outside the corpus\n", name);
            continue;
        }
        if (st != EMU_OK) {
            printf("#   %s\nnot ok - %s\n", why, name);
            failed = 1;
            continue;
        }
        reference(r, &c, want);
        int bad = compare(r, in, want, run.out, "#   ", "ISA", "emulator");
        if (bad) printf("#   %d of %d threads differ\n", bad, OPS_THREADS);
        printf("%s - %s\n", bad ? "not ok" : "ok", name);
        failed |= bad != 0;
    }
    runner_close(&run);
    return failed;
}

/* ---- printf ------------------------------------------------------------------ */

/* call.uni to vprintf as nvcc writes it: the format in .global, the
 * arguments packed in the local depot at their own alignment. */
static const char printf_ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".extern .func (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
    "\t.param .b64 vprintf_param_1\n)\n;\n"
    /* "t=%d x=%d f=%.2f u=%llx\n" */
    ".global .align 1 .b8 $str[27] = {116, 61, 37, 100, 32, 120, 61, 37, 100, 32, 102, 61, 37, 46, 50, 102, 32, "
    "117, 61, 37, 108, 108, 120, 10, 0};\n"
    ".visible .entry p(.param .u32 p_x)\n{\n"
    "\t.local .align 8 .b8 __local_depot0[24];\n\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n"
    "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<8>;\n\t.reg .f64 %fd<2>;\n"
    "\tmov.u64 %SPL, __local_depot0;\n\tcvta.local.u64 %SP, %SPL;\n"
    "\tld.param.u32 %r1, [p_x];\n\tmov.u32 %r2, %tid.x;\n"
    "\tadd.u64 %rd1, %SP, 0;\n\tadd.u64 %rd2, %SPL, 0;\n"
    "\tst.local.v2.u32 [%rd2], {%r2, %r1};\n\tmov.f64 %fd1, 0d3FF8000000000000;\n"
    "\tst.local.f64 [%rd2+8], %fd1;\n\tmov.u64 %rd3, 0x1234abcd5678;\n\tst.local.u64 [%rd2+16], %rd3;\n"
    "\tmov.u64 %rd4, $str;\n\tcvta.global.u64 %rd5, %rd4;\n"
    "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0+0], %rd5;\n\t.param .b64 param1;\n"
    "\tst.param.b64 [param1+0], %rd1;\n\t.param .b32 retval0;\n"
    "\tcall.uni (retval0),\n\tvprintf,\n\t(\n\tparam0,\n\tparam1\n\t);\n"
    "\tld.param.b32 %r3, [retval0+0];\n\t}\n\tret;\n}\n";

struct printed {
    char text[256];
    size_t len;
};

static void printed_add(void *ctx, const char *text, size_t len)
{
    struct printed *p = ctx;
    size_t room = sizeof p->text - 1 - p->len;
    if (len > room) len = room;
    memcpy(p->text + p->len, text, len);
    p->len += len;
    p->text[p->len] = 0;
}

static int tap_printf(void)
{
    struct printed out = {"", 0};
    struct emu_config cfg = {.sm_count = 132, .warps_per_sm = 64, .clock_ghz = 1.98, .seed = 1,
                             .hazards = 1, .budget = 1000000, .print = printed_add, .print_ctx = &out};
    struct emu *e = emu_new(&cfg);
    struct emu_module *m = NULL;
    struct emu_error err;
    const char *want = "t=0 x=-7 f=1.50 u=1234abcd5678\n";
    int x = -7, ok = 0;
    void *args[1] = {&x};
    struct emu_launch l = {{1, 1, 1}, {1, 1, 1}, 0, args};
    memset(&err, 0, sizeof err);
    if (e && emu_module_load(e, printf_ptx, sizeof printf_ptx - 1, &m, &err) == EMU_OK) {
        const struct emu_kernel *k = emu_module_kernel(m, "p");
        if (k && emu_launch(e, k, &l, &err) == EMU_OK) ok = !strcmp(out.text, want);
        emu_module_unload(m);
    }
    if (!ok) printf("#   printed \"%s\", not \"%s\" (%s)\n", out.text, want, err.message);
    printf("%s - call.uni (vprintf)\n", ok ? "ok" : "not ok");
    if (e) emu_free(e);
    return !ok;
}

/* ---- files for the GPU differential -------------------------------------------- */

static int write_file(const char *dir, int i, const char *ext, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%03d.%s", dir, i, ext);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(p, 1, n, f);
    return (fclose(f) || w != n) ? -1 : 0;
}

/* Reads exactly N bytes of DIR/NNN.EXT: 0, 1 when the file is absent, -1
 * when it is short or unreadable. */
static int read_file(const char *dir, int i, const char *ext, void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%03d.%s", dir, i, ext);
    FILE *f = fopen(path, "rb");
    if (!f) return errno == ENOENT ? 1 : -1;
    size_t got = fread(p, 1, n, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    return got == n && !extra ? 0 : -1;
}

/* Writes rows FIRST to LAST (-1: to the end) under DIR: 0, or 1 with why
 * on stderr. */
static int write_dir(const char *dir, int first, int last)
{
    uint64_t seed = default_seed();
    static uint64_t in[OPS_WORDS], want[OPS_WORDS];
    static char ptx[PTX_MAX];
    char path[4096];
    if (mkdir(dir, 0777) && errno != EEXIST) {
        fprintf(stderr, "test_emu_ops: cannot make %s: %s\n", dir, strerror(errno));
        return 1;
    }
    snprintf(path, sizeof path, "%s/rows.tsv", dir);
    FILE *list = fopen(path, "w");
    if (!list) {
        fprintf(stderr, "test_emu_ops: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(list, "# threads %d block %d slots %d seed %llu\n", OPS_THREADS, OPS_BLOCK, OPS_SLOTS,
            (unsigned long long)seed);
    if (last < 0 || last >= ops_count()) last = ops_count() - 1;
    for (int i = first; i <= last; i++) {
        const struct ops_row *r = ops_row(i);
        struct ops_ctx c;
        char name[160];
        ops_row_name(r, name, sizeof name);
        ops_draw(r, seed, in, &c);
        reference(r, &c, want);
        if (ops_ptx(r, &c, ptx, sizeof ptx) || write_file(dir, i, "ptx", ptx, strlen(ptx)) ||
            write_file(dir, i, "in", in, sizeof in) || write_file(dir, i, "param", &c.param, 8) ||
            write_file(dir, i, "ref", want, sizeof want)) {
            fprintf(stderr, "test_emu_ops: cannot write row %d (%s) under %s\n", i, name, dir);
            fclose(list);
            return 1;
        }
        fprintf(list, "%03d\t%s\n", i, name);
    }
    if (fclose(list)) return 1;
    printf("test_emu_ops: %d rows written to %s (seed %llu)\n", last - first + 1, dir, (unsigned long long)seed);
    return 0;
}

struct diff_counts {
    int forms, equal, differ, nogpu, refbad, refused;
    unsigned char row_differs[OPS_ROWS_MAX];   /* the emulator against the GPU */
};

/* The emulator on DIR's own PTX and operands against DIR/NNN.gpu, and the
 * references against the GPU too, so a reference that misreads the ISA
 * shows as such and not as an emulator bug; one line per difference.
 * Rows FIRST to LAST (-1: to the end). */
static int compare_dir(const char *dir, struct diff_counts *n, int first, int last)
{
    static uint64_t in[OPS_WORDS], want[OPS_WORDS], gpu[OPS_WORDS];
    static char ptx[PTX_MAX];
    struct runner run;
    memset(n, 0, sizeof *n);
    if (runner_open(&run)) {
        fprintf(stderr, "test_emu_ops: cannot set up the emulator\n");
        runner_close(&run);
        return -1;
    }
    if (last < 0 || last >= ops_count()) last = ops_count() - 1;
    for (int i = first; i <= last; i++) {
        const struct ops_row *r = ops_row(i);
        char name[160], why[700], prefix[200], path[4096];
        uint64_t param = 0;
        ops_row_name(r, name, sizeof name);
        n->row_differs[i] = 1;
        if (read_file(dir, i, "in", in, sizeof in) || read_file(dir, i, "param", &param, 8) ||
            read_file(dir, i, "ref", want, sizeof want)) {
            printf("%s: row %d's files are missing (run --write %s first)\n", name, i, dir);
            n->differ++;
            continue;
        }
        snprintf(path, sizeof path, "%s/%03d.ptx", dir, i);
        FILE *f = fopen(path, "rb");
        size_t len = f ? fread(ptx, 1, sizeof ptx - 1, f) : 0;
        if (f) fclose(f);
        ptx[len] = 0;
        if (!len) {
            printf("%s: %s is missing or empty\n", name, path);
            n->differ++;
            continue;
        }
        if (r->gen & OPS_REFUSED) {
            n->refused++;
            continue;
        }
        n->forms++;
        int g = read_file(dir, i, "gpu", gpu, sizeof gpu);
        if (g) {
            printf("%s: no GPU result%s\n", name, g > 0 ? "" : " (short file)");
            n->nogpu++;
            continue;
        }
        snprintf(prefix, sizeof prefix, "%s: reference: ", name);
        n->refbad += compare(r, in, gpu, want, prefix, "gpu", "ref") != 0;
        if (runner_run(&run, ptx, in, param, why, sizeof why) != EMU_OK) {
            printf("%s: emulator: %s\n", name, why);
            n->differ++;
            continue;
        }
        snprintf(prefix, sizeof prefix, "%s: ", name);
        int bad = compare(r, in, gpu, run.out, prefix, "gpu", "emu");
        if (bad) {
            printf("%s: %d of %d threads differ\n", name, bad, OPS_THREADS);
            n->differ++;
            if (write_file(dir, i, "emu", run.out, OPS_WORDS * 8)) printf("%s: cannot keep the result\n", name);
        } else {
            n->equal++;
            n->row_differs[i] = 0;
        }
    }
    runner_close(&run);
    printf("ref-diff: %d forms, %d references differ from the GPU\n", n->forms, n->refbad);
    printf("emu-diff: %d forms, %d equal, %d differ%s; %d approximations refused, not compared\n", n->forms,
           n->equal, n->differ + n->nogpu, n->nogpu ? " (some without a GPU result)" : "", n->refused);
    return 0;
}

/* The differential's own test, without a GPU: the references stand in for
 * the GPU's results with one bit of one row flipped, and the comparison
 * must name that row, on the references' side and on the emulator's, and
 * find the next row equal (rows the emulator runs right). */
static int tap_differential(void)
{
    static uint64_t word[OPS_WORDS];
    char dir[] = "/tmp/test_emu_ops.XXXXXX", path[4096];
    struct diff_counts n;
    const int flip = 0, thread = 5;
    int ok = 0;
    if (!mkdtemp(dir)) {
        printf("#   mkdtemp: %s\nnot ok - differential: a GPU result one bit off is reported\n",
               strerror(errno));
        return 1;
    }
    if (write_dir(dir, flip, flip + 1) == 0) {
        int copied = 1;
        for (int i = flip; i <= flip + 1 && copied; i++) {
            copied = read_file(dir, i, "ref", word, sizeof word) == 0;
            if (i == flip) word[(size_t)thread * OPS_SLOTS] ^= 1;
            copied = copied && write_file(dir, i, "gpu", word, sizeof word) == 0;
        }
        ok = copied && compare_dir(dir, &n, flip, flip + 1) == 0 && n.forms == 2 && n.refbad == 1 &&
             n.row_differs[flip] && !n.row_differs[flip + 1];
    }
    static const char *const ext[] = {"ptx", "in", "param", "ref", "gpu", "emu"};
    for (int i = flip; i <= flip + 1; i++)
        for (size_t e = 0; e < sizeof ext / sizeof ext[0]; e++) {
            snprintf(path, sizeof path, "%s/%03d.%s", dir, i, ext[e]);
            unlink(path);
        }
    snprintf(path, sizeof path, "%s/rows.tsv", dir);
    unlink(path);
    rmdir(dir);
    printf("%s - differential: a GPU result one bit off is reported\n", ok ? "ok" : "not ok");
    return !ok;
}

static int list(void)
{
    for (int i = 0; i < ops_count(); i++)
        if (i == 0 || strcmp(ops_row(i)->form, ops_row(i - 1)->form)) {
            int seen = 0;
            for (int j = 0; j < i && !seen; j++) seen = !strcmp(ops_row(j)->form, ops_row(i)->form);
            if (!seen) printf("%s\n", ops_row(i)->form);
        }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 1) return tap() | tap_printf() | tap_differential();
    if (argc == 2 && !strcmp(argv[1], "--list")) return list();
    if (argc == 3 && !strcmp(argv[1], "--write")) return write_dir(argv[2], 0, -1);
    if (argc == 3 && !strcmp(argv[1], "--compare")) {
        struct diff_counts n;
        if (compare_dir(argv[2], &n, 0, -1)) return 2;
        return n.differ || n.nogpu ? 1 : 0;
    }
    fprintf(stderr, "usage: test_emu_ops [--list | --write DIR | --compare DIR]\n");
    return 2;
}
