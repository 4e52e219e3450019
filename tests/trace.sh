#!/usr/bin/env bash
# tests/trace.sh — `cudatutor trace` (issue 33 item 4): lab 01's solution
# and the bank's barrier-inside-if mistake (tests/bank/syncthreads_in_if.cu)
# drawn at n=64 as their golden files say (tests/fixtures/trace/, the seed
# fixed so the same kernel draws the same picture); the two pictures
# differ where the mistake is: its barrier reached by half a warp, and the
# call stopped there; every page fits 80x24 without colour; colour only
# when asked for a terminal.  TRACE_GOLDEN_UPDATE=1 writes the golden files
# anew (after a change of the picture or of the emulator's interleaving).
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
unset CUDATUTOR_NO_EMULATOR
export CUDA_VISIBLE_DEVICES=
G=tests/fixtures/trace

if [ ! -x build/harness/judge_cpu_reduce_int ]; then
    skip "trace 01 draws the solution" "skipped: no CPU judge (build without the emulator)"
    exit 0
fi
"$TUTOR" trace 01 solutions/01-*/kernel.cu --no-color --work-dir "$TMP/w1" > "$TMP/solution.txt" 2> "$TMP/solution.err" &
"$TUTOR" trace 01 tests/bank/syncthreads_in_if.cu --no-color --work-dir "$TMP/w2" > "$TMP/mistake.txt" 2> "$TMP/mistake.err"
wait
if [ "${TRACE_GOLDEN_UPDATE:-0}" = 1 ]; then
    cp "$TMP/solution.txt" "$G/01-solution.txt"
    cp "$TMP/mistake.txt" "$G/01-syncthreads_in_if.txt"
fi

golden() {  # NAME OUT GOLDEN
    if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$(diff "$3" "$2" | head -20)"; fi
}
golden "trace 01 of the solution draws its golden picture" "$TMP/solution.txt" "$G/01-solution.txt"
golden "trace 01 of the barrier-inside-if mistake draws its golden picture" "$TMP/mistake.txt" \
    "$G/01-syncthreads_in_if.txt"
differ() { ! cmp -s "$1" "$2"; }
check "the two pictures differ" differ "$TMP/solution.txt" "$TMP/mistake.txt"
check "the solution's: nine steps, every barrier reached by whole warps" \
    test "$(grep -c '^trace 01: ' "$TMP/solution.txt") $(grep -c 'only [0-9]* of [0-9]* lanes here' "$TMP/solution.txt")" = "9 0"
check "the mistake's: a barrier reached by 16 of a warp's 32 lanes, at its line, and the call stopped" \
    test -n "$(grep -E '^  21 w[0-9,-]+ +bar +(\|\.){16} only 16 of 32 lanes here' "$TMP/mistake.txt")" -a \
         -n "$(grep '^stopped here: .*__syncthreads()' "$TMP/mistake.txt")"
check "the solution's tree shows its divergence: 16 lanes of each warp work at the first level" \
    grep -qE '^  28 w0-3   if  (->){16} diverges: 16 jump, 16 stay' "$TMP/solution.txt"

# pages: split at blank lines; each at most 24 lines of at most 80 columns
fits() {
    awk 'BEGIN { n = 0; bad = 0 } /^$/ { n = 0; next } { n++; if (n > 24 || length($0) > 80) bad = 1 } END { exit bad }' "$1"
}
both_fit() { fits "$1" && fits "$2"; }
plain() { ! grep -q $'\033' "$@"; }
check "every page of both fits 80x24" both_fit "$TMP/solution.txt" "$TMP/mistake.txt"
check "without colour no escape sequences" plain "$TMP/solution.txt" "$TMP/mistake.txt"
check "a file that does not build draws nothing and says why (exit 1)" \
    bash -c "printf 'this is not CUDA\n' > '$TMP/bad.cu'; '$TUTOR' trace 01 '$TMP/bad.cu' --work-dir '$TMP/w3' > /dev/null 2> '$TMP/bad.err'; test \$? = 1 && grep -q 'nothing to draw' '$TMP/bad.err'"
