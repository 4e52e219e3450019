/* grade_probe.c — which sandbox a grading uses: each mode is tested before
 * it is trusted, strongest first (as root: nobody; root only when
 * --sandbox bwrap-root says so, none only when --sandbox none does, or,
 * for a grader that is not root, when bubblewrap does not work).
 * A probe runs through the very `--sandbox-exec` line the grading will
 * use: the work folder must be writable, the network gone, the output
 * folder read-only, /tmp private and the workbook hidden; then the first
 * lab's stub must build in the build sandbox, which must show none of the
 * host's users' files (/etc/passwd, /etc/shadow, /root, /home); and where
 * there is a GPU the harness must see it from inside as from outside. */
#define _GNU_SOURCE     /* mkostemp */
#include "grade/grade_run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/result.h"
#include "sys/util.h"

#define PROBE_RUN_TIMEOUT_S 60
#define PROBE_BUILD_TIMEOUT_S 300

/* What the probe checks inside, in the order it reports them. */
static const char *const PROBE_FACTS[] = {"work-writable", "no-network", "output-read-only", "private-tmp",
                                          "workbook-hidden", NULL};

/* What a build must not see (grade_sandbox_build_view), looked for from
 * inside a build sandbox: writes build-view.txt only when none is there. */
static const char BUILD_VIEW_SCRIPT[] =
    "for f in /etc/passwd /etc/shadow /root /home; do [ -e \"$f\" ] && exit 0; done\n"
    "echo closed > build-view.txt\n";

/* The probe itself: $1 the output folder, $2 a file of the grader's /tmp,
 * $3 the pristine workbook; writes what held into probe.txt. */
static const char PROBE_SCRIPT[] =
    "r=\"\"\n"
    "echo ok > inside.txt && r=\"$r work-writable\"\n"
    "[ \"$(grep -c \":\" /proc/net/dev)\" -le 1 ] && r=\"$r no-network\"\n"
    "(echo x > \"$1/probe-escape\") 2>/dev/null || r=\"$r output-read-only\"\n"
    "[ -e \"$2\" ] || r=\"$r private-tmp\"\n"
    "[ -e \"$3/data/labs.json\" ] || r=\"$r workbook-hidden\"\n"
    "echo \"$r\" > probe.txt\n";

/* Writes sb as path; -1 when it cannot. */
static int save_spec(const struct grade_sandbox *sb, const char *path)
{
    char *text = grade_sandbox_format(sb);
    int rc = text ? util_write_file(path, text, strlen(text)) : -1;
    free(text);
    return rc;
}

/* The last lines of a log, joined by spaces (heap). */
static char *tail_lines(const char *path, int lines)
{
    char *text = util_read_file(path, NULL);
    if (!text)
        return strdup("");
    size_t len = strlen(text);
    while (len && text[len - 1] == '\n')
        text[--len] = '\0';
    char *p = text + len;
    for (int n = 0; p > text; p--)
        if (p[-1] == '\n' && ++n == lines)
            break;
    char *out = strdup(p);
    for (char *c = out; c && *c; c++)
        if (*c == '\n')
            *c = ' ';
    free(text);
    return out;
}

/* The status of the probe's stub run on the first GPU, through the
 * sandbox when spec is given; "none" when there is no report. */
static void probe_gpu(struct grade *g, const char *pd, const char *spec, char *status, size_t len)
{
    char *wb = util_format("%s/wb", pd), *build = util_format("%s/build", pd);
    char *out = util_format("%s/build/run.json", pd), *log = util_format("%s/gpu.log", pd);
    char *visible = util_format("CUDA_VISIBLE_DEVICES=%s", g->gpus[0]);
    char *argv[40], *env[] = {visible, NULL};
    int a = 0;

    util_copy(status, len, "none");
    if (!wb || !build || !out || !log || !visible)
        goto out;
    unlink(out);
    argv[a++] = g->self;
    argv[a++] = "--root";
    argv[a++] = wb;
    argv[a++] = "check";
    argv[a++] = (char *)g->cat.labs[0].id;
    argv[a++] = "--run-only";
    argv[a++] = "--work-dir";
    argv[a++] = build;
    argv[a++] = "--no-sanitize";
    argv[a++] = "--quick";
    argv[a++] = "--json";
    argv[a++] = "--out";
    argv[a++] = out;
    if (spec)
        grade_wrap_args(g, spec, argv, &a);
    argv[a] = NULL;
    grade_spawn(g, argv, build, env, PROBE_BUILD_TIMEOUT_S, 0, log);
    struct result r;
    char err[160];
    if (result_read_file(out, &r, err, sizeof err) == 0) {
        util_copy(status, len, status_name(r.status));
        result_free(&r);
    }
out:
    free(wb);
    free(build);
    free(out);
    free(log);
    free(visible);
}

