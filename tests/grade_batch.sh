#!/usr/bin/env bash
# tests/grade_batch.sh — a grader runs each race checker once over several
# judged passes (the judge's --batch, docs/harness.md 4.1), and a batch
# never makes a verdict.
# Everywhere:
#   - the judge takes a batch file only of sanitize-mode runs, each with
#     its report, runner and device code, one GPU lock for all, at most 16
#     (anything else: exit 2, no report); a CPU judge refuses --batch;
#   - without a GPU the batch's first build gets its no_gpu report and the
#     second none (a batch ends at its first build that does not pass), and
#     no runner outlives the judge;
#   - check --sanitized goes with --sanitize-from.
# On a GPU, labs 05 and 09 graded for three students: reference solutions,
# but bob's lab 05 is the bank's race_read_unused (its sums are always
# right, so the judge passes it and only racecheck can fail it); the
# emulator's hazard pass off (CUDATUTOR_NO_EMULATOR=1: it would fail the
# race first, and the kernel would never reach a batch), one run at a
# time: the race checkers wait until every build has ended, so each lab's
# three passes make one batch:
#   - lab 09's batch cleared its three builds (the batch was used);
#   - no lab 05 batch of three (bob's among them) cleared anything;
#   - the solutions pass: a rule that failed a batch's every build for one
#     build's finding would fail them;
#   - the racy kernel fails on racecheck's finding: a rule that cleared a
#     batch whatever the tool found would pass it.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
unset CUDATUTOR_NO_EMULATOR
chmod 711 "$TMP"

L9=$(lab_dir 09)
judge=build/harness/judge_trapezoid
for s in a b; do
    "$TUTOR" check 09 --file "solutions/$L9/kernel.cu" --build-only --work-dir "$TMP/$s" --json > "$TMP/$s.json"
done
# line DIR: one build's sanitize-mode run, as the check writes it.
line() {
    printf -- '--json\t%s\t--lab\t09\t--family\ttrapezoid\t--mode\tsanitize\t--seed\t7\t--runner\t%s\t' \
        "$1/san.json" "$1/runner"
    printf -- '--runner-out\t%s\t--fatbin\t%s\t--ptx\t%s\t--sizes\t1,1000\t--gpu-lock\t%s\t--gpu-lock-init\t1\n' \
        "$1/r.out" "$1/keep/kernel.fatbin" "$1/keep/kernel.ptx" "$TMP/${2:-gpu}.lock"
}
refused() {    # refused NAME FILE [JUDGE]: exit 2, no report written
    rm -f "$TMP/a/san.json"
    "${3:-$judge}" --batch "$2" > "$TMP/out" 2>&1
    check "$1 (exit $?)" test $? = 2 -a ! -e "$TMP/a/san.json"
}
{ line "$TMP/a"; line "$TMP/b"; } > "$TMP/batch"
sed 's/--mode\tsanitize/--mode\tcheck/' "$TMP/batch" > "$TMP/check-mode"
{ line "$TMP/a"; line "$TMP/b" other; } > "$TMP/two-locks"
line "$TMP/a" | sed 's/--fatbin\t[^\t]*\t//' > "$TMP/no-fatbin"
head -c -1 "$TMP/batch" > "$TMP/no-newline"
for i in $(seq 17); do line "$TMP/a"; done > "$TMP/seventeen"
refused "a batch of check-mode runs is refused" "$TMP/check-mode"
refused "a batch of two GPU locks is refused" "$TMP/two-locks"
refused "a batch line without device code is refused" "$TMP/no-fatbin"
refused "a batch whose last line is cut short is refused" "$TMP/no-newline"
refused "a batch of 17 builds is refused" "$TMP/seventeen"
refused "a CPU judge refuses --batch" "$TMP/batch" build/harness/judge_cpu_trapezoid
check "it says why" grep -q "needs a GPU judge" "$TMP/out"

if ! have_gpu; then
    CUDA_VISIBLE_DEVICES= "$judge" --batch "$TMP/batch" > "$TMP/out" 2>&1
    check "without a GPU a batch runs (exit $?)" test $? = 0
    check "its first build's report is no_gpu" test "$(jget "$TMP/a/san.json" .status)" = no_gpu
    check "its second build gets none: the batch ended at the first build that did not pass" \
        test ! -e "$TMP/b/san.json"
    check "no runner outlives the judge" test -z "$(pgrep -f "$TMP/[ab]/runner")"
fi

"$TUTOR" check 09 --run-only --work-dir "$TMP/a" --sanitized racecheck > "$TMP/out" 2>&1
check "check --sanitized without --sanitize-from is a usage error (exit $?)" test $? = 2
check "it says so" grep -q -- "--sanitized goes with --sanitize-from" "$TMP/out"

if ! have_gpu; then
    skip "a grader's race-checker batches never make a verdict" "no GPU here (nvidia-smi lists none)"
    exit 0
fi
S="$TMP/subs"
L5=$(lab_dir 05)
for s in ann bob cid; do
    for l in "$L5" "$L9"; do
        mkdir -p "$S/$s/labs/$l"
        cp "solutions/$l/kernel.cu" "$S/$s/labs/$l/kernel.cu"
    done
done
cp tests/bank/race_read_unused.cu "$S/bob/labs/$L5/kernel.cu"
CUDATUTOR_NO_EMULATOR=1 "$ROOT/grade.sh" --labs 05,09 --seed 4242 --no-calibrate --check-runs 1 -j 3 -q -o "$TMP/g" \
    "$S"/* > "$TMP/g.log" 2>&1 ||
    sed 's/^/#   /' "$TMP/g.log" | tail -n 20
v() { jget "$TMP/g/students/$1/labs/$2.json" .status; }
check "the solutions beside the racy kernel pass" test "$(v ann 05) $(v cid 05) $(v ann 09) $(v bob 09) $(v cid 09)" = \
    "pass pass pass pass pass"
check "the racy kernel fails" test "$(v bob 05)" = fail
jq -r '.messages[]' "$TMP/g/students/bob/labs/05.json" > "$TMP/bob05" 2>&1
if grep -q "racecheck found" "$TMP/bob05"; then
    ok "on racecheck's finding"
else
    not_ok "on racecheck's finding" "its messages:" "$(cat "$TMP/bob05")"
fi
ev="$TMP/g/.grader/events"
sed 's/^/#   /' "$ev" | grep '^#   T ' || true
check "lab 09's batch of three cleared its builds (the batch was used)" \
    test "$(grep -c '^T [a-z]* trapezoid 3 clean$' "$ev")" = 3
check "lab 05's batch of three (the racy kernel among them) was a race checker's finding" \
    grep -qE '^T racecheck reduce_int 3 found$' "$ev"
check "no lab 05 batch that held the racy kernel cleared its builds" \
    test -z "$(grep -E '^T [a-z]+ reduce_int 3 clean$' "$ev")"
