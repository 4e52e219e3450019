/* test_intake.c — taking a submission in (tutor/grade/intake.h) against
 * archives built here with libarchive's writer, the hostile ones an
 * attacker would hand in: a kernel.cu that is a symbolic link to
 * /etc/passwd, a hard link, a device node and a fifo, members that climb
 * out with ".." (also written with backslashes) or start at "/", a gzip
 * bomb whose gzip trailer lies about its size, a zip bomb whose headers
 * lie, 20,000 members, a huge kernel.cu, the same member twice, and a
 * folder whose kernel.cu (or a folder on the way) is a link.  Each is
 * refused with grade.sh's words, and after each the only files anywhere
 * under the test's folder are the inputs and what intake writes by design.
 * Then the honest ones: a nested top folder, NN-slug/kernel.cu without
 * labs/, the stub as handed out, a missing lab; intake.json read back. */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "grade/intake.h"
#include "model/intake_rule.h"
#include "sys/util.h"
#include "tap.h"

static char root[64];                   /* the test's folder: in/ the inputs, out/ the work */
static struct catalog cat;
static const struct lab *sel[2];       /* labs 01 and 02 */
static char l1[128], l2[128];           /* their folder names, "01-interleaved-addressing" */
static const char *sol = "kernel void from the student: solved\n";

/* ---- building archives ------------------------------------------------ */

enum fmt { TAR, TAR_GZ, ZIP, GZ_RAW };

struct member {
    const char *name;
    char type;                  /* f file, l symbolic link, h hard link, c device, p fifo, d folder */
    const char *data;           /* file: its text; links: the target */
    long long zeros;            /* file: this many zero bytes instead of data */
    size_t len;                 /* file: data's length when it holds NULs */
};

/* Writes an archive of the members into in/NAME; returns its path. */
static char *make_archive(const char *name, enum fmt fmt, const struct member *m, int n)
{
    char *path = util_format("%s/in/%s", root, name);
    struct archive *a = archive_write_new();
    static char zeros[1 << 16];

    if (fmt == ZIP) {
        archive_write_set_format_zip(a);
    } else if (fmt == GZ_RAW) {     /* one member's bytes, gzipped, no tar */
        archive_write_set_format_raw(a);
        archive_write_add_filter_gzip(a);
    } else {
        archive_write_set_format_pax_restricted(a);
        if (fmt == TAR_GZ)
            archive_write_add_filter_gzip(a);
    }
    if (archive_write_open_filename(a, path) != ARCHIVE_OK) {
        printf("#   cannot write %s: %s\n", path, archive_error_string(a));
        tap_failed_ = 1;
    }
    for (int i = 0; i < n; i++) {
        struct archive_entry *e = archive_entry_new();
        long long size = m[i].type != 'f' ? 0
                         : m[i].zeros ? m[i].zeros
                         : m[i].len ? (long long)m[i].len : (long long)strlen(m[i].data);
        archive_entry_set_pathname(e, m[i].name);
        archive_entry_set_perm(e, 0644);
        archive_entry_set_mtime(e, 1700000000, 0);
        switch (m[i].type) {
        case 'f': archive_entry_set_filetype(e, AE_IFREG); break;
        case 'd': archive_entry_set_filetype(e, AE_IFDIR); break;
        case 'l': archive_entry_set_filetype(e, AE_IFLNK); archive_entry_set_symlink(e, m[i].data); break;
        case 'h': archive_entry_set_filetype(e, AE_IFREG); archive_entry_set_hardlink(e, m[i].data); break;
        case 'c': archive_entry_set_filetype(e, AE_IFCHR); archive_entry_set_rdev(e, makedev(1, 3)); break;
        case 'p': archive_entry_set_filetype(e, AE_IFIFO); break;
        }
        archive_entry_set_size(e, size);
        if (archive_write_header(a, e) != ARCHIVE_OK) {
            printf("#   cannot add %s: %s\n", m[i].name, archive_error_string(a));
            tap_failed_ = 1;
        }
        if (m[i].type == 'f' && m[i].zeros) {
            for (long long done = 0; done < m[i].zeros; done += (long long)sizeof zeros) {
                long long k = m[i].zeros - done < (long long)sizeof zeros ? m[i].zeros - done : (long long)sizeof zeros;
                archive_write_data(a, zeros, (size_t)k);
            }
        } else if (size) {
            archive_write_data(a, m[i].data, (size_t)size);
        }
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
    return path;
}

/* ---- what is on disk -------------------------------------------------- */

/* Every file, link and other non-folder under dir, as "REL" lines after
 * prefix into out; folders are named only when empty. */
static void walk(const char *dir, const char *rel, char *out, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int any = 0;
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char *p = util_format("%s/%s", dir, e->d_name);
        char *r = util_format("%s%s%s", rel, *rel ? "/" : "", e->d_name);
        struct stat st;
        any = 1;
        if (!strcmp(r, "in"))               /* the inputs are not of interest */
            ;
        else if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            walk(p, r, out, len);
        else
            snprintf(out + strlen(out), len - strlen(out), "%s\n", r);
        free(p);
        free(r);
    }
    if (!any && *rel)
        snprintf(out + strlen(out), len - strlen(out), "%s/\n", rel);
    if (d)
        closedir(d);
}

