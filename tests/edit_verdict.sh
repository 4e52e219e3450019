#!/usr/bin/env bash
# tests/edit_verdict.sh — what keeps edit -> verdict short, without a GPU:
# the GPU judge started beside the compile (check_judge.c,
# judge_early_begin), and without a GPU the CPU judge beside its dry run;
# cooperative_groups.h compiled without libcu++ (check_build.c, CG_LIGHT)
# unless the file needs it; nvcc's steps two at a time (check_nvcc.c); the
# runner's link beside the rules.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

# A check starts its GPU judge while nvcc compiles: the judge waits at its gate (--gate 1) and goes on
# once the build is whole; a build that fails leaves no judge behind.  The
# stand-in nvcc says when it starts and goes on only once the test has
# looked (slow/go; 30 s at most), so the judge can be seen waiting however
# busy the machine (it slept 3 s: 6 s of the script's wall time, and not
# enough for a machine slow enough); the compile cache is off, so nvcc is
# asked.
mkdir -p "$TMP/slow"
real_nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
printf '#!/bin/sh\n: > "%s/slow/compiling"\ni=0\nwhile [ ! -e "%s/slow/go" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
case "$*" in *broken*) exit 1 ;; esac\nexec %s "$@"\n' "$TMP" "$TMP" "$real_nvcc" > "$TMP/slow/nvcc"
chmod +x "$TMP/slow/nvcc"
early_check() {     # early_check NAME FILE: starts a check; waits for nvcc's start (go lets it on)
    rm -f "$TMP/slow/compiling" "$TMP/slow/go"
    env -u CUDATUTOR_COMPILE_CACHE NVCC="$TMP/slow/nvcc" "$TUTOR" check 01 --file "$2" --no-sanitize --quick \
        --work-dir "$TMP/$1" --json > "$TMP/$1.json" 2> "$TMP/$1.err" &
    early_pid=$!
    for _ in $(seq 600); do [ -e "$TMP/slow/compiling" ] && break; sleep 0.1; done
}
judges_of() { pgrep -f -- "--json $TMP/$1/(cpu-)?harness.json" | wc -l; }
early_check early solutions/01-interleaved-addressing/kernel.cu
check "early judge: the GPU judge runs while nvcc compiles, waiting at its gate" \
    pgrep -f -- "--json $TMP/early/harness.json .*--gate 1"
: > "$TMP/slow/go"
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
: > "$TMP/slow/go"
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
# emulator on, the CPU judge starts beside the GPU judge's dry run once the
# build is whole; the dry run still decides first, and the CPU judge's
# verdict follows: lab 01's solution passes on the CPU, its stub fails
# there.  Seen with a launcher whose process starts slowly (a constructor
# that counts for a while): both judges at once.
if [ ! -e /dev/nvidiactl ] && [ ! -e /dev/dxg ] && ! have_gpu; then
    cpu_beside() {   # cpu_beside NAME FILE: checks FILE, noting whether both judges ran at once
        rm -f "$TMP/$1.both"
        env -u CUDATUTOR_NO_EMULATOR "$TUTOR" check 01 --file "$2" --no-sanitize --quick \
            --work-dir "$TMP/$1" --json > "$TMP/$1.json" 2> "$TMP/$1.err" &
        local pid=$!
        # (looked for until seen: each look is two scans of every process)
        while kill -0 "$pid" 2> /dev/null && [ ! -e "$TMP/$1.both" ]; do
            pgrep -f -- "--json $TMP/$1/harness.json" > /dev/null &&
                pgrep -f -- "--json $TMP/$1/cpu-harness.json" > /dev/null && : > "$TMP/$1.both"
            sleep 0.02
        done
        wait "$pid"
    }
    { printf 'static void slow_start(void) __attribute__((constructor));\n'
      printf 'static void slow_start(void)\n{\n    volatile unsigned long x = 0;\n'
      printf '    for (unsigned long i = 0; i < 200000000ul; i++)\n        x += i;\n}\n'
      cat solutions/01-interleaved-addressing/kernel.cu; } > "$TMP/slow-start.cu"
    cpu_beside beside "$TMP/slow-start.cu"
    check "CPU judge beside: without a GPU it runs beside the GPU judge's dry run" test -e "$TMP/beside.both"
    check "CPU judge beside: lab 01's solution passes on the CPU" \
        test "$(jget "$TMP/beside.json" .status)" = pass -a "$(jget "$TMP/beside.json" .emulator.max_n)" -gt 0
    check "CPU judge beside: its report is its own, the GPU judge's dry run's beside it" \
        test "$(jget "$TMP/beside/harness.json" .status)" = no_gpu -a \
             "$(jget "$TMP/beside/cpu-harness.json" .status)" = pass
    cpu_beside beside-stub "$(stub_file 01)"
    check "CPU judge beside: lab 01's stub fails on the CPU" test "$(jget "$TMP/beside-stub.json" .status)" = fail
