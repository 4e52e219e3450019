#!/usr/bin/env bash
# tests/device/edit-verdict.sh — edit-to-verdict time on a GPU machine: for
# each lab given (default 01 07), three fresh edits of a copy of its solution
# (a new comment line each, so nvcc compiles again), each checked in full as
# the tutor checks (sanitizers included); prints each time and the median.
set -u
# The checks measured here are judged by the catalog's targets: a first
# check on a new GPU model would time every reference solution first.
export CUDATUTOR_NO_CALIBRATE=1
labs=${*:-01 07}
tmp=$(mktemp -d)
for lab in $labs; do
    src=$(ls solutions/"$lab"-*/kernel.cu)
    cp "$src" "$tmp/k$lab.cu"
    times=()
    for i in 1 2 3; do
        echo "// edit $i $(date +%s%N)" >> "$tmp/k$lab.cu"
        t0=$(date +%s.%N)
        st=$(./cudatutor check "$lab" --file "$tmp/k$lab.cu" --json | jq -r .status)
        times+=("$(echo "$(date +%s.%N) $t0" | awk '{printf "%.2f", $1 - $2}')/$st")
    done
    med=$(printf '%s\n' "${times[@]}" | cut -d/ -f1 | sort -n | sed -n 2p)
    echo "lab $lab edit-to-verdict: ${times[*]}  median ${med} s"
done
rm -rf "$tmp"
