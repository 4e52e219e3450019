/* rules.c — see rules.h. */
#include "check/rules.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu_ptxscan.h"
#include "sys/util.h"

static int add_v(struct rules_report *rep, const char *symbol, const char *rule, int generic)
{
    struct violation *nv = realloc(rep->v, (size_t)(rep->nv + 1) * sizeof *nv);
    if (!nv)
        return -1;
    rep->v = nv;
    nv[rep->nv].symbol = strdup(symbol);
    nv[rep->nv].rule = strdup(rule);
    if (!nv[rep->nv].symbol || !nv[rep->nv].rule)
        return -1;
    nv[rep->nv].generic = generic;
    nv[rep->nv].defined = 0;
    rep->nv++;
    return 0;
}

static int add(struct rules_report *rep, const char *symbol, const char *rule)
{
    return add_v(rep, symbol, rule, 0);
}

void rules_sort(struct rules_report *rep)
{
    /* A stable insertion sort: the lists are a handful long. */
    for (int i = 1; i < rep->nv; i++)
        for (int j = i; j > 0 && rep->v[j - 1].generic && !rep->v[j].generic; j--) {
            struct violation t = rep->v[j];
            rep->v[j] = rep->v[j - 1];
            rep->v[j - 1] = t;
        }
}

static const char *match_rule(const struct symbol_rule *rules, int n, const char *sym)
{
    for (int i = 0; i < n; i++)
        if (fnmatch(rules[i].pattern, sym, 0) == 0)
            return rules[i].rule;
    return NULL;
}

const char *rules_deny_rule(const struct catalog *cat, const char *sym)
{
    return match_rule(cat->deny, cat->ndeny, sym);
}

static int allowed(const struct catalog *cat, const char *sym)
{
    for (int i = 0; i < cat->nallow; i++)
        if (!strcmp(cat->allow[i], sym))
            return 1;
    return 0;
}

/* Undefined: what the object needs from elsewhere (the runtime, libc). */
static int check_undefined(const struct catalog *cat, const char *sym, struct rules_report *rep)
{
    if (allowed(cat, sym))
        return 0;
    const char *rule = match_rule(cat->deny, cat->ndeny, sym);
    return add_v(rep, sym, rule ? rule : "not on the allow-list of host calls a kernel file may "
                                         "make (host_symbols.allow in data/labs.json)", !rule);
}

/* A violation of a symbol the file defines. */
static int add_defined(struct rules_report *rep, const char *symbol, const char *rule, int generic)
{
    if (add_v(rep, symbol, rule, generic))
        return -1;
    rep->v[rep->nv - 1].defined = 1;
    return 0;
}

/* The labs whose entry point SYM is ("09" or "02, 03"), or "" when it is
 * no family's. */
static void labs_of_entry(const struct catalog *cat, const char *sym, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < cat->nlabs && used < len; i++)
        if (!strcmp(cat->labs[i].family->entry, sym))
            used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", cat->labs[i].id);
}

/* Defined globals: a kernel could replace the harness's own functions (or the
 * runtime's) by defining them, so it may define only its entry point with C
 * linkage, plus C++ symbols of its own. */
static int check_defined(const struct catalog *cat, const char *entry, const char *sym,
                         struct rules_report *rep)
{
    if (!strcmp(sym, entry)) {
        rep->entry_defined = 1;
        return 0;
    }
    if (strchr(sym, '.'))       /* compiler-made, e.g. DW.ref.__gxx_personality_v0 */
        return 0;
    /* lab.h's own __constant__ lab_params, in every kernel file: nvcc keeps
     * its host-side shadow local in a whole-program build like the tutor's,
     * but gives it external linkage with -rdc=true, and that must not make
     * every file break the rule. */
    if (!strcmp(sym, "lab_params"))
        return 0;
    const char *rule = match_rule(cat->deny_defined, cat->ndeny_defined, sym);
    if (rule)
        return add_defined(rep, sym, rule, 0);
    if (!strncmp(sym, "_Z", 2))
        return 0;
    char msg[200], labs[64];
    labs_of_entry(cat, sym, labs, sizeof labs);
    if (labs[0]) {
        snprintf(msg, sizeof msg, "the entry point of lab %s, not of this one (%s): is this the right lab's file?",
                 labs, entry);
        return add_defined(rep, sym, msg, 0);
    }
    snprintf(msg, sizeof msg, "a kernel file defines only its entry point (%s) with C linkage: "
                              "make other functions static, or drop their extern \"C\"", entry);
    return add_defined(rep, sym, msg, 1);
}

