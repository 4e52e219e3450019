#!/usr/bin/env bash
# tests/emu.sh — the PTX emulator (tutor/emu/) on the workbook's own
# kernels: the PTX nvcc writes for every pristine stub (data/stubs/),
# solutions/*/kernel.cu and tests/bank/*.cu parses (EMU_OK, or for a bank
# kernel EMU_UNSUPPORTED naming the form; never a parse error or a crash),
# and lab 01's launcher runs end to end on it (build/tests/emu_tool): the
# solution's sum is exact, the stub's is not, and the bank's racy and
# out-of-bounds kernels get their hazard and fault.
#
# nvcc -ptx takes half a second a file; the PTX is kept in build/emu/ptx
# (emu_ptx_path in tests/lib.sh), so a second run compiles nothing; in a
# run of the whole suite the files bank.sh and runner.sh check were handed
# over by them (emu_ptx_keep), and the rest come from other checks'
# compiles or nvcc.
# labs/NN-slug/kernel.cu is the student's copy and may hold anything (a
# solution, half a kernel): the stubs here are data/stubs/'s.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

TOOL=$ROOT/build/tests/emu_tool
NVCC=$EMU_NVCC
if [ ! -x "$TOOL" ]; then
    not_ok "build/tests/emu_tool is built" "run: make test-build"
    exit 0
fi
if [ ! -x "$NVCC" ]; then
    skip "the corpus parses" "no nvcc"
    exit 0
fi

read -ra FLAGS <<<"$EMU_PTX_FLAGS"
emu_ptx_init
mkdir -p "$EMU_PTX_HOME"

