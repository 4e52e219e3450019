/* test_roster.c — student ids (tutor/grade/roster.h): derive_id's rules as
 * grade.sh had them, and the roster CSV with quoted ids, a BOM, CRLF, a
 * field across lines, the header's names, and the errors grade.sh printed. */
#include <stdlib.h>
#include <string.h>

#include "grade/roster.h"
#include "tap.h"

static const char *derived(const char *name)
{
    static char out[ROSTER_ID_MAX + 1];
    if (roster_derive_id(name, out, sizeof out))
        return "(did not fit)";
    return out;
}

static void test_derive_id(void)
{
    EXPECT_STR(derived("alice"), "alice");
    EXPECT_STR(derived("bob.tar.gz"), "bob");
    EXPECT_STR(derived("bob.TAR.GZ"), "bob");
    EXPECT_STR(derived("carol.zip"), "carol");
    EXPECT_STR(derived("Dave.Tgz"), "Dave");
    EXPECT_STR(derived("erin.tar"), "erin");
    /* One extension only, and only these. */
    EXPECT_STR(derived("a.tar.gz.zip"), "a.tar.gz");
    EXPECT_STR(derived("x.gz"), "x.gz");
    EXPECT_STR(derived("../x.tar.gz"), "_x");
    EXPECT_STR(derived(".hidden"), "hidden");
    EXPECT_STR(derived("-rf"), "rf");
    EXPECT_STR(derived("..-.x"), "x");
    EXPECT_STR(derived("Bob Smith.ZIP"), "Bob_Smith");
    EXPECT_STR(derived("a/b\\c;d$e"), "a_b_c_d_e");
    EXPECT_STR(derived("keep.these_@+-"), "keep.these_@+-");
    /* Byte by byte: a two-byte letter is two '_'. */
    EXPECT_STR(derived("Jos\xC3\xA9.zip"), "Jos__");
    EXPECT_STR(derived("\xE7\x8E\x8B"), "___");
    EXPECT_STR(derived(""), "student");
    EXPECT_STR(derived(".tar.gz"), "student");
    EXPECT_STR(derived("..."), "student");
}

static void test_derive_id_cut_at_100(void)
{
    char name[300], out[ROSTER_ID_MAX + 1];
    memset(name, 'a', 250);
    strcpy(name + 250, ".zip");
    EXPECT(roster_derive_id(name, out, sizeof out) == 0);
    EXPECT(strlen(out) == ROSTER_ID_MAX);
    /* The cut comes after the leading dots are dropped. */
    name[0] = '.';
    EXPECT(roster_derive_id(name, out, sizeof out) == 0);
    EXPECT(strlen(out) == ROSTER_ID_MAX && out[0] == 'a');
    char small[4];
    EXPECT(roster_derive_id("abcdef", small, sizeof small) == -1);
    EXPECT_STR(small, "abc");
}

static int parse(struct roster *r, const char *text, char *err, size_t errlen)
{
    return roster_parse(r, text, strlen(text), "roster.csv", err, errlen);
}

static void test_roster_like_the_fixture(void)
{
    /* tests/grade/roster.csv: quoted cells, a comma in a name, CRLF. */
    const char *text = "\"submission\",\"student_id\",\"name\"\r\n"
                       "\"alice\",\"s1001\",\"Alice, A.\"\r\n"
                       "\"bob.tar.gz\",\"s1002\",\"Bob \"\"Bobby\"\" B.\"\r\n"
                       "carol,s1003,Carol\r\n";
    struct roster r;
    char err[200] = "", id[ROSTER_ID_MAX + 1];
    EXPECT(parse(&r, text, err, sizeof err) == 0);
    EXPECT(r.n == 3);
    EXPECT_STR(roster_lookup(&r, "alice"), "s1001");
    EXPECT_STR(roster_lookup(&r, "bob.tar.gz"), "s1002");
    /* By the stem when the name is not there as given. */
    EXPECT_STR(roster_lookup(&r, "carol.zip"), "s1003");
    EXPECT(roster_lookup(&r, "dave") == NULL);
    EXPECT(roster_student_id(&r, "carol.zip", id, sizeof id) == 1);
    EXPECT_STR(id, "s1003");
    EXPECT(roster_student_id(&r, "dave.tgz", id, sizeof id) == 0);
    EXPECT_STR(id, "dave");
    EXPECT(roster_student_id(NULL, "dave.tgz", id, sizeof id) == 0);
    EXPECT_STR(id, "dave");
    roster_free(&r);
}