/* The files intake may write for student s: what it writes always, plus
 * the kernels of the labs named in taken ("01", "0102" or ""). */
static char *expected_files(const char *s, const char *taken)
{
    char *k1 = strstr(taken, "01") ? util_format("out/%s/wb/labs/%s/kernel.cu\n", s, l1) : strdup("");
    char *k2 = strstr(taken, "02") ? util_format("out/%s/wb/labs/%s/kernel.cu\n", s, l2) : strdup("");
    char *want = util_format("%s%sout/%s/intake.json\nout/%s/wb/data/labs.json\nout/%s/wb/tutor/lab.h\n",
                             k1, k2, s, s, s);
    free(k1);
    free(k2);
    return want;
}

/* Sorted lines, so the walk's order does not matter. */
static int by_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *sorted(char *text)
{
    char *lines[256], *save = NULL, *out = calloc(1, strlen(text) + 2);
    int n = 0;
    for (char *l = strtok_r(text, "\n", &save); l && n < 256; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    qsort(lines, (size_t)n, sizeof *lines, by_line);
    for (int i = 0; i < n; i++)
        strcat(strcat(out, lines[i]), "\n");
    return out;
}

/* Nothing exists under the test's folder but the inputs and what intake
 * writes for student s (out/ is emptied before each case). */
static void expect_only(const char *s, const char *taken)
{
    static char found[1 << 16];
    found[0] = '\0';
    walk(root, "", found, sizeof found);
    char *want = expected_files(s, taken);
    char *a = sorted(found), *b = sorted(want);
    if (strcmp(a, b)) {
        printf("#   files under the test folder:\n%s#   expected:\n%s", a, b);
        tap_failed_ = 1;
    }
    free(a);
    free(b);
    free(want);
}

/* ---- running intake --------------------------------------------------- */

static struct intake res;

/* Takes submission in/name (or path) in as student s with lim (NULL: the
 * defaults); returns intake_take's result. */
static int take(const char *s, const char *name, const char *path, const struct intake_limits *lim)
{
    static const struct intake_limits def = INTAKE_LIMITS_DEFAULT;
    char err[512] = "", *dir = util_format("%s/out/%s", root, s), *out = util_format("%s/out", root);
    char cwd[4096];
    intake_free(&res);
    util_remove_tree(out);
    int rc = intake_take(&cat, sel, 2, getcwd(cwd, sizeof cwd), name, path, dir, lim ? lim : &def,
                         &res, err, sizeof err);
    if (rc)
        printf("#   intake_take: %s\n", err);
    free(dir);
    free(out);
    return rc;
}

/* The whole submission was refused, every lab with it, and why contains
 * want. */
static void expect_refused_whole(const char *want)
{
    EXPECT(res.refused != NULL);
    if (res.refused && !strstr(res.refused, want)) {
        printf("#   refused: \"%s\", expected it to say \"%s\"\n", res.refused, want);
        tap_failed_ = 1;
    }
    for (int i = 0; i < res.nlabs; i++) {
        EXPECT(!res.labs[i].ok && res.labs[i].status == STATUS_REFUSED);
        EXPECT(res.labs[i].from == NULL);
    }
}

/* Lab i is refused for its own reason, the word want in it. */
static void expect_lab_refused(int i, const char *want)
{
    EXPECT(res.refused == NULL);
    EXPECT(i < res.nlabs && !res.labs[i].ok && res.labs[i].status == STATUS_REFUSED);
    const char *why = i < res.nlabs ? res.labs[i].why : NULL;
    if (!why || !strstr(why, want)) {
        printf("#   why: \"%s\", expected it to say \"%s\"\n", why ? why : "(null)", want);
        tap_failed_ = 1;
    }
}

static char *member_path(const char *top, const char *lab)
{
    return util_format("%s%slabs/%s/kernel.cu", top, *top ? "/" : "", lab);
}

/* ---- hostile archives ------------------------------------------------- */

static void a_symlinked_kernel_is_refused(void)
{
    char *k = member_path("", l1);
    struct member m[] = {{"labs", 'd', NULL, 0, 0}, {k, 'l', "/etc/passwd", 0, 0}};
    for (int z = 0; z < 2; z++) {
        char *p = make_archive(z ? "link.zip" : "link.tar.gz", z ? ZIP : TAR_GZ, m, 2);
        EXPECT(take("s", z ? "link.zip" : "link.tar.gz", p, NULL) == 0);
        expect_lab_refused(0, "is a link");
        EXPECT_STR(res.labs[0].from, k);
        expect_only("s", "");
        free(p);
    }
    free(k);
}

static void a_hard_link_is_refused(void)
{
    char *k = member_path("", l1);
    struct member m[] = {{"decoy.cu", 'f', sol, 0, 0}, {k, 'h', "decoy.cu", 0, 0}};
    char *p = make_archive("hard.tar", TAR, m, 2);
    EXPECT(take("s", "hard.tar", p, NULL) == 0);
    expect_lab_refused(0, "is a link");
    expect_only("s", "");
    free(p);
    free(k);
}

static void a_device_or_fifo_is_refused(void)
{
    char *k = member_path("", l1);
    for (int fifo = 0; fifo < 2; fifo++) {
        struct member m[] = {{k, fifo ? 'p' : 'c', NULL, 0, 0}};
        char *p = make_archive("dev.tar", TAR, m, 1);
        EXPECT(take("s", "dev.tar", p, NULL) == 0);
        expect_lab_refused(0, "is not a regular file");
        expect_only("s", "");
        free(p);
    }
    free(k);
}

static void members_that_climb_out_refuse_the_archive(void)
{
    char *up = util_format("../../x/labs/%s/kernel.cu", l1);
    char *abs = util_format("%s/abs/labs/%s/kernel.cu", root, l1);
    char *back = util_format("labs\\..\\..\\..\\x\\%s\\kernel.cu", l1);
    char *mid = util_format("labs/%s/../../../x/kernel.cu", l1);
    const char *names[] = {up, abs, back, mid};
    for (int z = 0; z < 2; z++) {
        for (int i = 0; i < 4; i++) {
            char *ok = member_path("", l2);
            struct member m[] = {{ok, 'f', sol, 0, 0}, {names[i], 'f', "escaped\n", 0, 0}};
            char *p = make_archive(z ? "out.zip" : "out.tar.gz", z ? ZIP : TAR_GZ, m, 2);
            EXPECT(take("s", z ? "out.zip" : "out.tar.gz", p, NULL) == 0);
            expect_refused_whole("a member escapes the folder: ");
            expect_only("s", "");
            free(ok);
            free(p);
        }
    }
    /* Where the names pointed: nothing there. */
    char *x = util_format("%s/x", root), *ax = util_format("%s/abs", root);
    EXPECT(!util_is_dir(x) && !util_is_dir(ax) && !util_is_dir("/x"));
    free(x);
    free(ax);
    free(up);
    free(abs);
    free(back);
    free(mid);
}

/* Overwrites the 4 bytes at off with v, little-endian. */
static void poke32(FILE *f, long off, unsigned v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    fseek(f, off, SEEK_SET);
    fwrite(b, 1, 4, f);
}

static void a_gzip_bomb_stops_at_the_limit(void)
{
    /* 200 MB of zeros that gzip into 200 KB, the gzip trailer saying the
     * stream is 1000 bytes: only the bytes read count. */
    char *k = member_path("", l1);
    struct member m[] = {{k, 'f', sol, 0, 0}, {"zeros", 'f', NULL, 200LL << 20, 0}};
    char *p = make_archive("bomb.tar.gz", TAR_GZ, m, 2);
    FILE *f = fopen(p, "r+b");
    EXPECT(f != NULL);
    if (f) {
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        EXPECT(size < (4L << 20));
        poke32(f, size - 4, 1000);
        fclose(f);
    }
    double t0 = util_now();
    EXPECT(take("s", "bomb.tar.gz", p, NULL) == 0);
    expect_refused_whole("archive bomb: it unpacks to more than 64 MiB");
    expect_only("s", "");
    /* Stopped at the limit: far less time than unpacking 200 MB twice. */
    printf("#   the bomb was refused in %.2f s\n", util_now() - t0);
    /* A lower limit stops sooner. */
    struct intake_limits lim = {256, 1, 10000};
    EXPECT(take("s", "bomb.tar.gz", p, &lim) == 0);
    expect_refused_whole("archive bomb: it unpacks to more than 1 MiB");
    free(p);
    free(k);
}

/* Every 4-byte little-endian "uncompressed size" a zip holds for its
 * members, set to v: the local header's (offset 22), the data
 * descriptor's (12) and the central directory's (24). */
static void zip_lie_about_sizes(const char *path, unsigned v)
{
    size_t len;
    char *z = util_read_file(path, &len);
    FILE *f = fopen(path, "r+b");
    for (size_t i = 0; z && f && i + 30 < len; i++) {
        if (!memcmp(z + i, "PK\3\4", 4))
            poke32(f, (long)i + 22, v);
        else if (!memcmp(z + i, "PK\7\10", 4))
            poke32(f, (long)i + 12, v);
        else if (!memcmp(z + i, "PK\1\2", 4))
            poke32(f, (long)i + 24, v);
    }
    if (f)
        fclose(f);
    free(z);
}

static void a_zip_bomb_stops_at_the_limit(void)
{
    char *k = member_path("", l1);
    struct member m[] = {{k, 'f', sol, 0, 0}, {"zeros", 'f', NULL, 200LL << 20, 0}};
    char *p = make_archive("bomb.zip", ZIP, m, 2);
    EXPECT(take("s", "bomb.zip", p, NULL) == 0);
    expect_refused_whole("archive bomb: it unpacks to more than 64 MiB");
    expect_only("s", "");
    /* The same with its headers claiming 1000 bytes: refused all the same
     * (as a bomb, or as damaged when the reader trusts the claim and the
     * sizes disagree), and nothing taken. */
    zip_lie_about_sizes(p, 1000);
    EXPECT(take("s", "bomb.zip", p, NULL) == 0);
    EXPECT(res.refused != NULL);
    printf("#   the lying zip: %s\n", res.refused ? res.refused : "(taken in)");
    expect_only("s", "");
    free(p);
    free(k);
}

static void many_members_are_refused(void)
{
    enum { N = 20000 };
    struct member *m = calloc(N, sizeof *m);
    char (*names)[16] = calloc(N, sizeof *names);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "f%05d", i);
        m[i] = (struct member){names[i], 'f', "", 0, 0};
    }
    char *p = make_archive("many.tar.gz", TAR_GZ, m, N);
    EXPECT(take("s", "many.tar.gz", p, NULL) == 0);
    expect_refused_whole("archive bomb: 20000 members (the limit is 10000)");
    expect_only("s", "");
    /* Far past the limit, the count stops: "or more". */
    struct intake_limits lim = {256, 64, 100};
    EXPECT(take("s", "many.tar.gz", p, &lim) == 0);
    expect_refused_whole("archive bomb: 1000 members or more (the limit is 100)");
    free(p);
    free(m);
    free(names);
}

