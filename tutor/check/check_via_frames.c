/* check_via_frames.c — what goes to and comes back from a run through the
 * student's GPU command (see check_via.h): the jobs' lines for the relay
 * (written with jsonw), and the relay's frames, taken only under the run's
 * nonce and in their order, for the judge and the race checkers beside it
 * (via_submit hands those to the relay); every other line is the command's
 * own text.  The far judge's report comes back as bytes and is read with
 * the result API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_via_int.h"
#include "model/result.h"
#include "sys/jsonw.h"
#include "sys/util.h"

/* The relay's frame kinds (check_relay.c writes them). */
#define VIA_FRAMES(X) \
    X(FRAME_READY, "ready") X(FRAME_LINE, "line") X(FRAME_OUT, "out") X(FRAME_FILE, "file") \
    X(FRAME_EXIT, "exit") X(FRAME_JLINE, "jline") X(FRAME_JOUT, "jout") X(FRAME_JFILE, "jfile") \
    X(FRAME_JEXIT, "jexit") X(FRAME_END, "end")
#define VIA_ENUM(id, word) id,
enum via_frame { VIA_FRAMES(VIA_ENUM) FRAME_COUNT };
#define VIA_WORD(id, word) word,
static const char *const frame_words[FRAME_COUNT] = {VIA_FRAMES(VIA_WORD)};

/* Keeps the last VIA_TEXT bytes of the command's own lines. */
static void keep_text(struct via_call *c, const char *line)
{
    size_t have = strlen(c->text), add = strlen(line) + 1;
    if (add >= sizeof c->text) {
        util_copy(c->text, sizeof c->text, line + add - sizeof c->text + 1);
        return;
    }
    if (have + add >= sizeof c->text) {
        size_t drop = have + add - sizeof c->text + 1;
        memmove(c->text, c->text + drop, have - drop + 1);
        have -= drop;
    }
    snprintf(c->text + have, sizeof c->text - have, "%s%s", have ? "\n" : "", line);
}

static int hex_value(int ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Appends the bytes of `hex` to buf (grown up to `cap_max`, later bytes
 * counted in *dropped).  -1 when hex is not lower-case pairs. */
static int append_hex(char **buf, size_t *len, size_t *cap, size_t cap_max, size_t *dropped, const char *hex)
{
    size_t n = strlen(hex);
    if (n % 2)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        if (*len >= cap_max) {
            if (dropped)
                (*dropped)++;
            continue;
        }
        char *b = util_grow(*buf, cap, *len + 2, 1);
        if (!b)
            return -1;
        *buf = b;
        (*buf)[(*len)++] = (char)(hi << 4 | lo);
        (*buf)[*len] = '\0';
    }
    return 0;
}

/* "STARTED EXITED CODE SIGNALED SIGNAL TIMED_OUT SECONDS DROPPED" into j;
 * 0, or -1 when it is not that. */
static int take_exit(struct proc_result *j, const char *args)
{
    size_t dropped = 0;
    if (sscanf(args, "%d %d %d %d %d %d %lf %zu", &j->started, &j->exited, &j->exit_code, &j->signaled, &j->signal,
               &j->timed_out, &j->seconds, &dropped) != 8)
        return -1;
    j->dropped += dropped;
    return 0;
}

/* Once the judge ended no run is started beside it: "done" tells the relay
 * to send theirs and end, and a closed stdin to stop them first when the
 * judge did not pass (a kernel that failed needs no race report). */
static void judge_ended(struct via_call *c)
{
    struct result h;
    char err[64];
    int pass = c->file[0] && result_parse(c->file[0], &h, err, sizeof err) == 0;
    if (pass) {
        pass = h.status == STATUS_PASS;
        result_free(&h);
    }
    if (c->in_w < 0)
        return;
    if (!pass && c->njobs) {
        close(c->in_w);
        c->in_w = -1;
    } else if (write(c->in_w, "done\n", 5) != 5) {
        close(c->in_w);
        c->in_w = -1;
    }
}

/* "J ..." of a job frame: the job (1 for the first via_submit gave), and
 * what follows. */
static struct via_job *job_of(struct via_call *c, const char *args, int *k, const char **rest)
{
    char *end;
    long j = strtol(args, &end, 10);
    if (end == args || j < 1 || j > c->njobs || (*end && *end != ' '))
        return NULL;
    *k = (int)j - 1;
    *rest = end + (*end == ' ');
    return c->jobs[*k];
}

/* A frame of a run beside the judge. */
static void job_frame(struct via_call *c, enum via_frame f, const char *args)
{
    int k;
    const char *rest;
    struct via_job *job = job_of(c, args, &k, &rest);
    if (!job || job->done)
        return;
    switch (f) {
    case FRAME_JLINE:
        if (job->on_line)
            job->on_line(job->ud, rest);
        break;
    case FRAME_JOUT:
        append_hex(&job->pr.output, &job->pr.output_len, &c->job_out_alloc[k], job->output_cap, &job->pr.dropped,
                   rest);
        break;
    case FRAME_JFILE:
        append_hex(&c->job_file[k], &c->job_file_len[k], &c->job_file_cap[k], (size_t)64 << 20, NULL, rest);
        break;
    case FRAME_JEXIT:
        if (take_exit(&job->pr, rest))
            break;
        if (job->file && job->file[0])
            (void)util_write_file(job->file, c->job_file[k] ? c->job_file[k] : "", c->job_file_len[k]);
        job->done = 1;
        break;
    default:
        break;
    }
}