/* The messages of the probe's last GPU report, joined by "; " (heap). */
static char *probe_messages(const char *pd)
{
    char *path = util_format("%s/build/run.json", pd), *out = strdup(""), err[160];
    struct result r;
    int read = path && result_read_file(path, &r, err, sizeof err) == 0;
    for (int i = 0; read && out && i < r.nmsgs; i++) {
        char *more = util_format("%s%s%s", out, *out ? "; " : "", r.messages[i]);
        if (more) {
            free(out);
            out = more;
        }
    }
    if (read)
        result_free(&r);
    free(path);
    return out;
}

/* Why nobody cannot reach what the sandbox binds (the work folders, the
 * GPU locks, this program and the harness, the toolkit, the folders of the
 * sandbox's PATH and of LD_LIBRARY_PATH, the compile cache): the first
 * folder it cannot pass through, and the command that lets it through;
 * NULL when it can.  The grader's own folders are in places it makes for
 * nobody (grade_setup_scratch), so what is left is the toolchain's. */
static char *nobody_blocked(const struct grade *g, const struct grade_sandbox *sb)
{
    const char *fixed[] = {g->work, g->self, g->harness_dir, sb->locks, sb->cache};
    int nfixed = 5, n = nfixed + sb->nrebind + sb->nview;
    for (int i = 0; i < n; i++) {
        int r = i - nfixed, v = r - sb->nrebind;
        const char *need = r < 0 ? fixed[i] : v < 0 ? sb->rebind[r] : sb->view[v].link ? NULL : sb->view[v].path;
        if (!need)
            continue;
        unsigned mode = 0;
        char *dir = grade_sandbox_blocked(need, GRADE_SANDBOX_NOBODY, &mode);
        if (dir) {
            char *why = util_format("nobody, the user student code runs as, cannot pass through %s (mode %04o) "
                                    "to reach %s; `chmod o+x %s` lets it through (without listing the folder)",
                                    dir, mode, need, dir);
            free(dir);
            return why;
        }
    }
    return NULL;
}

/* Does mode work here, and does it isolate?  0 when all of it holds, with
 * what was checked in *facts; else -1 with why in *why. */
