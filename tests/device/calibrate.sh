#!/usr/bin/env bash
# tests/device/calibrate.sh — the tutor's calibration of the targets on a GPU
# machine (tutor/check/calibrate.c): `cudatutor calibrate` from scratch, timed,
# with its line per lab; then a check of lab 01's solution, which must
# reuse that calibration (no solution runs: about as fast as a check), and
# its target as judged with and without it.  On the GPU model the catalog
# was measured on (data/labs.json, targets_gpu: an H100 80GB HBM3) every
# solution should measure within 5% of its figure: "no threshold lowered".
# Usage (from the workbook root, after make):  OUT=/dir bash tests/device/calibrate.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cudatutor-calibrate}
mkdir -p "$OUT"
# A folder of its own: calibration.json lands beside this progress.json.
export CUDATUTOR_PROGRESS="$OUT/progress.json"
unset CUDATUTOR_NO_CALIBRATE
rm -f "$OUT"/calibration.json*
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

echo "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>&1 | head -n1)"
t=$(now)
./cudatutor calibrate > "$OUT/calibrate.txt" 2>&1
rc=$?
echo "calibrate: exit $rc in $(since "$t") s wall"
cat "$OUT/calibrate.txt"
./cudatutor calibrate --json > "$OUT/calibrate.json" 2> "$OUT/calibrate-json.err"
jq -r '"cached: \(.cached_before); measured \(.measured), \(.runs) runs in \(.seconds | floor) s"' "$OUT/calibrate.json"

sol=$(ls solutions/01-*/kernel.cu)
t=$(now)
./cudatutor check 01 --file "$sol" > "$OUT/check01.txt" 2> "$OUT/check01.err"
echo "check 01 (its solution, in full): exit $? in $(since "$t") s wall; on stderr:"
sed 's/^/    /' "$OUT/check01.err"
grep -A1 '^  target ' "$OUT/check01.txt"
for extra in "" --no-calibrate; do
    ./cudatutor check 01 --file "$sol" --no-sanitize --quick --json $extra > "$OUT/check01$extra.json" 2>/dev/null
    echo "check 01 --quick ${extra:-(calibrated)}: $(jq -c .target "$OUT/check01$extra.json")"
done
