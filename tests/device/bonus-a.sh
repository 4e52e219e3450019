#!/usr/bin/env bash
# tests/device/bonus-a.sh — labs 11 (argmax) and 12 (compaction) on a GPU
# machine, after `make build` (or `make`), from the workbook root:
#  1. each stub fails its check;
#  2. each solution passes (sanitizers included), every case timed, and
#     meets its target;
#  3. every bank kernel of the two labs gets the verdict its first line
#     names (as tests/bank.sh judges it, target=met|missed included);
#  4. the figures the lessons quote: CUB's times, the solutions', lab 11
#     with a native 64-bit atomicMax instead of the CAS loop, lab 12 with
#     one atomic per survivor, per warp and ballot, per warp and 512
#     elements; ncu's atomic counts for lab 12; the SASS of the
#     one-atomic-per-survivor kernel (whether the compiler aggregated it);
#  5. a table of every {{H100: ...}} placeholder of the two lessons, and
#     the catalog figures (target.solution, and min = 0.8 of it).
# Full JSON of every check under $OUT/bonus-a (default /tmp/cudatutor-bonus-a).
# About 2-3 minutes of GPU time on an H100.
set -u
export CUDATUTOR_NO_CALIBRATE=1
OUT=${OUT:-/tmp/cudatutor-bonus-a}
R="$OUT/bonus-a"
mkdir -p "$R/src"
T=./cudatutor
fails=0
pass() { echo "ok   - $1"; }
bad() { echo "FAIL - $1"; fails=$((fails + 1)); }
j() { jq -r "$1" "$2" 2>/dev/null; }
us() { awk -v m="$1" 'BEGIN { if (m == "" || m == "null") print "?"; else if (m < 1) printf "%.0f µs", m * 1000; else printf "%.3f ms", m }'; }
# perf FILE LABEL FIELD: one figure of a timed case.
perf() { j ".perf[] | select(.label == \"$2\") | $3" "$1"; }

nvidia-smi -L 2>/dev/null | head -2
[ -x "$T" ] && [ -x build/harness/judge_argmax ] && [ -x build/harness/judge_select ] ||
    { echo "build first: make build"; exit 2; }

echo "== 1. stubs fail"
for lab in 11 12; do
    stub=$(ls data/stubs/$lab-*.cu)
    $T check $lab --file "$stub" --no-sanitize --quick --json > "$R/stub-$lab.json"
    st=$(j .status "$R/stub-$lab.json")
    if [ "$st" = fail ]; then pass "stub $lab fails: $(j .summary "$R/stub-$lab.json" | cut -c1-140)"
    else bad "stub $lab should fail, got $st: $(j .summary "$R/stub-$lab.json")"; fi
done

echo "== 2. solutions pass, every case timed, with the sanitizers"
for lab in 11 12; do
    sol=$(ls solutions/$lab-*/kernel.cu)
    $T check $lab --file "$sol" --json > "$R/sol-$lab.json"
    st=$(j .status "$R/sol-$lab.json") met=$(j .target.met "$R/sol-$lab.json")
    echo "   $(j .summary "$R/sol-$lab.json")"
    [ "$st" = pass ] && pass "solution $lab passes" || bad "solution $lab: $st"
    [ "$met" = true ] && pass "solution $lab meets its (provisional) target" ||
        bad "solution $lab misses its target: $(j .target.value "$R/sol-$lab.json") < $(j .target.min "$R/sol-$lab.json")"
    j '.sanitizer.tools[]? | "   \(.tool): clean=\(.clean)"' "$R/sol-$lab.json"
done

