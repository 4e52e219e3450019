#!/usr/bin/env bash
# tests/gpu.sh — on a GPU: every pristine stub (data/stubs/) fails its check,
# every solution passes it (correct at every size, clean under the
# sanitizers) and meets its lab's target as a student's check on this GPU
# sets it (the catalog's, or this GPU model's calibration), every timed call
# held until the host had queued it.  Without a GPU the same checks
# run on the CPU judges (the PTX emulator, docs/harness.md "The CPU tier"):
# every stub fails and every solution passes there, up to each family's
# emulation bound; the GPU's own verdicts and the targets are skipped,
# visibly.  Without the CPU judges (a build without the emulator) every
# test is skipped.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
unset CUDATUTOR_NO_EMULATOR

n=$(jq '.labs | length' data/labs.json)
if ! have_gpu; then
    # Every lab's id, slug, family and lesson name, one lab a line, read once.
    mapfile -t labs < <(jq -r '.labs[] | "\(.id) \(.slug) \(.family) \(.lesson.name // "")"' data/labs.json)
    for lab in "${labs[@]}"; do
        read -r id slug family _ <<<"$lab"
        [ -x "build/harness/judge_cpu_$family" ] || continue
        par_check "$TMP/stub-$id.json" "$id" --file "data/stubs/$id-$slug.cu" --work-dir "$TMP/w/stub-$id"
        par_check "$TMP/sol-$id.json" "$id" --file "solutions/$id-$slug/kernel.cu" --work-dir "$TMP/w/sol-$id"
    done
    par_wait
    for lab in "${labs[@]}"; do
        read -r id slug family lesson <<<"$lab"
        if [ -f "$TMP/sol-$id.json" ]; then
            read -r st emu < <(jq -r '"\(.status) \(has("emulator"))"' "$TMP/stub-$id.json")
            if [ "$st" = fail ] && [ "$emu" = true ]; then ok "$id stub fails on the CPU emulator"
            else not_ok "$id stub fails on the CPU emulator" "status $st: $(jget "$TMP/stub-$id.json" .summary)"; fi
            read -r st emu < <(jq -r '"\(.status) \(has("emulator"))"' "$TMP/sol-$id.json")
            if [ "$st" = pass ] && [ "$emu" = true ]; then ok "$id solution passes on the CPU emulator"
            else not_ok "$id solution passes on the CPU emulator" "status $st: $(jget "$TMP/sol-$id.json" .summary)" \
                     "$(jq -r '.messages[]' "$TMP/sol-$id.json")"; fi
            # The lesson's figure, counted by the emulator, is the catalog's.
            if [ -n "$lesson" ]; then
                said=$(jq -r '.messages[]' "$TMP/sol-$id.json" | sed -n 's/.*: yours \([^,]*\), the reference solution.s \([^,]*\),.*/\1 \2/p')
                check "$id solution's lesson figure on the emulator is the catalog's ($said)" \
                    test -n "$said" -a "${said% *}" = "${said#* }"
            fi
            # The judge's wall time on the emulator, compile and link left out.
            echo "# $id solution: the CPU judge ran $(jq -r '.run_s // 0 | . * 100 | round / 100' "$TMP/sol-$id.json") s," \
                 "stub $(jq -r '.run_s // 0 | . * 100 | round / 100' "$TMP/stub-$id.json") s;" \
                 "$(jq -r '"\(.emulator.student_instructions // 0) student and \(.emulator.judge_instructions // 0)"' \
                    "$TMP/sol-$id.json") judge thread-instructions"
        else
            skip "$id stub fails on the CPU emulator" "skipped: no CPU judge (build without the emulator)"
            skip "$id solution passes on the CPU emulator" "skipped: no CPU judge (build without the emulator)"
        fi
        skip "$id stub fails on the GPU" "$NO_GPU_REASON"
        skip "$id solution passes on the GPU" "$NO_GPU_REASON"
        skip "$id solution meets its target" "$NO_GPU_REASON"
        skip "$id solution's timed calls each held until queued" "$NO_GPU_REASON"
    done
    # A student's own kernel.cu that passes on the CPU is recorded as passed
    # (on the CPU) and opens the next lab.
    if [ -f "$TMP/sol-01.json" ]; then
        export CUDATUTOR_HARNESS_DIR="$ROOT/build/harness"
        make_workbook "$TMP/wb"
        cp solutions/01-*/kernel.cu "$TMP/wb/labs/$(lab_dir 01)/kernel.cu"
        "$TUTOR" --root "$TMP/wb" check 01 > "$TMP/own-01.out" 2>&1; rc=$?
        check "check 01 of a passing kernel.cu on the CPU exits 0 and says passed on the CPU" \
            test $rc = 0 -a -n "$(grep -F 'passed on the CPU' "$TMP/own-01.out")"
        check "check 01 says what the pass changed, in the tutor's words" \
            grep -qxF "progress: Lab 01 passed.  Lab 02 is open." "$TMP/own-01.out"
        check "a pass on the CPU is recorded as passed, on the CPU, and opens lab 02" \
            test "$(jq -r '.labs["01"] | "\(.state) \(.passed_on)"' "$CUDATUTOR_PROGRESS") $("$TUTOR" --root "$TMP/wb" list --json |
                   jq -r '.[] | select(.id == "02") | .state')" = "passed cpu open"
        check "list and progress say lab 01 passed on the CPU (list --json: passed_on cpu)" \
            test -n "$("$TUTOR" --root "$TMP/wb" list | grep -E '^01 .* passed CPU ')" \
                 -a -n "$("$TUTOR" --root "$TMP/wb" progress | grep -E '^01 +passed CPU ')" \
                 -a "$("$TUTOR" --root "$TMP/wb" list --json | jq -r '.[] | select(.id == "01") | .passed_on')" = cpu
    fi
    exit 0
