/* workspace.c — see workspace.h. */
#include "model/workspace.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/util.h"

char *workspace_kernel(const char *root, const struct lab *lab)
{
    return util_format("%s/%s/kernel.cu", root, lab->dir);
}

char *workspace_solution(const char *root, const struct lab *lab, char *err, size_t errlen)
{
    char *path = util_format("%s/%s/kernel.cu", root, lab->solution_dir);
    char *text = path ? util_read_file(path, NULL) : NULL;
    if (!text)
        snprintf(err, errlen, "cannot read %s/kernel.cu: %s", lab->solution_dir,
                 path ? strerror(errno) : "out of memory");
    free(path);
    return text;
}

char *workspace_stub(const char *root, const struct lab *lab, char *err, size_t errlen)
{
    char *path = util_format("%s/%s", root, lab->stub);
    char *text = path ? util_read_file(path, NULL) : NULL;
    if (!text && path && errno == ENOENT)
        snprintf(err, errlen, "the pristine stub %s is missing: restore it with `git checkout -- %s`", lab->stub,
                 lab->stub);
    else if (!text)
        snprintf(err, errlen, "cannot read the pristine stub %s: %s", lab->stub,
                 path ? strerror(errno) : "out of memory");
    free(path);
    return text;
}

int workspace_present(const char *root, const struct lab *lab, const char *name, char *err, size_t errlen)
{
    char *dir = util_format("%s/%s", root, lab->dir), *path = util_format("%s/%s/%s", root, lab->dir, name);
    struct stat st;
    int rc = 0;
    if (!dir || !path) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    } else if (!util_is_dir(dir)) {
        snprintf(err, errlen, "the lab folder %s is missing: restore it with `git checkout -- %s` "
                              "(or only its stub with `cudatutor reset %s`)", lab->dir, lab->dir, lab->id);
        rc = -1;
    } else if (util_is_file(path) || (!strcmp(name, "kernel.cu") && lstat(path, &st) == 0)) {
        /* A kernel.cu that is there but no plain file goes on to the
         * check, whose intake rule says what is wrong with it. */
        rc = 0;
    } else if (!strcmp(name, "kernel.cu")) {
        snprintf(err, errlen, "%s/kernel.cu is missing: restore it with `cudatutor reset %s` (the stub) "
                              "or `git checkout -- %s/kernel.cu` (your last commit)", lab->dir, lab->id, lab->dir);
        rc = -1;
    } else {
        snprintf(err, errlen, "%s/%s is missing: restore it with `git checkout -- %s/%s`", lab->dir, name,
                 lab->dir, name);
        rc = -1;
    }
    free(dir);
    free(path);
    return rc;
}

/* A backup name that is not taken yet: kernel.cu.bak-20251122-065012[-N]. */
static char *backup_name(const char *kernel)
{
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    char *name = util_format("%s.bak-%s", kernel, stamp);
    for (int i = 2; name && access(name, F_OK) == 0 && i < 100; i++) {
        free(name);
        name = util_format("%s.bak-%s-%d", kernel, stamp, i);
    }
    return name;
}

int workspace_reset(const char *root, const struct lab *lab, char *backup, size_t backuplen, char *err,
                    size_t errlen)
{
    char *kernel = workspace_kernel(root, lab), *stub = NULL, *mine = NULL, *bak = NULL, *slash;
    int rc = -1, made;

    if (backuplen)
        backup[0] = '\0';
    if (!kernel) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (!(stub = workspace_stub(root, lab, err, errlen)))
        goto out;
    mine = util_read_file(kernel, NULL);
    if (mine && strcmp(mine, stub)) {
        if (!(bak = backup_name(kernel)) || util_write_file(bak, mine, strlen(mine)) != 0) {
            snprintf(err, errlen, "cannot back up %s: %s (nothing was changed)", kernel,
                     bak ? strerror(errno) : "out of memory");
            goto out;
        }
        snprintf(backup, backuplen, "%s", bak);
    }
    /* A deleted lab folder gets its kernel back; its lesson needs git. */
    slash = strrchr(kernel, '/');
    *slash = '\0';
    made = util_mkdirs(kernel);
    *slash = '/';
    if (made != 0 || util_write_file(kernel, stub, strlen(stub)) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", kernel, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    free(kernel);
    free(stub);
    free(mine);
    free(bak);
    return rc;
}

int workspace_edit(const char *path, int line, char *err, size_t errlen)
{
    const char *ed = getenv("VISUAL");
    char plus[24] = "", *cmd = NULL;
    struct sigaction ign = {0}, old_int, old_quit;
    int status = 0, rc = -1;
    pid_t pid;

    if (!ed || !*ed)
        ed = getenv("EDITOR");
    if (!ed || !*ed)
        ed = "vi";
    /* "+LINE file" is the convention vi, emacs, nano, micro, kak, joe and
     * most others share; an editor outside it is the user's choice to make. */
    if (line > 0)
        snprintf(plus, sizeof plus, "+%d", line);
    /* $EDITOR may carry arguments ("code -w"): the shell splits it, as git
     * and crontab do. */
    if (!(cmd = util_format("%s \"$@\"", ed))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char *argv[] = {"/bin/sh", "-c", cmd, (char *)ed, plus[0] ? plus : (char *)path, plus[0] ? (char *)path : NULL,
                    NULL};

    /* ^C in the editor is the editor's business, not a reason to quit. */
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    fflush(NULL);
    if ((pid = fork()) < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);      /* the tutor blocks some outside its waits */
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGWINCH, SIG_DFL);
        execv(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        snprintf(err, errlen, "cannot run the editor \"%s\" (set $VISUAL or $EDITOR)", ed);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        snprintf(err, errlen, "the editor \"%s\" ended with %s %d", ed, WIFEXITED(status) ? "status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    else
        rc = 0;
out:
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    free(cmd);
    return rc;
}
