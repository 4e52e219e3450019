/* tests/device/lab15-bench.cu — lab 15's epilogue kernel in many shapes,
 * timed the way the judge times (tutor/harness/hx_time.cu): before every
 * sample the output is poisoned, the scratch memset to 0xab and the L2
 * flushed by a memset of twice its size; CUDA events around the call; the
 * result read back and checked after the second event.  Every kernel runs
 * once per round, round after round, so that all of them see the same
 * state of the GPU, and each gets the median of its rounds.  Measurement
 * only: the figures a lesson quotes come from the judge (bonus-c.sh).
 *
 * Build: nvcc -arch=sm_90 -O3 -std=c++17 -o lab15-bench tests/device/lab15-bench.cu
 * Usage: lab15-bench [rounds] [n ...]      (default 301 rounds; 2^22 - 12345
 *        and 2^28 - 12345: the judge's sizes are jittered below 2^k)
 *
 * Kernel shapes: BLOCK threads, PER_SM blocks per SM (the grid never more
 * than fits, nor more than the work needs), UNROLL float4 loads in flight
 * per thread; LOAD how those loads are made:
 *   0  plain vin[i] (const __restrict__: the compiler's ld.global.nc);
 *   1  __ldcs: ld.global.cs, "streaming, likely used once";
 *   2  ld.global.nc.L1::no_allocate.L2::256B: no L1 line, a 256-byte
 *      prefetch hint to L2;
 *   3  ld.global.nc.L1::no_allocate with an L2::evict_first cache policy
 *      (createpolicy): the lines we read go out of L2 first, before the
 *      dirty lines the flush left there;
 *   4  3 with the 256-byte prefetch hint as well;
 *   5  ld.global.nc.L1::no_allocate alone;
 *   6  ld.global.nc with the L2::evict_first policy alone (L1 as usual);
 *   7  ld.global (not .nc) with the L2::evict_first policy;
 *   9, 10  3 and 6 on a thread's first round only, 0 after it;
 *   11  as 9, with the first round apart from the loop (its code hinted
 *      only, the loop's plain only);
 * EPI the epilogue:
 *   0  none: each block writes its partial and leaves (not a sum; the
 *      floor of the loads and the block sum);
 *   1  the solution's: __threadfence(), atomicInc, __threadfence(), the
 *      whole last block adds the partials (then a block sum);
 *   3  the ticket as one atom.acq_rel.gpu.inc, no fences, whole block;
 *   4  3, with warp 0 alone adding the partials (shuffles only);
 *   5  4 without the second barrier: warp 0 alone takes the ticket and
 *      hears the verdict by a shuffle, the other warps have left.
 * " tf": the scalars before and after the float4s loaded before the loop.
 * "bulk": each block's share (blocked, not strided) copied into shared
 * memory by cp.async.bulk on one mbarrier (H1: with the evict_first
 * policy), then added from there; only where it fits (2^22). */
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <vector>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#define FULL_MASK 0xffffffffu
#define SCRATCH_BYTES(n) ((size_t)(n) / 4 + 65536)

__device__ unsigned int blocks_done;

static __device__ __forceinline__ float warp_sum(float v)
{
    for (int mask = 16; mask > 0; mask >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, mask);
    return v;
}

template <int BLOCK> static __device__ float block_sum(float v, float *warp_sums)
{
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    return warp == 0 ? warp_sum(lane < BLOCK / 32 ? warp_sums[lane] : 0.0f) : 0.0f;
}

static __device__ __forceinline__ uint64_t evict_first_policy(void)
{
    uint64_t pol;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}