static void a_huge_kernel_is_refused(void)
{
    char *k = member_path("", l1);
    char *big = malloc(300001);
    memset(big, '/', 300000);
    big[300000] = '\0';
    struct member m[] = {{k, 'f', big, 0, 0}};
    for (int z = 0; z < 2; z++) {
        char *p = make_archive(z ? "huge.zip" : "huge.tar.gz", z ? ZIP : TAR_GZ, m, 1);
        EXPECT(take("s", z ? "huge.zip" : "huge.tar.gz", p, NULL) == 0);
        expect_lab_refused(0, "is 300000 bytes (the limit is 256 KiB)");
        EXPECT(res.labs[0].bytes == 300000);
        expect_only("s", "");
        free(p);
    }
    free(big);
    free(k);
}

static void the_same_kernel_twice_is_refused(void)
{
    char *k = member_path("", l1), *dk = util_format("./%s", k);
    struct member m[] = {{k, 'f', sol, 0, 0}, {dk, 'f', "the other one\n", 0, 0}};
    char *p = make_archive("dup.tar", TAR, m, 2);
    EXPECT(take("s", "dup.tar", p, NULL) == 0);
    expect_lab_refused(0, "appears 2 times in the archive");
    expect_only("s", "");
    free(p);
    free(k);
    free(dk);
}