echo "== 3. the bank (tests/bank/argmax_*, select_*)"
for f in tests/bank/argmax_*.cu tests/bank/select_*.cu; do
    name=$(basename "$f" .cu)
    meta=$(head -n1 "$f")
    lab=$(sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p' <<<"$meta")
    want=$(sed -n 's/.*expect=\([a-z_]*\).*/\1/p' <<<"$meta")
    want_target=$(sed -n 's/.*target=\(met\|missed\).*/\1/p' <<<"$meta")
    opts="--no-sanitize --quick"
    grep -q 'racecheck\|sanitizer' <<<"$(sed -n 2p "$f")" && opts="--quick"
    # shellcheck disable=SC2086
    $T check "$lab" --file "$f" $opts --timeout-scale 0.25 --json > "$R/bank-$name.json"
    got=$(j .status "$R/bank-$name.json")
    if [ -n "$want_target" ]; then
        want="$want+$want_target"
        got="$got+$(j 'if .target.met then "met" else "missed" end' "$R/bank-$name.json")"
    fi
    if [ "$got" = "$want" ]; then pass "bank $name: $got"
    else bad "bank $name: want $want, got $got: $(j .summary "$R/bank-$name.json" | cut -c1-200)"; fi
    echo "     $(j .summary "$R/bank-$name.json" | cut -c1-200)"
done

echo "== 4. variants for the lessons (every case timed, no sanitizer)"
# Lab 11 with the hardware's own 64-bit atomicMax in place of the loop.
python3 - "$(ls solutions/11-*/kernel.cu)" "$R/src/l11-atomicmax.cu" <<'EOF'
import sys
s = open(sys.argv[1]).read()
a = s.index("static __device__ void atomic_max_key(")
b = s.index("/* Keeps (v, i) when it beats")
s = s[:a] + """static __device__ void atomic_max_key(unsigned long long *out, unsigned long long key)
{
    atomicMax(out, key);
}

""" + s[b:]
open(sys.argv[2], "w").write(s)
EOF
# Lab 12, one atomic per warp and ballot (32 elements per reservation).
cat > "$R/src/l12-warp32.cu" <<'EOF'
#include "lab.h"
#define BLOCK 256
#define FULL_MASK 0xffffffffu
__global__ void select_warp32(const int *in, unsigned n, int *out, unsigned *count)
{
    unsigned lane = threadIdx.x % 32, stride = gridDim.x * BLOCK;
    unsigned end = (n + 31) / 32 * 32;
    for (unsigned i = blockIdx.x * BLOCK + threadIdx.x; i < end; i += stride) {
        int x = i < n ? in[i] : 0;
        bool keep = i < n && lab_keep(x);
        unsigned ballot = __ballot_sync(FULL_MASK, keep), start = 0;
        if (lane == 0 && ballot)
            start = atomicAdd(count, __popc(ballot));
        start = __shfl_sync(FULL_MASK, start, 0);
        if (keep)
            out[start + __popc(ballot & ((1u << lane) - 1))] = x;
    }
}
extern "C" void lab_select(const int *d_in, unsigned n, int *d_out, unsigned *d_count, void *d_scratch,
                           cudaStream_t s)
{
    (void)d_scratch;
    int dev = 0, sms = 132;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    unsigned blocks = (n + BLOCK - 1) / BLOCK, most = (unsigned)sms * 8;
    if (blocks > most)
        blocks = most;
    cudaMemsetAsync(d_count, 0, sizeof *d_count, s);
    select_warp32<<<blocks, BLOCK, 0, s>>>(d_in, n, d_out, d_count);
}
EOF
# Lab 12, one atomic per warp and 512 elements (the solution without the
# block step).
cat > "$R/src/l12-warp512.cu" <<'EOF'
#include "lab.h"
#define BLOCK 256
#define VECS 4
#define CHUNK (32 * VECS * 4)
#define FULL_MASK 0xffffffffu
__global__ void select_warp512(const int *in, unsigned n, int vec, int *out, unsigned *count)
{
    unsigned lane = threadIdx.x % 32, below = (1u << lane) - 1;
    unsigned long long warp = (blockIdx.x * (unsigned long long)BLOCK + threadIdx.x) / 32;
    unsigned long long warps = (unsigned long long)gridDim.x * BLOCK / 32;
    unsigned long long chunks = ((unsigned long long)n + CHUNK - 1) / CHUNK;
    for (unsigned long long chunk = warp; chunk < chunks; chunk += warps) {
        int x[VECS][4];
        bool keep[VECS][4];
        unsigned ballot[VECS][4], total = 0;
        for (int j = 0; j < VECS; j++) {
            unsigned long long e = 4 * (chunk * (CHUNK / 4) + j * 32 + lane);
            if (vec && e + 3 < n) {
                int4 v = ((const int4 *)in)[e / 4];
                x[j][0] = v.x; x[j][1] = v.y; x[j][2] = v.z; x[j][3] = v.w;
                for (int c = 0; c < 4; c++) keep[j][c] = lab_keep(x[j][c]);
            } else {
                for (int c = 0; c < 4; c++) {
                    x[j][c] = e + c < n ? in[e + c] : 0;
                    keep[j][c] = e + c < n && lab_keep(x[j][c]);
                }
            }
        }
        for (int j = 0; j < VECS; j++)
            for (int c = 0; c < 4; c++) {
                ballot[j][c] = __ballot_sync(FULL_MASK, keep[j][c]);
                total += __popc(ballot[j][c]);
            }
        unsigned start = 0;
        if (lane == 0 && total)
            start = atomicAdd(count, total);
        start = __shfl_sync(FULL_MASK, start, 0);
        for (int j = 0; j < VECS; j++)
            for (int c = 0; c < 4; c++) {
                if (keep[j][c])
                    out[start + __popc(ballot[j][c] & below)] = x[j][c];
                start += __popc(ballot[j][c]);
            }
    }
}
extern "C" void lab_select(const int *d_in, unsigned n, int *d_out, unsigned *d_count, void *d_scratch,
                           cudaStream_t s)
{
    (void)d_scratch;
    int dev = 0, sms = 132, per_sm = 4;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, select_warp512, BLOCK, 0);
    unsigned long long chunks = ((unsigned long long)n + CHUNK - 1) / CHUNK;
    unsigned long long want = (chunks + BLOCK / 32 - 1) / (BLOCK / 32);
    unsigned blocks = (unsigned)sms * (unsigned)(per_sm > 0 ? per_sm : 4);
    if (want < blocks)
        blocks = (unsigned)want;
    if (blocks == 0)
        blocks = 1;
    cudaMemsetAsync(d_count, 0, sizeof *d_count, s);
    select_warp512<<<blocks, BLOCK, 0, s>>>(d_in, n, ((uintptr_t)d_in % 16) == 0, d_out, d_count);
}
EOF
cp tests/bank/select_atomic_per_element.cu "$R/src/l12-naive.cu"
for v in l11-atomicmax l12-naive l12-warp32 l12-warp512; do
    lab=${v:1:2}
    $T check "$lab" --file "$R/src/$v.cu" --no-sanitize --unlock-all --json --work-dir "$R/w-$v" > "$R/var-$v.json"
    printf '   %-14s %-8s 2^22 %s  2^28 %s  %sx CUB at 2^28 (%s GB/s)\n' "$v" "$(j .status "$R/var-$v.json")" \
        "$(us "$(perf "$R/var-$v.json" 2^22 .time.median_ms)")" "$(us "$(perf "$R/var-$v.json" 2^28 .time.median_ms)")" \
        "$(perf "$R/var-$v.json" 2^28 .ratio)" "$(perf "$R/var-$v.json" 2^28 .gbps)"
