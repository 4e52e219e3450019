/* jget.c — the tests' reader of JSON files, in place of a general JSON
 * tool: `jget FILE PATH...` prints the value at each PATH, one a line:
 * a string as its text, a number in the reports' form (sys/jsonw.h's
 * jsonw_number), true, false, null (also for a path that is not there),
 * an object or array as one line of JSON.  PATH is .key, ["key"] and [N]
 * steps from the top (. alone is the top); a last [] prints each element
 * of an array (nothing for an empty one).  FILE - is stdin.  Exits 2 on a
 * bad path or a file that is not JSON. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/jsonw.h"
#include "sys/util.h"

static void print_value(const cJSON *v)
{
    char buf[40];
    if (!v || cJSON_IsNull(v)) {
        puts("null");
    } else if (cJSON_IsString(v)) {
        puts(v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        jsonw_number(buf, sizeof buf, v->valuedouble);
        puts(buf);
    } else if (cJSON_IsBool(v)) {
        puts(cJSON_IsTrue(v) ? "true" : "false");
    } else {
        char *text = cJSON_PrintUnformatted(v);
        puts(text ? text : "null");
        free(text);
    }
}

/* Follows path from v; each is set when it ends in []. -1: a bad path. */
static int walk(const cJSON *v, const char *p, const cJSON **out, int *each)
{
    *each = 0;
    if (*p != '.' && *p != '[')
        return -1;
    if (p[0] == '.' && p[1] == '\0') {
        *out = v;
        return 0;
    }
    while (*p) {
        char key[256];
        size_t n = 0;
        if (*p == '.' && p[1] != '[') {
            p++;
            while (*p && *p != '.' && *p != '[' && n < sizeof key - 1)
                key[n++] = *p++;
            key[n] = '\0';
            v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, key) : NULL;
            continue;
        }
        if (*p == '.')
            p++;
        if (*p != '[')
            return -1;
        p++;
        if (*p == ']' && p[1] == '\0') {
            *each = 1;
            break;
        } else if (*p == '"') {
            p++;
            while (*p && *p != '"' && n < sizeof key - 1)
                key[n++] = *p++;
            key[n] = '\0';
            if (*p++ != '"' || *p++ != ']')
                return -1;
            v = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, key) : NULL;
        } else {
            char *end;
            long i = strtol(p, &end, 10);
            if (end == p || *end != ']')
                return -1;
            p = end + 1;
            v = cJSON_IsArray(v) ? cJSON_GetArrayItem(v, (int)i) : NULL;
        }
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    size_t len = 0;
    char *text;
    int rc = 0;
    if (argc < 3) {
        fputs("usage: jget FILE PATH...\n", stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-")) {
        size_t cap = 1 << 16;
        text = malloc(cap);
        for (size_t k; text && (k = fread(text + len, 1, cap - len - 1, stdin)) > 0;) {
            len += k;
            if (len + 1 == cap) {
                char *more = realloc(text, cap *= 2);
                if (!more)
                    free(text);
                text = more;
            }
        }
        if (text)
            text[len] = '\0';
    } else {
        text = util_read_file(argv[1], &len);
    }
    cJSON *doc = text ? cJSON_ParseWithLength(text, len) : NULL;
    if (!doc) {
        fprintf(stderr, "jget: %s: not JSON\n", argv[1]);
        free(text);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        const cJSON *v = NULL, *e;
        int each;
        if (walk(doc, argv[i], &v, &each)) {
            fprintf(stderr, "jget: a path is .key, [\"key\"], [N] steps and a last []: %s\n", argv[i]);
            rc = 2;
            break;
        }
        if (!each)
            print_value(v);
        else if (cJSON_IsArray(v) || cJSON_IsObject(v))
            cJSON_ArrayForEach(e, v) print_value(e);
    }
    cJSON_Delete(doc);
    free(text);
    return rc;
}
