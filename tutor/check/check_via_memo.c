/* check_via_memo.c — gpu-via.json, what is remembered of the GPU at the
 * other end of the student's command: its model and arch while the command
 * stays the same, and a failure of its GPU side for VIA_RETRY_S seconds.
 * A leaf of the --gpu-via files: check_via.c asks through it, check_via_run.c
 * records how a GPU run went. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "check/check_via_int.h"
#include "sys/util.h"

/* gpu-via.json: {"schema": 1, "command", "name", "arch", "failure": {"at",
 * "why"}}, all of one command.  The GPU's name is kept until the command
 * changes; a failure only VIA_RETRY_S seconds. */
static cJSON *memo_read(const char *memo, const char *cmd)
{
    char *text = memo ? util_read_file(memo, NULL) : NULL;
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "command");
    free(text);
    if (!cJSON_IsObject(j) || !cJSON_IsString(c) || strcmp(c->valuestring, cmd)) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

static void memo_write(const char *memo, cJSON *j)
{
    char *text = cJSON_Print(j);
    if (text)
        (void)util_write_file(memo, text, strlen(text));
    free(text);
}

/* A failure remembered for this command less than VIA_RETRY_S ago: its
 * words in s->error, the seconds until it is asked again in s->retry_s. */
static int remembered_failure(struct via_setup *s, const cJSON *j)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "failure");
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(f, "at");
    const cJSON *why = cJSON_GetObjectItemCaseSensitive(f, "why");
    double ago = cJSON_IsNumber(at) ? (double)time(NULL) - at->valuedouble : -1;
    if (!cJSON_IsString(why) || ago < 0 || ago >= VIA_RETRY_S)
        return 0;
    snprintf(s->error, sizeof s->error, "the GPU side failed %.0f s ago (%s)", ago, why->valuestring);
    s->retry_s = VIA_RETRY_S - ago;
    return 1;
}

int via_memo_load(struct via_setup *s)
{
    cJSON *j = memo_read(s->memo, s->cmd);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(j, "arch");
    int hit = remembered_failure(s, j);
    if (!hit && cJSON_IsString(name) && cJSON_IsString(arch) && !strncmp(arch->valuestring, "sm_", 3)) {
        util_copy(s->name, sizeof s->name, name->valuestring);
        util_copy(s->arch, sizeof s->arch, arch->valuestring);
        hit = 1;
    }
    cJSON_Delete(j);
    return hit;
}

void via_memo_store(const struct via_setup *s)
{
    cJSON *j = cJSON_CreateObject();
    if (!j || !s->memo)
        goto out;
    cJSON_AddNumberToObject(j, "schema", 1);
    cJSON_AddStringToObject(j, "command", s->cmd);
    cJSON_AddStringToObject(j, "name", s->name);
    cJSON_AddStringToObject(j, "arch", s->arch);
    memo_write(s->memo, j);
out:
    cJSON_Delete(j);
}

void via_memo_failure(const char *memo, const char *cmd, const char *why)
{
    cJSON *j = memo ? memo_read(memo, cmd) : NULL, *f;
    if (!memo)
        return;
    if (!j && (j = cJSON_CreateObject())) {
        cJSON_AddNumberToObject(j, "schema", 1);
        cJSON_AddStringToObject(j, "command", cmd);
    }
    cJSON_DeleteItemFromObjectCaseSensitive(j, "failure");
    if (j && (f = cJSON_AddObjectToObject(j, "failure"))) {
        cJSON_AddNumberToObject(f, "at", (double)time(NULL));
        cJSON_AddStringToObject(f, "why", why);
        memo_write(memo, j);
    }
    cJSON_Delete(j);
}

void via_memo_success(const char *memo, const char *cmd)
{
    cJSON *j = memo ? memo_read(memo, cmd) : NULL;
    if (j && cJSON_GetObjectItemCaseSensitive(j, "failure")) {
        cJSON_DeleteItemFromObjectCaseSensitive(j, "failure");
        memo_write(memo, j);
    }
    cJSON_Delete(j);
}
