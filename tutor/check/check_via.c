/* check_via.c — the GPU elsewhere (see check_via.h): the command's
 * settings, and the question of which GPU is at the other end, kept in
 * gpu-via.json.  The run through the command is check_via_run.c; the far
 * end is check_relay.c. */
#include "check/check_via.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/calibrate.h"
#include "check/check_via_int.h"
#include "sys/util.h"

/* ---- settings ----------------------------------------------------------- */

/* A bound in seconds, all of text; -1 when it is not one. */
static int parse_wait(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    while (end && isspace((unsigned char)*end))
        end++;
    if (errno || end == text || *end || !(v > 0) || v > 86400)
        return -1;
    *out = v;
    return 0;
}

/* Reads ROOT/cudatutor.conf: "KEY = VALUE" lines, '#' comments. */
static int read_config(const char *root, char **cmd, double *wait_s, char *err, size_t errlen)
{
    char *path = util_format("%s/%s", root, VIA_CONFIG);
    char *text = path ? util_read_file(path, NULL) : NULL;
    int rc = 0, lineno = 0;

    for (char *line = text, *next; line && *line; line = next) {
        next = line + strcspn(line, "\n");
        if (*next)
            *next++ = '\0';
        lineno++;
        line += strspn(line, " \t");
        if (!*line || *line == '#')
            continue;
        char *eq = strchr(line, '='), *key_end = eq;
        if (!eq) {
            snprintf(err, errlen, "%s:%d: not a setting (KEY = VALUE): %.80s", VIA_CONFIG, lineno, line);
            rc = -1;
            break;
        }
        while (key_end > line && isspace((unsigned char)key_end[-1]))
            key_end--;
        *key_end = '\0';
        char *val = eq + 1 + strspn(eq + 1, " \t"), *end = val + strlen(val);
        while (end > val && isspace((unsigned char)end[-1]))
            *--end = '\0';
        if (!strcmp(line, "gpu-via")) {
            free(*cmd);
            *cmd = strdup(val);
        } else if (!strcmp(line, "gpu-via-wait")) {
            if (parse_wait(val, wait_s)) {
                snprintf(err, errlen, "%s:%d: gpu-via-wait takes seconds (got \"%.40s\")", VIA_CONFIG, lineno, val);
                rc = -1;
                break;
            }
        } else {
            snprintf(err, errlen, "%s:%d: unknown setting \"%.40s\" (known: gpu-via, gpu-via-wait)", VIA_CONFIG,
                     lineno, line);
            rc = -1;
            break;
        }
    }
    free(text);
    free(path);
    return rc;
}

int via_config(const char *root, const char *flag_cmd, double flag_wait, struct via_setup *s, char *err,
               size_t errlen)
{
    const char *env = getenv("CUDATUTOR_GPU_VIA"), *env_wait = getenv("CUDATUTOR_GPU_VIA_WAIT");
    char *file_cmd = NULL;
    double file_wait = 0, env_w = 0;

    memset(s, 0, sizeof *s);
    if (read_config(root, &file_cmd, &file_wait, err, errlen)) {
        free(file_cmd);
        return -1;
    }
    if (env_wait && *env_wait && parse_wait(env_wait, &env_w)) {
        snprintf(err, errlen, "CUDATUTOR_GPU_VIA_WAIT takes seconds (got \"%.40s\")", env_wait);
        free(file_cmd);
        return -1;
    }
    const char *cmd = flag_cmd ? flag_cmd : env ? env : file_cmd;
    s->wait_s = flag_wait > 0 ? flag_wait : env_w > 0 ? env_w : file_wait > 0 ? file_wait : VIA_WAIT_S;
    if (cmd && cmd[strspn(cmd, " \t")])
        s->cmd = strdup(cmd);
    free(file_cmd);
    return 0;
}

void via_setup_free(struct via_setup *s)
{
    free(s->cmd);
    free(s->memo);
    s->cmd = s->memo = NULL;
}

void via_apply(struct check_opts *o, const struct via_setup *s)
{
    if (!s->cmd)
        return;
    o->gpu_via = s->cmd;
    o->gpu_via_wait_s = s->wait_s;
    o->gpu_arch = s->arch[0] ? s->arch : NULL;
    o->gpu_name = s->name[0] ? s->name : NULL;
    o->gpu_via_error = s->error[0] ? s->error : NULL;
    o->gpu_via_retry_s = s->retry_s;
    o->gpu_via_memo = s->memo;
}

/* ---- which GPU ---------------------------------------------------------- */

/* "NVIDIA H100 80GB HBM3, 9.0" among the lines: the model and sm_90. */
static int parse_gpu(const char *text, struct via_setup *s)
{
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        size_t n = strcspn(line, "\r\n");
        char copy[200];
        if (n >= sizeof copy)
            continue;
        memcpy(copy, line, n);
        copy[n] = '\0';
        char *comma = strrchr(copy, ',');
        int major, minor, used = 0;
        if (!comma || sscanf(comma + 1, " %d.%d %n", &major, &minor, &used) != 2 || comma[1 + used] ||
            major < 1 || major > 99 || minor < 0 || minor > 9)
            continue;
        *comma = '\0';
        char *name = copy + strspn(copy, " \t");
        if (!*name)
            continue;
        util_copy(s->name, sizeof s->name, name);
        snprintf(s->arch, sizeof s->arch, "sm_%d%d", major, minor);
        return 0;
    }
    return -1;
}

void via_ask(struct via_setup *s, check_progress_fn progress, void *ud)
{
    char *const args[] = {"nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader", NULL};
    struct via_call c = {.cmd = s->cmd, .wait_s = s->wait_s, .progress = progress, .ud = ud, .stage = STAGE_GPU};
    struct proc_result outer = {0};

    s->error[0] = '\0';
    s->retry_s = 0;
    if (!s->cmd || via_memo_load(s))
        return;
    if (progress)
        progress(ud, STAGE_GPU, 0, 0, "asking the GPU at the other end which it is");
    if (via_exec(&c, args, 0, &outer)) {
        snprintf(s->error, sizeof s->error, "the GPU command `%s` could not be run: %s", s->cmd, outer.error);
    } else if (outer.timed_out) {
        snprintf(s->error, sizeof s->error, "the GPU run did not start in %.0f s (asking `%s` for its GPU)",
                 s->wait_s, s->cmd);
    } else if (!outer.exited || outer.exit_code || parse_gpu(outer.output, s)) {
        via_describe_failure(&c, &outer, s->error, sizeof s->error);
        s->name[0] = s->arch[0] = '\0';
    } else {
        via_memo_store(s);
    }
    if (s->error[0]) {
        via_memo_failure(s->memo, s->cmd, s->error);
        s->retry_s = VIA_RETRY_S;
    }
    proc_result_free(&outer);
}

int via_prepare(struct via_setup *s, const char *root, const char *progress_flag, const char *flag_cmd,
                double flag_wait, check_progress_fn progress, void *ud, char *err, size_t errlen)
{
    if (via_config(root, flag_cmd, flag_wait, s, err, errlen))
        return -1;
    if (!s->cmd)
        return 0;
    char *cal = calibrate_path(root, progress_flag), *slash = cal ? strrchr(cal, '/') : NULL;
    s->memo = slash ? util_format("%.*s/%s", (int)(slash - cal), cal, VIA_CACHE) : NULL;
    via_ask(s, progress, ud);
    free(cal);
    return 0;
}
