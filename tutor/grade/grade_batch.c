/* grade_batch.c — the race checkers of several judged passes of one family
 * at once: each tool runs once over the batch (the judge's --batch)
 * instead of once a pass.  Every compute-sanitizer process costs the
 * machine a CUDA context, which the driver creates one at a time across
 * processes, and the tool its start-up; on one H200 the three tools' runs
 * were most of a class's grading time (docs/harness.md 4.1).
 *
 * A batch clears its builds only when each of the three tools found
 * nothing and every build passed under each.  Anything else (a finding, a
 * failure, a crash, a timeout, a build without a report, under any tool)
 * clears none of them: each then runs the three tools alone, in its final
 * check, exactly as without a batch.  So a batch can save time and never
 * make a verdict, and a kernel that breaks a batch costs the others their
 * time, not a grade.  All three, not each tool for itself: a kernel that
 * wrote outside its buffers under one tool (which that tool does not
 * watch) could have reached the tool's own memory and blinded it to the
 * builds after it; memcheck would have reported the writes. */
#include "grade/grade_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_opts.h"
#include "model/result.h"
#include "sys/util.h"

static const char *const tools[] = CHECK_SAN_TOOLS;
enum { TOOLS = sizeof tools / sizeof tools[0] };

/* A batch's bound: its start and each build's trials under a tool take
 * seconds; one past this has a build that hangs, and its builds run alone. */
#define BATCH_START_S 60
#define BATCH_BUILD_S 20

/* One build's line for one tool (CHECK_SAN_BATCH_FILE), split in place. */
struct line {
    char *text;
    char *sanitizer, *kernels, *judge;
    char *words[128];           /* the judge's options */
    int nwords;
};

struct tool_run {
    struct grade *g;
    struct grade_gates *gs;
    int gi, n, tool;
    char *const *wd;
    struct line *lines;         /* n of them, this tool's */
    int cleared;
    pthread_t t;
};

/* The line of tool in folder wd's batch file into l: 0, or -1 when there
 * is none to use. */
static int line_read(const char *wd, const char *tool, struct line *l)
{
    char *path = util_format("%s/%s", wd, CHECK_SAN_BATCH_FILE);
    char *text = path ? util_read_file(path, NULL) : NULL;
    size_t tl = strlen(tool);
    free(path);
    *l = (struct line){0};
    for (char *p = text, *eol; p && *p; p = eol + 1) {
        if (!(eol = strchr(p, '\n')))
            break;
        if (strncmp(p, tool, tl) || p[tl] != '\t')
            continue;
        *eol = 0;
        char *field[4];
        int nf = 0;
        for (char *w = p; w && l->nwords < 127;) {
            char *tab = strchr(w, '\t');
            if (tab)
                *tab = 0;
            if (nf < 4)
                field[nf++] = w;
            else
                l->words[l->nwords++] = w;
            w = tab ? tab + 1 : NULL;
        }
        if (nf < 4 || l->nwords == 0)
            break;
        l->text = text;
        l->sanitizer = field[1];
        l->kernels = field[2];
        l->judge = field[3];
        return 0;
    }
    free(text);
    return -1;
}

/* The judge's report of one build under the tool: whether it passed; why
 * not, in words, into why. */
static int report_passed(const char *wd, const char *tool, char *why, size_t len)
{
    char *path = util_format("%s/sanitize-%s.json", wd, tool), err[128];
    char *text = path ? util_read_file(path, NULL) : NULL;
    struct result h = {0};
    int read = text && result_merge_judge(&h, text, err, sizeof err) == 0;
    int passed = read && h.status == STATUS_PASS;
    snprintf(why, len, "%s%s%s", !text ? "no report" : !read ? err : status_name(h.status),
             read && h.nmsgs ? ": " : "", read && h.nmsgs ? h.messages[0] : "");
    result_free(&h);
    free(text);
    free(path);
    return passed;
}

/* The batch file of one tool: each build's options, the GPU lock this run
 * holds in place of the one its judge's run held (it may have run on
 * another GPU).  0, or -1. */
static int batch_write(const char *path, const struct line *lines, int n, const char *lock)
{
    FILE *f = fopen(path, "we");
    if (!f)
        return -1;
    for (int b = 0; b < n; b++) {
        for (int i = 0; i < lines[b].nwords; i++) {
            int is_lock = i > 0 && !strcmp(lines[b].words[i - 1], "--gpu-lock");
            fprintf(f, "%s%s", i ? "\t" : "", is_lock ? lock : lines[b].words[i]);
        }
        fputc('\n', f);
    }
    return fclose(f) ? -1 : 0;
}

/* The kernels a tool watches over the whole batch: each build's, once;
 * 0 in *watch_all when one build's are not known or there are too many. */
static int kernels_union(const struct line *lines, int n, char **names, int *watch_all)
{
    int k = 0;
    *watch_all = 0;
    for (int b = 0; b < n && !*watch_all; b++) {
        if (!lines[b].kernels[0])
            *watch_all = 1;
        for (const char *p = lines[b].kernels; *p && !*watch_all; p += strcspn(p, ","), p += *p == ',') {
            size_t len = strcspn(p, ",");
            int seen = 0;
            for (int i = 0; i < k && !seen; i++)
                seen = strlen(names[i]) == len + 4 && !strncmp(names[i] + 4, p, len);
            if (seen)
                continue;
            if (k == CHECK_SAN_KERNELS_MAX || !(names[k] = util_format("kne=%.*s", (int)len, p)))
                *watch_all = 1;
            else
                k++;
        }
    }
    return k;
}

