#!/usr/bin/env bash
# tests/progress.sh — progress from the command line: where progress.json
# lives (flag, environment, workbook), what list, hint, check, progress and
# solution read and record, the lock rule and --unlock-all, reset with its
# confirmation and backup, and a corrupt or newer file reported, not lost.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

P="$TMP/p.json"
export CUDATUTOR_PROGRESS="$P"
# Checks run in a fresh workbook, with a build folder of their own.
WB=$TMP/wb
make_workbook "$WB"
export CUDATUTOR_HARNESS_DIR="$ROOT/build/harness"
state() { "$TUTOR" "$@" list --json | jq -r 'map(.id + "=" + .state) | join(" ")'; }

# ---- an empty start ----------------------------------------------------
ids=$(lab_ids | tr '\n' ' ')
nlabs=$(lab_ids | wc -l)
# progress counts the core labs; the bonus ones apart.
NCORE=$(jq '[.labs[] | select(.bonus != true)] | length' "$ROOT/data/labs.json")
check "no progress yet: 01 open, the rest locked" \
    test "$(state)" = "$(lab_ids | sed '1s/$/=open/; 2,$s/$/=locked/' | tr '\n' ' ' | sed 's/ $//')"
check "--unlock-all opens every lab" test "$(state --unlock-all | grep -o locked | wc -l)" = 0
check "list starts each lab's line with its id, in the catalog's order" \
    test "$("$TUTOR" list | awk '/^[0-9][0-9] /{print $1}' | tr '\n' ' ')" = "$ids"
check "list's other lines are the Bonus heading only, up to the legend of the cases" \
    test -z "$("$TUTOR" list | sed '/^$/,$d' | grep -vE '^([0-9][0-9] |Bonus: open once lab 08 has passed$)')"
check "list shows the state" test -n "$("$TUTOR" list | grep -E '^02 .* locked ')"
check "reading progress creates no file" test ! -e "$P"
out=$("$TUTOR" progress)
check "progress: 0 of the $NCORE core labs passed" test -n "$(grep -F "$P: 0 of $NCORE labs passed" <<<"$out")"
check "progress --json: every lab with its state" \
    test "$("$TUTOR" progress --json | jq -r '[.labs[] | .state] | length')" = "$nlabs"

# ---- hints -------------------------------------------------------------
h() { "$TUTOR" hint "$@" --json | jq -r .hint; }
check "hint 01: the first" test "$(h 01)" = 1
check "hint 01 again: the second" test "$(h 01)" = 2
check "hints used are recorded" test "$(jget "$P" '.labs["01"].hints_used')" = 2
check "hint 01 3: the third, recorded" test "$(h 01 3)-$(jget "$P" '.labs["01"].hints_used')" = 3-3
check "after the last, hint 01 stays at the last" test "$(h 01)" = 3
check "hint 01 1 shows an earlier one without lowering the count" \
    test "$(h 01 1)-$(jget "$P" '.labs["01"].hints_used')" = 1-3
check "the file is schema 1" test "$(jget "$P" .schema)" = 1

# ---- checks ------------------------------------------------------------
if have_gpu; then
    skip "check records an attempt" "a CUDA device is present (tests/gpu.sh covers passes)"
else
    "$TUTOR" --root "$WB" check 01 --json > /dev/null 2>&1
    check "check records an attempt and the last verdict" \
        test "$(jq -r '.labs["01"] | "\(.attempts) \(.last.status) \(.state)"' "$P")" = "1 no_gpu open"
    check "the last verdict has a time" \
        test -n "$(jget "$P" '.labs["01"].last.time' | grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$')"
    "$TUTOR" --root "$WB" check 01 --file solutions/01-interleaved-addressing/kernel.cu --json > /dev/null 2>&1
    "$TUTOR" --root "$WB" check 01 --build-only --json > /dev/null 2>&1
    check "checks of other files, or builds only, are not recorded" \
        test "$(jget "$P" '.labs["01"].attempts')" = 1
fi

