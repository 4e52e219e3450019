#!/usr/bin/env bash
# tests/wording.sh — a status is named and worded in one place,
# tutor/status.h's table (issue 15): no other source of the tutor or the
# grader (tutor/, grade.sh, contrib/, the Makefile) holds a status's
# meaning, its JSON name as a string literal, or one of the wordings the
# grader and the check used to have of their own ("did not compile",
# "passed: ..."), nor the headline of a fail's cause (FAIL_CAUSE_TABLE,
# issue 34), nor the offer of a fail's picture (FAIL_PICTURE, issue 33).
# Each rule is first shown to catch a copy planted in a
# scratch copy of the sources, so that it cannot rot into a no-op.
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1

# table ROOT: "name<TAB>meaning" per row of ROOT/tutor/status.h.
table() {
    sed -n 's/^ *X(STATUS_[A-Z_]*, *"\([a-z_]*\)", *[A-Z_0-9]*, *'"'"'.'"'"', *"\(.*\)") *\\\{0,1\}$/\1\t\2/p' \
        "$1/tutor/status.h"
}

# The wordings the grader's jq and the check's summaries had before the
# table was the only one; none may come back.
OLD_WORDS=(
    'did not compile'
    'crashed, or a CUDA call failed'
    'not graded: no CUDA device on the grading machine'
    'the grader failed on this lab'
    'rejected: breaks a rule of lab.h'
    'P pass, target met'
    'N not graded: no GPU'
    '"passed: '
    '"failed %s'
    '"compile error: '
    '"rejected: '
)

# sources ROOT: the files a status could be worded in, one per line.
sources() {
    (cd "$1" && find tutor contrib -type f \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' -o -name '*.sh' \
        -o -name '*.bash' \) ! -path tutor/status.h | sort
     echo Makefile
     # grade.sh holds its own jq programs until it becomes `exec cudatutor
     # grade` (issue 15); from then on it is checked like the rest.
     grep -q 'jq ' grade.sh 2>/dev/null || echo grade.sh)
}

