/* grade_gpus.c — the grading GPUs: which they are (--gpus,
 * CUDA_VISIBLE_DEVICES, or every GPU nvidia-smi lists), the lock file
 * through which the runs on each take turns, and whether anything outside
 * the grader computes on them.  The lock orders the grader's own runs only
 * (docs/harness.md 4.1): another user's job, or a student's tutor, on the
 * same GPU can slow a timed section, so the grader looks before and after
 * and says what it saw, on stderr and in run.json. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "grade/grade_run.h"
#include "sys/proc.h"
#include "sys/util.h"

/* What one check run holds while it runs, for the default --check-runs.
 * CPUs: a judge, or a batch of race checkers (grade_batch.c): three
 * compute-sanitizer processes that each keep a CPU busy for seconds, but
 * once over up to 8 passes, and most runs are judges.  A machine given
 * more runs than it has CPUs for starts judges late and slows sanitizers
 * past the check's bound (seen on an H200 x4 machine with 64 CPUs and 8
 * runs per GPU when every check ran its three tools beside its judge:
 * judges took 5.4 s to start instead of 0.16, correct kernels timed out).
 * With batches, on one H200 with 16 CPUs, 30 students x 15 labs took 263
 * s at 4 runs, 205 s at 8 and 198-201 s at 12, the load at 9-15.  GPU
 * memory: a judge's buffers at the largest timed size with its
 * reference's, a sanitizer's shadow beside.
 * No more than RUNS_PER_GPU_MAX on one GPU: past that the runs only queue
 * for its timed sections. */
#define RUN_CORES_SANITIZE 2.0
#define RUN_CORES 1.5
#define RUN_GPU_GIB 8.0
#define RUNS_PER_GPU_MAX 8

char *grade_gpu_lock(const struct grade *g, int i)
{
    return util_format("%s/gpu-locks/gpu-%s.lock", g->scratch, g->gpus[i][0] ? g->gpus[i] : "any");
}

/* Splits a comma list into g->gpus as bash's `IFS=, read -a` does: a
 * trailing empty item dropped, an empty list none. */
static int split_gpus(struct grade *g, const char *list)
{
    size_t n = strlen(list);
    char *copy = strdup(list);
    if (!copy || !(g->gpus = calloc(n + 2, sizeof *g->gpus)))
        return free(copy), -1;
    if (n && copy[n - 1] == ',')
        copy[n - 1] = '\0';
    for (char *p = copy; *copy && p;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (!(g->gpus[g->ngpus++] = strdup(p)))
            return free(copy), -1;
        p = comma ? comma + 1 : NULL;
    }
    free(copy);
    return 0;
}

/* The GPU indices nvidia-smi -L lists ("GPU 0: ..."). */
static int smi_gpus(struct grade *g)
{
    char *smi = util_which("nvidia-smi");
    if (!smi)
        return 0;
    char *argv[] = {smi, "-L", NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 20, .output_cap = 1 << 16};
    struct proc_result r;
    int rc = 0;
    if (proc_run(&spec, &r) == 0 && r.output) {
        char *text = strdup(r.output);
        int cap = 8;
        if (!text || !(g->gpus = calloc((size_t)cap + 1, sizeof *g->gpus)))
            rc = -1;
        for (char *save = NULL, *line = text && !rc ? strtok_r(text, "\n", &save) : NULL; line;
             line = strtok_r(NULL, "\n", &save)) {
            unsigned idx;
            if (sscanf(line, "GPU %u:", &idx) != 1)
                continue;
            if (g->ngpus == cap) {
                char **v = realloc(g->gpus, ((size_t)(cap *= 2) + 1) * sizeof *v);
                if (!v)
                    break;
                g->gpus = v;
            }
            g->gpus[g->ngpus++] = util_format("%u", idx);
        }
        free(text);
    }
    proc_result_free(&r);
    free(smi);
    return rc;
}

int grade_runs_per_gpu(long cpus, int ngpus, int sanitize, double gpu_gib)
{
    double cores = sanitize ? RUN_CORES_SANITIZE : RUN_CORES;
    long fit = (long)(cpus / cores) / (ngpus > 0 ? ngpus : 1);
    if (gpu_gib > 0 && (long)(gpu_gib / RUN_GPU_GIB) < fit)
        fit = (long)(gpu_gib / RUN_GPU_GIB);
    return fit < 1 ? 1 : fit > RUNS_PER_GPU_MAX ? RUNS_PER_GPU_MAX : (int)fit;
}

/* The memory of GPU id in GiB, as nvidia-smi says; 0 when it cannot say
 * (no nvidia-smi, an unnamed GPU, a MIG instance). */