static int probe(struct grade *g, const struct grade_sandbox *base, const char *mode, char **facts, char **why)
{
    struct grade_sandbox sb = *base;
    const struct lab *lab0 = &g->cat.labs[0];
    char *pd = util_format("%s/probe-%s", g->scratch, mode), *spec = NULL, *marker = NULL, *got = NULL;
    char *p_run = NULL, *p_build = NULL, *p_wb = NULL, *log = NULL, *esc = NULL, *tmp = NULL;
    char status[32] = "none";
    int rc = -1, nobody = !strcmp(mode, "bwrap-nobody");

    *facts = *why = NULL;
    /* The mode's own fields over the shared ones (owned by base). */
    util_copy(sb.mode, sizeof sb.mode, mode);
    if (!strcmp(mode, "none"))
        sb.bwrap = NULL;
    sb.uid = nobody ? GRADE_SANDBOX_NOBODY : -1;
    if (!pd || !(spec = util_format("%s/sandbox.json", pd)) || !(p_run = util_format("%s/run", pd)) ||
        !(p_build = util_format("%s/build", pd)) || !(p_wb = util_format("%s/wb", pd)) ||
        !(esc = util_format("%s/probe-escape", g->out)))
        goto oom;
    util_remove_tree(pd);
    char *dirs[] = {util_format("%s/data", p_wb), util_format("%s/tutor", p_wb), util_format("%s/%s", p_wb, lab0->dir)};
    int bad = 0;
    for (int i = 0; i < 3; i++)
        bad |= !dirs[i] || util_mkdirs(dirs[i]);
    for (int i = 0; i < 3; i++)
        free(dirs[i]);
    if (bad || util_mkdirs(p_run) || util_mkdirs(p_build) || save_spec(&sb, spec)) {
        *why = util_format("cannot prepare %s: %s", pd, strerror(errno));
        goto out;
    }
    const char *copies[][2] = {{"data/labs.json", "data/labs.json"}, {"tutor/lab.h", "tutor/lab.h"}};
    for (int i = 0; i < 2; i++) {
        char *a = util_format("%s/%s", g->pristine, copies[i][0]), *b = util_format("%s/%s", p_wb, copies[i][1]);
        bad |= !a || !b || util_copy_file(a, b);
        free(a);
        free(b);
    }
    char *stub = util_format("%s/%s", g->pristine, lab0->stub), *kernel = util_format("%s/%s/kernel.cu", p_wb, lab0->dir);
    bad |= !stub || !kernel || util_copy_file(stub, kernel);
    free(stub);
    free(kernel);
    if (bad) {
        *why = util_format("cannot copy the workbook's files into %s", pd);
        goto out;
    }
    if (nobody)
        grade_work_chown(pd, GRADE_SANDBOX_NOBODY);
    chmod(pd, 0700);

    /* The isolation, from inside. */
    const char *tmpdir = getenv("TMPDIR");
    if (!(marker = util_format("%s/grade-probe.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp")))
        goto oom;
    int fd = mkostemp(marker, O_CLOEXEC);
    if (fd >= 0)
        close(fd);
    unlink(esc);
    log = util_format("%s/run.log", pd);
    char *run_argv[] = {g->self, "grade", "--sandbox-exec", spec, "--", "/bin/sh", "-c", (char *)PROBE_SCRIPT,
                        "probe", g->out, marker, g->pristine, NULL};
    grade_spawn(g, run_argv, p_run, NULL, PROBE_RUN_TIMEOUT_S, 0, log);
    unlink(marker);
    char *probe_txt = util_format("%s/probe.txt", p_run);
    got = probe_txt ? util_read_file(probe_txt, NULL) : NULL;
    free(probe_txt);
    if (!got && !(got = strdup("")))
        goto oom;
    got[strcspn(got, "\n")] = '\0';
    char missing[256] = "";
    char padded[300];
    snprintf(padded, sizeof padded, " %s ", got);
    for (int i = 0; PROBE_FACTS[i]; i++) {
        char want[40];
        snprintf(want, sizeof want, " %s ", PROBE_FACTS[i]);
        if (!strstr(padded, want))
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s:no", PROBE_FACTS[i]);
    }
    if (access(esc, F_OK) == 0) {
        snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " wrote-outside");
        unlink(esc);
    }
    if (!strcmp(mode, "none"))
        missing[0] = '\0';
    if (missing[0]) {
        tmp = tail_lines(log, 3);
        *why = util_format("isolation probe failed:%s; %s", missing, tmp ? tmp : "");
        goto out;
    }

    /* A build in the build sandbox. */
    free(log);
    log = util_format("%s/build.log", pd);
    char *report = util_format("%s/report.json", p_build);
    char *build_argv[] = {g->self, "grade", "--sandbox-exec", spec, "--build", p_wb, "--", g->self, "--root", p_wb,
                          "check", lab0->id, "--build-only", "--work-dir", p_build, "--json", "--out", report, NULL};
    if (!report || !log)
        goto oom;
    grade_spawn(g, build_argv, p_build, NULL, PROBE_BUILD_TIMEOUT_S, 0, log);
    struct result built;
    char rerr[160];
    int is_built = 0;
    util_copy(status, sizeof status, "none");
    if (result_read_file(report, &built, rerr, sizeof rerr) == 0) {
        util_copy(status, sizeof status, status_name(built.status));
        is_built = built.stage == RESULT_BUILT;
        result_free(&built);
    }
    free(report);
    if (!is_built) {
        tmp = tail_lines(log, 3);
        *why = util_format("a build in the sandbox failed (%s): %s", status, tmp ? tmp : "");
        goto out;
    }
    /* And the build saw none of the host's users' files. */
    int closed = 1;
    if (strcmp(mode, "none")) {
        char *view_argv[] = {g->self, "grade", "--sandbox-exec", spec, "--build", p_wb, "--", "/bin/sh", "-c",
                             (char *)BUILD_VIEW_SCRIPT, NULL};
        char *view_txt = util_format("%s/build-view.txt", p_build);
        if (!view_txt)
            goto oom;
        grade_spawn(g, view_argv, p_build, NULL, PROBE_RUN_TIMEOUT_S, 0, NULL);
        closed = access(view_txt, F_OK) == 0;
        free(view_txt);
    }
    if (!closed) {
        *why = strdup("a build in the sandbox sees /etc/passwd, /etc/shadow, /root or /home");
        goto out;
    }

    /* Where there is a GPU, the harness must see it from inside the
     * sandbox as well as from outside: the stub runs (and fails) instead
     * of finding no device. */
    *facts = util_format("%s%s", got[0] == ' ' ? got + 1 : got, strcmp(mode, "none") ? " build-view-closed" : "");
    if (strcmp(mode, "none") && g->gpus[0][0]) {
        char inside[32], outside[32];
        probe_gpu(g, pd, spec, inside, sizeof inside);
        if (!strcmp(inside, status_name(STATUS_NO_GPU)) || !strcmp(inside, "none") ||
            !strcmp(inside, status_name(STATUS_INTERNAL_ERROR))) {
            probe_gpu(g, pd, NULL, outside, sizeof outside);
            if (strcmp(outside, inside)) {
                char *msgs = probe_messages(pd);
                *why = util_format("the GPU cannot be used in the sandbox (%s, outside %s): %s", inside, outside,
                                   msgs ? msgs : "");
                free(msgs);
                goto out;
            }
        } else {
            char *more = util_format("%s%sgpu-usable", *facts ? *facts : "", *facts && **facts ? " " : "");
            free(*facts);
            *facts = more;
        }
    }
    util_remove_tree(pd);
    rc = 0;
    goto out;
