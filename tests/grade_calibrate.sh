#!/usr/bin/env bash
# tests/grade_calibrate.sh — the grader's calibration of the targets, on
# stand-ins so that it runs the same with a GPU or without one: an
# nvidia-smi on PATH that names a GPU model, and judges in a harness folder
# of their own (CUDATUTOR_HARNESS_DIR, under /tmp, which the sandbox must
# bind back) that pass with figures of our choosing.  The kernels still
# compile for real, in the sandbox.  Shown: the solution measured on the
# grading GPU lowers the threshold by the tutor's rule and says so; the
# student is judged by it and told in words; calibration.json is reused
# for the same model and measured again for another; --no-calibrate keeps
# the catalog's; a GPU that is named but has no figure keeps the catalog's
# and says why.
. "$(dirname "$0")/lib.sh"
# The grader's sandbox runs as nobody when the suite runs as root: nobody
# must be able to pass through the scratch folder to its work folders.
chmod 711 "$TMP"
[ -z "${KEEP_TMP:-}" ] || trap - EXIT
cd "$ROOT" || exit 1
unset CUDA_VISIBLE_DEVICES

S=$TMP/subs
L1=$(lab_dir 01)
mkdir -p "$S/alice/labs/$L1"
cp "solutions/$L1/kernel.cu" "$S/alice/labs/$L1/kernel.cu"
cp -r "$S/alice" "$S/bob"
cp -r "$S/alice" "$S/carol"
LOG=$TMP/judged.log

# The stand-in nvidia-smi: one GPU, FAKE_SMI its model, FAKE_APPS the
# compute processes it lists on it (none when unset).
mkdir -p "$TMP/bin" "$TMP/hx"
cat > "$TMP/bin/nvidia-smi" <<'EOF'
#!/bin/sh
case "$*" in
    *-L*) echo "GPU 0: $FAKE_SMI (UUID: GPU-0)" ;;
    *--query-compute-apps*) [ -z "${FAKE_APPS:-}" ] || printf '%s\n' "$FAKE_APPS" ;;
    *) echo "$FAKE_SMI" ;;
esac
EOF
# The stand-in judge: a pass at FAKE_SOLUTION x the reference for a run of
# the solution (the grader's calibration runs it from .grader/calibration/,
# outside the sandbox: logged), FAKE_STUDENT x for a student's (in the
# sandbox, which gives it no environment and no place to log: its figures
# come from the file conf beside it).
cat > "$TMP/hx/judge" <<'EOF'
#!/bin/sh
. "$(dirname "$0")/conf"
out= lab= runner=
while [ $# -gt 0 ]; do
    case $1 in --json) out=$2 ;; --lab) lab=$2 ;; --runner) runner=$2 ;; esac
    shift
