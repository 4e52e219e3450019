/* test_calibrate.c — the targets scaled to a GPU: the lowering rule against
 * the figures grade.sh's CALIBRATE_JQ gives for the same inputs, why a
 * threshold stands, the catalog's hash, calibration.json (round trip, one
 * entry per GPU model, a changed catalog not used, a corrupt file kept
 * aside and reported, a newer one left alone), the GPU's name from
 * nvidia-smi, and what a check's report gets from an entry. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/calibrate.h"
#include "owned_file.h"
#include "tap.h"
#include "sys/util.h"

static char dir[64];

static char *path_in(const char *name)
{
    return util_format("%s/%s", dir, name);
}

static int load_catalog(struct catalog *cat)
{
    char err[256] = "";
    int rc = catalog_load(cat, "data/labs.json", "data/labs.json", err, sizeof err);
    if (rc)
        printf("#   cannot load the catalog: %s\n", err);
    return rc;
}

/* ---- the rule ----------------------------------------------------------- */

/* Each row's "want" is what grade.sh's jq program computes from the same
 * three figures (jq -n '... | sig3'), so the tutor and the grader agree. */
static void the_rule_matches_grade_sh(void)
{
    static const struct {
        double min, solution, here, want;
        int lowered;
    } rows[] = {
        {0.12, 0.159, 0.109, 0.0822, 1},    /* lab 01 on an H200 (instructor guide, 4.1) */
        {0.62, 0.779, 0.555, 0.441, 1},     /* lab 06 on an H200 */
        {0.12, 0.159, 0.10, 0.0754, 1},
        {0.62, 0.779, 0.63, 0.501, 1},
        {0.76, 0.949, 0.7, 0.56, 1},        /* pct_peak, as a fraction */
        {2000, 3000, 2500, 1660, 1},        /* above 1: whole tens */
        {0.79, 1.014, 0.99, 0.79, 0},       /* within 5%: stands */
        {0.89, 1.119, 1.3, 0.89, 0},        /* faster: never raised */
        {0.12, 0, 0.05, 0.12, 0},           /* no figure in the catalog */
        {0.12, 0.159, -1, 0.12, 0},         /* no figure here */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int lowered = -1;
        double got = calibrate_threshold(rows[i].min, rows[i].solution, rows[i].here, &lowered);
        if (got != rows[i].want || lowered != rows[i].lowered) {
            printf("#   row %zu: %.17g (lowered %d), want %.17g (lowered %d)\n", i, got, lowered, rows[i].want,
                   rows[i].lowered);
            tap_failed_ = 1;
        }
    }
    EXPECT(calibrate_threshold(0.12, 0.159, 0.95 * 0.159, NULL) == 0.12);  /* exactly 95%: stands */
}

static void why_a_threshold_stands(void)
{
    struct catalog cat;
    struct calibrate_lab l;
    if (load_catalog(&cat))
        return;
    const struct lab *lab01 = &cat.labs[0], *lab09 = &cat.labs[8];

    calibrate_judge(&l, lab01, 1, 1, 0.109, "");
    EXPECT(l.lowered && l.min == 0.0822 && l.solution_here == 0.109 && !l.why[0]);
    EXPECT_STR(l.metric, "ratio");
    EXPECT_STR(l.case_label, "2^28");

    calibrate_judge(&l, lab09, 4, 3, 1.2, "fail");
    EXPECT(!l.lowered && l.min == lab09->target.min && l.solution_here < 0);
    EXPECT_STR(l.why, "its solution did not pass here (fail)");

    calibrate_judge(&l, lab01, 0, 0, -1, "");
    EXPECT_STR(l.why, "its reference solution is not in the workbook");

    cat.labs[0].target.solution = 0;
    calibrate_judge(&l, lab01, 0, 0, -1, "");
    EXPECT(!l.lowered && l.min == 0.12);
    EXPECT_STR(l.why, "the catalog records no figure for its solution");
    catalog_free(&cat);
}

