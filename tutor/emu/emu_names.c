/* emu_names.c — what every part of the emulator reads by name: the PTX
 * types' sizes, kinds and names (emu_int.h's X-macro table), the opcodes'
 * rows (emu_opcodes.def), and the error record of a load or a launch. */
#include <stdarg.h>
#include <stdio.h>

#include "emu/emu_int.h"

const uint8_t emu_type_size[T_COUNT] = {
#define X(n, sz, k) sz,
    EMU_TYPES(X)
#undef X
};
const char emu_type_kind[T_COUNT] = {
#define X(n, sz, k) k,
    EMU_TYPES(X)
#undef X
};
const char *const emu_type_name[T_COUNT] = {
#define X(n, sz, k) #n,
    EMU_TYPES(X)
#undef X
};
const struct emu_opinfo emu_ops[OP_COUNT] = {
#define OP(n, mn, shapes, typed, cls, dests) {mn, shapes, typed, cls, dests},
#include "emu/emu_opcodes.def"
#undef OP
};

/* Replaces what is not printable ASCII: the PTX's strings and names reach
 * these texts, and a kernel's inline asm can write module-level text (a
 * .file name) with any bytes a terminal or a report would act on. */
static void printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            *s = '?';
}

/* Records the first error of a load or a launch in ERR, in printable
 * ASCII. */
void emu_error_set(struct emu_error *err, enum emu_status st, const char *what, int line,
                   const char *file, const char *fmt, ...)
{
    if (!err || err->status != EMU_OK)
        return;
    err->status = st;
    snprintf(err->what, sizeof err->what, "%s", what ? what : "");
    err->line = line;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    printable(err->what);
    printable(err->file);
    printable(err->message);
}
