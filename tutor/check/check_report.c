/* check_report.c — the stages' common ground for what they tell: progress
 * to the caller, the verdict and the messages in the report, a long text's
 * tail.  A leaf of check/: the stages and the orchestrator call here, and
 * nothing here calls a stage. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_stage.h"
#include "model/result.h"
#include "sys/util.h"

void check_progress(struct run *r, const char *stage, int i, int n, const char *detail)
{
    if (r->o->progress)
        r->o->progress(r->o->ud, stage, i, n, detail ? detail : "");
}

void check_set_status(struct run *r, enum status s)
{
    cJSON_DeleteItemFromObjectCaseSensitive(r->root, "status");
    cJSON_AddStringToObject(r->root, "status", status_name(s));
}

enum status check_get_status(const struct run *r)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->root, "status");
    int s = cJSON_IsString(v) ? status_from_name(v->valuestring) : -1;
    return s < 0 ? STATUS_INTERNAL_ERROR : (enum status)s;
}

void check_message(struct run *r, const char *fmt, ...)
{
    cJSON *msgs = cJSON_GetObjectItemCaseSensitive(r->root, "messages");
    va_list ap;
    va_start(ap, fmt);
    char *s = util_vformat(fmt, ap);
    va_end(ap);
    if (!msgs)
        msgs = cJSON_AddArrayToObject(r->root, "messages");
    if (s && msgs)
        cJSON_AddItemToArray(msgs, cJSON_CreateString(s));
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
