#!/usr/bin/env bash
# tests/fuzz.sh — no submission can make a check end in internal_error, the
# verdict that takes a lab out of the grade, and no message repeats bytes a
# submission chose.  Submissions whose host code ends or stays silent in
# every way it controls: every exit code 0-255 by a raw exit_group from the
# launcher, the codes around the sandbox's own (0-2, 119-128, 255) from a
# constructor, an .init_array and a .ctors entry, every signal to itself, a
# bad access, abort, a spin, output that looks like the judge's protocol; device code whose PTX holds comments that look like
# the kernel's declaration; a launcher that puts a file's bytes (.incbin)
# into a memset the judge must refuse.
# tests/fuzz/host_behaviours.cu is compiled once and its runner patched per
# behaviour (the mode and value after "FUZZCFG:"), then judged by the judge
# itself without a GPU (a few hundred runs, about 20 ms each), and a few of
# them through `cudatutor check --run-only`, the path the tutor and the
# grader take.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

judge="$ROOT/build/harness/judge_reduce_int"
W="$TMP/host"
# The two whole checks (PTX look-alikes, the .incbin memset) compile
# meanwhile; their verdicts are read at the end.
head -c 16 /dev/urandom > "$TMP/secret"
sed "s|@SECRET@|$TMP/secret|" tests/fuzz/incbin_memset.cu.in > "$TMP/incbin_memset.cu"
par_check "$TMP/ptx.json" 01 --file tests/fuzz/ptx_lookalikes.cu --no-sanitize --quick --work-dir "$TMP/ptx"
par_check "$TMP/inc.json" 01 --file "$TMP/incbin_memset.cu" --no-sanitize --quick --work-dir "$TMP/inc"
"$TUTOR" check 01 --file tests/fuzz/host_behaviours.cu --build-only --work-dir "$W" --json > "$TMP/build.json"
check "the fuzz submission builds" test "$(jget "$TMP/build.json" .status)" = no_gpu
offset=$(grep -obUaP 'FUZZCFG:' "$W/runner" | head -n1 | cut -d: -f1)
check "its runner holds one FUZZCFG marker" test -n "$offset" -a "$(grep -caP 'FUZZCFG:' "$W/runner")" = 1
cp "$W/runner" "$TMP/runner"

