/* test_intake_rule.c — the rule a kernel.cu is taken in by
 * (model/intake_rule.h), which the grader's intake and the tutor's check
 * share: the text rule over every kind of byte that is not UTF-8 (and the
 * UTF-8 that is), the line it names, and a file read as intake reads one:
 * a link, a folder, a FIFO (never waited on) and a file over the limit
 * refused in the grader's sentences, a plain file read whole. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/intake_rule.h"
#include "sys/util.h"
#include "tap.h"

/* The text rule's verdict on len bytes of s: "" when taken, else why. */
static const char *text_verdict(const char *s, size_t len)
{
    static char out[256];
    char *why = NULL;
    int rc = intake_rule_text("k.cu", s, len, &why);
    util_copy(out, sizeof out, rc == 0 ? "" : why ? why : "(out of memory)");
    free(why);
    return out;
}

static void text_rule(void)
{
    static const struct {
        const char *bytes;
        size_t len;
        const char *why;
    } cases[] = {
        {"int x;\n", 7, ""},
        {"// caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80\n", 17, ""},                 /* 2, 3 and 4 bytes */
        {"", 0, ""},
        {"a\nb\n\0", 5, "k.cu is not text: line 3 holds a NUL byte"},
        {"// caf\xe9\n", 8, "k.cu is not UTF-8 text: line 1 holds the byte 0xe9"},
        {"\n\n\xc0\xaf", 4, "k.cu is not UTF-8 text: line 3 holds the byte 0xc0"},       /* overlong '/' */
        {"\xed\xa0\x80", 3, "k.cu is not UTF-8 text: line 1 holds the byte 0xed"},       /* a surrogate */
        {"\xf4\x90\x80\x80", 4, "k.cu is not UTF-8 text: line 1 holds the byte 0xf4"},   /* past U+10FFFF */
        {"x\n\xe2\x9c", 4, "k.cu is not UTF-8 text: line 2 holds the byte 0xe2"},        /* cut short */
        {"\x80", 1, "k.cu is not UTF-8 text: line 1 holds the byte 0x80"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        EXPECT_STR(text_verdict(cases[i].bytes, cases[i].len), cases[i].why);
}

/* intake_rule_read's verdict on path (named "k.cu"), limit 1 KiB: "" with
 * the bytes read in *got, else why. */
static const char *read_verdict(const char *path, size_t *got)
{
    static char out[256];
    char *why = NULL, *data = NULL;
    size_t len = 0;
    int rc = intake_rule_read(AT_FDCWD, path, "k.cu", 1, &data, &len, &why);
    util_copy(out, sizeof out, rc == 0 ? "" : why ? why : "(out of memory)");
    if (got)
        *got = rc == 0 && data && strlen(data) == len ? len : (size_t)-1;
    free(why);
    free(data);
    return out;
}

static void files_read_as_intake_reads_them(void)
{
    char tmp[] = "/tmp/cudatutor-rule-XXXXXX";
    EXPECT(mkdtemp(tmp) != NULL);
    char *plain = util_format("%s/plain.cu", tmp), *link = util_format("%s/link.cu", tmp);
    char *dir = util_format("%s/dir.cu", tmp), *fifo = util_format("%s/fifo.cu", tmp);
    char *big = util_format("%s/big.cu", tmp), *none = util_format("%s/none.cu", tmp);
    char *bin = util_format("%s/bin.cu", tmp);
    char kib[1025];
    memset(kib, 'x', sizeof kib);
    util_write_file(plain, "int x;\n", 7);
    util_write_file(big, kib, sizeof kib);
    util_write_file(bin, "ok\n\0", 4);
    EXPECT(symlink(plain, link) == 0 && mkdir(dir, 0755) == 0 && mkfifo(fifo, 0644) == 0);
    size_t got = 0;
    EXPECT_STR(read_verdict(plain, &got), "");
    EXPECT(got == 7);
    EXPECT_STR(read_verdict(link, NULL), "k.cu is a symbolic link");
    EXPECT_STR(read_verdict(dir, NULL), "k.cu is not a regular file");
    EXPECT_STR(read_verdict(fifo, NULL), "k.cu is not a regular file");
    EXPECT_STR(read_verdict(none, NULL), "k.cu is not a regular file");
    EXPECT_STR(read_verdict(big, NULL), "k.cu is 1025 bytes (the limit is 1 KiB)");
    EXPECT_STR(read_verdict(bin, NULL), "k.cu is not text: line 2 holds a NUL byte");
    util_write_file(big, kib, 1024);
    EXPECT_STR(read_verdict(big, &got), "");
    EXPECT(got == 1024);
    util_remove_tree(tmp);
    free(plain), free(link), free(dir), free(fifo), free(big), free(none), free(bin);
}

static void sentences(void)
{
    char *s[] = {intake_rule_not_regular("a/k.cu"), intake_rule_symlink("a/b/k.cu", 3), intake_rule_link("k.cu"),
                 intake_rule_too_big("k.cu", 300000, INTAKE_RULE_MAX_KB), intake_rule_grew("k.cu", 256)};
    EXPECT_STR(s[0], "a/k.cu is not a regular file");
    EXPECT_STR(s[1], "a/b is a symbolic link");
    EXPECT_STR(s[2], "k.cu is a link");
    EXPECT_STR(s[3], "k.cu is 300000 bytes (the limit is 256 KiB)");
    EXPECT_STR(s[4], "k.cu is more than 256 KiB");
    for (int i = 0; i < 5; i++)
        free(s[i]);
}

TAP_MAIN(T(text_rule), T(files_read_as_intake_reads_them), T(sentences))