/* One tool over the batch, in a thread of its own beside the other two. */
static void *tool_thread(void *arg)
{
    struct tool_run *t = arg;
    struct grade *g = t->g;
    const char *tool = tools[t->tool];
    char *file = util_format("%s/sanitize-batch-%s", t->wd[0], tool);
    char *log = util_format("%s/sanitize-batches.log", g->state);
    char *lock = grade_gpu_lock(g, t->gi);
    char *visible = g->gpus[t->gi][0] ? util_format("CUDA_VISIBLE_DEVICES=%s", g->gpus[t->gi]) : NULL;
    char *names[CHECK_SAN_KERNELS_MAX] = {0};
    char *argv[96];
    int a = 0, nk = 0, all = 1, busy = 0;

    for (int b = 0; b < t->n; b++) {
        char *old = util_format("%s/sanitize-%s.json", t->wd[b], tool);
        if (old)
            unlink(old);
        free(old);
    }
    if (!file || !log || !lock || (g->gpus[t->gi][0] && !visible) || batch_write(file, t->lines, t->n, lock))
        goto out;
    nk = kernels_union(t->lines, t->n, names, &all);
    argv[a++] = g->self;
    argv[a++] = "grade";
    argv[a++] = "--sandbox-exec";
    argv[a++] = g->spec;
    /* the judge writes each build's report in its own work folder */
    for (int b = 1; b < t->n; b++) {
        argv[a++] = "--bind";
        argv[a++] = t->wd[b];
    }
    argv[a++] = "--";
    argv[a++] = t->lines[0].sanitizer;
    const char *const options[] = {CHECK_SAN_OPTIONS(tool)};
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        argv[a++] = (char *)options[i];
    for (int i = 0; i < nk && !all; i++) {
        argv[a++] = "--kernel-name";
        argv[a++] = names[i];
    }
    argv[a++] = t->lines[0].judge;
    argv[a++] = "--batch";
    argv[a++] = file;
    argv[a] = NULL;
    char *env[] = {visible, NULL};
    double limit = BATCH_START_S + BATCH_BUILD_S * t->n * (g->o->timeout_scale > 0 ? g->o->timeout_scale : 1);
    int code = grade_gate_spawn(t->gs, g, t->gi, 0, argv, t->wd[0], env, limit, log, &busy, 1);
    char why[400] = "";
    int b = 0;
    t->cleared = code == 0;
    while (t->cleared && b < t->n && (t->cleared = report_passed(t->wd[b], tool, why, sizeof why)))
        b++;
    /* Under the tool's output: which batch it was, and what kept it from
     * clearing its builds (the first build without a pass). */
    FILE *f = fopen(log, "ae");
    if (f) {
        fprintf(f, "cudatutor grade: %s over %d builds from %s: exit %d: %s\n", tool, t->n, t->wd[0], code,
                t->cleared ? "clean" : "not clean");
        if (!t->cleared && code == 0)
            fprintf(f, "cudatutor grade: under %s, %s: %s\n", tool, t->wd[b], why);
        fclose(f);
    }
out:
    for (int i = 0; i < nk; i++)
        free(names[i]);
    if (file)
        unlink(file);
    free(file);
    free(log);
    free(lock);
    free(visible);
    return NULL;
}

void grade_batch_sanitize(struct grade *g, struct grade_gates *gs, const struct grade_job *const *js, int n,
                          int gi, char **cleared)
{
    struct tool_run runs[TOOLS] = {{0}};
    char **wd = calloc((size_t)n + 1, sizeof *wd);
    int ok = wd != NULL && n > 1;

    for (int b = 0; b < n; b++)
        cleared[b] = NULL;
    for (int b = 0; ok && b < n; b++)
        ok = (wd[b] = util_format("%s/%s/%s", g->work, g->subs[js[b]->sub].id, js[b]->lab->id)) != NULL;
    for (int t = 0; ok && t < TOOLS; t++) {
        runs[t] = (struct tool_run){.g = g, .gs = gs, .gi = gi, .n = n, .tool = t, .wd = wd,
                                    .lines = calloc((size_t)n, sizeof(struct line))};
        ok = runs[t].lines != NULL;
        /* One judge for the lot: the family's, the same compute-sanitizer. */
        for (int b = 0; ok && b < n; b++)
            ok = line_read(wd[b], tools[t], &runs[t].lines[b]) == 0 &&
                 !strcmp(runs[t].lines[b].judge, runs[t].lines[0].judge) &&
                 !strcmp(runs[t].lines[b].sanitizer, runs[t].lines[0].sanitizer);
    }
    int started[TOOLS] = {0};
    for (int t = 0; ok && t < TOOLS; t++)
        started[t] = pthread_create(&runs[t].t, NULL, tool_thread, &runs[t]) == 0;
    for (int t = 0; t < TOOLS; t++)
        if (started[t])
            pthread_join(runs[t].t, NULL);
    int all = ok;
    for (int t = 0; t < TOOLS; t++)
        all &= started[t] && runs[t].cleared;
    for (int t = 0; ok && t < TOOLS; t++)
        grade_event(g, "T %s %s %d %s", tools[t], js[0]->lab->family->name, n,
                    !runs[t].cleared ? "found" : all ? "clean" : "alone");
    /* Each build: the tools the batch cleared, comma-separated: all or none. */
    for (int b = 0; all && b < n; b++) {
        char list[64] = "";
        for (int t = 0; t < TOOLS; t++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", t ? "," : "", tools[t]);
        cleared[b] = strdup(list);
    }
    for (int t = 0; t < TOOLS; t++) {
        for (int b = 0; runs[t].lines && b < n; b++)
            free(runs[t].lines[b].text);
        free(runs[t].lines);
    }
    for (int b = 0; wd && b < n; b++)
        free(wd[b]);
    free(wd);
}
