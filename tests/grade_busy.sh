#!/usr/bin/env bash
# tests/grade_busy.sh — a verdict the grader's own load could have made is
# run again alone: a busy machine must never grade a kernel `timeout`.
# On the CPU tier (or a GPU: both judge the same kernels), lab 03 with the
# bank's kernel that never ends (its verdict is timeout however it runs)
# beside two reference solutions (on a GPU its trials' limit, 10 s, is spent
# twice):
#   - with three runs at once, its timeout came while others ran: the
#     grader runs it again with its GPU to itself (an "R" event, a line in
#     its run log), and that run's verdict stands: still timeout;
#   - the solutions beside it pass and are not run again;
#   - one run at a time (--check-runs 1): the first run was alone, and is
#     not repeated.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
unset CUDATUTOR_NO_EMULATOR
# The grader's sandbox runs as nobody when the suite runs as root.
chmod 711 "$TMP"

if ! have_gpu && [ ! -x build/harness/judge_cpu_reduce_int ]; then
    skip "a busy grader's doubtful verdicts run again" "no GPU and no CPU judges in this build"
    exit 0
fi
L3=$(lab_dir 03)
S="$TMP/subs"
for s in dan eve fay; do
    mkdir -p "$S/$s/labs/$L3"
    cp "solutions/$L3/kernel.cu" "$S/$s/labs/$L3/kernel.cu"
done
cp tests/bank/infinite_loop.cu "$S/dan/labs/$L3/kernel.cu"
OPTS=(--labs 03 --seed 4242 --no-sanitize --no-calibrate -j 2 -q)
"$ROOT/grade.sh" "${OPTS[@]}" --check-runs 3 -o "$TMP/busy" "$S"/* > "$TMP/busy.log" 2>&1 ||
    sed 's/^/#   /' "$TMP/busy.log" | tail -n 20
"$ROOT/grade.sh" "${OPTS[@]}" --check-runs 1 -o "$TMP/alone" "$S"/* > "$TMP/alone.log" 2>&1 ||
    sed 's/^/#   /' "$TMP/alone.log" | tail -n 20

verdicts() { for s in dan eve fay; do printf '%s ' "$(jget "$1/students/$s/report.json" '.labs[0].status')"; done; }
check "three at once: the kernel that never ends times out, the solutions pass" \
    test "$(verdicts "$TMP/busy")" = "timeout pass pass "
check "its timeout came beside other runs: it was run again alone, and only it" \
    test "$(grep -c '^R ' "$TMP/busy/.grader/events")" = 1 -a -n "$(grep -x 'R dan 03' "$TMP/busy/.grader/events")"
check "its run log says why it ran again" \
    test -n "$(grep -F 'to itself: the run above ended' "$TMP/busy/students/dan/logs/03-run.log")"
check "one at a time: the same verdicts" test "$(verdicts "$TMP/alone")" = "timeout pass pass "
check "one at a time: a run that was alone is not run again" \
    test "$(grep -c '^R ' "$TMP/alone/.grader/events")" = 0
