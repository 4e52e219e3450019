#!/usr/bin/env bash
# tests/summary.sh — tests/run.sh's report, on stand-in test programs: one
# line per program with its skips summarised by reason (never a line per
# skip), every failure on its own line, a program that dies without TAP
# counted as failed, the totals, and the exit code.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

cat > "$TMP/skips.sh" <<'EOF'
echo "ok - one"
for i in 1 2 3; do echo "ok - gpu $i # SKIP skipped: no CUDA device"; done
echo "ok - screens # SKIP tmux is not installed"
EOF
cat > "$TMP/fails.sh" <<'EOF'
echo "ok - fine"
echo "not ok - broken"
echo "#   why it broke"
EOF
printf 'echo "no TAP at all"\nexit 3\n' > "$TMP/crash.sh"

out=$(RUN_LOG="$TMP/log" bash tests/run.sh "$TMP/skips.sh" "$TMP/fails.sh" "$TMP/crash.sh"); rc=$?
check "skips: one line for the program, each reason once with its count" \
    test -n "$(grep -E '^skips +1 passed, 0 failed, 4 skipped +[0-9]+ s \(3: no CUDA device; 1: tmux is not installed\)$' <<<"$out")"
check "no line per skip" test -z "$(grep -F '# SKIP' <<<"$out")"
check "each failure on its own line, with its detail" \
    test -n "$(grep -xF '  [fails] not ok - broken' <<<"$out")" -a -n "$(grep -F 'why it broke' <<<"$out")"
check "a program that dies without TAP is a failure" test -n "$(grep -F '[crash] crashed (exit 3)' <<<"$out")"
check "the totals, and exit 1" test "$(tail -n1 <<<"$out")-$rc" = "2 passed, 2 failed, 4 skipped-1"
check "the full output goes to RUN_LOG" test -n "$(grep -F 'no TAP at all' "$TMP/log")"
