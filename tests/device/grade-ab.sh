#!/usr/bin/env bash
# tests/device/grade-ab.sh — two built workbooks (say main and a branch)
# grading the same class of reference solutions on GPU 0 of one machine,
# in turn, ROUNDS times (A B A B ...): a change to the grader or the judge
# is compared with what it changes on the same GPU, not against a figure
# from another machine (each device call may get a fresh one, and the
# scores of labs 01-06 moved 1-1.6% between two of them, alike for every
# student).  Each grade is tests/device/grade-gpus.sh's PHASE=one (its time,
# verdicts and where its time went); last, per workbook, the median time
# and the mean score of each lab, and whether the verdicts ever differ.
# Usage (GPU machine; both workbooks built):
#     OUT=/dir bash tests/device/grade-ab.sh DIR_A DIR_B [STUDENTS [ROUNDS]] [-- GRADE.SH OPTIONS]
set -u
OUT=${OUT:-/tmp/cudatutor-grade-ab}
A=$(cd "$1" && pwd) B=$(cd "$2" && pwd)
shift 2
N=8 ROUNDS=1
if [ $# -gt 0 ] && [ "$1" != -- ]; then N=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != -- ]; then ROUNDS=$1; shift; fi
[ "${1:-}" != -- ] || shift
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "grade-ab: no GPU here (nvidia-smi lists none): nothing graded"
    exit 0
fi
mkdir -p "$OUT"
: > "$OUT/times.tsv"
for r in $(seq 1 "$ROUNDS"); do
    for side in A B; do
        root=$A
        [ $side = B ] && root=$B
        echo "== round $r, $side ($root)"
        (cd "$root" && OUT="$OUT/$side-$r" PHASE=one bash tests/device/grade-gpus.sh "$N" -- "$@") |
            grep -v '^class:' | tee "$OUT/$side-$r.txt"
        secs=$(sed -n 's/^one: grade.sh exit [0-9]* after \([0-9.]*\) s.*/\1/p' "$OUT/$side-$r.txt")
        printf '%s\t%s\t%s\n' "$side" "$r" "${secs:-none}" >> "$OUT/times.tsv"
    done
done
for side in A B; do
    awk -F'\t' -v s=$side '$1 == s { print $3 }' "$OUT/times.tsv" | sort -n |
        awk -v s=$side '{ t[NR] = $1 } END { printf "%s: median %s s over %d grade(s)\n", s, t[int((NR + 1) / 2)], NR }'
    cat "$OUT"/$side-*/one.tsv | awk -F'\t' '{ sum[$2] += $4; n[$2]++ }
        END { for (l in sum) printf "%s %.3f\n", l, sum[l] / n[l] }' | sort | tr '\n' ' ' | sed "s/^/  mean score by lab: /"
    echo
done
if cmp -s <(cut -f1-3 "$OUT"/A-1/one.tsv) <(cut -f1-3 "$OUT"/B-1/one.tsv); then
    echo "A and B: the same verdict for every student and lab"
else
    echo "A and B: verdicts differ:"
    diff <(cut -f1-3 "$OUT"/A-1/one.tsv) <(cut -f1-3 "$OUT"/B-1/one.tsv) | head -10
fi
