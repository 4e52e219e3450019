/* test_rownorm.cu — the rownorm family's host arithmetic, without a GPU: the
 * widths it gives trials and timed cases, inputs that are positive and make
 * every element count, a tolerance that float kernels of every summation
 * order stay inside and the classic mistakes do not (lab 08's shfl_down sum,
 * rows found by a shift, a left-out element, a result kept from the last
 * sample), the poison, and buffers large enough for every call.  It includes
 * the family's source, so it sees its static functions; nothing here
 * touches a device. */
#include "../../tutor/harness/hx_fam_rownorm.cu"
#include "tap.h"

using namespace hx;

static int pow2(unsigned x)
{
    return (x & (x - 1)) == 0;
}

/* The first trials take the edge widths, the others a width drawn from the
 * seed in [32, 1024]: of both kinds, over many seeds. */
static void trial_widths(void)
{
    int npow2 = 0, odd = 0, small = 0, large = 0;
    for (int k = 0; k < RN_NEDGE; k++)
        EXPECT(rn_trial_cols(1, k) == RN_EDGE[k] && rn_trial_cols(777, k) == RN_EDGE[k]);
    for (uint64_t seed = 1; seed <= 200; seed++)
        for (int k = RN_NEDGE; k < 16; k++) {
            unsigned c = rn_trial_cols(seed, k);
            EXPECT(c >= LAB_ROW_MIN && c <= LAB_ROW_MAX);
            npow2 += pow2(c);
            odd += c & 1;
            small += c < 100;
            large += c > 900;
        }
    EXPECT(odd > 500 && npow2 < 50 && small > 50 && large > 100);
    /* The edges: one warp exactly, one lane over, both ends, odd widths. */
    EXPECT(RN_EDGE[0] == 32 && RN_EDGE[1] == 33 && RN_EDGE[2] == 1023 && RN_EDGE[3] == 1024);
}

/* A timed case's width lies in its kind's range, never a power of two, and
 * is the same for every call of the run. */
static void timed_widths(void)
{
    unsigned lo, hi;
    struct perf_case pc = {"wide", 262144, 262144, "wide"};
    EXPECT(rn_kind_range("wide", &lo, &hi) == 0 && lo == 769 && hi == 1023);
    EXPECT(rn_kind_range("narrow", &lo, &hi) == 0 && lo == 33 && hi == 63);
    EXPECT(rn_kind_range("ripple", &lo, &hi) == -1);
    for (const char *kind : {"wide", "narrow"}) {
        rn_kind_range(kind, &lo, &hi);
        for (unsigned c = lo; c <= hi; c++)
            EXPECT(!pow2(c));
        snprintf(pc.label, sizeof pc.label, "%s", kind);
        for (uint64_t seed = 1; seed <= 500; seed++) {
            unsigned c = rn_case_cols(seed, &pc, lo, hi);
            EXPECT(c >= lo && c <= hi && c == rn_case_cols(seed, &pc, lo, hi));
        }
    }
}

/* Every value positive, and each at least 1/(2 cols) of its row's sum: a
 * kernel that leaves any one out is 4 times the tolerance off or more. */
static void every_element_counts(void)
{
    float x[ROW_MAX];
    double worst = INFINITY;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        rgen g = {seed, 3, 100, rn_trial_cols(seed, 10 + (int)seed)};
        for (unsigned long long r = 0; r < g.rows; r++) {
            double s = rn_row(g, r, 0, x), mn = INFINITY;
            for (unsigned j = 0; j < g.cols; j++) {
                EXPECT(x[j] > 0 && x[j] == rn_value(g, r, j, 0));
                mn = std::min(mn, (double)x[j]);
            }
            /* Leaving out the smallest: every other element moves by
             * mn / (s - mn) of itself. */
            worst = std::min(worst, (mn / (s - mn)) / ldexp(1.0, RN_TOL_EXP));
        }
    }
    printf("# a left-out element: at least %.2f times the tolerance\n", worst);
    EXPECT(worst >= 4.0);
}

/* The ways a float kernel may add a row: one thread's loop, a warp's lanes
 * (columns j, j + 32, ...) then a butterfly, a pairwise tree; then x / s or
 * x * (1 / s).  All stay within half the tolerance or so on generated rows
 * of every width; the bound is 1026 u of 2048 u. */
static float sum_serial(const float *x, unsigned n)
{
    float s = 0;
    for (unsigned j = 0; j < n; j++)
        s += x[j];
    return s;
}

static float sum_warp(const float *x, unsigned n)
{
    float lane[32];
    for (int l = 0; l < 32; l++) {
        lane[l] = 0;
        for (unsigned j = l; j < n; j += 32)
            lane[l] += x[j];
    }
    for (int d = 16; d > 0; d >>= 1) {
        float t[32];
        for (int l = 0; l < 32; l++)
            t[l] = lane[l] + lane[l ^ d];
        memcpy(lane, t, sizeof t);
    }
    return lane[0];
}

static float sum_tree(const float *x, unsigned n)
{
    if (n == 1)
        return x[0];
    return sum_tree(x, n / 2) + sum_tree(x + n / 2, n - n / 2);
}

