#!/usr/bin/env bash
# tests/cli.sh — the command line: help, list, show, hint, usage errors, the
# one grammar (options anywhere, --opt=value), the tutor's lock rule, missing
# lab files, watch, and check verdicts that need no GPU (compile errors,
# rejections, no device); where the judge keeps the runner's output, a
# fail's headline, the heading without a GPU, and list and progress in 80
# and 40 columns (issue 34).
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

out=$("$TUTOR" --help); rc=$?
check "help exits 0 and lists the commands" test $rc -eq 0 -a -n "$(grep -E '^  check ' <<<"$out")"

out=$("$TUTOR" list)
ids=$(awk '/^[0-9][0-9] /{print $1}' <<<"$out" | tr '\n' ' ')
check "list shows the catalog's labs in order, the ten core labs first" \
    test "$ids" = "$(lab_ids | tr '\n' ' ')" -a "${ids:0:30}" = "01 02 03 04 05 06 07 08 09 10 "
check "list --json has every lab with its family" \
    test "$("$TUTOR" list --json | jq -r '[.[].family] | unique | join(",")')" = \
         "$(jq -r '[.labs[].family] | unique | join(",")' data/labs.json)"
bonus=$(jq -r '[.labs[] | select(.bonus) | .id] | join(" ")' data/labs.json)
if [ -n "$bonus" ]; then
    check "list shows the bonus labs ($bonus) under their heading, after lab 10" \
        test "$(sed -n '/^Bonus: open once lab 08 has passed$/,$p' <<<"$out" | sed '/^$/,$d' | awk '{print $1}' | tr '\n' ' ')" = \
             "Bonus: $bonus " -a "$(grep -B1 '^Bonus:' <<<"$out" | awk 'NR == 1 {print $1}')" = 10
else
    skip "list shows the bonus labs under their heading" "the catalog has no bonus lab"
fi

out=$("$TUTOR" check 2>&1); rc=$?
check "check without a lab is a usage error" test $rc -eq 2 -a -n "$(grep 'which lab' <<<"$out")"
out=$("$TUTOR" check 42 2>&1); rc=$?
check "check of an unknown lab names it" test $rc -eq 2 -a -n "$(grep 'no lab "42"' <<<"$out")"
out=$("$TUTOR" frobnicate 2>&1); rc=$?
check "an unknown command is a usage error" test $rc -eq 2 -a -n "$(grep 'unknown command' <<<"$out")"
out=$("$TUTOR" check 01 --seed nope 2>&1); rc=$?
check "a bad seed is a usage error" test $rc -eq 2

out=$("$TUTOR" show 01)
check "show prints the lesson" test "$(head -n1 <<<"$out")" = "$(head -n1 labs/01-*/README.md)"
want=$(jget data/labs.json '.labs[1].hints[1]')
check "hint 02 2 prints the second hint (--unlock-all after the command)" \
    test "$("$TUTOR" hint 02 2 --json --unlock-all | jq -r .text)" = "$want"

out=$(cd /tmp && "$TUTOR" list 2>&1); rc=$?
check "outside a workbook: a clear error" test $rc -eq 2 -a -n "$(grep 'not inside a workbook' <<<"$out")"

# A broken catalog is refused with the JSON path of the problem.
mkdir -p "$TMP/wb/data"
jq '.labs[3].family = "x"' data/labs.json > "$TMP/wb/data/labs.json"
out=$("$TUTOR" --root "$TMP/wb" list 2>&1); rc=$?
check "a bad catalog names file, path and value" \
    test $rc -ne 0 -a "$out" = 'cudatutor: data/labs.json: labs[3].family: unknown family "x"'

# ---- one grammar -----------------------------------------------------------
# Options before or after the command and its arguments, --opt=value, and
# what a command does not take refused with exit 2, naming the command.
sol02="$ROOT/solutions/$(lab_dir 02)/kernel.cu"
check "options before the command" test "$("$TUTOR" --json list | jq length)" = "$(jq '.labs | length' data/labs.json)"
check "options after the command and its arguments" test "$("$TUTOR" solution 02 --json --unlock-all | jq -r .id)" = 02
check "--opt=value" test "$("$TUTOR" check 01 --file="$sol02" --build-only --json --seed=7 | jq -r .seed)" = 7
check "--opt value after the lab" test "$("$TUTOR" check 01 --build-only --seed 9 --json --file "$sol02" | jq -r .seed)" = 9
out=$("$TUTOR" list --seed 3 2>&1); rc=$?
check "an option the command does not take: exit 2, naming it" \
    test $rc -eq 2 -a -n "$(grep -F -- '--seed is not an option of list' <<<"$out")"
