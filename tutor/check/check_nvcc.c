/* check_nvcc.c — nvcc's compile of one file as its own steps, two at a
 * time.  nvcc runs its seven steps one after another: the device's
 * preprocessing, the host's, cudafe++, cicc, ptxas, fatbinary and the host
 * compiler.  Only two orders matter: cicc reads the module id cudafe++
 * writes, and the host compiler reads what all the others wrote.  Given
 * the module id beforehand, the device's chain (preprocess, cicc, ptxas,
 * fatbinary) and the host's (preprocess, cudafe++) share nothing, and on
 * two cores the compile takes the longer chain and the host compiler
 * instead of the sum.  The commands are nvcc's own (--dryrun), run as
 * nvcc runs them (sh -c, under its variables); a plan of another shape is
 * left to nvcc.  The plan is kept beside the build with the key of what
 * it follows from, so the next check of the same file (a student's edit
 * loop) does not ask nvcc again (check_plan.c).  The host compiler's step
 * itself is shortened twice, its object the same: its headers read
 * precompiled (check_pch.c), and begun beside ptxas and fatbinary
 * (check_early.c). */
#include "check/check_nvcc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_early.h"
#include "check/check_pch.h"
#include "check/check_plan.h"
#include "sys/util.h"

/* nvcc's steps for one file, in its order.  The dependency list nvcc
 * writes after the host's preprocessing (the files either preprocessing
 * read) comes from those two steps (-MD) and deps_merge. */
enum step_id { ST_EDEV, ST_EHOST, ST_CUDAFE, ST_CICC, ST_PTXAS, ST_FATBIN, ST_HOST, ST_COUNT };

/* The chains that run side by side; the host compiler runs after both. */
static const enum step_id chains[2][5] = {
    {ST_EDEV, ST_CICC, ST_PTXAS, ST_FATBIN, ST_COUNT},
    {ST_EHOST, ST_CUDAFE, ST_COUNT},
};

#define OUTPUT_CAP (64 * 1024)

struct step {
    char *cmd;                  /* for sh -c */
    struct proc_result pr;
    int ran;                    /* pr holds how it ended */
};

struct split {
    struct step s[ST_COUNT];
    char **env;                 /* nvcc's variables, "NAME=VALUE" */
    int nenv;
    double deadline;
    atomic_int failed_at;       /* the first failed step in nvcc's order; ST_COUNT: none */
    atomic_int running[2];      /* the step each chain is at */
    atomic_int cancel[2];
    const char *deps;           /* the dependency list nvcc would write */
    char *deps_host;            /* the host preprocessing's, merged into it */
    int spawn_failed;           /* a process could not be created */
    char spawn_error[160];
    pthread_mutex_t mu;         /* spawn_error, cicc */
    /* The host compiler's step begun before the fatbinary (check_early.c):
     * the host's chain waits for cicc's stub, then compiles to assembly. */
    int early_on;
    struct early_host early;
    const char *obj, *pch_dir;
    pthread_cond_t cicc_done;
    int cicc;                   /* 0: not yet; 1: it wrote the stub; -1: it will not */
    int early_ok;               /* the assembly is made, and the compile said nothing */
};

/* ---- nvcc's plan -------------------------------------------------------- */

static int starts_with_word(const char *cmd, const char *word)
{
    size_t n = strlen(word);
    const char *end = cmd;
    while (*end && *end != ' ')
        end++;
    /* the program by its last path component: "$CICC_PATH/cicc" */
    const char *base = end;
    while (base > cmd && base[-1] != '/')
        base--;
    if (*base == '"')
        base++;
    size_t len = (size_t)(end - base);
    if (len && base[len - 1] == '"')
        len--;
    return len == n && !strncmp(base, word, n);
}