static void not_an_archive_is_refused(void)
{
    char *p = util_format("%s/in/junk.zip", root), *q = util_format("%s/in/junk.tar.gz", root);
    util_write_file(p, "not an archive\n", 15);
    util_write_file(q, "not an archive\n", 15);
    EXPECT(take("s", "junk.zip", p, NULL) == 0);
    expect_refused_whole("not a zip archive");
    EXPECT_STR(res.kind, "zip");
    EXPECT(take("s", "junk.tar.gz", q, NULL) == 0);
    expect_refused_whole("not a gzip archive");
    EXPECT(take("s", "junk.txt", q, NULL) == 0);
    expect_refused_whole("not a folder or a .tar.gz, .tgz, .tar or .zip archive");
    EXPECT(res.kind == NULL);
    expect_only("s", "");
    free(p);
    free(q);
}

static void a_damaged_gzip_is_refused(void)
{
    /* A byte flipped in the deflate data, then one in the CRC at the end:
     * libarchive's own gzip reader would take either in (it checks no CRC
     * and stops at the tar's end); gzip -d did not, nor does intake. */
    char *k = member_path("", l1), *text = malloc(100001);
    for (int i = 0; i < 100000; i++)
        text[i] = (char)('a' + (i * 7919 % 26));
    text[100000] = '\0';
    struct member m[] = {{k, 'f', sol, 0, 0}, {"notes.txt", 'f', text, 0, 0}};
    for (int at_end = 0; at_end < 2; at_end++) {
        char *p = make_archive("damaged.tar.gz", TAR_GZ, m, 2);
        size_t len;
        char *z = util_read_file(p, &len);
        z[at_end ? len - 6 : len / 2] ^= 0x55;
        util_write_file(p, z, len);
        EXPECT(take("s", "damaged.tar.gz", p, NULL) == 0);
        expect_refused_whole("not a gzip archive (or a damaged one)");
        expect_only("s", "");
        free(z);
        free(p);
    }
    /* The stream goes on after the tar's end (1 MiB of zeros, which tar
     * never reads): it is read to its end all the same, so a bad CRC there
     * is caught, and its bytes count against the limit. */
    char *t = make_archive("inner.tar", TAR, m, 2);
    size_t tlen;
    char *tar = util_read_file(t, &tlen);
    char *padded = calloc(1, tlen + (1 << 20));
    memcpy(padded, tar, tlen);
    struct member pad[] = {{"x", 'f', padded, 0, tlen + (1 << 20)}};
    char *pz = make_archive("padded.tar.gz", GZ_RAW, pad, 1);
    EXPECT(take("s", "padded.tar.gz", pz, NULL) == 0);
    EXPECT(res.refused == NULL && res.labs[0].ok);
    struct intake_limits one = {256, 1, 10000};
    EXPECT(take("s", "padded.tar.gz", pz, &one) == 0);
    expect_refused_whole("archive bomb: it unpacks to more than 1 MiB");
    size_t zlen;
    char *zz = util_read_file(pz, &zlen);
    zz[zlen - 6] ^= 0x55;
    util_write_file(pz, zz, zlen);
    EXPECT(take("s", "padded.tar.gz", pz, NULL) == 0);
    expect_refused_whole("not a gzip archive (or a damaged one)");
    free(t), free(tar), free(padded), free(pz), free(zz);

    /* Whole, the same archive is taken; named .tar it is taken too, as GNU
     * tar read a gzipped .tar. */
    char *p = make_archive("whole.tar.gz", TAR_GZ, m, 2);
    EXPECT(take("s", "whole.tar.gz", p, NULL) == 0);
    EXPECT(res.refused == NULL && res.labs[0].ok);
    EXPECT(take("s", "whole.tar", p, NULL) == 0);
    EXPECT(res.refused == NULL && res.labs[0].ok);
    /* Gzip around something that is not a tar. */
    struct member raw[] = {{"x", 'f', "this is not an archive\n", 0, 0}};
    char *q = make_archive("notar.tar.gz", GZ_RAW, raw, 1);
    EXPECT(take("s", "notar.tar.gz", q, NULL) == 0);
    expect_refused_whole("not a tar archive (or a damaged one)");
    free(q);
    free(p);
    free(text);
    free(k);
}

