/* test_grade_sandbox.c — the grader's sandbox as data and as an argv: the
 * spec read back as written; the hidden paths (the system's own never,
 * duplicates once, shortest first); bubblewrap's words in the order that
 * makes them hold (hidden folders emptied before the work folder is bound
 * into them, and made read-only after); the clean environment; and
 * a build's view of the system (the toolchain's folders and the linker's
 * files of /etc, never the whole system); and --sandbox-exec itself,
 * attacked: a secret in the grader's environment, core dumps, big files
 * and process counts without limits, and (where bubblewrap works here) a
 * file in a hidden folder read, a file outside the work folder written,
 * and the host's users' files read by a build; the first folder on a
 * path that a user cannot pass. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grade/grade_sandbox.h"
#include "sys/util.h"
#include "tap.h"

/* A spec as a grading would save it, by hand. */
static void spec_init(struct grade_sandbox *sb, const char *mode)
{
    memset(sb, 0, sizeof *sb);
    util_copy(sb->mode, sizeof sb->mode, mode);
    sb->bwrap = strcmp(mode, "none") ? strdup("/usr/bin/bwrap") : NULL;
    sb->sized = 1;
    sb->devices = calloc(2, sizeof *sb->devices);
    sb->devices[sb->ndevices++] = strdup("/dev/nvidia0");
    sb->hide = calloc(3, sizeof *sb->hide);
    sb->hide[sb->nhide++] = (struct grade_hidden){strdup("/home/prof"), 1};
    sb->hide[sb->nhide++] = (struct grade_hidden){strdup("/home/prof/roster.csv"), 0};
    sb->rebind = calloc(2, sizeof *sb->rebind);
    sb->rebind[sb->nrebind++] = strdup("/home/prof/wb/cudatutor");
    sb->env = calloc(3, sizeof *sb->env);
    sb->env[sb->nenv++] = strdup("PATH=/usr/bin:/bin");
    sb->env[sb->nenv++] = strdup("HOME=/tmp");
    sb->locks = strdup("/home/prof/out/.grader/gpu-locks");
    sb->view = calloc(3, sizeof *sb->view);
    sb->view[sb->nview++] = (struct grade_view){strdup("/usr"), NULL};
    sb->view[sb->nview++] = (struct grade_view){strdup("/bin"), strdup("usr/bin")};
    sb->view[sb->nview++] = (struct grade_view){strdup("/home/prof/wb"), NULL};
    sb->max_procs = 77;
    sb->uid = strcmp(mode, "bwrap-nobody") ? -1 : GRADE_SANDBOX_NOBODY;
}

/* The index of word w in argv at or after from, or -1. */
static int find(char **argv, const char *w, int from)
{
    for (int i = from; argv && argv[i]; i++)
        if (!strcmp(argv[i], w))
            return i;
    return -1;
}

/* Whether argv holds the words a b c in a row. */
static int has3(char **argv, const char *a, const char *b, const char *c)
{
    for (int i = 0; argv && argv[i] && argv[i + 1] && argv[i + 2]; i++)
        if (!strcmp(argv[i], a) && !strcmp(argv[i + 1], b) && !strcmp(argv[i + 2], c))
            return 1;
    return 0;
}

