/* check_early.c — the host compiler's step of a split compile started
 * before the fatbinary is made.  The host compiler reads every output of
 * both chains, but of the device's last two steps (ptxas, fatbinary) only
 * the fatbinary's C file, which its object embeds as an asm() block of
 * .quad lines: nothing else in the object follows from those bytes.  So
 * once cicc has written the stub, the host's file is compiled to assembly
 * against a stand-in of that C file (the last one fatbinary wrote here,
 * its asm() block one .quad) beside ptxas and fatbinary, and when the real
 * one is made the stand-in's block in the assembly is replaced by the
 * real one's and assembled: the object nvcc's step writes, byte for byte,
 * its host compile off the compile's longest path.  Whenever a part of it
 * is not as expected (no earlier C file to copy, a real one of another
 * shape, a compile that says anything), the host compiler's step runs as
 * nvcc's plan has it instead. */
#include "check/check_early.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/util.h"

/* The stand-in's asm() block: the section and label the real one opens
 * with, one .quad of data. */
#define STANDIN_BLOCK "\".section .nv_fatbin, \\\"a\\\"\\n\"\n\".align 8\\n\"\n\"fatbinData:\\n\"\n" \
                      "\".quad 0x0\\n\"\n\".text\\n\""

/* fatbinary's C file taken apart: what precedes its asm() block's
 * strings, the strings, and what follows (the array's length as 1).
 * 0, or -1 when it is not of that shape. */
struct fatbin_c {
    char *head, *strings, *tail;
};

static void fatbin_c_free(struct fatbin_c *f)
{
    free(f->head);
    free(f->strings);
    free(f->tail);
    memset(f, 0, sizeof *f);
}

static int fatbin_c_read(const char *text, struct fatbin_c *f)
{
    const char *open = text ? strstr(text, "asm(\n") : NULL, *close = open ? strstr(open, ");\n") : NULL;
    const char *len = close ? strstr(close, "fatbinData[") : NULL;
    memset(f, 0, sizeof *f);
    if (!len)
        return -1;
    open += 5;
    const char *digits = len + strlen("fatbinData["), *end = digits + strspn(digits, "0123456789");
    if (end == digits || *end != ']' || strstr(end, "fatbinData["))
        return -1;
    f->head = strndup(text, (size_t)(open - text));
    f->strings = strndup(open, (size_t)(close - open));
    f->tail = util_format("%.*s1%s", (int)(digits - close), close, end);
    if (!f->head || !f->strings || !f->tail) {
        fatbin_c_free(f);
        return -1;
    }
    return 0;
}

/* The text of an asm() block's strings ("...\n" literals, one a line,
 * with \n, \" and \\ inside), heap; NULL when it holds anything else. */
static char *asm_text(const char *strings)
{
    size_t n = strlen(strings);
    char *out = malloc(n + 1), *w = out;
    const char *p = strings;
    if (!out)
        return NULL;
    while (*p) {
        if (*p == '\n' && p[1]) {
            p++;
            continue;
        }
        if (*p++ != '"')
            goto bad;
        while (*p && *p != '"') {
            if (*p != '\\') {
                *w++ = *p++;
                continue;
            }
            char c = p[1];
            if (c != 'n' && c != '"' && c != '\\')
                goto bad;
            *w++ = c == 'n' ? '\n' : c;
            p += 2;
        }
        if (*p++ != '"' || (*p && *p != '\n'))
            goto bad;
    }
    *w = '\0';
    return out;
bad:
    free(out);
    return NULL;
}

/* cmd with the first `from` replaced by `to`; NULL when cmd has no `from`. */
static char *replace(const char *cmd, const char *from, const char *to)
{
    const char *at = cmd ? strstr(cmd, from) : NULL;
    if (!at)
        return NULL;
    return util_format("%.*s%s%s", (int)(at - cmd), cmd, to, at + strlen(from));
}