#define LD4(insn)                                                                              \
    asm(insn " {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p))
#define LD4P(insn)                                                                             \
    asm(insn " {%0,%1,%2,%3}, [%4], %5;" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(pol))

/* LOAD 9 and 10 are 3 and 6 on a thread's first round, 0 after it. */
template <int LOAD> static __device__ __forceinline__ float4 load4(const float4 *p, uint64_t pol, bool first)
{
    float4 v;
    if (LOAD == 0 || ((LOAD == 9 || LOAD == 10) && !first))
        v = *p;
    else if (LOAD == 1)
        v = __ldcs(p);
    else if (LOAD == 2)
        LD4("ld.global.nc.L1::no_allocate.L2::256B.v4.f32");
    else if (LOAD == 3 || LOAD == 9)
        LD4P("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32");
    else if (LOAD == 4)
        LD4P("ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v4.f32");
    else if (LOAD == 5)
        LD4("ld.global.nc.L1::no_allocate.v4.f32");
    else if (LOAD == 6 || LOAD == 10)
        LD4P("ld.global.nc.L2::cache_hint.v4.f32");
    else if (LOAD == 7)
        LD4P("ld.global.L2::cache_hint.v4.f32");
    return v;
}

static __device__ __forceinline__ unsigned ticket_acq_rel(unsigned *c, unsigned last)
{
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.inc.u32 %0, [%1], %2;" : "=r"(old) : "l"(c), "r"(last) : "memory");
    return old;
}

/* One round of UNROLL loads, then their sums. */
template <int UNROLL, int LOAD>
static __device__ __forceinline__ void round_of(const float4 *vin, unsigned i, unsigned stride, unsigned nvec,
                                                uint64_t pol, float &s0, float &s1, float &s2, float &s3)
{
    float4 v[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; k++)
        v[k] = i + k * stride < nvec ? load4<LOAD>(&vin[i + k * stride], pol, true) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int k = 0; k < UNROLL; k++) {
        s0 += v[k].x;
        s1 += v[k].y;
        s2 += v[k].z;
        s3 += v[k].w;
    }
}

