#!/usr/bin/env bash
# tests/run.sh — runs every test and prints one summary line at the end:
# "N passed, N failed, N skipped".  Each test program or script prints TAP
# lines ("ok - name", "not ok - name", "ok - name # SKIP reason"); anything
# else it prints is shown only when the test program fails.  Per program one
# line: its counts, its time, and why it skipped what it skipped (each reason
# once, with how many); every failure is listed on its own.
#   tests/run.sh                 every test
#   tests/run.sh PROGRAM...      only these (tests/cli.sh, build/tests/test_proc)
# RUN_LOG=FILE puts the full output elsewhere than build/tests/log.
set -u
cd "$(dirname "$0")/.."
export LC_ALL=C.UTF-8 LANG=C.UTF-8

pass=0 fail=0 skip=0
failures=()
log=${RUN_LOG:-build/tests/log}
mkdir -p "$(dirname "$log")"
: > "$log"

# skip_reasons OUTPUT: " (N: reason; M: other)" for the skips in OUTPUT.
skip_reasons() {
    grep -E '^ok - .*# SKIP' <<<"$1" | sed -E 's/.*# SKIP *//; s/^skipped: //' | sort | uniq -c | sort -rn |
        awk '{ n = $1; $1 = ""; sub(/^ /, ""); printf "%s%d: %s", (NR > 1 ? "; " : " ("), n, $0 } END { if (NR) printf ")" }'
}

run_one() {
    local name=$1; shift
    local out rc t0=$SECONDS
    out=$("$@" 2>&1); rc=$?
    printf '## %s\n%s\n' "$name" "$out" >> "$log"
    local p f s
    p=$(grep -cE '^ok - ' <<<"$out" | tr -d ' ')
    s=$(grep -cE '^ok - .*# SKIP' <<<"$out" | tr -d ' ')
    f=$(grep -cE '^not ok - ' <<<"$out" | tr -d ' ')
    p=$((p - s))
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
    grep -E '^not ok - ' <<<"$out" | sed "s|^|  [$name] |"
    if [ "$f" -gt 0 ]; then
        failures+=("$name")
        grep -E '^#' <<<"$out" | head -40 | sed 's/^/    /'
    elif [ $rc -ne 0 ] && [ $((p + s)) -eq 0 ]; then
        # A test program that died before reporting anything is a failure.
        fail=$((fail + 1)); failures+=("$name")
        echo "  [$name] crashed (exit $rc):"; tail -20 <<<"$out" | sed 's/^/    /'
    fi
    printf '%-28s %3d passed, %d failed, %d skipped  %3d s%s\n' "$name" "$p" "$f" "$s" $((SECONDS - t0)) \
        "$( [ "$s" -gt 0 ] && skip_reasons "$out")"
}

if [ $# -gt 0 ]; then
    programs=("$@")
else
    # The unit tests, the quick CPU tests, the GPU's verdicts, the slow bank,
    # then the rest.
    order="tests/cli.sh tests/labs.sh tests/gpu.sh tests/bank.sh"
    programs=(build/tests/test_* $order
              $(ls tests/*.sh | grep -vxF -e tests/run.sh -e tests/lib.sh $(printf -- '-e %s ' $order)))
fi
for t in "${programs[@]}"; do
    case $t in
        *.sh) [ -f "$t" ] && run_one "$(basename "$t" .sh)" bash "$t" ;;
        *) [ -x "$t" ] && run_one "$(basename "$t")" "$t" ;;
    esac
done

[ ${#failures[@]} -gt 0 ] && echo "failing: ${failures[*]} (full output in $log)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