int early_plan(struct early_host *e, char **fatbin_cmd, const char *fatbin_c, const char *obj)
{
    char *was = util_read_file(fatbin_c, NULL), *q = NULL, *qnext = NULL, *cmd = NULL;
    struct fatbin_c f;
    int rc = -1;

    memset(e, 0, sizeof *e);
    if (fatbin_c_read(was, &f))
        goto out;
    e->standin = util_format("%s" STANDIN_BLOCK "%s", f.head, f.tail);
    fatbin_c_free(&f);
    e->fatbin_c = strdup(fatbin_c);
    e->next = util_format("%s.next", fatbin_c);
    e->s_path = util_format("%s.host.s", obj);
    q = util_format("--embedded-fatbin=\"%s\"", fatbin_c);
    qnext = e->next ? util_format("--embedded-fatbin=\"%s\"", e->next) : NULL;
    if (!e->standin || !e->fatbin_c || !e->next || !e->s_path || !q || !qnext ||
        !(cmd = replace(*fatbin_cmd, q, qnext)))
        goto out;
    unlink(e->next);
    free(*fatbin_cmd);
    *fatbin_cmd = cmd;
    cmd = NULL;
    rc = 0;
out:
    if (rc)
        early_free(e);
    free(was);
    free(q);
    free(qnext);
    free(cmd);
    return rc;
}

char *early_compile_cmd(const struct early_host *e, const char *host_cmd, const char *obj)
{
    char *qo = util_format("-o \"%s\"", obj), *qs = util_format("-o \"%s\"", e->s_path);
    char *a = replace(host_cmd, " -c ", " -S "), *cmd = qo && qs ? replace(a, qo, qs) : NULL;
    free(qo);
    free(qs);
    free(a);
    return cmd;
}

int early_standin(struct early_host *e)
{
    unlink(e->s_path);
    if (util_write_file(e->fatbin_c, e->standin, strlen(e->standin)))
        return -1;
    e->placed = 1;
    return 0;
}

char *early_assemble_cmd(struct early_host *e, const char *host_cmd, const char *cfile)
{
    char *real = util_read_file(e->next, NULL), *s = util_read_file(e->s_path, NULL);
    char *from = NULL, *to = NULL, *spliced = NULL, *qc = NULL, *qs = NULL, *a = NULL, *cmd = NULL;
    struct fatbin_c r = {0}, st = {0};

    /* the real C file differs from the stand-in in its block's strings
     * and its array's length alone */
    if (fatbin_c_read(real, &r) || fatbin_c_read(e->standin, &st) || strcmp(r.head, st.head) ||
        strcmp(r.tail, st.tail) || !(from = asm_text(st.strings)) || !(to = asm_text(r.strings)) || !s)
        goto out;
    const char *at = strstr(s, from);
    if (!at || strstr(at + 1, from))
        goto out;
    if (!(spliced = util_format("%.*s%s%s", (int)(at - s), s, to, at + strlen(from))) ||
        util_write_file(e->s_path, spliced, strlen(spliced)))
        goto out;
    qc = util_format("\"%s\"", cfile);
    qs = util_format("\"%s\"", e->s_path);
    if (qc && qs && (a = replace(host_cmd, " -x c++ ", " -x assembler ")))
        cmd = replace(a, qc, qs);
out:
    fatbin_c_free(&r);
    fatbin_c_free(&st);
    free(real);
    free(s);
    free(from);
    free(to);
    free(spliced);
    free(qc);
    free(qs);
    free(a);
    return cmd;
}

void early_settle(struct early_host *e)
{
    if (e->next && util_is_file(e->next))
        rename(e->next, e->fatbin_c);       /* fatbinary's file where nvcc leaves it */
    else if (e->placed)
        unlink(e->fatbin_c);                /* no fatbinary ran: nvcc leaves none */
    e->placed = 0;
}

void early_free(struct early_host *e)
{
    early_settle(e);
    if (e->s_path)
        unlink(e->s_path);
    free(e->standin);
    free(e->fatbin_c);
    free(e->next);
    free(e->s_path);
    memset(e, 0, sizeof *e);
}
