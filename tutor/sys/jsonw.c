/* jsonw.c — see jsonw.h.  The layout and the number and string forms are
 * jsonw.h's, each held to expected texts by tests/unit/test_jsonw.c. */
#include "sys/jsonw.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/csv.h"
#include "sys/util.h"

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
    char *p = util_grow(w->buf, &w->cap, w->len + len + 2, 1);
    if (!p) {
        w->oom = 1;
        return;
    }
    w->buf = p;
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

/* A text format's escapes: what stands for each ASCII byte that is not
 * written as itself, and whether the other control characters are dropped
 * (XML 1.0 has no way to write them) or written as \u00XX (JSON). */
struct text_form {
    const char *esc[128];
    int drop_controls;
};

static const struct text_form json_form = {
    {['"'] = "\\\"", ['\\'] = "\\\\", ['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n", ['\r'] = "\\r",
     ['\t'] = "\\t", [0x7f] = "\\u007f"},
    0,
};

static const struct text_form xml_form = {
    {['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['\''] = "&apos;", ['"'] = "&quot;", ['\t'] = "\t",
     ['\n'] = "\n", ['\r'] = "\r"},
    1,
};

/* s in format f, each sequence that is not UTF-8 as one U+FFFD. */
static void escaped(struct jsonw *w, const char *s, const struct text_form *f)
{
    size_t n = strlen(s), i = 0, run = 0;
    char room[8];
    while (i < n) {
        unsigned c = (unsigned char)s[i];
        const char *e = c < 0x80 ? f->esc[c] : NULL;
        int valid = 1;
        size_t step = c < 0x80 ? 1 : jsonw_utf8_next(s + i, n - i, &valid);
        if (!valid)
            e = "\xef\xbf\xbd";
        else if (!e && c < 0x20)
            e = f->drop_controls ? "" : (snprintf(room, sizeof room, "\\u%04x", c), room);
        if (e) {
            jsonw_raw(w, s + run, i - run);
            put(w, e);
            run = i + step;
        }
        i += step;
    }
    jsonw_raw(w, s + run, n - run);
}

void jsonw_key(struct jsonw *w, const char *key)
{
    begin(w);
    put(w, "\"");
    escaped(w, key, &json_form);
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
    escaped(w, s, &json_form);
    put(w, "\"");
}

void jsonw_xml(struct jsonw *w, const char *s)
{
    if (!s)
        put(w, "null");
    else
        escaped(w, s, &xml_form);
}

void jsonw_rawf(struct jsonw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = util_vformat(fmt, ap);
    va_end(ap);
    if (!s)
        w->oom = 1;
    else
        put(w, s);
    free(s);
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
