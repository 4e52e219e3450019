/* test_predict.c — data/predict.json loads with a source for every figure,
 * a figure without one is refused by its path, and the model's terms,
 * extrapolation and reference are what a hand computation gives. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/predict.h"
#include "sys/util.h"
#include "tap.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (fabs(b) + 1e-30))

static void real_file_loads(void)
{
    struct predict_model m;
    char err[256] = "";
    EXPECT(predict_load(&m, "data/predict.json", err, sizeof err) == 0);
    EXPECT_STR(err, "");
    const struct predict_gpu *h200 = predict_gpu_find(&m, NULL), *h100 = predict_gpu_find(&m, "H100");
    EXPECT(h200 && !strcmp(h200->key, "H200"));
    EXPECT(h100 && h100->dram_gbs < (h200 ? h200->dram_gbs : 0));
    /* a device's name finds its row */
    EXPECT(predict_gpu_find(&m, "NVIDIA H200 NVL") == h200);
    EXPECT(predict_gpu_find(&m, "GeForce") == NULL);
    /* every CUB family has what its reference moves */
    EXPECT(predict_ref_find(&m, "reduce_int") && predict_ref_find(&m, "scan") && predict_ref_find(&m, "select"));
    EXPECT(predict_ref_find(&m, "trapezoid") == NULL);
    predict_free(&m);
}

#define FIG(k) "\"" k "\": {\"value\": 2, \"source\": \"s\"}"
#define GPU_FIGS FIG("dram_gbs") ", " FIG("l2_gbs") ", " FIG("sms") ", " FIG("clock_ghz") ", " \
    FIG("issue_per_clock") ", " FIG("shared_wavefronts_per_clock") ", " FIG("wave_us") ", " FIG("launch_us") \
    ", " FIG("atomic_ns")

static void figure_needs_a_source(void)
{
    struct predict_model m;
    char err[256] = "";
    const char *ok = "{\"default_gpu\": \"X\", \"gpus\": {\"X\": {\"name\": \"x\", \"figures\": {" GPU_FIGS
                     ", " FIG("call_us") "}}}, \"references\": {}}";
    EXPECT(predict_parse(&m, ok, "p.json", err, sizeof err) == 0);
    if (!err[0])
        predict_free(&m);
    const char *unsourced = "{\"default_gpu\": \"X\", \"gpus\": {\"X\": {\"name\": \"x\", \"figures\": {" GPU_FIGS
                            ", \"call_us\": {\"value\": 2}}}}, \"references\": {}}";
    EXPECT(predict_parse(&m, unsourced, "p.json", err, sizeof err) == -1);
    EXPECT_STR(err, "p.json: gpus.X.figures.call_us: source must say where the figure comes from");
    const char *missing = "{\"default_gpu\": \"X\", \"gpus\": {\"X\": {\"name\": \"x\", \"figures\": {" GPU_FIGS
                          "}}}, \"references\": {}}";
    EXPECT(predict_parse(&m, missing, "p.json", err, sizeof err) == -1);
    EXPECT_STR(err, "p.json: gpus.X.figures.call_us: not there");
    const char *nodefault = "{\"default_gpu\": \"Y\", \"gpus\": {\"X\": {\"name\": \"x\", \"figures\": {" GPU_FIGS
                            ", " FIG("call_us") "}}}, \"references\": {}}";
    EXPECT(predict_parse(&m, nodefault, "p.json", err, sizeof err) == -1);
    EXPECT_STR(err, "p.json: default_gpu: names no GPU of gpus");
}

/* A GPU of round figures: 100 SMs at 1 GHz, 4 issues and 1 wavefront a
 * clock, 1000 GB/s of DRAM, 2000 of L2, 1 us a wave, 2 us a launch, 3 a
 * call, 2 ns an atomic update of one word. */
static const struct predict_gpu round_gpu = {
    .key = "R", .name = "round", .dram_gbs = 1000, .l2_gbs = 2000, .sms = 100, .clock_ghz = 1,
    .issue_per_clock = 4, .shared_wf_per_clock = 1, .wave_us = 1, .launch_us = 2, .atomic_ns = 2,
    .call_us = 3};