static void spec_round_trip(void)
{
    struct grade_sandbox a, b;
    char err[128];
    spec_init(&a, "bwrap-nobody");
    char *text = grade_sandbox_format(&a);
    EXPECT(text && grade_sandbox_parse(&b, text, err, sizeof err) == 0);
    EXPECT_STR(b.mode, "bwrap-nobody");
    EXPECT_STR(b.bwrap, "/usr/bin/bwrap");
    EXPECT(b.sized && b.ndevices == 1 && b.nhide == 2 && b.hide[0].dir && !b.hide[1].dir);
    EXPECT_STR(b.hide[1].path, "/home/prof/roster.csv");
    EXPECT(b.nrebind == 1 && b.nenv == 2 && b.max_procs == 77 && b.uid == GRADE_SANDBOX_NOBODY);
    EXPECT_STR(b.locks, "/home/prof/out/.grader/gpu-locks");
    EXPECT(b.cache == NULL);
    EXPECT(b.nview == 3 && !b.view[0].link && !strcmp(b.view[1].path, "/bin") && b.view[1].link &&
           !strcmp(b.view[1].link, "usr/bin"));
    grade_sandbox_free(&b);
    free(text);
    a.cache = strdup("/tmp/run/nvcc-cache");
    text = grade_sandbox_format(&a);
    EXPECT(text && grade_sandbox_parse(&b, text, err, sizeof err) == 0);
    EXPECT_STR(b.cache, "/tmp/run/nvcc-cache");
    grade_sandbox_free(&b);
    free(text);
    grade_sandbox_free(&a);
    EXPECT(grade_sandbox_parse(&b, "{\"schema\": 1, \"mode\": \"docker\"}", err, sizeof err) == -1);
    EXPECT(grade_sandbox_parse(&b, "{\"schema\": 1, \"mode\": \"bwrap\", \"hide\": []}", err, sizeof err) == -1);
    EXPECT(strstr(err, "without bwrap") != NULL);
    EXPECT(grade_sandbox_parse(&b, "[1]", err, sizeof err) == -1);
    /* Bubblewrap without a build view would build in a bare root, or, read
     * loosely, in the whole system: refused. */
    EXPECT(grade_sandbox_parse(&b, "{\"schema\": 1, \"mode\": \"bwrap\", \"bwrap\": \"/b\", \"hide\": [], "
                                   "\"devices\": [], \"rebind\": [], \"env\": []}", err, sizeof err) == -1);
    EXPECT(strstr(err, "without a build_view") != NULL);
}

static void hidden_paths(void)
{
    char tmp[] = "/tmp/cudatutor-hide-XXXXXX";
    EXPECT(mkdtemp(tmp) != NULL);
    char *deep = util_format("%s/a/bb", tmp), *file = util_format("%s/a/roster.csv", tmp);
    char *dotted = util_format("%s/a/../a", tmp), *missing = util_format("%s/nope", tmp);
    util_mkdirs(deep);
    util_write_file(file, "x", 1);
    const char *cand[] = {deep, "/", "/usr/lib", "/tmp", "/dev/shm", "/etc", NULL, "", missing, file, dotted, deep};
    struct grade_hidden *h;
    int n = grade_sandbox_hidden(cand, 12, &h);
    EXPECT(n == 3);
    if (n == 3) {
        char *a = util_format("%s/a", tmp);
        EXPECT_STR(h[0].path, a);           /* shortest first; "a/../a" resolved */
        EXPECT(h[0].dir);
        EXPECT_STR(h[1].path, deep);
        EXPECT_STR(h[2].path, file);
        EXPECT(!h[2].dir);
        free(a);
    }
    for (int i = 0; i < n; i++)
        free(h[i].path);
    free(h);
    char *p = grade_sandbox_hide_of_submission("/home/prof/subs/bob.zip");
    EXPECT_STR(p, "/home/prof/subs");
    free(p);
    /* A submission in a place every program needs is hidden alone. */
    p = grade_sandbox_hide_of_submission("/tmp/bob.zip");
    EXPECT_STR(p, "/tmp/bob.zip");
    free(p);
    p = grade_sandbox_hide_of_submission("/bob");
    EXPECT_STR(p, "/bob");
    free(p);
    struct grade_sandbox sb;
    spec_init(&sb, "bwrap");
    EXPECT(grade_sandbox_under_hidden(&sb, "/home/prof"));
    EXPECT(grade_sandbox_under_hidden(&sb, "/home/prof/wb/cudatutor"));
    EXPECT(!grade_sandbox_under_hidden(&sb, "/home/professor"));
    EXPECT(!grade_sandbox_under_hidden(&sb, "/home"));
    grade_sandbox_free(&sb);
    util_remove_tree(tmp);
    free(deep);
    free(file);
    free(dotted);
    free(missing);
}