# The loop below judges a few hundred behaviours: its steps start no
# process but the judge and the patch's dd (a process costs 5-10 ms here,
# more than a judge's run).
# patch MODE VALUE [RUNNER]: writes the behaviour after the marker.
patch() {
    local oct
    printf -v oct '%03o' "$2"
    printf "%s\\$oct" "$1" | dd of="${3:-$TMP/runner}" bs=1 seek=$((offset + 8)) conv=notrunc status=none
}
# judge_status: the judge's verdict on $TMP/runner, without a GPU, in
# $status (none when its report says none); the report in $json and
# $TMP/j.json.
judge_status() {
    : > "$TMP/j.json"
    CUDA_VISIBLE_DEVICES= "$judge" --json "$TMP/j.json" --lab 01 --family reduce_int --mode check --seed 1 \
        --runner "$TMP/runner" --runner-out "$TMP/r.out" --fatbin "$W/keep/host_behaviours.fatbin" \
        --ptx "$W/keep/host_behaviours.ptx" --plan-timeout 0.3 --sizes 1,1000 --gpu-lock "$TMP/lock" \
        > /dev/null 2>&1
    json=
    read -rd '' json < "$TMP/j.json"
    status=none
    [[ $json =~ \"status\":\ *\"([a-z_]*)\" ]] && status=${BASH_REMATCH[1]}
}

# One line per behaviour that got a verdict it must not: "MODE VALUE: STATUS".
# Exits end the process: runtime_error, whatever the code; signals are the
# student's too (rejected for the sandbox's SIGSYS, timeout for a stop,
# no_gpu for one the process ignores).
wrong=() internal=() echoed=()
run_one() {    # run_one MODE VALUE ALLOWED-REGEX
    local got said="(exit|status|signal|code) [(]?$2([^[:alnum:]_]|\$)"
    patch "$1" "$2"
    judge_status
    got=$status
    [ "$got" = internal_error ] && internal+=("$1 $2")
    [[ $got =~ ^($3)$ ]] || wrong+=("$1 $2: $got")
    # The exit code or signal number the submission picked is not echoed.
    if [ "$2" -ge 2 ] && [[ $json =~ $said ]]; then
        echoed+=("$1 $2")
    fi
}
for v in $(seq 0 255); do
    run_one x "$v" runtime_error
done
for v in 0 1 2 42 119 120 121 122 123 124 125 126 127 128 255; do
    run_one c "$v" runtime_error
    run_one i "$v" runtime_error
    run_one o "$v" runtime_error
done
for v in $(seq 1 64); do
    run_one s "$v" 'runtime_error|rejected|timeout|no_gpu'
done
for v in 6 9 11 31; do
    run_one S "$v" 'runtime_error|rejected'
done
run_one f 0 runtime_error
run_one a 0 runtime_error
run_one h 0 timeout
run_one p 0 no_gpu
run_one n 0 no_gpu
check "no exit code, signal or silence of the runner is judged internal_error (${#internal[@]} were)" \
    test ${#internal[@]} = 0
[ ${#internal[@]} = 0 ] || echo "#   internal_error: ${internal[*]:0:20}"
check "every exit is runtime_error, every signal the student's verdict (${#wrong[@]} were not)" test ${#wrong[@]} = 0
[ ${#wrong[@]} = 0 ] || echo "#   ${wrong[*]:0:20}"
check "no message names the exit code or signal number the launcher chose" test ${#echoed[@]} = 0
[ ${#echoed[@]} = 0 ] || echo "#   ${echoed[*]:0:20}"

# The other side: a set-up step that fails before the exec is the
# workbook's, and says which step (a runner that is not there, an output
# file in a folder that is not there).
rm -f "$TMP/j.json"
CUDA_VISIBLE_DEVICES= "$judge" --json "$TMP/j.json" --lab 01 --family reduce_int --mode check --seed 1 \
    --runner "$TMP/no-runner" --runner-out "$TMP/r.out" --fatbin "$W/keep/host_behaviours.fatbin" \
    --ptx "$W/keep/host_behaviours.ptx" --plan-timeout 0.3 --sizes 1 --gpu-lock "$TMP/lock" > /dev/null 2>&1
check "a runner that cannot be executed is internal_error, naming the sandbox's step" \
    test "$(jq -r '.status + ": " + .messages[-1]' "$TMP/j.json")" = \
         "internal_error: internal: could not start the runner: its sandbox could not be set up (opening /dev/null, the output file or the runner: No such file or directory)"
rm -f "$TMP/j.json"
CUDA_VISIBLE_DEVICES= "$judge" --json "$TMP/j.json" --lab 01 --family reduce_int --mode check --seed 1 \
    --runner "$TMP/runner" --runner-out "$TMP/no-folder/r.out" --fatbin "$W/keep/host_behaviours.fatbin" \
    --ptx "$W/keep/host_behaviours.ptx" --plan-timeout 0.3 --sizes 1 --gpu-lock "$TMP/lock" > /dev/null 2>&1
check "an output file that cannot be made is internal_error too" test "$(jget "$TMP/j.json" .status)" = internal_error

# The same through the tutor's check, which runs the judge as a child and
# reads its report: the runner of the build patched in place.
for b in "x 121" "c 122" "i 123" "o 120" "s 11" "S 6" "x 0" "p 0"; do
    # shellcheck disable=SC2086
    patch $b "$W/runner"
    CUDA_VISIBLE_DEVICES= "$TUTOR" check 01 --file tests/fuzz/host_behaviours.cu --run-only --work-dir "$W" \
        --no-sanitize --json > "$TMP/e2e.json" 2> /dev/null
    got=$(jget "$TMP/e2e.json" .status)
    want=runtime_error
    [ "$b" = "p 0" ] && want=no_gpu
    check "check --run-only, launcher behaviour '$b': $want" test "$got" = "$want"
    [ "$got" = "$want" ] || echo "#   $(jget "$TMP/e2e.json" .summary)"
done

# PTX comments that declare the kernel otherwise: the kernel is right, and
# its verdict is no_gpu without a GPU, pass with one.
par_wait
want=no_gpu
have_gpu && want=pass
got=$(jget "$TMP/ptx.json" .status)
check "PTX comments that look like the kernel's .entry change nothing: $want" test "$got" = "$want"
[ "$got" = "$want" ] || echo "#   $(jget "$TMP/ptx.json" .summary)"

# A file's bytes carried into a refused memset (size and address) must not
# come back in the report: 16 random bytes, which the test then looks for
# as every number a message could print them as.
check "a memset carrying a file's bytes is rejected" test "$(jget "$TMP/inc.json" .status)" = rejected
renderings=$(python3 - "$TMP/secret" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
for off in range(0, 9):
    for fmt in ("<Q", "<q", "<I", "<i"):
        size = struct.calcsize(fmt)
        if off + size <= len(data):
            v = struct.unpack_from(fmt, data, off)[0]
            if abs(v) >= 1 << 16:          # short numbers occur by chance
                print(v)
                print("%x" % (v & (1 << 8 * size) - 1))
EOF
)
leaks=0
for r in $renderings; do
    grep -qi -- "$r" "$TMP/inc.json" && leaks=$((leaks + 1))
done
check "the report holds none of the file's bytes, as a number in any base" test "$leaks" = 0
