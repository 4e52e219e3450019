#!/usr/bin/env bash
# tests/calibrate.sh — the targets scaled to the student's GPU, on stand-ins
# so that it runs the same with a GPU or without one: an nvidia-smi on PATH
# that names a GPU model (or fails, as without a driver), and judges in a
# harness folder of their own (CUDATUTOR_HARNESS_DIR) that report that
# model and figures of our choosing.  The solutions still compile and link
# for real.  Shown: without a GPU nothing is calibrated or cached; the first
# check on a new GPU runs the reference solutions, says so, and is judged by
# the lowered threshold, in words; the second reuses the cache; --no-calibrate
# and $CUDATUTOR_NO_CALIBRATE keep the catalog's; calibrate shows, redoes
# (--force) and prints JSON; a changed catalog, a corrupt file and another
# GPU model each lead to a new measurement; the tutor calibrates too, and
# progress counts the calibrated target as met.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
unset CUDATUTOR_NO_CALIBRATE CUDA_VISIBLE_DEVICES

WB=$TMP/wb
make_workbook "$WB"
# Only labs 01 and 09 keep their solution's figure, so that calibration
# runs two checks, not ten.
jq '.labs |= map(if .id == "01" or .id == "09" then . else del(.target.solution) end)' \
    "$ROOT/data/labs.json" > "$WB/data/labs.json"
CAL=$TMP/calibration.json
LOG=$TMP/judged.log
sol01="$WB/solutions/$(lab_dir 01)/kernel.cu"

# The stand-in nvidia-smi: FAKE_SMI is the model it names; unset, it fails.
mkdir -p "$TMP/bin"
cat > "$TMP/bin/nvidia-smi" <<'EOF'
#!/bin/sh
[ -n "${FAKE_SMI:-}" ] || { echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."; exit 9; }
echo "$FAKE_SMI"
EOF
# The stand-in judge (its --gpu-lock goes to FAKE_LOCKLOG when set): a pass on GPU FAKE_GPU (no_gpu when unset), at
# FAKE_SOLUTION x the reference for a calibration run of lab 01's solution,
# 5x for the other solutions, FAKE_STUDENT x for any other check.  Each
# call is logged: who, lab.
cat > "$TMP/judge" <<'EOF'
#!/bin/sh
out= lab= runner= lock=
while [ $# -gt 0 ]; do
    case $1 in --json) out=$2 ;; --lab) lab=$2 ;; --runner) runner=$2 ;; --gpu-lock) lock=$2 ;; esac
    shift