# ---- a pass opens the next lab; the solution opens -----------------------
jq '.labs["01"] += {state: "on_target", first_pass: "2026-01-01T00:00:00Z",
     best: {case: "2^28", n: 268435456, ms: 2.259, gbps: 475.3, pct_peak: 15.6, ratio: 0.155,
            rate: 118.8, rate_unit: "Gint/s", peak_gbps: 3056, ref_gbps: 3066, ref_name: "CUB"}}' \
    "$P" > "$TMP/q.json" && mv "$TMP/q.json" "$P"
check "a passed lab opens the next" test "$(state | cut -d' ' -f1-3)" = "01=on_target 02=open 03=locked"
check "list shows the best GB/s" test -n "$("$TUTOR" list | grep -E '^01 .*on target +475 GB/s')"
check "list --json has the best GB/s" test "$("$TUTOR" list --json | jq -r '.[0].best_gbps')" = 475.3
out=$("$TUTOR" solution 01); rc=$?
check "solution of a passed lab prints it" \
    test $rc -eq 0 -a "$out" = "$(cat solutions/01-interleaved-addressing/kernel.cu)"
out=$("$TUTOR" solution 02 2>&1); rc=$?
check "solution of an unpassed lab is refused (exit 1)" test $rc -eq 1 -a -n "$(grep 'has not passed yet' <<<"$out")"
check "--unlock-all shows any solution" test "$("$TUTOR" --unlock-all solution 02 --json | jq -r .id)" = 02
out=$("$TUTOR" progress)
check "progress: 1 of $NCORE passed, with the best" test -n "$(grep -F "1 of $NCORE labs passed" <<<"$out")" -a \
    -n "$(grep -E '^01 +on target .*475 GB/s' <<<"$out")"

# ---- the bonus labs open after lab 08 -------------------------------------
# A catalog with two bonus labs of its own (ids 98 and 99), so that the rule
# is tested whatever bonus labs the real catalog has.
BW=$TMP/bonus
mkdir -p "$BW/data"
jq '.labs |= map(select(.bonus != true))
    | .labs += [(.labs[9] | .id = "98" | .slug = "extra-one" | .bonus = true | .opens_after = "08"),
                (.labs[9] | .id = "99" | .slug = "extra-two" | .bonus = true | .opens_after = "08")]' \
    data/labs.json > "$BW/data/labs.json"
bstate() { "$TUTOR" --root "$BW" "$@" list --json | jq -r 'map(select(.id == "08" or .id == "09" or .id == "98" or .id == "99") | .id + "=" + .state) | join(" ")'; }
passed_upto() {     # passed_upto NN: labs 01..NN passed, nothing else
    jq -n --arg last "$1" '{schema: 1, labs: ([range(1; ($last | tonumber) + 1)] |
        map({key: (if . < 10 then "0\(.)" else "\(.)" end), value: {state: "passed", attempts: 1,
             first_pass: "2026-01-01T00:00:00Z", best: null, last: null, hints_used: 0, gpu: null}}) | from_entries)}' > "$P"
}
cp "$P" "$TMP/before-bonus.json"
passed_upto 07
check "bonus labs stay locked until lab 08 passes" test "$(bstate)" = "08=open 09=locked 98=locked 99=locked"
out=$("$TUTOR" --root "$BW" hint 98 2>&1); rc=$?
check "a locked bonus lab names lab 08 as the one to pass" \
    test $rc -eq 1 -a -n "$(grep -F 'lab 98 is locked: pass lab 08 first' <<<"$out")"
passed_upto 08
check "a pass of lab 08 opens lab 09 and every bonus lab" test "$(bstate)" = "08=passed 09=open 98=open 99=open"
check "list --json marks the bonus labs and what opens them" \
    test "$("$TUTOR" --root "$BW" list --json | jq -c '[.[] | select(.id == "01" or .id == "09" or .id == "98") | [.id, .bonus, .opens_after]]')" = \
         '[["01",false,null],["09",false,"08"],["98",true,"08"]]'
