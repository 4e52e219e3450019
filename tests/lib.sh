# tests/lib.sh — helpers for the shell tests, sourced by each tests/*.sh.
# Prints TAP lines that tests/run.sh counts.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TUTOR="$ROOT/cudatutor"
export NO_COLOR=1 LC_ALL=C.UTF-8 LANG=C.UTF-8

ok()   { echo "ok - $1"; }
skip() { echo "ok - $1 # SKIP $2"; }
# not_ok NAME DETAIL...: DETAIL lines are shown by run.sh under the failure.
not_ok() {
    local name=$1; shift
    echo "not ok - $name"
    local line
    for line in "$@"; do printf '%s\n' "$line" | sed 's/^/#   /'; done
}
# check NAME CONDITION-COMMAND...: ok when the command succeeds.
check() {
    local name=$1; shift
    if "$@"; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

# A GPU is there when nvidia-smi lists one; tests that need it skip
# visibly otherwise.
have_gpu() { nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }
NO_GPU_REASON="skipped: no CUDA device"

# A scratch folder removed when the script ends.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cudatutor-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# Tests never touch the workbook's own progress.json.
export CUDATUTOR_PROGRESS="$TMP/progress.json"

# lab_dir NN: the lab's folder name (labs/NN-slug).
lab_dir() { (cd "$ROOT/labs" && ls -d "$1"-*) ; }
# lab_ids: every lab of the catalog; lab_family NN: its family.
lab_ids() { jq -r '.labs[].id' "$ROOT/data/labs.json"; }
lab_family() { jq -r --arg id "$1" '.labs[] | select(.id == $id) | .family' "$ROOT/data/labs.json"; }