static double smi_memory_gib(const char *id)
{
    char *smi = id && id[0] ? util_which("nvidia-smi") : NULL;
    char *argv[] = {smi, "--query-gpu=memory.total", "--format=csv,noheader,nounits", "-i", (char *)id, NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 20, .output_cap = 1 << 12};
    struct proc_result r = {0};
    double mib = 0;
    if (smi && proc_run(&spec, &r) == 0 && r.exited && r.exit_code == 0 && r.output &&
        sscanf(r.output, "%lf", &mib) != 1)
        mib = 0;
    proc_result_free(&r);
    free(smi);
    return mib / 1024;
}

int grade_detect_gpus(struct grade *g)
{
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    int rc;
    if (g->o->gpus)
        rc = split_gpus(g, g->o->gpus);
    else if (vis)
        rc = split_gpus(g, vis);
    else
        rc = smi_gpus(g);
    if (rc)
        return grade_internal("out of memory");
    if (!g->ngpus) {
        free(g->gpus);
        g->gpus = calloc(2, sizeof *g->gpus);
        if (!g->gpus || !(g->gpus[0] = strdup("")))
            return grade_internal("out of memory");
        g->ngpus = 1;
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    g->jobs = g->o->jobs ? g->o->jobs : (cpus > 0 ? (int)cpus : 2);
    g->check_runs = g->o->check_runs ? g->o->check_runs
                  : grade_runs_per_gpu(cpus > 0 ? cpus : 2, g->ngpus, g->o->sanitize, smi_memory_gib(g->gpus[0]));
    /* A lock file per GPU that the sandbox's user can take too. */
    char *dir = util_format("%s/gpu-locks", g->scratch);
    if (!dir || util_mkdirs(dir))
        return free(dir), grade_internal("cannot create %s/gpu-locks", g->scratch);
    free(dir);
    for (int i = 0; i < g->ngpus; i++) {
        char *lock = grade_gpu_lock(g, i);
        int fd = lock ? open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0666) : -1;
        if (fd >= 0) {
            fchmod(fd, 0666);
            close(fd);
        }
        free(lock);
    }
    return 0;
}

/* The compute processes nvidia-smi lists on GPU id, as "PID NAME" joined
 * by ", " (heap, "" for none); NULL when nvidia-smi cannot say (no such
 * GPU, a MIG instance, a failure). */
static char *smi_processes(const char *smi, const char *id)
{
    char *argv[] = {(char *)smi, "--query-compute-apps=pid,process_name", "--format=csv,noheader", "-i",
                    (char *)id, NULL};
    struct proc_spec spec = {.argv = argv, .timeout_s = 20, .output_cap = 1 << 16};
    struct proc_result r;
    char *list = NULL, *text = NULL;
    size_t cap = 0;

    if (proc_run(&spec, &r) || !r.exited || r.exit_code || !r.output || !(text = strdup(r.output)) ||
        !(list = calloc(1, cap = strlen(text) + 1)))
        goto out;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *comma = strchr(line, ',');
        unsigned long pid;
        if (!comma || sscanf(line, "%lu", &pid) != 1)
            continue;   /* a header, "No running processes found", a blank */
        const char *name = comma + 1 + strspn(comma + 1, " ");
        const char *base = strrchr(name, '/');
        size_t used = strlen(list);     /* never more than the text it comes from, but bounded anyway */
        snprintf(list + used, cap - used, "%s%lu %s", list[0] ? ", " : "", pid, base ? base + 1 : name);
    }
out:
    free(text);
    proc_result_free(&r);
    return list;
}

void grade_gpus_others(struct grade *g, const char *when)
{
    char *smi = util_which("nvidia-smi");
    for (int i = 0; smi && i < g->ngpus; i++) {
        if (!g->gpus[i][0])
            continue;
        char *list = smi_processes(smi, g->gpus[i]);
        if (list && list[0]) {
            grade_warn(g, "GPU %s is shared: nvidia-smi lists other programs on it as grading %s (%s). "
                          "The grader's runs take turns only with each other, so these can slow a timed "
                          "section and lower a student's performance credit: grade on GPUs nobody else "
                          "uses, or grade the students who missed a target again (--force)",
                       g->gpus[i], strcmp(when, "start") ? "ends" : "starts", list);
            if (!g->gpu_others)
                g->gpu_others = cJSON_CreateArray();
            cJSON *o = cJSON_CreateObject();
            if (o && g->gpu_others) {
                cJSON_AddStringToObject(o, "gpu", g->gpus[i]);
                cJSON_AddStringToObject(o, "when", when);
                cJSON_AddStringToObject(o, "processes", list);
                cJSON_AddItemToArray(g->gpu_others, o);
            } else {
                cJSON_Delete(o);
            }
        }
        free(list);
    }
    free(smi);
}
