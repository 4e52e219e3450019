/* check_plan.c — nvcc's plan for a command line (its --dryrun output),
 * asked of nvcc once and kept in a file under the key of everything it
 * follows from, so that the next compile of the same command line (a
 * student's edit loop) does not ask again (check_plan.h). */
#include "check/check_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/proc.h"
#include "sys/sha256.h"
#include "sys/util.h"

/* Names the form of a kept plan. */
#define PLAN_VERSION "cudatutor-nvcc-plan 2"
/* The most of nvcc's output kept. */
#define OUTPUT_CAP (64 * 1024)

/* nvcc's plan for argv: its --dryrun output, or NULL. */
static char *dryrun(char *const *argv, double timeout_s)
{
    int n = 0;
    while (argv[n])
        n++;
    char **dry = calloc((size_t)n + 2, sizeof *dry);
    struct proc_result pr = {0};
    char *text = NULL;
    if (!dry)
        return NULL;
    dry[0] = argv[0];
    dry[1] = "--dryrun";
    for (int i = 1; i < n; i++)
        dry[i + 1] = argv[i];
    struct proc_spec spec = {.argv = dry, .timeout_s = timeout_s, .output_cap = OUTPUT_CAP};
    if (proc_run(&spec, &pr) == 0 && pr.exited && pr.exit_code == 0 && pr.output)
        text = strdup(pr.output);
    proc_result_free(&pr);
    free(dry);
    return text;
}

/* A file's identity (path, size, age; "none" when absent) into the hash. */
static void hash_stat(struct sha256 *h, const char *path)
{
    struct stat st;
    sha256_update(h, path ? path : "", path ? strlen(path) + 1 : 1);
    if (path && stat(path, &st) == 0) {
        sha256_update(h, &st.st_size, sizeof st.st_size);
        sha256_update(h, &st.st_mtim, sizeof st.st_mtim);
    } else {
        sha256_update(h, "none", 5);
    }
}

/* What nvcc's plan follows from: its binary and profile, the command
 * line, the host compiler it finds, and the environment it reads (its
 * own NVCC* and CUDA_* variables, PATH, LD_LIBRARY_PATH); as 64 hex
 * digits into key. */
static void plan_key(char *const *argv, char key[2 * SHA256_BYTES + 1])
{
    extern char **environ;
    struct sha256 h;
    unsigned char d[SHA256_BYTES];
    char *nvcc = strchr(argv[0], '/') ? strdup(argv[0]) : util_which(argv[0]);
    char *profile = nvcc ? util_format("%.*s/nvcc.profile", (int)(strrchr(nvcc, '/') - nvcc), nvcc) : NULL;
    char *gcc = util_which("gcc");

    sha256_init(&h);
    sha256_update(&h, PLAN_VERSION, sizeof PLAN_VERSION);
    for (char *const *a = argv; *a; a++)
        sha256_update(&h, *a, strlen(*a) + 1);
    hash_stat(&h, nvcc);
    hash_stat(&h, profile);
    hash_stat(&h, gcc);
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "NVCC", 4) || !strncmp(*e, "CUDA_", 5) || !strncmp(*e, "PATH=", 5) ||
            !strncmp(*e, "LD_LIBRARY_PATH=", 16))
            sha256_update(&h, *e, strlen(*e) + 1);
    sha256_final(&h, d);
    for (int i = 0; i < SHA256_BYTES; i++)
        snprintf(key + 2 * i, 3, "%02x", d[i]);
    free(nvcc);
    free(profile);
    free(gcc);
}

/* The identity of the toolkit a plan runs (its nvcc in the folder the
 * plan's _HERE_ names: the real one, behind any wrapper argv[0] is), as
 * "size mtime" into buf; "" when the plan names none. */
static void toolkit_sig(const char *plan, char *buf, size_t len)
{
    const char *here = strstr(plan, "#$ _HERE_=");
    struct stat st;
    buf[0] = '\0';
    if (!here)
        return;
    here += strlen("#$ _HERE_=");
    size_t n = strcspn(here, "\n");
    while (n && here[n - 1] == ' ')
        n--;
    char *nvcc = util_format("%.*s/nvcc", (int)n, here);
    if (nvcc && stat(nvcc, &st) == 0)
        snprintf(buf, len, "%lld %lld.%09ld", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                 st.st_mtim.tv_nsec);
    free(nvcc);
}

char *nvcc_plan_get(char *const *argv, const char *cache, double timeout_s)
{
    char key[2 * SHA256_BYTES + 1], sig[80], now[80];
    char *kept = cache ? util_read_file(cache, NULL) : NULL, *plan = NULL;
    plan_key(argv, key);
    char *eol = kept ? strchr(kept, '\n') : NULL;
    if (eol && !strncmp(kept, key, 2 * SHA256_BYTES) && kept[2 * SHA256_BYTES] == ' ') {
        *eol = '\0';
        toolkit_sig(eol + 1, now, sizeof now);
        if (now[0] && !strcmp(kept + 2 * SHA256_BYTES + 1, now))
            plan = strdup(eol + 1);
    }
    free(kept);
    if (plan || !(plan = dryrun(argv, timeout_s)) || !cache)
        return plan;
    toolkit_sig(plan, sig, sizeof sig);
    char *text = sig[0] ? util_format("%s %s\n%s", key, sig, plan) : NULL;
    if (text)
        (void)util_write_file(cache, text, strlen(text));
    free(text);
    return plan;
}