done
case $runner in */.grader/calibration/*) who=solution; ratio=$FAKE_SOLUTION ;; *) who=student; ratio=$FAKE_STUDENT ;; esac
[ $who = student ] || echo "$who $lab" >> "$FAKE_LOG"
cat > "$out" <<JSON
{"schema": 1, "status": "pass", "mode": "check",
 "device": {"name": "$FAKE_SMI", "cc": "9.0", "sms": 132, "l2_bytes": 52428800, "mem_bytes": 85017493504,
            "theoretical_gbps": 3352, "read_gbps": 3000, "copy_gbps": 2800},
 "tests": [{"name": "n=1", "n": 1, "expected": "1", "got": "1", "pass": true, "message": ""}],
 "perf": [{"label": "2^28", "input": "default", "n": 268435456, "n_catalog": 268435456, "bytes": 1073741824,
           "time": {"samples": 10, "median_ms": 3.5, "min_ms": 3.5, "max_ms": 3.6},
           "gbps": 300, "pct_peak": 10, "rate": 76.7, "rate_unit": "Gint/s",
           "reference": {"name": "CUB DeviceReduce::Sum",
                         "time": {"samples": 10, "median_ms": 0.35, "min_ms": 0.35, "max_ms": 0.36}},
           "ratio": $ratio, "implausible": false}],
 "messages": []}
JSON
EOF
chmod +x "$TMP/bin/nvidia-smi" "$TMP/hx/judge"
for f in reduce_int reduce_float trapezoid mpadd; do ln -s judge "$TMP/hx/judge_$f"; done
cp build/harness/rt.o build/harness/runner.o "$TMP/hx/"
export CUDATUTOR_HARNESS_DIR="$TMP/hx" PATH="$TMP/bin:$PATH"
# conf SMI SOLUTION: the GPU model and the solution's figure; the student's is 0.09.
conf() { printf 'FAKE_SMI="%s"\nFAKE_SOLUTION=%s\nFAKE_STUDENT=0.09\nFAKE_LOG=%s\n' "$1" "$2" "$LOG" > "$TMP/hx/conf"
         export FAKE_SMI=$1; }
conf "NVIDIA H200" 0.10
OPTS=(--labs 01 --seed 7 --no-sanitize -j 2)

# The catalog's lab 01: threshold 0.12, its solution 0.159 on the H100.
# Here the solution measures 0.10: 0.12 x 0.10 / 0.159 = 0.07547..., 0.0754
# rounded down to three digits; the student's 0.09 meets that, not 0.12.
O=$TMP/o1
./grade.sh "${OPTS[@]}" -o "$O" "$S/alice" > "$TMP/o1.out" 2> "$TMP/o1.err"; rc=$?
check "a class graded on a calibrated GPU exits 0" test $rc = 0
check "calibration: the solution measured once, on GPU 0" test "$(tr '\n' ,  < "$LOG")" = "solution 01,"
check "calibration.json: GPU 0's model, the catalog's and the measured figures, the lowered threshold" \
    test "$(jq -c '.gpus["0"] | [.name, .labs["01"].catalog_min, .labs["01"].catalog_solution,
                               .labs["01"].solution_here, .labs["01"].min, .labs["01"].lowered]' "$O/calibration.json")" = \
         '["NVIDIA H200",0.12,0.159,0.1,0.0754,true]'
check "calibration: a line says what was lowered, from what, and why" \
    grep -qF "targets on GPU 0 (NVIDIA H200): lowered for 01 0.12 -> 0.0754 (its solution: 0.1 here, 0.159 in the catalog)" "$TMP/o1.err"
check "the student is judged by the lowered threshold: met, and the catalog's beside it" \
    test "$(jq -c '.labs[0] | [.status, .target.min, .target.catalog_min, .target.met, .score]' "$O/students/alice/report.json")" = \
         '["pass",0.0754,0.12,true,8]'
check "the student's text says the threshold was lowered for this GPU" \
    test -n "$(jget "$O/students/alice/report.json" '.labs[0].performance.why' | grep -F "lowered for this GPU from the catalog's 0.12")"

# The same GPU model again, grading on (a resumed or a later run): the
# file is reused, nothing measured.  (--force would measure again.)
: > "$LOG"
cp "$O/calibration.json" "$TMP/cal-before.json"
./grade.sh "${OPTS[@]}" -q -o "$O" "$S/alice" "$S/bob" > /dev/null 2>&1
check "calibration.json is reused for the same model: no solution run, the file unchanged" \
    test ! -s "$LOG" -a -n "$(cmp "$O/calibration.json" "$TMP/cal-before.json" && echo same)" \
         -a "$(jq -c '.labs[0].target.min' "$O/students/bob/report.json")" = 0.0754

# Another model on the same GPU index: measured again.
: > "$LOG"
conf "NVIDIA H100 80GB HBM3" 0.16
./grade.sh "${OPTS[@]}" -q -o "$O" "$S/carol" > /dev/null 2>&1
check "another GPU model is measured again; within 5% of its figure nothing is lowered" \
    test "$(tr '\n' ,  < "$LOG")" = "solution 01," \
         -a "$(jq -c '.gpus["0"] | [.name, .labs["01"].min, .labs["01"].lowered]' "$O/calibration.json")" = '["NVIDIA H100 80GB HBM3",0.12,false]'
check "judged by the catalog's threshold there: 0.09 misses 0.12" \
    test "$(jq -c '.labs[0] | [.target.min, .target.met]' "$O/students/carol/report.json")" = '[0.12,false]'

# --no-calibrate: nothing measured, nothing written, the catalog's threshold.
: > "$LOG"
./grade.sh "${OPTS[@]}" --no-calibrate -q -o "$TMP/o2" "$S/alice" > /dev/null 2>&1
check "--no-calibrate: no solution run, no calibration.json, the catalog's threshold" \
    test ! -s "$LOG" -a ! -e "$TMP/o2/calibration.json" \
         -a "$(jq -c '.labs[0].target.min' "$TMP/o2/students/alice/report.json")" = 0.12

# A lab whose catalog records no figure for its solution keeps its target,
# and the line says why.
WB=$TMP/wb
make_workbook "$WB"
ln -s "$TUTOR" "$WB/cudatutor"
jq '.labs |= map(if .id == "01" then del(.target.solution) else . end)' data/labs.json > "$WB/data/labs.json"
"$WB/cudatutor" grade "${OPTS[@]}" -o "$TMP/o3" "$S/alice" > /dev/null 2> "$TMP/o3.err"
check "no figure in the catalog: the catalog's threshold stands, and the line says why" \
    test "$(jq -c '.gpus["0"].labs["01"] | [.min, .lowered]' "$TMP/o3/calibration.json")" = '[0.12,false]' \
         -a -n "$(grep -F "lab 01: the catalog records no figure for its solution; its catalog target stands" "$TMP/o3.err")"

# Other programs computing on the grading GPU: the grader's lock does not
# order them, so it says so, as grading starts and as it ends, and keeps
# what it saw in run.json.  A GPU nobody else uses: not a word.
FAKE_APPS='4242, /usr/bin/python3
4343, [Not Found]' ./grade.sh "${OPTS[@]}" -o "$TMP/o4" "$S/alice" > /dev/null 2> "$TMP/o4.err"
check "a GPU that other programs use: a warning names them as grading starts and as it ends" \
    test "$(grep -cF "GPU 0 is shared: nvidia-smi lists other programs on it as grading starts (4242 python3, 4343 [Not Found])" "$TMP/o4.err"),$(grep -cF "as grading ends (4242 python3, 4343 [Not Found])" "$TMP/o4.err")" = 1,1
check "a GPU that other programs use: run.json keeps what was seen" \
    test "$(jq -c '[.gpu_others[] | [.gpu, .when, .processes]]' "$TMP/o4/run.json")" = \
         '[["0","start","4242 python3, 4343 [Not Found]"],["0","end","4242 python3, 4343 [Not Found]"]]'
check "a GPU nobody else uses: no warning, and run.json's list is empty" \
    test -z "$(grep -F "is shared" "$TMP/o1.err")" -a "$(jq -c .gpu_others "$O/run.json")" = '[]'