/* ---- folders ---------------------------------------------------------- */

static void folder_links_are_not_followed(void)
{
    char *dir = util_format("%s/in/linked/labs/%s", root, l1);
    char *k = util_format("%s/kernel.cu", dir);
    util_mkdirs(dir);
    EXPECT(symlink("/etc/passwd", k) == 0);
    char *sub = util_format("%s/in/linked", root);
    EXPECT(take("s", "linked", sub, NULL) == 0);
    expect_lab_refused(0, "is a symbolic link");
    expect_only("s", "");

    /* A folder on the way that is a link: named as the link. */
    char *real = util_format("%s/in/viadir/real/%s", root, l1), *rk = util_format("%s/kernel.cu", real);
    char *labs_link = util_format("%s/in/viadir/labs", root), *via = util_format("%s/in/viadir", root);
    util_mkdirs(real);
    util_write_file(rk, sol, strlen(sol));
    EXPECT(symlink("real", labs_link) == 0);
    EXPECT(take("s", "viadir", via, NULL) == 0);
    expect_lab_refused(0, "labs is a symbolic link");
    expect_only("s", "");

    /* A fifo where kernel.cu should be: refused, and the read never blocks. */
    char *fdir = util_format("%s/in/fifo/labs/%s", root, l1), *fk = util_format("%s/kernel.cu", fdir);
    char *fsub = util_format("%s/in/fifo", root);
    util_mkdirs(fdir);
    EXPECT(mkfifo(fk, 0644) == 0);
    EXPECT(take("s", "fifo", fsub, NULL) == 0);
    expect_lab_refused(0, "is not a regular file");
    expect_only("s", "");

    /* The submission itself a link. */
    char *sl = util_format("%s/in/sublink", root);
    EXPECT(symlink(via, sl) == 0);
    EXPECT(take("s", "sublink", sl, NULL) == 0);
    expect_refused_whole("the submission is a symbolic link");
    expect_only("s", "");
    free(dir), free(k), free(sub), free(real), free(rk), free(labs_link), free(via);
    free(fdir), free(fk), free(fsub), free(sl);
}

