#!/usr/bin/env bash
# tests/summary.sh — tests/run.sh's report, on stand-in test programs: one
# line per program with its skips summarised by reason (never a line per
# skip), every failure on its own line, a program that dies without TAP
# or halfway counted as failed, the totals, and the exit code.
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
# Dies halfway, as a script on an unset variable does: its one ok counts,
# and so does the death.
printf 'echo "ok - before"\nexit 1\n' > "$TMP/halfway.sh"

out=$(RUN_LOG="$TMP/log" bash tests/run.sh "$TMP/skips.sh" "$TMP/fails.sh" "$TMP/crash.sh" "$TMP/halfway.sh"); rc=$?
check "skips: one line for the program, each reason once with its count" \
    test -n "$(grep -E '^skips +1 passed, 0 failed, 4 skipped +[0-9]+ s, +[0-9]+ s CPU \(3: no CUDA device; 1: tmux is not installed\)$' <<<"$out")"
check "no line per skip" test -z "$(grep -F '# SKIP' <<<"$out")"
check "each failure on its own line, with its detail" \
    test -n "$(grep -xF '  [fails] not ok - broken' <<<"$out")" -a -n "$(grep -F 'why it broke' <<<"$out")"
check "a program that dies without TAP is a failure" test -n "$(grep -F '[crash] exited 3 after 0 tests' <<<"$out")"
check "a program that dies halfway is a failure too" test -n "$(grep -F '[halfway] exited 1 after 1 tests' <<<"$out")"
check "the totals, and exit 1" test "$(tail -n1 <<<"$out")-$rc" = "3 passed, 3 failed, 4 skipped-1"
check "the full output goes to RUN_LOG" test -n "$(grep -F 'no TAP at all' "$TMP/log")"
# A program's CPU seconds are its own and its children's, not the clock's.
# The spin runs until it has used 1.5 s of CPU (its own clock ticks in
# /proc), not for 2 s of the wall clock: on a loaded machine a spin of 2 s
# of wall time got a fraction of a core and was counted 0 s of CPU.
cat > "$TMP/spins.sh" <<EOF
echo "ok - spins"
hz=\$(getconf CLK_TCK)
while :; do
    read -r -a st < /proc/\$\$/stat
    [ \$(( st[13] + st[14] )) -ge \$(( hz * 3 / 2 )) ] && break
    for i in {1..2000}; do :; done
done
EOF
printf 'echo "ok - sleeps"\nsleep 2\n' > "$TMP/sleeps.sh"
out=$(RUN_LOG="$TMP/log2" TEST_JOBS=2 bash tests/run.sh "$TMP/spins.sh" "$TMP/sleeps.sh")
check "each line has its CPU seconds: a spin's count, a sleep's do not" \
    test -n "$(grep -E '^spins .* [1-9][0-9]* s, +[1-9][0-9]* s CPU$' <<<"$out")" -a \
         -n "$(grep -E '^sleeps .* [1-9][0-9]* s, +0 s CPU$' <<<"$out")"