/* A target of several cases (lab 15's, with figures given here) is scaled
 * as one, by the case where the solution falls furthest short of its own
 * figure; the thresholds are those grade.sh's CALIBRATE_JQ gives for the
 * same runs (tests/targets.sh runs it on them). */
/* The target.calibration that calibrate_annotate gives a check's result
 * read from `json` (a report's lab and target), as JSON text; NULL when it
 * gives none. */
static char *annotated(const char *json, const struct calibrate_gpu *g, const struct catalog *cat)
{
    char *full = util_format("{\"schema\": 1, \"status\": \"pass\", %s", json + 1), err[128], *text = NULL;
    struct result r;
    if (!full || result_parse(full, &r, err, sizeof err)) {
        free(full);
        return NULL;
    }
    free(full);
    calibrate_annotate(&r, g, cat);
    char *out = result_to_json(&r, 0);
    cJSON *o = out ? cJSON_Parse(out) : NULL;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, "target"), "calibration");
    if (c)
        text = cJSON_PrintUnformatted(c);
    cJSON_Delete(o);
    free(out);
    result_free(&r);
    return text;
}

static void several_cases_scale_by_the_furthest_short(void)
{
    static const struct {
        double first, also, want;
        int lowered;
        const char *bound;
    } rows[] = {
        {1.55, 1.04, 1.3, 0, ""},           /* both within 5%: stands */
        {1.4, 1.02, 1.13, 1, ""},           /* the first furthest short */
        {1.58, 0.9, 1.11, 1, "2^28"},       /* the other: it lowers the first's threshold */
        {1.58, 1.0, 1.3, 0, "2^28"},        /* the other, within 5% */
        {1.4, -1, 1.13, 1, ""},             /* no figure for the other */
    };
    struct catalog cat;
    struct calibrate_lab l;
    if (load_catalog(&cat))
        return;
    struct lab *lab = (struct lab *)catalog_find(&cat, "15");
    EXPECT(lab && lab->target.nalso == 1);
    if (!lab || lab->target.nalso != 1) {
        catalog_free(&cat);
        return;
    }
    lab->target.min = 1.3;
    lab->target.solution = 1.6;
    lab->target.also[0].min = 1.0;
    lab->target.also[0].solution = 1.05;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double lowest[1 + TARGET_MAX_ALSO] = {rows[i].first, rows[i].also, -1, -1};
        calibrate_judge_cases(&l, lab, 1, 1, lowest, "");
        if (l.min != rows[i].want || l.lowered != rows[i].lowered || strcmp(l.bound_case, rows[i].bound) ||
            l.solution_here != rows[i].first) {
            printf("#   row %zu: %.17g (lowered %d, bound \"%s\"), want %.17g (lowered %d, bound \"%s\")\n", i,
                   l.min, l.lowered, l.bound_case, rows[i].want, rows[i].lowered, rows[i].bound);
            tap_failed_ = 1;
        }
    }
    /* The case that set it is kept in the file, said in the lines, and
     * explains a check's threshold. */
    double lowest[1 + TARGET_MAX_ALSO] = {1.58, 0.9, -1, -1};
    struct calibrate_gpu g = {0}, back;
    struct calibration c;
    char err[256], line[512];
    calibrate_judge_cases(&l, lab, 1, 1, lowest, "");
    util_copy(g.name, sizeof g.name, "NVIDIA H200");
    g.labs = &l;
    g.nlabs = 1;
    cJSON *gj = calibrate_gpu_json(&g);
    char *lj = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(gj, "labs"),
                                                                       "15"));
    EXPECT(lj && strstr(lj, "\"bound_by\":{\"case\":\"2^28\",\"solution_here\":0.9,\"catalog_solution\":1.05}"));
    free(lj);
    cJSON_Delete(gj);
    struct calibration one = {&g, 1};
    char *text = calibrate_format(&one);
    EXPECT(text && calibrate_parse(&c, text, err, sizeof err) == CALIBRATE_OK);
    if (text && c.ngpus == 1 && c.gpus[0].nlabs == 1) {
        back = c.gpus[0];
        EXPECT_STR(back.labs[0].bound_case, "2^28");
        EXPECT(back.labs[0].bound_here == 0.9 && back.labs[0].bound_solution == 1.05 && back.labs[0].min == 1.11);
        calibrate_free(&c);
    }
    free(text);
    calibrate_lab_line(&l, line, sizeof line);
    EXPECT_STR(line, "15  ratio at 2^28, where its solution falls furthest short: 0.9 here, 1.05 in the catalog; "
                     "threshold 1.3 -> 1.11 at 2^22, every case alike");
    char *cal = annotated("{\"lab\": \"15\", \"target\": {\"min\": 1.11, \"catalog_min\": 1.3}}", &g, &cat);
    EXPECT(cal && strstr(cal, "\"lowered\":true,\"case\":\"2^28\",\"solution_here\":0.9,\"catalog_solution\":1.05"));
    free(cal);
    catalog_free(&cat);
}

