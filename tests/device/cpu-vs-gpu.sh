#!/usr/bin/env bash
# tests/device/cpu-vs-gpu.sh — the CPU tier against the GPU, on a GPU
# machine, after `make build` (or `make`), from the workbook root: every
# pristine stub, every solution and every bank kernel checked twice, on the
# GPU and on the CPU judges (CUDA_VISIBLE_DEVICES= hides the GPU from the
# judge, so the check takes the path of a machine without one), and one
# line each with both verdicts and whether they agree as the first line of
# the file says (a bank kernel's cpu=, else the same verdict; a stub fails
# and a solution passes on both).  DESIGN §11: every stub, solution and bank
# kernel gets the same verdict on both, timing aside.
#   tests/device/cpu-vs-gpu.sh            everything (about 10 minutes of GPU time)
#   tests/device/cpu-vs-gpu.sh 'scan_*'   bank kernels matching a glob only, no labs
# Full JSON of every check under $OUT (default /tmp/cudatutor-cpu-vs-gpu).
set -u
export CUDATUTOR_NO_CALIBRATE=1
unset CUDATUTOR_NO_EMULATOR
OUT=${OUT:-/tmp/cudatutor-cpu-vs-gpu}
mkdir -p "$OUT"
T=./cudatutor
agree=0 differ=0
glob=${1:-}

# one NAME LAB FILE WANT_GPU WANT_CPU: both checks, one line.
one() {
    local name=$1 lab=$2 file=$3 want_gpu=$4 want_cpu=$5 g c
    "$T" check "$lab" --file "$file" --no-sanitize --quick --timeout-scale 0.5 --json > "$OUT/gpu-$name.json" 2> /dev/null
    CUDA_VISIBLE_DEVICES= "$T" check "$lab" --file "$file" --no-sanitize --quick --json \
        > "$OUT/cpu-$name.json" 2> /dev/null
    g=$(jq -r .status "$OUT/gpu-$name.json")
    c=$(jq -r .status "$OUT/cpu-$name.json")
    if [ "$g" = "$want_gpu" ] && [ "$c" = "$want_cpu" ]; then
        agree=$((agree + 1))
        printf 'ok   - %-32s gpu %-14s cpu %s\n' "$name" "$g" "$c"
    else
        differ=$((differ + 1))
        printf 'FAIL - %-32s gpu %-14s cpu %-14s (want %s, %s): %s\n' "$name" "$g" "$c" "$want_gpu" "$want_cpu" \
            "$(jq -r .summary "$OUT/cpu-$name.json")"
    fi
}

if [ -z "$glob" ]; then
    for id in $(jq -r '.labs[].id' data/labs.json); do
        slug=$(jq -r --arg id "$id" '.labs[] | select(.id == $id) | .slug' data/labs.json)
        one "stub-$id" "$id" "data/stubs/$id-$slug.cu" fail fail
        one "solution-$id" "$id" "solutions/$id-$slug/kernel.cu" pass pass
    done
fi
for f in tests/bank/${glob:-*}.cu; do
    meta=$(head -n1 "$f")
    lab=$(sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p' <<<"$meta")
    want=$(sed -n 's/.*expect=\([a-z_]*\).*/\1/p' <<<"$meta")
    cpu=$(sed -n 's/.*cpu=\([a-z_]*\).*/\1/p' <<<"$meta")
    [ -n "$lab" ] && [ -n "$want" ] || continue
    one "bank-$(basename "$f" .cu)" "$lab" "$f" "$want" "${cpu:-$want}"
done
echo "# $agree as expected, $differ not (JSON in $OUT)"
[ "$differ" = 0 ]
