#!/usr/bin/env bash
# tests/device/ctx-scale.sh — how many CUDA processes a second the machine
# starts and ends, alone and under compute-sanitizer, at C at once: a
# grader's check is four such processes, so this bounds its throughput.
# Usage: OUT=DIR bash tests/device/ctx-scale.sh [M]   (M processes a row)
set -u
OUT=${OUT:-/tmp/ctx-scale}
M=${1:-24}
mkdir -p "$OUT"
nvcc -O2 -arch=sm_90 -o "$OUT/ctx-probe" tests/device/ctx-scale.cu || exit 1
row() {   # row LABEL C CMD...
    local label=$1 c=$2; shift 2
    local t0 ms
    t0=$(date +%s%N)
    seq "$M" | xargs -P "$c" -I{} "$@" > /dev/null 2>&1
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    printf '%-12s %3d %6d ms %7d /s\n' "$label" "$c" "$ms" $(( M * 1000 / (ms > 0 ? ms : 1) ))
}
{
printf '%-12s %3s %8s %9s\n' what at-once wall procs
P=$OUT/ctx-probe
for c in 1 8; do
    row init "$c" "$P" init
    row ctx "$c" "$P" ctx
    row full "$c" "$P" full
    row conn1-ctx "$c" env CUDA_DEVICE_MAX_CONNECTIONS=1 "$P" ctx
    row conn1 "$c" env CUDA_DEVICE_MAX_CONNECTIONS=1 "$P" full
done
for c in 16; do
    row conn1 "$c" env CUDA_DEVICE_MAX_CONNECTIONS=1 "$P" full
done
# with one context held open all along by another process
"$P" hold 60 &
hold=$!
sleep 1
row full-held 1 "$P" full
row conn1-held 8 env CUDA_DEVICE_MAX_CONNECTIONS=1 "$P" full
kill $hold 2>/dev/null
for t in memcheck racecheck synccheck; do
    row "$t-c1" 8 env CUDA_DEVICE_MAX_CONNECTIONS=1 compute-sanitizer --tool "$t" --target-processes application-only "$P" full
done
command -v nvidia-cuda-mps-control && echo "mps: present" || echo "mps: absent"
nproc
} 2>&1 | tee "$OUT/ctx-scale.txt"