static void the_hash_follows_the_targets_only(void)
{
    struct catalog cat;
    char a[24], b[24], c[24];
    if (load_catalog(&cat))
        return;
    calibrate_catalog_hash(&cat, a, sizeof a);
    free(cat.labs[3].title);
    cat.labs[3].title = strdup("another title");
    calibrate_catalog_hash(&cat, b, sizeof b);
    EXPECT_STR(a, b);
    EXPECT(strlen(a) == 16);
    cat.labs[3].target.min = 0.45;
    calibrate_catalog_hash(&cat, c, sizeof c);
    EXPECT(strcmp(a, c) != 0);
    cat.labs[3].target.min = 0.44;
    cat.labs[3].target.solution = 0.6;
    calibrate_catalog_hash(&cat, c, sizeof c);
    EXPECT(strcmp(a, c) != 0);
    /* A target's further cases count too. */
    struct lab *l15 = (struct lab *)catalog_find(&cat, "15");
    if (l15 && l15->target.nalso) {
        calibrate_catalog_hash(&cat, a, sizeof a);
        l15->target.also[0].min += 0.01;
        calibrate_catalog_hash(&cat, c, sizeof c);
        EXPECT(strcmp(a, c) != 0);
    }
    catalog_free(&cat);
}

/* ---- the file ----------------------------------------------------------- */

/* An entry of `labs` labs, the first lowered. */
static void make_gpu(struct calibrate_gpu *g, const char *name, const char *hash, int labs)
{
    memset(g, 0, sizeof *g);
    util_copy(g->name, sizeof g->name, name);
    util_copy(g->catalog, sizeof g->catalog, hash);
    util_copy(g->measured, sizeof g->measured, "2026-01-02T03:04:05Z");
    g->seconds = 12.5;
    g->nruns = labs;
    g->labs = calloc((size_t)labs, sizeof *g->labs);
    g->nlabs = labs;
    for (int i = 0; i < labs; i++) {
        struct calibrate_lab *l = &g->labs[i];
        snprintf(l->id, sizeof l->id, "%02d", i + 1);
        util_copy(l->metric, sizeof l->metric, "ratio");
        util_copy(l->case_label, sizeof l->case_label, "2^28");
        l->catalog_min = 0.12;
        l->catalog_solution = 0.159;
        l->runs = l->passed = 1;
        l->solution_here = i ? 0.158 : 0.109;
        l->min = i ? 0.12 : 0.0822;
        l->lowered = !i;
    }
}

static void the_path_is_beside_progress_json(void)
{
    char *p = calibrate_path("/wb", "/elsewhere/mine.json");
    EXPECT_STR(p, "/elsewhere/calibration.json");
    free(p);
    unsetenv("CUDATUTOR_PROGRESS");
    p = calibrate_path("/wb", NULL);
    EXPECT_STR(p, "/wb/calibration.json");
    free(p);
    setenv("CUDATUTOR_PROGRESS", "/env/p.json", 1);
    p = calibrate_path("/wb", NULL);
    EXPECT_STR(p, "/env/calibration.json");
    free(p);
    unsetenv("CUDATUTOR_PROGRESS");
}

