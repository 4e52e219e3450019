#!/usr/bin/env bash
# tests/device/lab15-bench.sh — lab 15's kernel shapes on a GPU machine,
# after `make build`:
#  1. tests/device/lab15-bench.cu, every shape against CUB and lab 08 with
#     the judge's L2 flush (a memset), then at 2^22 with a flush that leaves
#     the L2 clean; the SASS of its kernels (loads, registers) under $OUT;
#  2. the judge on candidate kernels (CANDIDATES, files), each checked
#     twice, round after round, CUB beside each: microseconds and ratios.
# Usage: OUT=/dir [BENCH=prebuilt-binary] [CANDIDATES="a.cu b.cu"] bash tests/device/lab15-bench.sh
#        SKIP_BENCH=1 ... (section 2 alone)
set -u
export CUDATUTOR_NO_CALIBRATE=1
OUT=${OUT:-/tmp/cudatutor-lab15-bench}
L=$OUT/lab15-bench
mkdir -p "$L"
T=./cudatutor
j() { jq -r "$1" "$2" 2>/dev/null; }
at() { jq -r --arg l "$2" "(.perf // [])[] | select(.label == \$l) | $3" "$1" 2>/dev/null; }
us() { awk -v m="$1" 'BEGIN { if (m == "") print "?"; else printf "%.1f", m * 1000 }'; }
nvidia-smi -L 2>/dev/null | head -n1

bench() {
    local BENCH=${BENCH:-}
    if [ -z "$BENCH" ]; then
        BENCH=build/lab15-bench
        nvcc -arch=sm_90 -O3 -std=c++17 -o "$BENCH" tests/device/lab15-bench.cu || exit 1
    fi
    echo "== 1. shapes (tests/device/lab15-bench.cu)"
    "$BENCH" "${ROUNDS:-301}" > "$L/bench.txt" 2>&1
    CLEAN_FLUSH=1 "$BENCH" "${ROUNDS:-301}" 4181959 > "$L/bench-clean.txt" 2>&1
    cuobjdump -sass "$BENCH" 2>/dev/null | awk '/Function : /{p = /sum_kernel/} p' > "$L/sass.txt"
    cat "$L/bench.txt"
    echo "-- clean L2 before each sample:"
    grep -v '^#' "$L/bench-clean.txt"
}
[ -n "${SKIP_BENCH:-}" ] || bench

echo "== 2. the judge, each candidate twice"
for k in 1 2; do
    for f in ${CANDIDATES:-}; do
        name=$(basename "$f" .cu)
        $T check 15 --file "$f" --no-sanitize --quick --json > "$L/cand-$name-$k.json"
        printf '%-14s run %s  %-5s 2^22 %6s µs (CUB %6s) %8s x   2^28 %7s µs (CUB %7s) %8s x  %s\n' "$name" "$k" \
            "$(j .status "$L/cand-$name-$k.json")" \
            "$(us "$(at "$L/cand-$name-$k.json" 2^22 .time.median_ms)")" \
            "$(us "$(at "$L/cand-$name-$k.json" 2^22 .reference.time.median_ms)")" \
            "$(at "$L/cand-$name-$k.json" 2^22 .ratio)" \
            "$(us "$(at "$L/cand-$name-$k.json" 2^28 .time.median_ms)")" \
            "$(us "$(at "$L/cand-$name-$k.json" 2^28 .reference.time.median_ms)")" \
            "$(at "$L/cand-$name-$k.json" 2^28 .ratio)" \
            "$(j '[.messages[] | select(startswith("technique"))] | join("")' "$L/cand-$name-$k.json" | cut -c1-80)"
    done
done
