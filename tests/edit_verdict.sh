#!/usr/bin/env bash
# tests/edit_verdict.sh — what keeps edit -> verdict short, without a GPU:
# the GPU judge started beside the compile (check_judge.c,
# judge_early_begin), and without a GPU the CPU judge beside it;
# cooperative_groups.h compiled without libcu++ (check_build.c, CG_LIGHT)
# unless the file needs it; nvcc's steps two at a time (check_nvcc.c); the
# runner's link beside the rules.
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
judges_of() { pgrep -f -- "--json $TMP/$1/(cpu-)?harness.json" | wc -l; }
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

# Without a GPU (no device node a CUDA program could open) and with the
# emulator on, the CPU judge starts beside the GPU judge, at its gate too;
# both go when the build is whole, the GPU judge's dry run still decides
# first, and the CPU judge's verdict follows: lab 01's solution passes on
# the CPU, its stub fails there.
if [ ! -e /dev/nvidiactl ] && [ ! -e /dev/dxg ] && ! have_gpu; then
    cpu_early() {   # cpu_early NAME FILE
        rm -f "$TMP/slow/compiling"
        env -u CUDATUTOR_COMPILE_CACHE -u CUDATUTOR_NO_EMULATOR NVCC="$TMP/slow/nvcc" "$TUTOR" check 01 \
            --file "$2" --no-sanitize --quick --work-dir "$TMP/$1" --json > "$TMP/$1.json" 2> "$TMP/$1.err" &
        early_pid=$!
        for _ in $(seq 600); do [ -e "$TMP/slow/compiling" ] && break; sleep 0.1; done
    }
    cpu_early cpu-early solutions/01-interleaved-addressing/kernel.cu
    check "early CPU judge: without a GPU it waits at its gate beside the GPU judge while nvcc compiles" \
        pgrep -f -- "--json $TMP/cpu-early/cpu-harness.json .*--gate 1"
    wait "$early_pid"
    check "early CPU judge: lab 01's solution passes on the CPU" \
        test "$(jget "$TMP/cpu-early.json" .status)" = pass -a "$(jget "$TMP/cpu-early.json" .emulator.max_n)" -gt 0
    check "early CPU judge: its report is its own, the GPU judge's dry run beside it" \
        test "$(jget "$TMP/cpu-early/harness.json" .status)" = no_gpu -a \
             "$(jget "$TMP/cpu-early/cpu-harness.json" .status)" = pass
    cpu_early cpu-early-stub "$(stub_file 01)"
    wait "$early_pid"
    check "early CPU judge: lab 01's stub fails on the CPU" test "$(jget "$TMP/cpu-early-stub.json" .status)" = fail
    cp solutions/01-interleaved-addressing/kernel.cu "$TMP/broken2.cu"
    cpu_early early-broken2 "$TMP/broken2.cu"
    wait "$early_pid"
    check "early CPU judge: a build that fails leaves neither judge behind" \
        test "$(jget "$TMP/early-broken2.json" .status)" = compile_error -a "$(judges_of early-broken2)" = 0
else
    skip "early CPU judge: beside the GPU judge" "this machine shows a GPU device"
fi

# nvcc's steps two at a time: nvcc is asked for its plan alone (--dryrun),
# and what the steps leave is what nvcc would: the verdict, the log (each
# step's output in nvcc's order up to the first that failed) and the files
# the compile read (both preprocessings': a header only the host's side
# includes is listed too), for a file that builds, one the front end
# refuses, one ptxas refuses and one whose host side alone includes a
# header.  CUDATUTOR_NVCC_SPLIT=0 runs nvcc as a whole.
printf '#!/bin/sh\necho "$*" >> "%s/nvcc.log"\nexec %s "$@"\n' "$TMP" "$real_nvcc" > "$TMP/nvcc-log"
chmod +x "$TMP/nvcc-log"
sol01=solutions/01-interleaved-addressing/kernel.cu
cp "$sol01" "$TMP/split-ok.cu"
{ cat "$sol01"; printf '\n__global__ void split_bad(int *p)\n{\n    p[0] = not_declared;\n}\n'; } > "$TMP/split-front.cu"
{ cat "$sol01"; printf '\n__global__ void split_big(int *p)\n{\n    __shared__ int big[100000];\n'
  printf '    big[threadIdx.x] = 1;\n    __syncthreads();\n    p[0] = big[3];\n}\n'; } > "$TMP/split-ptxas.cu"
{ printf '#ifndef __CUDA_ARCH__\n#include <sys/utsname.h>\n#endif\n'; cat "$sol01"; } > "$TMP/split-host.cu"
same_build() {      # same_build NAME: nvcc whole and in steps agree on $TMP/NAME.cu
    for mode in whole steps; do
        rm -f "$TMP/nvcc.log"
        split=1; [ $mode = whole ] && split=0
        env -u CUDATUTOR_COMPILE_CACHE CUDATUTOR_NVCC_SPLIT=$split NVCC="$TMP/nvcc-log" "$TUTOR" check 01 \
            --file "$TMP/$1.cu" --build-only --work-dir "$TMP/$1-$mode" --json > "$TMP/$1-$mode.json" 2> /dev/null
        jq -c '[.status, .compile.ok, .compile.log, .compile.diagnostics]' "$TMP/$1-$mode.json" \
            | sed "s#$TMP/$1-$mode#W#g" > "$TMP/$1-$mode.verdict"
        tr ' \\' '\n\n' < "$TMP/$1-$mode/kernel.d" 2> /dev/null | grep -v -e ':$' -e '^$' -e "^$TMP/$1-$mode" \
            | sort -u > "$TMP/$1-$mode.read"
        cp "$TMP/nvcc.log" "$TMP/$1-$mode.nvcc"
    done
    cmp -s "$TMP/$1-whole.verdict" "$TMP/$1-steps.verdict" && cmp -s "$TMP/$1-whole.read" "$TMP/$1-steps.read"
}
asked_plan() { test "$(wc -l < "$TMP/$1-steps.nvcc")" = 1 && grep -q -- '--dryrun' "$TMP/$1-steps.nvcc"; }
check "nvcc in steps: a file that builds, as nvcc builds it" same_build split-ok
check "nvcc in steps: nvcc was asked for its plan alone" asked_plan split-ok
check "nvcc in steps: the runner linked, the verdict the build's" \
    test "$(jget "$TMP/split-ok-steps.json" .status)" = no_gpu -a -x "$TMP/split-ok-steps/runner"
check "nvcc in steps: a front end's error, the same log" same_build split-front
check "nvcc in steps: which is a compile error naming its line" \
    test "$(jget "$TMP/split-front-steps.json" .status)" = compile_error -a \
         "$(jq '[.compile.diagnostics[] | select(.severity == "error")][0].line' "$TMP/split-front-steps.json")" -gt 0
check "nvcc in steps: ptxas's error, the same log" same_build split-ptxas
check "nvcc in steps: which is ptxas's" grep -q 'ptxas' "$TMP/split-ptxas-steps.verdict"
check "nvcc in steps: a header the host's side alone includes is among the files read" \
    same_build split-host
check "nvcc in steps: (that header is there)" grep -q 'utsname' "$TMP/split-host-steps.read"
