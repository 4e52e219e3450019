#!/usr/bin/env bash
# tests/device/sts-wavefronts.sh — lab 07's one unexplained counter
# (tests/emu/h200-counters.txt): ncu's shared-store wavefronts against its
# shared-store instructions for single-lane stores, alone and after a
# stream of global loads (sts-wavefronts.cu), each kernel profiled RUNS
# times (default 3), and lab 07's solution itself through counters.sh as
# often.  Equal counts alone and extra, varying ones beside the loads say
# the extra wavefronts are the L1's other traffic, not the stores.
# Usage (GPU machine, built workbook root): OUT=DIR bash tests/device/sts-wavefronts.sh [RUNS]
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cudatutor-sts}
runs=${1:-3}
mkdir -p "$OUT"
nvidia-smi -L >/dev/null 2>&1 || { echo "sts-wavefronts: no GPU here"; exit 0; }
nvcc -O3 -arch=sm_90 -o "$OUT/sts" tests/device/sts-wavefronts.cu || exit 1
m=smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
printf '%-20s %4s %12s %12s %12s\n' kernel run sts_instr st_wavefronts st_conflicts
for i in $(seq "$runs"); do
    ncu --metrics "$m" --csv "$OUT/sts" > "$OUT/ncu-$i.csv" 2> "$OUT/ncu-$i.err"
    python3 - "$OUT/ncu-$i.csv" "$i" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, got = rows[0], {}
for r in rows[1:]:
    d = dict(zip(head, r))
    k = d.get("Kernel Name", "?").split("(")[0]
    got.setdefault(k, {})[d.get("Metric Name")] = d.get("Metric Value", "").replace(",", "")
for k, v in got.items():
    print("%-20s %4s %12s %12s %12s" % (k, sys.argv[2], v.get("smsp__sass_inst_executed_op_shared_st.sum", "-"),
          v.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "-"),
          v.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "-")))
PY
done
for i in $(seq "$runs"); do
    OUT="$OUT/c$i" LABS=07 bash tests/device/counters.sh > "$OUT/counters-$i.log" 2>&1
    printf 'lab 07 solution, run %s: %s\n' "$i" "$(grep -E 'shared_store_(requests|wavefronts)' "$OUT/counters-$i.log" | awk '{ printf "%s emu %s ncu %s; ", $(NF-4), $(NF-3), $(NF-2) }')"
done
