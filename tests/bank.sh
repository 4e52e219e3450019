#!/usr/bin/env bash
# tests/bank.sh — the bank of known-bad kernels in tests/bank/ must each get
# the verdict written on its first line ("// bank: lab=NN expect=STATUS
# [cpu=STATUS] [target=met|missed]"; target= is checked on a GPU: a
# kernel that is right but slow must pass and miss the target).  Without a GPU a check still runs the runner and checks
# its plans, so the verdicts about host code (rejected, a launcher that
# hangs or crashes) are reached there too: cpu= names the verdict expected
# without a GPU (default: rejected stays rejected, everything else no_gpu),
# and the GPU's own verdict is skipped, visibly.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

results=${GPU_RESULTS:-$TMP}
mkdir -p "$results"
gpu=0
have_gpu && gpu=1
right=0 total=0
# Without a GPU nothing is timed: the checks run side by side first, and
# their verdicts are read in order below.
if [ $gpu = 0 ]; then
    for f in tests/bank/*.cu; do
        name=$(basename "$f" .cu)
        meta=$(head -n1 "$f")
        lab=$(sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p' <<<"$meta")
        want=$(sed -n 's/.*expect=\([a-z_]*\).*/\1/p' <<<"$meta")
        [ -n "$lab" ] && [ -n "$want" ] || continue
        par_check "$TMP/b-$name.json" "$lab" --file "$f" --no-sanitize --quick --timeout-scale 0.25 \
            --work-dir "$TMP/w/$name"
    done
    par_wait
fi
for f in tests/bank/*.cu; do
    name=$(basename "$f" .cu)
    meta=$(head -n1 "$f")
    lab=$(sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p' <<<"$meta")
    want=$(sed -n 's/.*expect=\([a-z_]*\).*/\1/p' <<<"$meta")
    want_cpu=$(sed -n 's/.*cpu=\([a-z_]*\).*/\1/p' <<<"$meta")
    [ -n "$want_cpu" ] || { [ "$want" = rejected ] && want_cpu=rejected || want_cpu=no_gpu; }
    if [ -z "$lab" ] || [ -z "$want" ]; then
        not_ok "bank $name declares lab and expected verdict" "first line: $meta"
        continue
    fi
    if [ $gpu = 0 ]; then
        got=$(jq -r .status "$TMP/b-$name.json")
        check "bank $name is judged $want_cpu without a GPU" test "$got" = "$want_cpu"
        [ "$got" = "$want_cpu" ] || echo "#   $name: $(jq -r .summary "$TMP/b-$name.json")"
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
    got=$(jq -r .status "$results/bank-$name.json")
    total=$((total + 1))
    want_target=$(sed -n 's/.*target=\(met\|missed\).*/\1/p' <<<"$meta")
    if [ -n "$want_target" ]; then
        # A pass on the right side of the target reads "pass+met" or "pass+missed".
        want="$want+$want_target"
        got="$got+$(jq -r 'if .target.met then "met" else "missed" end' "$results/bank-$name.json")"
    fi
    if [ "$got" = "$want" ]; then
        right=$((right + 1))
        ok "bank $name is judged $want"
    else
        not_ok "bank $name is judged $want" "got $got: $(jq -r .summary "$results/bank-$name.json")"
    fi
done
echo "# bank: $right of $total judged right"