/* What follows a block's sum (v, valid in thread 0): see EPI above. */
template <int BLOCK, int EPI>
static __device__ __forceinline__ void epilogue(float v, float *partials, float *out, float *warp_sums)
{
    __shared__ bool is_last;
    if (EPI == 0) {
        if (threadIdx.x == 0)
            partials[blockIdx.x] = v;
        return;
    }
    if (EPI == 5) {
        /* Warp 0 alone from here: the other warps leave after the block
         * sum, and the verdict goes round warp 0 by a shuffle. */
        if (threadIdx.x >= 32)
            return;
        unsigned last = 0;
        if (threadIdx.x == 0) {
            partials[blockIdx.x] = v;
            last = ticket_acq_rel(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
        }
        __syncwarp();
        if (!__shfl_sync(FULL_MASK, last, 0))
            return;
        float t = 0.0f;
        for (unsigned b0 = threadIdx.x; b0 < gridDim.x; b0 += 32 * 8) {
            float x[8];
#pragma unroll
            for (int k = 0; k < 8; k++)
                x[k] = b0 + 32 * k < gridDim.x ? __ldcg(&partials[b0 + 32 * k]) : 0.0f;
#pragma unroll
            for (int k = 0; k < 8; k++)
                t += x[k];
        }
        t = warp_sum(t);
        if (threadIdx.x == 0)
            *out = t;
        return;
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        if (EPI == 1) {
            __threadfence();
            is_last = atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
        } else {
            is_last = ticket_acq_rel(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
        }
    }
    __syncthreads();
    if (!is_last)
        return;
    if (EPI == 1)
        __threadfence();
    if (EPI == 4) {
        if (threadIdx.x < 32) {
            /* Eight loads in flight per lane, as lab15-variants.cu's v4. */
            float t = 0.0f;
            for (unsigned b0 = threadIdx.x; b0 < gridDim.x; b0 += 32 * 8) {
                float x[8];
#pragma unroll
                for (int k = 0; k < 8; k++)
                    x[k] = b0 + 32 * k < gridDim.x ? __ldcg(&partials[b0 + 32 * k]) : 0.0f;
#pragma unroll
                for (int k = 0; k < 8; k++)
                    t += x[k];
            }
            t = warp_sum(t);
            if (threadIdx.x == 0)
                *out = t;
        }
        return;
    }
    float t = 0.0f;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK)
        t += __ldcg(&partials[b]);
    t = block_sum<BLOCK>(t, warp_sums);
    if (threadIdx.x == 0)
        *out = t;
}

template <int BLOCK, int UNROLL, int LOAD, int EPI, int MINB, int TF>
__global__ void __launch_bounds__(BLOCK, MINB)
sum_kernel(const float *__restrict__ in, unsigned n, unsigned head, float *partials, float *out)
{
    __shared__ float warp_sums[BLOCK / 32];
    const float4 *vin = (const float4 *)(in + head);
    unsigned nvec = (n - head) / 4;
    unsigned tail = head + 4 * nvec;
    unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    unsigned stride = gridDim.x * BLOCK;

    uint64_t pol = evict_first_policy();
    /* TF: the scalars before and after the float4s loaded ahead of the
     * loop, not after it (one more trip to memory for block 0 there). */
    float hs = 0.0f, ts = 0.0f;
    if (TF) {
        if (tid < head)
            hs = in[tid];
        if (tid < n - tail)
            ts = in[tail + tid];
    }
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    unsigned i0 = tid;
    if (LOAD == 11) {
        /* The first sweep apart, every load hinted, the rest plain. */
        if (i0 < nvec) {
            round_of<UNROLL, 3>(vin, i0, stride, nvec, pol, s0, s1, s2, s3);
            i0 += UNROLL * stride;
        }
        for (; i0 < nvec; i0 += UNROLL * stride)
            round_of<UNROLL, 0>(vin, i0, stride, nvec, pol, s0, s1, s2, s3);
    }
    for (unsigned i = i0; LOAD != 11 && i < nvec; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            v[k] = i + k * stride < nvec ? load4<LOAD>(&vin[i + k * stride], pol, i == tid)
                                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            s0 += v[k].x;
            s1 += v[k].y;
            s2 += v[k].z;
            s3 += v[k].w;
        }
    }
    if (TF) {
        s0 += hs;
        s1 += ts;
    } else {
        if (tid < head)
            s0 += in[tid];
        if (tid < n - tail)
            s1 += in[tail + tid];
    }

    float v = block_sum<BLOCK>((s0 + s1) + (s2 + s3), warp_sums);
    epilogue<BLOCK, EPI>(v, partials, out, warp_sums);
}

/* A block's share, blocked rather than strided: one thread asks the copy
 * engine for it all (cp.async.bulk into shared memory, 8 pieces, one
 * mbarrier), then the threads add it up from there.  Measurement only, and
 * only where a block's share fits in shared memory (2^22: 127 KB). */
template <int BLOCK, int EPI, int HINT>
__global__ void __launch_bounds__(BLOCK)
bulk_kernel(const float *__restrict__ in, unsigned n, unsigned head, float *partials, float *out)
{
    extern __shared__ float4 buf[];
    __shared__ float warp_sums[BLOCK / 32];
    __shared__ __align__(8) unsigned long long bar;
    const float4 *vin = (const float4 *)(in + head);
    unsigned nvec = (n - head) / 4;
    unsigned tail = head + 4 * nvec;
    unsigned per = (nvec + gridDim.x - 1) / gridDim.x;
    unsigned lo = min(nvec, blockIdx.x * per), hi = min(nvec, lo + per);
    unsigned count = hi - lo;
    unsigned bar_a = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_a));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_a), "r"(count * 16)
                     : "memory");
        uint64_t pol = evict_first_policy();
        unsigned piece = ((count + 7) / 8);
        for (unsigned c = 0; c < count; c += piece) {
            unsigned m = min(piece, count - c);
            unsigned dst = (unsigned)__cvta_generic_to_shared(&buf[c]);
            if (HINT)
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
                             " [%0], [%1], %2, [%3], %4;" ::"r"(dst), "l"(vin + lo + c), "r"(m * 16), "r"(bar_a), "l"(pol)
                             : "memory");
            else
                asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                             " [%0], [%1], %2, [%3];" ::"r"(dst), "l"(vin + lo + c), "r"(m * 16), "r"(bar_a)
                             : "memory");
        }
    }
    unsigned done = 0;
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar_a) : "memory");
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    for (unsigned i = threadIdx.x; i < count; i += BLOCK) {
        float4 v = buf[i];
        s0 += v.x;
        s1 += v.y;
        s2 += v.z;
        s3 += v.w;
    }
    unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    if (tid < head)
        s0 += in[tid];
    if (tid < n - tail)
        s1 += in[tail + tid];
    float v = block_sum<BLOCK>((s0 + s1) + (s2 + s3), warp_sums);
    epilogue<BLOCK, EPI>(v, partials, out, warp_sums);
}

