#!/usr/bin/env bash
# tests/docs.sh — the manual page (docs/cudatutor.1) and the bash completion
# (contrib/cudatutor.bash) against the command line itself: every command in
# `cudatutor --help` (the CLI's command table) and every option of every
# command (`cudatutor COMMAND --help`, from its option table) appear in
# both; the page documents the exit codes and renders without warnings; the
# completion completes commands, options and lab ids.  Then the facts of
# the guides that the code or the catalog can check (issue 25).
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

MAN=docs/cudatutor.1
COMP=contrib/cudatutor.bash

# The commands: the lines of --help between "Commands:" and the options.
mapfile -t cmds < <("$TUTOR" --help | sed -n '/Commands:$/,/^Options/p' | sed -n 's/^  \([a-z-]*\) .*/\1/p')
check "--help lists the fourteen commands" test ${#cmds[@]} = 14
# options CMD: CMD's own options and the global ones, one a line (--name).
options() { "$TUTOR" "$1" --help | grep -oE -- '(^  |, |: )--[a-z-]+' | grep -oE -- '--[a-z-]+' | sort -u; }

# roff writes "-" as "\-"; the page's text with that undone.
man_text=$(sed 's/\\-/-/g' "$MAN")
. "$COMP"
# Each command's options asked once (a cudatutor, two greps and a sort),
# as " --a --b ", and each option looked up in them and in the page by
# bash: a process per option and command was most of this script's time.
declare -A takes
for c in "${cmds[@]}"; do
    takes[$c]=" $(options "$c" | tr '\n' ' ')"
done
for c in "${cmds[@]}"; do
    check "man page: command $c has its entry" grep -qE "^\.BI? $c( |\$)" <<<"$man_text"
    check "completion: command $c" grep -qw -- "$c" <<<"$_cudatutor_commands"
    missing_man="" missing_comp=""
    offered=" $_cudatutor_global $(_cudatutor_command_options "$c") "
    offered=${offered//$'\n'/ }
    for o in ${takes[$c]}; do
        [[ $man_text == *"$o"* ]] || missing_man="$missing_man $o"
        [[ $offered == *" $o "* ]] || missing_comp="$missing_comp $o"
    done
    check "man page: every option of $c${missing_man:+ (missing:$missing_man)}" test -z "$missing_man"
    check "completion: every option of $c${missing_comp:+ (missing:$missing_comp)}" test -z "$missing_comp"
done
# An option the completion offers that the command does not take would be
# a usage error when used.
extra=""
for c in "${cmds[@]}"; do
    for o in $(_cudatutor_command_options "$c"); do
        [[ ${takes[$c]} == *" $o "* ]] || extra="$extra $c:$o"
    done
done
check "completion offers no option a command refuses${extra:+ ($extra)}" test -z "$extra"

exits=$(awk '/^\.SH / { in_exit = ($0 == ".SH EXIT STATUS") } in_exit && /^\.B [0-9]$/ { printf "%s ", $2 }' "$MAN")
check "man page: the exit statuses are 0 to 4, as cudatutor --help says" \
    test "$exits" = "0 1 2 3 4 " -a -n "$("$TUTOR" --help | grep -F '2 usage; 3 no CUDA device; 4 the workbook itself failed')"
if command -v groff > /dev/null; then
    warn=$(groff -man -ww -z "$MAN" 2>&1)
    check "man page renders without warnings" test -z "$warn"
else
    skip "man page renders without warnings" "groff is not installed"
fi

# complete WORDS...: what the completion offers for the last word.
complete_line() {
    COMP_WORDS=("$TUTOR" "$@")
    COMP_CWORD=$(($# ))
    _cudatutor
    [ ${#COMPREPLY[@]} = 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
check "completion: a command from its start" test "$(complete_line ch)" = "check "
check "completion: options after the lab" test "$(complete_line check 01 --no-)" = "--no-calibrate --no-color --no-sanitize "
check "completion: lab ids" test "$(complete_line show 0 | wc -w)" = 9
check "completion: an option's value is not a command" test -z "$(complete_line --seed '')"
check "completion: options before the command do not count as it" test "$(complete_line --unlock-all hi)" = "hint "
check "completion: grade offers its own options, not the tutor's" \
    test "$(complete_line grade --r)" = "--rescore --roster --rubric "
check "completion: grade's --sandbox values" test "$(complete_line grade --sandbox b)" = "bwrap bwrap-root "

# ---- the completion and the page are generated from the tables ---------------
check "contrib/cudatutor.bash is contrib/gen-completion.sh's output (make generated)" \
    diff <(bash contrib/gen-completion.sh "$TUTOR") "$COMP"
check "docs/cudatutor.1 is contrib/gen-man.sh's output from docs/cudatutor.1.in (make generated)" \
    diff <(bash contrib/gen-man.sh "$TUTOR" docs/cudatutor.1.in) "$MAN"
# An option added to a table reaches both without an edit of either
# generator: a stand-in tutor whose tables give check one more option.
fake=$TMP/fake-tutor
printf '#!/usr/bin/env bash\n"%s" --print-options\nprintf "option\\tcheck\\t--planted\\tDIR\\t\\tput it there\\n"\n' "$TUTOR" > "$fake"
chmod +x "$fake"
planted=$(bash contrib/gen-completion.sh "$fake")
check "an option planted in the tables reaches the completion (check's options, a folder's value)" \
    test -n "$( (eval "$planted"; _cudatutor_command_options check) | grep -w -- '--planted')" -a \
         "$( (eval "$planted"; _cudatutor_prev_case --planted) )" = dir
planted=$(bash contrib/gen-man.sh "$fake" docs/cudatutor.1.in)
check "an option planted in the tables reaches the manual page, under check, with its help" \
    test "$(sed -n '/^\.SS check$/,/^\.SS /p' <<<"$planted" | grep -A1 -F '.BI \-\-planted " DIR"' | tail -n1)" = "Put it there."
sed 's/^\.\\" @option check --quick$/.\\" @option check --quick-planted/' docs/cudatutor.1.in > "$TMP/stale.1.in"
out=$(bash contrib/gen-man.sh "$TUTOR" "$TMP/stale.1.in" 2>&1 >/dev/null); rc=$?
check "a template that names an option the tables lack stops the generator, naming it" \
    test $rc -ne 0 -a -n "$(grep -F 'check does not take --quick-planted' <<<"$out")"

# ---- the Makefile: building never installs -----------------------------------
# make -n prints the recipes (sub-makes run with -n too): deps's apt-get line
# is in run's and test's, never in all's.
installs() { make -n "$1" 2>/dev/null | grep -c 'apt-get install -y -q'; }
check "make (all) builds and installs nothing" test "$(installs all)" = 0
check "make run and make test install what is missing first (make deps)" \
    test "$(installs run)" -ge 1 -a "$(installs test)" -ge 1 -a "$(installs deps)" -ge 1

# ---- the guides against the code and the catalog (issue 25) -----------------

IG=docs/instructor-guide.md
# section FILE N: the text of FILE's "## N." section.
section() { awk -v n="$2" '/^## / { on = index($0, "## " n ".") == 1 } on' "$1"; }

# §1's self-test count: the reference solution of each core lab and the
# bank kernels of those labs (a plain --selftest grades the core labs).
core=$(jq -r '.labs[] | select(.bonus != true) | .id' data/labs.json)
nsol=$(wc -l <<<"$core")
nbank=0
for f in tests/bank/*.cu; do
    first= lab=
    read -r first < "$f"
    [[ $first =~ ^//\ bank:\ lab=([0-9]*)\ expect=[a-z_]* ]] && lab=${BASH_REMATCH[1]}
    [ -n "$lab" ] && [[ $'\n'$core$'\n' == *$'\n'"$lab"$'\n'* ]] && nbank=$((nbank + 1))
done
selftest=$(section "$IG" 1 | tr '\n' ' ' | tr -s ' ')
check "instructor guide §1: the self-test's count is the bank's ($((nsol + nbank)) kernels: $nsol solutions, $nbank bank kernels)" \
    grep -qF "$((nsol + nbank)) kernels today, the $nsol reference solutions and $nbank bank kernels" <<<"$selftest"
check "instructor guide §1: the self-test's judgements are the ones it prints" \
    test -z "$(for j in 'right' 'right without a GPU' 'not run (no GPU)' 'WRONG'; do
                   grep -qF "\"$j\"" tutor/grade/grade_selftest.c || echo "$j"
                   grep -qF "\`$j\`" <<<"$selftest" || echo "$j"
               done)"

# §6's setup.sh installs every -dev package the Makefile builds with.
setup=$(section "$IG" 6 | awk '/^```sh/ { n++; next } /^```/ { if (n == 1) exit } n == 1')
mapfile -t devs < <(sed -n '/^DEB_PKGS *:=/,/^$/p' Makefile | grep -oE '[a-z0-9.+-]+-dev' | sort -u)
missing=""
for p in "${devs[@]}"; do grep -qw -- "$p" <<<"$setup" || missing="$missing $p"; done
check "instructor guide §6: setup.sh installs the Makefile's -dev packages (${#devs[@]})${missing:+ (missing:$missing)}" \
    test ${#devs[@]} -ge 5 -a -z "$missing"

# harness.md §9.1: the family row names every family of the catalog and of
# FAMILY_TABLE.
row=$(grep -E '^\| `family` \| string \|' docs/harness.md)
fams=$( (jq -r '.labs[].family' data/labs.json
         sed -n 's/^ *X(FAMILY_[A-Z_]*, *"\([a-z_]*\)".*/\1/p' tutor/model/catalog.h) | sort -u)
missing=""
for f in $fams; do grep -qF "\`$f\`" <<<"$row" || missing="$missing $f"; done
check "harness.md §9.1: every family is listed ($(wc -w <<<"$fams"))${missing:+ (missing:$missing)}" \
    test "$(wc -w <<<"$fams")" -ge 8 -a -z "$missing"

# architecture.md's lab folder against a reset: after one, the folder holds
# README.md, kernel.cu and the backup the sentence names, which
# tests/labs.sh's pattern lets through.  Reset without a terminal asks
# nothing: it changes nothing unless given --yes, as the student guide says.
WB=$TMP/wb-docs
make_workbook "$WB"
L1=$(lab_dir 01)
echo "// mine" >> "$WB/labs/$L1/kernel.cu"
cp "$WB/labs/$L1/kernel.cu" "$TMP/mine.cu"
out=$(echo y | "$TUTOR" --root "$WB" reset 01 2>&1); rc=$?
check "reset from a pipe without --yes: usage error (2) that names --yes, kernel.cu unchanged" \
    test $rc = 2 -a -n "$(grep -F -- '--yes' <<<"$out")" -a -n "$(cmp "$TMP/mine.cu" "$WB/labs/$L1/kernel.cu" && echo same)"
check "student guide: reset asks only on a terminal, --yes otherwise" \
    grep -qE 'reset 03 .*y/N question on a terminal' docs/student-guide.md
"$TUTOR" --root "$WB" reset 01 --yes < /dev/null > /dev/null 2>&1
pattern=$(sed -n "s/.*grep -vE '\\(\\^kernel[^']*\\)'.*/\\1/p" tests/labs.sh)
arch=$(tr '\n' ' ' < docs/architecture.md | tr -s ' ')
left=""
for f in $(ls -A "$WB/labs/$L1"); do
    case $f in
    README.md | kernel.cu) grep -qF "ships exactly \`README.md\` and \`kernel.cu\`" <<<"$arch" || left="$left $f" ;;
    *) grep -qE "$pattern" <<<"$f" && grep -qF '`kernel.cu.bak-YYYYmmdd-HHMMSS`' <<<"$arch" || left="$left $f" ;;
    esac
done
check "architecture.md: a lab folder after a reset holds what it says, as tests/labs.sh allows${left:+ (not said:$left)}" \
    test -n "$pattern" -a "$(ls -A "$WB/labs/$L1" | wc -l)" = 3 -a -z "$left"

# ---- README.md against the catalog (issue 34) --------------------------------
# The count of labs, in words, is the catalog's.
nlabs=$("$TUTOR" list --json | jq length)
words=(zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
       sixteen seventeen eighteen nineteen twenty)
check "README: the number of labs is the catalog's ($nlabs)" \
    grep -qiE "^${words[$nlabs]} CUDA labs" README.md
# The emulator's bound, per lab: "n = 2^20 for most labs, 65537 for labs 08
# and 15, ..." from each lab's emu_max_n, the bound most labs share first.
bounds=$("$TUTOR" list --json | jq -r '
    def size: if . >= 1024 and (. as $n | [range(0; 40)] | map(pow(2; .)) | index($n)) != null
              then "2^\(log2 | round)" else tostring end;
    def ids: if length == 1 then "lab \(.[0])" else "labs \(.[:-1] | join(", ")) and \(.[-1])" end;
    def andlist: if length == 1 then .[0] else "\(.[:-1] | join(", ")) and \(.[-1])" end;
    group_by(.emu_max_n) | sort_by(-length) as $g
    | ["n = \($g[0][0].emu_max_n | size) for most labs"]
      + ($g[1:] | sort_by(.[0].id) | map("\(.[0].emu_max_n | size) for \(map(.id) | ids)"))
    | .[0] + ", " + (.[1:] | andlist)')
readme=$(tr '\n' ' ' < README.md | tr -s ' ')
check "README: the emulator's bound per lab is the catalog's ($bounds)" grep -qF "($bounds;" <<<"$readme"
# Every reset in README's examples works as written: from a script it needs --yes.
check "README: its reset example carries --yes" \
    test -z "$(grep -E '^\./cudatutor reset ' README.md | grep -v -- '--yes')" -a -n "$(grep -E '^\./cudatutor reset ' README.md)"
# What a check does without a GPU is said wherever a check is described:
# the first lesson and the guide's key table, and no message keeps the
# jargon "the CPU tier's verdict stands".
lesson1=$(tr '\n' ' ' < "labs/$(lab_dir 01)/README.md" | tr -s ' ')
check "lesson 01: a check runs on the GPU where there is one, else on this computer's CPU, not timed" \
    grep -qF "without a GPU, on this computer's CPU (a PTX emulator), not timed" <<<"$lesson1"
check "student guide: the key c says what a check does without a GPU" \
    grep -qE "^\| \`c\` \| .*without one, .*this computer's CPU, not timed" docs/student-guide.md
check "no message says \"the CPU tier's verdict stands\"" \
    test -z "$(grep -rlF "the CPU tier's verdict stands\"" tutor --include=*.c)"