static void entries_round_trip_one_per_gpu_model(void)
{
    struct calibrate_gpu a, b, a2;
    struct calibration c;
    char note[1200], err[1200];
    char *path = path_in("round.json");

    make_gpu(&a, "NVIDIA H200", "00000000000000aa", 10);
    make_gpu(&b, "NVIDIA H100 80GB HBM3", "00000000000000aa", 2);
    EXPECT(calibrate_load(path, &c, note, sizeof note, err, sizeof err) == CALIBRATE_OK && c.ngpus == 0);
    EXPECT(calibrate_store(path, &a, note, sizeof note, err, sizeof err) == CALIBRATE_OK);
    EXPECT(calibrate_store(path, &b, note, sizeof note, err, sizeof err) == CALIBRATE_OK);
    /* Measured again: replaces its model's entry, keeps the other. */
    make_gpu(&a2, "NVIDIA H200", "00000000000000bb", 3);
    EXPECT(calibrate_store(path, &a2, note, sizeof note, err, sizeof err) == CALIBRATE_OK);
    EXPECT_STR(note, "");
    EXPECT(calibrate_load(path, &c, note, sizeof note, err, sizeof err) == CALIBRATE_OK);
    EXPECT(c.ngpus == 2);
    const struct calibrate_gpu *h200 = calibrate_find(&c, "NVIDIA H200", "00000000000000bb");
    EXPECT(h200 && h200->nlabs == 3 && h200->seconds == 12.5 && h200->nruns == 3);
    EXPECT_STR(h200 ? h200->measured : NULL, "2026-01-02T03:04:05Z");
    const struct calibrate_lab *l = calibrate_lab(h200, "01");
    EXPECT(l && l->lowered && l->min == 0.0822 && l->solution_here == 0.109 && l->catalog_min == 0.12 &&
           l->catalog_solution == 0.159 && l->runs == 1 && l->passed == 1);
    l = calibrate_lab(h200, "02");
    EXPECT(l && !l->lowered && l->min == 0.12);
    EXPECT(calibrate_lab(h200, "04") == NULL);
    /* The catalog's targets changed since: the entry is not used. */
    EXPECT(calibrate_find(&c, "NVIDIA H200", "00000000000000aa") == NULL);
    EXPECT(calibrate_find(&c, "NVIDIA H100 80GB HBM3", "00000000000000aa") != NULL);
    EXPECT(calibrate_find(&c, "NVIDIA A100", "00000000000000aa") == NULL);
    calibrate_free(&c);
    calibrate_gpu_free(&a);
    calibrate_gpu_free(&a2);
    calibrate_gpu_free(&b);
    free(path);
}

static void why_and_missing_figures_survive_the_file(void)
{
    struct calibrate_gpu g;
    struct calibration c;
    char note[1200], err[1200];
    char *path = path_in("why.json");
    make_gpu(&g, "GPU", "h", 1);
    g.labs[0].solution_here = -1;
    g.labs[0].catalog_solution = 0;
    g.labs[0].lowered = 0;
    g.labs[0].min = 0.12;
    util_copy(g.labs[0].why, sizeof g.labs[0].why, "the catalog records no figure for its solution");
    EXPECT(calibrate_store(path, &g, note, sizeof note, err, sizeof err) == CALIBRATE_OK);
    char *text = util_read_file(path, NULL);
    EXPECT(text && strstr(text, "\"solution_here\":\tnull") && strstr(text, "\"catalog_solution\":\tnull"));
    free(text);
    EXPECT(calibrate_load(path, &c, note, sizeof note, err, sizeof err) == CALIBRATE_OK);
    const struct calibrate_lab *l = calibrate_lab(calibrate_find(&c, "GPU", "h"), "01");
    EXPECT(l && l->solution_here < 0 && l->catalog_solution == 0 && !l->lowered);
    EXPECT_STR(l ? l->why : NULL, "the catalog records no figure for its solution");
    calibrate_free(&c);
    calibrate_gpu_free(&g);
    free(path);
}

