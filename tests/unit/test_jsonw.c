/* test_jsonw.c — JSON written as jq 1.6 prints it: each expected text
 * below is what `jq -n` printed for the same value (numbers, escapes, a
 * byte that is not UTF-8, the layout of nested and empty containers); and
 * text for XML by the same walk. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

#include "sys/jsonw.h"
#include "tap.h"

static void numbers_as_jq_prints_them(void)
{
    static const struct {
        double x;
        const char *jq;
    } rows[] = {
        {1e17, "1e+17"}, {1e16, "1e+16"}, {1e15, "1000000000000000"}, {1.23e16, "12300000000000000"},
        {123456789012345678.0, "123456789012345680"}, {1e-4, "0.0001"}, {1e-5, "1e-05"},
        {0.0001234, "0.0001234"}, {1.5e300, "1.5e+300"}, {281474976710655.0, "281474976710655"},
        {0.1, "0.1"}, {1.0 / 3, "0.3333333333333333"}, {2.0 / 3 * 100, "66.66666666666666"}, {100, "100"},
        {-0.00001, "-1e-05"}, {0, "0"}, {0.1 + 0.2, "0.30000000000000004"}, {3.0, "3"},
        {INFINITY, "1.7976931348623157e+308"}, {NAN, "null"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char buf[40];
        jsonw_number(buf, sizeof buf, rows[i].x);
        EXPECT_STR(buf, rows[i].jq);
    }
}

static void strings_and_layout(void)
{
    struct jsonw w;
    jsonw_init(&w, 1);
    jsonw_object(&w);
    jsonw_key(&w, "a");
    jsonw_array(&w);
    jsonw_end_array(&w);
    jsonw_key(&w, "b");
    jsonw_object(&w);
    jsonw_end_object(&w);
    jsonw_key(&w, "c");
    jsonw_array(&w);
    jsonw_double(&w, 1);
    jsonw_object(&w);
    jsonw_key(&w, "d");
    jsonw_null(&w);
    jsonw_end_object(&w);
    jsonw_end_array(&w);
    jsonw_key(&w, "s");
    jsonw_string(&w, "a\x7f" "b\x01\x1f" "c/\xc3\xa9\t\"\\ x\xffy\xc3");
    jsonw_end_object(&w);
    char *got = jsonw_take(&w);
    EXPECT_STR(got, "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": null\n    }\n  ],\n"
                    "  \"s\": \"a\\u007fb\\u0001\\u001fc/\xc3\xa9\\t\\\"\\\\ x\xef\xbf\xbdy\xef\xbf\xbd\"\n}\n");
    free(got);

    /* Compact, and a parsed value passed through in its key order. */
    cJSON *v = cJSON_Parse("{\"z\": [1, 2.5e-7], \"a\": {\"t\": true, \"f\": false}}");
    jsonw_init(&w, 0);
    jsonw_cjson(&w, v);
    got = jsonw_take(&w);
    EXPECT_STR(got, "{\"z\":[1,2.5e-07],\"a\":{\"t\":true,\"f\":false}}\n");
    free(got);
    cJSON_Delete(v);
}

/* XML's text as the JUnit report and the trace's SVG write it: the five
 * specials as entities, tab, LF and CR kept, the other control characters
 * dropped, DEL kept, a byte that is not UTF-8 replaced as in JSON; and raw
 * text formatted. */
static void xml_text_and_raw(void)
{
    struct jsonw w;
    jsonw_init(&w, 0);
    jsonw_rawf(&w, "<t n=\"%d\">", 42);
    jsonw_xml(&w, "a&b<c>d'e\"f\tg\nh\ri\x01j\x1fk\x7fl\xc3\xa9m\xffn\xc3");
    jsonw_rawf(&w, "</t>%s", "");
    jsonw_xml(&w, NULL);
    char *got = jsonw_take(&w);
    EXPECT_STR(got, "<t n=\"42\">a&amp;b&lt;c&gt;d&apos;e&quot;f\tg\nh\rijk\x7fl\xc3\xa9m\xef\xbf\xbdn\xef\xbf\xbd</t>null\n");
    free(got);
}

TAP_MAIN(T(numbers_as_jq_prints_them), T(strings_and_layout), T(xml_text_and_raw))