out=$("$TUTOR" list --json=yes 2>&1); rc=$?
check "--flag=value: exit 2" test $rc -eq 2 -a -n "$(grep -F -- '--json takes no value' <<<"$out")"
out=$("$TUTOR" check 01 --seed 2>&1); rc=$?
check "an option without its value: exit 2" test $rc -eq 2 -a -n "$(grep -F -- '--seed needs a value' <<<"$out")"
out=$("$TUTOR" hint 01 2 3 2>&1); rc=$?
check "one argument too many: exit 2" test $rc -eq 2 -a -n "$(grep -F 'unexpected argument "3"' <<<"$out")"
out=$("$TUTOR" check 01 --help); rc=$?
check "--help after the command: the command's usage" test $rc -eq 0 -a -n "$(grep '^usage: cudatutor check NN' <<<"$out")"
check "-h: the same" test "$("$TUTOR" -h check)" = "$out"

# ---- the tutor's lock rule ----------------------------------------------------
# The student's own work opens lab by lab, as in the tutor; --file (not
# recorded), --build-only and --unlock-all stay open to scripts.
export CUDATUTOR_PROGRESS="$TMP/lock.json"
for cmd in "check 02" "hint 02" "watch 02" "hint 02 1"; do
    # shellcheck disable=SC2086
    out=$("$TUTOR" $cmd 2>&1); rc=$?
    check "$cmd on a locked lab: refused (exit 1), naming the lab to pass" \
        test $rc -eq 1 -a "$out" = "cudatutor ${cmd%% *}: lab 02 is locked: pass lab 01 first (or add --unlock-all)"
done
check "a refused command records nothing" test ! -e "$TMP/lock.json"
out=$("$TUTOR" solution 02 2>&1); rc=$?
check "solution of a lab not passed: refused (exit 1)" test $rc -eq 1 -a -n "$(grep 'has not passed yet' <<<"$out")"
check "check --file of a locked lab runs" \
    test "$("$TUTOR" check 02 --file "$sol02" --build-only --json | jq -r .status)" = no_gpu
check "--unlock-all opens it" test "$("$TUTOR" hint 02 --unlock-all --json | jq -r .hint)" = 1
check "show of a locked lab prints its lesson" test "$("$TUTOR" show 02 | head -n1)" = "$(head -n1 labs/02-*/README.md)"
export CUDATUTOR_PROGRESS="$TMP/progress.json"

# A lab's own kernel.cu is checked in a fresh workbook: the student's copy
# in labs/ may hold anything.
WB=$TMP/wb-pristine
make_workbook "$WB"
export CUDATUTOR_HARNESS_DIR="$ROOT/build/harness"

