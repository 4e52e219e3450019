#!/usr/bin/env bash
# tests/targets.sh — a target of several cases and a judged determinism
# (lab 15), without a GPU: the judge is asked for --repeat where the catalog
# says "deterministic" and only there; --quick times every case of the
# target; a stand-in judge's figures are judged on every case (met only
# when all are, --target-min lowering each alike) and said in the summary
# and the verdict; the judges refuse --repeat where they cannot honour it.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

sol15="$ROOT/solutions/$(lab_dir 15)/kernel.cu"
sol08="$ROOT/solutions/$(lab_dir 08)/kernel.cu"
# The figures below are chosen around lab 15's target as the issue asked for
# it, 1.3x CUB at 2^22 and 1.0x at 2^28 (the catalog's is 80% of what the
# solution measures): a workbook of our own holds that target, whatever the
# H100 said.
WB=$TMP/wb
make_workbook "$WB"
jq '(.labs[] | select(.id == "15") | .target) |=
      {metric: "ratio", case: "2^22", min: 1.3, provisional: true, also: [{case: "2^28", min: 1.0}]}' \
    "$ROOT/data/labs.json" > "$WB/data/labs.json"
export CUDATUTOR_ROOT=$WB CUDATUTOR_HARNESS_DIR="$ROOT/build/harness"