char *via_job_line(char *const *argv, const char *cwd, double timeout_s, size_t output_cap, const char *const *files,
                   int nfiles)
{
    struct jsonw w;
    jsonw_init(&w, 0);
    jsonw_object(&w);
    jsonw_key(&w, "argv");
    jsonw_array(&w);
    for (int i = 0; argv[i]; i++)
        jsonw_string(&w, argv[i]);
    jsonw_end_array(&w);
    jsonw_key(&w, "cwd");
    jsonw_string(&w, cwd ? cwd : ".");
    jsonw_key(&w, "timeout_s");
    jsonw_double(&w, timeout_s);
    jsonw_key(&w, "output_cap");
    jsonw_double(&w, (double)output_cap);
    jsonw_key(&w, "files");
    jsonw_array(&w);
    for (int k = 0; k < nfiles; k++)
        jsonw_string(&w, files[k] ? files[k] : "");
    jsonw_end_array(&w);
    jsonw_end_object(&w);
    return jsonw_take(&w);
}

int via_submit(struct check_state *r, struct via_job *job)
{
    struct via_call *c = r->via_live;
    if (!c || c->exit_seen || c->in_w < 0 || c->njobs >= VIA_JOBS)
        return -1;
    const char *files[] = {job->file};
    /* The tutor's limits stop the run first; the relay's is a backstop. */
    char *line = via_job_line(job->argv, job->cwd, job->timeout_s + GRACE_MAX_S, job->output_cap, files, 1);
    int rc = line && write(c->in_w, line, strlen(line)) == (ssize_t)strlen(line) ? 0 : -1;
    free(line);
    if (rc)
        return -1;
    memset(&job->pr, 0, sizeof job->pr);
    job->done = 0;
    c->jobs[c->njobs++] = job;
    return 0;
}

/* A line of the command's stdout or stderr: a frame when it opens with
 * "@NONCE ", else the command's own text.  Frames count in their order
 * only: nothing before "ready", nothing after "exit". */
void via_line(void *ud, const char *line)
{
    struct via_call *c = ud;
    size_t nl = strlen(c->nonce);
    if (!c->nonce[0] || line[0] != '@' || strncmp(line + 1, c->nonce, nl) || line[1 + nl] != ' ') {
        keep_text(c, line);
        /* srun names the job it waits for: a cancel then scancels it. */
        long job;
        if (sscanf(line, "srun: job %ld ", &job) == 1 && job > 0)
            c->job = job;
        return;
    }
    const char *kind = line + 2 + nl, *args = kind + strcspn(kind, " ");
    size_t klen = (size_t)(args - kind);
    args += *args == ' ';
    int f = 0;
    while (f < FRAME_COUNT && (strlen(frame_words[f]) != klen || strncmp(kind, frame_words[f], klen)))
        f++;
    if (f == FRAME_COUNT || (f != FRAME_READY && !c->ready_at))
        return;
    if (f >= FRAME_JLINE && f <= FRAME_JEXIT) {
        job_frame(c, (enum via_frame)f, args);
        return;
    }
    if (c->exit_seen)
        return;
    switch ((enum via_frame)f) {
    case FRAME_READY:
        if (!c->ready_at) {
            c->ready_at = util_now();
            if (c->run)
                c->run->run_t0 = c->ready_at;   /* the check's bound runs from the judge's start */
            if (c->progress)
                c->progress(c->ud, c->stage, c->i, c->n, "started on the GPU");
        }
        break;
    case FRAME_LINE:
        if (c->inner && c->inner->on_line)
            c->inner->on_line(c->inner->ud, args);
        break;
    case FRAME_OUT:
        append_hex(&c->judge.output, &c->judge.output_len, &c->out_alloc, c->out_cap, &c->judge.dropped, args);
        break;
    case FRAME_FILE: {
        int k = atoi(args);
        const char *hex = strchr(args, ' ');
        if (k < 0 || k >= VIA_FILES)
            break;
        c->file_seen[k] = 1;
        if (hex)
            append_hex(&c->file[k], &c->file_len[k], &c->file_cap[k], (size_t)64 << 20, NULL, hex + 1);
        break;
    }
    case FRAME_EXIT:
        if (take_exit(&c->judge, args) == 0) {
            c->exit_seen = 1;
            judge_ended(c);
        }
        break;
    case FRAME_JLINE:
    case FRAME_JOUT:
    case FRAME_JFILE:
    case FRAME_JEXIT:
    case FRAME_END:         /* the relay's last word */
    case FRAME_COUNT:
        break;
    }
}