static void float_kernels_fit_the_tolerance(void)
{
    float x[ROW_MAX];
    double worst = 0;
    float (*sums[])(const float *, unsigned) = {sum_serial, sum_warp, sum_tree};
    for (uint64_t seed = 1; seed <= 10; seed++)
        for (int k = 0; k < 12; k++) {
            rgen g = {seed, 5 + (uint64_t)k, 40, rn_trial_cols(seed, k)};
            for (unsigned long long r = 0; r < g.rows; r++) {
                double s = rn_row(g, r, 0, x);
                for (auto sum : sums) {
                    float fs = sum(x, g.cols), inv = 1.0f / fs;
                    for (unsigned j = 0; j < g.cols; j++) {
                        double want = x[j] / s, tol = rn_tolerance(want);
                        worst = std::max(worst, fabs((double)(x[j] * inv) - want) / tol);
                        worst = std::max(worst, fabs((double)(x[j] / fs) - want) / tol);
                    }
                }
            }
        }
    printf("# float kernels used at most %.3f of the tolerance\n", worst);
    EXPECT(worst < 0.5);
    /* The first-order bound, for any order: (cols - 1) u for the sum, two
     * roundings for the scaling, against 2^-13 = 2048 u. */
    EXPECT((LAB_ROW_MAX - 1 + 3) / 2048.0 < 0.51);
}

/* Lab 08's sum: after five __shfl_down_sync steps lane l holds a partial
 * sum (a lane whose source is past lane 31 adds its own value again), and a
 * kernel that divides lane l's columns by it is wrong in most columns
 * outside lane 0's, in every row, and far off in many. */
static void shfl_down_fails(void)
{
    float x[ROW_MAX];
    long wrong = 0, far = 0, outside = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        rgen g = {seed, 8, 4, rn_trial_cols(seed, (int)seed % 12)};
        for (unsigned long long r = 0; r < g.rows; r++) {
            double s = rn_row(g, r, 0, x);
            float lane[32];
            for (int l = 0; l < 32; l++) {
                lane[l] = 0;
                for (unsigned j = l; j < g.cols; j += 32)
                    lane[l] += x[j];
            }
            for (int d = 16; d > 0; d >>= 1) {
                float t[32];
                for (int l = 0; l < 32; l++)
                    t[l] = lane[l] + (l + d < 32 ? lane[l + d] : lane[l]);
                memcpy(lane, t, sizeof t);
            }
            long row_wrong = 0;
            for (unsigned j = 0; j < g.cols; j++) {
                double want = x[j] / s, err = fabs((double)(x[j] / lane[j % 32]) - want);
                if (j % 32 == 0) {
                    EXPECT(err <= rn_tolerance(want));
                    continue;
                }
                outside++;
                row_wrong += err > rn_tolerance(want);
                far += err > 100 * rn_tolerance(want);
            }
            EXPECT(row_wrong > 0);
            wrong += row_wrong;
        }
    }
    printf("# shfl_down: %.3f of the columns outside lane 0's wrong, %.3f by 100x the tolerance\n",
           (double)wrong / outside, (double)far / outside);
    EXPECT(wrong > outside * 0.9 && far > outside / 5);
}

/* The bank's shift kernel on the CPU (tests/bank/rownorm_pow2_cols.cu): row
 * r read and written at r << log2 of cols' lowest bit, warps in order, into
 * a poisoned output.  The trial check passes it at widths 32 and 1024 and
 * fails it at every other edge width from the second row on. */
static unsigned long long shift_kernel_errors(unsigned long long rows, unsigned cols)
{
    rgen g = {31, 2, rows, cols};
    size_t total = rows * cols;
    uint32_t pz = rn_poison_bits(77);
    std::vector<float> in(total + ROW_MAX), out(total + ROW_MAX);
    float nan;
    memcpy(&nan, &pz, sizeof nan);
    for (size_t k = 0; k < total; k++)
        in[k] = rn_value(g, k / cols, (unsigned)(k % cols), 0);
    std::fill(out.begin(), out.end(), nan);
    unsigned shift = __builtin_ctz(cols);
    for (unsigned long long r = 0; r < rows; r++) {
        size_t base = (size_t)r << shift;
        float s = 0;
        for (unsigned j = 0; j < cols; j++)
            s += in[base + j];
        for (unsigned j = 0; j < cols; j++)
            out[base + j] = in[base + j] / s;
    }
    unsigned long long first;
    double want, used;
    return rn_cpu_check(g, out.data(), &first, &want, &used);
}

static void pow2_rows_fail(void)
{
    EXPECT(shift_kernel_errors(1, 33) == 0);
    EXPECT(shift_kernel_errors(8, 32) == 0);
    EXPECT(shift_kernel_errors(5, 1024) == 0);
    for (unsigned cols : {33u, 63u, 65u, 513u, 1000u, 1023u})
        EXPECT(shift_kernel_errors(2, cols) > 0);
    /* The second trial is two rows of 33. */
    EXPECT(RN_EDGE[1] == 33);
}

