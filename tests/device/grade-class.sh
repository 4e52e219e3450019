#!/usr/bin/env bash
# tests/device/grade-class.sh — grade.sh's timing on a GPU machine: a class
# of STUDENTS (default 30) made of copies of mixed submissions — reference
# solutions, bad kernels from tests/bank (racy, wrong, crashing, rejected,
# escaping), stubs with a comment added (they run and fail) and kernels
# that do not compile — for all ten labs, handed in as folders, .tar.gz and
# .zip; then grades them and prints the wall time, the time per
# student-lab, where the time went and the verdicts.
#
# Usage (from the workbook root, after make):
#     OUT=/some/dir bash tests/device/grade-class.sh [STUDENTS] [-- GRADE.SH OPTIONS]
# e.g. ... grade-class.sh 30 -- --no-sanitize     (the cost of the race checks)
# HUNG=0 leaves out the one kernel that never ends (it costs its time limit,
# 60 s of one GPU).  Last, every student-lab's verdict is compared with what
# the kernel gets alone: pass for a solution, fail for a stub, compile_error
# for the file that does not compile, timeout for the hung one, and a bank
# kernel's own expect= (what tests/bank.sh holds it to, checked alone).
set -euo pipefail
cd "$(dirname "$0")/../.."

OUT=${OUT:-/tmp/cudatutor-grade-class}
N=${1:-30}
[ $# -eq 0 ] || shift
[ "${1:-}" != -- ] || shift
HUNG=${HUNG:-1}
SUBS="$OUT/subs"
rm -rf "$OUT"
mkdir -p "$SUBS" "$OUT/mk"

mapfile -t LABS < <(./cudatutor list --json | jq -r '.[] | .id + "\t" + .dir')
# bank_for LAB INDEX: the INDEX-th bank kernel of LAB (cycling) that ends by
# itself, or nothing.
bank_for() {
    local -a files
    mapfile -t files < <(grep -l "^// bank: lab=$1 " tests/bank/*.cu | xargs -r grep -L 'expect=timeout' | sort)
    if [ ${#files[@]} -gt 0 ]; then
        echo "${files[$(( $2 % ${#files[@]} ))]}"
    fi
}

declare -A mix=()
: > "$OUT/expect.tsv"
for k in $(seq 0 $((N - 1))); do
    id=$(printf 'student%02d' "$k")
    root="$OUT/mk/$id"
    for i in "${!LABS[@]}"; do
        IFS=$'\t' read -r lab dir <<< "${LABS[$i]}"
        mkdir -p "$root/$dir"
        r=$(( (k * 7 + i * 3) % 10 ))
        src=""
        kind=solution
        if [ "$HUNG" = 1 ] && [ "$k" = 0 ] && [ "$lab" = 03 ]; then
            src=tests/bank/infinite_loop.cu kind=hung
        elif [ "$r" -ge 6 ] && [ "$r" -le 7 ]; then
            src=$(bank_for "$lab" "$k")
            [ -z "$src" ] || kind=bank
        fi
        if [ "$r" = 8 ]; then
            cp "data/stubs/$(basename "$dir").cu" "$root/$dir/kernel.cu"
            echo "// $id was here" >> "$root/$dir/kernel.cu"
            kind=stub
        elif [ "$r" = 9 ]; then
            printf '#include "lab.h"\nthis does not compile;\n' > "$root/$dir/kernel.cu"
            kind=syntax
        elif [ -n "$src" ]; then
            cp "$src" "$root/$dir/kernel.cu"
        else
            cp "solutions/$(basename "$dir")/kernel.cu" "$root/$dir/kernel.cu"
        fi
        mix[$kind]=$(( ${mix[$kind]:-0} + 1 ))
        case $kind in
            solution) want=pass ;;
            stub) want=fail ;;
            syntax) want=compile_error ;;
            hung) want=timeout ;;
            bank) want=$(sed -n 's/^\/\/ bank: .*expect=\([a-z_]*\).*/\1/p' "$src" | head -n 1) ;;
        esac
        printf '%s\t%s\t%s\t%s\n' "$id" "$lab" "$want" "${src:-$kind}" >> "$OUT/expect.tsv"
    done
    case $((k % 3)) in
        0) mv "$root" "$SUBS/$id" ;;
        1) tar czf "$SUBS/$id.tar.gz" -C "$OUT/mk" "$id" ;;
        2) (cd "$root" && zip -qr "$SUBS/$id.zip" .) ;;
    esac
