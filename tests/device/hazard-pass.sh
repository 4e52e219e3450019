#!/usr/bin/env bash
# tests/device/hazard-pass.sh — issue 23's two bounds, on a GPU machine,
# after `make build`, from the workbook root:
#  1. every solution's check on the GPU: its verdict and hazard_pass_s, the
#     time the CPU judge's second run (the trial sizes up to 4097) added;
#     the bound is 0.3 s;
#  2. every solution's check on the CPU judge (CUDA_VISIBLE_DEVICES= hides
#     the GPU, as on a machine without one): its verdict, harness_s and the
#     judge's emulated instructions (0: the judge's own kernels ran
#     natively); the bound is 3 s.
# One line per lab and check, then the count of bounds missed.
# Usage: OUT=/dir bash tests/device/hazard-pass.sh  (about 3 minutes, half of it GPU time)
set -u
export CUDATUTOR_NO_CALIBRATE=1
unset CUDATUTOR_NO_EMULATOR
OUT=${OUT:-/tmp/cudatutor-hazard-pass}
mkdir -p "$OUT"
T=./cudatutor
missed=0

for dir in solutions/[0-9][0-9]-*/; do
    id=$(basename "$dir" | cut -c1-2)
    "$T" check "$id" --file "$dir/kernel.cu" --no-sanitize --json > "$OUT/gpu-$id.json" 2> /dev/null
    st=$(jq -r .status "$OUT/gpu-$id.json")
    hz=$(jq -r '.hazard_pass_s // "none"' "$OUT/gpu-$id.json")
    ok=ok
    if [ "$st" != pass ] || [ "$hz" = none ] || ! awk -v s="$hz" 'BEGIN { exit !(s <= 0.3) }'; then
        ok=MISSED
        missed=$((missed + 1))
    fi
    echo "$ok  $id gpu: $st, hazard_pass_s $hz"
    CUDA_VISIBLE_DEVICES='' "$T" check "$id" --file "$dir/kernel.cu" --json > "$OUT/cpu-$id.json" 2> /dev/null
    st=$(jq -r .status "$OUT/cpu-$id.json")
    hs=$(jq -r '.harness_s // "none"' "$OUT/cpu-$id.json")
    ok=ok
    if [ "$st" != pass ] || [ "$hs" = none ] || ! awk -v s="$hs" 'BEGIN { exit !(s <= 3) }'; then
        ok=MISSED
        missed=$((missed + 1))
    fi
    echo "$ok  $id cpu: $st, harness_s $hs, $(jq -r '.emulator.student_instructions // 0' "$OUT/cpu-$id.json")" \
         "student and $(jq -r '.emulator.judge_instructions // 0' "$OUT/cpu-$id.json") judge thread-instructions"
done
echo "$missed bound(s) missed"
[ "$missed" = 0 ]
