#!/usr/bin/env bash
# tests/device/lab16.sh — lab 16 (grid sync) on a GPU machine, after
# `make all`; about a minute of GPU time:
#  1. the stub fails, the solution passes (sanitizers on), a grid barrier
#     placed before the partials' store fails, and a cooperative grid four
#     times what the GPU holds is a runtime error naming
#     cudaErrorCooperativeLaunchTooLarge (tests/bank/grid_sync_*.cu);
#  2. the solution's figures against CUB at 2^22, 2^26 and 2^28 in RUNS
#     checks without the race checkers (default 3), lab 15's solution
#     beside it, and the medians: the catalog's `solution` figures, and 80%
#     of them its `min`.
# Usage: OUT=/dir bash tests/device/lab16.sh   (each check's JSON under $OUT)
set -u
export CUDATUTOR_NO_CALIBRATE=1
OUT=${OUT:-/tmp/cudatutor-lab16}
RUNS=${RUNS:-3}
mkdir -p "$OUT"
T=./cudatutor
j() { jq -r "$1" "$2" 2>/dev/null; }
# ratio FILE LABEL: the ratio to CUB of the perf entry of case LABEL.
ratio() { jq -r --arg l "$2" '(.perf // [])[] | select(.label == $l) | .ratio' "$1" 2>/dev/null; }
us() { jq -r --arg l "$2" '(.perf // [])[] | select(.label == $l) | "\(.time.median_ms * 1000 | . * 10 | round / 10) us, CUB \(.reference.time.median_ms * 1000 | . * 10 | round / 10) us"' "$1" 2>/dev/null; }
nvidia-smi -L 2>/dev/null | head -n1
echo "== 1. verdicts"
verdict() {     # NAME FILE WANT [options]
    local name=$1 f=$2 want=$3
    shift 3
    $T check 16 --file "$f" --json "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
    local got; got=$(j .status "$OUT/$name.json")
    printf '%-4s %-12s %-15s want %-14s %s\n' "$([ "$got" = "$want" ] && echo ok || echo FAIL)" "$name" "$got" "$want" \
        "$(j .summary "$OUT/$name.json" | cut -c1-150)"
}
verdict stub data/stubs/16-grid-sync.cu fail --no-sanitize
verdict too_large tests/bank/grid_sync_too_large.cu runtime_error --no-sanitize
verdict too_early tests/bank/grid_sync_too_early.cu fail --no-sanitize
verdict solution solutions/16-grid-sync/kernel.cu pass
echo "== 2. the solution against CUB ($RUNS checks), lab 15's beside it"
for k in $(seq 1 "$RUNS"); do
    $T check 16 --file solutions/16-grid-sync/kernel.cu --no-sanitize --json > "$OUT/t16-$k.json" 2>/dev/null
    printf 'lab 16 run %s %-5s 2^22 %6s (%s)  2^26 %6s  2^28 %6s (%s)\n' "$k" "$(j .status "$OUT/t16-$k.json")" \
        "$(ratio "$OUT/t16-$k.json" 2^22)" "$(us "$OUT/t16-$k.json" 2^22)" "$(ratio "$OUT/t16-$k.json" 2^26)" \
        "$(ratio "$OUT/t16-$k.json" 2^28)" "$(us "$OUT/t16-$k.json" 2^28)"
done
$T check 15 --file solutions/15-epilogue/kernel.cu --no-sanitize --json > "$OUT/t15.json" 2>/dev/null
printf 'lab 15 run 1 %-5s 2^22 %6s (%s)  2^26 %6s  2^28 %6s\n' "$(j .status "$OUT/t15.json")" \
    "$(ratio "$OUT/t15.json" 2^22)" "$(us "$OUT/t15.json" 2^22)" "$(ratio "$OUT/t15.json" 2^26)" "$(ratio "$OUT/t15.json" 2^28)"
for c in 2^22 2^28; do
    m=$(for k in $(seq 1 "$RUNS"); do ratio "$OUT/t16-$k.json" "$c"; done | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    echo "median $c: $m  (80%: $(awk -v m="$m" 'BEGIN { printf "%.2f", 0.8 * m }'))"
done