done
[ -z "${FAKE_LOCKLOG:-}" ] || echo "$lock" >> "$FAKE_LOCKLOG"
case $runner in
    */calibrate/*) who=solution; ratio=5; [ "$lab" = 01 ] && ratio=$FAKE_SOLUTION ;;
    *) who=student; ratio=$FAKE_STUDENT ;;
esac
echo "$who $lab" >> "$FAKE_LOG"
if [ -z "${FAKE_GPU:-}" ]; then
    echo '{"schema": 1, "status": "no_gpu", "device": null, "tests": [], "perf": [], "messages": ["no CUDA device"]}' > "$out"
    exit 0
fi
case $lab in 09) label=2^28 ;; 10) label=ripple ;; *) label=2^28 ;; esac
cat > "$out" <<JSON
{"schema": 1, "status": "pass", "mode": "check",
 "device": {"name": "$FAKE_GPU", "cc": "9.0", "sms": 132, "l2_bytes": 52428800, "mem_bytes": 85017493504,
            "theoretical_gbps": 3352, "read_gbps": 3000, "copy_gbps": 2800},
 "tests": [{"name": "n=1", "n": 1, "expected": "1", "got": "1", "pass": true, "message": ""}],
 "perf": [{"label": "$label", "input": "default", "n": 268435456, "n_catalog": 268435456, "bytes": 1073741824,
           "time": {"samples": 10, "median_ms": 3.5, "min_ms": 3.5, "max_ms": 3.6},
           "gbps": 300, "pct_peak": 10, "rate": 76.7, "rate_unit": "Gint/s",
           "reference": {"name": "CUB DeviceReduce::Sum",
                         "time": {"samples": 10, "median_ms": 0.35, "min_ms": 0.35, "max_ms": 0.36}},
           "ratio": $ratio, "implausible": false}],
 "messages": []}
JSON
EOF
chmod +x "$TMP/bin/nvidia-smi" "$TMP/judge"
mkdir -p "$TMP/hx"
for f in reduce_int reduce_float trapezoid mpadd; do ln -s "$TMP/judge" "$TMP/hx/judge_$f"; done
ln -s "$ROOT/build/harness/rt.o" "$TMP/hx/rt.o"
ln -s "$ROOT/build/harness/runner.o" "$TMP/hx/runner.o"
export CUDATUTOR_HARNESS_DIR="$TMP/hx" PATH="$TMP/bin:$PATH" FAKE_LOG="$LOG" FAKE_SOLUTION=0.10 FAKE_STUDENT=0.10
unset FAKE_SMI FAKE_GPU

# tutor ARGS...: the tutor on the test's workbook.
tutor() { "$TUTOR" --root "$WB" "$@"; }
# check01 JSON ERR [ARGS]: lab 01's solution checked as a student's file.
check01() {
    local json=$1 err=$2
    shift 2
    tutor check 01 --file "$sol01" --no-sanitize --quick --json "$@" > "$json" 2> "$err"
}
runs() { grep -c '^solution' "$LOG" 2>/dev/null; }

# ---- without a GPU ---------------------------------------------------------
check01 "$TMP/nogpu.json" "$TMP/nogpu.err"
check "without a GPU: the check runs, judged by nothing calibrated, and nothing is cached" \
    test "$(jget "$TMP/nogpu.json" .status)" = no_gpu -a ! -e "$CAL" -a -z "$(grep -i calibrat "$TMP/nogpu.err")"
out=$(tutor calibrate 2>&1); rc=$?
check "calibrate without a GPU: exit 3, says why, caches nothing" \
    test $rc = 3 -a "$out" = "cudatutor calibrate: no GPU (nvidia-smi names none): the catalog's targets stand, and nothing was cached" -a ! -e "$CAL"
export FAKE_SMI="NVIDIA Stand-in"
: > "$LOG"
out=$(tutor calibrate 2>&1); rc=$?
check "nvidia-smi names a GPU but the checks find none: exit 3 after one run, nothing cached" \
    test $rc = 3 -a "$(runs)" = 1 -a ! -e "$CAL" -a \
         -n "$(grep -F "nvidia-smi names a GPU (NVIDIA Stand-in), but the checks found no CUDA device: the catalog's targets stand, and nothing is cached" <<<"$out")"

# ---- the first check on a new GPU -------------------------------------------
export FAKE_GPU="NVIDIA Stand-in"
: > "$LOG"
check01 "$TMP/first.json" "$TMP/first.err"
check "the first check on a new GPU says it calibrates, for how long, and where it caches" \
    grep -qF "cudatutor check: calibrating the targets for NVIDIA Stand-in: running the 2 reference solutions once (about 6 s); cached in $CAL" "$TMP/first.err"
check "it runs lab 01's and lab 09's solutions once each, then the student's kernel" \
    test "$(tr '\n' ';' < "$LOG")" = "solution 01;solution 09;student 01;"
check "it says which thresholds it lowered" \
    grep -qF "cudatutor check: targets for NVIDIA Stand-in: lowered for 01 0.12 -> 0.0754 (its solution: 0.1 here, 0.159 in the catalog); the others as in the catalog" "$TMP/first.err"
check "the check is judged by the lowered threshold: 0.10x meets 0.0754 (the catalog's 0.12 would not)" \
    test "$(jq -c '.target | [.min, .catalog_min, .met]' "$TMP/first.json")" = "[0.0754,0.12,true]"
check "the report says where the threshold comes from" \
    test "$(jq -c '.target.calibration | [.gpu, .lowered, .solution_here, .catalog_solution, .catalog_gpu]' "$TMP/first.json")" = \
         '["NVIDIA Stand-in",true,0.1,0.159,"NVIDIA H100 80GB HBM3"]'
check "calibration.json holds the GPU's entry, lab by lab" \
    test "$(jq -c '.gpus["NVIDIA Stand-in"].labs | [.["01"].min, .["01"].lowered, .["09"].min, .["09"].runs, .["02"].why]' "$CAL")" = \
         '[0.0754,true,0.86,1,"the catalog records no figure for its solution"]'

# ---- the cache ---------------------------------------------------------------
: > "$LOG"
tutor check 01 --file "$sol01" --no-sanitize --quick > "$TMP/second.txt" 2> "$TMP/second.err"
check "the second check reuses the cache: no solution runs, not a word about calibrating" \
    test "$(runs)" = 0 -a -z "$(grep -i calibrat "$TMP/second.err")"
check "the verdict gives the threshold and says, in words, why it is not the catalog's" \
    test -n "$(grep -F "target       0.0754× CUB DeviceReduce::Sum at 2^28: met (measured 0.1×)" "$TMP/second.txt")" -a \
         -n "$(grep -F "(scaled to this NVIDIA Stand-in: its reference solution measures 0.1×; the catalog's 0.12× is for the NVIDIA H100 80GB HBM3)" "$TMP/second.txt")"
check01 "$TMP/nocal.json" "$TMP/nocal.err" --no-calibrate
check "--no-calibrate: the catalog's threshold, which 0.10x misses" \
    test "$(jq -c '.target | [.min, .catalog_min, .met, .calibration]' "$TMP/nocal.json")" = "[0.12,null,false,null]"
CUDATUTOR_NO_CALIBRATE=1 check01 "$TMP/nocal2.json" "$TMP/nocal2.err"
check "CUDATUTOR_NO_CALIBRATE=1: the same" test "$(jq -c '.target.min' "$TMP/nocal2.json")" = 0.12
check01 "$TMP/tmin.json" "$TMP/tmin.err" --target-min 0.09
check "--target-min wins over the calibration" \
    test "$(jq -c '.target | [.min, .catalog_min, .calibration]' "$TMP/tmin.json")" = "[0.09,0.12,null]"
check "none of these measured anything" test "$(runs)" = 0

out=$(tutor calibrate); rc=$?
check "calibrate shows the cached entry without measuring" \
    test $rc = 0 -a "$(runs)" = 0 -a -n "$(grep -F "NVIDIA Stand-in was calibrated on " <<<"$out")" -a \
         -n "$(grep -F "01  ratio at 2^28: its solution 0.1 here, 0.159 in the catalog; threshold 0.12 -> 0.0754" <<<"$out")" -a \
         -n "$(grep -F "09  ratio at 2^28: its solution 5 here, 1.08 in the catalog; threshold 0.86, as in the catalog" <<<"$out")"

# ---- what makes it measure again ----------------------------------------------------
# From here lab 01 alone keeps a figure (one run per calibration), and its
# threshold is 0.13: a changed catalog.
jq '.labs |= map(if .id == "01" then .target.min = 0.13 else del(.target.solution) end)' \
    "$ROOT/data/labs.json" > "$WB/data/labs.json"
: > "$LOG"
check01 "$TMP/changed.json" "$TMP/changed.err"
check "a changed target in the catalog: measured again, judged by the new figure, in the same entry" \
    test "$(runs)" = 1 -a "$(jq -c '.target | [.min, .catalog_min]' "$TMP/changed.json")" = "[0.0817,0.13]" -a \
         "$(jq '.gpus | length' "$CAL")" = 1
echo '{"schema": 1, "gpus": {"NVIDIA Stand-in": ' > "$CAL"
: > "$LOG"
check01 "$TMP/corrupt.json" "$TMP/corrupt.err"
check "a corrupt calibration.json is kept aside, reported, and measured afresh" \
    test "$(runs)" = 1 -a -n "$(grep -F "$CAL was not a valid calibration (not valid JSON (truncated?)); kept it as $CAL.corrupt-" "$TMP/corrupt.err")" -a \
         "$(cat "$CAL".corrupt-*)" = '{"schema": 1, "gpus": {"NVIDIA Stand-in": ' -a "$(jq -c .target.min "$TMP/corrupt.json")" = 0.0817
FAKE_SMI="NVIDIA Other" FAKE_GPU="NVIDIA Other" check01 "$TMP/other.json" "$TMP/other.err"
check "another GPU model gets an entry of its own beside the first" \
    test "$(jq -c '.gpus | keys' "$CAL")" = '["NVIDIA Other","NVIDIA Stand-in"]' -a \
         -n "$(grep -F "calibrating the targets for NVIDIA Other: running the 1 reference solution once" "$TMP/other.err")"
: > "$LOG"
FAKE_SMI="NVIDIA Third" check01 "$TMP/mismatch.json" "$TMP/mismatch.err"
check "checks that run on another model than nvidia-smi names: nothing cached, the catalog's threshold" \
    test -n "$(grep -F "the checks ran on a NVIDIA Stand-in, not on the NVIDIA Third that nvidia-smi names" "$TMP/mismatch.err")" -a \
         "$(runs)" = 1 -a "$(jq -c '.gpus | keys' "$CAL")" = '["NVIDIA Other","NVIDIA Stand-in"]' -a \
         "$(jq -c .target.min "$TMP/mismatch.json")" = 0.13

# ---- cudatutor calibrate --force ---------------------------------------------------
: > "$LOG"
FAKE_SOLUTION=0.158 tutor calibrate --force > "$TMP/force.txt"; rc=$?
check "calibrate --force measures again; within 5% of the catalog, no threshold is lowered" \
    test $rc = 0 -a "$(runs)" = 1 -a \
         -n "$(grep -F "targets for NVIDIA Stand-in: no threshold lowered (as in the catalog)" "$TMP/force.txt")" -a \
         "$(jq -c '.gpus["NVIDIA Stand-in"].labs["01"] | [.min, .lowered]' "$CAL")" = "[0.13,false]"
check "calibrate --json: the entry, with the file's path" \
    test "$(tutor calibrate --json | jq -c '[.name, .labs["01"].solution_here, .path, .cached_before]')" = \
         "[\"NVIDIA Stand-in\",0.158,\"$CAL\",true]"

# ---- the tutor, and progress --------------------------------------------------------
rm -f "$CUDATUTOR_PROGRESS" "$CAL"
: > "$LOG"
screen=$(tutor --keys 'c' --dump --size 100x40 2>/dev/null)
check "the tutor calibrates a new GPU before its check, then shows why the threshold is lower" \
    test "$(runs)" = 1 -a -e "$CAL" -a -n "$(grep -F "scaled to this NVIDIA Stand-in" <<<"$screen")"
check "a pass above the calibrated threshold is recorded on target" \
    test "$(tutor progress --json | jq -r '.labs["01"].state')" = on_target
check "list shows the calibrated threshold of the GPU the latest check ran on, and says so" \
    test -n "$(tutor list | grep -E '^01 .* 0\.0817x at 2\^28\* ')" -a \
         -n "$(tutor list | grep -E '^\* scaled to the NVIDIA Stand-in, ')"
check "list --json keeps the catalog's min, the calibrated one beside it" \
    test "$(tutor list --json | jq -c '.[0].target | [.min, .calibrated.min, .calibrated.gpu]')" = '[0.13,0.0817,"NVIDIA Stand-in"]'
check "with CUDATUTOR_NO_CALIBRATE, list shows the catalog's threshold" \
    test -n "$(CUDATUTOR_NO_CALIBRATE=1 tutor list | grep -E '^01 .* 0\.13x at 2\^28 ')"

# ---- the GPU lock: one for the machine ---------------------------------------------
# Every check on the machine takes one lock, whoever runs it and from
# whichever workbook (docs/harness.md 4.1): two students on one GPU server
# must not time at once.  The file is made readable and writable by all
# whatever the umask; a symbolic link in its place is not followed (it
# would make the tutor create or lock the file it points at) and leaves the
# workbook's own lock, with a note.
WB2=$TMP/wb2
make_workbook "$WB2"
LL=$TMP/locks.log
( umask 022
  export FAKE_LOCKLOG=$LL CUDATUTOR_GPU_LOCK=$TMP/machine/gpu.lock
  mkdir -p "$TMP/machine"
  check01 "$TMP/lock1.json" /dev/null
  "$TUTOR" --root "$WB2" check 01 --file "$sol01" --no-sanitize --quick --json > "$TMP/lock2.json" 2> /dev/null )
check "two workbooks' checks take the one machine lock, open to every user whatever the umask" \
    test "$(sort -u "$LL")" = "$TMP/machine/gpu.lock" -a "$(jget "$TMP/lock2.json" .status)" = pass \
         -a "$(stat -c %a "$TMP/machine/gpu.lock")" = 666
: > "$LL"
ln -s "$TMP/victim" "$TMP/trap.lock"
FAKE_LOCKLOG=$LL CUDATUTOR_GPU_LOCK=$TMP/trap.lock check01 "$TMP/lock3.json" /dev/null
check "a symbolic link in the lock's place is not followed: the workbook's own lock, and a note" \
    test ! -e "$TMP/victim" -a "$(sort -u "$LL")" = "$WB/build/check/gpu.lock" \
         -a "$(jq -r '.messages[] | select(startswith("the machine'"'"'s GPU lock"))' "$TMP/lock3.json")" = \
            "the machine's GPU lock $TMP/trap.lock cannot be used (it is a symbolic link): this check takes turns with the GPU only with the other checks of this workbook"
: > "$LL"
(unset CUDATUTOR_GPU_LOCK; FAKE_LOCKLOG=$LL check01 "$TMP/lock4.json" /dev/null)
check "by default the machine lock is /tmp/cudatutor-gpu.lock" test "$(sort -u "$LL")" = /tmp/cudatutor-gpu.lock