static void a_corrupt_file_is_kept_aside_and_reported(void)
{
    static const char *const broken[] = {"{\"schema\": 1, \"gpus\": {\"X\": ", "[]", "",
                                         "{\"schema\": 1, \"gpus\": {\"X\": {\"labs\": {\"01\": 3}}}}"};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        struct calibration c;
        struct calibrate_gpu g;
        char note[1200] = "", err[1200] = "", name[32];
        snprintf(name, sizeof name, "bad%zu.json", i);
        char *path = path_in(name);
        util_write_file(path, broken[i], strlen(broken[i]));
        EXPECT(calibrate_load(path, &c, note, sizeof note, err, sizeof err) == CALIBRATE_OK);
        EXPECT(c.ngpus == 0);
        EXPECT(strstr(note, "was not a valid calibration") && strstr(note, ".corrupt-"));
        EXPECT(!util_is_file(path));
        /* Kept, as it was. */
        char *cmd = util_format("cat %s.corrupt-* > %s.aside", path, path), *aside = util_format("%s.aside", path);
        char *got = cmd && system(cmd) >= 0 ? util_read_file(aside, NULL) : NULL;
        EXPECT_STR(got, broken[i]);
        /* A store over a corrupt file keeps it aside too, and says so. */
        util_write_file(path, broken[i], strlen(broken[i]));
        make_gpu(&g, "GPU", "h", 1);
        note[0] = '\0';
        EXPECT(calibrate_store(path, &g, note, sizeof note, err, sizeof err) == CALIBRATE_OK);
        EXPECT(strstr(note, "was not a valid calibration") != NULL);
        calibrate_gpu_free(&g);
        free(got);
        free(aside);
        free(cmd);
        free(path);
    }
}

static void a_newer_schema_is_left_alone(void)
{
    static const char newer[] = "{\"schema\": 9, \"gpus\": {}}";
    struct calibration c;
    struct calibrate_gpu g;
    char note[1200], err[1200];
    char *path = path_in("newer.json");
    util_write_file(path, newer, strlen(newer));
    EXPECT(calibrate_load(path, &c, note, sizeof note, err, sizeof err) == CALIBRATE_NEWER);
    EXPECT(strstr(err, "written by a newer cudatutor (schema 9") != NULL);
    make_gpu(&g, "GPU", "h", 1);
    EXPECT(calibrate_store(path, &g, note, sizeof note, err, sizeof err) == CALIBRATE_NEWER);
    char *text = util_read_file(path, NULL);
    EXPECT_STR(text, newer);
    free(text);
    calibrate_gpu_free(&g);
    free(path);
}

/* Each problem with the file is told in one sentence, whole and byte for
 * byte: the student reads these, and tests/calibrate.sh greps them. */
