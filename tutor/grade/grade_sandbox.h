/* grade_sandbox.h — the sandbox every build and run of a grading goes
 * through, as data and as an argv built in C: no generated script, no
 * shell quoting.  A grading chooses a mode once (grade_probe.c) and saves
 * it as OUT/.grader/sandbox.json; each sandboxed program is then started
 * as `cudatutor grade --sandbox-exec SPEC [--build WB] -- COMMAND...`,
 * which sets the limits, drops to nobody where the mode says so, and execs
 * bubblewrap (or, with no sandbox, the command with a clean environment).
 * `cudatutor check --wrap` takes that same line for the harness, word for
 * word (--wrap-arg).
 *
 * With bubblewrap a run sees a read-only system, a build only the view of
 * it a compiler needs (grade_sandbox_build_view); either gets a fresh /dev with
 * only the GPU's nodes added, its own /proc, PID, IPC, UTS and network
 * namespaces (no network), a private /tmp and /dev/shm, the hidden paths
 * (the grader's home, the pristine workbook, the output folder, the
 * sandbox's own folder, the submissions, /run, /var/tmp, --hide) replaced
 * by empty read-only places (the tools it needs from them bound back
 * read-only), the current folder as its only writable place (a run's GPU lock files too), and a clean
 * environment.  docs/instructor-guide.md section 8 is the manual. */
#ifndef GRADE_SANDBOX_H
#define GRADE_SANDBOX_H

#include <stddef.h>

#define GRADE_SANDBOX_SCHEMA 1
/* The user the sandbox runs as when the grader is root: nobody. */
#define GRADE_SANDBOX_NOBODY 65534
/* ulimit -f for a run of the harness and for a build, in bytes. */
#define GRADE_SANDBOX_RUN_FSIZE (256ull << 20)
#define GRADE_SANDBOX_BUILD_FSIZE (512ull << 20)

/* A hidden path: a folder gets an empty tmpfs (read-only once the binds
 * inside it are made), a file /dev/null. */
struct grade_hidden {
    char *path;
    int dir;
};

/* One place of a build's view of the system: a folder or file bound
 * read-only at the same path, or a symbolic link made there (/bin ->
 * usr/bin on a merged /usr). */
struct grade_view {
    char *path;
    char *link;                 /* the link's target; NULL: path is bound */
};

struct grade_sandbox {
    char mode[16];              /* "bwrap-nobody", "bwrap" or "none" */
    char *bwrap;                /* bubblewrap's absolute path; NULL for "none" */
    int sized;                  /* this bubblewrap knows --size (tmpfs caps) */
    char **devices;             /* /dev/nvidia* to bind */
    int ndevices;
    struct grade_hidden *hide;  /* shortest first */
    int nhide;
    char **rebind;              /* put back read-only inside hidden places */
    int nrebind;
    struct grade_view *view;    /* all a build sees of the system besides /dev,
                                   /proc, /tmp and the caller's places (a run sees
                                   the whole system read-only); required with
                                   bubblewrap */
    int nview;
    char **env;                 /* NAME=VALUE: the whole environment the program gets,
                                   besides CUDA_VISIBLE_DEVICES and CUDATUTOR_PROGRESS,
                                   which pass through from the caller's */
    int nenv;
    char *locks;                /* the folder of the GPU lock files (*.lock), bound
                                   writable into a run; NULL: none */
    char *cache;                /* nvcc's results by what went in ($CUDATUTOR_COMPILE_CACHE,
                                   check/check_cache.c), bound writable into a build,
                                   hidden from a run; NULL: none */
    int max_procs;              /* processes the program may add to its user's */
    int uid;                    /* the user to run as (GRADE_SANDBOX_NOBODY), or -1: as is */
};

void grade_sandbox_free(struct grade_sandbox *sb);

/* The JSON text of sb (heap; NULL when out of memory). */
char *grade_sandbox_format(const struct grade_sandbox *sb);

/* Parses what grade_sandbox_format wrote.  Returns 0, or -1 with err. */
int grade_sandbox_parse(struct grade_sandbox *sb, const char *text, char *err, size_t errlen);

/* The paths to hide, from the candidates (a NULL or "" entry, or one that
 * does not exist, is skipped): each resolved (realpath), the system's own
 * places never hidden (/, /usr and below, /bin, /lib, /lib64, /etc, /proc,
 * /sys, /dev and below, /tmp), duplicates dropped, shortest first.
 * Returns the count, or -1 when out of memory. */
