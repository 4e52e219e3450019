#!/usr/bin/env bash
# tests/device/replay-bench.sh — a benchmark, not a test: every solution at
# every timed size, the judge's replay of the runner's plan against the old
# in-process harness (the student's object linked into the harness, as before
# the judge existed), interleaved in one run on one GPU.
#
# The old harness's source is not in the tree: put it in OLD (default
# .bench-old) with
#     mkdir -p .bench-old && git archive 2280648 tutor/harness tutor/lab.h tutor/status.h | tar x -C .bench-old
# Usage, from the workbook root after `make all`, on the GPU machine:
#     OUT=dir bash tests/device/replay-bench.sh [REPS]
# Prints one line per lab and size: medians of the old and new runs' kernel
# medians, and new/old.  Lab 09 is left out: since lab.h's contract 2 its
# integrand is drawn per call, where the old harness compiled x² in, so the
# two would not time the same work.
set -u
OUT=${OUT:-/tmp/replay-bench}
OLD=${OLD:-.bench-old}
reps=${1:-3}
root=$(pwd)
nvcc=${NVCC:-nvcc}
arch=${CUDA_ARCH:-sm_90}
w=$OUT/replay
mkdir -p "$w/old"

# The old harness, built once.
for f in hx_core hx_time hx_report hx_lock hx_fam_reduce_int hx_fam_reduce_float hx_fam_trapezoid hx_fam_mpadd; do
    $nvcc -arch=$arch -std=c++17 -O3 -lineinfo -c -o "$w/old/$f.o" "$OLD/tutor/harness/$f.cu" &
done
wait
seed=12344
labs_timed() {  # every solution's folder but lab 09's
    local d
    for d in solutions/*/; do
        [[ $d == solutions/09-* ]] || echo "$d"
    done
}
for dir in $(labs_timed); do
    lab=$(basename "$dir" | cut -c1-2)
    fam=$(jq -r --arg id "$lab" '.labs[] | select(.id == $id) | .family' data/labs.json)
    # The same object for both: compiled once.
    $nvcc -c -arch=$arch -std=c++17 -O3 -lineinfo -I"$OLD/tutor" -o "$w/k$lab.o" "$dir/kernel.cu"
    $nvcc -arch=$arch -o "$w/old$lab" "$w/k$lab.o" "$w/old/hx_fam_$fam.o" "$w/old/hx_core.o" \
        "$w/old/hx_time.o" "$w/old/hx_report.o" "$w/old/hx_lock.o"
    # The new: the tutor builds the runner and the fatbin in its work folder.
    ./cudatutor check "$lab" --file "$dir/kernel.cu" --build-only --seed $seed --work-dir "$w/new$lab" --json > /dev/null
done

perf_args() {   # the family's timed cases, as the harness takes them
    jq -r --arg f "$1" '.families[$f].perf[] | "--perf", (.label + ":" + (.n|tostring) + (if .input then ":" + .input else "" end))' data/labs.json
}

: > "$w/rows.tsv"
for rep in $(seq "$reps"); do
    for dir in $(labs_timed); do
        lab=$(basename "$dir" | cut -c1-2)
        fam=$(jq -r --arg id "$lab" '.labs[] | select(.id == $id) | .family' data/labs.json)
        mapfile -t perf < <(perf_args "$fam")
        common=(--lab "$lab" --family "$fam" --seed $seed --sizes 1 "${perf[@]}")
        "$w/old$lab" --json "$w/o.json" "${common[@]}" > /dev/null 2>&1
        nd=$w/new$lab
        build/harness/judge_"$fam" --json "$w/n.json" "${common[@]}" --runner "$nd/runner" \
            --fatbin "$nd/keep/kernel.fatbin" --ptx "$nd/keep/kernel.ptx" --runner-out "$nd/r.out" \
            > /dev/null 2>&1
        for v in o n; do
            jq -r --arg v $v --arg lab "$lab" '.perf[] | [$lab, .label, $v, .time.median_ms, .ratio] | @tsv' \
                "$w/$v.json" >> "$w/rows.tsv"
        done
    done
done
cp "$w/rows.tsv" "$OUT/replay-rows.tsv"
# Per lab and size: the median over reps of each side's median, and new/old.
awk -F'\t' '{ k = $1 "\t" $2; v[k, $3, ++n[k, $3]] = $4; keys[k] = 1 }
    function med(k, s,   m, i, j, t, a) { m = n[k, s]; for (i = 1; i <= m; i++) a[i] = v[k, s, i];
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    END { printf "%-4s %-8s %10s %10s %8s\n", "lab", "case", "old ms", "new ms", "new/old"
          for (k in keys) { o = med(k, "o"); nn = med(k, "n"); split(k, p, "\t")
              printf "%-4s %-8s %10.4f %10.4f %8.4f\n", p[1], p[2], o, nn, nn / o } }' "$w/rows.tsv" | sort
