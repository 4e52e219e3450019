#!/usr/bin/env bash
# contrib/gen-completion.sh — writes contrib/cudatutor.bash on stdout from
# the program's own tables (`cudatutor --print-options`: the commands, every
# option of each, the value each takes), so that an option added to a table
# reaches the completion without an edit here.  `make generated` runs it;
# tests/docs.sh fails when the checked-in file differs from its output.
#   contrib/gen-completion.sh [CUDATUTOR]     (default: ./cudatutor)
set -euo pipefail
tutor=${1:-./cudatutor}
table=$("$tutor" --print-options)

# The kind of completion a value gets, by the name the tables give it.
# Folders: DIR, WB.  Files (compgen -f also offers folders): PATH, F, FILE,
# PROGRAM, CSV, SPEC.  A name with listed values completes those; any other
# value (a number, a list, a seed) completes nothing.
gen() {
    awk -F'\t' '
        function kind(v) {
            if (v == "DIR" || v == "WB") return "dir"
            if (v ~ /^(PATH|F|FILE|PROGRAM|CSV|SPEC)$/) return "file"
            return "none"
        }
        # A name seen with a folder in one place and a file in another is a file.
        function note(name, v,   k) {
            if (v == "") return
            k = kind(v)
            if (!(name in cls) || cls[name] == "none" || (cls[name] == "dir" && k == "file")) cls[name] = k
            if (!(name in order)) { order[name] = ++nv; byorder[nv] = name }
        }
        # words joined by sep, wrapped before width with cont between lines
        # (sep kept at the end of a line when keep is set).
        function wrap(words, n, sep, width, cont, keep,   i, line, out) {
            line = ""; out = ""
            for (i = 1; i <= n; i++) {
                if (line != "" && length(line) + length(sep) + length(words[i]) > width) {
                    out = out line (keep ? sep : "") cont; line = words[i]
                } else line = line (line == "" ? "" : sep) words[i]
            }
            return out line
        }
        $1 == "command" {
            cmds = cmds (cmds == "" ? "" : " ") $2
            if ($3 ~ /^NN/) labcmds = labcmds (labcmds == "" ? "" : " ") $2
            if ($3 ~ /^(FILE|SUBMISSION)/) filecmds = filecmds (filecmds == "" ? "" : " ") $2
        }
        $1 == "global" { glob = glob (glob == "" ? "" : " ") $2; note($2, $3); if ($4 != "") { note($4, $3); long[$4] = $2 } }
        $1 == "option" {
            c = $2 == "-" ? "\"\"" : $2
            if ((" " glob " ") ~ (" " $3 " ")) next     # grade takes --help too: a global one
            if (!(c in opts)) corder2[++nc2] = c
            opts[c] = opts[c] (opts[c] == "" ? "" : " ") $3
            note($3, $4); if ($5 != "") { note($5, $4); long[$5] = $3 }
        }
        $1 == "values" { vals[$3] = $4 }
        END {
            printf "_cudatutor_commands=\"%s\"\n", cmds
            printf "_cudatutor_global=\"%s\"\n", glob
            printf "# The commands whose first argument is a lab, and those that take files.\n"
            printf "_cudatutor_lab_commands=\"%s\"\n", labcmds
            printf "_cudatutor_file_commands=\"%s\"\n\n", filecmds
            print "# _cudatutor_command_options COMMAND: the options COMMAND takes besides the"
            print "# global ones (\"\" for the tutor itself)."
            print "_cudatutor_command_options() {"
            print "    case $1 in"
            # Commands with the same options share an arm, in the tables order.
            for (i = 1; i <= nc2; i++) {
                c = corder2[i]
                if (c in arm) continue
                pat = c
                for (j = i + 1; j <= nc2; j++) if (opts[corder2[j]] == opts[c]) { pat = pat "|" corder2[j]; arm[corder2[j]] = 1 }
                arm[c] = 1
                n = split(opts[c], w, " ")
                printf "        %s)\n            echo \"%s\" ;;\n", pat, wrap(w, n, " ", 90, "\" \\\n                 \"", 0)
            }
            print "    esac"
            print "}"
            print ""
            # The case patterns of the options that take a value, by kind.
            nd = nf = nn = nall = 0
            for (i = 1; i <= nv; i++) {
                o = byorder[i]; all[++nall] = o
                if (o in vals) continue
                if (cls[o] == "dir") dirs[++nd] = o
                else if (cls[o] == "file") files[++nf] = o
                else nones[++nn] = o
            }
            print "# _cudatutor_prev_case WORD: what the value after option WORD completes"
            print "# (dir, file, \"values V...\", none); fails when WORD takes no value."
            printf "_cudatutor_prev_case() {\n"
            printf "    case $1 in\n"
            if (nd) printf "        %s) echo dir ;;\n", wrap(dirs, nd, "|", 90, "\\\n        ", 1)
            if (nf) printf "        %s) echo file ;;\n", wrap(files, nf, "|", 90, "\\\n        ", 1)
            for (o in vals) printf "        %s) echo \"values %s\" ;;\n", o, vals[o]
            if (nn) printf "        %s) echo none ;;\n", wrap(nones, nn, "|", 90, "\\\n        ", 1)
            printf "        *) return 1 ;;\n    esac\n}\n"
        }' <<<"$table"
}