static void run_argv(void)
{
    struct grade_sandbox sb;
    char *locks[] = {"/home/prof/out/.grader/gpu-locks/gpu-0.lock", NULL};
    char *cmd[] = {"/wb/build/harness/judge_reduce_int", "--json", "x; rm -rf ~", NULL};
    struct grade_sandbox_call c = {.cwd = "/home/prof/out/work/bob/01", .locks = locks, .visible = "1",
                                   .progress = "/p.json", .cmd = cmd};
    spec_init(&sb, "bwrap");
    char **argv = grade_sandbox_argv(&sb, &c);
    EXPECT(argv && !strcmp(argv[0], "/usr/bin/bwrap"));
    EXPECT(has3(argv, "--ro-bind", "/", "/") && has3(argv, "--dev-bind", "/dev/nvidia0", "/dev/nvidia0"));
    EXPECT(has3(argv, "--ro-bind", "/dev/null", "/home/prof/roster.csv"));
    EXPECT(has3(argv, "--ro-bind", "/home/prof/wb/cudatutor", "/home/prof/wb/cudatutor"));
    EXPECT(has3(argv, "--setenv", "CUDA_VISIBLE_DEVICES", "1") && has3(argv, "--setenv", "CUDATUTOR_PROGRESS", "/p.json"));
    EXPECT(has3(argv, "--setenv", "PATH", "/usr/bin:/bin") && find(argv, "--clearenv", 0) > 0);
    EXPECT(find(argv, "--unshare-net", 0) > 0 && find(argv, "--unshare-pid", 0) > 0 && find(argv, "--die-with-parent", 0) > 0);
    /* The order that makes it hold: the hidden folder is emptied, then the
     * work folder and the locks are bound into it, then it goes read-only. */
    int tmpfs = find(argv, "/home/prof", 0) - 1, bind = find(argv, "--bind", 0);
    int remount = find(argv, "--remount-ro", 0);
    EXPECT(tmpfs > 0 && !strcmp(argv[tmpfs], "--tmpfs"));
    EXPECT(!strcmp(argv[tmpfs - 2], "--size") && !strcmp(argv[tmpfs - 1], "1048576"));
    EXPECT(bind > tmpfs && !strcmp(argv[bind + 1], c.cwd) && !strcmp(argv[bind + 2], c.cwd));
    EXPECT(has3(argv, "--bind", locks[0], locks[0]) && find(argv, locks[0], 0) > bind);
    EXPECT(remount > find(argv, locks[0], 0) && !strcmp(argv[remount + 1], "/home/prof"));
    EXPECT(find(argv, "--remount-ro", remount + 1) < 0);    /* a hidden file is not remounted */
    /* The command comes last, word for word, after "--chdir CWD --". */
    int dash = find(argv, "--", 0);
    EXPECT(dash > 0 && !strcmp(argv[dash - 2], "--chdir") && !strcmp(argv[dash - 1], c.cwd));
    EXPECT(!strcmp(argv[dash + 1], cmd[0]) && !strcmp(argv[dash + 3], "x; rm -rf ~") && !argv[dash + 4]);
    grade_sandbox_argv_free(argv);
    /* A batch's run: its other work folders writable too, bound after the
     * hidden folder is emptied and before it goes read-only; the rest of
     * the class's folders stay out of sight. */
    char *binds[] = {"/home/prof/out/work/carol/03", "/home/prof/out/work/dave/05", NULL};
    c.binds = binds;
    argv = grade_sandbox_argv(&sb, &c);
    remount = find(argv, "--remount-ro", 0);
    for (int i = 0; binds[i]; i++) {
        int at = find(argv, binds[i], 0);
        EXPECT(has3(argv, "--bind", binds[i], binds[i]) && at > tmpfs && at < remount);
    }
    EXPECT(find(argv, "/home/prof/out/work", 0) < 0);
    grade_sandbox_argv_free(argv);
    /* A build binds no folder but its own. */
    c.build_wb = "/home/prof/out/work/bob/wb";
    argv = grade_sandbox_argv(&sb, &c);
    EXPECT(find(argv, binds[0], 0) < 0 && find(argv, binds[1], 0) < 0);
    grade_sandbox_argv_free(argv);
    grade_sandbox_free(&sb);
}

static int remounted(char **argv, const char *path);

