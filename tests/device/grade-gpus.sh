#!/usr/bin/env bash
# tests/device/grade-gpus.sh — the same class graded on one GPU and on
# every visible GPU (once, where only one is visible): a class of STUDENTS (default 8) handing in every
# lab's reference solution (the case where a busy grader once graded
# correct kernels `timeout`), graded with --gpus 0, then with the default
# (every visible GPU); prints each wall time, the runs per GPU the grader
# chose, the verdicts, any lab run again alone, and the diff of every
# student's verdicts and scores between the two (none expected), and
# where each grade's time went (OUT/NAME-timeline.tsv: a line a second of
# judges, race checkers, compilers, load and GPU use).  The
# targets are the catalog's (--no-calibrate): each GPU's own calibration
# could set another threshold, which is not what this compares.
# Usage (from a built workbook's root on a GPU machine):
#     OUT=/some/dir bash tests/device/grade-gpus.sh [STUDENTS] [-- GRADE.SH OPTIONS]
# PHASE=one grades on one GPU only, PHASE=all on every GPU only, against the
# one.tsv an earlier PHASE=one left in OUT (a class too big for one command).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cudatutor-grade-gpus}
N=${1:-8}
[ $# -eq 0 ] || shift
[ "${1:-}" != -- ] || shift
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "grade-gpus: no GPU here (nvidia-smi lists none): nothing graded"
    exit 0
fi
PHASE=${PHASE:-both}
rm -rf "$OUT/subs" "$OUT/all"
[ "$PHASE" = all ] || rm -rf "$OUT/one" "$OUT/one.tsv"
mkdir -p "$OUT/subs"
mapfile -t DIRS < <(./cudatutor list --json | jq -r '.[].dir')
for k in $(seq 0 $((N - 1))); do
    id=$(printf 'student%02d' "$k")
    for d in "${DIRS[@]}"; do
        mkdir -p "$OUT/subs/$id/$d"
        cp "solutions/$(basename "$d")/kernel.cu" "$OUT/subs/$id/$d/kernel.cu"
    done
done
echo "class: $N students x ${#DIRS[@]} labs, every kernel a reference solution; $(nvidia-smi -L | wc -l) GPU(s), $(nproc) CPUs"
# A line a second while a grade runs, into OUT/NAME-timeline.tsv: the
# seconds since its start, the judges and compute-sanitizer processes
# running, the compilers, the load, and each GPU's utilisation.
timeline() {
    local t0=$1
    echo "s	judges	tools	compilers	load	gpu%"
    local judges tools
    while sleep 1; do
        # a judge under a tool is the tool's
        judges=$(pgrep -c -x 'judge_[a-z_]*') tools=$(pgrep -c compute-sanit)
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(( $(date +%s) - t0 ))" "$((judges - tools))" "$tools" \
            "$(pgrep -c -x 'cicc|ptxas|cc1plus')" "$(cut -d' ' -f1 /proc/loadavg)" \
            "$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits | paste -sd,)"
    done
}
# Where a grade's time went: the timeline's span of judges and of the
# race checkers' batches, and the judges' phases summed over every check.
where() {
    awk -F'\t' 'NR > 1 && $2 > 0 { if (!j0) j0 = $1; j1 = $1 } NR > 1 && $3 > 0 { if (!s0) s0 = $1; s1 = $1 }
                 NR > 1 { g += $6; n++ }
                 END { printf "  timeline: judges from %ss to %ss, race checkers from %ss to %ss, GPU %.0f%% busy on average\n",
                       j0, j1, s0, s1, n ? g / n : 0 }' "$OUT/$1-timeline.tsv"
    jq -rs 'def s(f): (map(f // 0) | add | . * 10 | round / 10);
            "  judges, summed: set-up \(s(.phases.init_s)) s, trials \(s(.phases.correctness_s)) s, " +
            "waits for the GPU \(s(.phases.gpu_wait_s)) s, timed sections \(s(.phases.timing_s)) s"' \
        "$OUT/$1"/students/*/labs/*.json
}
grade() {   # grade NAME GPU-OPTIONS...
    local name=$1 t0 t1 mon
    shift
    t0=$(date +%s.%N)
    timeline "${t0%.*}" > "$OUT/$name-timeline.tsv" & mon=$!
    ./grade.sh --out "$OUT/$name" --no-calibrate -q "$@" "$OUT"/subs/* > "$OUT/$name.log" 2>&1
    kill "$mon"
    echo "$name: grade.sh exit $? after $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s;" \
         "GPUs "$(jq -r .gpus "$OUT/$name/run.json" 2>/dev/null)"," \
         "runs per GPU $(jq -r .check_runs "$OUT/$name/run.json" 2>/dev/null);" \
         "verdicts: $(jq -rs '[.[].labs[].status] | group_by(.) | map("\(.[0]) \(length)") | join(", ")' \
                      "$OUT/$name"/students/*/report.json);" \
         "run again alone: $(grep -c '^R ' "$OUT/$name/.grader/events");" \
         "race-checker batches (tool runs): $(grep -c '^T .* clean$' "$OUT/$name/.grader/events") cleared," \
         "$(grep -cE '^T .* (found|alone)$' "$OUT/$name/.grader/events") not"
    where "$name"
}
# Verdicts and scores, lab by lab; times and measured figures left out.
verdicts() {
    jq -r '.student as $s | .labs[] | [$s, .lab, .status, .score] | @tsv' "$OUT/$1"/students/*/report.json \
        | sort > "$OUT/$1.tsv"
}
if [ "$PHASE" != all ]; then
    grade one --gpus 0 "$@"
    verdicts one
fi
[ "$PHASE" != one ] || exit 0
# one GPU in all: "all" would grade the same way again
if [ "$(nvidia-smi -L | wc -l)" -lt 2 ]; then
    echo "one GPU here: the class is graded once"
    exit 0
fi
grade all "$@"
verdicts all
if diff "$OUT/one.tsv" "$OUT/all.tsv" > "$OUT/diff.txt"; then
    echo "one GPU vs all: the same verdicts and scores for all $(wc -l < "$OUT/one.tsv") labs"
else
    echo "one GPU vs all: $(grep -c '^[<>]' "$OUT/diff.txt") lines differ:"
    head -20 "$OUT/diff.txt"
fi