static void terms_by_hand(void)
{
    struct predict_counts c = {.n = 1 << 20, .threads = 1 << 20, .blocks = 4096, .resident = 8,
                               .launches = 2, .warp_inst = 8e6, .sh_ld_wf = 1e6, .sh_st_wf = 1e6,
                               .gl_ld_sec = 131072, .gl_st_sec = 0, .uniq_rd = 131072, .uniq_wr = 0};
    struct predict_time t;
    predict_kernel(&round_gpu, &c, &t);
    EXPECT(NEAR(t.dram_s, 131072 * 32 / 1e12));         /* 4.19 us */
    EXPECT(NEAR(t.l2_s, 131072 * 32 / 2e12));
    EXPECT(NEAR(t.issue_s, 8e6 / (100 * 1e9 * 4)));     /* 20 us */
    EXPECT(NEAR(t.shared_s, 2e6 / (100 * 1e9)));        /* 20 us */
    EXPECT(NEAR(t.latency_s, 4096.0 / 800 * 1e-6));     /* 5.12 waves */
    EXPECT(NEAR(t.fixed_s, 7e-6));
    EXPECT(NEAR(t.seconds, 40e-6 + 7e-6));
    EXPECT_STR(t.bound, "instructions");
    /* four elements a thread: the loop hides the waves' latency */
    c.threads = c.n / 4;
    c.warp_inst = c.sh_ld_wf = c.sh_st_wf = 0;
    predict_kernel(&round_gpu, &c, &t);
    EXPECT(t.latency_s == 0);
    EXPECT_STR(t.bound, "DRAM");
    /* a wave-bound kernel */
    c.threads = c.n;
    c.blocks = 1e6;
    predict_kernel(&round_gpu, &c, &t);
    EXPECT_STR(t.bound, "latency");
    EXPECT(NEAR(t.seconds, 1e6 / 800 * 1e-6 + 7e-6));
    /* one update a block into one word is served while the blocks run */
    c.atom_hot = c.blocks;
    predict_kernel(&round_gpu, &c, &t);
    EXPECT(t.atomic_s == 0);
    EXPECT_STR(t.bound, "latency");
    /* every thread adding into one word, one update after another at 2 ns */
    c.atom_hot = 1 << 20;
    predict_kernel(&round_gpu, &c, &t);
    EXPECT(NEAR(t.atomic_s, 1048576 * 2e-9));
    EXPECT_STR(t.bound, "atomics");
    EXPECT(NEAR(t.seconds, 1048576 * 2e-9 + 7e-6));
}

static void extrapolated_along_lines(void)
{
    struct predict_counts a = {.n = 4096, .launches = 2, .warp_inst = 1000, .blocks = 16, .uniq_rd = 512,
                               .resident = 8},
                          b = {.n = 65536, .launches = 3, .warp_inst = 15400, .blocks = 256, .uniq_rd = 8192,
                               .resident = 16},
                          out;
    predict_extrapolate(&a, &b, 1 << 28, &out);
    /* 0.24 instructions an element past 4096's 1000 */
    EXPECT(NEAR(out.warp_inst, 15400 + (15400 - 1000) / 61440.0 * (268435456.0 - 65536)));
    EXPECT(NEAR(out.uniq_rd, 268435456.0 / 8));
    EXPECT(NEAR(out.blocks, 268435456.0 / 256));
    /* one launch more per factor 16, three factors on: 6 */
    EXPECT(out.launches == 6);
    EXPECT(out.resident == 16);
    EXPECT(out.n == 268435456.0);
    EXPECT(!out.fixed_grid);      /* no threads counted: nothing to tell */
    /* threads that grew 4x while n grew 16x: a grid sized to the GPU */
    a.threads = 4096;
    b.threads = 16384;
    predict_extrapolate(&a, &b, 1 << 28, &out);
    EXPECT(out.fixed_grid);
    b.threads = 65536;
    predict_extrapolate(&a, &b, 1 << 28, &out);
    EXPECT(!out.fixed_grid);
}

static void reference_by_its_bytes(void)
{
    struct predict_ref cub = {.family = "reduce_int", .read_bytes = 4, .write_bytes = 0, .launches = 2};
    struct predict_time t;
    predict_reference(&round_gpu, &cub, 1 << 28, &t);
    EXPECT(NEAR(t.seconds, 4.0 * (1 << 28) / 1e12 + 7e-6));
    char w[32];
    predict_time_words(t.seconds, w, sizeof w);
    EXPECT_STR(w, "1.08 ms");
    predict_time_words(12.34e-6, w, sizeof w);
    EXPECT_STR(w, "12.3 µs");
    predict_time_words(512e-6, w, sizeof w);
    EXPECT_STR(w, "512 µs");
}

TAP_MAIN(T(real_file_loads), T(figure_needs_a_source), T(terms_by_hand), T(extrapolated_along_lines),
         T(reference_by_its_bytes))
