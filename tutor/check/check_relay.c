/* check_relay.c — the far end of a check through --gpu-via (check_via.h):
 * `cudatutor gpu-relay`, started by the student's command where the GPU is.
 * It reads a nonce and a job from stdin, runs the judge there with its
 * private channel as on the tutor's machine, and while it runs starts the
 * runs the tutor names beside it on further lines of stdin (the race
 * checkers, each a job line), until "done".  On stdout it writes only
 * frames, each line "@NONCE KIND ARGS":
 *   ready                      the judge is about to start (the wait is over)
 *   line TEXT                  a line of the judge's channel
 *   out HEX                    bytes of the judge's stdout and stderr (the student's text)
 *   file K HEX                 bytes of the job's K-th file, once the judge ended
 *   exit STARTED EXITED CODE SIGNALED SIGNAL TIMED_OUT SECONDS DROPPED
 *   jline J TEXT, jout J HEX, jfile J HEX, jexit J ...   the same of the J-th run beside it
 *   end
 * Every run gets stdin from /dev/null and never this process's stdout, so
 * what it prints is inside "out" frames, hex encoded: no byte of it can
 * open a line.  The nonce lives in this process's memory only.  When stdin
 * ends (the tutor cancelled, or the command died) or stdout breaks, every
 * run's process group is stopped. */
#include <errno.h>
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

/* How many runs may go beside the judge (check_via_int.h's VIA_JOBS). */
#define RELAY_JOBS 4

struct relay;

/* One run: the judge (index 0) or one beside it (1, 2, ...). */
struct relay_job {
    struct relay *rl;
    int index;
    cJSON *json;
    char **argv, **files;
    struct proc_spec spec;
    struct proc_result pr;
    pthread_t thread;
    int running;
};

struct relay {
    char nonce[33];
    atomic_int stop;            /* stdin ended or stdout broke */
    pthread_mutex_t lock;       /* the frames on stdout, and what follows */
    pthread_cond_t cond;
    int done;                   /* "done" or the end of stdin: no more runs */
    struct relay_job jobs[1 + RELAY_JOBS];
    int njobs;                  /* runs beside the judge */
};

