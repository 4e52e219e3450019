/* predict.h — a predicted time without a GPU: a kernel's counters, as the
 * emulator counts them (tutor/emu/emu_count.h), turned into the time a
 * GPU would take by a simple model of that GPU (data/predict.json: one
 * figure a row, each with where it comes from), and CUB's time by the
 * same model from what CUB is known to move.  Always a prediction, never
 * a measurement: docs/predicted-time.md says the model, its figures and
 * how far it is from the H200's measurements. */
#ifndef PREDICT_H
#define PREDICT_H

#include <stddef.h>

/* The figures of one GPU the model needs, one row each: the field, its
 * key in data/predict.json and its unit. */
#define PREDICT_FIGURES(X)                                                    \
    X(dram_gbs, "dram_gbs", "GB/s")                                           \
    X(l2_gbs, "l2_gbs", "GB/s")                                               \
    X(sms, "sms", "SMs")                                                      \
    X(clock_ghz, "clock_ghz", "GHz")                                          \
    X(issue_per_clock, "issue_per_clock", "warp instructions a clock an SM")  \
    X(shared_wf_per_clock, "shared_wavefronts_per_clock", "wavefronts a clock an SM") \
    X(wave_us, "wave_us", "us a wave of resident blocks")                     \
    X(launch_us, "launch_us", "us a launch")                                  \
    X(atomic_ns, "atomic_ns", "ns an update of one word by atomics")          \
    X(call_us, "call_us", "us a call")

struct predict_gpu {
    char *key;                  /* "H200" */
    char *name;                 /* "NVIDIA H200" */
#define PREDICT_FIELD_(f, key, unit) double f;
    PREDICT_FIGURES(PREDICT_FIELD_)
#undef PREDICT_FIELD_
};

/* What a family's reference moves at size n: bytes read and written per
 * element and its launches (CUB is not emulated: its PTX is large). */
struct predict_ref {
    char *family;
    double read_bytes, write_bytes, launches;
};

struct predict_model {
    struct predict_gpu *gpus;
    int ngpus;
    char *default_gpu;
    struct predict_ref *refs;
    int nrefs;
};

/* Reads data/predict.json at PATH; -1 with one line in ERR ("predict.json:
 * gpus.H200.figures.sms: missing"). */
int predict_load(struct predict_model *m, const char *path, char *err, size_t errlen);
int predict_parse(struct predict_model *m, const char *text, const char *name, char *err, size_t errlen);
void predict_free(struct predict_model *m);
/* The GPU by key ("H200"), or the one whose name a device name contains;
 * NULL KEY: the default.  NULL when none. */
const struct predict_gpu *predict_gpu_find(const struct predict_model *m, const char *key);
const struct predict_ref *predict_ref_find(const struct predict_model *m, const char *family);

/* The counters the model reads, for one call at size n (launches summed
 * over the call's kernels). */
#define PREDICT_COUNTERS(X)                                                   \
    X(launches, "launches")                                                   \
    X(blocks, "blocks")                                                       \
    X(threads, "threads")                                                     \
    X(warp_inst, "warp_instructions")                                         \
    X(sh_ld_wf, "shared_load_wavefronts")                                     \
    X(sh_st_wf, "shared_store_wavefronts")                                    \
    X(gl_ld_sec, "global_load_sectors")                                       \
    X(gl_st_sec, "global_store_sectors")                                      \
    X(uniq_rd, "unique_sectors_read")                                         \
    X(uniq_wr, "unique_sectors_written")                                      \
    X(atom_hot, "atomic_hottest_address")

struct predict_counts {
    double n;
    double resident;            /* resident_blocks_per_sm: a property, not a count (0: unknown) */
    int fixed_grid;             /* the threads grew less than n between the two sizes: a grid
                                   sized to the GPU, whose count does not follow n */
#define PREDICT_COUNT_(f, name) double f;
    PREDICT_COUNTERS(PREDICT_COUNT_)
#undef PREDICT_COUNT_
};
/* The field of counter NAME in C, or NULL when the model does not read it. */
double *predict_count_field(struct predict_counts *c, const char *name);

/* The counters at size N from two emulated sizes A and B (A.n < B.n):
 * every count a straight line through the two, launches a straight line
 * in log n (a multi-pass reduction adds a launch per factor of its
 * block), the resident blocks B's; a grid that grew less than n between
 * them is marked fixed. */
void predict_extrapolate(const struct predict_counts *a, const struct predict_counts *b, double n,
                         struct predict_counts *out);

/* Threads that take this many elements each or more keep loads in flight
 * through their loop: no wave's latency is charged to them, nor to a
 * fixed grid. */
#define PREDICT_HIDES_LATENCY 4.0

/* The model's terms, in seconds, and the time: the largest of DRAM, L2,
 * the SMs' instructions (issue and shared-memory wavefronts, one after
 * the other), the waves' latency and the updates of the busiest word by
 * atomics (served one after another, when they are more than one a
 * block), plus the launches' and the call's
 * fixed cost (docs/predicted-time.md). */
struct predict_time {
    double dram_s, l2_s, issue_s, shared_s, latency_s, atomic_s, fixed_s;
    double seconds;
    const char *bound;          /* "DRAM", "L2", "instructions", "latency", "atomics": the largest term */
};
void predict_kernel(const struct predict_gpu *g, const struct predict_counts *c, struct predict_time *t);
/* The reference's time at size N by the same model: its bytes at the DRAM
 * rate and its launches. */
void predict_reference(const struct predict_gpu *g, const struct predict_ref *r, double n, struct predict_time *t);

/* "512 µs", "2.21 ms", "12.3 µs": a predicted time in words (BUF, LEN). */
void predict_time_words(double seconds, char *buf, size_t len);

#endif