oom:
    *why = strdup("out of memory");
out:
    if (rc) {
        free(*facts);
        *facts = NULL;
    }
    free(pd);
    free(spec);
    free(marker);
    free(got);
    free(p_run);
    free(p_build);
    free(p_wb);
    free(log);
    free(esc);
    free(tmp);
    return rc;
}

/* Appends "MODE: why" to the notes. */
static void note(struct grade *g, const char *mode, const char *why)
{
    char *more = util_format("%s%s%s%s%s", g->sandbox_notes ? g->sandbox_notes : "",
                             g->sandbox_notes && *g->sandbox_notes ? "; " : "", mode ? mode : "", mode ? ": " : "",
                             why ? why : "");
    if (more) {
        free(g->sandbox_notes);
        g->sandbox_notes = more;
    }
}

/* The loud refusal of a grader that is root and has no sandbox that drops
 * root: what failed, and the options that choose root's rights instead. */
static void refuse_root(const struct grade *g)
{
    fprintf(stderr,
            "cudatutor grade: ********************************************************************\n"
            "cudatutor grade: REFUSED: you grade as root, and the sandbox that runs student code as\n"
            "cudatutor grade: nobody does not work here.  Why: %s\n"
            "cudatutor grade: The grader never runs student code with root's rights unless told to.\n"
            "cudatutor grade: Fix the cause (docs/instructor-guide.md section 8), or grade as an\n"
            "cudatutor grade: ordinary user, or choose root's rights: run the same grade.sh command\n"
            "cudatutor grade: again with one of\n"
            "cudatutor grade:   --sandbox bwrap-root   bubblewrap as root, every capability dropped\n"
            "cudatutor grade:   --sandbox none         no sandbox at all\n"
            "cudatutor grade: ********************************************************************\n",
            g->sandbox_notes && *g->sandbox_notes ? g->sandbox_notes : "bubblewrap (bwrap) is not installed");
}

