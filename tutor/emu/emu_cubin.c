/* emu_cubin.c — what the PTX cannot say about a kernel: the registers
 * ptxas gave each thread, read from the cubin nvcc wrote beside the PTX.
 * A GPU refuses a launch whose block needs more registers than an SM has
 * (cudaErrorLaunchOutOfResources); the emulator, which runs PTX's
 * unlimited virtual registers, refuses the same launch only if it knows
 * the count.  The cubin is an ELF64 file; each kernel's count is an
 * EIATTR_REGCOUNT attribute of the .nv.info section, keyed by the
 * kernel's symbol. */
#include <stdint.h>
#include <string.h>

#include "emu/emu.h"

enum {
    EIFMT_NVAL = 1, EIFMT_BVAL = 2, EIFMT_HVAL = 3, EIFMT_SVAL = 4,
    EIATTR_REGCOUNT = 0x2f,
    SHT_SYMTAB = 2,
};

/* Little-endian reads within [0, len); 0 past the end. */
static uint64_t rd(const unsigned char *p, size_t len, size_t at, int bytes)
{
    uint64_t v = 0;
    if (at > len || (size_t)bytes > len - at)
        return 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[at + (size_t)i];
    return v;
}

struct shdr {
    uint64_t name, type, off, size, link, entsize;
};

static struct shdr section(const unsigned char *p, size_t len, uint64_t shoff, uint64_t shentsize, uint64_t i)
{
    size_t at = (size_t)(shoff + i * shentsize);
    struct shdr s = {rd(p, len, at, 4), rd(p, len, at + 4, 4), rd(p, len, at + 24, 8), rd(p, len, at + 32, 8),
                     rd(p, len, at + 40, 4), rd(p, len, at + 56, 8)};
    return s;
}

/* Whether the NUL-terminated string at OFF of P equals NAME, all within LEN. */
static int name_is(const unsigned char *p, size_t len, uint64_t off, const char *name)
{
    size_t n = strlen(name);
    return off < len && n < len - off && !memcmp(p + off, name, n) && p[off + n] == '\0';
}

int emu_cubin_regs(const void *cubin, size_t len, const char *kernel)
{
    const unsigned char *p = cubin;
    if (len < 64 || memcmp(p, "\177ELF", 4) || p[4] != 2 || p[5] != 1)
        return -1;
    uint64_t shoff = rd(p, len, 0x28, 8), shentsize = rd(p, len, 0x3a, 2), shnum = rd(p, len, 0x3c, 2),
             shstrndx = rd(p, len, 0x3e, 2);
    if (shentsize < 64 || shnum == 0 || shnum > 65535 || shstrndx >= shnum || shoff > len ||
        shnum * shentsize > len - shoff)
        return -1;
    struct shdr names = section(p, len, shoff, shentsize, shstrndx), symtab = {0}, info = {0};
    int have_symtab = 0, have_info = 0;
    for (uint64_t i = 0; i < shnum; i++) {
        struct shdr s = section(p, len, shoff, shentsize, i);
        if (s.type == SHT_SYMTAB && !have_symtab) {
            symtab = s;
            have_symtab = 1;
        } else if (names.off + s.name < len && name_is(p, len, names.off + s.name, ".nv.info")) {
            info = s;
            have_info = 1;
        }
    }
    if (!have_symtab || !have_info || symtab.entsize < 24 || symtab.link >= shnum || symtab.off > len ||
        symtab.size > len - symtab.off || info.off > len || info.size > len - info.off)
        return -1;
    struct shdr strs = section(p, len, shoff, shentsize, symtab.link);
    /* the kernel's symbol index */
    uint64_t want = 0;
    for (uint64_t i = 1; i < symtab.size / symtab.entsize && !want; i++)
        if (name_is(p, len, strs.off + rd(p, len, (size_t)(symtab.off + i * symtab.entsize), 4), kernel))
            want = i;
    if (!want)
        return -1;
    /* .nv.info: records of a format byte, an attribute byte, then by format
     * nothing, a byte pair, or a 16-bit size and that many bytes */
    for (size_t at = (size_t)info.off, end = (size_t)(info.off + info.size); at + 4 <= end;) {
        unsigned fmt = p[at], attr = p[at + 1];
        if (fmt == EIFMT_SVAL) {
            size_t size = (size_t)rd(p, len, at + 2, 2);
            if (attr == EIATTR_REGCOUNT && size >= 8 && rd(p, len, at + 4, 4) == want)
                return (int)rd(p, len, at + 8, 4);
            at += 4 + size;
        } else if (fmt == EIFMT_NVAL || fmt == EIFMT_BVAL || fmt == EIFMT_HVAL) {
            at += fmt == EIFMT_NVAL ? 2 : 4;
        } else {
            return -1;
        }
    }
    return -1;
}

unsigned emu_regs_max_threads(int regs)
{
    enum { SM_REGS = 65536, WARP_UNIT = 256, MAX_REGS = 255, MAX_THREADS = 1024 };
    if (regs <= 0)
        return MAX_THREADS;
    if (regs > MAX_REGS)
        return 0;
    unsigned per_warp = ((unsigned)regs * 32 + WARP_UNIT - 1) / WARP_UNIT * WARP_UNIT;
    unsigned threads = SM_REGS / per_warp * 32;
    return threads < MAX_THREADS ? threads : MAX_THREADS;
}

int emu_regs_fit(int regs, unsigned threads)
{
    return threads <= emu_regs_max_threads(regs);
}