else
    skip "CPU judge beside: the GPU judge's dry run" "this machine shows a GPU device"
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

# The host compiler's headers precompiled (check_pch.c): cudafe++'s file
# compiled as #include of its headers' .gch and the student's part, kept
# in the build for every lab's next compile.  The same object as without
# it (CUDATUTOR_HOST_PCH=0), and cudafe++'s file put back; a host compile
# that says anything (a warning, an assembler's error) is nvcc's word for
# word, run again without the .gch; a .gch that is not one is no harm.
{ cat "$sol01"; printf '\nstatic int split_warn(int x)\n{\n    if (x)\n        return 1;\n}\n'
  printf 'int split_warn_use(int x)\n{\n    return split_warn(x);\n}\n'; } > "$TMP/split-warn.cu"
{ cat "$sol01"; printf '\nvoid split_asm(void)\n{\n    asm("not_an_instruction %%eax");\n}\n'; } > "$TMP/split-asm.cu"
pch_dir=build/check/host-pch
code_of() { objdump -d "$1" | tail -n +3; }    # the object's code, its file's name left out
env -u CUDATUTOR_COMPILE_CACHE CUDATUTOR_HOST_PCH=0 "$TUTOR" check 01 --file "$TMP/split-ok.cu" --build-only \
    --work-dir "$TMP/split-nopch" --json > "$TMP/split-nopch.json" 2> /dev/null