static void a_huge_file_in_a_folder_is_refused(void)
{
    char *dir = util_format("%s/in/bigf/labs/%s", root, l1), *k = util_format("%s/kernel.cu", dir);
    char *sub = util_format("%s/in/bigf", root);
    char *big = calloc(1, 300000);
    util_mkdirs(dir);
    util_write_file(k, big, 300000);
    EXPECT(take("s", "bigf", sub, NULL) == 0);
    expect_lab_refused(0, "is 300000 bytes (the limit is 256 KiB)");
    expect_only("s", "");
    free(dir), free(k), free(sub), free(big);
}

/* The text rule (model/intake_rule.h): a NUL byte or a byte that is not
 * UTF-8 refuses the lab, from a folder or an archive, in the rule's own
 * sentence, the one check gives; UTF-8 beyond ASCII is text. */
static void a_kernel_that_is_not_text_is_refused(void)
{
    static const char nul[] = "// ok\n\0 hidden\n";
    char *dir = util_format("%s/in/nul/labs/%s", root, l1), *k = util_format("%s/kernel.cu", dir);
    char *sub = util_format("%s/in/nul", root), *from = util_format("labs/%s/kernel.cu", l1), *want = NULL;
    util_mkdirs(dir);
    util_write_file(k, nul, sizeof nul - 1);
    EXPECT(take("s", "nul", sub, NULL) == 0);
    expect_lab_refused(0, "is not text: line 2 holds a NUL byte");
    EXPECT(intake_rule_text(from, nul, sizeof nul - 1, &want) == 1);
    EXPECT_STR(res.labs[0].why, want);
    expect_only("s", "");
    free(want);

    char *m1 = member_path("", l1);
    struct member latin1[] = {{m1, 'f', "// a\n// b\n// caf\xe9\n", 0, 0}};
    char *p = make_archive("latin1.tar.gz", TAR_GZ, latin1, 1);
    EXPECT(take("s", "latin1.tar.gz", p, NULL) == 0);
    expect_lab_refused(0, "is not UTF-8 text: line 3 holds the byte 0xe9");
    free(p);
    struct member utf8[] = {{m1, 'f', "// caf\xc3\xa9 \xe2\x9c\x93\n", 0, 0}};
    p = make_archive("utf8.zip", ZIP, utf8, 1);
    EXPECT(take("s", "utf8.zip", p, NULL) == 0);
    EXPECT(res.labs[0].ok && !res.labs[0].why);
    free(p);
    free(m1), free(dir), free(k), free(sub), free(from);
}

