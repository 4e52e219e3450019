#!/usr/bin/env bash
# tests/device/gpuvia.sh — a check through --gpu-via against a direct one,
# on a GPU machine.  The command is `env`, which runs its arguments here:
# the relay, the frames, the race checkers beside the judge and the CPU
# tier are all exercised, and the GPU is the same, so the verdict and the
# race checkers' findings must be the same and the target's ratio (lab 07's
# solution against CUB at 2^28) within 2% of the direct check's.
# Three of each, interleaved; the medians are compared.  Then lab 07's stub
# and tests/bank/prints_protocol.cu (a kernel and launcher that print the
# judge's progress lines) each get the same verdict both ways.
# Prints every figure and one PASS or FAIL line; exit 0 on PASS.
# Usage (from the workbook root, after make):  OUT=/dir bash tests/device/gpuvia.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cudatutor-gpuvia}
mkdir -p "$OUT"
export CUDATUTOR_PROGRESS="$OUT/progress.json" CUDATUTOR_NO_CALIBRATE=1
unset CUDATUTOR_GPU_VIA CUDATUTOR_NO_EMULATOR
rm -f "$OUT/gpu-via.json"
fail=0

echo "GPU: $(nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader 2>&1 | head -n1)"
sol=$(ls solutions/07-*/kernel.cu)
# one NAME ARGS...: a check of lab 07's solution, its JSON in OUT/NAME.json.
one() {
    local name=$1; shift
    local t0=$(date +%s.%N)
    ./cudatutor check 07 --file "$sol" --json "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
    printf '%-8s exit %s  %-5s ratio %-8s sanitizers clean %s  device %s  gpu_via.ran %s  queued %s s  %.1f s wall\n' "$name" $? \
        "$(jq -r .status "$OUT/$name.json")" "$(jq -r .target.value "$OUT/$name.json")" \
        "$(jq -r '[.sanitizer.tools[]? | select(.clean)] | length' "$OUT/$name.json")" \
        "$(jq -r .device.name "$OUT/$name.json")" "$(jq -r 'if has("gpu_via") then .gpu_via.ran else "-" end' "$OUT/$name.json")" \
        "$(jq -r '.gpu_via.queued_s // "-"' "$OUT/$name.json")" \
        "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
}
for i in 1 2 3; do
    one direct$i
    one via$i --gpu-via env
done
echo "gpu-via.json: $(jq -c . "$OUT/gpu-via.json" 2>&1)"
median() { for i in 1 2 3; do jq -r .target.value "$OUT/$1$i.json"; done | sort -g | sed -n 2p; }
d=$(median direct) v=$(median via)
echo "median ratio: direct $d, through --gpu-via env $v"
for i in 1 2 3; do
    a=$(jq -r .status "$OUT/direct$i.json") b=$(jq -r .status "$OUT/via$i.json")
    [ "$a" = pass ] && [ "$b" = pass ] || { echo "FAIL: run $i: direct $a, via $b (both must pass)"; fail=1; }
    [ "$(jq -r .gpu_via.ran "$OUT/via$i.json")" = true ] || { echo "FAIL: via$i did not run on the GPU: $(jq -c .messages "$OUT/via$i.json")"; fail=1; }
    a=$(jq -c '[.sanitizer.tools[]? | {tool, clean}]' "$OUT/direct$i.json") b=$(jq -c '[.sanitizer.tools[]? | {tool, clean}]' "$OUT/via$i.json")
    [ "$a" = "$b" ] || { echo "FAIL: run $i: the race checkers differ: direct $a, via $b"; fail=1; }
done
awk -v d="$d" -v v="$v" 'BEGIN { r = (v - d) / d; printf "ratio differs by %+.2f%%\n", 100 * r; exit !(r < 0.02 && r > -0.02) }' ||
    { echo "FAIL: the ratios differ by 2% or more"; fail=1; }

# The same verdict both ways for a failing stub and a kernel that prints protocol.
for f in data/stubs/07-*.cu tests/bank/prints_protocol.cu; do
    lab=$(sed -n 's/.*lab=\([0-9]*\).*/\1/p;q' "$f"); lab=${lab:-07}
    a=$(./cudatutor check "$lab" --file "$f" --unlock-all --json 2>/dev/null | jq -r .status)
    b=$(./cudatutor check "$lab" --file "$f" --unlock-all --json --gpu-via env 2>/dev/null | jq -r .status)
    echo "$f (lab $lab): direct $a, through --gpu-via env $b"
    [ "$a" = "$b" ] || { echo "FAIL: $f judged differently"; fail=1; }
done
[ $fail = 0 ] && echo PASS || echo FAIL
exit $fail