int rules_check_symbols(const struct catalog *cat, const char *entry, const char *nm_output,
                        struct rules_report *rep)
{
    const char *p = nm_output;
    while (*p) {
        char name[512], type = 0;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        /* nm -P: "name type [value size]" */
        const char *sp = memchr(p, ' ', len);
        if (sp && (size_t)(sp - p) < sizeof name && sp + 1 < p + len) {
            memcpy(name, p, (size_t)(sp - p));
            name[sp - p] = '\0';
            type = sp[1];
        }
        p += len + (eol ? 1 : 0);
        if (!type)
            continue;
        int rc = 0;
        if (type == 'U' || type == 'w' || type == 'v')
            rc = check_undefined(cat, name, rep);
        else if (isupper((unsigned char)type) || type == 'u')
            rc = check_defined(cat, entry, name, rep);
        if (rc)
            return -1;
    }
    return 0;
}

/* Does a path name a folder `dir` anywhere ("/usr/include/cub/x.cuh")? */
static int has_dir(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    for (const char *p = strstr(path, dir); p; p = strstr(p + 1, dir))
        if ((p == path || p[-1] == '/') && p[n] == '/')
            return 1;
    return 0;
}

int rules_check_includes(const char *deps, struct rules_report *rep)
{
    static const struct { const char *dir; const char *rule; } banned[] = {
        {"cub", "CUB does the work for you: write the reduction yourself"},
        {"thrust", "Thrust does the work for you: write the reduction yourself"},
    };
    int seen[2] = {0, 0};
    char path[4096];
    const char *p = deps;

    while (p && *p) {
        /* One word of the make rule: a path, with "\ " for a space. */
        size_t len = 0;
        while (*p == ' ' || *p == '\t' || *p == '\n' || (*p == '\\' && (p[1] == '\n' || p[1] == '\r')))
            p += *p == '\\' ? 2 : 1;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && len + 1 < sizeof path) {
            if (*p == '\\' && p[1] == ' ')
                p++;
            path[len++] = *p++;
        }
        path[len] = '\0';
        if (!len || path[len - 1] == ':')
            continue;
        /* The real path: a header reached through a link or "../" counts
         * for where it lives. */
        char real[4096];
        const char *where = realpath(path, real) ? real : path;
        for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
            if (!seen[i] && has_dir(where, banned[i].dir)) {
                char what[160];
                seen[i] = 1;
                snprintf(what, sizeof what, "includes %.140s", where);
                if (add(rep, what, banned[i].rule))
                    return -1;
            }
        while (*p == '\r')
            p++;
    }
    return 0;
}

/* Whether the mnemonic M (LEN bytes, words between dots) has every word of
 * the pattern PAT, its first word first: ptxas takes an instruction's
 * modifiers in any order, and libcu++ writes atom.add.acq_rel.gpu.u32 where
 * atomicInc writes atom.acq_rel.gpu.global.inc.u32, so "atom.acq_rel.gpu"
 * matches both; a word matches whole ("bar.sync" is not in bar.synced). */
static int words_match(const char *m, size_t len, const char *pat)
{
    const char *pw = pat;
    for (int first = 1; *pw; first = 0) {
        size_t wl = strcspn(pw, ".");
        int hit = 0;
        for (const char *w = m; w < m + len && !hit;) {
            size_t ml = 0;
            while (w + ml < m + len && w[ml] != '.')
                ml++;
            hit = ml == wl && !strncmp(w, pw, wl);
            if (first)
                break;      /* the opcode is the first word */
            w += ml + 1;
        }
        if (!hit)
            return 0;
        pw += wl;
        if (*pw == '.')
            pw++;
    }
    return 1;
}

static int opcode_matches(void *ud, const char *op, int oplen)
{
    return words_match(op, (size_t)oplen, ud);
}

/* Does an instruction of the PTX have the words of PAT (words_match)?
 * Only opcodes count, as the emulator's tokenizer reads them
 * (emu_ptxscan.h): nothing in a comment, a string, an operand or a label,
 * so no name a student picks can fake a technique. */
static int ptx_has(const char *ptx, const char *pat)
{
    return emu_ptx_opcodes(ptx, strlen(ptx), opcode_matches, (void *)pat) != 0;
}

void rules_check_ptx(const struct lab *lab, const char *ptx, int *found)
{
    for (int i = 0; i < lab->ntech; i++) {
        found[i] = 0;
        for (int j = 0; j < lab->tech[i].nptx && !found[i]; j++)
            found[i] = ptx_has(ptx, lab->tech[i].ptx_any[j]);
    }
}

void rules_report_free(struct rules_report *rep)
{
    for (int i = 0; i < rep->nv; i++) {
        free(rep->v[i].symbol);
        free(rep->v[i].rule);
    }
    free(rep->v);
    memset(rep, 0, sizeof *rep);
}
