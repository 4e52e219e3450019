/* emu_rt_ptx.c — one PTX file of the judge's own kernels, embedded in a CPU
 * judge at build time and handed to the emulating runtime before main.  The
 * Makefile compiles this file once per PTX file, EMU_PTX_PATH naming it as a
 * string literal (`nvcc -ptx` of a judge source, with the flags of the
 * judge's objects, so that every kernel their stubs register by name is
 * there). */
#include <stddef.h>

#include "emu/emu_rt.h"

#ifndef EMU_PTX_PATH
#error "EMU_PTX_PATH must name the PTX file to embed"
#endif

/* The text and a NUL after it; the labels are local to this object, so
 * every embedded file can use the same ones. */
__asm__(".section .rodata\n"
        ".balign 16\n"
        "emu_ptx_text:\n"
        ".incbin \"" EMU_PTX_PATH "\"\n"
        "emu_ptx_end:\n"
        ".byte 0\n"
        ".previous\n");

extern const char emu_ptx_text[] __asm__("emu_ptx_text");
extern const char emu_ptx_end[] __asm__("emu_ptx_end");

__attribute__((constructor)) static void emu_ptx_register(void)
{
    emu_rt_add_ptx(emu_ptx_text, (size_t)(emu_ptx_end - emu_ptx_text));
}