static void build_argv(void)
{
    struct grade_sandbox sb;
    char *locks[] = {"/l/gpu-0.lock", NULL};
    char *cmd[] = {"cudatutor", "check", NULL};
    struct grade_sandbox_call c = {.cwd = "/o/work/bob/01", .build_wb = "/o/work/bob/wb", .locks = locks, .cmd = cmd};
    spec_init(&sb, "bwrap-nobody");
    sb.sized = 0;
    char **argv = grade_sandbox_argv(&sb, &c);
    int wb = find(argv, "/o/work/bob/wb", 0), bind = find(argv, "--bind", 0);
    EXPECT(wb > 0 && !strcmp(argv[wb - 1], "--ro-bind") && bind > wb);
    EXPECT(find(argv, locks[0], 0) < 0);        /* a build takes no GPU lock */
    EXPECT(find(argv, "--size", 0) < 0);        /* an old bubblewrap: no caps asked */
    EXPECT(find(argv, "CUDA_VISIBLE_DEVICES", 0) < 0 && find(argv, "CUDATUTOR_PROGRESS", 0) < 0);
    EXPECT(find(argv, "CUDATUTOR_COMPILE_CACHE", 0) < 0);
    /* The view, not the system: its folders bound, its links made, the
     * hidden places outside it left out (the view's /home/prof/wb lies in
     * the hidden /home/prof, and is bound by itself), the root read-only. */
    EXPECT(!has3(argv, "--ro-bind", "/", "/"));
    EXPECT(has3(argv, "--ro-bind", "/usr", "/usr") && has3(argv, "--symlink", "usr/bin", "/bin"));
    EXPECT(find(argv, "/dev/null", 0) < 0);     /* /home/prof/roster.csv is not in the view */
    int last = -1;
    for (int i = find(argv, "--remount-ro", 0); i >= 0; i = find(argv, "--remount-ro", i + 1))
        last = i;
    EXPECT(last > 0 && !strcmp(argv[last + 1], "/"));
    grade_sandbox_argv_free(argv);
    /* A hidden folder inside the view (an output folder under /usr/local)
     * is emptied there as in a run. */
    sb.hide[sb.nhide++] = (struct grade_hidden){strdup("/usr/local/grade-out"), 1};
    argv = grade_sandbox_argv(&sb, &c);
    int t = find(argv, "/usr/local/grade-out", 0);
    EXPECT(t > find(argv, "/usr", 0) && !strcmp(argv[t - 1], "--tmpfs") && remounted(argv, "/usr/local/grade-out"));
    grade_sandbox_argv_free(argv);
    grade_sandbox_free(&sb);
}

/* The view this machine gives a build: the system's folders as they are
 * laid out here, the linker's files, the places asked for once each, and
 * nothing of the host's users. */
static void build_view(void)
{
    struct grade_sandbox sb;
    memset(&sb, 0, sizeof sb);
    char tmp[] = "/tmp/cudatutor-view-XXXXXX";
    EXPECT(mkdtemp(tmp) != NULL);
    char *tool = util_format("%s/opt-cuda", tmp), *link = util_format("%s/cuda", tmp);
    util_mkdirs(tool);
    EXPECT(symlink(tool, link) == 0);
    const char *places[] = {"/usr/bin", link, tool, "relative", NULL};
    EXPECT(grade_sandbox_build_view(&sb, places, 5) == 0);
    int usr = 0, tools = 0, links = 0;
    for (int i = 0; i < sb.nview; i++) {
        const char *p = sb.view[i].path;
        usr += !strcmp(p, "/usr") && !sb.view[i].link;
        tools += !strcmp(p, tool);
        links += !strcmp(p, link);
        EXPECT(strcmp(p, "/usr/bin") && strcmp(p, "/etc") && strcmp(p, "/etc/passwd") && strcmp(p, "/etc/shadow"));
        EXPECT(strcmp(p, "/root") && strcmp(p, "/home") && strcmp(p, "/") && strcmp(p, "relative"));
    }
    EXPECT(usr == 1 && tools == 1 && links == 1);
    grade_sandbox_free(&sb);
    util_remove_tree(tmp);
    free(tool);
    free(link);
}

