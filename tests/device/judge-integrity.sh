#!/usr/bin/env bash
# tests/device/judge-integrity.sh — issue 22's judge-side defences on a GPU
# machine, after `make build`, from the workbook root:
#  1. the bank entries of this round get their verdicts, as tests/bank.sh
#     judges them: a constructor's exit_group(121) (runtime_error), a
#     2^31-1 x 65535 x 65535 grid (rejected), an .incbin memset (rejected),
#     PTX comment look-alikes (pass: the parameters come from the driver);
#  2. a kernel that floods printf, under the race checkers, ends in timeout
#     at the check's bound (the message names it), within the bound plus
#     the GPU waits and a few seconds, not at 3x the judge's limit; the
#     launcher's flood (flood_output.cu) under them passes within it;
#  3. every solution of lab 01-15 still passes with the sanitizers: the
#     judge counts parameters with cuKernelGetParamInfo until the driver
#     says there is none, which compute-sanitizer must not count against
#     the kernel (--report-api-errors no), and no check runs past its bound;
#  4. a probe, reported and not failed: a launcher that passes 4 bytes of a
#     file (.incbin) to its kernel, which writes them as the result.  The
#     judge's "expected X, got Y" then carries them into the summary and
#     labs/NN.json's text, which Gradescope shows: a channel outside the
#     plan's messages (tutor/check/check.c summarize, tutor/model/score.c
#     lab_text), left to the grader's student-visible text.
# JSON of every check under $OUT (default /tmp/cudatutor-judge-integrity).
# About 3-5 minutes of GPU time on an H100 (step 3 is most of it).
set -u
export CUDATUTOR_NO_CALIBRATE=1
OUT=${OUT:-/tmp/cudatutor-judge-integrity}
mkdir -p "$OUT"
T=./cudatutor
fails=0
pass() { echo "ok   - $1"; }
bad() { echo "FAIL - $1"; fails=$((fails + 1)); }
j() { jq -r "$1" "$2" 2>/dev/null; }

nvidia-smi -L 2>/dev/null | head -2
[ -x "$T" ] && [ -x build/harness/judge_reduce_int ] || { echo "build first: make build"; exit 2; }

echo "== 1. this round's bank entries"
for name in exit_sandbox_code huge_grid incbin_memset ptx_comment_params; do
    f=tests/bank/$name.cu
    want=$(head -n1 "$f" | sed -n 's/.*expect=\([a-z_]*\).*/\1/p')
    lab=$(head -n1 "$f" | sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p')
    $T check "$lab" --file "$f" --no-sanitize --quick --timeout-scale 0.25 --json > "$OUT/bank-$name.json"
    got=$(j .status "$OUT/bank-$name.json")
    [ "$got" = "$want" ] && pass "$name: $want — $(j .summary "$OUT/bank-$name.json" | cut -c1-150)" ||
        bad "$name: want $want, got $got: $(j .summary "$OUT/bank-$name.json")"
done
# (tests/fuzz.sh looks for a random file's bytes in such a report.)

echo "== 2. a printf flood under the sanitizers ends at the check's bound"
start=$(date +%s)
$T check 01 --file tests/bank/kernel_printf_flood.cu --quick --timeout-scale 0.25 --json > "$OUT/flood.json"
took=$(( $(date +%s) - start ))
echo "   $took s: $(j .status "$OUT/flood.json"): $(j '.messages | map(select(test("timed out"))) | .[0]' "$OUT/flood.json")"
j '.sanitizer.tools[]? | "   \(.tool): clean=\(.clean) \(.seconds) s"' "$OUT/flood.json"
[ "$(j .status "$OUT/flood.json")" = timeout ] && pass "the flood is a timeout" || bad "the flood: $(j .summary "$OUT/flood.json")"
# Whichever bound comes first ends it (at scale 0.25 the trials' 2.5 s,
# before the race checkers start), and the message names that bound.
j '.messages[]' "$OUT/flood.json" | grep -qE "ran past (its|their) [0-9.]+ s (bound|limit)" &&
    pass "the message names the bound that ended it" ||
    bad "no message names the bound that ended it"
[ "$took" -le 60 ] && pass "the check took $took s, under 60 (was about 190 s at scale 1)" || bad "the check took $took s"

# The host code's flood (tests/bank/flood_output.cu, a megabyte a call from
# the launcher) under the tools too: the runner's file is capped, the tools
# watch the judge only, and the verdict is the reduction's, within the bound.
start=$(date +%s)
$T check 01 --file tests/bank/flood_output.cu --quick --timeout-scale 0.25 --json > "$OUT/host-flood.json"
took=$(( $(date +%s) - start ))
j '.sanitizer.tools[]? | "   \(.tool): clean=\(.clean) \(.seconds) s"' "$OUT/host-flood.json"
[ "$(j .status "$OUT/host-flood.json")" = pass ] && [ "$took" -le 60 ] &&
    pass "the launcher's flood passes with the sanitizers in $took s" ||
    bad "the launcher's flood with the sanitizers: $(j .status "$OUT/host-flood.json") in $took s: $(j .summary "$OUT/host-flood.json")"

echo "== 3. every solution passes with the sanitizers, within its bound"
for lab in $(jq -r '.labs[].id' data/labs.json); do
    sol=$(ls solutions/$lab-*/kernel.cu)
    $T check "$lab" --file "$sol" --quick --json > "$OUT/sol-$lab.json"
    st=$(j .status "$OUT/sol-$lab.json")
    secs=$(j '.timing.total_s | floor' "$OUT/sol-$lab.json")
    san=$(j '[.sanitizer.tools[]? | "\(.tool) \(.seconds | floor) s"] | join(", ")' "$OUT/sol-$lab.json")
    [ "$st" = pass ] && pass "solution $lab passes ($secs s; $san)" ||
        bad "solution $lab: $st: $(j .summary "$OUT/sol-$lab.json")"
done

echo "== 4. probe: a file's bytes through the kernel's result (reported, not failed)"
head -c 4 /dev/urandom > "$OUT/secret"
cat > "$OUT/result_channel.cu" <<EOF
#include "lab.h"
__asm__(".section .rodata\n.balign 8\nsecret_bytes:\n.incbin \"$OUT/secret\"\n.zero 8\n.previous\n");
extern "C" const unsigned secret_bytes[2];
__global__ void put(int *out, unsigned v) { out[0] = (int)v; }
extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    put<<<1, 1, 0, s>>>(d_out, secret_bytes[0]);
}
EOF
$T check 01 --file "$OUT/result_channel.cu" --no-sanitize --quick --json > "$OUT/result_channel.json"
v=$(od -An -t d4 "$OUT/secret" | tr -d ' ')
echo "   status $(j .status "$OUT/result_channel.json"); the file's 4 bytes as an int: $v"
if j .summary "$OUT/result_channel.json" | grep -qF -- "$v"; then
    echo "   PROBE: the summary carries them: $(j .summary "$OUT/result_channel.json" | cut -c1-160)"
else
    echo "   PROBE: the summary does not carry them"
fi

echo "== $fails failure(s)"
[ "$fails" = 0 ]