int grade_choose_sandbox(struct grade *g)
{
    struct grade_sandbox base;
    const char *modes[3];
    int nmodes = 0, rc = EXIT_INTERNAL, root = geteuid() == 0;
    enum grade_sandbox_want want = g->o->sandbox;
    char *bwrap = want != GRADE_SANDBOX_NONE ? util_which("bwrap") : NULL, *facts = NULL, *why = NULL;

    g->sandbox_notes = strdup("");
    if (want != GRADE_SANDBOX_NONE) {
        if (!bwrap) {
            note(g, NULL, "bubblewrap (bwrap) is not installed");
        } else if (root) {
            /* Root's own rights only where the command line asks for them. */
            modes[nmodes++] = "bwrap-nobody";
            if (want == GRADE_SANDBOX_BWRAP_ROOT)
                modes[nmodes++] = "bwrap";
        } else {
            modes[nmodes++] = "bwrap";
        }
    }
    if (grade_spec(g, &base, bwrap)) {
        fprintf(stderr, "cudatutor grade: cannot describe the sandbox: out of memory, or no toolchain\n");
        goto out;
    }
    util_copy(g->mode, sizeof g->mode, "none");
    for (int i = 0; i < nmodes && !atomic_load(&g->interrupted); i++) {
        if (!strcmp(modes[i], "bwrap-nobody") && (why = nobody_blocked(g, &base))) {
            note(g, modes[i], why);
            free(why);
            why = NULL;
            continue;
        }
        if (probe(g, &base, modes[i], &facts, &why) == 0) {
            util_copy(g->mode, sizeof g->mode, modes[i]);
            break;
        }
        note(g, modes[i], why);
        free(why);
        why = NULL;
    }
    if (atomic_load(&g->interrupted)) {
        rc = EXIT_INTERRUPTED;
        goto out;
    }
    if (!strcmp(g->mode, "none")) {
        if (want == GRADE_SANDBOX_BWRAP || want == GRADE_SANDBOX_BWRAP_ROOT) {
            fprintf(stderr, "cudatutor grade: --sandbox %s, but bubblewrap does not work here: %s\n",
                    want == GRADE_SANDBOX_BWRAP ? "bwrap" : "bwrap-root", g->sandbox_notes);
            if (root && want == GRADE_SANDBOX_BWRAP)
                refuse_root(g);
            rc = EXIT_SANDBOX;
            goto out;
        }
        if (root && want == GRADE_SANDBOX_AUTO) {
            refuse_root(g);
            rc = EXIT_SANDBOX;
            goto out;
        }
        if (probe(g, &base, "none", &facts, &why)) {
            fprintf(stderr, "cudatutor grade: the workbook cannot build a kernel: %s\n", why ? why : "");
            goto out;
        }
        free(facts);
        facts = strdup("");
        fprintf(stderr,
                "cudatutor grade: ********************************************************************\n"
                "cudatutor grade: WARNING: NO SANDBOX.  Student code will run with your user's rights:\n"
                "cudatutor grade: it can read and write your files and use the network.  Only the time\n"
                "cudatutor grade: limit, the output cap and ulimits apply.\n");
        if (g->o->sandbox == GRADE_SANDBOX_NONE)
            fprintf(stderr, "cudatutor grade: (--sandbox none was asked for)\n");
        else
            fprintf(stderr, "cudatutor grade: Why: %s\n", g->sandbox_notes);
        fprintf(stderr, "cudatutor grade: ********************************************************************\n");
    }
    /* The spec every build and run of this grading goes through. */
    util_copy(base.mode, sizeof base.mode, g->mode);
    if (!strcmp(g->mode, "none")) {
        free(base.bwrap);
        base.bwrap = NULL;
    }
    base.uid = !strcmp(g->mode, "bwrap-nobody") ? GRADE_SANDBOX_NOBODY : -1;
    if (!(g->spec = util_format("%s/sandbox.json", g->state)) || save_spec(&base, g->spec)) {
        fprintf(stderr, "cudatutor grade: cannot write %s/sandbox.json\n", g->state);
        goto out;
    }
    g->sandbox_facts = facts ? facts : strdup("");
    facts = NULL;
    if (strcmp(g->mode, "none"))
        grade_say(g, "sandbox: %s (checked: %s)", g->mode, g->sandbox_facts);
    rc = 0;
out:
    grade_sandbox_free(&base);
    free(bwrap);
    free(facts);
    free(why);
    return rc;
}
