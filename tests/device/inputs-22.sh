#!/usr/bin/env bash
# tests/device/inputs-22.sh — issue 22 item 4 (the judge's inputs cover the
# domain lab.h promises) on a GPU machine, after `make build`:
#  1. the new bank entries fail, for the reason their first lines give:
#     scan_offset_30_bits (lab 13: prefixes past 2^29 at a tile edge),
#     argmax_fixed_point (lab 11: values of every exponent),
#     epilogue_memo_in_out (lab 15: "wrote outside its result");
#  2. each reference solution passes, and its target's figure (every case
#     of it) is within 2% of the catalog's "solution" figure, the one
#     docs/ladder.md shows: the poison of whole allocations and the new
#     inputs cost no timed time;
#  3. with BEFORE=<commit> (the branch's base, e90d971), the same three
#     entries against that commit's judge, built in a temporary worktree:
#     each passed there (the wrong verdict the issue reports).
# tests/bank.sh and tests/gpu.sh are run apart (see the end).
# Usage: OUT=/dir [LABS="11 13 15"] [BEFORE=e90d971] bash tests/device/inputs-22.sh
set -u
export CUDATUTOR_NO_CALIBRATE=1
OUT=${OUT:-/tmp/cudatutor-inputs-22}
LABS=${LABS:-"01 02 03 04 05 06 07 08 09 10 11 12 13 14 15"}
mkdir -p "$OUT/before-json"
OUT=$(cd "$OUT" && pwd)
T=./cudatutor
bad=0
j() { jq -r "$1" "$2"; }
say_ok() { echo "ok   $*"; }
say_bad() { echo "BAD  $*"; bad=$((bad + 1)); }
NEW="scan_offset_30_bits argmax_fixed_point epilogue_memo_in_out"

# bank_one TUTOR NAME DIR: checks one bank entry as tests/bank.sh does;
# prints its status.
bank_one() {
    local f=tests/bank/$2.cu meta lab
    meta=$(head -n1 "$f")
    lab=$(sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p' <<<"$meta")
    "$1" check "$lab" --file "$f" --no-sanitize --quick --timeout-scale 0.25 --json > "$3/bank-$2.json"
    j .status "$3/bank-$2.json"
}

echo "== 1. the new bank entries"
for name in $NEW; do
    got=$(bank_one "$T" "$name" "$OUT")
    why=$(j '.summary + " | " + ([.tests[]? | select(.pass == false) | .message][0] // "")' "$OUT/bank-$name.json")
    if [ "$got" = fail ]; then say_ok "$name is judged fail: $why"
    else say_bad "$name is judged fail: got $got: $why"; fi
done

echo "== 2. solutions: pass, and within 2% of the catalog's figure"
for lab in $LABS; do
    slug=$(jq -r ".labs[] | select(.id == \"$lab\") | .slug" data/labs.json)
    f=$OUT/solution-$lab.json
    $T check "$lab" --file "solutions/$lab-$slug/kernel.cu" --no-sanitize --json > "$f"
    if [ "$(j .status "$f")" = pass ]; then say_ok "$lab solution passes"
    else say_bad "$lab solution passes: got $(j .status "$f"): $(j .summary "$f")"; fi
    metric=$(jq -r ".labs[] | select(.id == \"$lab\") | .target.metric" data/labs.json)
    # Every case of the target: its label and the catalog's solution figure.
    while read -r label want; do
        if [ "$metric" = ratio ]; then
            got=$(jq -r --arg l "$label" '.perf[] | select(.label == $l) | .ratio' "$f")
        else
            got=$(jq -r --arg l "$label" '.perf[] | select(.label == $l) | .pct_peak / 100' "$f")
        fi
        dev=$(awk -v g="$got" -v w="$want" 'BEGIN { if (g == "" || w == 0) print "nan"; else printf "%.1f", (g / w - 1) * 100 }')
        line="$lab $metric at $label: $got, catalog $want ($dev%)"
        if awk -v d="$dev" 'BEGIN { exit !(d != "nan" && d >= -2 && d <= 2) }'; then say_ok "$line"
        else say_bad "$line"; fi
    done < <(jq -r ".labs[] | select(.id == \"$lab\") | .target | ([{case, solution}] + (.also // [])) | .[] |
                 \"\(.case) \(.solution)\"" data/labs.json)
done

if [ -n "${BEFORE:-}" ]; then
    echo "== 3. the new entries against the judge of $BEFORE"
    wt=$OUT/before
    rm -rf "$wt"
    git worktree add --detach "$wt" "$BEFORE" >/dev/null 2>&1 || { say_bad "git worktree add $BEFORE"; exit 1; }
    cp tests/bank/{scan_offset_30_bits,argmax_fixed_point,epilogue_memo_in_out}.cu "$wt/tests/bank/"
    (cd "$wt" && make -j"$(nproc)" build >/dev/null 2>&1) || { say_bad "build of $BEFORE"; exit 1; }
    for name in $NEW; do
        got=$(cd "$wt" && bank_one ./cudatutor "$name" "$OUT/before-json" 2>/dev/null || true)
        echo "     before: $name judged ${got:-?} (the issue: pass, wrongly)"
    done
    git worktree remove --force "$wt"
fi
echo "# $bad BAD line(s)"
echo "# then: bash tests/run.sh tests/bank.sh tests/gpu.sh   (every bank entry, the GPU suite)"
[ $bad = 0 ]
