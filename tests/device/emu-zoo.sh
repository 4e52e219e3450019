#!/usr/bin/env bash
# tests/device/emu-zoo.sh — the zoo (tests/emu/zoo/zoo.cu) on the GPU and on
# the emulator, the same PTX text and the same words on both, slot by slot:
# tests/emu/zoo/zoo_run.c built against the CUDA driver and against the
# emulator.  Writes OUT/emu-zoo/h100.txt (the GPU's lines for the seed CI
# uses: copy it to tests/emu/zoo/h100.txt so CI holds the emulator to it)
# and OUT/emu-zoo/compare.txt (each difference with its thread's inputs,
# and "zoo: N slots, N equal, N differ, N not emulated" per seed, the
# summary lines printed too).
# Usage (workbook root, GPU machine, after `. .gpu/env.sh`):
#     bash tests/device/emu-zoo.sh OUT [SEED...]    (default seeds: CI's, 1, 2, 3)
set -u
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: $0 OUT [SEED...]" >&2; exit 2; }
D=$1/emu-zoo
W=${TMPDIR:-/tmp}/emu-zoo-work
shift
seeds=("${@:-20261126}")
[ $# -gt 0 ] || seeds=(20261126 1 2 3)
mkdir -p "$D" "$W"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
make -s build/emu/libemu.a build/tests/zoo_run > "$W/build.log" 2>&1 || { tail -20 "$W/build.log"; exit 1; }
"$NVCC" -ptx -arch=sm_90 -lineinfo -O3 -o "$W/zoo.ptx" tests/emu/zoo/zoo.cu &&
    gcc -std=c11 -O2 -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=700 -DZOO_GPU -I"$(dirname "$NVCC")/../include" -Itutor -o "$W/zoo_gpu" tests/emu/zoo/zoo_run.c tutor/sys/util.c -lcuda -lm \
    > "$W/nvcc.log" 2>&1 || { echo "emu-zoo: does not build:"; tail -20 "$W/nvcc.log"; exit 1; }
status=0
# Every thread's words on both sides, so each difference is shown with
# its thread's inputs; the file CI keeps is the GPU's usual lines.
for s in "${seeds[@]}"; do
    ZOO_FULL=1 timeout 120 "$W/zoo_gpu" "$W/zoo.ptx" "$s" > "$W/gpu-$s.txt" 2>&1 || status=1
    ZOO_FULL=1 build/tests/zoo_run "$W/zoo.ptx" "$s" > "$W/emu-$s.txt" 2>&1 || status=1
    echo "seed $s:"
    build/tests/zoo_run --compare "$W/gpu-$s.txt" "$W/emu-$s.txt" || status=1
done > "$D/compare.txt"
timeout 120 "$W/zoo_gpu" "$W/zoo.ptx" "${seeds[0]}" > "$D/h100.txt" || status=1
cp "$W/gpu-${seeds[0]}.txt" "$D/h100-full.txt"
grep -E '^(seed|zoo:)' "$D/compare.txt"
exit $status