done

echo "== 4b. atomics counted by ncu (lab 12 at 2^28), and the naive kernel's SASS"
for v in sol naive; do
    f=$([ $v = sol ] && ls solutions/12-*/kernel.cu || echo "$R/src/l12-naive.cu")
    $T check 12 --file "$f" --no-sanitize --quick --counters --json --work-dir "$R/w-c-$v" > "$R/counters-$v.json"
    echo "   $v: $(j '.counters.metrics // {} | to_entries | map("\(.key)=\(.value)") | join("  ")' "$R/counters-$v.json") $(j '.counters.note // ""' "$R/counters-$v.json")"
done
if command -v ncu >/dev/null; then
    ncu --query-metrics 2>/dev/null | grep -iE 'op_global_atom|op_atom' | head -8 | sed 's/^/   ncu has: /'
fi
cuobj=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null)
obj=$(ls "$R"/w-c-naive/kernel.o 2>/dev/null || ls "$R"/w-l12-naive/kernel.o 2>/dev/null)
if [ -n "$cuobj" ] && [ -n "$obj" ]; then
    "$cuobj" -sass "$obj" > "$R/naive.sass" 2>&1
    echo "   the naive kernel's SASS: $(grep -cE 'ATOMG|RED\.' "$R/naive.sass") global atomics," \
         "$(grep -cE 'VOTE|REDUX|POPC|MATCH' "$R/naive.sass") vote/popc/redux/match instructions" \
         "(more than its own ballot and popc: the compiler aggregated the atomic per warp)"
    grep -E 'ATOMG|RED\.|VOTE|POPC|REDUX|MATCH' "$R/naive.sass" | sed 's/^/     /' | head -12