/* Lab 08's solution: a memset of *out, then one atomicAdd per block. */
__global__ void __launch_bounds__(1024)
lab08_kernel(const float *__restrict__ in, unsigned n, unsigned head, float *, float *out)
{
    __shared__ float warp_sums[32];
    const float4 *vin = (const float4 *)(in + head);
    unsigned nvec = (n - head) / 4, tail = head + 4 * nvec;
    unsigned tid = blockIdx.x * 1024 + threadIdx.x, stride = gridDim.x * 1024;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    unsigned i = tid;
    for (; i + 3 * stride < nvec; i += 4 * stride) {
        float4 v[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            v[k] = vin[i + k * stride];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            s0 += v[k].x;
            s1 += v[k].y;
            s2 += v[k].z;
            s3 += v[k].w;
        }
    }
    for (; i < nvec; i += stride) {
        float4 v = vin[i];
        s0 += v.x;
        s1 += v.y;
        s2 += v.z;
        s3 += v.w;
    }
    if (tid < head)
        s0 += in[tid];
    if (tid < n - tail)
        s1 += in[tail + tid];
    float v = block_sum<1024>((s0 + s1) + (s2 + s3), warp_sums);
    if (threadIdx.x == 0)
        atomicAdd(out, v);
}

__global__ void empty_kernel(const float *, unsigned, unsigned, float *, float *out)
{
    if (threadIdx.x == 0)
        *out = 0.0f;
}

/* Reads a buffer and writes almost nothing: an L2 flush that leaves no
 * dirty lines behind (the judge's memset leaves the L2 full of them). */
__global__ void read_flush(const float4 *p, size_t nvec, float *sink)
{
    float s = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nvec; i += (size_t)gridDim.x * blockDim.x)
        s += p[i].x;
    if (s == 1.2345f)
        *sink = s;
}

typedef void (*kfn)(const float *, unsigned, unsigned, float *, float *);

struct variant {
    std::string name;
    kfn f;
    int block, per_sm, unroll;   /* per_sm 0: as many as fit */
    int kind;                    /* 0 ours, 1 CUB, 2 lab 08 (memset first), 3 empty, 4 bulk copy */
    int checks;                  /* 1: the result must be the sum (and the same bits) */
};

static std::vector<variant> V;

/* MINB: __launch_bounds__'s second argument.  0 lets ptxas keep the
 * registers low enough for two blocks of 1024 per SM (32 each), and then
 * only four of eight loads are in flight before the first add; 1 lets a
 * block of 1024 threads have 64. */
template <int BLOCK, int UNROLL, int LOAD, int EPI, int MINB = 0, int TF = 0> static void add(int per_sm)
{
    char name[64];
    snprintf(name, sizeof name, "b%d x%d u%d L%d E%d%s%s", BLOCK, per_sm, UNROLL, LOAD, EPI,
             MINB ? (MINB == 1 ? " m1" : " m2") : "", TF ? " tf" : "");
    V.push_back({name, sum_kernel<BLOCK, UNROLL, LOAD, EPI, MINB, TF>, BLOCK, per_sm, UNROLL, 0, EPI != 0});
}

