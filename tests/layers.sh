#!/usr/bin/env bash
# tests/layers.sh — the layout of tutor/ is the architecture
# (docs/architecture.md, "Layers"): every #include "..." points to the same
# layer or one below, no two modules include each other through any chain,
# curses stays in tutor/ui/, and the Makefile's LAYERS and the document name
# the same folders.  The first check plants an include that points up and
# sees it caught, so the rule itself cannot rot into a no-op.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

# edges: one "file included-file" line per #include "..." under tutor/,
# resolved as the compiler does (beside the file first, then -Itutor), in
# one awk pass: forking per include made this test take a minute.
edges() {
    find tutor -type f \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' \) | sort |
    awk '
        function norm(p,   n, i, k, part, out) {
            n = split(p, part, "/"); k = 0
            for (i = 1; i <= n; i++) {
                if (part[i] == "." || part[i] == "") continue
                if (part[i] == ".." && k > 0) { k--; continue }
                out[++k] = part[i]
            }
            p = out[1]; for (i = 2; i <= k; i++) p = p "/" out[i]
            return p
        }
        { files[NR] = $0; have[$0] = 1 }
        END {
            for (i = 1; i <= NR; i++) {
                f = files[i]; dir = f; sub(/\/[^\/]*$/, "", dir)
                while ((getline line < f) > 0) {
                    if (line !~ /^#include "/) continue
                    inc = line; sub(/^#include "/, "", inc); sub(/".*/, "", inc)
                    t = norm(dir "/" inc)
                    if (!(t in have)) t = norm("tutor/" inc)
                    if (t in have) print f, t
                }
                close(f)
            }
        }'
}

# ranked: the edges with each end's layer, bottom (0) up; "-" for a file
# in no layer.
ranked() {
    awk '
        function rank(f) {
            if (f == "tutor/lab.h" || f == "tutor/status.h") return 0   # the contract, shared with CUDA
            if (f ~ /^tutor\/sys\//) return 1
            if (f ~ /^tutor\/model\//) return 2
            if (f ~ /^tutor\/(check|harness|runner|emu)\//) return 3
            if (f ~ /^tutor\/view\//) return 4
            if (f ~ /^tutor\/(cli|ui|grade)\//) return 5
            return "-"
        }
        { print $1, rank($1), $2, rank($2) }'
}

# upward: one "file -> include" line per include that points up.
upward() { edges | ranked | awk '$2 != "-" && $4 != "-" && $4 > $2 { print $1 " -> " $3 }'; }

# Every file under tutor/ sits in a layer.
orphans=$(find tutor -type f \( -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' \) | sort |
          awk '{ print $1, $1 }' | ranked | awk '$2 == "-" { print $1 }')
check "every source file under tutor/ is in a layer${orphans:+ (not: $orphans)}" test -z "$orphans"

# The rule catches an include that points up (planted in a copy).
copy=$TMP/wb
mkdir -p "$copy"
cp -r tutor "$copy/"
echo '#include "ui/ui.h"' >> "$copy/tutor/model/catalog.c"
planted=$(cd "$copy" && upward)
check "a planted include from model/ up to ui/ is caught" grep -qx "tutor/model/catalog.c -> tutor/ui/ui.h" <<<"$planted"

up=$(upward)
if [ -z "$up" ]; then ok "every include points to its own layer or one below"
else not_ok "every include points to its own layer or one below" "$up"; fi

# cycles: tsort's complaint when two modules (a .c and its .h) reach each
# other through includes, in the graph "module -> module it includes".  A
# header with no .c of its own (check_stage.h, app.h) is an interface that
# modules share, not a module: nothing is drawn from it.
cycles() {
    edges | awk '{ from = $1; to = $2; sub(/\.[a-z]*$/, "", from); sub(/\.[a-z]*$/, "", to)
                   if (from != to) print from, to, $1 }' |
        while read -r from to file; do [ -f "$from.c" ] && echo "$from $to"; done | tsort 2>&1 >/dev/null
}
cp -r tutor "$TMP/cyc"
mkdir -p "$TMP/cw" && mv "$TMP/cyc" "$TMP/cw/tutor"
echo '#include "cli/cli.h"' >> "$TMP/cw/tutor/cli/cli_study.c"
planted=$(cd "$TMP/cw" && cycles)
check "a planted circle cli <-> cli_study is caught" grep -q "tutor/cli/cli" <<<"$planted"
cycle=$(cycles)
check "no two modules include each other, directly or through others${cycle:+ ($cycle)}" test -z "$cycle"

curses=$(grep -rlE '#include <n?cursesw?/?n?curses\.h>|#include <curses\.h>' tutor | grep -v '^tutor/ui/' || true)
check "curses is included only under tutor/ui/${curses:+ (also: $curses)}" test -z "$curses"

# The Makefile's layers and the document's table name the same folders
# (the judge, the runner and the emulator are built by rules of their own).
make_layers=$(sed -n 's/^LAYERS := //p' Makefile | tr ' ' '\n' | sort | tr '\n' ' ')
doc_layers=$(sed -n '/^## Layers/,/^## /p' docs/architecture.md | sed -n 's/^| [0-9] | `tutor\/\([a-z]*\)\/`.*/\1/p' |
             grep -vx -e ui -e harness -e runner -e emu | sort | tr '\n' ' ')
check "Makefile LAYERS ($make_layers) match docs/architecture.md ($doc_layers)" test "$make_layers" = "$doc_layers"