/* Whether argv makes path read-only ("--remount-ro PATH"). */
static int remounted(char **argv, const char *path)
{
    for (int i = find(argv, "--remount-ro", 0); i >= 0; i = find(argv, "--remount-ro", i + 1))
        if (!strcmp(argv[i + 1], path))
            return i;
    return 0;
}

/* The shared compiles: bound writable into a build and named to it; a run
 * gets an empty read-only folder in their place, and no name. */
static void cache_argv(void)
{
    struct grade_sandbox sb;
    char *cmd[] = {"cudatutor", "check", NULL};
    struct grade_sandbox_call build = {.cwd = "/o/work/bob/01", .build_wb = "/o/work/bob/wb", .cmd = cmd};
    struct grade_sandbox_call run = {.cwd = "/o/work/bob/01", .cmd = cmd};
    spec_init(&sb, "bwrap-nobody");
    sb.cache = strdup("/c/nvcc");
    char **argv = grade_sandbox_argv(&sb, &build);
    EXPECT(has3(argv, "--bind", "/c/nvcc", "/c/nvcc") && has3(argv, "--setenv", "CUDATUTOR_COMPILE_CACHE", "/c/nvcc"));
    EXPECT(!remounted(argv, "/c/nvcc"));
    int t = find(argv, "/c/nvcc", 0);
    EXPECT(t > 0 && strcmp(argv[t - 1], "--tmpfs"));
    grade_sandbox_argv_free(argv);
    argv = grade_sandbox_argv(&sb, &run);
    t = find(argv, "/c/nvcc", 0);
    EXPECT(t > 0 && !strcmp(argv[t - 1], "--tmpfs") && find(argv, "--bind", 0) < t);
    EXPECT(remounted(argv, "/c/nvcc") > t);
    EXPECT(!has3(argv, "--bind", "/c/nvcc", "/c/nvcc") && find(argv, "CUDATUTOR_COMPILE_CACHE", 0) < 0);
    grade_sandbox_argv_free(argv);
    free(sb.bwrap);             /* "none": the environment alone carries it */
    sb.bwrap = NULL;
    char **envp = grade_sandbox_envp(&sb, &build);
    int named = 0;
    for (int i = 0; envp && envp[i]; i++)
        named |= !strcmp(envp[i], "CUDATUTOR_COMPILE_CACHE=/c/nvcc");
    EXPECT(named);
    grade_sandbox_argv_free(envp);
    envp = grade_sandbox_envp(&sb, &run);
    for (int i = 0; envp && envp[i]; i++)
        EXPECT(strncmp(envp[i], "CUDATUTOR_COMPILE_CACHE=", 24));
    grade_sandbox_argv_free(envp);
    grade_sandbox_free(&sb);
}

static void none_is_the_command(void)
{
    struct grade_sandbox sb;
    char *cmd[] = {"/bin/judge", "--json", NULL};
    struct grade_sandbox_call c = {.cwd = "/w", .visible = "", .cmd = cmd};
    spec_init(&sb, "none");
    char **argv = grade_sandbox_argv(&sb, &c), **envp = grade_sandbox_envp(&sb, &c);
    EXPECT(argv && !strcmp(argv[0], "/bin/judge") && !strcmp(argv[1], "--json") && !argv[2]);
    EXPECT(envp && !strcmp(envp[0], "PATH=/usr/bin:/bin") && !strcmp(envp[1], "HOME=/tmp"));
    EXPECT(envp && !strcmp(envp[2], "CUDA_VISIBLE_DEVICES=") && !envp[3]);
    grade_sandbox_argv_free(argv);
    grade_sandbox_argv_free(envp);
    grade_sandbox_free(&sb);
}

/* Shows a child's output as TAP comments. */
static void show(const char *out)
{
    for (const char *l = out ? out : "(nothing)"; *l;) {
        size_t n = strcspn(l, "\n");
        printf("# %.*s\n", (int)n, l);
        l += n + (l[n] == '\n');
    }
}

/* Runs `--sandbox-exec spec -- cmd` in a child whose environment holds a
 * secret, in folder cwd; returns what it printed (heap). */