static int has_word(const char *cmd, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(cmd, word); p; p = strstr(p + 1, word))
        if ((p == cmd || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Which step a command of the plan is; ST_COUNT when none. */
static enum step_id step_of(const char *cmd)
{
    if (starts_with_word(cmd, "cudafe++"))
        return ST_CUDAFE;
    if (starts_with_word(cmd, "cicc"))
        return ST_CICC;
    if (starts_with_word(cmd, "ptxas"))
        return ST_PTXAS;
    if (starts_with_word(cmd, "fatbinary"))
        return ST_FATBIN;
    if (has_word(cmd, "-E"))
        return strstr(cmd, " -D__CUDA_ARCH__=") ? ST_EDEV : ST_EHOST;
    if (has_word(cmd, "-c"))
        return ST_HOST;
    return ST_COUNT;
}

/* The quoted path after OPT in cmd ("OPT \"PATH\""), into buf; -1 if none. */
static int quoted_after(const char *cmd, const char *opt, char *buf, size_t len)
{
    const char *p = strstr(cmd, opt);
    if (!p || strncmp(p + strlen(opt), " \"", 2))
        return -1;
    p += strlen(opt) + 2;
    const char *q = strchr(p, '"');
    if (!q || (size_t)(q - p) >= len)
        return -1;
    memcpy(buf, p, (size_t)(q - p));
    buf[q - p] = '\0';
    return 0;
}

/* 'text' for sh, any ' inside closed and escaped. */
static char *sh_quote(const char *text)
{
    size_t n = 3;
    for (const char *p = text; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *out = malloc(n), *w = out;
    if (!out)
        return NULL;
    *w++ = '\'';
    for (const char *p = text; *p; p++) {
        if (*p == '\'') {
            memcpy(w, "'\\''", 4);
            w += 4;
        } else {
            *w++ = *p;
        }
    }
    *w++ = '\'';
    *w = '\0';
    return out;
}

/* The plan of nvcc --dryrun's output into sp: its variables and its seven
 * steps, each in its place.  0, or -1 when it is not that plan. */
static int plan_read(struct split *sp, const char *text, const char *deps, const char *obj)
{
    int seen_deps = 0, nsteps = 0;
    for (const char *line = text; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        const char *next = line + len + (eol ? 1 : 0);
        if (len < 3 || strncmp(line, "#$ ", 3)) {
            line = next;
            continue;
        }
        char *cmd = strndup(line + 3, len - 3);
        line = next;
        if (!cmd)
            return -1;
        size_t n = strlen(cmd);
        while (n && (cmd[n - 1] == ' ' || cmd[n - 1] == '\r'))
            cmd[--n] = '\0';
        size_t name = strspn(cmd, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789");
        if (name && cmd[name] == '=' && !(cmd[0] >= '0' && cmd[0] <= '9')) {
            char **env = realloc(sp->env, (size_t)(sp->nenv + 2) * sizeof *env);
            if (!env) {
                free(cmd);
                return -1;
            }
            sp->env = env;
            sp->env[sp->nenv++] = cmd;
            sp->env[sp->nenv] = NULL;
            continue;
        }
        if (!strncmp(cmd, "-- Filter Dependencies -- > ", 28)) {
            /* nvcc's own step: the list it writes, the host preprocessor's */
            seen_deps = nsteps == ST_EHOST + 1 && !strcmp(cmd + 28, deps);
            free(cmd);
            if (!seen_deps)
                return -1;
            continue;
        }
        if (nsteps >= ST_COUNT || step_of(cmd) != (enum step_id)nsteps) {
            free(cmd);
            return -1;
        }
        sp->s[nsteps++].cmd = cmd;
    }
    if (nsteps != ST_COUNT || !seen_deps)
        return -1;

    /* The module id: the file cudafe++ would make, and cicc reads. */
    char made[4096], read[4096];
    char *cudafe = sp->s[ST_CUDAFE].cmd, *gen = strstr(cudafe, " --gen_module_id_file ");
    if (!gen || quoted_after(cudafe, "--module_id_file_name", made, sizeof made) ||
        quoted_after(sp->s[ST_CICC].cmd, "--module_id_file_name", read, sizeof read) || strcmp(made, read))
        return -1;
    memmove(gen, gen + strlen(" --gen_module_id_file"), strlen(gen + strlen(" --gen_module_id_file")) + 1);

    /* The dependency list: the files either preprocessing read, as nvcc
     * lists them; the device's into deps, the host's beside it until
     * deps_merge adds what only the host read. */
    if (!(sp->deps_host = util_format("%s.host", deps)))
        return -1;
    for (int k = ST_EDEV; k <= ST_EHOST; k++) {
        char *qd = sh_quote(k == ST_EDEV ? deps : sp->deps_host), *qo = sh_quote(obj);
        char *with = qd && qo ? util_format("%s -MD -MF %s -MT %s", sp->s[k].cmd, qd, qo) : NULL;
        free(qd);
        free(qo);
        if (!with)
            return -1;
        free(sp->s[k].cmd);
        sp->s[k].cmd = with;
    }
    sp->deps = deps;
    return 0;
}

/* The module id nvcc would give the file: its name's letters, between two
 * hashes (of the source's path and bytes), so two files never share one. */
static int module_id_write(struct split *sp, const char *src)
{
    char path[4096], stem[256];
    const char *base = strrchr(src, '/');
    size_t len = 0, n = 0;
    char *bytes = util_read_file(src, &len);
    unsigned long long h1 = 0xcbf29ce484222325ull, h2 = h1;

    if (quoted_after(sp->s[ST_CUDAFE].cmd, "--module_id_file_name", path, sizeof path))
        return -1;
    for (const char *p = src; *p; p++)
        h1 = (h1 ^ (unsigned char)*p) * 0x100000001b3ull;
    for (size_t i = 0; bytes && i < len; i++)
        h2 = (h2 ^ (unsigned char)bytes[i]) * 0x100000001b3ull;
    free(bytes);
    for (base = base ? base + 1 : src; *base && n + 1 < sizeof stem; base++)
        stem[n++] = (*base >= 'a' && *base <= 'z') || (*base >= 'A' && *base <= 'Z') ||
                    (*base >= '0' && *base <= '9') ? *base : '_';
    stem[n] = '\0';
    char *id = util_format("_%08llx_%zu_%s_%08llx", h1 & 0xffffffffull, n, stem, h2 & 0xffffffffull);
    int rc = id && util_write_file(path, id, strlen(id)) == 0 ? 0 : -1;
    free(id);
    return rc;
}

/* The next word of a make rule at *p ("\\ " and "\\#" inside it, a
 * backslash-newline between words) into a heap string; NULL at the end. */
static char *dep_word(const char **p)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\n' || (*s == '\\' && s[1] == '\n'))
        s += *s == '\\' ? 2 : 1;
    const char *e = s;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n')
        e += *e == '\\' && e[1] && e[1] != '\n' ? 2 : 1;
    *p = e;
    return e > s ? strndup(s, (size_t)(e - s)) : NULL;
}

/* Adds to the device's dependency list the files only the host's
 * preprocessing read; 0, or -1 (then the list is the device's alone). */
static int deps_merge(const struct split *sp)
{
    char *dev = util_read_file(sp->deps, NULL), *host = util_read_file(sp->deps_host, NULL);
    char *out = NULL, *w;
    size_t cap = 0, used;
    int rc = -1;
    if (!dev || !host)
        goto out;
    used = strlen(dev);
    while (used && (dev[used - 1] == '\n' || dev[used - 1] == ' '))
        used--;
    if (!(out = util_grow(NULL, &cap, used + 1, 1)))
        goto out;
    memcpy(out, dev, used);
    for (const char *p = host; (w = dep_word(&p)) != NULL; free(w)) {
        size_t n = strlen(w);
        int known = n && w[n - 1] == ':';      /* the target */
        for (const char *q = dev, *hit; !known && (hit = strstr(q, w)) != NULL; q = hit + 1)
            known = (hit == dev || strchr(" \t\n", hit[-1])) && strchr(" \t\n\\", hit[n]);
        if (known)
            continue;
        char *grown = util_grow(out, &cap, used + n + 6, 1);
        if (!grown) {
            free(w);
            goto out;
        }
        out = grown;
        used += (size_t)sprintf(out + used, " \\\n %s", w);
    }
    out[used++] = '\n';
    rc = util_write_file(sp->deps, out, used);
out:
    free(dev);
    free(host);
    free(out);
    return rc;
}

/* ---- running it --------------------------------------------------------- */

static int step_failed(const struct step *st)
{
    return !st->pr.exited || st->pr.exit_code != 0;
}

/* Step k failed: steps after it in nvcc's order are not needed (nvcc would
 * not have run them), so the other chain stops when it is past k. */
static void note_failure(struct split *sp, int chain, int k)
{
    int cur = atomic_load(&sp->failed_at);
    while (k < cur && !atomic_compare_exchange_weak(&sp->failed_at, &cur, k))
        ;
    if (atomic_load(&sp->running[!chain]) > k)
        atomic_store(&sp->cancel[!chain], 1);
}

/* One step, under nvcc's variables; 0 when it ran to its end. */
static int step_run(struct split *sp, int chain, enum step_id k)
{
    struct step *st = &sp->s[k];
    char *argv[] = {"/bin/sh", "-c", st->cmd, NULL};
    double left = sp->deadline - util_now();
    struct proc_spec spec = {.argv = argv, .timeout_s = left > 1 ? left : 1, .output_cap = OUTPUT_CAP,
                             .env = sp->env, .cancel = chain >= 0 ? &sp->cancel[chain] : NULL};
    if (proc_run(&spec, &st->pr)) {
        pthread_mutex_lock(&sp->mu);
        if (!sp->spawn_failed)
            util_copy(sp->spawn_error, sizeof sp->spawn_error, st->pr.error);
        sp->spawn_failed = 1;
        pthread_mutex_unlock(&sp->mu);
        return -1;
    }
    if (st->pr.cancelled)
        return -1;
    st->ran = 1;
    return 0;
}

/* The host compiler's step: with the headers of cudafe++'s file
 * precompiled in pch_dir (check_pch.c) when that compile ends cleanly and
 * says nothing, else again as nvcc's plan has it, so that whatever the
 * host compiler says of a file, and how it fails, is nvcc's own. */
/* The host's file rewritten to read its headers precompiled in pch_dir
 * (check_pch.c), into *job and *use (cfile: room for its path): 1 when it
 * was, 0 when it stays as it is. */
static int pch_ready(struct split *sp, const char *obj, const char *pch_dir, char *cfile, struct pch_job *job,
                     struct pch_use *use)
{
    double left = sp->deadline - util_now();
    *job = (struct pch_job){.host_cmd = sp->s[ST_HOST].cmd, .cfile = cfile, .obj = obj, .dir = pch_dir,
                            .env = sp->env, .timeout_s = left > 1 ? left : 1};
    return pch_dir && !quoted_after(sp->s[ST_CUDAFE].cmd, "--gen_c_file_name", cfile, 4096) &&
           pch_rewrite(job, use) == 0;
}

/* The host compiler's step on the file pch_ready rewrote, as `cmd_of`
 * makes its command (NULL: as it is), into the step's result: 1 when it
 * ran, ended cleanly and said nothing; 0 with the step's result freed
 * otherwise.  The file is put back either way. */
static int pch_step(struct split *sp, int chain, struct pch_job *job, struct pch_use *use,
                    char *(*cmd_of)(const struct split *, const char *))
{
    struct step *st = &sp->s[ST_HOST];
    int ran = 0, clean = 0;
    char *plain = st->cmd, *cmd = cmd_of ? cmd_of(sp, use->cmd) : NULL;
    if (!cmd_of || cmd) {
        st->cmd = cmd ? cmd : use->cmd;
        ran = step_run(sp, chain, ST_HOST) == 0;
        st->cmd = plain;
        clean = ran && !step_failed(st) && st->pr.output_len == 0 && !st->pr.dropped;
    }
    free(cmd);
    if (pch_restore(job, use, ran ? st->pr.output : NULL))
        clean = 0;
    if (!clean && ran) {
        proc_result_free(&st->pr);
        memset(&st->pr, 0, sizeof st->pr);
        st->ran = 0;
    }
    return clean;
}

/* The host compiler's step: with the headers precompiled when that compile
 * is clean and silent, else again as nvcc's plan has it, so that whatever
 * the host compiler says of a file, and how it fails, is nvcc's own. */
static void host_run(struct split *sp, const char *obj, const char *pch_dir)
{
    char cfile[4096];
    struct pch_job job;
    struct pch_use use;
    if ((pch_ready(sp, obj, pch_dir, cfile, &job, &use) && pch_step(sp, -1, &job, &use, NULL)) || sp->spawn_failed)
        return;
    step_run(sp, -1, ST_HOST);
}

/* The plan's host compile as a compile to the early assembly. */
static char *early_cmd_of(const struct split *sp, const char *cmd)
{
    return early_compile_cmd(&sp->early, cmd, sp->obj);
}

/* The host's chain, once cudafe++ is done: when cicc has written the stub,
 * the host's file compiled to assembly against the stand-in fatbinary C
 * file, beside ptxas and fatbinary.  Its result is kept apart from the
 * step's (early_ok): the step itself ends in early_end. */
static void early_begin(struct split *sp, int chain)
{
    char cfile[4096];
    struct pch_job job;
    struct pch_use use;
    /* the file rewritten while cicc still runs: it is cudafe++'s */
    int pch = pch_ready(sp, sp->obj, sp->pch_dir, cfile, &job, &use);
    pthread_mutex_lock(&sp->mu);
    while (!sp->cicc)
        pthread_cond_wait(&sp->cicc_done, &sp->mu);
    int go = sp->cicc > 0 && !atomic_load(&sp->cancel[chain]);
    pthread_mutex_unlock(&sp->mu);
    if (!go || early_standin(&sp->early)) {
        if (pch)
            pch_restore(&job, &use, NULL);
        return;
    }
    /* a failure of ptxas or fatbinary stops it (note_failure) */
    atomic_store(&sp->running[chain], ST_HOST);
    struct step *st = &sp->s[ST_HOST];
    if (pch && pch_step(sp, chain, &job, &use, early_cmd_of)) {
        sp->early_ok = 1;
    } else if (!sp->spawn_failed) {
        char *plain = st->cmd, *cmd = early_compile_cmd(&sp->early, plain, sp->obj);
        if (cmd) {
            st->cmd = cmd;
            int ran = step_run(sp, chain, ST_HOST) == 0;
            st->cmd = plain;
            sp->early_ok = ran && !step_failed(st) && st->pr.output_len == 0 && !st->pr.dropped;
        }
        free(cmd);
    }
    /* the step's result is made in early_end, or by the step itself */
    proc_result_free(&st->pr);
    memset(&st->pr, 0, sizeof st->pr);
    st->ran = 0;
}

/* After both chains: the early assembly given the real fatbinary's data
 * and assembled into the object, as the host compiler's step; 1 when that
 * ended cleanly, 0 (the step's result freed) when the step must run. */
static int early_end(struct split *sp)
{
    char cfile[4096];
    struct step *st = &sp->s[ST_HOST];
    if (!sp->early_ok || quoted_after(sp->s[ST_CUDAFE].cmd, "--gen_c_file_name", cfile, sizeof cfile))
        return 0;
    char *plain = st->cmd, *cmd = early_assemble_cmd(&sp->early, plain, cfile);
    if (!cmd)
        return 0;
    st->cmd = cmd;
    int ran = step_run(sp, -1, ST_HOST) == 0;
    st->cmd = plain;
    free(cmd);
    if (ran && !step_failed(st) && st->pr.output_len == 0 && !st->pr.dropped)
        return 1;
    if (ran) {
        proc_result_free(&st->pr);
        memset(&st->pr, 0, sizeof st->pr);
        st->ran = 0;
    }
    return 0;
}

/* cicc has ended (ok: it wrote the stub), or will not run: the host's
 * chain may go on. */
static void cicc_says(struct split *sp, int ok)
{
    pthread_mutex_lock(&sp->mu);
    if (!sp->cicc)
        sp->cicc = ok ? 1 : -1;
    pthread_cond_broadcast(&sp->cicc_done);
    pthread_mutex_unlock(&sp->mu);
}

struct chain_arg {
    struct split *sp;
    int chain;
};

static void *chain_run(void *arg)
{
    struct chain_arg *a = arg;
    struct split *sp = a->sp;
    int whole = 1;
    for (const enum step_id *k = chains[a->chain]; *k != ST_COUNT; k++) {
        atomic_store(&sp->running[a->chain], *k);
        if (atomic_load(&sp->failed_at) < (int)*k || step_run(sp, a->chain, *k)) {
            whole = 0;
            break;
        }
        if (step_failed(&sp->s[*k])) {
            note_failure(sp, a->chain, *k);
            whole = 0;
            break;
        }
        if (*k == ST_CICC)
            cicc_says(sp, 1);
    }
    if (a->chain == 0)
        cicc_says(sp, 0);       /* when it did not run or failed */
    else if (whole && sp->early_on)
        early_begin(sp, a->chain);
    atomic_store(&sp->running[a->chain], ST_COUNT);
    return NULL;
}

/* What nvcc would have said and returned, from the steps that ran: their
 * output in nvcc's order up to the first that failed, and its end. */
static int result_of(struct split *sp, double t0, struct proc_result *pr)
{
    size_t cap = 0, used = 0;
    int last = -1;
    memset(pr, 0, sizeof *pr);
    for (int k = 0; k < ST_COUNT; k++) {
        struct step *st = &sp->s[k];
        if (!st->ran)
            break;              /* not needed: an earlier step failed */
        last = k;
        if (step_failed(st))
            break;
    }
    if (last < 0)
        return -1;
    for (int k = 0; k <= last; k++) {
        struct proc_result *s = &sp->s[k].pr;
        size_t n = s->output_len, room = used < OUTPUT_CAP ? OUTPUT_CAP - used : 0;
        size_t take = n < room ? n : room;
        char *grown = util_grow(pr->output, &cap, used + take + 1, 1);
        if (!grown)
            return -1;
        pr->output = grown;
        memcpy(pr->output + used, s->output ? s->output : "", take);
        used += take;
        pr->output[used] = '\0';
        pr->dropped += s->dropped + (n - take);
    }
    const struct proc_result *end = &sp->s[last].pr;
    pr->output_len = used;
    pr->started = 1;
    pr->exited = end->exited;
    pr->exit_code = end->exit_code;
    pr->signaled = end->signaled;
    pr->signal = end->signal;
    pr->timed_out = end->timed_out;
    pr->seconds = util_now() - t0;
    if (!pr->output && !(pr->output = strdup("")))
        return -1;
    return 0;
}

/* The early host step readied from the plan's fatbinary command
 * (check_early.c); 1 when it is on. */
static int early_on(struct split *sp, const char *obj)
{
    const char *opt = "--embedded-fatbin=\"", *p = strstr(sp->s[ST_FATBIN].cmd, opt), *q;
    if (!p || !(q = strchr(p += strlen(opt), '"')))
        return 0;
    char *path = strndup(p, (size_t)(q - p));
    int on = path && early_plan(&sp->early, &sp->s[ST_FATBIN].cmd, path, obj) == 0;
    free(path);
    return on;
}

int nvcc_split_run(char *const *argv, const char *deps, const char *obj, const char *plan_cache,
                   const char *pch_dir, int early, double timeout_s, struct proc_result *pr)
{
    struct split sp = {.failed_at = ST_COUNT, .mu = PTHREAD_MUTEX_INITIALIZER,
                       .cicc_done = PTHREAD_COND_INITIALIZER, .obj = obj, .pch_dir = pch_dir};
    struct chain_arg args[2] = {{&sp, 0}, {&sp, 1}};
    pthread_t host;
    double t0 = util_now();
    const char *src = NULL;
    int rc = 1;

    memset(pr, 0, sizeof *pr);
    for (char *const *a = argv; *a; a++)
        src = *a;               /* the file: nvcc's last argument */
    sp.deadline = t0 + timeout_s;
    char *plan = src ? nvcc_plan_get(argv, plan_cache, timeout_s) : NULL;
    if (!plan || plan_read(&sp, plan, deps, obj) || module_id_write(&sp, src))
        goto out;
    sp.early_on = early && early_on(&sp, obj);
    atomic_store(&sp.running[0], ST_EDEV);
    atomic_store(&sp.running[1], ST_EHOST);
    rc = -1;
    if (pthread_create(&host, NULL, chain_run, &args[1])) {
        util_copy(pr->error, sizeof pr->error, "cannot start a thread");
        goto out;
    }
    chain_run(&args[0]);
    pthread_join(host, NULL);
    int early_done = !sp.spawn_failed && atomic_load(&sp.failed_at) == ST_COUNT && early_end(&sp);
    if (sp.early_on)
        early_settle(&sp.early);
    if (!early_done && !sp.spawn_failed && atomic_load(&sp.failed_at) == ST_COUNT)
        host_run(&sp, obj, pch_dir);
    if (sp.spawn_failed) {
        util_copy(pr->error, sizeof pr->error, sp.spawn_error);
        goto out;
    }
    /* the list the include rule reads is whole, or the check stops */
    if (sp.s[ST_EDEV].ran && sp.s[ST_EHOST].ran && !step_failed(&sp.s[ST_EDEV]) &&
        !step_failed(&sp.s[ST_EHOST]) && deps_merge(&sp)) {
        util_copy(pr->error, sizeof pr->error, "cannot merge the compile's two dependency lists");
        goto out;
    }
    rc = result_of(&sp, t0, pr) ? -1 : 0;
    if (rc)
        util_copy(pr->error, sizeof pr->error, "out of memory");
out:
    if (sp.early_on)
        early_free(&sp.early);
    if (sp.deps_host)
        unlink(sp.deps_host);
    free(sp.deps_host);
    free(plan);
    for (int k = 0; k < ST_COUNT; k++) {
        free(sp.s[k].cmd);
        proc_result_free(&sp.s[k].pr);
    }
    for (int i = 0; i < sp.nenv; i++)
        free(sp.env[i]);
    free(sp.env);
    return rc;
}
