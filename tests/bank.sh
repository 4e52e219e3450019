#!/usr/bin/env bash
# tests/bank.sh — the bank of known-bad kernels in tests/bank/ must each get
# the verdict written on its first line ("// bank: lab=NN expect=STATUS
# [cpu=STATUS] [target=met|missed]"; target= is checked on a GPU: a
# kernel that is right but slow must pass and miss the target).  Without a
# GPU a check still runs the runner and checks its plans, and then the CPU
# judge runs the trials on the PTX emulator (docs/harness.md section 8.1),
# so most verdicts are reached there too: cpu= names the verdict expected
# without a GPU (default: the GPU's, as the emulator judges alike; without
# the CPU judges, rejected stays rejected and everything else is no_gpu),
# and the GPU's own verdict is skipped, visibly.  Only the kernels whose
# cpu= repeats their expect=, and those expected rejected, are checked
# there: the rest would each spend nvcc's 2 to 3 CPU seconds and the
# emulator's, which the GPU's own run of this file shows anyway.
# BANK_CPU=all checks them too.  The PTX of each check goes to
# tests/emu.sh (emu_ptx_keep), which need not compile it again.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
unset CUDATUTOR_NO_EMULATOR

results=${GPU_RESULTS:-$TMP}
mkdir -p "$results"
gpu=0
have_gpu && gpu=1
right=0 total=0
# Without a GPU nothing is timed: the checks run side by side first, and
# their verdicts are read in order below.
if [ $gpu = 0 ]; then
    # The files that include CUB's or libcu++'s headers compile for 2 to 6
    # s where the others take well under one: they start first, so that
    # none of them ends the loop alone on one core (uses_cub, last by
    # name, did).
    heavy='^#include <(cub|cuda)/'
    for f in $(grep -lE "$heavy" tests/bank/*.cu) $(grep -LE "$heavy" tests/bank/*.cu); do
        name=${f##*/} name=${name%.cu}
        read -r meta < "$f"
        bank_meta "$meta"
        [ -n "$bank_lab" ] && [ -n "$bank_want" ] && bank_cpu_checked || continue
        # A quarter of the catalog's bounds where the bound is what is
        # tested (a kernel or launcher that never ends); elsewhere the bound
        # only stops a hang, and must leave room for a pass that the
        # emulator runs up to n=2^20 in seconds of CPU, which a busy
        # machine stretches past a quarter of the bound.
        scale=1
        [ "$bank_cpu_want" = timeout ] && scale=0.25
        par_check "$TMP/b-$name.json" "$bank_lab" --file "$f" --no-sanitize --quick --timeout-scale $scale \
            --work-dir "$TMP/w/$name"
    done
    par_wait
fi
for f in tests/bank/*.cu; do
    name=${f##*/} name=${name%.cu}
    read -r meta < "$f"
    bank_meta "$meta"
    lab=$bank_lab want=$bank_want want_cpu=$bank_cpu_want
    if [ -z "$lab" ] || [ -z "$want" ]; then
        not_ok "bank $name declares lab and expected verdict" "first line: $meta"
        continue
    fi
    if [ $gpu = 0 ] && ! bank_cpu_checked; then
        skip "bank $name is judged $want" "$NO_GPU_REASON"
        continue
    fi
    if [ $gpu = 0 ]; then
        emu_ptx_keep "$f" "$TMP/w/$name"
        got=$(jget "$TMP/b-$name.json" .status)
        check "bank $name is judged $want_cpu without a GPU" test "$got" = "$want_cpu"
        [ "$got" = "$want_cpu" ] || echo "#   $name: $(jget "$TMP/b-$name.json" .summary)"
        [ "$want" = "$want_cpu" ] || skip "bank $name is judged $want" "$NO_GPU_REASON"
        continue
    fi
    if [ $gpu = 1 ]; then
        # Races are what the sanitizer is for; elsewhere it would only cost time.
        opts="--no-sanitize --quick"
        grep -q 'racecheck\|sanitizer' <<<"$(sed -n 2p "$f")" && opts="--quick"
        # shellcheck disable=SC2086
        "$TUTOR" check "$lab" --file "$f" $opts --timeout-scale 0.25 --json > "$results/bank-$name.json"
    fi
    got=$(jget "$results/bank-$name.json" .status)
    total=$((total + 1))
    want_target=$bank_target
    if [ -n "$want_target" ]; then
        # A pass on the right side of the target reads "pass+met" or "pass+missed".
        want="$want+$want_target"
        got="$got+$(jq -r 'if .target.met then "met" else "missed" end' "$results/bank-$name.json")"
    fi
    if [ "$got" = "$want" ]; then
        right=$((right + 1))
        ok "bank $name is judged $want"
    else
        not_ok "bank $name is judged $want" "got $got: $(jget "$results/bank-$name.json" .summary)"
    fi
done
echo "# bank: $right of $total judged right"