static char *exec_in_as(const char *spec, const char *build_wb, const char *cwd, char *const *cmd)
{
    int fds[2];
    if (pipe(fds))
        return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        char err[256];
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        setenv("GRADER_SECRET_TOKEN", "hunter2", 1);
        if (chdir(cwd) == 0)
            grade_sandbox_exec(spec, build_wb, NULL, cmd, err, sizeof err);
        printf("exec failed: %s\n", err);
        _exit(127);
    }
    close(fds[1]);
    char *out = calloc(1, 65536);
    size_t n = 0;
    ssize_t got;
    while (out && (got = read(fds[0], out + n, 65535 - n)) > 0)
        n += (size_t)got;
    close(fds[0]);
    waitpid(pid, NULL, 0);
    return out;
}

static char *exec_in(const char *spec, const char *cwd, char *const *cmd)
{
    return exec_in_as(spec, NULL, cwd, cmd);
}

static void exec_limits_and_environment(void)
{
    char tmp[] = "/tmp/cudatutor-sbx-XXXXXX";
    EXPECT(mkdtemp(tmp) != NULL);
    struct grade_sandbox sb;
    spec_init(&sb, "none");
    sb.uid = -1;
    char *spec = util_format("%s/sandbox.json", tmp), *text = grade_sandbox_format(&sb);
    util_write_file(spec, text, strlen(text));
    char *cmd[] = {"/bin/bash", "-c",
                   "echo \"secret=[$GRADER_SECRET_TOKEN] home=$HOME\"; echo core=$(ulimit -c) fsize=$(ulimit -f) "
                   "procs=$(ulimit -u); pwd",
                   NULL};
    char *out = exec_in(spec, tmp, cmd);
    show(out);
    EXPECT(out && strstr(out, "secret=[] home=/tmp"));
    EXPECT(out && strstr(out, "core=0 fsize=262144 procs="));
    EXPECT(out && !strstr(out, "procs=unlimited"));
    EXPECT(out && strstr(out, tmp));
    free(out);
    free(text);
    free(spec);
    grade_sandbox_free(&sb);
    util_remove_tree(tmp);
}

/* Whether bubblewrap can make a namespace here at all. */
static int bwrap_works(void)
{
    return system("bwrap --ro-bind / / --dev /dev --unshare-pid --unshare-net true >/dev/null 2>&1") == 0;
}

static void exec_isolates(void)
{
    if (!bwrap_works()) {
        printf("# bubblewrap does not work here: the isolation is tested by tests/grade.sh where it does\n");
        return;
    }
    char tmp[] = "/tmp/cudatutor-sbx-XXXXXX";
    EXPECT(mkdtemp(tmp) != NULL);
    char *work = util_format("%s/out/work", tmp), *secret_dir = util_format("%s/out", tmp);
    char *secret = util_format("%s/out/answers.txt", tmp), *spec = util_format("%s/sandbox.json", tmp);
    util_mkdirs(work);
    util_write_file(secret, "42\n", 3);
    struct grade_sandbox sb;
    spec_init(&sb, "bwrap");
    free(sb.bwrap);
    sb.bwrap = util_which("bwrap");
    sb.uid = -1;
    sb.ndevices = 0;
    free(sb.hide[0].path);
    free(sb.hide[1].path);
    sb.hide[0] = (struct grade_hidden){strdup(secret_dir), 1};
    sb.nhide = 1;
    sb.nrebind = 0;
    free(sb.rebind[0]);
    char *text = grade_sandbox_format(&sb);
    util_write_file(spec, text, strlen(text));
    char *script = util_format("cat %s 2>/dev/null || echo no-secret; (echo x > %s/escaped) 2>/dev/null || echo "
                               "no-escape; echo x > here && echo work-ok; "
                               "[ $(grep -c : /proc/net/dev) -le 1 ] && echo no-network",
                               secret, secret_dir);
    char *cmd[] = {"/bin/sh", "-c", script, NULL};
    char *out = exec_in(spec, work, cmd);
    show(out);
    EXPECT(out && strstr(out, "no-secret") && !strstr(out, "42"));
    EXPECT(out && strstr(out, "no-escape"));
    EXPECT(out && strstr(out, "work-ok") && strstr(out, "no-network"));
    char *escaped = util_format("%s/escaped", secret_dir), *here = util_format("%s/here", work);
    EXPECT(!util_is_file(escaped) && util_is_file(here));
    free(escaped);
    free(here);
    free(out);
    free(script);
    free(text);
    grade_sandbox_free(&sb);
    util_remove_tree(tmp);
    free(work);
    free(secret_dir);
    free(secret);
    free(spec);
}