out=$("$TUTOR" --root "$BW" list)
check "list shows the bonus labs under their heading, after the core labs" \
    test "$(grep -A2 -F 'Bonus: open once lab 08 has passed' <<<"$out" | awk '{print $1}' | tr '\n' ' ')" = "Bonus: 98 99 " -a \
         "$(grep -B1 -F 'Bonus:' <<<"$out" | head -n1 | awk '{print $1}')" = 10
out=$("$TUTOR" --root "$BW" progress)
check "progress counts the core labs, the bonus ones apart" \
    test -n "$(grep -F "$P: 8 of 10 labs passed; bonus: 0 of 2" <<<"$out")"
mkdir -p "$TMP/badwb/data"
jq '.labs[10].opens_after = "99"' "$BW/data/labs.json" > "$TMP/badwb/data/labs.json"
out=$("$TUTOR" --root "$TMP/badwb" list 2>&1); rc=$?
check "opens_after must name an earlier lab" \
    test $rc -ne 0 -a -n "$(grep -F 'labs[10].opens_after: "99" is not a lab before this one' <<<"$out")"
jq '.labs[8].bonus = true' "$BW/data/labs.json" > "$TMP/badwb/data/labs.json"
out=$("$TUTOR" --root "$TMP/badwb" list 2>&1); rc=$?
check "the bonus labs come last" \
    test $rc -ne 0 -a -n "$(grep -F 'labs[9]: a core lab (no "bonus": true) may not follow a bonus lab' <<<"$out")"
mv "$TMP/before-bonus.json" "$P"

# ---- where the file is -------------------------------------------------
"$TUTOR" --progress "$TMP/flag.json" --unlock-all hint 05 > /dev/null
check "--progress PATH wins over the environment" test -f "$TMP/flag.json" -a "$(jget "$P" '.labs["05"]')" = null
(unset CUDATUTOR_PROGRESS; "$TUTOR" --root "$WB" --unlock-all hint 03 > /dev/null)
check "by default progress.json is in the workbook" test -f "$WB/progress.json"
rm -f "$WB/progress.json"

# ---- corrupt and newer files -------------------------------------------
printf '{"schema": 1, "labs": {"01": {"att' > "$P"
out=$("$TUTOR" progress 2>&1); rc=$?
check "a corrupt file is reported" test $rc -eq 0 -a -n "$(grep 'was not valid progress' <<<"$out")"
check "a corrupt file is kept aside, byte for byte" \
    test "$(cat "$P".corrupt-* 2>/dev/null)" = '{"schema": 1, "labs": {"01": {"att'
check "and not replaced behind the student's back" test ! -e "$P"

echo '{"schema": 9, "labs": {}, "new": "things"}' > "$P"
before=$(cat "$P")
out=$("$TUTOR" progress 2>&1); rc=$?
check "a newer schema is refused (exit 4) with a clear message" \
    test $rc -eq 4 -a -n "$(grep 'newer cudatutor (schema 9' <<<"$out")"
out=$("$TUTOR" hint 01 2>&1); rc=$?
check "hint still answers, saying it was not recorded" \
    test $rc -eq 0 -a -n "$(grep 'hint 1 of 3' <<<"$out")" -a -n "$(grep 'not recorded' <<<"$out")"
check "the newer file is left untouched" test "$(cat "$P")" = "$before"
rm -f "$P"

# ---- reset ---------------------------------------------------------------
# The stub comes from data/stubs/, not from git: a student who committed
# their work still gets the stub back, and so does one without git.
(cd "$WB" && git init -q && git add -A && git -c user.name=t -c user.email=t@example.org commit -qm stubs) \
    > /dev/null 2>&1