done
rm -rf "$OUT/mk"
echo "class: $N students x ${#LABS[@]} labs; kernels: $(for k in "${!mix[@]}"; do printf '%s %s, ' "$k" "${mix[$k]}"; done)"
nvidia-smi --query-gpu=index,name --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' || echo "gpu: none"
echo "cpus: $(nproc)"

t0=$(date +%s.%N)
rc=0
# A line every 20 s: builds, first halves and timings done, students
# finished (from grade.sh's events log), so a run cut short still tells.
( while sleep 20; do
      ev="$OUT/grades/.grader/events"
      [ -f "$ev" ] || continue
      printf '%4.0f s: built %s, checked %s, students %s\n' \
          "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')" \
          "$(grep -c '^B ' "$ev")" "$(grep -c '^C ' "$ev")" "$(grep -c '^S ' "$ev")"
  done ) &
monitor=$!
./grade.sh --out "$OUT/grades" -j "$(nproc)" "$@" "$SUBS"/* > "$OUT/grade.log" 2>&1 || rc=$?
kill "$monitor" 2>/dev/null || true
t1=$(date +%s.%N)
tail -n 6 "$OUT/grade.log"
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
labs=$(jq -s '[.[].labs[]] | length' "$OUT"/grades/students/*/report.json)
echo "grade.sh exit $rc; sandbox $(jq -r .sandbox "$OUT/grades/run.json")"
printf 'wall %.1f s for %d students (%d student-labs): %.2f s per student-lab, %.1f s per student\n' \
    "$wall" "$N" "$labs" "$(awk -v w="$wall" -v l="$labs" 'BEGIN { print w / l }')" \
    "$(awk -v w="$wall" -v n="$N" 'BEGIN { print w / n }')"
jq -rs '[.[].labs[]] as $l
        | "verdicts: " + ([$l[].status] | group_by(.) | map("\(.[0]) \(length)") | join(", ")),
          "time in checks (sum over labs): \([$l[].seconds // 0] | add | . * 10 | round / 10) s; slowest: "
          + ([$l[] | select(.seconds != null)] | sort_by(-.seconds) | .[:3] | map("\(.lab) \(.status) \(.seconds | . * 10 | round / 10) s") | join(", "))' \
    "$OUT"/grades/students/*/report.json
jq -rs '[.[].labs[] | select(.status == "pass")] | group_by(.lab)
        | map("lab \(.[0].lab): \(length) pass, \([.[] | select(.target.met == true)] | length) on target, mean \(([.[].seconds] | add / length) | . * 10 | round / 10) s, "
              + "target value \([.[].target.value // empty] | min | . * 1000 | round / 1000)..\([.[].target.value // empty] | max | . * 1000 | round / 1000)")
        | .[]' "$OUT"/grades/students/*/report.json
# Where a passing run's time went (the harness's own phases), and how long
# runs waited for the GPU.
jq -rs '[.[] | select(.status == "pass" and .phases != null)] as $p | ($p | length) as $n
        | if $n == 0 then "phases: none recorded" else
          "phases of \($n) passing runs, mean s: init \([$p[].phases.init_s] | add / $n | . * 100 | round / 100), "
          + "trials \([$p[].phases.correctness_s] | add / $n | . * 100 | round / 100), "
          + "waiting for the GPU \([$p[].phases.gpu_wait_s] | add / $n | . * 100 | round / 100), "
          + "timed \([$p[].phases.timing_s] | add / $n | . * 100 | round / 100); "
          + "race checks \([$p[].sanitizer.seconds // 0] | add / $n | . * 100 | round / 100)" end' \
    "$OUT"/grades/students/*/labs/*.json
# The race checkers' batches: each tool's runs, cleared or not, by family.
grep '^T ' "$OUT/grades/.grader/events" | awk '{ n[$3 " " $5]++ } END { for (k in n) printf "race-checker runs over batches: %s %d\n", k, n[k] }' | sort
# Every verdict against the kernel's verdict alone.
jq -r '.student as $s | .labs[] | [$s, .lab, .status] | @tsv' "$OUT"/grades/students/*/report.json \
    | sort > "$OUT/got.tsv"
join -t $'\t' -j1 \
    <(awk -F'\t' '{ print $1 "/" $2 "\t" $3 "\t" $4 }' "$OUT/expect.tsv" | sort) \
    <(awk -F'\t' '{ print $1 "/" $2 "\t" $3 }' "$OUT/got.tsv" | sort) \
    | awk -F'\t' '$2 != $4 { bad++; print "  not as alone: " $1 " (" $3 "): expected " $2 ", graded " $4 }
                  END { printf "as alone: %d of %d student-labs\n", NR - bad, NR }'