int grade_sandbox_hidden(const char *const *cand, int ncand, struct grade_hidden **out);

/* Fills sb->view with what a compiler needs and nothing else: the
 * system's program and library folders (/usr, and /bin, /sbin, /lib,
 * /lib32, /lib64, /libx32 as the links or folders they are here), the
 * dynamic linker's files of /etc (ld.so.cache, ld.so.conf, ld.so.conf.d)
 * and /etc/alternatives, and each of places[0..n) (absolute paths: the
 * toolkit, the compiler's prefix, the tutor, the harness objects) that
 * does not already lie in the view, bound where it is found and, when that
 * differs, where it resolves to.  Not /etc/passwd or /etc/shadow, not
 * /root, /home, /opt or /srv unless a place lies there.  Returns 0, or -1
 * when out of memory. */
int grade_sandbox_build_view(struct grade_sandbox *sb, const char *const *places, int n);

/* The folder a submission at path (absolute) is hidden by: its parent, or,
 * where the parent is a place every program needs (/, /tmp, /usr, /bin,
 * /lib, /lib64, /etc, /proc, /sys, /dev and below), the submission itself.
 * Heap; NULL when out of memory. */
char *grade_sandbox_hide_of_submission(const char *path);

/* The first folder on the way to path (absolute) that user uid may not
 * pass through (no search right for it as owner, group or other): a
 * private parent (mktemp -d's 0700, root's home) keeps bubblewrap, which
 * binds each place as that user, from reaching what lies below.  NULL when
 * none does (or out of memory); else the folder (heap) and, when mode is
 * not NULL, its mode bits. */
char *grade_sandbox_blocked(const char *path, int uid, unsigned *mode);

/* Whether path is, or lies in, one of sb's hidden paths. */
int grade_sandbox_under_hidden(const struct grade_sandbox *sb, const char *path);

/* What a program in the sandbox is given, from outside. */
struct grade_sandbox_call {
    const char *cwd;            /* its only writable folder (absolute) */
    const char *build_wb;       /* a build's workbook copy, bound read-only; NULL: a run */
    char *const *binds;         /* a run's other writable folders (absolute), NULL-terminated;
                                   NULL: none */
    char *const *locks;         /* a run's GPU lock files, bound writable; NULL-terminated */
    const char *visible;        /* CUDA_VISIBLE_DEVICES to pass on; NULL: unset */
    const char *progress;       /* CUDATUTOR_PROGRESS to pass on; NULL: unset */
    char *const *cmd;           /* the program and its arguments, NULL-terminated */
};

/* The argv that runs c->cmd in sb: bubblewrap's, or for "none" the
 * command itself.  Strings point into sb and c or are owned by the array's
 * pool: free with grade_sandbox_argv_free.  NULL when out of memory. */
char **grade_sandbox_argv(const struct grade_sandbox *sb, const struct grade_sandbox_call *c);
void grade_sandbox_argv_free(char **argv);

/* The environment of the program with no sandbox ("none"): sb->env, then
 * CUDA_VISIBLE_DEVICES and CUDATUTOR_PROGRESS when c has them, and a
 * build's CUDATUTOR_COMPILE_CACHE when sb has one.  Heap array
 * of heap strings; free with grade_sandbox_argv_free.  NULL: out of memory. */
char **grade_sandbox_envp(const struct grade_sandbox *sb, const struct grade_sandbox_call *c);

/* The processes (threads) that user uid runs now, from /proc. */
int grade_sandbox_count_procs(int uid);

/* `cudatutor grade --sandbox-exec SPEC [--build WB | --bind DIR...] -- COMMAND...`: reads
 * SPEC, sets the limits (no core dumps; files up to
 * GRADE_SANDBOX_RUN_FSIZE, or GRADE_SANDBOX_BUILD_FSIZE for a build; the
 * user's processes now plus max_procs), becomes sb->uid when there is
 * one, and execs the program in the sandbox with the current folder (and
 * a run's binds) writable.  Returns only on failure: -1 with err. */
int grade_sandbox_exec(const char *spec, const char *build_wb, char *const *binds, char *const *cmd, char *err,
                       size_t errlen);

#endif /* GRADE_SANDBOX_H */
