#!/usr/bin/env bash
# tests/run.sh — runs every test and prints one summary line at the end:
# "N passed, N failed, N skipped".  Each test program or script prints TAP
# lines ("ok - name", "not ok - name", "ok - name # SKIP reason"); anything
# else it prints is shown only when the test program fails.  Per program one
# line: its counts, its wall and CPU seconds, and why it skipped what it
# skipped (each reason once, with how many); every failure is listed on its
# own.
#   tests/run.sh                 every test
#   tests/run.sh PROGRAM...      only these (tests/cli.sh, build/tests/test_proc)
# RUN_LOG=FILE puts the full output elsewhere than build/tests/log.
# TEST_JOBS=N runs up to N programs at once, besides those that mostly
# wait on timers (waiters, below; default: the cores, at most 4;
# each program has its own temporary folder, checks of one lab queue on its
# work folder's lock, and timed sections on the GPU lock); the lines come
# out in the programs' order all the same.
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

# report NAME OUTFILE RC SECONDS CPU: one program's line and counts, from
# what it printed.
report() {
    local name=$1 out rc=$3 secs=$4 cpu=$5
    out=$(cat "$2")
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
    elif [ "$rc" -ne 0 ]; then
        # A test program that died, before its first test or halfway (an
        # unbound variable), is a failure: the tests it never reached
        # would otherwise vanish from the count.
        fail=$((fail + 1)); failures+=("$name")
        echo "  [$name] exited $rc after $((p + s)) tests:"; tail -20 <<<"$out" | sed 's/^/    /'
    fi
    printf '%-28s %3d passed, %d failed, %d skipped  %3d s, %3d s CPU%s\n' "$name" "$p" "$f" "$s" "$secs" "$cpu" \
        "$( [ "$s" -gt 0 ] && skip_reasons "$out")"
}

