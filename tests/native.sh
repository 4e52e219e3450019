#!/usr/bin/env bash
# tests/native.sh — the CPU judges run the judge's own kernels natively
# (tutor/harness/hx_judge.cuh); the bytes must be those of the kernels.
# With $HX_JUDGE_CROSSCHECK every body runs both ways on the same bytes,
# natively and as its kernel on the PTX emulator, and a byte that differs
# in its output is an internal error.  Every lab's solution (the inputs,
# poisons, checks and probes of a pass) and its stub (those of a wrong
# result) are checked so, at the trial sizes up to 4097 (the hazard pass's
# and enough for every grid-stride path: each family sizes its own grids
# for one SM there); the verdict must be the one without the cross-check,
# and the judge's instructions must show that the kernels did run.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
unset CUDATUTOR_NO_EMULATOR

if have_gpu; then
    skip "the judge's bodies agree with their kernels" "skipped: a GPU check runs the kernels themselves"
    exit 0
fi
export HX_JUDGE_CROSSCHECK=1
# Every lab's id, slug and family, one lab a line, read once.
mapfile -t labs < <(jq -r '.labs[] | "\(.id) \(.slug) \(.family)"' data/labs.json)
for lab in "${labs[@]}"; do
    read -r id slug family <<<"$lab"
    [ -x "build/harness/judge_cpu_$family" ] || continue
    for kind in stub sol; do
        file="data/stubs/$id-$slug.cu"
        [ $kind = sol ] && file="solutions/$id-$slug/kernel.cu"
        par_check "$TMP/$kind-$id.json" "$id" --file "$file" --work-dir "$TMP/w/$kind-$id"
    done
done
par_wait
for lab in "${labs[@]}"; do
    read -r id slug family <<<"$lab"
    if [ ! -f "$TMP/sol-$id.json" ]; then
        skip "$id: the judge's bodies agree with their kernels" "skipped: no CPU judge (build without the emulator)"
        continue
    fi
    for kind in stub sol; do
        want=fail
        [ $kind = sol ] && want=pass
        r="$TMP/$kind-$id.json"
        # A disagreement stops the trial as the judge's own failure, which
        # a stub's verdict (fail) could hide: its message is looked for too
        # (the status, the judge's instructions and those messages in one jq).
        read -r st ji differ < <(jq -r '[.status, (.emulator.judge_instructions // 0),
            ([.messages[] | select(test("natively and on the emulator differ"))] | length)] | map(tostring) | join(" ")' "$r")
        ran=$ji
        [ "$family" = trapezoid ] && ran=1
        if [ "$st" = $want ] && [ "$ran" -gt 0 ] && [ "$differ" = 0 ]; then
            ok "$id $kind: every judge body agrees with its kernel on the emulator ($ji judge thread-instructions)"
        else
            not_ok "$id $kind: every judge body agrees with its kernel on the emulator" \
                   "status $st (want $want), $ji judge thread-instructions" "$(jq -r '.messages[]' "$r")"
        fi
    done
done