# uncommented: of grep -n lines, those whose code (the text without its
# /* */ comments, // and # tails, and comment lines) still holds $1, a
# fixed string, or with -E an extended regular expression.
uncommented() {
    local re=0
    [ "$1" = -E ] && { re=1; shift; }
    awk -v pat="$1" -v re="$re" '
        {
            text = $0; sub(/^[^:]+:[0-9]+:/, "", text)
            if (text ~ /^[ \t]*(\/\*|\*|\/\/|#)/) next
            gsub(/\/\*([^*]|\*[^\/])*\*\//, "", text); sub(/\/\*.*$/, "", text); sub(/[ \t]\/\/.*$/, "", text)
            if (re ? text ~ pat : index(text, pat)) print
        }'
}

# hits ROOT: "file:line: why" for every wording outside the table.
hits() {
    local root=$1 name meaning f w
    local -a files
    mapfile -t files < <(sources "$root")
    # Comments may say what they like; code and strings may not.
    while IFS=$'\t' read -r name meaning; do
        (cd "$root" && grep -nF -- "$meaning" "${files[@]}" /dev/null) | uncommented "$meaning" |
            sed "s/\$/  [the meaning of $name]/"
        # The name as a C string literal, unless it is a JSON key (an
        # accessor's argument) or one of the ordinary words listed here.
        (cd "$root" && grep -nE -- "\"$name\"" "${files[@]}" /dev/null) | uncommented -E "\"$name\"" |
            grep -vE "[A-Za-z_]*(get|Get|add|Add|text|key|flag|Item|string)[A-Za-z_]*\([^()]*\"$name\"[,)]" |
            grep -vE "^tutor/model/catalog\.c:[0-9]+: .*fail\(p, path, \"missing\"\)" |
            sed "s/\$/  [the name $name as a literal]/"
    done < <(table "$root")
    # A status written under a "status" key as a literal is a hit whatever
    # the call (the accessor rule above would excuse it).
    local names
    names=$(table "$root" | cut -f1 | paste -sd'|')
    (cd "$root" && grep -nE -- "\"status\", *\"($names)\"" "${files[@]}" /dev/null) |
        uncommented -E "\"status\", *\"($names)\"" | sed "s/\$/  [a status written as a literal]/"
    for w in "${OLD_WORDS[@]}"; do
        (cd "$root" && grep -nF -- "$w" "${files[@]}" /dev/null) | uncommented "$w" | sed "s/\$/  [an old wording]/"
    done
}

# Wordings other than a status's, each with the one file that says it
# (owner<TAB>words): a front end prints what the owner words, never a copy.
OWNED=(
    $'tutor/view/standing.c\tpassed and on target'
    $'tutor/view/standing.c\t is open.'
    $'tutor/view/standing.c\t are open.'
)

# owned_hits ROOT: "file:line: why" for every owned wording outside its owner.
owned_hits() {
    local root=$1 row owner words
    local -a files
    mapfile -t files < <(sources "$root")
    for row in "${OWNED[@]}"; do
        owner=${row%%$'\t'*} words=${row#*$'\t'}
        (cd "$root" && grep -nF -- "$words" "${files[@]}" /dev/null) | uncommented "$words" |
            grep -v "^$owner:" | sed "s|\$|  [worded by $owner]|"
    done
}

# The headlines of a fail's causes (status.h's FAIL_CAUSE_TABLE), each said
# in status.h alone, but where a listed file is the source of the fact the
# headline quotes (owner<TAB>words): the emulator's sentence of a race,
# the check's note of a missing technique and the grader's line of each.
cause_table() { sed -n 's/^ *X(FAIL_[A-Z_]*, *"\([^"]*\)", *[01]) *\\\{0,1\}$/\1/p' "$1/tutor/status.h"; }
CAUSE_ALSO=(
    $'tutor/emu/emu_shadow.c\trace on '
    $'tutor/check/check.c\ttechnique missing: '
    $'tutor/model/score.c\ttechnique missing: '
)

# cause_hits ROOT: "file:line: why" for a cause's headline said elsewhere.
cause_hits() {
    local root=$1 words row ok_files
    local -a files
    mapfile -t files < <(sources "$root")
    while IFS= read -r words; do
        ok_files=$(for row in "${CAUSE_ALSO[@]}"; do [ "${row#*$'\t'}" = "$words" ] && echo "${row%%$'\t'*}"; done)
        (cd "$root" && grep -nF -- "\"$words" "${files[@]}" /dev/null) | uncommented "\"$words" |
            grep -vF -f <(printf '%s:\n' $ok_files "/nonexistent") | sed "s/\$/  [the headline \"$words\"]/"
    done < <(cause_table "$root")
}

# exit_defs ROOT: "file:line: text" for every exit code defined (NAME = N)
# outside status.h's one list.
exit_defs() {
    local -a files
    mapfile -t files < <(sources "$1")
    (cd "$1" && grep -nE -- '[A-Z_]*EXIT_[A-Z_]+ *= *[0-9]' "${files[@]}" /dev/null) | uncommented -E 'EXIT_[A-Z_]+ *= *[0-9]'
}

rows=$(table "$ROOT" | wc -l)
check "status.h's table reads as $rows rows (every status)" test "$rows" -ge 11

if grep -q 'jq ' grade.sh; then
    skip "grade.sh words no status" "grade.sh still holds its jq programs (until it execs cudatutor grade)"
fi

# The rules catch planted copies: a meaning, a name as a literal, an old
# wording, each in a copy of the sources.
copy=$TMP/wb
mkdir -p "$copy"
cp -r tutor contrib Makefile "$copy/"
: > "$copy/grade.sh"
meaning=$(table "$ROOT" | awk -F'\t' '$1 == "runtime_error" { print $2 }')
echo "static const char *w1 = \"$meaning\";" >> "$copy/tutor/view/verdict.c"
echo 'static const char *w2 = "compile_error"; /* a trailing comment hides nothing */' >> "$copy/tutor/model/progress.c"
echo 'echo "did not compile"' >> "$copy/contrib/cudatutor.bash"
echo 'static void w3(cJSON *o) { cJSON_AddStringToObject(o, "status", "timeout"); }' >> "$copy/tutor/check/check.c"
echo 'static const char *w4 = "passed and on target";' >> "$copy/tutor/cli/cli_study.c"
printf '%s\n' 'enum { GRADE_EXIT_OK = 0, GRADE_EXIT_WRONG = 1 };' >> "$copy/tutor/grade/grade_log.c"
planted=$(hits "$copy")
check "an exit code defined outside status.h (in grade_log.c) is caught" \
    grep -q "^tutor/grade/grade_log.c:.*GRADE_EXIT_WRONG" <<<"$(exit_defs "$copy")"
owned=$(owned_hits "$copy")
check "a second copy of an owned wording (the state change, in cli_study.c) is caught" \
    grep -q "^tutor/cli/cli_study.c:.*worded by tutor/view/standing.c" <<<"$owned"
check "a meaning copied into verdict.c is caught" grep -q "^tutor/view/verdict.c:.*the meaning of runtime_error" <<<"$planted"
check "a status name as a literal in progress.c is caught" grep -q "^tutor/model/progress.c:.*the name compile_error" <<<"$planted"
check "an old wording in a shell file is caught" grep -q "^contrib/cudatutor.bash:.*an old wording" <<<"$planted"
check "a status written as a literal under a \"status\" key is caught" \
    grep -q "^tutor/check/check.c:.*a status written as a literal" <<<"$planted"
check "a JSON key named like a status is not a wording" test -z "$(grep -F 'score.c' <<<"$planted")"

missing=""
for row in "${OWNED[@]}"; do
    grep -qF -- "${row#*$'\t'}" "${row%%$'\t'*}" || missing="$missing ${row#*$'\t'}"
done
check "every owned wording is in its owner${missing:+ (not:$missing)}" test -z "$missing"
found=$(owned_hits "$ROOT")
check "each owned wording is said in one file only${found:+ ($found)}" test -z "$found"

causes=$(cause_table "$ROOT" | wc -l)
check "status.h's causes of a fail read as $causes rows" test "$causes" -ge 6
echo 'static const char *w5 = "wrong result at n = ";' >> "$copy/tutor/view/verdict.c"
check "a cause's headline copied into verdict.c is caught" \
    grep -q '^tutor/view/verdict.c:.*the headline "wrong result at n = "' <<<"$(cause_hits "$copy")"
found=$(cause_hits "$ROOT")
check "each cause's headline is said in status.h alone${found:+ ($found)}" test -z "$found"

# The offer of a fail's picture (issue 33): worded in status.h alone
# (FAIL_PICTURE), said through result_picture; a copy planted in sheet.c
# is caught.
picture_hits() {
    local -a files
    mapfile -t files < <(sources "$1")
    (cd "$1" && grep -nF -- "see it: " "${files[@]}" /dev/null) | uncommented "see it: "
}
check "status.h words the offer of a fail's picture" grep -qF '#define FAIL_PICTURE "see it: cudatutor trace "' tutor/status.h
echo 'static const char *w6 = "see it: cudatutor trace 03";' >> "$copy/tutor/view/sheet.c"
check "a copy of the picture's offer in sheet.c is caught" grep -q '^tutor/view/sheet.c:' <<<"$(picture_hits "$copy")"
found=$(picture_hits "$ROOT")
check "the picture's offer is worded in status.h alone${found:+ ($found)}" test -z "$found"

found=$(exit_defs "$ROOT")
check "every exit code is defined in status.h alone${found:+ ($found)}" test -z "$found"
check "status.h's list holds the exit codes" test "$(grep -cE '^ *EXIT_[A-Z_]+ = [0-9]+' tutor/status.h)" -ge 7

found=$(hits "$ROOT")
if [ -z "$found" ]; then ok "no status is named or worded outside tutor/status.h"
else not_ok "no status is named or worded outside tutor/status.h" "$found"; fi

# ---- the target ratio: one wording (issue 34) ---------------------------------
# A ratio to the lab's baseline reads "0.12× CUB" (or "0.12× the baseline"):
# never "12% of CUB", "0.79 of CUB" or "the reference", a word that also
# names the reference solutions.  A planted "12% of CUB" is caught.
ratio_hits() {
    (cd "$1" && grep -rnE "[0-9]%[[:space:]]+of[[:space:]]+CUB|[0-9]\.[0-9]+ of CUB|(×|x) the reference|ratio to the reference|the lab's reference|against the reference|marks the reference" \
        labs data docs/*.md docs/cudatutor.1.in README.md tutor/view tutor/cli tutor/check 2>/dev/null |
     grep -v -e '^docs/ladder.md:' -e 'reference solution')
    # A line break inside "12% of\nCUB": the lessons are flowed text.
    (cd "$1" && for f in labs/*/README.md; do
         awk -v f="$f" 'prev ~ /[0-9]%( of)?$/ && ($0 ~ /^(of )?CUB/) { print f ":" NR ": " prev " / " $0 } { prev = $0 }' "$f"
     done)
}
found=$(ratio_hits "$ROOT")
check "the target ratio in one wording (0.12× CUB, never 12% of CUB or \"the reference\")${found:+: $found}" test -z "$found"
mkdir -p "$copy/labs/01-interleaved-addressing"
printf '\nThe target is 12%% of CUB.\n' >> "$copy/labs/01-interleaved-addressing/README.md"
check "a planted \"12% of CUB\" is caught" test -n "$(ratio_hits "$copy" | grep -F 'labs/01-interleaved-addressing/README.md')"
