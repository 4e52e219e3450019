/* check_pch.c — the host compiler's share of a compile with its headers
 * precompiled.  cudafe++ writes the host's side as one preprocessed file
 * whose first ~26,000 lines are the headers (CUDA's runtime, libstdc++,
 * lab.h) and whose last few hundred are the student's code: the host
 * compiler spends nearly all of its third of a second parsing the headers,
 * the same text on every edit.  That text is compiled once into a
 * precompiled header (gcc's .gch), kept under the hash of its bytes and of
 * the command that compiles it, and the file the host compiler reads
 * becomes `#include` of it and the student's part: the same object code,
 * in less than half the time.  gcc checks a .gch against its own version
 * and options and parses the header as text where it cannot use it, so a
 * stale or foreign .gch costs time, never a wrong object. */
#include "check/check_pch.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/proc.h"
#include "sys/sha256.h"
#include "sys/util.h"

/* Names the form of what is hashed into a key. */
#define PCH_VERSION "cudatutor-host-pch 1"
/* Precompiled headers kept in the folder (about 14 MB each): the labs'
 * two sets of headers (with cooperative groups and without) and a few a
 * student's own includes make. */
#define PCH_KEEP 4

/* The file a line marker (`# 12 "PATH" 1 3`) names, as [*name, *name +
 * *len); 0 when the line is no such marker. */
static int marker_file(const char *line, const char **name, size_t *len)
{
    const char *p = line;
    if (p[0] != '#' || p[1] != ' ' || p[2] < '0' || p[2] > '9')
        return 0;
    p += 2;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p[0] != ' ' || p[1] != '"')
        return 0;
    p += 2;
    const char *q = strchr(p, '"');
    const char *eol = strchr(p, '\n');
    if (!q || (eol && q > eol))
        return 0;
    *name = p;
    *len = (size_t)(q - p);
    return 1;
}

/* Where the headers end in cudafe++'s file: the start of the first line
 * marker that returns to the student's file (the one its first line names)
 * after a marker of another file.  The text before it, its first line
 * aside, is the header; NULL when the file has no such shape. */
static const char *header_end(const char *text, const char **header)
{
    const char *stu, *name, *line;
    size_t stu_len, len;
    int left = 0;
    if (!marker_file(text, &stu, &stu_len) || !(line = strchr(text, '\n')))
        return NULL;
    *header = ++line;
    for (; *line; line++) {
        if (marker_file(line, &name, &len)) {
            int home = len == stu_len && !memcmp(name, stu, len);
            if (home && left)
                return line;
            left |= !home;
        }
        if (!(line = strchr(line, '\n')))
            return NULL;
    }
    return NULL;
}

/* cmd with the first `from` replaced by `to`; NULL when cmd has no `from`. */
static char *replace(const char *cmd, const char *from, const char *to)
{
    const char *at = strstr(cmd, from);
    if (!at)
        return NULL;
    return util_format("%.*s%s%s", (int)(at - cmd), cmd, to, at + strlen(from));
}

/* "\"PATH\"", as nvcc quotes the paths of its commands. */
static char *quoted(const char *path)
{
    return util_format("\"%s\"", path);
}

/* Keeps the PCH_KEEP newest headers of dir (with their .gch), the one
 * just made among them. */
static void prune(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct { char name[96]; double mtime; } kept[PCH_KEEP + 1];
    int n = 0;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        struct stat st;
        if (len < 3 || len >= sizeof kept[0].name || strcmp(e->d_name + len - 2, ".h"))
            continue;
        char *path = util_format("%s/%s", dir, e->d_name);
        int seen = path && stat(path, &st) == 0;
        free(path);
        if (!seen)
            continue;
        /* in by age, newest first; the oldest of PCH_KEEP + 1 goes */
        double t = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9;
        int at = n++;
        while (at > 0 && kept[at - 1].mtime < t) {
            kept[at] = kept[at - 1];
            at--;
        }
        util_copy(kept[at].name, sizeof kept[at].name, e->d_name);
        kept[at].mtime = t;
        if (n == PCH_KEEP + 1) {
            char *old = util_format("%s/%s", dir, kept[PCH_KEEP].name), *gch = old ? util_format("%s.gch", old) : NULL;
            if (gch)
                unlink(gch);
            if (old)
                unlink(old);
            free(old);
            free(gch);
            n = PCH_KEEP;
        }
    }
    closedir(d);
}

/* The .gch of the header [text, end) as hdr for host_cmd, made when dir
 * lacks it: 0 when it is there.  -1 when it could not be made (its
 * compile failed or said anything: not a header to precompile), and
 * while another check makes it: a header without its .gch is either. */
