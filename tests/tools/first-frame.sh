#!/usr/bin/env bash
# tests/tools/first-frame.sh — how long a new student waits: `make run` on a
# fresh clone, in tmux (80x24), timed to the tutor's first frame, then to
# the moment lab 01 can be checked (its judges and the runner's objects
# built by make run's background make), then to the background make's end.
# At the first frame it presses c: that check of lab 01's stub waits for
# what it needs and must end in the stub's verdict (fail), not an error.
# Prints one line per mark with the load average beside it; the machine is
# shared, so read the wall seconds with the load.
#   bash tests/tools/first-frame.sh [WORKBOOK-REPO [COMMIT]]   (default: this one, HEAD)
# FIRST_ONLY=1 stops at the first frame and ends the background make.
# Not part of make test: it builds everything once, minutes of CPU.
set -u
src=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
dir=$(mktemp -d "${TMPDIR:-/tmp}/first-frame.XXXXXX")
sock=first-frame-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
# tree PID: the pid and its descendants' (from /proc), children first.
tree() {
    local c
    for c in $(grep -l "^PPid:[[:space:]]*$1\$" /proc/[0-9]*/status 2>/dev/null | cut -d/ -f3); do tree "$c"; done
    echo "$1"
}
cleanup() {
    local mark=$dir/wb/build/harness/.building
    [ ! -s "$mark" ] || kill $(tree "$(cat "$mark")") 2>/dev/null
    tm kill-server 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }

git clone -q "$src" "$dir/wb" || exit 1
[ -z "${2:-}" ] || git -C "$dir/wb" checkout -q "$2" || exit 1
echo "load before: $(load) ($(nproc) cores)"
t0=$(date +%s.%N)
since() { echo "$(date +%s.%N) - $t0" | bc | xargs printf '%.1f'; }
tm new-session -d -x 80 -y 24 \
    "cd $dir/wb && TERM=screen-256color CUDATUTOR_PROGRESS=$dir/progress.json make run; sleep 3600" || exit 1
H=$dir/wb/build/harness
first="" lab01="" verdict=""
while :; do
    if [ -z "$first" ] && tm capture-pane -p 2>/dev/null | grep -q 'CUDA reduction workbook'; then
        first=$(since)
        echo "first frame:        $first s  (load $(load))"
        [ -z "${FIRST_ONLY:-}" ] || break
        tm send-keys c
    fi
    if [ -n "$first" ] && [ -z "$verdict" ] && [ -s "$dir/progress.json" ]; then
        verdict=$(jq -r '.labs["01"].last.status // empty' "$dir/progress.json" 2>/dev/null)
        [ -z "$verdict" ] || echo "the check pressed at the first frame: $verdict after $(since) s  (load $(load))"
    fi
    if [ -n "$first" ] && [ -z "$lab01" ] && [ -x "$H/judge_reduce_int" ] && [ -x "$H/judge_cpu_reduce_int" ] &&
       [ -f "$H/rt.o" ] && [ -f "$H/runner.o" ]; then
        lab01=$(since)
        echo "lab 01 checkable:   $lab01 s  (load $(load))"
    fi
    if [ -n "$first" ] && [ -n "$lab01" ] && [ -n "$verdict" ] && [ ! -e "$H/.building" ]; then
        echo "background done:    $(since) s  (load $(load))"
        break
    fi
    if [ "$(echo "$(since) > 1800" | bc)" = 1 ]; then
        echo "gave up after 1800 s"; tm capture-pane -p; exit 1
    fi
    sleep 0.2
done
[ -n "${FIRST_ONLY:-}" ] || tail -n 3 "$dir/wb/build/background.log" | sed 's/^/  background.log: /'
