#!/usr/bin/env bash
# tests/device/bonus-b.sh — labs 13 (scan) and 14 (butterfly) on a GPU
# machine, after `make build`:
#  1. each pristine stub fails its check, each solution passes (sanitizers
#     included) and meets its target; the figure the target is about;
#  2. the two labs' bank kernels (tests/bank/scan_*, rownorm_*) get the
#     verdict their first line names, with tests/bank.sh's options; the
#     scan without carries first fails at 8193, one past its tile; the
#     thread-per-row normaliser passes and misses the target;
#  3. the figures the two lessons quote: variants of the solutions (lab 13:
#     scalar loads instead of int4, one int4 per thread and tile; lab 14:
#     thread per row, shfl_down plus a broadcast, the row read twice);
#  4. a table of every timed case, and the number of checks that went wrong;
#  5. the value of each {{H100: ...}} placeholder of the two lessons.
# Usage: OUT=/dir bash tests/device/bonus-b.sh   (about 2 minutes of GPU time)
set -u
# Judged by the catalog's targets: a first check on a new GPU model would
# time every reference solution first.
export CUDATUTOR_NO_CALIBRATE=1
# One seed for the solutions and the variants: lab 14's timed widths are
# drawn from it, so every row of the lessons' tables sees the same widths.
SEED=${SEED:-20261124}
OUT=${OUT:-/tmp/cudatutor-bonus-b}
LOG=$OUT/bonus-b
mkdir -p "$LOG" build/variants
T=./cudatutor
bad=0
j() { jq -r "$1" "$2"; }
say_ok() { echo "ok   $*"; }
say_bad() { echo "BAD  $*"; bad=$((bad + 1)); }

