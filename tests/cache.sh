#!/usr/bin/env bash
# tests/cache.sh — the test suite's compile cache ($CUDATUTOR_COMPILE_CACHE,
# tutor/check/check_cache.c): a copy of a file at another path is served
# from it with the same verdict, naming its own path; a compile error too;
# and what the key does not cover is never served stale — an include beside
# the source and a changed lab.h each compile afresh, with the verdict the
# new bytes deserve; two checks that miss on one key at once compile it once.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

export CUDATUTOR_COMPILE_CACHE=$TMP/cache
WB=$TMP/wb
make_workbook "$WB"
export CUDATUTOR_HARNESS_DIR="$ROOT/build/harness"
sol=$(lab_dir 08)
mkdir -p "$TMP/a" "$TMP/b"
cp "solutions/$sol/kernel.cu" "$TMP/a/kernel.cu"
cp "solutions/$sol/kernel.cu" "$TMP/b/copy.cu"

# chk NAME LAB FILE [ROOT]: check LAB of FILE (in workbook ROOT) into $TMP/NAME.json.
chk() {
    "$TUTOR" --root "${4:-$ROOT}" check "$2" --file "$3" --work-dir "$TMP/w-$1" --json > "$TMP/$1.json" 2>/dev/null
}
# fresh NAME: 1 when the compile of NAME ran nvcc, 0 when the cache served it.
fresh() { jq -r 'if .compile.seconds > 0 then 1 else 0 end' "$TMP/$1.json"; }

chk first 08 "$TMP/a/kernel.cu"
chk second 08 "$TMP/b/copy.cu"
check "the first compile runs nvcc and stores it" test "$(fresh first)$(ls "$TMP/cache" | wc -l)" = 11
check "a copy at another path is served from the cache" test "$(fresh second)" = 0
# What was measured (the GPU's bandwidth, the timings) and the values of
# each seed's inputs differ from run to run on a GPU; the rest is the
# compile's doing.
unmeasured='{status, tests: [.tests[]? | {name, pass}], first_failing_n, seen: .plan.seen, compile: (.compile | del(.seconds)), symbols, techniques}'
same=$(diff <(jq -S "$unmeasured" "$TMP/first.json") <(jq -S "$unmeasured" "$TMP/second.json"))
check "the served check is the same verdict, tests and plans${same:+ ($same)}" test -z "$same"
check "its dependency list names the copy's path" grep -q "$TMP/b/copy.cu" "$TMP/w-second/kernel.d"
# the CPU judge reads a kernel's registers from the cubin beside its PTX:
# a served compile without it counted 0 and let a kernel past its block limit
check "the served compile has its cubin beside its PTX, as nvcc wrote it" \
    cmp -s "$(ls "$TMP"/w-first/keep/kernel.sm_*.cubin)" "$(ls "$TMP"/w-second/keep/copy.sm_*.cubin 2>/dev/null || echo /none)"

printf '#include "lab.h"\nthis is not CUDA;\n' > "$TMP/a/bad.cu"
cp "$TMP/a/bad.cu" "$TMP/b/bad2.cu"
chk bad1 01 "$TMP/a/bad.cu"
chk bad2 01 "$TMP/b/bad2.cu"
check "a compile error is served from the cache too" test "$(fresh bad1)$(fresh bad2)" = 10
check "and its diagnostic names the copy, not the first file" \
    test "$(jq -r '.compile.diagnostics[0] | "\(.file):\(.line)"' "$TMP/bad2.json")" = "$TMP/b/bad2.cu:2"

# An include beside the source is outside the key: such a compile is never
# stored, so editing the included file is judged afresh.
mkdir -p "$TMP/inc"
printf '#include "lab.h"\n#include "part.cuh"\n' > "$TMP/inc/kernel.cu"
cp "solutions/$sol/kernel.cu" "$TMP/inc/part.cuh"
chk inc1 08 "$TMP/inc/kernel.cu"
printf 'this is not CUDA;\n' > "$TMP/inc/part.cuh"
chk inc2 08 "$TMP/inc/kernel.cu"
check "an include beside the source: compiled each time" test "$(fresh inc1)$(fresh inc2)" = 11
check "and the edited include is judged: $(jget "$TMP/inc1.json" .status) then $(jget "$TMP/inc2.json" .status)" \
    test "$(jget "$TMP/inc2.json" .status)" = compile_error -a "$(jget "$TMP/inc1.json" .status)" != compile_error

# A workbook elsewhere with the same lab.h (the grader's copy of one) is
# served, and the list of what was read names its own lab.h: the include
# rule looks at those paths.
chk copywb 08 "$TMP/b/copy.cu" "$WB"
check "another workbook's same lab.h is served, named at its own path" \
    test "$(fresh copywb)" = 0 -a -n "$(grep -F "$WB/tutor/lab.h" "$TMP/w-copywb/kernel.d")" \
         -a -z "$(grep -F "$ROOT/tutor/lab.h" "$TMP/w-copywb/kernel.d")"

# lab.h is in the key: a workbook whose lab.h differs compiles afresh.
echo '#define LAB_CACHE_TEST 1' >> "$WB/tutor/lab.h"
chk other 08 "$TMP/b/copy.cu" "$WB"
check "a different lab.h compiles afresh" test "$(fresh other)" = 1

# Two checks that miss on one key at the same moment (two test programs
# checking one solution): the second waits for the first's compile and is
# served it, instead of running nvcc beside it.
mkdir -p "$TMP/c1" "$TMP/c2"
{ cat "solutions/$(lab_dir 07)/kernel.cu"; echo "// twin"; } > "$TMP/c1/kernel.cu"
cp "$TMP/c1/kernel.cu" "$TMP/c2/kernel.cu"
chk twin1 07 "$TMP/c1/kernel.cu" & chk twin2 07 "$TMP/c2/kernel.cu" & wait
check "two checks of one new file at once run nvcc once ($(fresh twin1)+$(fresh twin2))" \
    test "$(( $(fresh twin1) + $(fresh twin2) ))" = 1 -a "$(jget "$TMP/twin1.json" .status)" = "$(jget "$TMP/twin2.json" .status)"
