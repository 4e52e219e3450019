# tests/lib.sh — helpers for the shell tests, sourced by each tests/*.sh.
# Prints TAP lines that tests/run.sh counts.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TUTOR="$ROOT/cudatutor"
export NO_COLOR=1 LC_ALL=C.UTF-8 LANG=C.UTF-8

ok()   { echo "ok - $1"; }
skip() { echo "ok - $1 # SKIP $2"; }
# not_ok NAME DETAIL...: DETAIL lines are shown by run.sh under the failure.
not_ok() {
    local name=$1; shift
    echo "not ok - $name"
    local line
    for line in "$@"; do printf '%s\n' "$line" | sed 's/^/#   /'; done
}
# check NAME CONDITION-COMMAND...: ok when the command succeeds.
check() {
    local name=$1; shift
    if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

# A GPU is there when nvidia-smi lists one; tests that need it skip
# visibly otherwise.
have_gpu() { nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }
NO_GPU_REASON="skipped: no CUDA device"

# A scratch folder removed when the script ends.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cudatutor-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# tests/run.sh checks, once every program has ended, that each removed it.
[ -z "${TEST_SCRATCH_LOG:-}" ] || echo "$0 $TMP" >> "$TEST_SCRATCH_LOG"
# Tests never touch the workbook's own progress.json.
export CUDATUTOR_PROGRESS="$TMP/progress.json"
# Checks are judged by the catalog's targets: on a GPU, each script's fresh
# folder would otherwise time every reference solution before its first
# check.  tests/calibrate.sh turns calibration back on.
export CUDATUTOR_NO_CALIBRATE=1
# Without a GPU, checks stop at the plans (no_gpu), as the tests of the CLI,
# the tutor and the grader expect, and none spends seconds on the PTX
# emulator; tests/gpu.sh and tests/bank.sh turn the CPU judges back on.
export CUDATUTOR_NO_EMULATOR=1

# jget FILE PATH...: the value at each path of a JSON file (.key, ["key"],
# [N], a last []), one a line: strings as text, numbers in the reports'
# form (tests/tools/jget.c), so tests need no JSON tool of their own.
jget() { "$ROOT/build/tests/jget" "$@"; }

# lab_field NN KEY: a string field of lab NN in the catalog.  data/labs.json
# keeps one key a line, each lab's "id" before its other keys and no other
# "id" key, so a line's quotes split it (tests/labs.sh holds lab_ids to the
# stubs, one each).
lab_field() {
    awk -v id="$1" -v key="$2" -F'"' '$2 == "id" { cur = $4 } cur == id && $2 == key { print $4; exit }' \
        "$ROOT/data/labs.json"
}
# lab_dir NN: the lab's folder name (labs/NN-slug), from the catalog.
lab_dir() { echo "$1-$(lab_field "$1" slug)"; }
# stub_file NN: the lab's pristine stub (data/stubs/NN-slug.cu), the product;
# labs/NN-slug/kernel.cu is the student's copy and may hold anything.
stub_file() { echo "$ROOT/data/stubs/$(lab_dir "$1").cu"; }

# make_workbook DIR: a fresh workbook as handed out, for tests that check,
# reset or edit a lab's own kernel.cu: the catalog, the solutions, lab.h, the
# lessons, and each lab's kernel.cu from its pristine stub (never the
# student's working file).  The harness objects stay the real workbook's
# (export CUDATUTOR_HARNESS_DIR="$ROOT/build/harness").
make_workbook() {
    local dir=$1 lab
    mkdir -p "$dir/tutor" "$dir/labs"
    cp -r "$ROOT/data" "$ROOT/solutions" "$dir/"
    cp "$ROOT/tutor/lab.h" "$ROOT/tutor/status.h" "$dir/tutor/"
    for lab in "$ROOT"/data/stubs/[0-9][0-9]-*.cu; do
        lab=$(basename "$lab" .cu)
        mkdir -p "$dir/labs/$lab"
        cp "$ROOT/labs/$lab/README.md" "$dir/labs/$lab/"
        cp "$ROOT/data/stubs/$lab.cu" "$dir/labs/$lab/kernel.cu"
    done
}

# par_check OUT ARGS...: `cudatutor check ARGS --json > OUT` in the
# background, as many at once as there are CPUs (nvcc is the slow part of a
# check without a GPU); par_wait waits for them all.  Give each its own
# --work-dir: checks of one lab share build/check/NN and would take turns.
# Not for timed runs on a GPU, which must not share the machine.
PAR_JOBS=$(nproc 2>/dev/null || echo 2)
par_check() {
    local out=$1 running
    shift
    # (jobs into a file and back: no subshell per call)
    while jobs -rp > "$TMP/.par-jobs" && mapfile -t running < "$TMP/.par-jobs" &&
          [ "${#running[@]}" -ge "$PAR_JOBS" ]; do
        wait -n
    done
    "$TUTOR" check "$@" --json > "$out" 2> /dev/null &
}
par_wait() { wait; }
# lab_ids: every lab of the catalog; lab_family NN: its family.
lab_ids() { awk -F'"' '$2 == "id" { print $4 }' "$ROOT/data/labs.json"; }
lab_family() { lab_field "$1" family; }

# bank_meta META: a bank file's first line ("// bank: lab=NN expect=STATUS
# [cpu=STATUS] [target=met|missed]") read into bank_lab, bank_want,
# bank_cpu (as written, empty when absent) and bank_target, and the verdict
# expected without a GPU into bank_cpu_want: cpu=, else the GPU's expect=
# when the CPU judges are built or the file is rejected before it runs,
# else no_gpu.  No process is started: the bank's loops run it for every
# file.
bank_meta() {
    bank_lab= bank_want= bank_cpu= bank_target=
    [[ $1 =~ lab=([0-9][0-9]) ]] && bank_lab=${BASH_REMATCH[1]}
    [[ $1 =~ expect=([a-z_]*) ]] && bank_want=${BASH_REMATCH[1]}
    [[ $1 =~ cpu=([a-z_]*) ]] && bank_cpu=${BASH_REMATCH[1]}
    [[ $1 =~ target=(met|missed) ]] && bank_target=${BASH_REMATCH[1]}
    bank_cpu_want=$bank_cpu
    if [ -z "$bank_cpu_want" ]; then
        if [ "$bank_want" = rejected ] || [ -x "$ROOT/build/harness/judge_cpu_reduce_int" ]; then
            bank_cpu_want=$bank_want
        else
            bank_cpu_want=no_gpu
        fi
    fi
}
# bank_cpu_checked: whether tests/bank.sh checks the file bank_meta read
# without a GPU: those whose cpu= repeats the GPU's verdict (the emulator
# catches what the GPU catches), the rejections, and, with the CPU judges,
# cpu=no_gpu (a form the emulator does not run); another cpu= records a
# known difference (a cheat only a timed sample catches passes on the
# CPU), checked with BANK_CPU=all.
bank_cpu_checked() {
    [ "${bank_cpu:-$bank_want}" = "$bank_want" ] && { [ -n "$bank_cpu" ] || [ "$bank_want" = rejected ]; } ||
        { [ "$bank_cpu" = no_gpu ] && [ -x "$ROOT/build/harness/judge_cpu_reduce_int" ]; } || [ "${BANK_CPU:-}" = all ]
}

# The PTX of the corpus (stubs, solutions, the bank) for tests/emu.sh, kept
# in build/emu/ptx/BASE/HASH.ptx: BASE a key of what every file's PTX
# depends on (nvcc's version, the flags, lab.h and status.h), HASH the
# source's bytes.  A check's build writes the same PTX (nvcc -c -keep,
# these flags): the scripts that check corpus files anyway hand theirs over
# (emu_ptx_keep), and emu.sh runs nvcc only for the rest; nvcc -ptx is half
# a second a file.
EMU_PTX_FLAGS="-ptx -arch=sm_90 -lineinfo -std=c++17 -D_GLIBCXX_BITS_SPECFUN_H -O3 -Itutor"
EMU_NVCC=${NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}
# emu_ptx_init: EMU_PTX_HOME, the folder of this toolkit's and these
# headers' PTX, once per script (exported, for emu.sh's parallel compiles).
emu_ptx_init() {
    [ -n "${EMU_PTX_HOME:-}" ] && return
    local base
    base=$( { "$EMU_NVCC" --version; echo "$EMU_PTX_FLAGS"; cat "$ROOT/tutor/lab.h" "$ROOT/tutor/status.h"; } |
        sha256sum)
    EMU_PTX_HOME=$ROOT/build/emu/ptx/${base:0:24}
    export EMU_PTX_HOME EMU_PTX_FLAGS EMU_NVCC
}
# emu_ptx_paths FILE...: where each FILE's PTX is kept, one a line, in
# order (one sha256sum for them all).
emu_ptx_paths() {
    local h _
    emu_ptx_init
    sha256sum -- "$@" | while read -r h _; do echo "$EMU_PTX_HOME/${h: -64:24}.ptx"; done
}
# emu_ptx_keep FILE WORKDIR: the PTX a check of FILE left in WORKDIR/keep,
# kept as FILE's when it is the one file there and for sm_90 (a check
# builds for the machine's GPU); a partial file never lands there.
emu_ptx_keep() {
    local out ptx
    emu_ptx_init
    out=$(emu_ptx_paths "$1")
    [ -s "$out" ] && return 0
    ptx=("$2"/keep/*.ptx)
    [ "${#ptx[@]}" = 1 ] && [ -s "${ptx[0]}" ] && grep -qx '.target sm_90' "${ptx[0]}" || return 0
    mkdir -p "$EMU_PTX_HOME" && cp "${ptx[0]}" "$out.tmp.$$" && mv "$out.tmp.$$" "$out"
}
