#!/usr/bin/env bash
# tests/device/placement.sh — tests/device/placement.cu in RUNS processes
# (default 3): within each, how far CUB's median at N floats moves between
# places of its input, of its temporary storage and of the L2 flush's
# buffer; across them, how far the median at the first places moves.
# Placement explains labs 15 and 16's spread if the first is as large as
# the second.
# Usage (GPU machine): OUT=/dir bash tests/device/placement.sh [N [SAMPLES [PLACES [RUNS]]]]
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cudatutor-placement}
mkdir -p "$OUT"
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "placement: no GPU here (nvidia-smi lists none): nothing measured"
    exit 0
fi
nvcc -arch=sm_90 -O3 -std=c++17 -o "$OUT/placement" tests/device/placement.cu || exit 1
for r in $(seq 1 "${4:-3}"); do
    "$OUT/placement" "${1:-4194304}" "${2:-301}" "${3:-8}" > "$OUT/run-$r.txt" || exit 1
    echo "process $r: $(grep -h ' spread ' "$OUT/run-$r.txt" | tr '\n' ' ')"
done
grep -h '^input 0 ' "$OUT"/run-*.txt | sed 's/.*median \([0-9.]*\) us/\1/' | sort -n |
    awk '{ m[NR] = $1 } END { printf "across processes, the first places: %.3f-%.3f us, spread %.2f%%\n",
                              m[1], m[NR], 100 * (m[NR] - m[1]) / m[1] }'