/* ---- honest submissions ----------------------------------------------- */

/* The kernel intake wrote for lab dir of student s equals text. */
static void expect_kernel(const char *s, const char *lab, const char *text)
{
    char *p = util_format("%s/out/%s/wb/labs/%s/kernel.cu", root, s, lab);
    char *got = util_read_file(p, NULL);
    EXPECT_STR(got, text);
    free(got);
    free(p);
}

static void a_nested_top_folder_is_taken(void)
{
    char *k = member_path("alice", l1);
    struct member m[] = {{"alice", 'd', NULL, 0, 0}, {k, 'f', sol, 0, 0}};
    char *p = make_archive("alice.tar.gz", TAR_GZ, m, 2);
    EXPECT(take("alice", "alice.tar.gz", p, NULL) == 0);
    EXPECT(res.refused == NULL);
    EXPECT_STR(res.kind, "tar.gz");
    EXPECT_STR(res.submission, "alice.tar.gz");
    EXPECT(res.labs[0].ok && !res.labs[0].why);
    EXPECT_STR(res.labs[0].from, k);
    EXPECT(res.labs[0].bytes == (long long)strlen(sol));
    EXPECT(!res.labs[1].ok && res.labs[1].status == STATUS_MISSING && res.labs[1].from == NULL);
    char *why = util_format("no labs/%s/kernel.cu in the submission", l2);
    EXPECT_STR(res.labs[1].why, why);
    expect_kernel("alice", l1, sol);
    expect_only("alice", "01");
    free(why);
    free(p);
    free(k);
}

static void lab_folders_at_the_top_are_taken_and_the_stub_is_unchanged(void)
{
    char *stub_path = util_format("data/stubs/%s.cu", l2);
    char *stub = util_read_file(stub_path, NULL);
    char *k1 = util_format("%s/kernel.cu", l1), *k2 = util_format("./%s/kernel.cu", l2);
    struct member m[] = {{k1, 'f', sol, 0, 0}, {k2, 'f', stub ? stub : "", 0, 0}};
    char *p = make_archive("carol.ZIP", ZIP, m, 2);
    EXPECT(take("carol", "carol.ZIP", p, NULL) == 0);
    EXPECT(res.refused == NULL);
    EXPECT_STR(res.kind, "zip");
    EXPECT(res.labs[0].ok);
    EXPECT_STR(res.labs[0].from, k1);
    EXPECT(!res.labs[1].ok && res.labs[1].status == STATUS_UNCHANGED);
    EXPECT_STR(res.labs[1].why, "kernel.cu is the stub as handed out");
    EXPECT_STR(intake_state_name(&res.labs[1]), "unchanged");
    EXPECT(res.labs[1].bytes == (long long)(stub ? strlen(stub) : 0));
    expect_only("carol", "01");
    free(stub_path), free(stub), free(k1), free(k2), free(p);
}

static void the_best_placed_member_wins(void)
{
    /* labs/ beats a bare lab folder, one folder down loses to the top, and
     * __MACOSX is never looked in. */
    char *a = util_format("top/%s/kernel.cu", l1), *b = member_path("", l1);
    char *mac = util_format("__MACOSX/labs/%s/kernel.cu", l2);
    struct member m[] = {{a, 'f', "one down\n", 0, 0}, {b, 'f', sol, 0, 0}, {mac, 'f', "resource fork\n", 0, 0}};
    char *p = make_archive("best.tar", TAR, m, 3);
    EXPECT(take("s", "best.tar", p, NULL) == 0);
    EXPECT_STR(res.labs[0].from, b);
    EXPECT(res.labs[1].status == STATUS_MISSING);
    expect_kernel("s", l1, sol);
    free(a), free(b), free(mac), free(p);
}

static void a_folder_is_taken(void)
{
    char *dir = util_format("%s/in/dave/sub/%s", root, l2), *k = util_format("%s/kernel.cu", dir);
    char *sub = util_format("%s/in/dave", root);
    util_mkdirs(dir);
    util_write_file(k, sol, strlen(sol));
    EXPECT(take("dave", "dave", sub, NULL) == 0);
    EXPECT_STR(res.kind, "folder");
    EXPECT(res.labs[0].status == STATUS_MISSING);
    EXPECT(res.labs[1].ok);
    char *from = util_format("sub/%s/kernel.cu", l2);
    EXPECT_STR(res.labs[1].from, from);
    expect_kernel("dave", l2, sol);
    expect_only("dave", "02");
    free(dir), free(k), free(sub), free(from);
}

