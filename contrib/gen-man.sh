#!/usr/bin/env bash
# contrib/gen-man.sh — writes docs/cudatutor.1 on stdout from its template,
# docs/cudatutor.1.in, and the program's own tables (`cudatutor
# --print-options`).  In the template's OPTIONS section:
#   .\" @option CMDS --NAME   the option's heading as the tables give it
#                             (its short form, its value's name); several in
#                             a row share the description that follows
#   .\" @rest CMDS            every option of CMDS that no @option line
#                             names, with the help's words
# CMDS is a comma-separated list of commands, "*" for the options of every
# command and "-" for the tutor itself.  An @option the tables do not give
# that command stops the generator, naming it.  `make generated` runs it;
# tests/docs.sh fails when the checked-in page differs from its output.
#   contrib/gen-man.sh [CUDATUTOR [TEMPLATE]]   (default: ./cudatutor docs/cudatutor.1.in)
set -euo pipefail
tutor=${1:-./cudatutor}
template=${2:-docs/cudatutor.1.in}
table=$("$tutor" --print-options)

awk -F'\t' '
    function esc(s) { gsub(/-/, "\\-", s); return s }
    # The roff heading of option name of command c.
    function heading(cmd, name,   k, v, sh) {
        k = cmd SUBSEP name; v = value[k]; sh = short[k]
        if (sh != "" && v != "") return ".BI " esc(sh) " \", \" " esc(name) " \" " v "\""
        if (sh != "") return ".BR " esc(sh) " \", \" " esc(name)
        if (v != "") return ".BI " esc(name) " \" " v "\""
        return ".B " esc(name)
    }
    # The first command of cmds that takes name; fails the run when one does not.
    function taker(cmds, name,   n, cl, i, first) {
        n = split(cmds, cl, ","); first = ""
        for (i = 1; i <= n; i++) {
            if (!((cl[i] SUBSEP name) in value)) {
                printf "gen-man.sh: %s:%d: %s does not take %s\n", FILENAME, FNR, cl[i] == "*" ? "every command" : cl[i] == "-" ? "the tutor" : cl[i], name > "/dev/stderr"
                bad = 1
            } else if (first == "") first = cl[i]
        }
        return first
    }
    function sentence(s) { return toupper(substr(s, 1, 1)) substr(s, 2) "." }
    FNR == NR {
        if ($1 == "global") { cmd = "*"; name = $2; v = $3; sh = $4; h = $5 }
        else if ($1 == "option") { cmd = $2; name = $3; v = $4; sh = $5; h = $6 }
        else next
        value[cmd SUBSEP name] = v; short[cmd SUBSEP name] = sh; help[cmd SUBSEP name] = h
        if (!(cmd in nopt)) nopt[cmd] = 0
        opt[cmd, ++nopt[cmd]] = name
        next
    }
    # First pass over the template (read twice): what each @option names.
    pass == 0 {
        if ($0 ~ /^\.\\" @option /) {
            split($0, w, " "); n = split(w[3], cs, ",")
            for (i = 1; i <= n; i++) named[cs[i], w[4]] = 1
        }
        next
    }
    {
        if ($0 ~ /^\.\\" @option /) {
            split($0, w, " ")
            t = taker(w[3], w[4])
            print (prev_option ? ".TQ" : ".TP")
            if (t != "") print heading(t, w[4])
            prev_option = 1
            next
        }
        prev_option = 0
        if ($0 ~ /^\.\\" @rest /) {
            split($0, w, " "); n = split(w[3], cs, ",")
            for (name in done) delete done[name]
            for (i = 1; i <= n; i++)
                for (j = 1; j <= nopt[cs[i]]; j++) {
                    name = opt[cs[i], j]
                    if (((cs[i], name) in named) || (name in done)) continue
                    done[name] = 1
                    print ".TP"
                    print heading(cs[i], name)
                    h = help[cs[i] SUBSEP name]
                    print h != "" ? esc(sentence(h)) : "See\n.BR \"cudatutor " cs[i] " \\-\\-help\" ."
                }
            next
        }
        print
    }
    END { exit bad }
' <(printf '%s\n' "$table") pass=0 "$template" pass=1 "$template"