/* One frame; a broken stdout stops the run (nobody is listening). */
static void frame(struct relay *rl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void frame(struct relay *rl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *body = util_vformat(fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&rl->lock);
    if (!body || printf("@%s %s\n", rl->nonce, body) < 0 || fflush(stdout) != 0)
        atomic_store(&rl->stop, 1);
    pthread_mutex_unlock(&rl->lock);
    free(body);
}

/* Bytes as hex frames of one kind ("out", "file 0", "jout 2"). */
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

/* A line of a run's channel: "line TEXT" for the judge, "jline J TEXT". */
static void relay_line(void *ud, const char *line)
{
    struct relay_job *job = ud;
    char cut[RELAY_LINE + 1];
    util_copy(cut, sizeof cut, line);
    for (char *p = cut; *p; p++)
        if (*p == '\r')
            *p = ' ';
    if (job->index)
        frame(job->rl, "jline %d %s", job->index, cut);
    else
        frame(job->rl, "line %s", cut);
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

/* A job line as the tutor writes it; -1 when it is not one. */
static int job_parse(struct relay *rl, struct relay_job *job, int index, const char *text)
{
    memset(job, 0, sizeof *job);
    job->rl = rl;
    job->index = index;
    if (!(job->json = cJSON_Parse(text)))
        return -1;
    const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(job->json, "cwd");
    const cJSON *lim = cJSON_GetObjectItemCaseSensitive(job->json, "timeout_s");
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(job->json, "output_cap");
    job->argv = strings_of(cJSON_GetObjectItemCaseSensitive(job->json, "argv"));
    job->files = strings_of(cJSON_GetObjectItemCaseSensitive(job->json, "files"));
    if (!job->argv || !job->argv[0] || !job->files || !cJSON_IsString(cwd) || !cJSON_IsNumber(lim) ||
        !cJSON_IsNumber(cap))
        return -1;
    job->spec = (struct proc_spec){.argv = job->argv, .cwd = cwd->valuestring, .timeout_s = lim->valuedouble,
                                   .output_cap = (size_t)cap->valuedouble, .on_line = relay_line, .ud = job,
                                   .cancel = &rl->stop, .channel = 1};
    return 0;
}

static void job_free(struct relay_job *job)
{
    proc_result_free(&job->pr);
    cJSON_Delete(job->json);
    free(job->argv);
    free(job->files);
}

/* How a run ended, after its output and files: "out"/"file K"/"exit" for
 * the judge, "jout J"/"jfile J"/"jexit J" for the others. */
static void job_send(struct relay_job *job)
{
    struct relay *rl = job->rl;
    const struct proc_result *pr = &job->pr;
    char kind[32], pre[16] = "";
    if (job->index)
        snprintf(pre, sizeof pre, " %d", job->index);
    /* Not started: why (no such folder or program here) is the workbook's
     * word, and the only output there is. */
    snprintf(kind, sizeof kind, "%sout%s", job->index ? "j" : "", pre);
    if (!pr->started)
        frame_bytes(rl, kind, pr->error, strlen(pr->error));
    else
        frame_bytes(rl, kind, pr->output, pr->output_len);
    for (int k = 0; job->files[k]; k++) {
        size_t len = 0;
        char *text = job->files[k][0] ? util_read_file(job->files[k], &len) : NULL;
        if (job->index)
            snprintf(kind, sizeof kind, "jfile%s", pre);
        else
            snprintf(kind, sizeof kind, "file %d", k);
        if (text && len == 0)
            frame(rl, "%s", kind);
        frame_bytes(rl, kind, text, text ? len : 0);
        free(text);
        if (job->index)
            break;          /* one file each beside the judge */
    }
    frame(rl, "%sexit%s %d %d %d %d %d %d %.3f %zu", job->index ? "j" : "", pre, pr->started, pr->exited,
          pr->exit_code, pr->signaled, pr->signal, pr->timed_out || pr->cancelled, pr->seconds, pr->dropped);
}

static void *job_thread(void *arg)
{
    struct relay_job *job = arg;
    if (proc_run(&job->spec, &job->pr) && !job->pr.error[0])
        util_copy(job->pr.error, sizeof job->pr.error, "cannot start");
    return NULL;
}

/* Reads the rest of stdin: a run to start beside the judge a line, then
 * "done"; its end (the tutor is gone, or wants the runs stopped) stops
 * every run. */
static void *watch_stdin(void *arg)
{
    struct relay *rl = arg;
    char line[1 << 16];
    size_t len = 0;
    for (;;) {
        char ch;
        ssize_t n = read(STDIN_FILENO, &ch, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (ch != '\n') {
            if (len + 1 < sizeof line)
                line[len++] = ch;
            continue;
        }
        line[len] = '\0';
        len = 0;
        pthread_mutex_lock(&rl->lock);
        if (!strcmp(line, "done"))
            rl->done = 1;
        else if (!rl->done && rl->njobs < RELAY_JOBS) {
            struct relay_job *job = &rl->jobs[1 + rl->njobs];
            if (job_parse(rl, job, 1 + rl->njobs, line) == 0) {
                job->running = pthread_create(&job->thread, NULL, job_thread, job) == 0;
                rl->njobs++;
            } else
                job_free(job);
        }
        pthread_cond_broadcast(&rl->cond);
        pthread_mutex_unlock(&rl->lock);
    }
    atomic_store(&rl->stop, 1);
    pthread_mutex_lock(&rl->lock);
    rl->done = 1;
    pthread_cond_broadcast(&rl->cond);
    pthread_mutex_unlock(&rl->lock);
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

int via_relay_main(void)
{
    struct relay rl = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct relay_job *judge = &rl.jobs[0];
    char *nonce = NULL, *job = NULL;
    pthread_t watcher;
    int rc = 2, parsed = 0;

    signal(SIGPIPE, SIG_IGN);
    nonce = read_line(64);
    job = nonce ? read_line((size_t)1 << 20) : NULL;
    if (!nonce || strlen(nonce) != 32 || strspn(nonce, "0123456789abcdef") != 32 || !job) {
        fprintf(stderr, "cudatutor gpu-relay: started by a check through --gpu-via, never by hand\n");
        goto out;
    }
    memcpy(rl.nonce, nonce, 33);
    parsed = 1;
    if (job_parse(&rl, judge, 0, job)) {
        fprintf(stderr, "cudatutor gpu-relay: the job is not one a check writes\n");
        goto out;
    }
    frame(&rl, "ready");
    if (pthread_create(&watcher, NULL, watch_stdin, &rl) == 0)
        pthread_detach(watcher);
    else
        rl.done = 1;
    if (proc_run(&judge->spec, &judge->pr)) {
        fprintf(stderr, "cudatutor gpu-relay: %s\n", judge->pr.error);
        goto out;
    }
    job_send(judge);
    /* The runs beside it: the tutor names each while the judge runs, then
     * says "done". */
    pthread_mutex_lock(&rl.lock);
    while (!rl.done)
        pthread_cond_wait(&rl.cond, &rl.lock);
    int n = rl.njobs;
    pthread_mutex_unlock(&rl.lock);
    for (int k = 1; k <= n; k++) {
        if (rl.jobs[k].running)
            pthread_join(rl.jobs[k].thread, NULL);
        job_send(&rl.jobs[k]);
    }
    frame(&rl, "end");
    rc = 0;
out:
    for (int k = 0; parsed && k <= rl.njobs; k++)
        job_free(&rl.jobs[k]);
    free(job);
    free(nonce);
    return rc;
}