static void test_quoted_ids_bom_and_lines(void)
{
    /* A BOM, the columns by other names in other places, an id with a
     * comma, a cell across lines, rows with an empty cell skipped. */
    const char *text = "\xEF\xBB\xBFNote, Student ID ,Email,ARCHIVE\n"
                       "\"two\nlines\",\"Smith, J\",j@x,smith.zip\n"
                       "x,,y,nobody.zip\n"
                       "x,s9,y,\n"
                       "short\n"
                       "z,\"s\"\"7\",y,\"quo\"\"te.zip\"\n";
    struct roster r;
    char err[200] = "", id[ROSTER_ID_MAX + 1];
    EXPECT(parse(&r, text, err, sizeof err) == 0);
    EXPECT(r.n == 2);
    EXPECT_STR(roster_lookup(&r, "smith.zip"), "Smith, J");
    EXPECT(roster_student_id(&r, "smith.zip", id, sizeof id) == 1);
    EXPECT_STR(id, "Smith__J");
    EXPECT(roster_lookup(&r, "nobody.zip") == NULL);
    EXPECT_STR(roster_lookup(&r, "quo\"te.zip"), "s\"7");
    roster_free(&r);
}

static void test_header_choices(void)
{
    struct roster r;
    char err[200] = "";
    /* The first id-like column wins; the last submission-like one does. */
    EXPECT(parse(&r, "sid,file,student,folder\ns1,a,s2,b\n", err, sizeof err) == 0);
    EXPECT_STR(roster_lookup(&r, "b"), "s1");
    EXPECT(roster_lookup(&r, "a") == NULL);
    roster_free(&r);
    /* A later row for the same submission wins, as in grade.sh's map. */
    EXPECT(parse(&r, "submission,id\r\na,one\r\na,two\r\n", err, sizeof err) == 0);
    EXPECT_STR(roster_lookup(&r, "a"), "two");
    roster_free(&r);
}

static void test_errors(void)
{
    struct roster r;
    char err[200] = "";
    EXPECT(parse(&r, "name,email\na,b\n", err, sizeof err) == -1);
    EXPECT_STR(err, "roster.csv needs a header row with the columns submission and student_id");
    EXPECT(r.n == 0 && r.entries == NULL);
    EXPECT(parse(&r, "submission,name\n", err, sizeof err) == -1);
    EXPECT_STR(err, "roster.csv needs a header row with the columns submission and student_id");
    EXPECT(parse(&r, "", err, sizeof err) == -1);
    EXPECT_STR(err, "roster.csv needs a header row with the columns submission and student_id");
    EXPECT(parse(&r, "submission,id\n\"alice,s1\n", err, sizeof err) == -1);
    EXPECT_STR(err, "roster.csv: line 2: a quoted field is not closed");
    EXPECT(roster_load(&r, "/nonexistent/roster.csv", err, sizeof err) == -1);
    EXPECT_STR(err, "cannot read the roster /nonexistent/roster.csv");
}

static void test_load_the_fixture(void)
{
    struct roster r;
    char err[200] = "";
    EXPECT(roster_load(&r, "tests/grade/roster.csv", err, sizeof err) == 0);
    EXPECT(r.n == 3);
    EXPECT_STR(roster_lookup(&r, "bob.tar.gz"), "s1002");
    roster_free(&r);
}

TAP_MAIN(T(test_derive_id), T(test_derive_id_cut_at_100), T(test_roster_like_the_fixture),
         T(test_quoted_ids_bom_and_lines), T(test_header_choices), T(test_errors),
         T(test_load_the_fixture))