template <int EPI, int HINT> static void add_bulk(void)
{
    char name[64];
    snprintf(name, sizeof name, "bulk b1024 x1 H%d E%d", HINT, EPI);
    CK(cudaFuncSetAttribute(bulk_kernel<1024, EPI, HINT>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    V.push_back({name, bulk_kernel<1024, EPI, HINT>, 1024, 1, 0, 4, EPI != 0});
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 301;
    std::vector<unsigned> sizes;
    for (int a = 2; a < argc; a++)
        sizes.push_back((unsigned)strtoul(argv[a], NULL, 0));
    if (sizes.empty())
        sizes = {4194304u - 12345u, 268435456u - 12345u};
    const char *only = getenv("ONLY");   /* a substring of the names to run */
    int clean = getenv("CLEAN_FLUSH") != NULL;

    int dev = 0, sms = 0, l2 = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    printf("# %s, %d SMs, L2 %d MB; %d rounds; flush %s\n", prop.name, sms, l2 >> 20, rounds,
           clean ? "memset + read sweep (clean L2)" : "memset (as the judge)");

    V.push_back({"CUB DeviceReduce::Sum", NULL, 0, 0, 0, 1, 1});
    V.push_back({"lab 08 (memset+atomic)", lab08_kernel, 1024, 0, 4, 2, 0});
    V.push_back({"empty kernel", empty_kernel, 32, 0, 1, 3, 0});
    add<512, 4, 0, 1>(0);      /* the solution as it was */
    add<1024, 8, 0, 4>(1);     /* v4w */
    add<1024, 8, 9, 5, 1>(1);  /* the solution */
    add<1024, 8, 3, 5, 1>(1);
    add<1024, 8, 11, 5, 1>(1);
    add<1024, 8, 11, 4, 1>(1);
    add<1024, 8, 9, 4, 1>(1);

    size_t max_n = *std::max_element(sizes.begin(), sizes.end());
    float *d_in, *d_out, *d_scratch, *d_sink;
    void *d_cub = NULL;
    size_t cub_bytes = 0;
    size_t flush_bytes = 2 * (size_t)l2;
    void *d_flush;
    cudaStream_t s;
    cudaEvent_t ev0, ev1;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&ev0));
    CK(cudaEventCreate(&ev1));
    CK(cudaMalloc(&d_in, max_n * sizeof(float)));
    CK(cudaMalloc(&d_out, 256));
    CK(cudaMalloc(&d_scratch, SCRATCH_BYTES(max_n)));
    CK(cudaMalloc(&d_sink, 256));
    CK(cudaMalloc(&d_flush, flush_bytes));
    CK(cub::DeviceReduce::Sum(NULL, cub_bytes, d_in, d_out, (int)max_n, s));
    CK(cudaMalloc(&d_cub, cub_bytes));

    /* Fresh random values, none zero: half in [0.5, 1.5), half negative in
     * (-1.5, -0.5] in a random sixteenth, so that parts cancel. */
    std::vector<float> h(max_n);
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
    for (size_t i = 0; i < max_n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        h[i] = 0.5f + (float)((x >> 40) & 0xffffff) / 16777216.0f;
    }
    size_t seg = (x >> 3) % (max_n - max_n / 16);
    for (size_t i = seg; i < seg + max_n / 16; i++)
        h[i] = -h[i];
    CK(cudaMemcpy(d_in, h.data(), max_n * sizeof(float), cudaMemcpyHostToDevice));

    for (unsigned n : sizes) {
        double want = 0, abs_sum = 0;
        for (unsigned i = 0; i < n; i++) {
            want += h[i];
            abs_sum += fabs(h[i]);
        }
        double tol = ldexp(abs_sum, -11);
        size_t nv = V.size();
        std::vector<std::vector<float>> ms(nv);
        std::vector<uint32_t> first_bits(nv, 0);
        std::vector<int> bad(nv, 0), distinct(nv, 1), grid(nv, 0);
        for (size_t v = 0; v < nv; v++) {
            const variant &q = V[v];
            if (q.kind == 0 || q.kind == 2 || q.kind == 4) {
                int per_sm = 0;
                CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, q.f, q.block, 0));
                if (q.per_sm > 0 && per_sm > q.per_sm)
                    per_sm = q.per_sm;
                unsigned blocks = (unsigned)(sms * per_sm), want_b = (n / 4 + q.block - 1) / q.block;
                if (want_b < blocks)
                    blocks = want_b;
                grid[v] = blocks ? blocks : 1;
            } else {
                grid[v] = 1;
            }
        }
        static const uint32_t poison = 0x7fc0dead;
        for (int r = -2; r < rounds; r++) {
            for (size_t v = 0; v < nv; v++) {
                const variant &q = V[v];
                if (only && q.name.find(only) == std::string::npos && q.kind != 1)
                    continue;
                size_t smem = 0;
                if (q.kind == 4) {
                    smem = (size_t)((n / 4 + grid[v] - 1) / grid[v]) * 16;
                    if (smem > 200 * 1024)
                        continue;
                }
                CK(cudaMemcpyAsync(d_out, &poison, 4, cudaMemcpyHostToDevice, s));
                CK(cudaMemsetAsync(d_scratch, 0xab, SCRATCH_BYTES(n), s));
                CK(cudaMemsetAsync(d_flush, (r + 7 * (int)v) & 0xff, flush_bytes, s));
                if (clean)
                    read_flush<<<sms * 8, 512, 0, s>>>((const float4 *)d_flush, flush_bytes / 16, d_sink);
                CK(cudaEventRecord(ev0, s));
                if (q.kind == 1) {
                    CK(cub::DeviceReduce::Sum(d_cub, cub_bytes, d_in, d_out, (int)n, s));
                } else {
                    if (q.kind == 2)
                        CK(cudaMemsetAsync(d_out, 0, sizeof(float), s));
                    q.f<<<grid[v], q.block, smem, s>>>(d_in, n, 0, d_scratch, d_out);
                }
                CK(cudaGetLastError());
                CK(cudaEventRecord(ev1, s));
                CK(cudaEventSynchronize(ev1));
                float t;
                CK(cudaEventElapsedTime(&t, ev0, ev1));
                float got;
                CK(cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost));
                uint32_t bits;
                memcpy(&bits, &got, 4);
                if (q.kind != 3 && (q.kind == 2 || q.checks) && !(fabs((double)got - want) <= tol))
                    bad[v]++;
                if (q.checks && r >= 0) {
                    if (r == 0)
                        first_bits[v] = bits;
                    else if (bits != first_bits[v])
                        distinct[v]++;
                }
                if (r >= 0)
                    ms[v].push_back(t * 1000.0f);
            }
        }
        double cub_med = 0;
        printf("\n## n = %u (%.2f MB), %d rounds; median µs [min, p90]; ratio = CUB median / median\n", n,
               n * 4.0 / 1e6, rounds);
        for (size_t v = 0; v < nv; v++) {
            std::vector<float> &m = ms[v];
            if (m.empty())
                continue;
            std::sort(m.begin(), m.end());
            double med = m[m.size() / 2];
            if (V[v].kind == 1)
                cub_med = med;
            printf("%-24s grid %5d  %8.2f µs [%8.2f, %8.2f]  %6.3f x CUB  %s%s\n", V[v].name.c_str(), grid[v], med,
                   m.front(), m[m.size() * 9 / 10], cub_med > 0 ? cub_med / med : 0.0,
                   bad[v] ? "WRONG " : "", V[v].checks && distinct[v] > 1 ? "BITS MOVED" : "");
        }
        fflush(stdout);
    }
    return 0;
}
