#!/usr/bin/env bash
# tests/device/emu-diff.sh — the PTX emulator against the H100 (DESIGN §11,
# "Tested against the GPU"), in two parts:
#  1. forms: every row of tests/unit/test_emu_ops's table (one tiny kernel
#     per instruction form of the corpus) on the same operands, the same
#     PTX text on both: the GPU loads it with cuModuleLoadData
#     (tests/device/emu-diff.cu), the emulator parses it.  Results compared
#     bit for bit (div.approx.f32 within its 2 ulps); prints each difference
#     and "emu-diff: N forms, N equal, N differ", and the references'
#     own line against the GPU ("ref-diff: ...": a reference that misreads
#     the ISA, not an emulator bug).
#  2. verdicts: every stub, solution and bank kernel's check status on the
#     GPU against the judge's on the emulator, timing aside ("verdict-diff:
#     N reports, N same, N as the bank's cpu= says, N differ, N missing").  The GPU's reports are
#     GPU_VERDICTS (a folder of stub-NN/solution-NN/bank-NAME.json, as
#     tests/gpu.sh and tests/bank.sh keep under GPU_RESULTS) or made here;
#     the emulator's come from EMU_CHECK, the command that checks a kernel
#     on the emulator ("EMU_CHECK LAB FILE" prints the report's JSON).  Where
#     the build has the CPU judges (build/harness/judge_cpu_*, branch emurt)
#     it defaults to a check with the GPU hidden (CUDA_VISIBLE_DEVICES=, so
#     the judge finds none and its CPU judge runs the trials); without them
#     the part says it is skipped.
# Usage (from the workbook root; on the GPU machine after `. .gpu/env.sh`):
#     bash tests/device/emu-diff.sh OUT
#     bash tests/device/emu-diff.sh --verdicts GPU_DIR EMU_DIR   (part 2's comparison alone)
#     EMU_DIFF_ONLY='solution-|stub-' ...   (part 2 on the kernels whose report names match)
# Without a GPU, EMU_DIFF_FAKE_GPU=1 takes the references for the GPU's
# results, and EMU_DIFF_FAKE_GPU=emu runs emu-diff.cu itself with the
# emulator behind the driver API (tests/device/emu-diff-fakecuda.c): the
# emulator's side and the comparison run as on the GPU.
set -u
cd "$(dirname "$0")/../.."

