#!/usr/bin/env bash
# tests/edit_verdict.sh — what keeps edit -> verdict short, without a GPU:
# the GPU judge started beside the compile (check_judge.c,
# judge_early_begin), and cooperative_groups.h compiled without libcu++
# (check_build.c, CG_LIGHT) unless the file needs it.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

# A check starts its GPU judge while nvcc compiles: the judge waits at its gate (--gate 1) and goes on
# once the build is whole; a build that fails leaves no judge behind.  The
# stand-in nvcc says when it starts and takes its time, so the judge can be
# seen waiting; the compile cache is off, so nvcc is asked.
mkdir -p "$TMP/slow"
real_nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
printf '#!/bin/sh\n: > "%s/slow/compiling"\nsleep 3\ncase "$*" in *broken*) exit 1 ;; esac\nexec %s "$@"\n' \
    "$TMP" "$real_nvcc" > "$TMP/slow/nvcc"
chmod +x "$TMP/slow/nvcc"
early_check() {     # early_check NAME FILE: starts a check; waits for nvcc's start
    rm -f "$TMP/slow/compiling"
    env -u CUDATUTOR_COMPILE_CACHE NVCC="$TMP/slow/nvcc" "$TUTOR" check 01 --file "$2" --no-sanitize --quick \
        --work-dir "$TMP/$1" --json > "$TMP/$1.json" 2> "$TMP/$1.err" &
    early_pid=$!
    for _ in $(seq 600); do [ -e "$TMP/slow/compiling" ] && break; sleep 0.1; done
}
judges_of() { pgrep -f -- "--json $TMP/$1/harness.json" | wc -l; }
early_check early solutions/01-interleaved-addressing/kernel.cu
check "early judge: the GPU judge runs while nvcc compiles, waiting at its gate" \
    pgrep -f -- "--json $TMP/early/harness.json .*--gate 1"
wait "$early_pid"
# (the trials with a GPU; without one, as the suite asks, the plans only)
if have_gpu; then
    check "early judge: it judges once the build is whole (lab 01's solution passes)" \
        test "$(jget "$TMP/early.json" .status)" = pass
else
    check "early judge: it judges once the build is whole (lab 01's solution's plans checked)" \
        test "$(jget "$TMP/early.json" .status)" = no_gpu -a "$(jq '.plan.seen | length' "$TMP/early.json")" -gt 0
fi
cp solutions/01-interleaved-addressing/kernel.cu "$TMP/broken.cu"
early_check early-broken "$TMP/broken.cu"
check "early judge: waiting while a build that fails compiles" test "$(judges_of early-broken)" -ge 1
wait "$early_pid"
check "early judge: a build that fails ends in compile_error" \
    test "$(jget "$TMP/early-broken.json" .status)" = compile_error
check "early judge: and leaves no judge behind" test "$(judges_of early-broken)" = 0

# cooperative_groups.h: lab 16's solution compiles without libcu++'s
# headers (its list of files read has no cuda/atomic), and a file that
# uses what only they give (cuda::atomic_ref through the header) still
# compiles, the second time with them.
sol16=$(ls solutions/16-*/kernel.cu)
{ cat "$sol16"; printf '\n__device__ int cg_extra(int *p)\n{\n    cuda::atomic_ref<int, cuda::thread_scope_device> a(*p);\n    return a.fetch_add(1);\n}\n'; } \
    > "$TMP/cg-atomic.cu"
for x in "sol:$sol16" "atomic:$TMP/cg-atomic.cu"; do
    env -u CUDATUTOR_COMPILE_CACHE "$TUTOR" check 16 --file "${x#*:}" --build-only --work-dir "$TMP/cg-${x%%:*}" \
        --json > "$TMP/cg-${x%%:*}.json" 2> /dev/null
done
check "cooperative groups: lab 16's solution builds" test "$(jget "$TMP/cg-sol.json" .compile.ok)" = true
check "cooperative groups: without libcu++'s atomics (none in nvcc's list of files read)" \
    test "$(grep -c 'cuda/atomic' "$TMP/cg-sol/kernel.d")" = 0
check "cooperative groups: a file using cuda::atomic_ref through the header builds too" \
    test "$(jget "$TMP/cg-atomic.json" .compile.ok)" = true
check "cooperative groups: that one with libcu++'s headers" test "$(grep -c 'cuda/atomic' "$TMP/cg-atomic/kernel.d")" -ge 1