static void each_problem_is_told_in_its_words(void)
{
    char note[4096], err[4096], want[4096];
    const char *broken = "{\"schema\": 1}";
    char *path = path_in("words.json"), *lock = util_format("%s.lock", path), *aside;
    char *far = owned_long_path(dir);
    char *tmp = util_format("%s.tmp.%ld", path, (long)getpid());
    struct calibration c;
    struct calibrate_gpu g;

    make_gpu(&g, "GPU", "h", 1);
    util_write_file(path, "{\"schema\": 7}", 13);
    EXPECT(calibrate_load(path, &c, note, sizeof note, err, sizeof err) == CALIBRATE_NEWER);
    snprintf(want, sizeof want,
             "%s was written by a newer cudatutor (schema 7; this one reads schema 1); left it untouched", path);
    EXPECT_STR(err, want);

    util_write_file(path, broken, strlen(broken));
    EXPECT(calibrate_load(path, &c, note, sizeof note, err, sizeof err) == CALIBRATE_OK);
    owned_asides(path, &aside);
    snprintf(want, sizeof want, "%s was not a valid calibration (\"gpus\" is missing or not an object); kept it as %s",
             path, aside ? aside : "?");
    EXPECT_STR(note, want);
    if (aside)
        unlink(aside);
    free(aside);

    /* Without the lock (PATH.lock is a folder) a corrupt file is only told. */
    util_write_file(path, broken, 5);
    unlink(lock);
    mkdir(lock, 0755);
    EXPECT(calibrate_load(path, &c, note, sizeof note, err, sizeof err) == CALIBRATE_ERROR);
    snprintf(want, sizeof want, "%s is not a valid calibration (not valid JSON (truncated?))", path);
    EXPECT_STR(err, want);
    EXPECT(calibrate_store(path, &g, note, sizeof note, err, sizeof err) == CALIBRATE_ERROR);
    snprintf(want, sizeof want, "cannot lock %s.lock: Is a directory", path);
    EXPECT_STR(err, want);
    rmdir(lock);

    unlink(path);
    mkdir(path, 0755);
    EXPECT(calibrate_load(path, &c, note, sizeof note, err, sizeof err) == CALIBRATE_ERROR);
    snprintf(want, sizeof want, "cannot read %s: Is a directory", path);
    EXPECT_STR(err, want);
    rmdir(path);

    mkdir(tmp, 0755);
    EXPECT(calibrate_store(path, &g, note, sizeof note, err, sizeof err) == CALIBRATE_ERROR);
    snprintf(want, sizeof want, "cannot write %s: Is a directory", path);
    EXPECT_STR(err, want);
    rmdir(tmp);

    EXPECT(far != NULL);
    if (far) {
        util_write_file(far, broken, strlen(broken));
        EXPECT(calibrate_store(far, &g, note, sizeof note, err, sizeof err) == CALIBRATE_ERROR);
        snprintf(want, sizeof want,
                 "%s is not a valid calibration (\"gpus\" is missing or not an object) and could not be moved "
                 "aside: File name too long", far);
        EXPECT_STR(err, want);
        char *kept = util_read_file(far, NULL);
        EXPECT_STR(kept, broken);
        free(kept);
    }
    calibrate_gpu_free(&g);
    free(tmp);
    free(far);
    free(lock);
    free(path);
}

/* ---- the GPU's name ----------------------------------------------------- */

/* A stand-in nvidia-smi that prints its arguments' -i value after the name. */
static void the_gpu_is_named_by_nvidia_smi(void)
{
    char name[96];
    char *bin = path_in("bin"), *smi = path_in("bin/nvidia-smi");
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    static const char script[] =
        "#!/bin/sh\n"
        "i=\n"
        "while [ $# -gt 0 ]; do [ \"$1\" = -i ] && i=\" #$2\"; shift; done\n"
        "printf '  NVIDIA Stand-in%s  \\nNVIDIA Second\\n' \"$i\"\n";
    mkdir(bin, 0755);
    util_write_file(smi, script, strlen(script));
    chmod(smi, 0755);
    setenv("PATH", bin, 1);
    unsetenv("CUDA_VISIBLE_DEVICES");
    EXPECT(calibrate_gpu_name(name, sizeof name) == 0);
    EXPECT_STR(name, "NVIDIA Stand-in");
    setenv("CUDA_VISIBLE_DEVICES", "2,0", 1);
    EXPECT(calibrate_gpu_name(name, sizeof name) == 0);
    EXPECT_STR(name, "NVIDIA Stand-in #2");
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    EXPECT(calibrate_gpu_name(name, sizeof name) == -1);
    EXPECT_STR(name, "");
    unsetenv("CUDA_VISIBLE_DEVICES");
    /* An nvidia-smi that fails (no driver) names nothing. */
    static const char failing[] = "#!/bin/sh\necho 'NVIDIA-SMI has failed'\nexit 9\n";
    util_write_file(smi, failing, strlen(failing));
    chmod(smi, 0755);
    EXPECT(calibrate_gpu_name(name, sizeof name) == -1);
    /* No nvidia-smi at all. */
    unlink(smi);
    EXPECT(calibrate_gpu_name(name, sizeof name) == -1);
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
    free(bin);
    free(smi);
}

/* ---- a check's report --------------------------------------------------- */