# perf_rows FILE NAME: one table row per timed case of a check report.
perf_rows() {
    jq -r --arg name "$2" '.perf[] | [$name, .label, .n, (.time.median_ms * 1000 | round | tostring) + " us",
        (.gbps | round), ((.pct_peak // 0) | round | tostring) + "%", (.ratio * 1000 | round / 1000)] | @tsv' "$1" \
        >> "$LOG/table.tsv"
}
: > "$LOG/table.tsv"

echo "== 1. stubs and solutions"
for lab in 13 14; do
    slug=$(jq -r ".labs[] | select(.id == \"$lab\") | .slug" data/labs.json)
    f=$LOG/stub-$lab.json
    $T check "$lab" --file "data/stubs/$lab-$slug.cu" --no-sanitize --quick --json > "$f"
    if [ "$(j .status "$f")" = fail ]; then say_ok "$lab stub fails: $(j .summary "$f")"
    else say_bad "$lab stub fails: got $(j .status "$f"): $(j .summary "$f")"; fi
    f=$LOG/solution-$lab.json
    $T check "$lab" --file "solutions/$lab-$slug/kernel.cu" --seed "$SEED" --json > "$f"
    if [ "$(j .status "$f")" = pass ]; then say_ok "$lab solution passes: $(j .summary "$f")"
    else say_bad "$lab solution passes: got $(j .status "$f"): $(j .summary "$f") $(j '.messages | join("; ")' "$f")"; fi
    if [ "$(j .target.met "$f")" = true ]; then say_ok "$lab solution meets its target: $(j -c .target "$f")"
    else say_bad "$lab solution meets its target: $(j -c .target "$f")"; fi
    echo "     sanitizer: $(j '[.sanitizer.tools[]? | "\(.tool) \(if .clean then "clean" else "NOT CLEAN" end)"] | join(", ")' "$f")"
    echo "     tolerance used: $(j '.tolerance_used // "-"' "$f")"
    perf_rows "$f" "$lab solution"
done

echo "== 2. bank"
for f in tests/bank/scan_*.cu tests/bank/rownorm_*.cu; do
    name=$(basename "$f" .cu)
    meta=$(head -n1 "$f")
    lab=$(sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p' <<<"$meta")
    want=$(sed -n 's/.*expect=\([a-z_]*\).*/\1/p' <<<"$meta")
    r=$LOG/bank-$name.json
    $T check "$lab" --file "$f" --no-sanitize --quick --timeout-scale 0.25 --json > "$r"
    got=$(j .status "$r")
    if [ "$got" = "$want" ]; then say_ok "bank $name is judged $want: $(j .summary "$r")"
    else say_bad "bank $name is judged $want: got $got: $(j .summary "$r")"; fi
done
r=$LOG/bank-scan_no_block_carry.json
if [ "$(j .first_failing_n "$r")" = 8193 ]; then say_ok "scan_no_block_carry first fails at n=8193"
else say_bad "scan_no_block_carry first fails at n=8193: got $(j .first_failing_n "$r")"; fi
r=$LOG/bank-rownorm_thread_per_row.json
if [ "$(j .target.met "$r")" = false ]; then say_ok "rownorm_thread_per_row misses the target: $(j -c .target "$r")"
else say_bad "rownorm_thread_per_row misses the target: $(j -c .target "$r")"; fi
perf_rows "$r" "14 thread per row"

echo "== 3. the lessons' figures"
# variant LAB NAME FILE: a full check (every timed case) of a variant, its rows in the table.
variant() {
    local r=$LOG/var-$1-$2.json
    $T check "$1" --file "$3" --no-sanitize --seed "$SEED" --json > "$r"
    echo "$1 $2: $(j .status "$r"): $(j .summary "$r")"
    perf_rows "$r" "$1 $2"
}
sed -e 's/^    bool aligned = .*/    bool aligned = false;/' solutions/13-scan/kernel.cu > build/variants/13-scalar.cu
sed -e 's/^#define ROUNDS 4 /#define ROUNDS 1 /' solutions/13-scan/kernel.cu > build/variants/13-rounds1.cu
grep -q 'bool aligned = false;' build/variants/13-scalar.cu || say_bad "the 13-scalar variant was not made"
grep -q '^#define ROUNDS 1 ' build/variants/13-rounds1.cu || say_bad "the 13-rounds1 variant was not made"
variant 13 scalar-loads build/variants/13-scalar.cu
variant 13 one-int4-per-tile build/variants/13-rounds1.cu
variant 14 down+broadcast tests/device/bonus-b/14-down-broadcast.cu
variant 14 two-reads tests/device/bonus-b/14-two-reads.cu
variant 14 thread-per-row tests/bank/rownorm_thread_per_row.cu

echo "== 4. every timed case (us: median; GB/s: bytes that must move / median; % of the copy peak; x the reference)"
# The width of a timed case is its bytes over 8 per element and its rows.
echo "seed $SEED: lab 14's widths $(jq -r '[.perf[] | "\(.label) \(.bytes / 8 / .n | round)"] | join(", ")' "$LOG/solution-14.json" 2>/dev/null)"
echo "device: $(j '.device.name + ", copy " + (.device.copy_gbps | round | tostring) + " GB/s, read " + (.device.read_gbps | round | tostring) + " GB/s"' "$LOG/solution-13.json")"
column -t -s "$(printf '\t')" "$LOG/table.tsv"
echo "== 5. the lessons' placeholders ({{H100: ...}} in labs/13-scan/README.md, labs/14-butterfly/README.md)"
# fig FILE LABEL EXPR: EXPR (jq, on the perf case LABEL of FILE), or ? when the file or case is missing.
fig() { jq -r --arg l "$2" "[.perf[] | select(.label == \$l)] | if length == 0 then \"?\" else .[0] | $3 end" "$1" 2>/dev/null || echo "?"; }
us='(.time.median_ms * 1000 | round)'
refus='(.reference.time.median_ms * 1000 | round)'
gbps='(.gbps | round)'
pct='((.pct_peak | round | tostring) + "%")'
S13=$LOG/solution-13.json S14=$LOG/solution-14.json
echo "13 CUB 2^22 µs = $(fig "$S13" 2^22 "$refus")"
echo "13 CUB 2^28 µs = $(fig "$S13" 2^28 "$refus")"
echo "13 CUB 2^28 GB/s = $(fig "$S13" 2^28 '(.bytes / .reference.time.median_ms / 1e6 | round)')"
echo "13 sol 2^22 µs = $(fig "$S13" 2^22 "$us")"
echo "13 sol 2^28 µs = $(fig "$S13" 2^28 "$us")"
echo "13 sol 2^28 GB/s = $(fig "$S13" 2^28 "$gbps")"
echo "13 sol 2^28 ratio = $(fig "$S13" 2^28 '(.ratio * 100 | round / 100)')"
echo "13 int 2^22 µs = $(fig "$LOG/var-13-scalar-loads.json" 2^22 "$us")"
echo "13 int 2^28 µs = $(fig "$LOG/var-13-scalar-loads.json" 2^28 "$us")"
echo "13 one 2^22 µs = $(fig "$LOG/var-13-one-int4-per-tile.json" 2^22 "$us")"
echo "13 one 2^28 µs = $(fig "$LOG/var-13-one-int4-per-tile.json" 2^28 "$us")"
echo "13 target = the catalog's target.min (80% of the solution's ratio: $(fig "$S13" 2^28 '(.ratio * 80 | floor / 100)'))"
for k in wide narrow; do
    echo "14 sol $k = $(fig "$S14" $k "$gbps") (GB/s; $(fig "$S14" $k "$pct") of the copy peak)"
    echo "14 bcast $k = $(fig "$LOG/var-14-down+broadcast.json" $k "$gbps")"
    echo "14 twice $k = $(fig "$LOG/var-14-two-reads.json" $k "$gbps")"
    echo "14 thread $k = $(fig "$LOG/var-14-thread-per-row.json" $k "$gbps") ($(fig "$LOG/var-14-thread-per-row.json" $k "$pct"))"
done
echo "14 sol wide % = $(fig "$S14" wide "$pct")"
echo "14 thread wide % = $(fig "$LOG/var-14-thread-per-row.json" wide "$pct")"
echo "14 target = the catalog's target.min as a percent (80% of the solution's: $(fig "$S14" wide '(.pct_peak * 0.8 | floor | tostring) + "%"'))"
echo "# bonus-b: $bad check(s) went wrong; reports in $LOG"
[ $bad = 0 ]
