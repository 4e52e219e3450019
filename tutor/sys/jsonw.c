/* jsonw.c — see jsonw.h.  The layout and the number and string forms are
 * jsonw.h's, each held to expected texts by tests/unit/test_jsonw.c. */
#include "sys/jsonw.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/csv.h"

void jsonw_init(struct jsonw *w, int pretty)
{
    memset(w, 0, sizeof *w);
    w->pretty = pretty;
    w->first = 1;
}

void jsonw_raw(struct jsonw *w, const char *s, size_t len)
{
    if (w->oom)
        return;
    if (w->len + len + 2 > w->cap) {
        size_t cap = w->cap ? w->cap : 1024;
        while (cap < w->len + len + 2)
            cap *= 2;
        char *p = realloc(w->buf, cap);
        if (!p) {
            w->oom = 1;
            return;
        }
        w->buf = p;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, len);
    w->len += len;
    w->buf[w->len] = '\0';
}

static void put(struct jsonw *w, const char *s) { jsonw_raw(w, s, strlen(s)); }

/* A newline and two spaces per level (pretty), or nothing. */
static void indent(struct jsonw *w, int depth)
{
    if (!w->pretty)
        return;
    put(w, "\n");
    for (int i = 0; i < depth; i++)
        put(w, "  ");
}

/* Where a value (or a key) begins: after its key, or after a separator. */
static void begin(struct jsonw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0)
        return;
    if (!w->first)
        put(w, ",");
    indent(w, w->depth);
    w->first = 0;
}

static void open_(struct jsonw *w, const char *c)
{
    begin(w);
    put(w, c);
    w->depth++;
    w->first = 1;
}

static void close_(struct jsonw *w, const char *c)
{
    w->depth--;
    if (!w->first)
        indent(w, w->depth);
    put(w, c);
    w->first = 0;
}

void jsonw_object(struct jsonw *w) { open_(w, "{"); }
void jsonw_array(struct jsonw *w) { open_(w, "["); }
void jsonw_end_object(struct jsonw *w) { close_(w, "}"); }
void jsonw_end_array(struct jsonw *w) { close_(w, "]"); }

size_t jsonw_utf8_next(const char *str, size_t n, int *valid)
{
    const unsigned char *s = (const unsigned char *)str;
    unsigned c = s[0];
    size_t len;
    unsigned cp;
    *valid = 1;
    if (c < 0x80)
        return 1;
    if (c >= 0xc0 && c < 0xe0) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c < 0xf0) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c < 0xf8) {
        len = 4;
        cp = c & 0x07;
    } else {
        *valid = 0;
        return 1;
    }
    if (len > n) {
        *valid = 0;
        return n;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            *valid = 0;
            return i;
        }
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const unsigned least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        *valid = 0;
    return len;
}

/* A JSON string's contents, escaped by jsonw.h's rule. */
static void escaped(struct jsonw *w, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), i = 0, run = 0;
    char esc[8];
    while (i < n) {
        unsigned c = p[i];
        const char *e = NULL;
        int valid = 1;
        size_t step = 1;
        switch (c) {
        case '"': e = "\\\""; break;
        case '\\': e = "\\\\"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                e = esc;
            } else if (c >= 0x80) {
                step = jsonw_utf8_next(s + i, n - i, &valid);
                if (!valid)
                    e = "\xef\xbf\xbd";
            }
        }
        if (!e) {
            i += step;
            continue;
        }
        jsonw_raw(w, s + run, i - run);
        put(w, e);
        i += step;
        run = i;
    }
    jsonw_raw(w, s + run, n - run);
}

void jsonw_key(struct jsonw *w, const char *key)
{
    begin(w);
    put(w, "\"");
    escaped(w, key);
    put(w, w->pretty ? "\": " : "\":");
    w->after_key = 1;
}

void jsonw_string(struct jsonw *w, const char *s)
{
    if (!s) {
        jsonw_null(w);
        return;
    }
    begin(w);
    put(w, "\"");
    escaped(w, s);
    put(w, "\"");
}

void jsonw_number(char *buf, size_t len, double x)
{
    /* One rule for every report's numbers, csv.h's (grades.csv prints them too). */
    if (isnan(x) || csv_format_number(buf, len, x))
        snprintf(buf, len, "null");
}

void jsonw_double(struct jsonw *w, double x)
{
    char buf[40];
    begin(w);
    jsonw_number(buf, sizeof buf, x);
    put(w, buf);
}

void jsonw_bool(struct jsonw *w, int b)
{
    begin(w);
    put(w, b ? "true" : "false");
}

void jsonw_null(struct jsonw *w)
{
    begin(w);
    put(w, "null");
}

void jsonw_cjson(struct jsonw *w, const void *value)
{
    const cJSON *v = value, *c;
    if (!v || cJSON_IsNull(v) || cJSON_IsInvalid(v)) {
        jsonw_null(w);
    } else if (cJSON_IsBool(v)) {
        jsonw_bool(w, cJSON_IsTrue(v));
    } else if (cJSON_IsNumber(v)) {
        jsonw_double(w, v->valuedouble);
    } else if (cJSON_IsString(v)) {
        jsonw_string(w, v->valuestring);
    } else if (cJSON_IsArray(v)) {
        jsonw_array(w);
        cJSON_ArrayForEach(c, v)
            jsonw_cjson(w, c);
        jsonw_end_array(w);
    } else if (cJSON_IsObject(v)) {
        jsonw_object(w);
        cJSON_ArrayForEach(c, v) {
            jsonw_key(w, c->string);
            jsonw_cjson(w, c);
        }
        jsonw_end_object(w);
    } else {
        jsonw_null(w);
    }
}

char *jsonw_take(struct jsonw *w)
{
    put(w, "\n");
    if (w->oom) {
        jsonw_free(w);
        return NULL;
    }
    char *s = w->buf;
    int pretty = w->pretty;
    jsonw_init(w, pretty);
    return s;
}

void jsonw_free(struct jsonw *w)
{
    free(w->buf);
    jsonw_init(w, w->pretty);
}