k=$WB/labs/02-strided-index/kernel.cu
stub=$WB/data/stubs/02-strided-index.cu
# done_right RC A B: exit code RC was 0 and files A and B are the same.
done_right() { [ "$1" -eq 0 ] && cmp -s "$2" "$3"; }
echo "// my work" >> "$k"
out=$("$TUTOR" --root "$WB" reset 02 < /dev/null 2>&1); rc=$?
check "reset without a terminal or --yes is refused" test $rc -eq 2 -a -n "$(grep -- '--yes' <<<"$out")"
check "refused: the file is untouched" grep -q "// my work" "$k"
out=$("$TUTOR" --root "$WB" reset 02 --yes); rc=$?
check "reset --yes exits 0" test $rc -eq 0
check "reset --yes puts the pristine stub back" cmp -s "$k" "$stub"
check "reset keeps the student's file as kernel.cu.bak-TIME" \
    grep -q "// my work" "$WB"/labs/02-strided-index/kernel.cu.bak-*
check "reset says where the backup is" test -n "$(grep 'kernel.cu.bak-' <<<"$out")"
check "reset's backups are ignored by git (not in git status)" \
    git -C "$ROOT" check-ignore -q "$(basename "$(ls -d "$WB"/labs/02-strided-index/kernel.cu.bak-* | head -n1)" | sed 's|^|labs/02-strided-index/|')"
out=$("$TUTOR" --root "$WB" reset 02 --yes --json)
check "reset of a pristine stub needs no backup" test "$(jq -r .backup <<<"$out")" = null
cp solutions/02-strided-index/kernel.cu "$k"
(cd "$WB" && git -c user.name=t -c user.email=t@example.org commit -qam "my lab 02") > /dev/null 2>&1
check "the student's work is committed (git's HEAD is no longer the stub)" \
    test -n "$(cd "$WB" && git log -1 --format=%s | grep 'my lab 02')" -a \
         -z "$(cd "$WB" && git status --porcelain -- labs/02-strided-index/kernel.cu)"
"$TUTOR" --root "$WB" reset 02 --yes > /dev/null 2>&1; rc=$?
check "reset after a commit gives the pristine stub, not the commit" done_right $rc "$k" "$stub"
rm -rf "$WB/.git"
mkdir -p "$TMP/nogit"
ln -sf "$(command -v jq)" "$TMP/nogit/jq"
echo "// more work" >> "$k"
out=$(PATH="$TMP/nogit" "$TUTOR" --root "$WB" reset 02 --yes 2>&1); rc=$?
check "reset needs neither git nor a checkout" done_right $rc "$k" "$stub"
rm -rf "$WB/labs/03-sequential-addressing"
out=$("$TUTOR" --root "$WB" --unlock-all reset 03 --yes 2>&1); rc=$?
check "reset of a deleted lab folder brings its kernel.cu back" \
    done_right $rc "$WB/labs/03-sequential-addressing/kernel.cu" "$WB/data/stubs/03-sequential-addressing.cu"
# ---- reset of a missing file (issue 25) ------------------------------------
# There was no file to compare with the stub: the words say it was missing.
check "reset of a missing kernel.cu says it was missing and is the stub now" \
    test -n "$(grep -F 'labs/03-sequential-addressing/kernel.cu was missing; it is the stub now' <<<"$out")" \
         -a -z "$(grep -F 'already was' <<<"$out")"
mv "$WB/data/stubs/02-strided-index.cu" "$TMP/stub02"
out=$("$TUTOR" --root "$WB" reset 02 --yes 2>&1); rc=$?
check "a missing pristine stub: exit 4, and how to restore it" \
    test $rc -eq 4 -a -n "$(grep -F 'git checkout -- data/stubs/02-strided-index.cu' <<<"$out")"
mv "$TMP/stub02" "$WB/data/stubs/02-strided-index.cu"

# ---- help ----------------------------------------------------------------
for c in list show check watch hint progress reset solution ladder view-result; do
    out=$("$TUTOR" "$c" --help); rc=$?
    check "$c --help" test $rc -eq 0 -a -n "$(grep "^usage: cudatutor $c" <<<"$out")"