/* The trial check: the exact result passes, and one element off by a
 * little more than the tolerance fails, where it says. */
static void cpu_check_finds_the_first_wrong_element(void)
{
    rgen g = {9, 4, 50, 1000};
    std::vector<float> out(g.rows * g.cols);
    float x[ROW_MAX];
    for (unsigned long long r = 0; r < g.rows; r++) {
        double s = rn_row(g, r, 0, x);
        for (unsigned j = 0; j < g.cols; j++)
            out[r * g.cols + j] = (float)(x[j] / s);
    }
    unsigned long long first = 0;
    double want = 0, used = 0;
    EXPECT(rn_cpu_check(g, out.data(), &first, &want, &used) == 0);
    EXPECT(used < 0.01);
    size_t k = 17 * g.cols + 999;
    out[k] = (float)(out[k] * (1.0 + 1.5 * ldexp(1.0, RN_TOL_EXP)));
    EXPECT(rn_cpu_check(g, out.data(), &first, &want, &used) == 1);
    EXPECT(first == k);
}

/* A changed row has new values everywhere, and a result kept from before
 * the change is wrong by far in nearly every element of it. */
static void changed_rows_defeat_a_kept_result(void)
{
    float x[ROW_MAX], y[ROW_MAX];
    long far = 0, all = 0;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        rgen g = {seed, 1000, 262144, 900 + (unsigned)seed};
        for (uint64_t k = 0; k < 20; k++) {
            unsigned long long taken[RN_CHANGES];
            for (int m = 0; m < RN_CHANGES; m++) {
                taken[m] = rn_change_row(g, k, m, taken);
                for (int q = 0; q < m; q++)
                    EXPECT(taken[q] != taken[m]);
                EXPECT(taken[m] < g.rows);
                double s0 = rn_row(g, taken[m], 0, x), s1 = rn_row(g, taken[m], k + 1, y);
                for (unsigned j = 0; j < g.cols; j++) {
                    EXPECT(rn_bits(x[j]) != rn_bits(y[j]));
                    double want = y[j] / s1;
                    far += fabs(x[j] / s0 - want) > 10 * rn_tolerance(want);
                    all++;
                }
            }
        }
    }
    printf("# %.4f of the elements of changed rows far from a kept result\n", (double)far / all);
    EXPECT(far > all * 0.99);
}

/* The poison is a quiet NaN, whatever the bits drawn, so no comparison
 * with a tolerance accepts it. */
static void poison_is_never_right(void)
{
    for (uint64_t b = 0; b < 100000; b++) {
        uint32_t bits = rn_poison_bits(mix(b));
        float f;
        memcpy(&f, &bits, sizeof f);
        EXPECT(isnan(f) && (bits & 0x00400000u));
        double err = fabs((double)f - 0.001);
        EXPECT(!(err <= rn_tolerance(0.001)));
    }
}

/* The buffers hold every trial's matrix at its width and every timed case
 * at its widest, in check mode; the profile's in profile mode. */
static void capacity_covers_every_call(void)
{
    static struct opts o;
    const unsigned long long rows[] = {1, 2, 3, 5, 8, 31, 32, 33, 100, 257, 1000, 4099, 16411, 70001};
    memset(&o, 0, sizeof o);
    o.seed = 12345;
    o.mode = MODE_CHECK;
    o.nsizes = (int)(sizeof rows / sizeof rows[0]);
    for (int i = 0; i < o.nsizes; i++)
        o.sizes[i] = rows[i];
    o.nperf = 2;
    o.perf[0] = {"wide", 262144, 262144, "wide"};
    o.perf[1] = {"narrow", 4194304, 4194304, "narrow"};
    unsigned long long cap = rn_capacity(&o);
    for (int i = 0; i < o.nsizes; i++)
        EXPECT(cap >= rows[i] * rn_trial_cols(o.seed, i));
    EXPECT(cap >= 262144ull * 1023 && cap >= 4194304ull * 63);
    EXPECT(cap <= (unsigned long long)LAB_MAX_N);
    o.mode = MODE_PROFILE;
    o.profile_n = 1ull << 24;
    EXPECT(rn_capacity(&o) >= (1ull << 24));
}

/* A changed matrix names the first changed element by row and column, in
 * the sentence every family shares (hx_core.cuh). */
static void changed_input_names_row_and_column(void)
{
    char msg[240];
    struct input_diff d = {2, 3 * 100 + 7, 100};
    EXPECT(input_verdict(d, INPUT_TIMING_REFERENCE, &rn_words, msg, sizeof msg) == 0);
    EXPECT_STR(msg, "the input was modified while timing the reference: 2 element(s) differ, the first at row 3, "
                    "column 7");
}

TAP_MAIN(T(trial_widths), T(timed_widths), T(every_element_counts), T(float_kernels_fit_the_tolerance),
         T(shfl_down_fails), T(pow2_rows_fail), T(cpu_check_finds_the_first_wrong_element), T(changed_rows_defeat_a_kept_result), T(poison_is_never_right),
         T(capacity_covers_every_call), T(changed_input_names_row_and_column))