check "host headers precompiled: a .gch kept in the build" ls "$pch_dir"/*.h.gch
check "host headers precompiled: the same code as the host compiler's without it" \
    cmp -s <(code_of "$TMP/split-ok-steps/kernel.o") <(code_of "$TMP/split-nopch/kernel.o")
check "host headers precompiled: cudafe++'s file put back" \
    cmp -s "$TMP/split-ok-steps/keep/split-ok.cudafe1.cpp" "$TMP/split-nopch/keep/split-ok.cudafe1.cpp"
check "host headers precompiled: a host compiler's warning, nvcc's log" same_build split-warn
check "host headers precompiled: (the host compiler's warning is there)" \
    grep -q 'control reaches end of non-void function' "$TMP/split-warn-steps.verdict"
check "host headers precompiled: the assembler's error, nvcc's log" same_build split-asm
check "host headers precompiled: (a compile error)" \
    test "$(jget "$TMP/split-asm-steps.json" .status)" = compile_error
for g in "$pch_dir"/*.h.gch; do printf 'gpch junk' > "$g"; done
check "host headers precompiled: a .gch that is not one, the same build" same_build split-ok

# The host compiler's step begun before the fatbinary (check_early.c):
# once an earlier compile of the file left fatbinary's C file, the next
# compiles the host's side to assembly against a stand-in of it beside
# ptxas and fatbinary, then puts the real data in and assembles: the
# object and the files left are those of the step run after fatbinary
# (CUDATUTOR_HOST_EARLY=0), byte for byte.  A stand-in gcc in PATH says
# how it was asked.  When ptxas then fails, the log and verdict are nvcc's.
mkdir -p "$TMP/gccbin"
real_gcc=$(command -v gcc)
printf '#!/bin/sh
echo "$*" >> "%s/gcc.log"
exec %s "$@"
' "$TMP" "$real_gcc" > "$TMP/gccbin/gcc"
chmod +x "$TMP/gccbin/gcc"
early_build() {     # early_build DIR EARLY: builds $TMP/early.cu in $TMP/DIR with CUDATUTOR_HOST_EARLY=EARLY
    rm -f "$TMP/gcc.log"
    env -u CUDATUTOR_COMPILE_CACHE PATH="$TMP/gccbin:$PATH" CUDATUTOR_HOST_EARLY=$2 "$TUTOR" check 01 \
        --file "$TMP/early.cu" --build-only --work-dir "$TMP/$1" --json > "$TMP/$1.json" 2> /dev/null
}
cp "$sol01" "$TMP/early.cu"
early_build early-w 1      # leaves fatbinary's C file: the stand-in's pattern
early_build early-w 1
check "host compile begun early: the host's side compiled to assembly, then assembled" \
    test "$(grep -c -- ' -S -x c++ ' "$TMP/gcc.log")" = 1 -a "$(grep -c -- ' -x assembler ' "$TMP/gcc.log")" = 1
cp "$TMP/early-w/kernel.o" "$TMP/early.o"
cp "$TMP/early-w/keep/early.fatbin.c" "$TMP/early.fatbin.c"
check "host compile begun early: no file of its own left in the work folder" \
    test -z "$(ls "$TMP/early-w/keep" | grep -e '\.next$' -e '\.host\.s$')"
early_build early-w 0
check "host compile begun early: without it, no assembly asked for" test "$(grep -c -- ' -S ' "$TMP/gcc.log")" = 0
check "host compile begun early: the object, byte for byte" cmp -s "$TMP/early.o" "$TMP/early-w/kernel.o"
check "host compile begun early: fatbinary's C file, byte for byte" \
    cmp -s "$TMP/early.fatbin.c" "$TMP/early-w/keep/early.fatbin.c"
cp "$TMP/split-ptxas.cu" "$TMP/early.cu"
early_build early-w 1
env -u CUDATUTOR_COMPILE_CACHE CUDATUTOR_NVCC_SPLIT=0 "$TUTOR" check 01 --file "$TMP/early.cu" --build-only \
    --work-dir "$TMP/early-whole" --json > "$TMP/early-whole.json" 2> /dev/null
verdict_of() { jq -c '[.status, .compile.ok, .compile.log, .compile.diagnostics]' "$1" | sed "s#$2#W#g"; }
check "host compile begun early: ptxas failing beside it, nvcc's log and verdict" \
    test "$(verdict_of "$TMP/early-w.json" "$TMP/early-w")" = "$(verdict_of "$TMP/early-whole.json" "$TMP/early-whole")" \
    -a "$(jget "$TMP/early-w.json" .status)" = compile_error
# The plan is kept beside the build: the next compile of the same file
# (an edit) asks nvcc nothing; one whose plan could differ (nvcc's own
# variables changed) asks again.
rebuild() {     # rebuild [VAR=VALUE]: split-ok again, in its work folder; nvcc's calls
    rm -f "$TMP/nvcc.log"
    echo "// edit $(date +%s%N)" >> "$TMP/split-ok.cu"
    env -u CUDATUTOR_COMPILE_CACHE NVCC="$TMP/nvcc-log" "$@" "$TUTOR" check 01 --file "$TMP/split-ok.cu" \
        --build-only --work-dir "$TMP/split-ok-steps" --json > "$TMP/split-again.json" 2> /dev/null
    cat "$TMP/nvcc.log" 2> /dev/null | wc -l
}
check "nvcc in steps: an edit's compile asks nvcc nothing, its plan kept" \
    test "$(rebuild)" = 0 -a "$(jget "$TMP/split-again.json" .compile.ok)" = true
check "nvcc in steps: with nvcc's variables changed it asks for the plan again" \
    test "$(rebuild NVCC_APPEND_FLAGS=-DSPLIT_AGAIN=1)" = 1

# The runner's link (gold where binutils has it, beside the rules): a call
# the rules allow but the recording runtime lacks is rejected, named, as
# the linker reports it in either linker's quoting.
{ printf 'extern "C" void __cudaRegisterLinkedBinary(void);\n'
  printf 'static void linked(void) __attribute__((constructor));\n'
  printf 'static void linked(void)\n{\n    __cudaRegisterLinkedBinary();\n}\n'
  cat solutions/01-interleaved-addressing/kernel.cu; } > "$TMP/link-missing.cu"
"$TUTOR" check 01 --file "$TMP/link-missing.cu" --build-only --work-dir "$TMP/link-missing" --json \
    > "$TMP/link-missing.json" 2> /dev/null
check "link: a call the recording runtime lacks is rejected, naming it" \
    test "$(jget "$TMP/link-missing.json" .status)" = rejected -a \
         "$(jq -r '.symbols.violations[0].symbol' "$TMP/link-missing.json")" = __cudaRegisterLinkedBinary
check "link: a file that links leaves its runner" test -x "$TMP/split-ok-steps/runner"
# ...and one kept for another toolkit (the real nvcc behind the plan's
# folder not the one it was made with) is asked again.
rebuild > /dev/null      # kept for the variables as they are
sed -i '1s/ [0-9.]* [0-9.]*$/ 1 1.000000000/' "$TMP/split-ok-steps/nvcc-plan"
check "nvcc in steps: a plan kept for another toolkit is asked again" test "$(rebuild)" = 1
check "nvcc in steps: and kept anew for this one" test "$(rebuild)" = 0
