/* emu_seal.h — the system-call filter a CPU judge puts on itself once it
 * has read what it needs (the student's PTX and cubin) and started the
 * runner: from then on the student's code runs in the process (on the
 * emulator), and if it ever got past the emulator's checks it could do no
 * more than the filter lets the judge do.  Linked into the CPU judges
 * (libseccomp); tests/unit/test_emu_seal.c attacks it. */
#ifndef EMU_SEAL_H
#define EMU_SEAL_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the filter on the calling process and every thread it starts,
 * for good.  Allowed: reading and writing the descriptors it has (files,
 * pipes, the runner's socket), memory that is never executable, threads,
 * clocks, sleeping, its own resource limits read, renames (its report is
 * a file renamed into place), signals to itself and SIGKILL to RUNNER
 * (its runner's pid; 0: none), waiting for a child.  Opening a file fails
 * (EACCES: libraries that look at /sys cope); exec, sockets and
 * connections, new processes, tracing, executable memory and signals to
 * anyone else end the process (SIGSYS); anything else fails with EPERM.
 * 0, or -1 with WHY set (nothing installed). */
int emu_seal(pid_t runner, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