fi

echo "== 5. placeholders of the lessons"
s11="$R/sol-11.json" s12="$R/sol-12.json"
cat <<EOF | tee "$R/placeholders.txt"
l11-cub-22              $(us "$(j '.perf[] | select(.label == "2^22") | .reference.time.median_ms' "$s11")")
l11-cub-28              $(us "$(j '.perf[] | select(.label == "2^28") | .reference.time.median_ms' "$s11")")
l11-cub-gbps-28         $(j '.perf[] | select(.label == "2^28") | (.bytes / .reference.time.median_ms / 1e6 | floor)' "$s11")
l11-sol-22              $(us "$(perf "$s11" 2^22 .time.median_ms)")
l11-sol-28              $(us "$(perf "$s11" 2^28 .time.median_ms)")
l11-sol-ratio-28        $(perf "$s11" 2^28 .ratio)
l11-atomicmax-ratio-28  $(perf "$R/var-l11-atomicmax.json" 2^28 .ratio)
l11-target              0.8 x l11-sol-ratio-28, 2 digits (catalog: target.min; target.solution = l11-sol-ratio-28)
l12-cub-22              $(us "$(j '.perf[] | select(.label == "2^22") | .reference.time.median_ms' "$s12")")
l12-cub-28              $(us "$(j '.perf[] | select(.label == "2^28") | .reference.time.median_ms' "$s12")")
l12-sol-22              $(us "$(perf "$s12" 2^22 .time.median_ms)")
l12-sol-28              $(us "$(perf "$s12" 2^28 .time.median_ms)")
l12-sol-ratio-28        $(perf "$s12" 2^28 .ratio)
l12-naive-22            $(us "$(perf "$R/var-l12-naive.json" 2^22 .time.median_ms)")
l12-naive-28            $(us "$(perf "$R/var-l12-naive.json" 2^28 .time.median_ms)")
l12-naive-ratio-28      $(perf "$R/var-l12-naive.json" 2^28 .ratio)
l12-warp32-ratio-28     $(perf "$R/var-l12-warp32.json" 2^28 .ratio)
l12-warp512-ratio-28    $(perf "$R/var-l12-warp512.json" 2^28 .ratio)
l12-sol-atom            $(j '.counters.metrics["smsp__sass_inst_executed_op_global_atom.sum"] // "?"' "$R/counters-sol.json")
l12-naive-atom          $(j '.counters.metrics["smsp__sass_inst_executed_op_global_atom.sum"] // "?"' "$R/counters-naive.json")
l12-target              0.8 x l12-sol-ratio-28, 2 digits (catalog: target.min; target.solution = l12-sol-ratio-28)
EOF
echo "== $fails failure(s); JSON under $R"
exit $((fails > 0))