# documented NAME: the verdict a bank kernel's first line says the emulator
# gives where it differs from the GPU's (its cpu=), or nothing.
documented() {
    local meta
    case $1 in bank-*) ;; *) return ;; esac
    [ -f "tests/bank/${1#bank-}.cu" ] || return
    read -r meta < "tests/bank/${1#bank-}.cu"
    [[ $meta =~ cpu=([a-z_]*) ]] && echo "${BASH_REMATCH[1]}"
}
# verdicts GPU_DIR EMU_DIR: the status of each report in GPU_DIR against
# the one of the same name in EMU_DIR.  A difference the bank's cpu= names
# (an approximation the emulator does not run, a cheat only a timed size
# shows) is counted apart and fails nothing.
verdicts() {
    local gdir=$1 edir=$2 n=0 same=0 known=0 differ=0 missing=0 f name g e
    for f in "$gdir"/*.json; do
        [ -e "$f" ] || continue
        name=$(basename "$f")
        n=$((n + 1))
        g=$(jq -r '.status // "unreadable"' "$f" 2>/dev/null || echo unreadable)
        if [ ! -s "$edir/$name" ]; then
            missing=$((missing + 1))
            echo "  ${name%.json}: gpu $g, no report on the emulator"
            continue
        fi
        e=$(jq -r '.status // "unreadable"' "$edir/$name" 2>/dev/null || echo unreadable)
        if [ "$g" = "$e" ]; then
            same=$((same + 1))
        elif [ "$(documented "${name%.json}")" = "$e" ]; then
            known=$((known + 1))
        else
            differ=$((differ + 1))
            echo "  ${name%.json}: gpu $g, emulator $e: $(jq -r '.summary // ""' "$edir/$name" 2>/dev/null | cut -c1-120)"
        fi
    done
    echo "verdict-diff: $n reports, $same same, $known as the bank's cpu= says, $differ differ, $missing missing"
    [ "$differ" = 0 ] && [ "$missing" = 0 ] && [ "$n" -gt 0 ]
}

if [ "${1:-}" = --verdicts ]; then
    [ $# = 3 ] || { echo "usage: $0 --verdicts GPU_DIR EMU_DIR" >&2; exit 2; }
    verdicts "$2" "$3"
    exit
fi
[ $# = 1 ] || { echo "usage: $0 OUT | --verdicts GPU_DIR EMU_DIR" >&2; exit 2; }
OUT=$1
D=$OUT/emu-diff
rm -rf "$D"
mkdir -p "$D/rows"
status=0

# ---- 1. forms -----------------------------------------------------------------
if ! make -s build/tests/test_emu_ops > "$D/build.log" 2>&1; then
    echo "emu-diff: test_emu_ops does not build:"; tail -20 "$D/build.log"; exit 1
fi
build/tests/test_emu_ops --write "$D/rows" || exit 1
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
case ${EMU_DIFF_FAKE_GPU:-0} in
1)
    echo "emu-diff: no GPU here: the references stand in for the GPU's results"
    for f in "$D"/rows/*.ref; do cp "$f" "${f%.ref}.gpu"; done
    ;;
0|emu)
    if [ "${EMU_DIFF_FAKE_GPU:-0}" = emu ]; then
        # emu-diff.cu's driver calls served by the emulator: its plumbing
        # runs here, and every row should compare equal.
        echo "emu-diff: no GPU here: the emulator stands in for the GPU behind the driver API"
        cc -std=c11 -O2 -Wall -Wextra -I"$(dirname "$NVCC")/../include" -Itutor -c \
            -o "$D/fakecuda.o" tests/device/emu-diff-fakecuda.c &&
            "$NVCC" -O2 -std=c++17 -o "$D/emu-diff" tests/device/emu-diff.cu "$D/fakecuda.o" \
                build/emu/libemu.a -lm -lpthread > "$D/nvcc.log" 2>&1
    else
        "$NVCC" -arch=sm_90 -O2 -std=c++17 -o "$D/emu-diff" tests/device/emu-diff.cu -lcuda > "$D/nvcc.log" 2>&1
    fi || { echo "emu-diff: tests/device/emu-diff.cu does not build:"; tail -20 "$D/nvcc.log"; exit 1; }
    # A row that hung the GPU would hang the session: the whole run is bounded.
    timeout "${EMU_DIFF_GPU_SECONDS:-300}" "$D/emu-diff" "$D/rows" > "$D/gpu.log" 2>&1 || status=1
    cat "$D/gpu.log"
    ;;
*) echo "emu-diff: EMU_DIFF_FAKE_GPU is 1 (references) or emu (the emulator behind the driver API)" >&2; exit 2 ;;
esac
build/tests/test_emu_ops --compare "$D/rows" > "$D/compare.txt"
[ $? = 0 ] || status=1
grep -v '^\(emu\|ref\)-diff:' "$D/compare.txt" | head -200
grep '^ref-diff:' "$D/compare.txt"
grep '^emu-diff:' "$D/compare.txt"

# ---- 2. verdicts -----------------------------------------------------------------
# kernels: "NAME LAB FILE" for every stub, solution and bank kernel, named
# as tests/gpu.sh and tests/bank.sh name their reports.
kernels() {
    local d id f lab
    for d in labs/*/; do
        id=$(basename "$d" | cut -c1-2)
        echo "stub-$id $id ${d}kernel.cu"
        [ -f "solutions/$(basename "$d")/kernel.cu" ] && echo "solution-$id $id solutions/$(basename "$d")/kernel.cu"
    done
    for f in tests/bank/*.cu; do
        lab=$(head -n1 "$f" | sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p')
        [ -n "$lab" ] && echo "bank-$(basename "$f" .cu) $lab $f"
    done
}
# emu_check LAB FILE: the check with the GPU hidden, on the emulator.
emu_check() {
    CUDA_VISIBLE_DEVICES= CUDATUTOR_NO_CALIBRATE=1 ./cudatutor check "$1" --file "$2" --no-sanitize --quick --json
}
if [ -z "${EMU_CHECK:-}" ] && compgen -G 'build/harness/judge_cpu_*' > /dev/null; then
    EMU_CHECK=emu_check
fi
if [ -z "${EMU_CHECK:-}" ]; then
    echo "verdict-diff: skipped (no judge on the emulator yet: EMU_CHECK names the command that checks a kernel there)"
    exit $status
fi
[ -x ./cudatutor ] && compgen -G 'build/harness/judge_*' > /dev/null ||
    make -s -j"$(nproc)" build > "$D/build-tutor.log" 2>&1 ||
    { echo "emu-diff: the tutor does not build:"; tail -20 "$D/build-tutor.log"; exit 1; }
G=${GPU_VERDICTS:-$D/verdicts-gpu}
E=$D/verdicts-emu
mkdir -p "$G" "$E"
# EMU_DIFF_ONLY=REGEX keeps the kernels whose report name matches.
kernels | grep -E "^${EMU_DIFF_ONLY:-.}" > "$D/kernels.txt"
if [ -z "${GPU_VERDICTS:-}" ]; then
    while read -r name lab file; do
        ./cudatutor check "$lab" --file "$file" --no-sanitize --quick --timeout-scale 0.25 --json \
            > "$G/$name.json" 2> /dev/null
    done < "$D/kernels.txt"
fi
# The emulator's checks use CPUs only: as many at once as there are.
running=0
while read -r name lab file; do
    [ -s "$G/$name.json" ] || continue
    # shellcheck disable=SC2086
    $EMU_CHECK "$lab" "$file" > "$E/$name.json" 2> "$E/$name.err" &
    running=$((running + 1))
    if [ "$running" -ge "$(nproc)" ]; then wait -n; running=$((running - 1)); fi
done < "$D/kernels.txt"
wait
verdicts "$G" "$E" || status=1
exit $status