cat <<'EOF'
# contrib/cudatutor.bash — bash completion for cudatutor: its commands, each
# command's options, lab ids for the commands that take a lab, and files or
# folders for the options that take them.  Generated by
# contrib/gen-completion.sh from the program's option tables (make
# generated); tests/docs.sh keeps the two equal.  Edit the generator, not
# this file.
# Installed as /usr/share/bash-completion/completions/cudatutor, or sourced
# from ~/.bashrc: . /path/to/workbook/contrib/cudatutor.bash

EOF
gen
cat <<'EOF'

# The lab ids of the workbook the command line points at (--root), from the
# tutor itself, so that a catalog with more labs completes them too.
_cudatutor_labs() {
    local root=() i
    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
        case ${COMP_WORDS[i]} in
            --root) root=(--root "${COMP_WORDS[i + 1]}") ;;
            --root=*) root=("${COMP_WORDS[i]}") ;;
        esac
    done
    "${COMP_WORDS[0]}" "${root[@]}" list 2>/dev/null | awk '/^[0-9][0-9] /{print $1}'
}

_cudatutor() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local cmd="" nargs=0 i w kind
    COMPREPLY=()

    # The option before the cursor wants a value.
    if kind=$(_cudatutor_prev_case "$prev"); then
        case $kind in
            dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
            file) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
            values\ *) mapfile -t COMPREPLY < <(compgen -W "${kind#values }" -- "$cur") ;;
        esac
        return
    fi

    # The command and how many of its arguments come before the cursor;
    # options and their values may stand anywhere.
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if _cudatutor_prev_case "$w" >/dev/null; then
            ((i++))
        elif [[ $w != -* ]]; then
            if [ -z "$cmd" ]; then cmd=$w; else ((nargs++)); fi
        fi
    done

    if [[ $cur == -* ]]; then
        # grade has a grammar of its own: none of the others' options.
        local global=$_cudatutor_global
        [ "$cmd" != grade ] || global=--help
        mapfile -t COMPREPLY < <(compgen -W "$global $(_cudatutor_command_options "$cmd")" -- "$cur")
    elif [ -z "$cmd" ]; then
        mapfile -t COMPREPLY < <(compgen -W "$_cudatutor_commands" -- "$cur")
    elif [ "$nargs" = 0 ]; then
        if [[ " $_cudatutor_lab_commands " == *" $cmd "* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$(_cudatutor_labs)" -- "$cur")
        elif [[ " $_cudatutor_file_commands " == *" $cmd "* ]]; then
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        elif [ "$cmd" = help ]; then
            mapfile -t COMPREPLY < <(compgen -W "$_cudatutor_commands" -- "$cur")
        fi
    elif [ "$cmd" = hint ] && [ "$nargs" = 1 ]; then
        mapfile -t COMPREPLY < <(compgen -W "1 2 3" -- "$cur")
    elif [ "$cmd" = grade ]; then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}

complete -F _cudatutor cudatutor ./cudatutor
EOF
