/* check_relay.c — the far end of a check through --gpu-via (check_via.h):
 * `cudatutor gpu-relay`, started by the student's command where the GPU is.
 * It reads a nonce and a job from stdin, runs the judge there with its
 * private channel as on the tutor's machine, and writes on stdout only
 * frames, each line "@NONCE KIND ARGS":
 *   ready                      the judge is about to start (the wait is over)
 *   line TEXT                  a line of the judge's channel
 *   out HEX                    bytes of the judge's stdout and stderr (the student's text)
 *   file K HEX                 bytes of the job's K-th file, once the judge ended
 *   exit STARTED EXITED CODE SIGNALED SIGNAL TIMED_OUT SECONDS DROPPED
 *   end
 * The judge and everything it starts get stdin from /dev/null and never
 * this process's stdout, so what they print is inside "out" frames, hex
 * encoded: no byte of it can open a line.  The nonce lives in this
 * process's memory only.  When stdin ends (the tutor cancelled, or the
 * command died) or stdout breaks, the judge's process group is stopped. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check/check_via.h"
#include "sys/proc.h"
#include "sys/util.h"

/* Bytes per "out" or "file" frame: lines stay well under proc's 1024. */
#define RELAY_CHUNK 400
/* A channel line is cut to this in a frame. */
#define RELAY_LINE 800

struct relay {
    char nonce[33];
    atomic_int stop;            /* stdin ended or stdout broke */
};

/* One frame; a broken stdout stops the run (nobody is listening). */
static void frame(struct relay *rl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void frame(struct relay *rl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *body = util_vformat(fmt, ap);
    va_end(ap);
    if (!body || printf("@%s %s\n", rl->nonce, body) < 0 || fflush(stdout) != 0)
        atomic_store(&rl->stop, 1);
    free(body);
}

/* Bytes as hex frames of one kind ("out", "file 0"). */
static void frame_bytes(struct relay *rl, const char *kind, const char *buf, size_t len)
{
    char hex[2 * RELAY_CHUNK + 1];
    for (size_t at = 0; at < len; at += RELAY_CHUNK) {
        size_t n = len - at < RELAY_CHUNK ? len - at : RELAY_CHUNK;
        for (size_t i = 0; i < n; i++)
            snprintf(hex + 2 * i, 3, "%02x", (unsigned char)buf[at + i]);
        frame(rl, "%s %s", kind, hex);
    }
}

static void relay_line(void *ud, const char *line)
{
    char cut[RELAY_LINE + 1];
    util_copy(cut, sizeof cut, line);
    for (char *p = cut; *p; p++)
        if (*p == '\r')
            *p = ' ';
    frame(ud, "line %s", cut);
}

/* Waits for stdin to end: the tutor is gone, or wants the run stopped. */
static void *watch_stdin(void *arg)
{
    struct relay *rl = arg;
    char buf[256];
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
    }
    atomic_store(&rl->stop, 1);
    return NULL;
}

/* One line of stdin, read a byte at a time so that nothing past it is
 * taken from the descriptor the watcher reads; heap, NULL at its end. */
static char *read_line(size_t max)
{
    size_t len = 0, cap = 256;
    char *s = malloc(cap);
    while (s) {
        char ch;
        ssize_t n = read(STDIN_FILENO, &ch, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || len + 1 >= max) {
            free(s);
            return NULL;
        }
        if (ch == '\n')
            break;
        if (len + 2 > cap) {
            char *g = realloc(s, cap *= 2);
            if (!g)
                free(s);
            s = g;
            if (!s)
                return NULL;
        }
        s[len++] = ch;
    }
    if (s)
        s[len] = '\0';
    return s;
}

/* The job's strings as a NULL-terminated array (pointing into j). */
static char **strings_of(const cJSON *arr)
{
    int n = cJSON_GetArraySize(arr), k = 0;
    char **v = calloc((size_t)n + 1, sizeof *v);
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        if (!v || !cJSON_IsString(e)) {
            free(v);
            return NULL;
        }
        v[k++] = e->valuestring;
    }
    return v;
}

int via_relay_main(void)
{
    struct relay rl = {0};
    char *nonce = NULL, *job = NULL, **argv = NULL, **files = NULL;
    cJSON *j = NULL;
    struct proc_result pr = {0};
    pthread_t watcher;
    int rc = 2;

    signal(SIGPIPE, SIG_IGN);
    nonce = read_line(64);
    job = nonce ? read_line((size_t)1 << 20) : NULL;
    if (!nonce || strlen(nonce) != 32 || strspn(nonce, "0123456789abcdef") != 32 || !job ||
        !(j = cJSON_Parse(job))) {
        fprintf(stderr, "cudatutor gpu-relay: started by a check through --gpu-via, never by hand\n");
        goto out;
    }
    memcpy(rl.nonce, nonce, 33);
    const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(j, "cwd");
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(j, "timeout_s");
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(j, "output_cap");
    argv = strings_of(cJSON_GetObjectItemCaseSensitive(j, "argv"));
    files = strings_of(cJSON_GetObjectItemCaseSensitive(j, "files"));
    if (!argv || !argv[0] || !files || !cJSON_IsString(cwd) || !cJSON_IsNumber(lim) || !cJSON_IsNumber(cap)) {
        fprintf(stderr, "cudatutor gpu-relay: the job is not one a check writes\n");
        goto out;
    }
    frame(&rl, "ready");
    if (pthread_create(&watcher, NULL, watch_stdin, &rl) == 0)
        pthread_detach(watcher);
    struct proc_spec spec = {.argv = argv, .cwd = cwd->valuestring, .timeout_s = lim->valuedouble,
                             .output_cap = (size_t)cap->valuedouble, .on_line = relay_line, .ud = &rl,
                             .cancel = &rl.stop, .channel = 1};
    if (proc_run(&spec, &pr)) {
        fprintf(stderr, "cudatutor gpu-relay: %s\n", pr.error);
        goto out;
    }
    /* Not started: why (no such folder or program here) is the workbook's
     * word, and the only output there is. */
    if (!pr.started)
        frame_bytes(&rl, "out", pr.error, strlen(pr.error));
    else
        frame_bytes(&rl, "out", pr.output, pr.output_len);
    for (int k = 0; files[k]; k++) {
        size_t len = 0;
        char *text = files[k][0] ? util_read_file(files[k], &len) : NULL, kind[16];
        snprintf(kind, sizeof kind, "file %d", k);
        if (text && len == 0)
            frame(&rl, "%s", kind);
        frame_bytes(&rl, kind, text, text ? len : 0);
        free(text);
    }
    frame(&rl, "exit %d %d %d %d %d %d %.3f %zu", pr.started, pr.exited, pr.exit_code, pr.signaled, pr.signal,
          pr.timed_out || pr.cancelled, pr.seconds, pr.dropped);
    frame(&rl, "end");
    rc = 0;
out:
    proc_result_free(&pr);
    cJSON_Delete(j);
    free(argv);
    free(files);
    free(job);
    free(nonce);
    return rc;
}