static void intake_json_reads_back(void)
{
    char *k = member_path("", l1);
    struct member m[] = {{k, 'l', "/etc/passwd", 0, 0}};
    char *p = make_archive("back.tar.gz", TAR_GZ, m, 1);
    EXPECT(take("s", "back.tar.gz", p, NULL) == 0);
    char *json = util_format("%s/out/s/intake.json", root), err[256] = "";
    struct intake back;
    EXPECT(intake_load(json, &back, err, sizeof err) == 0);
    EXPECT_STR(back.submission, "back.tar.gz");
    EXPECT_STR(back.kind, "tar.gz");
    EXPECT(back.refused == NULL);
    EXPECT(back.nlabs == 2);
    const struct intake_lab *a = intake_find(&back, "01"), *b = intake_find(&back, "02");
    EXPECT(a && !a->ok && a->status == STATUS_REFUSED);
    EXPECT(a && a->from && !strcmp(a->from, k));
    EXPECT(a && a->why && strstr(a->why, "is a link"));
    EXPECT(b && b->status == STATUS_MISSING && b->from == NULL && b->bytes == 0);
    EXPECT(intake_find(&back, "03") == NULL);
    intake_free(&back);
    /* No labs given: every lab of the catalog, in its order. */
    char cwd[4096], *dir = util_format("%s/out/s", root);
    EXPECT(intake_take(&cat, NULL, 0, getcwd(cwd, sizeof cwd), "back.tar.gz", p, dir,
                       &(struct intake_limits)INTAKE_LIMITS_DEFAULT, &back, err, sizeof err) == 0);
    EXPECT(back.nlabs == cat.nlabs && back.nlabs > 2);
    EXPECT(back.nlabs > 2 && !strcmp(back.labs[2].id, cat.labs[2].id) &&
           back.labs[2].status == STATUS_MISSING);
    intake_free(&back);
    free(dir);
    /* A file that is not one is an error that names it. */
    util_write_file(json, "{\"labs\": {\"01\": {\"state\": \"pass\"}}, \"submission\": \"x\"}", 54);
    EXPECT(intake_load(json, &back, err, sizeof err) == -1);
    EXPECT(strstr(err, json) != NULL);
    free(json), free(p), free(k);
}

static void setup(void)
{
    char err[256];
    snprintf(root, sizeof root, "/tmp/cudatutor-intake.XXXXXX");
    if (!mkdtemp(root))
        exit(1);
    char *in = util_format("%s/in", root);
    util_mkdirs(in);
    free(in);
    if (catalog_load(&cat, "data/labs.json", "data/labs.json", err, sizeof err)) {
        printf("# %s\n", err);
        exit(1);
    }
    sel[0] = catalog_find(&cat, "01");
    sel[1] = catalog_find(&cat, "02");
    snprintf(l1, sizeof l1, "%s", strrchr(sel[0]->dir, '/') + 1);
    snprintf(l2, sizeof l2, "%s", strrchr(sel[1]->dir, '/') + 1);
}

int main(void)
{
    static const struct tap_test tests[] = {
        T(a_symlinked_kernel_is_refused),
        T(a_hard_link_is_refused),
        T(a_device_or_fifo_is_refused),
        T(members_that_climb_out_refuse_the_archive),
        T(a_gzip_bomb_stops_at_the_limit),
        T(a_zip_bomb_stops_at_the_limit),
        T(many_members_are_refused),
        T(a_huge_kernel_is_refused),
        T(the_same_kernel_twice_is_refused),
        T(not_an_archive_is_refused),
        T(a_damaged_gzip_is_refused),
        T(folder_links_are_not_followed),
        T(a_huge_file_in_a_folder_is_refused),
        T(a_kernel_that_is_not_text_is_refused),
        T(a_nested_top_folder_is_taken),
        T(lab_folders_at_the_top_are_taken_and_the_stub_is_unchanged),
        T(the_best_placed_member_wins),
        T(a_folder_is_taken),
        T(intake_json_reads_back),
    };
    setup();
    int rc = tap_run(tests, (int)(sizeof tests / sizeof tests[0]));
    intake_free(&res);
    catalog_free(&cat);
    util_remove_tree(root);
    return rc;
}
