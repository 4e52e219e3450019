#!/usr/bin/env bash
# tests/grade_private.sh — grading as root the way Gradescope's autograder
# does: the workbook (its cudatutor, its harness) and --out inside a folder
# only root may pass (mktemp -d's 0700), with the sandbox that runs student
# code as nobody.  Before the grader made the sandbox a folder of its own,
# this was REFUSED (bubblewrap, as nobody, could not reach OUT/work).
#   - the grading runs as nobody, and lab 01's solution passes;
#   - a classmate's kernel stays out of reach: a relative #include of the
#     next student's copy (its path in the grader's work) finds no file,
#     where without a sandbox it compiles the classmate's pass;
#   - the sandbox's folder is made under $TMPDIR and removed at the end.
# Without a GPU the CPU judges (the PTX emulator) reach the pass.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
set -o pipefail
unset CUDATUTOR_NO_EMULATOR

if [ "$(id -u)" != 0 ]; then
    skip "grading as root from a private folder" "not root"
    exit 0
fi
if ! have_gpu && [ ! -x build/harness/judge_cpu_reduce_int ]; then
    skip "grading as root from a private folder" "no GPU and no CPU judges in this build"
    exit 0
fi

# $TMP is mktemp -d's; its private folder P holds everything of the
# grading; PUB is the $TMPDIR the grader makes its folder in.
chmod 711 "$TMP"
P="$TMP/private"
PUB="$TMP/pub"
mkdir -m 700 "$P"
mkdir -m 711 "$PUB"
WB="$P/wb"
make_workbook "$WB"
mkdir -p "$WB/build"
cp "$ROOT/cudatutor" "$ROOT/grade.sh" "$WB/"
cp -r "$ROOT/build/harness" "$WB/build/"
L1=$(lab_dir 01)
S="$P/subs"
mkdir -p "$S/ann/labs/$L1" "$S/bob/labs/$L1"
cp "solutions/$L1/kernel.cu" "$S/ann/labs/$L1/kernel.cu"
# bob's file lies in WORK/bob/wb/labs/LAB/: four folders up is WORK.
echo "#include \"../../../../ann/wb/labs/$L1/kernel.cu\"" > "$S/bob/labs/$L1/kernel.cu"
OPTS=(--labs 01 --seed 4242 --no-sanitize --no-calibrate -j 2)

TMPDIR=$PUB "$WB/grade.sh" "${OPTS[@]}" -o "$P/out" "$S/ann" "$S/bob" > "$TMP/o.log" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/#   /' "$TMP/o.log" | tail -n 20
sandbox=$(jget "$P/out/run.json" .sandbox 2>/dev/null)
check "as root, the workbook and --out in a 0700 folder: graded (exit 0), as nobody (${sandbox:-no run.json})" \
    test $rc = 0 -a "$sandbox" = bwrap-nobody
check "the grader says it runs copies of its programs, naming the folder nobody cannot pass" \
    test -n "$(grep -F "cannot pass through $P:" "$TMP/o.log")"
check "lab 01's solution passes" test "$(jget "$P/out/students/ann/report.json" '.labs[0].status')" = pass
check "a classmate's kernel through a relative #include: no such file, a compile error" \
    test "$(jget "$P/out/students/bob/report.json" '.labs[0].status')" = compile_error \
         -a -n "$(jget "$P/out/students/bob/report.json" '.labs[0].text' | grep -F 'No such file or directory')"
check "the sandbox's folder was made under \$TMPDIR and is gone" \
    test -z "$(ls -A "$PUB")" -a -n "$(grep -F "$PUB/cudatutor-grade." "$TMP/o.log")"

# The same include without a sandbox reads ann's kernel: the attack is real.
# One check at a time, ann's first, and her work kept: a grader removes a
# student's work once her reports are written, and two checks at once
# raced bob's compile against that (a faster check of ann's lost it).
TMPDIR=$PUB "$WB/grade.sh" "${OPTS[@]}" -j 1 --keep-work -q --sandbox none -o "$P/out-none" "$S/ann" "$S/bob" \
    > "$TMP/none.log" 2>&1
check "without a sandbox the same #include compiles ann's kernel (the attack the sandbox stops)" \
    test "$(jget "$P/out-none/students/bob/report.json" '.labs[0].status')" = pass
