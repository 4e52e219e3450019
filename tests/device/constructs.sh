#!/usr/bin/env bash
# tests/device/constructs.sh — the bank entries named on the command line
# (default: the mbarrier, cluster, lent-buffer and refused-form ones) checked on this GPU
# as a student's check runs (race checkers included), each verdict beside
# the one its first line expects, and how the CPU judge saw it.
# Usage (workbook root, on the GPU machine, after make): OUT=dir bash tests/device/constructs.sh [NAME...]
set -u
OUT=${OUT:-/tmp/constructs}
mkdir -p "$OUT"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(mbarrier_tree_pass mbarrier_arrive_too_early mbarrier_no_sync_after_init
                                 cluster_pair_pass cluster_pair_no_sync needs_gpu_half_approx
                                 int4_overread_masked partner_read_before_fill)
right=0
printf '%-32s %-10s %-10s %s\n' kernel expected got summary
for n in "${names[@]}"; do
    f=tests/bank/$n.cu
    meta=$(head -n1 "$f")
    lab=$(sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p' <<<"$meta")
    want=$(sed -n 's/.*expect=\([a-z_]*\).*/\1/p' <<<"$meta")
    ./cudatutor check "$lab" --file "$f" --quick --json > "$OUT/$n.json" 2> "$OUT/$n.err"
    got=$(jq -r .status "$OUT/$n.json" 2>/dev/null)
    [ "$got" = "$want" ] && right=$((right + 1))
    printf '%-32s %-10s %-10s %.90s\n' "$n" "$want" "$got" "$(jq -r .summary "$OUT/$n.json" 2>/dev/null)"
done
echo "constructs: $right of ${#names[@]} judged as expected"
