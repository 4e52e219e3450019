/* check_tell.c — what the stages tell, their common ground: progress to
 * the caller, the verdict and the messages on the check's result, a long
 * text's tail.  A leaf of check/: the stages and the orchestrator call
 * here, and nothing here calls a stage. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_stage.h"
#include "model/result.h"
#include "sys/util.h"

void check_progress(struct check_state *r, enum stage_id stage, int i, int n, const char *detail)
{
    if (r->o->progress)
        r->o->progress(r->o->ud, stage, i, n, detail ? detail : "");
}

void check_set_status(struct check_state *r, enum status s)
{
    result_set_status(r->res, s);
}

enum status check_get_status(const struct check_state *r)
{
    return r->res->status;
}

void check_message(struct check_state *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = util_vformat(fmt, ap);
    va_end(ap);
    if (s)
        result_add_message(r->res, "%s", s);
    free(s);
}

const char *check_tail(const char *text, size_t keep)
{
    size_t len = strlen(text);
    if (len <= keep)
        return text;
    const char *p = text + len - keep, *nl = strchr(p, '\n');
    return nl ? nl + 1 : p;
}