static void a_lowered_threshold_judges_and_explains_the_check(void)
{
    struct catalog cat;
    struct calibrate_gpu g;
    struct check_opts o = {0};
    if (load_catalog(&cat))
        return;
    make_gpu(&g, "NVIDIA H200", "h", 2);
    calibrate_apply(&o, &g, &cat.labs[0]);
    EXPECT(o.target_min == 0.0822);
    o.target_min = 0;
    calibrate_apply(&o, &g, &cat.labs[1]);      /* not lowered */
    EXPECT(o.target_min == 0);
    o.target_min = 0.05;                        /* --target-min wins */
    calibrate_apply(&o, &g, &cat.labs[0]);
    EXPECT(o.target_min == 0.05);

    char *text = annotated("{\"lab\": \"01\", \"target\": {\"min\": 0.0822, \"catalog_min\": 0.12}}", &g, &cat);
    EXPECT_STR(text, "{\"gpu\":\"NVIDIA H200\",\"measured\":\"2026-01-02T03:04:05Z\",\"lowered\":true,"
                     "\"solution_here\":0.109,\"catalog_solution\":0.159,"
                     "\"catalog_gpu\":\"NVIDIA H100 80GB HBM3\"}");
    free(text);
    /* A threshold given some other way is not explained by the entry. */
    text = annotated("{\"lab\": \"01\", \"target\": {\"min\": 0.09, \"catalog_min\": 0.12}}", &g, &cat);
    EXPECT(!text);
    free(text);
    calibrate_gpu_free(&g);
    catalog_free(&cat);
}

struct said {
    char lines[4][512];
    int n;
};

static void said(void *ud, const char *line)
{
    struct said *s = ud;
    if (s->n < 4)
        util_copy(s->lines[s->n++], sizeof s->lines[0], line);
}

static void the_report_says_what_was_lowered(void)
{
    struct calibrate_gpu g;
    struct said s = {0};
    char line[512];
    make_gpu(&g, "NVIDIA H200", "h", 2);
    calibrate_report(&g, said, &s);
    EXPECT(s.n == 1);
    EXPECT_STR(s.lines[0], "targets for NVIDIA H200: lowered for 01 0.12 -> 0.0822 (its solution: 0.109 here, "
                           "0.159 in the catalog); the others as in the catalog");
    calibrate_lab_line(&g.labs[0], line, sizeof line);
    EXPECT_STR(line, "01  ratio at 2^28: its solution 0.109 here, 0.159 in the catalog; threshold 0.12 -> 0.0822");
    g.labs[0].lowered = 0;
    g.labs[0].min = 0.12;
    s.n = 0;
    calibrate_report(&g, said, &s);
    EXPECT_STR(s.lines[0], "targets for NVIDIA H200: no threshold lowered (every reference solution within 5% "
                           "of its catalog figure, or faster)");
    util_copy(g.labs[1].why, sizeof g.labs[1].why, "its solution did not pass here (fail)");
    s.n = 0;
    calibrate_report(&g, said, &s);
    EXPECT(s.n == 2);
    EXPECT_STR(s.lines[0], "targets for NVIDIA H200: no threshold lowered (as in the catalog)");
    EXPECT_STR(s.lines[1], "lab 02: its solution did not pass here (fail); its catalog target stands");
    calibrate_gpu_free(&g);
}

int main(void)
{
    static const struct tap_test tests[] = {
        T(the_rule_matches_grade_sh),
        T(why_a_threshold_stands),
        T(several_cases_scale_by_the_furthest_short),
        T(the_hash_follows_the_targets_only),
        T(the_path_is_beside_progress_json),
        T(entries_round_trip_one_per_gpu_model),
        T(why_and_missing_figures_survive_the_file),
        T(a_corrupt_file_is_kept_aside_and_reported),
        T(a_newer_schema_is_left_alone),
        T(each_problem_is_told_in_its_words),
        T(the_gpu_is_named_by_nvidia_smi),
        T(a_lowered_threshold_judges_and_explains_the_check),
        T(the_report_says_what_was_lowered),
    };
    return tap_run_in(dir, sizeof dir, "calibrate", tests, (int)(sizeof tests / sizeof tests[0]));
}