gpu=0
nvidia-smi -L 2>/dev/null | grep -q '^GPU' && gpu=1
# Programs that spend most of their time waiting on timers (lock
# timeouts, a watcher's quiet period, a queued srun, a stuck judge's
# bound), not on a CPU: they run beside the others without taking a place
# among jobs_max.  Without a GPU, gpuvia.sh and cli.sh too: they use a
# core a fifth to a third of their 20 s, and with a place each the two of
# them once held both places and left the machine idle.  On a GPU machine
# their checks take the GPU, and gpu.sh's barrier waits for them.
waiters=" tests/lock.sh build/tests/test_watch "
[ $gpu = 1 ] || waiters="$waiters tests/gpuvia.sh tests/cli.sh "
if [ $# -gt 0 ]; then
    programs=("$@")
else
    # Without a GPU the programs that compile the most go first (bank,
    # runner: the rest are then served their compiles), then the slow
    # ones, longest first (a long one started last would end the run on
    # one core), then the unit tests, the GPU's verdicts and everything
    # else; emu.sh comes after bank.sh and runner.sh have handed it their
    # PTX (tests/lib.sh, emu_ptx_keep).  On a GPU machine the
    # grader's own GPU locks do not keep its runs from tests/gpu.sh's
    # timed sections (every tutor check shares the machine's lock; a
    # grader does not take it), so there the graders go first and gpu.sh
    # starts only when every program before it has ended ("--barrier"):
    # once it overlapped the grader's runs and lab 01's solution measured
    # 0.13x instead of 0.16x.
    # The two that only wait go before all of them, GPU or not: they take
    # no place, and one begun last would end the run alone on an idle
    # machine (lock.sh did, for 14 s; gpuvia.sh, for 25).  gpuvia.sh and
    # cli.sh, placeless too without a GPU, start with the program that
    # takes runner.sh's place: by then their labs' compiles are in the
    # cache (begun at once, they cost the run 8 s more CPU).
    # before and after: the programs ahead of the unit tests and behind them.
    if [ $gpu = 1 ]; then
        before=""
        after="tests/grade.sh tests/grade_batch.sh tests/bank.sh tests/runner.sh tests/grade_calibrate.sh tests/cli.sh tests/labs.sh
               --barrier tests/gpu.sh"
    else
        before="tests/bank.sh tests/runner.sh tests/grade.sh tests/gpuvia.sh tests/cli.sh tests/native.sh tests/tui.sh
                tests/edit_verdict.sh tests/counters.sh tests/fuzz.sh tests/grade_calibrate.sh tests/labs.sh"
        after="tests/gpu.sh"
    fi
    programs=(tests/lock.sh build/tests/test_watch $before build/tests/test_* $after
              $(ls tests/*.sh | grep -vxF -e tests/run.sh -e tests/lib.sh $(printf -- '-e %s ' $before ${after//--barrier/})))
fi
jobs_max=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs_max" -le 4 ] || jobs_max=4
[ "$jobs_max" -ge 1 ] || jobs_max=1
work=$(mktemp -d "${TMPDIR:-/tmp}/cudatutor-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The programs check the same stubs, solutions and fixtures many times from
# many temporary workbooks: nvcc's results are shared among them by what
# went in (tutor/check/check_cache.c), in a folder that lives as long as
# this run, so no entry outlives the toolkit or the code that made it.
# tests/cache.sh shows what is and is not served from it.
# The grader's builds add to it too, as its sandbox's user (nobody, when
# the suite runs as root): the folder is open to every user, as /tmp is.
if [ -z "${CUDATUTOR_COMPILE_CACHE:-}" ]; then
    export CUDATUTOR_COMPILE_CACHE=$work/nvcc-cache
    chmod 711 "$work" && mkdir -m 1777 "$CUDATUTOR_COMPILE_CACHE"
fi
# Each script's scratch folder (tests/lib.sh) is listed here, and must be
# gone when the script has ended.
export TEST_SCRATCH_LOG=$work/scratch
: > "$TEST_SCRATCH_LOG"
names=() running=0 next=0
# flush: reports, in order, the programs that have ended and all before them.
flush() {
    while [ "$next" -lt "${#names[@]}" ] && [ -s "$work/$next.rc" ]; do
        read -r rc secs cpu < "$work/$next.rc"
        report "${names[$next]}" "$work/$next.out" "$rc" "$secs" "$cpu"
        next=$((next + 1))
    done
}
declare -A slot=()
# reap: waits for one program to end; a place is free again if it had one.
reap() {
    local pid=
    wait -n -p pid
    if [ -n "$pid" ] && [ -n "${slot[$pid]:-}" ]; then
        unset "slot[$pid]"
        running=$((running - 1))
    fi
    flush
}
declare -A listed=()
for t in "${programs[@]}"; do
    # (lock.sh and test_watch come first, and again where the globs put them)
    [ "$t" = --barrier ] || [ -z "${listed[$t]:-}" ] || continue
    listed[$t]=1
    case $t in
        --barrier) while [ "$running" -gt 0 ]; do reap; done; continue ;;
        *.sh) [ -f "$t" ] || continue; name=$(basename "$t" .sh); cmd=(bash "$t") ;;
        *) [ -x "$t" ] || continue; name=$(basename "$t"); cmd=("$t") ;;
    esac
    i=${#names[@]}
    names+=("$name")
    waiter=0
    [[ $waiters == *" $t "* ]] && waiter=1
    while [ $waiter = 0 ] && [ "$running" -ge "$jobs_max" ]; do reap; done
    # The rc file is written last, by a rename: its presence means done.
    # Its CPU seconds are its children's in `times`: the program and
    # everything it waited for, so that a slow line on a busy machine can
    # be told from a costly one.
    ( t0=$SECONDS; "${cmd[@]}" > "$work/$i.out" 2>&1 < /dev/null
      rc=$?; times > "$work/$i.times"
      cpu=$(awk 'END { t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%d", t + 0.5 }' "$work/$i.times")
      echo "$rc $((SECONDS - t0)) $cpu" > "$work/$i.rc.tmp" && mv "$work/$i.rc.tmp" "$work/$i.rc" ) &
    if [ $waiter = 0 ]; then
        slot[$!]=1
        running=$((running + 1))
    fi
done
while [ "$running" -gt 0 ]; do reap; done
wait
flush

left=$(while read -r script dir; do [ ! -e "$dir" ] || echo "$script"; done < "$TEST_SCRATCH_LOG" | sort -u)
if [ -n "$left" ]; then
    fail=$((fail + 1)); failures+=(scratch)
    echo "  not ok - every test script removes its scratch folder (left by: $(echo $left))"
fi

[ ${#failures[@]} -gt 0 ] && echo "failing: ${failures[*]} (full output in $log)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