done
out=$("$TUTOR" help); rc=$?
check "help is the help, as --help is" test $rc -eq 0 -a "$out" = "$("$TUTOR" --help)"
out=$("$TUTOR" help reset); rc=$?
check "help COMMAND is that command's help" test $rc -eq 0 -a "$out" = "$("$TUTOR" reset --help)"
"$TUTOR" help nosuch > /dev/null 2>&1; rc=$?
check "help of an unknown command: usage error" test $rc -eq 2
check "--help names the tutor's own options" test -n "$("$TUTOR" --help | grep -E '^  view-result ')" -a -n "$("$TUTOR" --help | grep -F -- '--keys SCRIPT')"

# ---- one problem with progress.json, one message (issue 25) ----------------
# A check reads progress for the lock rule, before it, and writes it after:
# a newer file is still one message.  Checks run in the fresh workbook.
export CUDATUTOR_HARNESS_DIR="$ROOT/build/harness"
echo '{"schema": 9, "labs": {}}' > "$P"
for cmd in "check 01" "hint 01"; do
    # shellcheck disable=SC2086
    n=$("$TUTOR" --root "$WB" $cmd 2>&1 >/dev/null | grep -c 'newer cudatutor (schema 9')
    check "$cmd: a newer progress.json is said once ($n)" test "$n" -eq 1
done
rm -f "$P"

# ---- a read-only progress.json is respected (issue 25) ----------------------
# A student who made progress.json read-only asked for it to be left alone:
# the tests run as root, whom access(2) lets write anything, so this shows
# that the mode bits decide.
"$TUTOR" hint 01 > /dev/null 2>&1
chmod 444 "$P"
before=$(cat "$P")
out=$("$TUTOR" hint 01 2>"$TMP/ro.err"); rc=$?
check "read-only progress.json: hint still answers" test $rc -eq 0 -a -n "$(grep -F 'hint 2 of 3' <<<"$out")"
check "read-only progress.json: said once, with the mode" \
    test "$(grep -c 'is read-only (mode 0444)' "$TMP/ro.err")" -eq 1
check "read-only progress.json: left as it was, mode 0444" \
    test "$(cat "$P")" = "$before" -a "$(stat -c %a "$P")" = 444
out=$("$TUTOR" --root "$WB" check 01 2>"$TMP/ro.err"); rc=$?
check "read-only progress.json: check still prints its verdict" \
    test -n "$(grep -E '^(pass|fail|no_gpu|runtime_error|timeout|rejected|compile_error) ' <<<"$out")"
check "read-only progress.json: check says so once" test "$(grep -c 'is read-only' "$TMP/ro.err")" -eq 1
check "read-only progress.json: the check left it as it was" \
    test "$(cat "$P")" = "$before" -a "$(stat -c %a "$P")" = 444
# A writable file keeps its mode when it is rewritten.
chmod 600 "$P"
"$TUTOR" hint 01 > /dev/null 2>&1
check "a rewritten progress.json keeps its mode (0600)" \
    test "$(stat -c %a "$P")" = 600 -a "$(jget "$P" '.labs["01"].hints_used')" = 2
rm -f "$P"

# ---- list explains the cases its targets name (issue 25) -------------------
# "at ripple" meant nothing without it.  Each case a target names that is
# not a size (2^k for n = 2^k) has a line under the table, with its n, its
# input and the labs it judges, all from the catalog.
out=$("$TUTOR" list)
named=$(jq -r '.families as $f | .labs[] | . as $l | ([.target.case] + [(.target.also // [])[] | .case])[] as $c
               | $f[$l.family].perf[] | select(.label == $c)
               | select(.label != "2^\(.n | log2 | floor)" or (pow(2; .n | log2 | floor) != .n))
               | "\(.label) \(.input // .label) \($l.id)"' data/labs.json | sort -u)
check "the catalog has cases named for their input ($(wc -l <<<"$named"))" test -n "$named"
while read -r label input id; do
    check "list explains \"at $label\": its input and lab $id" \
        test -n "$(grep -E "^  $label +n = [0-9^]+ of the $input input \(the lessons? of labs? ([0-9]+, )*$id(,| )" <<<"$out")"
done <<<"$named"
check "list says what \"at 2^28\" means" test -n "$(grep -F '"at 2^28" is the case of' <<<"$out")"