fi

results=${GPU_RESULTS:-$TMP}
mkdir -p "$results"
for i in $(seq 0 $((n - 1))); do
    id=$(jq -r ".labs[$i].id" data/labs.json)
    slug=$(jq -r ".labs[$i].slug" data/labs.json)
    sol=solutions/$id-$slug/kernel.cu stub=data/stubs/$id-$slug.cu

    "$TUTOR" check "$id" --file "$stub" --no-sanitize --quick --json > "$results/stub-$id.json"
    st=$(jget "$results/stub-$id.json" .status)
    if [ "$st" = fail ]; then ok "$id stub fails on the GPU"
    else not_ok "$id stub fails on the GPU" "status $st: $(jget "$results/stub-$id.json" .summary)"; fi

    # The solution as a student's check on this GPU judges it: by the
    # catalog's target, or by this GPU model's calibration where its
    # reference solution falls short of the catalog's (an H100's) figure;
    # the first such check calibrates every lab (docs/harness.md 4.1).
    env -u CUDATUTOR_NO_CALIBRATE "$TUTOR" check "$id" --file "$sol" --json > "$results/solution-$id.json"
    st=$(jget "$results/solution-$id.json" .status)
    if [ "$st" = pass ]; then ok "$id solution passes on the GPU"
    else not_ok "$id solution passes on the GPU" "status $st: $(jget "$results/solution-$id.json" .summary)" \
             "$(jq -r '.messages[]' "$results/solution-$id.json")"; fi
    met=$(jget "$results/solution-$id.json" '.target.met')
    cal=$(jq -r '.target.calibration.gpu // empty' "$results/solution-$id.json")
    if [ "$met" = true ]; then ok "$id solution meets its target${cal:+ (calibrated to the $cal)}"
    else not_ok "$id solution meets its target" "$(jq -c .target "$results/solution-$id.json")"; fi
    # Every timed call was queued whole before its first event: the hold
    # (docs/harness.md 4, step 4) never let go on its own.
    late=$(jq -r '.phases.hold_late // "missing"' "build/check/$id/harness.json" 2>/dev/null)
    check "$id solution's timed calls each held until queued (hold_late ${late:-missing})" test "$late" = 0
    echo "# $id $(jget "$results/solution-$id.json" .summary)"
done