# ---- missing lab files ---------------------------------------------------------
L3=$(lab_dir 03)
mv "$WB/labs/$L3/kernel.cu" "$TMP/k03"
out=$("$TUTOR" --root "$WB" --unlock-all check 03 --json 2>&1); rc=$?
check "check of a deleted kernel.cu: exit 4 with the fix, not a compile error" \
    test $rc -eq 4 -a -n "$(grep -F "labs/$L3/kernel.cu is missing: restore it with \`cudatutor reset 03\`" <<<"$out")" \
         -a -z "$(grep -i compile <<<"$out")"
mv "$WB/labs/$L3" "$TMP/l03"
out=$("$TUTOR" --root "$WB" show 03 2>&1); rc=$?
check "show of a deleted lab folder: exit 4, with the git checkout that restores it" \
    test $rc -eq 4 -a -n "$(grep -F "the lab folder labs/$L3 is missing: restore it with \`git checkout -- labs/$L3\`" <<<"$out")"
mkdir -p "$WB/labs/$L3"
out=$("$TUTOR" --root "$WB" show 03 --json 2>&1); rc=$?
check "show of a deleted lesson: exit 4, naming it" \
    test $rc -eq 4 -a -n "$(grep -F "labs/$L3/README.md is missing: restore it with \`git checkout -- labs/$L3/README.md\`" <<<"$out")"
rm -rf "$WB/labs/$L3"
mv "$TMP/l03" "$WB/labs/$L3"
mv "$TMP/k03" "$WB/labs/$L3/kernel.cu"

# ---- the grader's intake rules -------------------------------------------------
# What the grader would refuse when it takes a submission in, check refuses
# first, with the grader's status and sentence (model/intake_rule.h), and
# builds nothing: a kernel.cu over 256 KiB, one that is no regular file (a
# symbolic link, a folder, a FIFO: never opened, so never waited on), and
# one that is not UTF-8 text.  The grader's side: tests/grade.sh, test_intake.
L1=$(lab_dir 01)
K1="$WB/labs/$L1/kernel.cu"
cp "$K1" "$TMP/k01"
# intake_verdict: the check of lab 01's own kernel.cu, as "EXIT STATUS | SUMMARY".
intake_verdict() {
    local out rc
    out=$(timeout 20 "$TUTOR" --root "$WB" check 01 --json 2>/dev/null); rc=$?
    echo "$rc $(jq -r '.status + " | " + .summary' <<<"$out" 2>/dev/null)"
}
refused="1 refused | refused when the submission was taken in: labs/$L1/kernel.cu"
head -c $((6 << 20)) /dev/zero | tr '\0' '/' > "$K1"
check "check of a 6 MiB kernel.cu: refused, in the grader's words" \
    test "$(intake_verdict)" = "$refused is 6291456 bytes (the limit is 256 KiB)"
rm -f "$K1" && ln -s "$TMP/k01" "$K1"
check "check of a kernel.cu that is a symbolic link: refused" test "$(intake_verdict)" = "$refused is a symbolic link"
rm -f "$K1" && mkfifo "$K1"
check "check of a kernel.cu that is a FIFO: refused, without waiting on it" \
    test "$(intake_verdict)" = "$refused is not a regular file"
rm -f "$K1" && mkdir "$K1"
check "check of a kernel.cu that is a folder: refused" test "$(intake_verdict)" = "$refused is not a regular file"
rmdir "$K1"
{ cat "$TMP/k01"; printf '// \0\n'; } > "$K1"
check "check of a kernel.cu with a NUL byte: refused, naming the line" \
    test "$(intake_verdict)" = "$refused is not text: line $(($(wc -l < "$TMP/k01") + 1)) holds a NUL byte"
printf '// caf\xe9\n' > "$K1"
check "check of a kernel.cu in Latin-1: refused, naming the line and the byte" \
    test "$(intake_verdict)" = "$refused is not UTF-8 text: line 1 holds the byte 0xe9"
check "a refused check built nothing" test ! -e "$WB/build/check/01/kernel.o"
mkfifo "$TMP/fifo.cu"
out=$(timeout 20 "$TUTOR" check 01 --file "$TMP/fifo.cu" --json 2>&1); rc=$?
check "check --file of a FIFO: refused as the grader refuses it" \
    test $rc = 1 -a "$(jq -r .summary <<<"$out")" = "refused when the submission was taken in: $TMP/fifo.cu is not a regular file"
cp "$TMP/k01" "$K1"

# ---- a check that waits ------------------------------------------------------------
# Another check of the lab (flock on the lock check_run takes) for a second:
# this one says what it waits for, then runs.
mkdir -p "$WB/build/check/01"
flock -o "$WB/build/check/01/.lock" sleep 1 &
holder=$!
sleep 0.2
err=$("$TUTOR" --root "$WB" check 01 --build-only --json 2>&1 > "$TMP/waited.json")
wait "$holder"
check "a check that waits for another of the same lab says so, then runs" \
    test -n "$(grep -F 'waiting for another check of lab 01 to finish' <<<"$err")" -a \
         "$(jget "$TMP/waited.json" .status)" = no_gpu

# ---- watch ------------------------------------------------------------------------
# A check at once, another after a save, each recorded; ^C (here TERM) ends it.
# Each step waits for the event it checks (a check's end is its "watching"
# line, printed once the check is recorded), however long a loaded machine
# takes: the bound is only there to end a test that is failing.
rm -f "$TMP/progress.json"
"$TUTOR" --root "$WB" watch 01 --no-sanitize > "$TMP/watch.log" 2>&1 &
wpid=$!
wait_log() {    # wait_log COUNT REGEX: until the log has COUNT lines matching, or the watch is gone
    local end=$(($(date +%s) + 600))
    while [ "$(grep -cE -- "$2" "$TMP/watch.log")" -lt "$1" ] && kill -0 "$wpid" 2>/dev/null &&
          [ "$(date +%s)" -lt $end ]; do sleep 0.1; done
}
wait_log 1 '^watching labs/01-'
echo "// saved" >> "$WB/labs/$(lab_dir 01)/kernel.cu"
wait_log 2 '^watching labs/01-'
kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
check "watch: a check at once and one after the save" \
    test "$(grep -cE '^watching labs/01-' "$TMP/watch.log")-$(grep -c 'was saved: checking it' "$TMP/watch.log")" = 2-1
check "watch: each check recorded" test "$(jget "$TMP/progress.json" '.labs["01"].attempts')" = 2
cp "$(stub_file 01)" "$WB/labs/$(lab_dir 01)/kernel.cu"

# ---- checks that need no GPU --------------------------------------------
cat > "$TMP/syntax.cu" <<'CU'
#include "lab.h"
extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    int x = ;
}
CU
"$TUTOR" check 01 --file "$TMP/syntax.cu" --json > "$TMP/syntax.json"; rc=$?
check "a syntax error is compile_error, exit 1" \
    test $rc -eq 1 -a "$(jget "$TMP/syntax.json" .status)" = compile_error
check "the diagnostic points at the student's line" \
    test "$(jget "$TMP/syntax.json" '.compile.diagnostics[0].line')" = 4
check "the diagnostic names the student's file" \
    test "$(jget "$TMP/syntax.json" '.compile.diagnostics[0].file')" = "$TMP/syntax.cu"

# A warning nvcc prints before the error (a #warning) must not stand for it.
printf '#include "lab.h"\n#warning "a note to myself"\nextern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)\n{\n    abc = 1;\n}\n' > "$TMP/warnfirst.cu"
"$TUTOR" check 01 --file "$TMP/warnfirst.cu" --json > "$TMP/nul.json"; rc=$?
check "the headline of a compile error is its first error, not a warning before it" \
    test $rc -eq 1 -a -n "$(jget "$TMP/nul.json" .summary | grep -F ':5: identifier "abc" is undefined')"

cat > "$TMP/noentry.cu" <<'CU'
#include <cuda_runtime.h>
void lab_reduce_int(const int *, unsigned, int *, void *, cudaStream_t) {}
CU
"$TUTOR" check 01 --file "$TMP/noentry.cu" --json > "$TMP/noentry.json"; rc=$?
check "an entry point without extern \"C\" is explained" \
    test "$(jget "$TMP/noentry.json" '.compile.diagnostics[0].message')" = \
         'defines no extern "C" lab_reduce_int, the entry point lab 01'"'"'s harness calls (lab.h declares it; the stub defines it at its end)'
: > "$TMP/empty.cu"
"$TUTOR" check 01 --file "$TMP/empty.cu" --json > "$TMP/empty.json"; rc=$?
check "an empty file: the entry point is missing, not a compiler's failure" \
    test $rc -eq 1 -a "$(jget "$TMP/empty.json" .summary)" = \
         "the kernel did not build: $TMP/empty.cu defines no extern \"C\" lab_reduce_int, the entry point lab 01's harness calls (lab.h declares it; the stub defines it at its end)"

"$TUTOR" --unlock-all check 01 --file "$(ls solutions/09-*/kernel.cu)" --json > "$TMP/other.json"; rc=$?
check "another lab's file: it defines lab 09's entry point, this is lab 01" \
    test $rc -eq 1 -a "$(jget "$TMP/other.json" .summary)" = \
         "the kernel breaks a rule of lab.h: defines lab_trapezoid — the entry point of lab 09, not of this one (lab_reduce_int): is this the right lab's file?"

"$TUTOR" check 01 --file tests/bank/host_sum.cu --json > "$TMP/host.json"; rc=$?
check "a host-side sum is rejected, naming cudaMemcpy and the rule" \
    test $rc -eq 1 -a "$(jq -r '.status + " " + ([.symbols.violations[].symbol] | join(","))' "$TMP/host.json" \
         | grep -c 'rejected .*cudaMemcpy')" = 1

out=$("$TUTOR" check 01 --file "$TMP/missing.cu" --json 2>&1); rc=$?
check "a missing --file is a usage error that names it, not a compile error" \
    test $rc -eq 2 -a -n "$(grep -F -- "--file $TMP/missing.cu: No such file" <<<"$out")" -a -z "$(grep compile_error <<<"$out")"

# The trials have their own limit (the catalog's trials_timeout_s, scaled):
# a harness stuck in them is stopped then, not at the whole run's limit.
# A wrapper in place of the judge plays the stuck run, GPU or not; it says
# where it is on the judge's private channel, fd 3.
sol01="$ROOT/solutions/$(lab_dir 01)/kernel.cu"
printf '#!/bin/sh\necho "@stage correctness 3/32 n=31" >&3\nexec sleep 60\n' > "$TMP/stuck-in-trials"
printf '#!/bin/sh\n{ echo "@stage correctness 32/32 n=16777259"; echo "@passed correctness"; echo "@stage timing 1/1 2^28"; } >&3\nexec sleep 60\n' \
    > "$TMP/stuck-in-timing"
# The same lines on stdout and stderr, where kernels print, are not the
# channel: a run that prints "@gpu wait" there gains no grace, and one that
# prints a trials stage there gets no trials limit.
printf '#!/bin/sh\n{ echo "@stage correctness 3/32 n=31"; echo "@gpu wait"; echo "@stage correctness 3/32 n=31" >&2; echo "@gpu wait" >&2; }\nexec sleep 60\n' \
    > "$TMP/prints-protocol"
chmod +x "$TMP/stuck-in-trials" "$TMP/stuck-in-timing" "$TMP/prints-protocol"
# stuck_verdict WRAPPER: the check's status, its run time in whole seconds
# and its first message with the time left out, the harness being WRAPPER.
stuck_verdict() {
    "$TUTOR" check 01 --file "$sol01" --json --no-sanitize --timeout-scale 0.05 --wrap "$1" |
        jq -r '.status + " " + (.run_s | floor | tostring) + " s " + (.messages[0] | sub("after [0-9]+ s"; "after N s"))'
}
check "a run stuck in its trials stops at the trials' limit, and says so" \
    test "$(stuck_verdict "$TMP/stuck-in-trials" | sed 's/^timeout [01] s /timeout /')" = \
         "timeout timed out after N s: the correctness trials ran past their 0.5 s limit during correctness 3/32 n=31: the whole process group was killed"
check "past its trials a run has the whole check's bound, and says so" \
    test "$(stuck_verdict "$TMP/stuck-in-timing" | sed 's/^timeout [3-9] s /timeout /')" = \
         "timeout timed out after N s: the check ran past its 3 s bound (time waiting for the GPU not counted) during timing 1/1 2^28: the whole process group was killed"
check "protocol lines printed on stdout or stderr change no limit: stopped at the check's 3 s, no grace" \
    test "$(stuck_verdict "$TMP/prints-protocol" | sed 's/^timeout 3 s /timeout /')" = \
         "timeout timed out after N s: the check ran past its 3 s bound (time waiting for the GPU not counted): the whole process group was killed"

# A lab's check_timeout_s bounds the whole check, below the judge's own
# limit when it is shorter: lab 01 at 10 s, scaled by 0.05, stops a run
# stuck in its timing after 0.5 s (the judge's own limit is 3 s).
WBT=$TMP/wb-bound
make_workbook "$WBT"
jq '.labs |= map(if .id == "01" then . + {"check_timeout_s": 10} else . end)' "$ROOT/data/labs.json" \
    > "$WBT/data/labs.json"
got=$("$TUTOR" --root "$WBT" check 01 --file "$sol01" --json --no-sanitize --timeout-scale 0.05 \
          --wrap "$TMP/stuck-in-timing" | jq -r '.status + " " + (.run_s | floor | tostring) + " " + .messages[0]')
check "the lab's check_timeout_s ends the check, and the verdict names that bound" \
    test "$(sed 's/after [0-9]* s/after N s/' <<<"$got")" = \
         "timeout 0 timed out after N s: the check ran past its 0.5 s bound (time waiting for the GPU not counted) during timing 1/1 2^28: the whole process group was killed"

# --target-min: the threshold a grader calibrated for its GPU replaces the
# catalog's; the report keeps both.  A stand-in harness reports a passing
# run at 0.10x CUB (lab 01's catalog target is 0.12x).
cat > "$TMP/fake-harness" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --json ] && out=$2; shift; done
printf '%s' '{"schema": 1, "status": "pass", "tests": [{"name": "n=1", "n": 1, "pass": true}],
  "perf": [{"label": "2^28", "n": 268435456, "bytes": 1073741824, "gbps": 300, "pct_peak": 10,
            "time": {"samples": 10, "median_ms": 3.5, "min_ms": 3.5, "max_ms": 3.6},
            "ratio": 0.10, "implausible": false}], "messages": []}' > "$out"
EOF
chmod +x "$TMP/fake-harness"
"$TUTOR" check 01 --file "$sol01" --json --no-sanitize --quick --wrap "$TMP/fake-harness" > "$TMP/tmin1.json"
"$TUTOR" check 01 --file "$sol01" --json --no-sanitize --quick --wrap "$TMP/fake-harness" --target-min 0.09 \
    > "$TMP/tmin2.json"
check "the catalog's target judges a run by default" \
    test "$(jq -c '.target | [.min, .met, .catalog_min]' "$TMP/tmin1.json")" = "[0.12,false,null]"
check "--target-min replaces it and the report keeps the catalog's" \
    test "$(jq -c '.target | [.min, .met, .catalog_min]' "$TMP/tmin2.json")" = "[0.09,true,0.12]"
"$TUTOR" check 01 --target-min 0 > /dev/null 2>&1; rc=$?
check "--target-min 0 is a usage error" test $rc -eq 2

if have_gpu; then
    skip "check without a GPU says so and exits 3" "a CUDA device is present"
else
    out=$("$TUTOR" --root "$WB" check 01); rc=$?
    check "check without a GPU says so, and that the launcher's plans were checked, and exits 3" \
        test $rc -eq 3 -a -n "$(grep -F "compiled; not run: no CUDA device: the launcher's 64 plans for 32 sizes" <<<"$out")"
    j=$("$TUTOR" --root "$WB" check 01 --json)
    check "the words count the plans --json counts (each size asked for twice)" \
        test -n "$(grep -F "the launcher's $(jq -r .plan.plans <<<"$j") plans for $(jq -r '.plan.seen | length' <<<"$j") sizes" <<<"$(jq -r .summary <<<"$j")")"
    check "check --json without a GPU: status no_gpu, techniques judged" \
        test "$("$TUTOR" --root "$WB" check 01 --json | jq -r '.status + " " + (.techniques[0].found|tostring)')" = "no_gpu true"
fi

if have_gpu; then
    skip "ladder without a GPU writes nothing and exits 3" "a CUDA device is present"
else
    "$TUTOR" ladder --out "$TMP/ladder.md" > /dev/null 2>&1; rc=$?
    check "ladder without a GPU writes nothing and exits 3" test $rc -eq 3 -a ! -e "$TMP/ladder.md"
fi

# ---- --json: every outcome is a JSON object on stdout (issue 25) -----------
# A command that fails before it has an answer (a usage error, no such lab,
# a locked lab, no GPU) still prints one object: the command, the error as
# stderr words it, and the exit code.  A script reads stdout alone.
json_error() {
    local name=$1; shift
    local out rc err
    out=$("$TUTOR" "$@" 2>"$TMP/json.err" < /dev/null); rc=$?
    err=$(head -n1 "$TMP/json.err" | sed 's/^cudatutor[^:]*: //')
    if [ "$rc" -ne 0 ] && [ "$(jq -r '.exit' <<<"$out" 2>/dev/null)" = "$rc" ] &&
       [ "$(jq -r '.error' <<<"$out" 2>/dev/null)" = "$err" ] && [ "$(jq -s length <<<"$out" 2>/dev/null)" = 1 ]; then
        ok "$name"
    else
        not_ok "$name" "exit $rc, stdout:" "$out" "stderr:" "$(cat "$TMP/json.err")"
    fi
}
json_error "check 99 --json: the error as JSON (exit 2)" check 99 --json
json_error "--json before the command: a usage error as JSON" --json check
json_error "list --yes --json: an option the command does not take, as JSON" list --yes --json
json_error "--seed x --json: a bad value, as JSON" progress --json --seed x
json_error "reset 01 --json without --yes: refused, as JSON" --root "$WB" reset 01 --json
json_error "solution 01 --json before a pass: as JSON (exit 1)" solution 01 --json
json_error "--root /nonexistent list --json: as JSON" --root /nonexistent list --json
rm -f "$CUDATUTOR_PROGRESS"
json_error "check 02 --json, locked: as JSON (exit 1)" check 02 --json
check "check 99 --json names the command" test "$("$TUTOR" check 99 --json 2>/dev/null | jq -r .command)" = check
if have_gpu; then
    skip "calibrate --json without a GPU: as JSON (exit 3)" "a CUDA device is present"
else
    json_error "calibrate --json without a GPU: as JSON (exit 3)" calibrate --json
fi
check "a command that succeeds prints its own answer alone (list --json is the array)" \
    test "$("$TUTOR" list --json | jq -r 'type')" = array
check "without --json, an error prints nothing on stdout" test -z "$("$TUTOR" check 99 2>/dev/null)"

# ---- runner.out (issue 34) ---------------------------------------------------
# The judge keeps what the runner printed in the file --runner-out names
# (runner.out in its working folder without one): every check names one in
# its work folder, so no check leaves a runner.out where it was started.
printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "%s"\nexit 1\n' "$TMP/judge-args" > "$TMP/log-args"
chmod +x "$TMP/log-args"
mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$TUTOR" --root "$ROOT" check 01 --file "$sol01" --json --no-sanitize --work-dir "$TMP/w-args" \
     --wrap "$TMP/log-args" > /dev/null 2>&1)
given=$(grep -A1 -x -- '--runner-out' "$TMP/judge-args" 2>/dev/null | tail -n1)
check "a check names the judge's --runner-out inside its work folder ($given)" \
    test -n "$given" -a "${given#$TMP/w-args/}" != "$given"
check "and leaves no runner.out where it was started" test ! -e "$TMP/cwd/runner.out"
check "the workbook root holds no runner.out, tracked or not" \
    test ! -e "$ROOT/runner.out" -a -z "$(git -C "$ROOT" ls-files runner.out 2>/dev/null)"

# ---- a fail's headline names its cause (issue 34) ----------------------------
# A stand-in judge reports a wrong sum at n = 1025; the verdict's last line
# and the summary lead with the cause, not the status's general meaning.
cat > "$TMP/wrong-harness" <<'EOF2'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --json ] && out=$2; shift; done
printf '%s' '{"schema": 1, "status": "fail", "first_failing_n": 1025,
  "tests": [{"name": "n=1", "n": 1, "pass": true},
            {"name": "n=1025", "n": 1025, "expected": "7", "got": "6", "pass": false,
             "message": "wrong sum: off by -1"}], "messages": []}' > "$out"
EOF2
chmod +x "$TMP/wrong-harness"
out=$("$TUTOR" check 01 --file "$sol01" --no-sanitize --quick --wrap "$TMP/wrong-harness" 2>/dev/null)
check "a wrong result's verdict line names it and the size" \
    test "$(tail -n1 <<<"$out")" = "fail  wrong result at n = 1025: the smallest failing size; expected 7, got 6 — wrong sum: off by -1"
check "and its summary in --json opens so" \
    test "$("$TUTOR" check 01 --file "$sol01" --no-sanitize --quick --wrap "$TMP/wrong-harness" --json 2>/dev/null |
           jq -r '.summary | split(":")[0]')" = "wrong result at n = 1025"

# ---- without a GPU: the heading says what judged the kernel (issue 34) ------
# The CPU judge stands in for a GPU: the heading says so in words, with no
# "measured peak 0 GB/s", and its fields fit 80 columns broken at spaces
# only (their words read back whole).
if have_gpu; then
    skip "without a GPU: the heading says the CPU judged it" "a CUDA device is present"
elif [ ! -x "$ROOT/build/harness/judge_cpu_reduce_int" ]; then
    skip "without a GPU: the heading says the CPU judged it" "no CPU judge (built without the emulator)"
else
    out=$(env -u CUDATUTOR_NO_EMULATOR COLUMNS=80 "$TUTOR" check 01 --file "$(stub_file 01)" --work-dir "$TMP/w-cpu" 2>/dev/null)
    head=$(sed -n '2,/^  correctness/p' <<<"$out" | sed '$d')
    check "without a GPU: the heading says the CPU judged it and nothing was timed" \
        test -n "$(tr -s ' \n' '  ' <<<"$head" | grep -F "device no GPU here: judged on this computer's CPU; not timed (the PTX emulator stands in for a GPU of compute capability 9.0")"
    check "and shows no measured peak of 0 GB/s" test -z "$(grep -E '0 GB/s|measured peak' <<<"$head")"
    check "its lines fit 80 columns" test -z "$(awk 'length > 80' <<<"$head")"
    check "and break at spaces only (the device's words read back whole)" \
        test "$(sed -n '/^  device/,$p' <<<"$head" | sed 's/^  device *//; s/^ *//' | tr '\n' ' ' | sed 's/ $//')" = \
             "no GPU here: judged on this computer's CPU; not timed (the PTX emulator stands in for a GPU of compute capability 9.0, with its limits)"
fi

# ---- 80 columns (issue 34) ---------------------------------------------------
# list and progress fit 80 columns (the width of a pipe, or $COLUMNS), with a
# student well on (a pass on target, a long last verdict); at 40 columns a
# line is cut with a mark, never wrapped: each lab is still one line.
# widest: the most characters of any line on stdin.
widest() { local l n=0; while IFS= read -r l; do [ ${#l} -gt $n ] && n=${#l}; done; echo $n; }
WP=$TMP/wide-progress.json
jq -n '{schema: 1, labs: {"01": {state: "on_target", attempts: 12, hints_used: 3, first_pass: "2026-01-01T09:30:00Z",
        best: {case: "2^28", n: 268435456, ms: 2.259, gbps: 1475.3, pct_peak: 15.6, ratio: 0.155, rate: 118.8,
               rate_unit: "Gint/s", peak_gbps: 3056, ref_gbps: 3066, ref_name: "CUB"},
        last: {status: "internal_error", time: "2026-01-02T00:00:00Z"}, gpu: "NVIDIA H100"}}}' > "$WP"
for cmd in list progress; do
    n=$(CUDATUTOR_PROGRESS=$WP "$TUTOR" $cmd | widest)
    check "$cmd fits 80 columns ($n)" test "$n" -le 80
    n=$(CUDATUTOR_PROGRESS=$WP COLUMNS=40 "$TUTOR" $cmd | widest)
    check "$cmd at 40 columns: no line wider ($n)" test "$n" -le 40
done
out=$(CUDATUTOR_PROGRESS=$WP COLUMNS=40 "$TUTOR" list)
check "list at 40 columns: a line a lab, the cut ones ending in a mark" \
    test "$(grep -cE '^[0-9]{2}  ' <<<"$out")" = "$(lab_ids | wc -l)" -a \
         -n "$(grep -E '^10  .*…$' <<<"$out")" -a -z "$(sed '/^$/,$d' <<<"$out" | grep -vE '^([0-9]{2}  |Bonus)')"
# Before any pass every title is whole at 80 columns; later, with the
# widest states and figures, a long title is cut with a mark.
out=$(CUDATUTOR_PROGRESS=$TMP/none.json "$TUTOR" list)
check "list at 80 columns, nothing passed yet: every title whole, last on its line" \
    test -z "$(jq -r '.labs[].title' data/labs.json | while IFS= read -r t; do
                   [[ "$out"$'\n' == *"  $t"$'\n'* ]] || echo "$t"; done)"
out=$(CUDATUTOR_PROGRESS=$WP "$TUTOR" list)
check "list: the best and the target in their columns" test -n "$(grep -E '^01  on target  1475 GB/s  0\.12x at 2\^28 ' <<<"$out")"
out=$(CUDATUTOR_PROGRESS=$WP "$TUTOR" progress)
check "progress at 80 columns: the first pass gives way to its date" \
    test -n "$(grep -E '^01 +on target +12 +3 +1475 GB/s, 0\.15x .*internal_error +2026-01-01…$' <<<"$out")"
check "progress with room: the time of the first pass" \
    test -n "$(CUDATUTOR_PROGRESS=$WP COLUMNS=120 "$TUTOR" progress | grep -E '^01 .* 2026-01-01 09:30 UTC$')"

# ---- nvcc's warnings beside the verdict (issue 34) ---------------------------
# An unsigned compared with zero: nvcc warns (#186-D) on that very line.
# The warning is shown once, with its line, just above the verdict, however
# the check ends; the JSON keeps it as a diagnostic of its own.
sed 's/if (tid == 0)/if (tid >= 0 \&\& tid == 0)/' "$ROOT/solutions/$(lab_dir 01)/kernel.cu" > "$TMP/warns.cu"
wline=$(grep -n 'tid >= 0 && tid == 0' "$TMP/warns.cu" | cut -d: -f1)
out=$("$TUTOR" check 01 --file "$TMP/warns.cu" --no-sanitize 2>&1)
check "a warning: its line and number just above the verdict, said once" \
    test "$(tail -n 3 <<<"$out" | head -n 2 | tr '\n' ' ' | tr -s ' ')" = \
         " warning line $wline: #186-D pointless comparison of unsigned integer with zero " -a \
         "$(grep -c '#186-D' <<<"$out")" = 1
json=$("$TUTOR" check 01 --file "$TMP/warns.cu" --no-sanitize --json 2>/dev/null)
check "a warning in the JSON: a diagnostic with its line" \
    test "$(jq -r '[.compile.diagnostics[] | "\(.severity) \(.line)"] | join(",")' <<<"$json")" = "warning $wline"

# ---- long listings through the pager (issue 34) ------------------------------
# On a terminal (script gives one) list, progress, show and solution go
# through $PAGER; piped, or with --json, never.  A stand-in pager logs what
# it was given; one that quits after a line (a reader's q) leaves the
# command's exit status 0.
printf '#!/bin/sh\ncat > "%s/paged"\n' "$TMP" > "$TMP/pager"
printf '#!/bin/sh\nhead -n 1 > /dev/null\n' > "$TMP/quits"
chmod +x "$TMP/pager" "$TMP/quits"
on_tty() { PAGER=$1 script -qfec "$2" /dev/null > "$TMP/tty.out" 2>&1; }
for cmd in "list" "progress" "show 01" "solution 01 --unlock-all"; do
    rm -f "$TMP/paged"
    on_tty "$TMP/pager" "$TUTOR $cmd"
    want=$("$TUTOR" $cmd | head -n 1)
    check "$cmd on a terminal: through the pager, all of it" \
        test -s "$TMP/paged" -a "$(head -n 1 "$TMP/paged" 2>/dev/null)" = "$want" -a ! -s "$TMP/tty.out"
done
rm -f "$TMP/paged"
PAGER="$TMP/pager" "$TUTOR" list > "$TMP/piped"
check "list piped: no pager" test ! -e "$TMP/paged" -a -s "$TMP/piped"
on_tty "$TMP/pager" "$TUTOR list --json"
check "list --json on a terminal: no pager" test ! -e "$TMP/paged" -a "$(head -c 1 "$TMP/tty.out")" = "["
on_tty "" "$TUTOR list"
check "PAGER set empty: no pager" test ! -e "$TMP/paged" -a -n "$(grep '^01 ' "$TMP/tty.out")"
on_tty "$TMP/quits" "$TUTOR show 01; echo rc=\$?"
check "a pager quit after one line: exit 0, nothing said" test "$(tr -d '\r' < "$TMP/tty.out")" = "rc=0"

# ---- judges still being built by make run's background make (issue 34) -------
# make run opens the tutor before the judges are built; a check whose lab's
# judges, or the runner's objects every check links, are missing waits
# while the make named in .building runs, and is judged once they are
# there.  Here a stand-in "make" puts the judges in place after 1 s and
# rt.o after 6 s (a check that went on at the judges stopped at the link:
# internal_error, rt.o is missing).  The tutor opened meanwhile says that
# the judges are being built.
HX="$TMP/hx-building"
mkdir -p "$HX"
for f in "$ROOT"/build/harness/*; do [ -e "$f" ] && ln -s "$f" "$HX/"; done
rm -f "$HX/judge_reduce_int" "$HX/judge_cpu_reduce_int" "$HX/rt.o"
( sleep 1; ln -s "$ROOT/build/harness/judge_reduce_int" "$ROOT/build/harness/judge_cpu_reduce_int" "$HX/";
  sleep 5; ln -s "$ROOT/build/harness/rt.o" "$HX/"; rm -f "$HX/.building" ) &
echo $! > "$HX/.building"
frame=$(CUDATUTOR_HARNESS_DIR="$HX" "$TUTOR" --dump --size 80x24 2>/dev/null | tail -n 1)
t0=$(date +%s.%N)
out=$(CUDATUTOR_HARNESS_DIR="$HX" "$TUTOR" check 01 --file "$ROOT/solutions/$(lab_dir 01)/kernel.cu" --no-sanitize --json 2>/dev/null)
t1=$(date +%s.%N)
wait
check "the tutor opened while make builds the judges says so on its status line" \
    test -n "$(grep -F 'make builds the judges in the background' <<<"$frame")"
check "a check waits for its judges and the runner's objects while make run's background make builds them, then is judged" \
    test "$(jq -r .status <<<"$out")" = no_gpu -a "$(echo "$t1 - $t0 >= 5" | bc)" = 1
frame=$(CUDATUTOR_HARNESS_DIR="$HX" "$TUTOR" --dump --size 80x24 2>/dev/null | tail -n 1)
check "once that make has ended the status line says nothing of it" \
    test -z "$(grep -F 'make builds the judges' <<<"$frame")"
rm -f "$HX/judge_reduce_int" "$HX/judge_cpu_reduce_int"
echo 999999999 > "$HX/.building"
out=$(CUDATUTOR_HARNESS_DIR="$HX" timeout 60 "$TUTOR" check 01 --file "$ROOT/solutions/$(lab_dir 01)/kernel.cu" --no-sanitize --json 2>/dev/null); rc=$?
check "a .building whose make is gone is not waited for" test $rc != 124 -a -n "$out"
