#!/usr/bin/env bash
# tests/emu_zoo.sh — the PTX emulator held to the H100's bits on CUDA C the
# workbook's own kernels do not write (tests/emu/zoo/zoo.cu: intrinsics,
# rounding modes, libdevice's math, SIMD and DPX helpers, warp operations
# under partial masks, atomics).  build/tests/zoo_run runs every zoo kernel
# on the emulator on seeded words; tests/emu/zoo/h100.txt is what the same
# program, built against the CUDA driver, printed on the H100
# (tests/device/emu-zoo.sh writes it).  A slot whose bits differ fails; a
# kernel the emulator refuses must say "needs a GPU" (never a fault or a
# wrong result), and the kernels it refuses are listed.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

RUN=$ROOT/build/tests/zoo_run
NVCC=${NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}
GOLDEN=tests/emu/zoo/h100.txt
if [ ! -x "$RUN" ]; then
    not_ok "build/tests/zoo_run is built" "run: make test-build"
    exit 0
fi
if [ ! -x "$NVCC" ]; then
    skip "the zoo on the emulator" "no nvcc"
    exit 0
fi
if ! "$NVCC" -ptx -arch=sm_90 -lineinfo -O3 -o "$TMP/zoo.ptx" tests/emu/zoo/zoo.cu 2> "$TMP/nvcc.log"; then
    not_ok "the zoo compiles" "$(tail -5 "$TMP/nvcc.log")"
    exit 0
fi
"$RUN" "$TMP/zoo.ptx" > "$TMP/emu.txt" 2> "$TMP/run.err"
check "the zoo runs on the emulator" [ -s "$TMP/emu.txt" ]
refused=$(awk -F'\t' '$2 == "-"' "$TMP/emu.txt")
bad=$(grep -v 'not emulated: needs a GPU' <<<"$refused" | sed '/^$/d')
if [ -z "$bad" ]; then
    ok "a zoo kernel the emulator cannot run says it needs a GPU ($(grep -c . <<<"$refused" | tr -d ' ') refused)"
else
    not_ok "a zoo kernel the emulator cannot run says it needs a GPU" "$bad"
fi

# The comparison itself must see a difference: one bit of one slot flipped.
awk -F'\t' 'BEGIN { OFS = "\t" } !done && $2 == "3" { $3 = substr($3, 1, 15) (substr($3, 16, 1) == "0" ? "1" : "0"); done = 1 } 1' \
    "$TMP/emu.txt" > "$TMP/flipped.txt"
"$RUN" --compare "$TMP/emu.txt" "$TMP/flipped.txt" > "$TMP/flip.out"
check "the comparison names a slot one bit off" grep -q '^zoo_int slot 3: gpu' "$TMP/flip.out"

if [ ! -s "$GOLDEN" ]; then
    skip "the emulator gives the H100's bits on every zoo slot" "no $GOLDEN yet (tests/device/emu-zoo.sh writes it)"
    exit 0
fi
if "$RUN" --compare "$GOLDEN" "$TMP/emu.txt" > "$TMP/cmp.out"; then
    ok "the emulator gives the H100's bits on every zoo slot ($(tail -1 "$TMP/cmp.out"))"
else
    not_ok "the emulator gives the H100's bits on every zoo slot" "$(head -30 "$TMP/cmp.out")"
fi
