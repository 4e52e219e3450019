#!/usr/bin/env bash
# tests/device/hazard-table.sh — the emulator's hazard rules beside
# compute-sanitizer, kernel by kernel over the bank: each kernel checked on
# this GPU with the emulator's hazard pass off (CUDATUTOR_NO_EMULATOR=1: the
# GPU's run and racecheck, synccheck, memcheck and initcheck decide), and
# on this machine's CPU alone (CUDA_VISIBLE_DEVICES= : the emulator's trials
# and hazard rules decide).  Prints one row per kernel and, last, the
# kernels where the two disagree with both summaries, for docs/harness.md's
# table of where a rule is stricter than the sanitizers and why.  With
# FULL=DIR (tests/bank.sh's GPU_RESULTS), a column gives the whole check's
# verdict too (both sides on the GPU, as a student's check runs).
# Usage (workbook root, GPU machine, after make): OUT=dir [FULL=dir] bash tests/device/hazard-table.sh [GLOB...]
set -u
OUT=${OUT:-/tmp/hazard-table}
mkdir -p "$OUT/gpu" "$OUT/cpu"
globs=("${@:-*}")
files=$(for g in "${globs[@]}"; do ls tests/bank/$g.cu; done | sort -u)

one_cpu() {
    local f=$1 n lab
    n=$(basename "$f" .cu)
    lab=$(head -n1 "$f" | sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p')
    CUDA_VISIBLE_DEVICES= ./cudatutor check "$lab" --file "$f" --quick --json > "$OUT/cpu/$n.json" 2> /dev/null
}
export -f one_cpu
export OUT
# the CPU side on all but two cores, beside the GPU side
echo "$files" | xargs -P "$(( $(nproc) > 4 ? $(nproc) - 2 : 2 ))" -I{} bash -c 'one_cpu {}' &
cpu_pid=$!
for f in $files; do
    n=$(basename "$f" .cu)
    lab=$(head -n1 "$f" | sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p')
    CUDATUTOR_NO_EMULATOR=1 ./cudatutor check "$lab" --file "$f" --quick --json > "$OUT/gpu/$n.json" 2> /dev/null
done
wait "$cpu_pid"

status() { jq -r '.status // "none"' "$1" 2>/dev/null || echo none; }
summary() { jq -r '.summary // ""' "$1" 2>/dev/null | cut -c1-150; }
agree=0 differ=0 refused=0
printf '%-34s %-14s %-14s %-14s %-14s\n' kernel expected checked sanitizers emulator > "$OUT/table.txt"
: > "$OUT/differ.txt"
for f in $files; do
    n=$(basename "$f" .cu)
    want=$(head -n1 "$f" | sed -n 's/.*expect=\([a-z_]*\).*/\1/p')
    g=$(status "$OUT/gpu/$n.json")
    e=$(status "$OUT/cpu/$n.json")
    full=-
    [ -n "${FULL:-}" ] && [ -f "$FULL/bank-$n.json" ] && full=$(status "$FULL/bank-$n.json")
    printf '%-34s %-14s %-14s %-14s %-14s\n' "$n" "$want" "$full" "$g" "$e" >> "$OUT/table.txt"
    if [ "$e" = no_gpu ] || [ "$e" = rejected ]; then
        refused=$((refused + 1))
    elif [ "$g" = "$e" ]; then
        agree=$((agree + 1))
    else
        differ=$((differ + 1))
        { echo "$n (expected $want)"; echo "  sanitizers: $g: $(summary "$OUT/gpu/$n.json")";
          echo "  emulator:   $e: $(summary "$OUT/cpu/$n.json")"; } >> "$OUT/differ.txt"
    fi
done
cat "$OUT/differ.txt"
echo "hazard-table: $agree agree, $differ differ, $refused not judged by the emulator (of $(echo "$files" | wc -l))"
