#!/usr/bin/env bash
# tests/docs.sh — the manual page (docs/cudatutor.1) and the bash completion
# (contrib/cudatutor.bash) against the command line itself: every command in
# `cudatutor --help` (the CLI's command table) and every option of every
# command (`cudatutor COMMAND --help`, from its option table) appear in
# both; the page documents the exit codes and renders without warnings; the
# completion completes commands, options and lab ids.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

MAN=docs/cudatutor.1
COMP=contrib/cudatutor.bash

# The commands: the lines of --help between "Commands:" and the options.
mapfile -t cmds < <("$TUTOR" --help | sed -n '/Commands:$/,/^Options/p' | sed -n 's/^  \([a-z-]*\) .*/\1/p')
check "--help lists the thirteen commands" test ${#cmds[@]} = 13
# options CMD: CMD's own options and the global ones, one a line (--name).
options() { "$TUTOR" "$1" --help | grep -oE -- '(^  |, |: )--[a-z-]+' | grep -oE -- '--[a-z-]+' | sort -u; }

# roff writes "-" as "\-"; the page's text with that undone.
man_text=$(sed 's/\\-/-/g' "$MAN")
. "$COMP"
for c in "${cmds[@]}"; do
    check "man page: command $c has its entry" grep -qE "^\.BI? $c( |\$)" <<<"$man_text"
    check "completion: command $c" grep -qw -- "$c" <<<"$_cudatutor_commands"
    missing_man="" missing_comp=""
    for o in $(options "$c"); do
        grep -qF -- "$o" <<<"$man_text" || missing_man="$missing_man $o"
        grep -qxF -- "$o" < <(tr ' ' '\n' <<<"$_cudatutor_global $(_cudatutor_command_options "$c")") ||
            missing_comp="$missing_comp $o"
    done
    check "man page: every option of $c${missing_man:+ (missing:$missing_man)}" test -z "$missing_man"
    check "completion: every option of $c${missing_comp:+ (missing:$missing_comp)}" test -z "$missing_comp"
done
# An option the completion offers that the command does not take would be
# a usage error when used.
extra=""
for c in "${cmds[@]}"; do
    for o in $(_cudatutor_command_options "$c"); do
        options "$c" | grep -qxF -- "$o" || extra="$extra $c:$o"
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