/* A build, attacked as a student's #include or .incbin would: the host's
 * users' files are not there to read, while the system's programs are. */
static void exec_build_sees_the_view(void)
{
    if (!bwrap_works()) {
        printf("# bubblewrap does not work here: the build's view is tested by tests/grade.sh where it does\n");
        return;
    }
    char tmp[] = "/tmp/cudatutor-sbx-XXXXXX";
    EXPECT(mkdtemp(tmp) != NULL);
    char *work = util_format("%s/work", tmp), *wb = util_format("%s/wb", tmp), *spec = util_format("%s/s.json", tmp);
    util_mkdirs(work);
    util_mkdirs(wb);
    struct grade_sandbox sb;
    memset(&sb, 0, sizeof sb);
    util_copy(sb.mode, sizeof sb.mode, "bwrap");
    sb.bwrap = util_which("bwrap");
    sb.uid = -1;
    sb.max_procs = 64;
    sb.env = calloc(2, sizeof *sb.env);
    sb.env[sb.nenv++] = strdup("PATH=/usr/bin:/bin");
    EXPECT(grade_sandbox_build_view(&sb, NULL, 0) == 0);
    char *text = grade_sandbox_format(&sb);
    util_write_file(spec, text, strlen(text));
    char *cmd[] = {"/bin/sh", "-c",
                   "for f in /etc/passwd /etc/shadow /etc/hostname /root /home /srv /opt; do "
                   "[ -e $f ] && echo \"sees $f\"; done; [ -x /usr/bin/env ] && echo has-usr; "
                   "[ -e /etc/ld.so.cache ] && echo has-cache; echo x > here && echo writes-work",
                   NULL};
    char *out = exec_in_as(spec, wb, work, cmd);
    show(out);
    EXPECT(out && !strstr(out, "sees "));
    EXPECT(out && strstr(out, "has-usr") && strstr(out, "writes-work"));
    EXPECT(out && (strstr(out, "has-cache") || access("/etc/ld.so.cache", F_OK)));
    free(out);
    free(text);
    grade_sandbox_free(&sb);
    util_remove_tree(tmp);
    free(work);
    free(wb);
    free(spec);
}

/* The first folder a user cannot pass on the way to a path: a private
 * folder (0700, not the user's) stops it; o+x, or owning it, lets it by. */
static void blocked_folder(void)
{
    char tmp[] = "/tmp/cudatutor-blocked-XXXXXX";
    EXPECT(mkdtemp(tmp) != NULL);
    char *deep = util_format("%s/a/b/c", tmp), *a = util_format("%s/a", tmp);
    unsigned mode = 0;
    int other = getuid() == 54321 ? 54322 : 54321;
    util_mkdirs(deep);
    chmod(tmp, 0711);
    chmod(a, 0750);
    char *got = grade_sandbox_blocked(deep, other, &mode);
    EXPECT_STR(got, a);
    EXPECT(mode == 0750);
    free(got);
    EXPECT(grade_sandbox_blocked(deep, (int)getuid(), NULL) == NULL);     /* its owner passes */
    chmod(a, 0751);
    EXPECT(grade_sandbox_blocked(deep, other, NULL) == NULL);
    EXPECT(grade_sandbox_blocked("/usr/bin", other, NULL) == NULL);
    util_remove_tree(tmp);
    free(deep);
    free(a);
}

static void counts_processes(void)
{
    EXPECT(grade_sandbox_count_procs((int)getuid()) >= 1);
    EXPECT(grade_sandbox_count_procs(54321) == 0);
}

TAP_MAIN(T(spec_round_trip), T(hidden_paths), T(run_argv), T(build_argv), T(build_view), T(cache_argv),
         T(none_is_the_command), T(exec_limits_and_environment), T(exec_isolates), T(exec_build_sees_the_view),
         T(blocked_folder), T(counts_processes))
