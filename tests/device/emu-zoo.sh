#!/usr/bin/env bash
# tests/device/emu-zoo.sh — the zoo (tests/emu/zoo/zoo.cu) on the GPU and on
# the emulator, the same PTX text and the same words on both, slot by slot:
# tests/emu/zoo/zoo_run.c built against the CUDA driver and against the
# emulator.  Writes OUT/emu-zoo/h100.txt (the GPU's lines for the seed CI
# uses: copy it to tests/emu/zoo/h100.txt so CI holds the emulator to it)
# and prints each difference and "zoo: N slots, N equal, N differ, N not
# emulated" per seed.
# Usage (workbook root, GPU machine, after `. .gpu/env.sh`):
#     bash tests/device/emu-zoo.sh OUT [SEED...]    (default seeds: CI's, 1, 2, 3)
set -u
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: $0 OUT [SEED...]" >&2; exit 2; }
D=$1/emu-zoo
shift
seeds=("${@:-20261126}")
[ $# -gt 0 ] || seeds=(20261126 1 2 3)
mkdir -p "$D"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
make -s build/emu/libemu.a build/tests/zoo_run > "$D/build.log" 2>&1 || { tail -20 "$D/build.log"; exit 1; }
"$NVCC" -ptx -arch=sm_90 -lineinfo -O3 -o "$D/zoo.ptx" tests/emu/zoo/zoo.cu &&
    gcc -std=c11 -O2 -DZOO_GPU -I"$(dirname "$NVCC")/../include" -o "$D/zoo_gpu" tests/emu/zoo/zoo_run.c -lcuda \
    > "$D/nvcc.log" 2>&1 || { echo "emu-zoo: does not build:"; tail -20 "$D/nvcc.log"; exit 1; }
status=0
for s in "${seeds[@]}"; do
    timeout 120 "$D/zoo_gpu" "$D/zoo.ptx" "$s" > "$D/gpu-$s.txt" 2> "$D/gpu-$s.err" || status=1
    build/tests/zoo_run "$D/zoo.ptx" "$s" > "$D/emu-$s.txt" 2> "$D/emu-$s.err" || status=1
    echo "seed $s:"
    build/tests/zoo_run --compare "$D/gpu-$s.txt" "$D/emu-$s.txt" | tail -60 || status=1
done
cp "$D/gpu-${seeds[0]}.txt" "$D/h100.txt"
exit $status
