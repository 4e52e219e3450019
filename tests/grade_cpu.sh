#!/usr/bin/env bash
# tests/grade_cpu.sh — the grader without a GPU, where the CPU judges (the
# PTX emulator) reach the verdicts, under a grading host's address-space
# limit (ulimit -v 4194304):
#   - a reference solution passes there (each emulator reserved 2 x 4 GiB,
#     and every kernel was rejected under such a limit);
#   - a lab judged on the CPU is marked provisional in report.json,
#     results.json, grades.csv, JUnit and the summary;
#   - a kernel the CPU tier refuses ("needs a GPU") is graded as not
#     passed and stays in graded_max_score: the bank's wrong_answer with a
#     never-launched __half kernel (tests/bank/half_unlaunched_wrong.cu)
#     made its lab no_gpu, not graded, 0 of 0 instead of 0 of 8, and
#     tests/bank/declares_65000_registers.cu, refused as its module
#     loads, still is no_gpu: graded, 0 of 8.
#   - the CPU judge's memory bound (the catalog's emu_memory_mib), on a
#     workbook whose catalog sets 256 MiB (the least it takes) for every
#     family: a kernel the emulator cannot hold in it
#     (tests/bank/device_array_208mib.cu, a 208 MiB __device__ array) is
#     no_gpu and names the bound, every lab's solution still passes.
# On a GPU machine the GPU judges instead, and this is skipped.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
set -o pipefail
unset CUDATUTOR_NO_EMULATOR

if have_gpu; then
    skip "the grader on the CPU tier" "a GPU judges here"
    exit 0
fi
if [ ! -x build/harness/judge_cpu_reduce_int ]; then
    skip "the grader on the CPU tier" "this build has no CPU judges"
    exit 0
fi

L1=$(lab_dir 01)
S="$TMP/subs"
mkdir -p "$S/ann/labs/$L1" "$S/ben/labs/$L1" "$S/cam/labs/$L1"
cp "solutions/$L1/kernel.cu" "$S/ann/labs/$L1/kernel.cu"
cp tests/bank/half_unlaunched_wrong.cu "$S/ben/labs/$L1/kernel.cu"
cp tests/bank/declares_65000_registers.cu "$S/cam/labs/$L1/kernel.cu"
OPTS=(--labs 01 --seed 4242 --no-sanitize --no-calibrate -j 2 -q)
O="$TMP/o"
"$ROOT/grade.sh" "${OPTS[@]}" -o "$O" "$S/ann" "$S/ben" "$S/cam" > "$TMP/o.log" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/#   /' "$TMP/o.log" | tail -n 20
(ulimit -v 4194304 && "$ROOT/grade.sh" "${OPTS[@]}" -o "$TMP/o-ulimit" "$S/ann") > "$TMP/o-ulimit.log" 2>&1

A="$O/students/ann"
B="$O/students/ben"
C="$O/students/cam"
check "under ulimit -v 4194304 the reference solution passes on the CPU" \
    test "$(jget "$TMP/o-ulimit/students/ann/report.json" '.labs[0].status')" = pass
check "a class whose every lab the CPU judged exits 0" test $rc = 0
check "report.json marks the CPU's pass provisional" \
    test "$(jq -c '[.labs[0].provisional, .labs_provisional]' "$A/report.json")" = '[true,1]'
check "the student reads that the verdict is provisional" \
    test -n "$(jget "$A/report.json" '.labs[0].text' | grep -F 'provisional: judged on the CPU')"
check "results.json tags the lab provisional and says so in its output" \
    test "$(jq -c '[.tests[0].tags, .tests[0].extra_data.provisional, (.output | test("provisional"))]' \
            "$A/results.json")" = '[["pass","provisional"],true,true]'
check "grades.csv lists the provisional labs" \
    test "$(python3 -c 'import csv, sys; print({r["student"]: r.get("provisional") for r in csv.DictReader(open(sys.argv[1]))})' \
            "$O/grades.csv")" = "{'ann': '01', 'ben': '01', 'cam': '01'}"
check "JUnit says how many labs are provisional" \
    test -n "$(grep -F '<property name="labs_provisional" value="1"/>' "$A/junit.xml")"
check "the summary marks the lab with a star" \
    test -n "$(grep -E '^ann .* [Pp]\*$' "$O/summary.txt")" -a -n "$(grep -F '* after a letter' "$O/summary.txt")"
# The emulator refuses per launched kernel now, so ben's wrong sums are
# found and fail; either way his lab is graded.
check "a wrong kernel beside an unlaunched __half one is graded: it stays in graded_max_score" \
    test "$(jq -c '[.labs[0].status, .labs[0].graded, .graded_max_score, .labs_not_graded]' "$B/report.json")" \
         = '["fail",true,8,0]'
check "a kernel the CPU tier cannot run is graded as not passed, with the reason" \
    test "$(jq -c '[.labs[0].status, .labs[0].graded, .labs[0].score, .graded_max_score, .labs_not_graded]' \
            "$C/report.json")" = '["no_gpu",true,0,8,0]' \
         -a -n "$(jget "$C/report.json" '.labs[0].summary' | grep -F 'needs a GPU')"
check "Gradescope counts it: 0 of 8, failed" \
    test "$(jq -c '.tests[0] | [.score, .max_score, .status]' "$C/results.json")" = '[0,8,"failed"]'

# ---- the CPU judge's memory bound --------------------------------------------

WB="$TMP/wb"
make_workbook "$WB"
ln -s "$TUTOR" "$WB/cudatutor"
jq '.families |= map_values(.emu_memory_mib = 256)' data/labs.json > "$WB/data/labs.json"
export CUDATUTOR_HARNESS_DIR="$ROOT/build/harness"
(cd "$WB" && ./cudatutor check 01 --file "$ROOT/tests/bank/device_array_208mib.cu" --no-sanitize \
    --work-dir "$TMP/w-bound" --json > "$TMP/bound.json" 2>/dev/null)
cd "$WB" || exit 1
for lab in $(lab_ids); do
    TUTOR=./cudatutor par_check "$TMP/sol-$lab.json" "$lab" --file "$ROOT/solutions/$(lab_dir "$lab")/kernel.cu" \
        --no-sanitize --work-dir "$TMP/w-sol-$lab"
done
par_wait
cd "$ROOT" || exit 1
check "a kernel past the CPU judge's bound (256 MiB here) needs a GPU, and the message names the bound" \
    test "$(jget "$TMP/bound.json" .status)" = no_gpu \
         -a -n "$(jget "$TMP/bound.json" .summary | grep -F "bound of 256 MiB")"
unbound=$(for lab in $(lab_ids); do
              [ "$(jget "$TMP/sol-$lab.json" .status)" = pass ] || echo "$lab: $(jget "$TMP/sol-$lab.json" .summary)"
          done)
if [ -z "$unbound" ]; then ok "every lab's solution passes under that bound, the least the catalog takes"
else not_ok "every lab's solution passes under that bound, the least the catalog takes" "$unbound"; fi