files=(data/stubs/*.cu solutions/*/kernel.cu tests/bank/*.cu)
# ptx[FILE]: where FILE's PTX is kept.
declare -A ptx
mapfile -t paths < <(emu_ptx_paths "${files[@]}")
for i in "${!files[@]}"; do ptx[${files[$i]}]=${paths[$i]}; done
# checked_lab FILE: the lab whose check the suite's other scripts run on
# FILE in this run (every stub and solution; the bank's files bank.sh
# checks here), else nothing.
checked_lab() {
    case $1 in
        data/stubs/*|solutions/*) basename "${1#solutions/}" | cut -c1-2 ;;
        tests/bank/*)
            local meta
            read -r meta < "$1"
            bank_meta "$meta"
            { have_gpu || bank_cpu_checked; } && echo "$bank_lab" ;;
    esac
}
# Each missing file, with the lab a check of it takes ("-" for none) and
# where its PTX goes.
missing=()
for f in "${files[@]}"; do
    [ -s "${ptx[$f]}" ] || missing+=("$f" "$(checked_lab "$f")" "${ptx[$f]}")
done
# compile_one FILE LAB OUT: FILE's PTX into OUT, its cache entry (a partial file
# never lands there).  A file the suite's checks compile anyway, and whose
# PTX no script handed over (emu.sh run alone), is built by a check
# (--build-only), whose nvcc run writes the same PTX (-keep) and is served
# from the run's shared compile cache ($CUDATUTOR_COMPILE_CACHE, set by
# tests/run.sh) when another script compiled it first: a second nvcc would
# cost as much as the check's compile.  Without the shared cache, or when
# the check left no PTX of these flags (refused before nvcc, built for
# another GPU), nvcc -ptx.
compile_one() {
    local f=$1 lab=$2 out=$3 w
    if [ -n "$lab" ] && [ "$lab" != - ] && [ -n "${CUDATUTOR_COMPILE_CACHE:-}" ]; then
        w=$(mktemp -d "$TMP/b.XXXXXX")
        "$TUTOR" check "$lab" --file "$f" --build-only --work-dir "$w" --json > /dev/null 2>&1
        emu_ptx_keep "$f" "$w"
        rm -rf "$w"
        [ -s "$out" ] && return
    fi
    "$NVCC" "${FLAGS[@]}" -o "$out.tmp.$$" "$f" 2> "$out.log" && mv "$out.tmp.$$" "$out"
    rm -f "$out.tmp.$$"
}
export -f compile_one emu_ptx_paths emu_ptx_keep emu_ptx_init
export NVCC TUTOR TMP
if [ "${#missing[@]}" -gt 0 ]; then
    printf '%s\0' "${missing[@]}" | sed -z 's/^$/-/' |
        xargs -0 -n3 -P "$(nproc 2>/dev/null || echo 2)" bash -c 'read -ra FLAGS <<<"$EMU_PTX_FLAGS"; compile_one "$1" "$2" "$3"' _
fi

for f in "${files[@]}"; do
    p=${ptx[$f]}
    if [ ! -s "$p" ]; then
        not_ok "$f compiles to PTX" "$(head -5 "$p.log" 2>/dev/null)"
        continue
    fi
    line=$("$TOOL" parse "$p" 2>&1)
    rc=$?
    case "$line" in
        *": ok "*) ok "$f: its PTX parses (${line##*: ok })" ;;
        *": unsupported ["?*"]"*)
            if [ "${f#tests/bank/}" != "$f" ] && [ $rc -le 1 ]; then
                ok "$f: its PTX is refused as needing a GPU (${line#*unsupported })"
            else
                not_ok "$f: its PTX parses" "$line"
            fi ;;
        *) not_ok "$f: its PTX parses" "$line (exit $rc)" ;;
    esac
done

# run NAME FILE N [hazards]: emu_tool's lab 01 launcher on FILE's PTX.
run() { "$TOOL" reduce "$(emu_ptx_paths "$2")" "$3" ${4:-} > "$TMP/$1.out" 2>&1; }
sum_right() { awk '/^sum / { exit !($2 == $4) }' "$TMP/$1.out"; }
has() { grep -q "$2" "$TMP/$1.out"; }

run sol01 solutions/01-interleaved-addressing/kernel.cu 300000
check "lab 01's solution sums 300000 ints exactly on the emulator" sum_right sol01
run sol01h solutions/01-interleaved-addressing/kernel.cu 5000 hazards
check "lab 01's solution has no hazard" sum_right sol01h
run stub01 "$(stub_file 01)" 5000
check "lab 01's stub runs and its sum is wrong" bash -c "grep -q '^sum' '$TMP/stub01.out' && ! awk '/^sum / { exit !(\$2 == \$4) }' '$TMP/stub01.out'"
run sol05h solutions/05-unroll-last-warp/kernel.cu 5000 hazards
check "lab 05's solution (__syncwarp between steps) has no hazard" sum_right sol05h
run vtail tests/bank/volatile_tail.cu 5000 hazards
check "the volatile-only warp tail is a race" has vtail "launch: hazard race on sdata"
run nosync tests/bank/missing_syncthreads.cu 5000 hazards
check "a missing __syncthreads is a hazard" has nosync "launch: hazard"
run oob tests/bank/oob_write.cu 5000
check "an out-of-bounds write is a fault naming the thread and line" has oob "launch: fault thread .* of block .* (oob_write.cu:[0-9]*)"
# cooperative_groups' grid barrier (this_grid().sync()): nvcc's PTX for it
# (the workspace from %envreg1:2, an atom.add.release and an ld.acquire
# spin) on a cooperative launch, every block resident; without the barrier
# the first thread reads parts not yet written; without a cooperative
# launch the barrier traps, as on a GPU; a grid larger than the emulated
# GPU holds is refused, as the driver refuses it.
if "$NVCC" "${FLAGS[@]}" -o "$TMP/grid.ptx" tests/emu/grid_sync.cu > "$TMP/grid.log" 2>&1; then
    grid() { "$TOOL" run "$TMP/grid.ptx" 0 "$1" 256 "$2" buf:f32:100000:ones "buf:f32:$1:zero" buf:f32:1:zero u32:100000 "i32:$3"; }
    grid 64 coop 1 > "$TMP/g1.out"
    check "a cooperative launch's grid.sync(): the sum is exact" grep -q '^d2 sum 100000 first' "$TMP/g1.out"
    grid 64 coop+hazards 1 > "$TMP/g2.out"
    check "the grid barrier orders the parts for the hazard shadow" bash -c "grep -q '^launch: ok' '$TMP/g2.out' && grep -q '^d2 sum 100000 first' '$TMP/g2.out'"
    grid 64 coop 0 > "$TMP/g3.out"
    check "without grid.sync() the sum is wrong" bash -c "grep -q '^launch: ok' '$TMP/g3.out' && ! grep -q '^d2 sum 100000 first' '$TMP/g3.out'"
    grid 64 hazards 1 > "$TMP/g4.out"
    check "grid.sync() in a launch that is not cooperative traps, named" grep -q '^launch: fault .*not cooperative' "$TMP/g4.out"
    grid 5000 coop 1 > "$TMP/g5.out"
    check "a cooperative grid larger than the GPU holds is refused" grep -q '^launch: fault .*cudaErrorCooperativeLaunchTooLarge' "$TMP/g5.out"
else
    not_ok "tests/emu/grid_sync.cu compiles to PTX" "$(tail -5 "$TMP/grid.log")"
fi
# The registers ptxas gave a kernel, read from the cubin as the CPU judges
# read it, against ptxas's own word (-Xptxas -v); a block of them that
# does not fit an SM is refused.
src=tests/bank/too_many_registers.cu
if "$NVCC" -cubin -arch=sm_90 -O3 -Itutor -Xptxas -v -o "$TMP/regs.cubin" "$src" > "$TMP/ptxas.log" 2>&1; then
    said=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$TMP/ptxas.log" | head -1)
    got=$("$TOOL" regs "$TMP/regs.cubin" _Z1kPKijPi 1024)
    check "the cubin's register count is ptxas's ($said)" [ "${got%% *}" = "$said" ]
    check "a 1024-thread block of $said-register threads does not fit an SM" [ "${got#* }" = "does not fit" ]
    check "a 512-thread block of them fits" bash -c "'$TOOL' regs '$TMP/regs.cubin' _Z1kPKijPi 512 | grep -q ' fits$'"
else
    not_ok "tests/bank/too_many_registers.cu compiles to a cubin" "$(tail -5 "$TMP/ptxas.log")"
fi
grep -h '^speed' "$TMP/sol01.out" | sed 's/^/# /'
