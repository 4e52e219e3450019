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
# in the solution's work folder, whose steps must not be drawn again
check "a file that does not build draws nothing and says why (exit 1)" \
    bash -c "printf 'this is not CUDA\n' > '$TMP/bad.cu'; '$TUTOR' trace 01 '$TMP/bad.cu' --work-dir '$TMP/w1' > '$TMP/bad.out' 2> '$TMP/bad.err'; test \$? = 1 && grep -q 'nothing to draw' '$TMP/bad.err' && test ! -s '$TMP/bad.out'"

# ---- --svg: the same picture for slides ----------------------------------------
"$TUTOR" trace 01 solutions/01-*/kernel.cu --svg "$TMP/solution.svg" --work-dir "$TMP/w1" > "$TMP/svg1.out" 2>&1 &
"$TUTOR" trace 01 tests/bank/syncthreads_in_if.cu --svg "$TMP/mistake.svg" --work-dir "$TMP/w2" > "$TMP/svg2.out" 2>&1
wait
check "--svg says where it drew" grep -qx "trace 01: 9 steps drawn in $TMP/solution.svg" "$TMP/svg1.out"
if command -v xmllint >/dev/null; then
    check "the SVGs are well-formed XML" xmllint --noout "$TMP/solution.svg" "$TMP/mistake.svg"
else
    skip "the SVGs are well-formed XML" "xmllint is not installed (make deps installs libxml2-utils)"
fi
# rows: the text's rows are the lines that open with a line number and warps
text_rows() { grep -cE '^[ >] *[0-9]+ (w[0-9,-]+|[0-9]+warps) ' "$1"; }
check "the solution's SVG: 9 steps and as many rows as the text ($(text_rows "$TMP/solution.txt"))" \
    test "$(grep -c '<g class="step"' "$TMP/solution.svg") $(grep -c '<g class="row">' "$TMP/solution.svg")" = \
         "9 $(text_rows "$TMP/solution.txt")"
check "the mistake's SVG: 3 steps and as many rows as the text" \
    test "$(grep -c '<g class="step"' "$TMP/mistake.svg") $(grep -c '<g class="row">' "$TMP/mistake.svg")" = \
         "3 $(text_rows "$TMP/mistake.txt")"
check "the solution's SVG: its divergence framed amber, nothing red, its source escaped beside" \
    test "$(grep -c 'class="frame-warn"' "$TMP/solution.svg") $(grep -c 'class="frame-bad"' "$TMP/solution.svg")" = \
         "$(grep -c 'diverges: ' "$TMP/solution.txt") 0" -a \
         -n "$(grep -F '  20 | sdata[tid] = (i &lt; n) ? in[i] : 0;' "$TMP/solution.svg")"
check "the mistake's SVG: the part-reached barrier framed red, and the stop said" \
    test "$(grep -c 'class="frame-bad"' "$TMP/mistake.svg")" -ge 1 -a \
         -n "$(grep -F 'only 16 of 32 lanes here' "$TMP/mistake.svg")" -a -n "$(grep -F 'stopped here: ' "$TMP/mistake.svg")"
check "--svg to a folder that is not there fails and says why" \
    bash -c "'$TUTOR' trace 01 solutions/01-*/kernel.cu --svg '$TMP/none/x.svg' --work-dir '$TMP/w1' > /dev/null 2> '$TMP/nosvg.err'; test \$? -ne 0 && grep -q 'cannot write $TMP/none/x.svg' '$TMP/nosvg.err'"

# ---- a fail the picture shows offers it ----------------------------------------
"$TUTOR" check 01 --file tests/bank/syncthreads_in_if.cu --no-sanitize --no-color > "$TMP/check1.out" 2>/dev/null &
"$TUTOR" check 02 --file solutions/01-*/kernel.cu --no-sanitize --no-color > "$TMP/check2.out" 2>/dev/null &
"$TUTOR" check 01 --file solutions/01-*/kernel.cu --no-sanitize --no-color > "$TMP/check3.out" 2>/dev/null
wait
check "a barrier the emulator stopped: the check says the command that draws it" \
    grep -qx '  see it: cudatutor trace 01 tests/bank/syncthreads_in_if.cu' "$TMP/check1.out"
check "lab 01's kernel missing lab 02's lesson (divergence): the check says the command that draws it" \
    grep -qx "  see it: cudatutor trace 02 $(ls solutions/01-*/kernel.cu)" "$TMP/check2.out"
check "a pass offers no picture" bash -c "grep -q '^pass ' '$TMP/check3.out' && ! grep -q 'see it:' '$TMP/check3.out'"