static int pch_make(const struct pch_job *job, const char *hdr, const char *text, const char *end,
                    const char *cfile_q, const char *obj_q)
{
    char *gch = util_format("%s.gch", hdr);
    char *tmp = util_format("%s.gch.%ld", hdr, (long)getpid());
    char *hdr_q = quoted(hdr), *tmp_q = tmp ? quoted(tmp) : NULL;
    char *a = NULL, *b = NULL, *cmd = NULL;
    struct proc_result pr = {0};
    int rc = -1;

    if (!gch || !tmp || !hdr_q || !tmp_q)
        goto out;
    if (util_is_file(gch)) {
        rc = 0;
        goto out;
    }
    if (util_is_file(hdr) || util_write_file(hdr, text, (size_t)(end - text)))
        goto out;
    if (!(a = replace(job->host_cmd, cfile_q, hdr_q)) || !(b = replace(a, obj_q, tmp_q)) ||
        !(cmd = replace(b, " -x c++ ", " -x c++-header ")))
        goto out;
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = job->timeout_s, .output_cap = 4096, .env = job->env};
    if (proc_run(&spec, &pr) == 0 && pr.exited && pr.exit_code == 0 && pr.output_len == 0 && !pr.dropped &&
        rename(tmp, gch) == 0) {
        rc = 0;
        prune(job->dir);
    }
out:
    if (tmp)
        unlink(tmp);
    proc_result_free(&pr);
    free(gch);
    free(tmp);
    free(hdr_q);
    free(tmp_q);
    free(a);
    free(b);
    free(cmd);
    return rc;
}

int pch_rewrite(const struct pch_job *job, struct pch_use *use)
{
    char key[2 * SHA256_BYTES + 1];
    size_t len = 0;
    char *text = util_read_file(job->cfile, &len), *hdr = NULL, *cfile_q = NULL, *obj_q = NULL;
    char *masked = NULL, *masked2 = NULL, *rest = NULL;
    const char *header = NULL, *end = text ? header_end(text, &header) : NULL;
    int rc = -1;

    memset(use, 0, sizeof *use);
    if (!end || strpbrk(job->dir, "\"\\\n") || !(cfile_q = quoted(job->cfile)) || !(obj_q = quoted(job->obj)))
        goto out;
    /* The key: the header's bytes and the command that compiles it, its
     * own file names masked (they differ from lab to lab), and nvcc's
     * variables, PATH among them (which gcc runs). */
    if (!(masked = replace(job->host_cmd, cfile_q, "\"IN\"")) || !(masked2 = replace(masked, obj_q, "\"OUT\"")))
        goto out;
    struct sha256 h;
    unsigned char d[SHA256_BYTES];
    sha256_init(&h);
    sha256_update(&h, PCH_VERSION, sizeof PCH_VERSION);
    sha256_update(&h, masked2, strlen(masked2) + 1);
    for (char *const *e = job->env; e && *e; e++)
        sha256_update(&h, *e, strlen(*e) + 1);
    sha256_update(&h, header, (size_t)(end - header));
    sha256_final(&h, d);
    for (int i = 0; i < SHA256_BYTES; i++)
        snprintf(key + 2 * i, 3, "%02x", d[i]);

    if (util_mkdirs(job->dir) || !(hdr = util_format("%s/%s.h", job->dir, key)) ||
        pch_make(job, hdr, header, end, cfile_q, obj_q))
        goto out;
    /* -Winvalid-pch: a .gch gcc will not use (another gcc made it) is
     * named in the compile's output, and dropped (pch_restore) */
    if (!(use->gch = util_format("%s.gch", hdr)) || !(use->cmd = util_format("%s -Winvalid-pch", job->host_cmd)) ||
        !(rest = util_format("#include \"%s\"\n%s", hdr, end)) || util_write_file(job->cfile, rest, strlen(rest)))
        goto out;
    use->orig = text;
    use->orig_len = len;
    text = NULL;
    rc = 0;
out:
    if (rc)
        pch_restore(job, use, NULL);
    free(text);
    free(hdr);
    free(cfile_q);
    free(obj_q);
    free(masked);
    free(masked2);
    free(rest);
    return rc;
}

int pch_restore(const struct pch_job *job, struct pch_use *use, const char *output)
{
    int rc = use->orig ? util_write_file(job->cfile, use->orig, use->orig_len) : 0;
    if (output && use->gch && strstr(output, use->gch)) {
        unlink(use->gch);
        use->gch[strlen(use->gch) - 4] = '\0';
        unlink(use->gch);       /* its header: the next compile makes both */
    }
    free(use->cmd);
    free(use->gch);
    free(use->orig);
    memset(use, 0, sizeof *use);
    return rc;
}
