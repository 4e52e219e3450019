/* emu_fixture.h — an emulator with one module loaded, for the emulator's
 * unit tests (test_emu.c, test_emu_pack.c). */
#ifndef EMU_FIXTURE_H
#define EMU_FIXTURE_H

#include <string.h>

#include "emu/emu.h"

struct fx {
    struct emu *e;
    struct emu_module *m;
    struct emu_error err;
};

/* A fresh emulator configured by CFG in *f, with PTX loaded into f->m;
 * returns what the load says.  fx_done either way. */
static inline enum emu_status fx_load(struct fx *f, const char *ptx, const struct emu_config *cfg)
{
    memset(f, 0, sizeof *f);
    f->e = emu_new(cfg);
    if (!f->e)
        return EMU_NOMEM;
    return emu_module_load(f->e, ptx, strlen(ptx), &f->m, &f->err);
}

static inline void fx_done(struct fx *f)
{
    emu_module_unload(f->m);
    emu_free(f->e);
}

#endif