# A stand-in judge: keeps its command line, and reports a passing run with
# the ratios R22 and R28 (environment) at 2^22 and 2^28.
cat > "$TMP/fake-judge" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" > "$ARGS_OUT"
while [ $# -gt 0 ]; do [ "$1" = --json ] && out=$2; shift; done
cat > "$out" <<JSON
{"schema": 1, "status": "pass", "tests": [{"name": "n=1", "n": 1, "pass": true}],
 "perf": [{"label": "2^22", "n": 4194304, "bytes": 16777216, "gbps": 1900, "pct_peak": 63,
           "time": {"samples": 1000, "median_ms": 0.0088, "min_ms": 0.0085, "max_ms": 0.01},
           "reference": {"name": "CUB DeviceReduce::Sum", "time": {"samples": 1000, "median_ms": 0.0123}},
           "ratio": ${R22}, "implausible": false},
          {"label": "2^28", "n": 268435456, "bytes": 1073741824, "gbps": 3030, "pct_peak": 101,
           "time": {"samples": 100, "median_ms": 0.354, "min_ms": 0.35, "max_ms": 0.36},
           "reference": {"name": "CUB DeviceReduce::Sum", "time": {"samples": 100, "median_ms": 0.357}},
           "ratio": ${R28}, "implausible": false}], "messages": []}
JSON
EOF
chmod +x "$TMP/fake-judge"
export ARGS_OUT="$TMP/args" R22=1.45 R28=1.02

# One build of each solution; the judge runs are --run-only.
"$TUTOR" check 15 --file "$sol15" --build-only --work-dir "$TMP/w15" --json > /dev/null 2>&1
"$TUTOR" check 08 --file "$sol08" --build-only --work-dir "$TMP/w08" --json > /dev/null 2>&1
# judged OPTIONS...: lab 15's solution through the stand-in, its report.
judged() {
    "$TUTOR" check 15 --file "$sol15" --run-only --work-dir "$TMP/w15" --no-sanitize --json \
        --wrap "$TMP/fake-judge" "$@"
}

judged --quick > "$TMP/r.json"
check "a deterministic lab's judge calls five times on each input (--repeat 5)" \
    grep -qx -- '--repeat' "$TMP/args" -a "$(grep -A1 -x -- '--repeat' "$TMP/args" | tail -n1)" = 5
check "--quick times every case of a target of several, and no other" \
    test "$(grep -A1 -x -- '--perf' "$TMP/args" | grep -v -- '--' | tr '\n' ' ')" = "2^22:4194304 2^28:268435456 "
"$TUTOR" check 08 --file "$sol08" --run-only --work-dir "$TMP/w08" --no-sanitize --quick --json \
    --wrap "$TMP/fake-judge" > "$TMP/r08.json"
check "lab 08, where atomics are taught, gets no --repeat and one timed case" \
    test -z "$(grep -x -- '--repeat' "$TMP/args")" -a \
         "$(grep -A1 -x -- '--perf' "$TMP/args" | grep -v -- '--' | tr '\n' ' ')" = "2^28:268435456 "
check "a single-case target's report has no further cases" test "$(jq -c '.target.also' "$TMP/r08.json")" = null

check "both cases met: the target is met, each case with its figure" \
    test "$(jq -c '.target | [.case, .min, .value, .met, .also]' "$TMP/r.json")" = \
         '["2^22",1.3,1.45,true,[{"case":"2^28","min":1,"value":1.02,"met":true}]]'
check "the summary names each case" \
    test "$(jget "$TMP/r.json" .summary)" = \
         "correct at every size: 1 tests; 2^22 in 0.009 ms, 1900 GB/s, 63% of peak, 1.45x CUB DeviceReduce::Sum; 2^28 in 0.354 ms, 1.02x; target met"

R28=0.98 judged --quick > "$TMP/r.json"
check "one case short: the target is not met, and the report says which" \
    test "$(jq -c '.target | [.value, .met, .also[0].value, .also[0].met]' "$TMP/r.json")" = '[1.45,false,0.98,false]'
R22=1.2 judged --quick > "$TMP/r.json"
check "the first case short: not met either" \
    test "$(jq -c '.target | [.value, .met, .also[0].met]' "$TMP/r.json")" = '[1.2,false,true]'

R28=0.98 judged --quick --target-min 1.04 > "$TMP/r.json"
check "--target-min sets the first case's threshold and lowers the others alike (0.8x)" \
    test "$(jq -c '.target | [.min, .catalog_min, .met, .also[0].min, .also[0].catalog_min, .also[0].met]' "$TMP/r.json")" = \
         '[1.04,1.3,true,0.8,1,true]'

out=$(R28=0.98 "$TUTOR" check 15 --file "$sol15" --run-only --work-dir "$TMP/w15" --no-sanitize --quick \
          --wrap "$TMP/fake-judge")
check "the verdict names every case and what each measured" \
    grep -qF "target       1.3× CUB DeviceReduce::Sum at 2^22 and 1× at 2^28: not met yet (measured 1.45× at 2^22 and 0.98× at 2^28)" <<<"$out"
out=$("$TUTOR" list)
check "list names every case of the target: the first in its row, the others under the table" \
    test -n "$(grep -E '^15 .* 1\.3x at 2\^22 \+ ' <<<"$out")" -a \
         -n "$(grep -xF '+ lab 15 also 1x at 2^28: every case must be met' <<<"$out")"
check "list --json carries the further cases and the determinism" \
    test "$("$TUTOR" list --json | jq -c '.[] | select(.id == "15") | [.target.also, .deterministic]')" = \
         '[[{"case":"2^28","min":1}],true]'

# The grader scores and calibrates a target of several cases in C, with the
# tutor's own rules: tests/unit/test_score.c (the credit of the case
# furthest short) and test_calibrate.c (scaled by the case furthest short).

# The judges: --repeat where the family can call again on one input.
build/harness/judge_trapezoid --json "$TMP/trap.json" --family trapezoid --repeat 2 > /dev/null 2>&1
check "a judge that cannot judge determinism refuses --repeat" \
    test "$(jq -r '.status + ": " + .messages[0]' "$TMP/trap.json")" = \
         "internal_error: family trapezoid cannot judge --repeat (the same bits on every call)"
build/harness/judge_reduce_float --json "$TMP/rf.json" --repeat 0 > /dev/null 2>&1; rc=$?
check "--repeat 0 is a usage error" test $rc -eq 2
