#!/usr/bin/env bash
# tests/device/session.sh — one batched session on a GPU machine: build,
# the whole test suite (GPU tests included), the check verdicts of every
# solution and bad kernel kept as JSON, and a short table printed last.
# Usage (from the workbook root, on the GPU machine):
#     OUT=/some/dir bash tests/device/session.sh [SECONDS]
set -u
OUT=${OUT:-/tmp/cudatutor-session}
budget=${1:-500}
mkdir -p "$OUT/res"
t0=$(date +%s)
nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
for t in nvcc compute-sanitizer ncu nm jq tmux; do printf '%s: %s\n' "$t" "$(command -v $t || echo missing)"; done \
    | tee -a "$OUT/gpu.txt"

# deps first, then one make for everything (the test binaries share the
# tutor's objects: two makes at once would build them twice).
if ! { make deps && make -j16 test-build; } > "$OUT/build.log" 2>&1; then
    tail -40 "$OUT/build.log"
    exit 1
fi
echo "build: $(( $(date +%s) - t0 )) s"

left=$(( budget - ($(date +%s) - t0) ))
GPU_RESULTS="$OUT/res" timeout "$left" bash tests/run.sh > "$OUT/tests.log" 2>&1
echo "tests: exit $? after $(( $(date +%s) - t0 )) s"
grep -E '^(not ok|  \[.*\] not ok|failing)' "$OUT/tests.log" | head -40
grep -E '^# (bank|[0-9][0-9] )' build/tests/log | sed 's/^# //' > "$OUT/summary.txt"
tail -n 12 "$OUT/tests.log" | grep -E 'passed|failed' | tail -n 8 >> "$OUT/summary.txt"
cp build/tests/log "$OUT/tests-full.log"
tar czf "$OUT/res.tgz" -C "$OUT" res && rm -rf "$OUT/res"

if [ "${LADDER:-1}" = 1 ]; then
    ./cudatutor ladder --out "$OUT/ladder.md" > "$OUT/ladder.log" 2>&1
    echo "ladder: exit $? after $(( $(date +%s) - t0 )) s"
    rm -f "$OUT/ladder.log"
fi

printf '\n%-4s %-6s %s\n' lab status "solution at the target case"
for f in $(tar tzf "$OUT/res.tgz" | grep solution-); do
    tar xzf "$OUT/res.tgz" -O "$f" | jq -r '[.lab, .status, .summary] | @tsv'
done
cat "$OUT/summary.txt" | tail -n 10
