#!/usr/bin/env bash
# tests/run.sh — runs every test and prints one summary line at the end:
# "N passed, N failed, N skipped".  Each test program or script prints TAP
# lines ("ok - name", "not ok - name", "ok - name # SKIP reason"); anything
# else it prints is shown only when the test program fails.
set -u
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8 LANG=C.UTF-8

pass=0 fail=0 skip=0
failures=()
log=build/tests/log
mkdir -p build/tests
: > "$log"

run_one() {
    local name=$1; shift
    local out rc
    out=$("$@" 2>&1); rc=$?
    printf '## %s\n%s\n' "$name" "$out" >> "$log"
    local p f s
    p=$(grep -cE '^ok - ' <<<"$out" | tr -d ' ')
    s=$(grep -cE '^ok - .*# SKIP' <<<"$out" | tr -d ' ')
    f=$(grep -cE '^not ok - ' <<<"$out" | tr -d ' ')
    p=$((p - s))
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    grep -E '^(not ok - |ok - .*# SKIP)' <<<"$out" | sed "s|^|  [$name] |"
    if [ "$f" -gt 0 ]; then
        failures+=("$name")
        grep -E '^#' <<<"$out" | head -40 | sed 's/^/    /'
    elif [ $rc -ne 0 ] && [ $((p + s)) -eq 0 ]; then
        # A test program that died before reporting anything is a failure.
        fail=$((fail + 1)); failures+=("$name")
        echo "  [$name] crashed (exit $rc):"; tail -20 <<<"$out" | sed 's/^/    /'
    fi
    printf '%-28s %3d passed, %d failed, %d skipped\n' "$name" "$p" "$f" "$s"
}

for t in build/tests/test_*; do
    [ -x "$t" ] && run_one "$(basename "$t")" "$t"
done
# The quick CPU tests first, the GPU's verdicts next, the slow bank last.
order="tests/cli.sh tests/labs.sh tests/gpu.sh tests/bank.sh"
for t in $order $(ls tests/*.sh | grep -vxF -e tests/run.sh -e tests/lib.sh $(printf -- '-e %s ' $order)); do
    [ -f "$t" ] && run_one "$(basename "$t" .sh)" bash "$t"
done

[ ${#failures[@]} -gt 0 ] && echo "failing: ${failures[*]} (full output in $log)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
